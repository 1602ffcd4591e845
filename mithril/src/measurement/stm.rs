//! Mithril's own implementation measured in the same run, `mithril-stm` (see
//! Cargo.toml for the version), at the same signer counts.
//!
//! * `verify_aggregate`, like for like: `BlsSignature::verify_aggregate` (its MSP.BKey, MSP.BSig
//!   and MSP.Ver in one call: BLAKE2b weights, two 128-bit multi-scalar multiplications, H(m),
//!   one pairing check) against ours on the same keys, signatures and message (signed under its
//!   empty tag), timed in alternation;
//! * `stm_verify`, a different workload, labelled so: its full STM aggregate verification
//!   (every included signature's lottery indices checked against its stake, the Merkle batch path
//!   of the signers' registrations, the quorum of k indices, then the multisignature over the
//!   included signatures only), with stakes and parameters of its own tests.
//!
//! `mithril-stm`'s multi-scalar multiplications run on blst's own thread pool, one thread per
//! CPU the process may use: CPU time (all threads) is the fair measure, and `taskset -c 0` holds
//! that pool to one thread.

use measure::envelope::Inputs;
use measure::timing::{time_with_bound, Plan};
use mithril_stm::{
    AggregateSignatureType, BlsSignature, BlsVerificationKey, Clerk, Initializer, KeyRegistration,
    MithrilMembershipDigest, Parameters, Signer,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use serde::Serialize;

use crate::native::msp::{bkey, bsig, ver, Params, Signing};

/// Largest n whose full STM verification is measured: `mithril-stm` 0.9.5 hands every signer its
/// own copy of the closed registration, so its set-up grows as n² (about 3 GB and minutes at
/// n = 4096 on one CPU).
pub const STM_MAX_N: usize = 1024;

/// The STM parameters of `mithril-stm`'s own protocol tests: quorum k of m lotteries, each won
/// with probability phi(w) = 1 − (1 − phi_f)^w for stake share w.
pub const STM_PARAMS: Parameters = Parameters {
    k: 357,
    m: 2642,
    phi_f: 0.2,
};

const MESSAGE: &[u8] = b"mithril-msp stm message";

/// One mithril-stm measurement.
#[derive(Clone, Debug, Serialize)]
pub struct StmRow {
    /// `verify_aggregate` or `stm_verify`.
    pub operation: &'static str,
    /// What the call does, and whether it is ours' workload.
    pub workload: &'static str,
    /// Signers.
    pub n: usize,
    /// Threads of our rayon pool (blst's pool is its own, see the module notes).
    pub threads: usize,
    /// Signatures handed to the aggregation (`stm_verify`: the lottery winners; at most k
    /// indices are included).
    pub signatures: usize,
    /// mithril-stm's CPU seconds per call.
    pub cpu_s: measure::timing::Stats,
    /// mithril-stm's wall seconds per call.
    pub wall_s: measure::timing::Stats,
    /// Ours on the same data, in alternation (`verify_aggregate` only).
    pub ours_cpu_s: Option<measure::timing::Stats>,
    /// Our median CPU time over mithril-stm's.
    pub ours_over_stm: Option<f64>,
    /// Both accepted the valid input and refused a changed message.
    pub verified: bool,
}

/// `verify_aggregate` against ours at n signers.
pub fn verify_aggregate_row(
    plan: &Plan,
    n: usize,
    rng: &mut ChaCha20Rng,
    inputs: &mut Inputs,
) -> StmRow {
    let params = Params::mithril_stm_compatible();
    let s = Signing::new(&params, n, MESSAGE, rng);
    let vks: Vec<BlsVerificationKey> = s
        .keys
        .iter()
        .map(|k| BlsVerificationKey::from_bytes(&k.0.to_bytes()).expect("a valid key"))
        .collect();
    let sigs: Vec<BlsSignature> = s
        .signatures
        .iter()
        .map(|x| BlsSignature::from_bytes(&x.0.to_bytes()).expect("a valid signature"))
        .collect();
    for (k, x) in s.keys.iter().zip(&s.signatures) {
        inputs.add(&format!("stm n={n} key"), &k.0.to_bytes());
        inputs.add(&format!("stm n={n} signature"), &x.0.to_bytes());
    }
    let ours = |msg: &[u8]| {
        let (mu, e) = bsig(&s.signatures);
        ver(&params, msg, &bkey(&s.keys, &e), &mu)
    };
    let theirs = |msg: &[u8]| BlsSignature::verify_aggregate(msg, &vks, &sigs).is_ok();
    let verified = ours(MESSAGE) && theirs(MESSAGE) && !ours(b"other") && !theirs(b"other");
    let (o, r) = time_with_bound(
        plan,
        &mut || {
            std::hint::black_box(ours(MESSAGE));
        },
        Some(&mut || {
            std::hint::black_box(theirs(MESSAGE));
        }),
    );
    let r = r.expect("mithril-stm was timed");
    StmRow {
        operation: "verify_aggregate",
        workload: "like for like: BKey + BSig + Ver on the same keys, signatures and message",
        n,
        threads: rayon::current_num_threads(),
        signatures: n,
        cpu_s: r.cpu_s,
        wall_s: r.wall_s,
        ours_cpu_s: Some(o.cpu_s),
        ours_over_stm: Some(o.cpu_s.median / r.cpu_s.median),
        verified,
    }
}

/// A failed step of mithril-stm, with its message.
fn stm_error(step: String, why: impl std::fmt::Display) -> crate::Error {
    crate::Error::Stm {
        step,
        why: why.to_string(),
    }
}

/// mithril-stm's full STM aggregate verification at n registered signers of random stakes.
pub fn stm_verify_row(
    plan: &Plan,
    n: usize,
    rng: &mut ChaCha20Rng,
    inputs: &mut Inputs,
) -> Result<StmRow, crate::Error> {
    type D = MithrilMembershipDigest;
    let mut stm_rng = ChaCha20Rng::from_rng(&mut *rng)?;
    let stakes: Vec<u64> = (0..n).map(|_| 1 + stm_rng.next_u64() % 9999).collect();
    let initializers: Vec<Initializer> = stakes
        .iter()
        .map(|&st| Initializer::new(STM_PARAMS, st, &mut stm_rng))
        .collect();
    let mut registration = KeyRegistration::init();
    for p in &initializers {
        registration
            .register(p.stake, p.get_verification_key_proof_of_possession())
            .map_err(|e| stm_error("registration".into(), e))?;
    }
    let closed = registration.close::<D>();
    let signers: Vec<Signer<D>> = initializers
        .into_iter()
        .map(|p| p.create_signer(closed.clone()))
        .collect::<Result<_, _>>()
        .map_err(|e| stm_error("signer".into(), e))?;
    let sigs: Vec<_> = signers.iter().filter_map(|s| s.sign(MESSAGE)).collect();
    for st in &stakes {
        inputs.add(&format!("stm n={n} stake"), &st.to_be_bytes());
    }
    let clerk = Clerk::new_clerk_from_signer(&signers[0]);
    let aggregate = clerk
        .aggregate_signatures_with_type(&sigs, MESSAGE, AggregateSignatureType::Concatenation)
        .map_err(|e| stm_error(format!("aggregation at n = {n}"), e))?;
    let avk = clerk.compute_aggregate_verification_key();
    let verified = aggregate.verify(MESSAGE, &avk, &STM_PARAMS).is_ok()
        && aggregate.verify(b"other", &avk, &STM_PARAMS).is_err();
    let (t, _) = time_with_bound(
        plan,
        &mut || {
            std::hint::black_box(aggregate.verify(MESSAGE, &avk, &STM_PARAMS).is_ok());
        },
        None,
    );
    Ok(StmRow {
        operation: "stm_verify",
        workload: "a different workload: full STM aggregate verification (k = 357 of m = 2642 \
                   lotteries, phi_f = 0.2; lottery checks, Merkle batch path, quorum, the \
                   multisignature over the included signatures only)",
        n,
        threads: rayon::current_num_threads(),
        signatures: sigs.len(),
        cpu_s: t.cpu_s,
        wall_s: t.wall_s,
        ours_cpu_s: None,
        ours_over_stm: None,
        verified,
    })
}

/// Threads of blst's own pool (one per CPU this process may use).
pub fn blst_pool_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
