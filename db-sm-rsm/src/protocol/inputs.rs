//! `input preparation` by the senders and `checking inputs` by the mixers (docs/protocol.md §3,
//! §4).
//!
//! Sender i picks a message v_i and commitment randomness r_i, publishes the commitment
//! γ_i = g1^{v_i}·h1^{r_i} with a proof of knowledge of its opening, threshold-Paillier
//! encryptions cv_i, cr_i of both with proofs of knowledge of plaintext, and, for every mixer k,
//! additive shares v_{i,k}, r_{i,k} encrypted under mixer k's own Paillier key, each with a proof
//! of knowledge of plaintext. As upstream (B12 in docs/fixes.md), nothing proves the shares
//! consistent with γ_i.

use ark_ec::pairing::Pairing;
use ark_ec::CurveGroup;
use ark_ff::{One, UniformRand};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use rug::Integer;
use std::collections::HashSet;

use crate::measurement::report::Totals;
use crate::primitives::group::scalar_to_integer;
use crate::primitives::pedersen::commit_g1;
use crate::primitives::sharing::share;
use crate::proofs::plaintext::{PlaintextPok, PlaintextProof};
use crate::proofs::sigma::{pkcomm_prove, PkcommProof};
use crate::protocol::config::Config;
use crate::protocol::setup::{Mixers, Public};
use crate::protocol::steps::{driver_turn, mixers_check_section, Checked};
use crate::protocol::tamper::{Cheater, Tamper};
use crate::transport::Ctx;
use crate::Result;

/// One sender's encrypted share for one mixer.
#[derive(Clone, Debug)]
pub struct ShareCt {
    /// Its share v_{i,k} of the message, under mixer k's key.
    pub cv: Integer,
    /// Its share r_{i,k} of the commitment randomness, under mixer k's key.
    pub cr: Integer,
    /// Proof of knowledge of cv's plaintext.
    pub cv_pf: PlaintextProof,
    /// Proof of knowledge of cr's plaintext.
    pub cr_pf: PlaintextProof,
}

crate::wire_struct!(impl ShareCt { wire cv, wire cr, wire cv_pf, wire cr_pf });

/// Everything the senders publish (input order).
#[derive(Clone)]
pub struct Inputs<E: Pairing> {
    /// cv_i: the message v_i under the threshold key.
    pub cv: Vec<Integer>,
    /// cr_i: the commitment randomness r_i under the threshold key.
    pub cr: Vec<Integer>,
    /// Proofs of knowledge of cv_i's plaintext.
    pub cv_pf: Vec<PlaintextProof>,
    /// Proofs of knowledge of cr_i's plaintext.
    pub cr_pf: Vec<PlaintextProof>,
    /// γ_i = g1^{v_i}·h1^{r_i}.
    pub gammas: Vec<E::G1Affine>,
    /// Proofs of knowledge of γ_i's opening.
    pub pkcomm: Vec<PkcommProof<E>>,
    /// `shares[k][i]`: sender i's encrypted shares for mixer k.
    pub shares: Vec<Vec<ShareCt>>,
}

crate::wire_struct!(impl[E: Pairing] Inputs<E> {
    wire cv, wire cr, wire cv_pf, wire cr_pf, ark gammas, wire pkcomm, wire shares
});

impl<E: Pairing> Inputs<E> {
    /// Sender `to` publishes sender `from`'s whole input as its own (the replay tamper).
    fn replay(&mut self, from: usize, to: usize) {
        self.cv[to] = self.cv[from].clone();
        self.cr[to] = self.cr[from].clone();
        self.cv_pf[to] = self.cv_pf[from].clone();
        self.cr_pf[to] = self.cr_pf[from].clone();
        self.gammas[to] = self.gammas[from];
        self.pkcomm[to] = self.pkcomm[from];
        for shares in &mut self.shares {
            shares[to] = shares[from].clone();
        }
    }
}

struct SenderOut<E: Pairing> {
    cv: Integer,
    cr: Integer,
    cv_pf: PlaintextProof,
    cr_pf: PlaintextProof,
    gamma: E::G1,
    pkcomm: PkcommProof<E>,
    shares: Vec<ShareCt>,
}

/// The role of sender `i`'s share ciphertext of v (or r) for mixer k, in its proof's context.
fn share_role(value: &str, k: usize) -> String {
    format!("{value} share for mixer {k}")
}

/// One sender's whole preparation, with its own CSPRNG. Every proof names the run, sender i and
/// what it proves ([`Public::context`]).
fn prepare_one<E: Pairing>(public: &Public<E>, i: usize, rng: &mut ChaCha20Rng) -> SenderOut<E> {
    let gens = &public.gens;
    let th = &public.th;
    let v = E::ScalarField::rand(rng);
    let r = E::ScalarField::rand(rng);
    let (vi, ri) = (scalar_to_integer(&v), scalar_to_integer(&r));
    let (cv, cv_rand) = th.encrypt(&vi, rng);
    let (cr, cr_rand) = th.encrypt(&ri, rng);
    let gamma = commit_g1(gens, &v, &r);
    let ctx = |role: &str| public.context("sender", i, role);
    let pkcomm = pkcomm_prove(gens, &ctx("gamma"), &gamma.into_affine(), &v, &r, rng);
    let vs = share(&v, public.m, rng);
    let rs = share(&r, public.m, rng);
    let shares = public
        .mixer_pks
        .iter()
        .zip(vs.iter().zip(&rs))
        .enumerate()
        .map(|(k, (pk, (vk, rk)))| {
            let (vk, rk) = (scalar_to_integer(vk), scalar_to_integer(rk));
            let (cv, cv_r) = pk.encrypt(&vk, rng);
            let (cr, cr_r) = pk.encrypt(&rk, rng);
            let cv_pf = pk.prove_plaintext(&ctx(&share_role("v", k)), &cv, &vk, &cv_r, rng);
            let cr_pf = pk.prove_plaintext(&ctx(&share_role("r", k)), &cr, &rk, &cr_r, rng);
            ShareCt {
                cv,
                cr,
                cv_pf,
                cr_pf,
            }
        })
        .collect();
    let cv_pf = th.prove_plaintext(&ctx("cv"), &cv, &vi, &cv_rand, rng);
    let cr_pf = th.prove_plaintext(&ctx("cr"), &cr, &ri, &cr_rand, rng);
    SenderOut {
        cv,
        cr,
        cv_pf,
        cr_pf,
        gamma,
        pkcomm,
        shares,
    }
}

/// `input preparation`: all n senders (in parallel; each with its own CSPRNG seeded from
/// `rng`), timed as one party-less leaf, in the driver; the other processes read the inputs
/// from the board.
pub fn input_preparation<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    rng: &mut ChaCha20Rng,
) -> Result<Inputs<E>> {
    driver_turn(c, "input preparation", |c| {
        c.time_plain_entries("input preparation", public.n, || prepare(cfg, public, rng))
    })
}

fn prepare<E: Pairing>(
    cfg: &Config,
    public: &Public<E>,
    rng: &mut ChaCha20Rng,
) -> Result<Inputs<E>> {
    let seeds: Vec<[u8; 32]> = (0..public.n).map(|_| rng.gen()).collect();
    let outs: Vec<SenderOut<E>> = seeds
        .into_par_iter()
        .enumerate()
        .map(|(i, s)| {
            let out = prepare_one(public, i, &mut ChaCha20Rng::from_seed(s));
            crate::primitives::counters::tick(1);
            out
        })
        .collect();
    let mut inp = Inputs {
        cv: Vec::with_capacity(public.n),
        cr: Vec::with_capacity(public.n),
        cv_pf: Vec::with_capacity(public.n),
        cr_pf: Vec::with_capacity(public.n),
        gammas: Vec::new(),
        pkcomm: Vec::with_capacity(public.n),
        shares: vec![Vec::with_capacity(public.n); public.m],
    };
    let mut gammas = Vec::with_capacity(public.n);
    for o in outs {
        inp.cv.push(o.cv);
        inp.cr.push(o.cr);
        inp.cv_pf.push(o.cv_pf);
        inp.cr_pf.push(o.cr_pf);
        gammas.push(o.gamma);
        inp.pkcomm.push(o.pkcomm);
        for (k, s) in o.shares.into_iter().enumerate() {
            inp.shares[k].push(s);
        }
    }
    inp.gammas = E::G1::normalize_batch(&gammas);
    // Sender 0 cheats: one response of its proofs no longer matches.
    if cfg.cheats(Tamper::InputPok, Cheater::Sender(0)) {
        inp.cv_pf[0].z_m += 1;
    }
    if cfg.cheats(Tamper::PkComm, Cheater::Sender(0)) {
        inp.pkcomm[0].z1 += E::ScalarField::one();
    }
    if cfg.cheats(Tamper::Replay, Cheater::Sender(1)) {
        inp.replay(0, 1);
    }
    if cfg.cheats(Tamper::ShareCiphertext, Cheater::Sender(0)) {
        // 2 is a unit of Z*_{N²}; its component of order p′ survives decryption's power 2α.
        inp.shares[0][0].cv = Integer::from(2);
    }
    Ok(inp)
}

/// True iff no two inputs share a ciphertext or a commitment: the cv_i and cr_i together, the
/// share ciphertexts for mixer k, and the γ_i. A resubmitted input would otherwise put one
/// sender's message into the output twice.
fn all_distinct<E: Pairing>(inputs: &Inputs<E>, k: usize) -> bool {
    let n = inputs.cv.len();
    let mut cts: HashSet<&Integer> = HashSet::with_capacity(2 * n);
    let mut own: HashSet<&Integer> = HashSet::with_capacity(2 * n);
    let gammas: HashSet<&E::G1Affine> = inputs.gammas.iter().collect();
    inputs.cv.iter().chain(&inputs.cr).all(|c| cts.insert(c))
        && inputs.shares[k]
            .iter()
            .flat_map(|s| [&s.cv, &s.cr])
            .all(|c| own.insert(c))
        && gammas.len() == n
}

/// `checking inputs`, with its one subsection `check_encs`: each mixer checks the threshold
/// PoKs of every cv_i, cr_i and the PoKs of its own share ciphertexts, each for its sender and
/// role in this run, and that no input repeats another's ciphertexts. Records `status_encs`.
pub fn checking_inputs<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    inputs: &Inputs<E>,
) -> Result<()> {
    c.section("checking inputs", Totals::None, |c| {
        let labels = [
            "check_encs",
            "checking proofs of knowledge of input ciphertexts",
            "status_encs",
        ];
        mixers_check_section(c, mixers, labels, Checked::PerMixer, |k, _| {
            all_distinct(inputs, k) && input_proofs_hold(cfg, public, k, inputs)
        })
        .map(|_| ())
    })
}

/// Mixer k's check of every input proof: the senders' threshold PoKs of cv_i and cr_i, and
/// their PoKs of the share ciphertexts for k, each under its sender's and role's context.
fn input_proofs_hold<E: Pairing>(
    cfg: &Config,
    public: &Public<E>,
    k: usize,
    inputs: &Inputs<E>,
) -> bool {
    let ctxs = |role: &str| public.contexts("sender", role);
    let own = &inputs.shares[k];
    let (cv, cv_pf): (Vec<Integer>, Vec<_>) =
        own.iter().map(|s| (s.cv.clone(), s.cv_pf.clone())).unzip();
    let (cr, cr_pf): (Vec<Integer>, Vec<_>) =
        own.iter().map(|s| (s.cr.clone(), s.cr_pf.clone())).unzip();
    let (th, pk) = (&public.th, &public.mixer_pks[k]);
    let batched = cfg.mode.batches();
    // The four batches side by side: each has a sequential part (its Fiat-Shamir hashing, one
    // long exponentiation) that would otherwise idle the other threads.
    let ((a, b), (c, d)) = rayon::join(
        || {
            rayon::join(
                || th.verify_plaintexts(batched, &ctxs("cv"), &inputs.cv, &inputs.cv_pf),
                || th.verify_plaintexts(batched, &ctxs("cr"), &inputs.cr, &inputs.cr_pf),
            )
        },
        || {
            rayon::join(
                || pk.verify_plaintexts(batched, &ctxs(&share_role("v", k)), &cv, &cv_pf),
                || pk.verify_plaintexts(batched, &ctxs(&share_role("r", k)), &cr, &cr_pf),
            )
        },
    );
    a.is_ok() && b.is_ok() && c.is_ok() && d.is_ok()
}
