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
use sha2::{Digest, Sha256};
use std::collections::HashSet;

use crate::measurement::report::Totals;
use crate::primitives::group::scalar_to_integer;
use crate::primitives::pedersen::commit_g1;
use crate::primitives::sharing::share;
use crate::primitives::wire::{encode, Wire};
use crate::proofs::plaintext::{PlaintextPok, PlaintextProof};
use crate::proofs::sigma::{pkcomm_prove, PkcommProof};
use crate::protocol::config::Config;
use crate::protocol::setup::{Mixers, Public};
use crate::protocol::steps::{driver_turn, mixers_check_section, Checked};
use crate::protocol::tamper::{Cheater, Tamper};
use crate::storage::{Column, ColumnWriter, CHUNK};
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

/// Everything the senders publish (input order). The per-entry lists live in the run's store
/// ([`Column`]); the commitments γ_i, which DB-SM and DB-RSM take whole, in memory.
#[derive(Clone)]
pub struct Inputs<E: Pairing> {
    /// cv_i: the message v_i under the threshold key.
    pub cv: Column<Integer>,
    /// cr_i: the commitment randomness r_i under the threshold key.
    pub cr: Column<Integer>,
    /// Proofs of knowledge of cv_i's plaintext.
    pub cv_pf: Column<PlaintextProof>,
    /// Proofs of knowledge of cr_i's plaintext.
    pub cr_pf: Column<PlaintextProof>,
    /// γ_i = g1^{v_i}·h1^{r_i}.
    pub gammas: Vec<E::G1Affine>,
    /// Proofs of knowledge of γ_i's opening.
    pub pkcomm: Column<PkcommProof<E>>,
    /// `shares[k]`: every sender's encrypted shares for mixer k.
    pub shares: Vec<Column<ShareCt>>,
}

crate::wire_struct!(impl[E: Pairing] Inputs<E> {
    wire cv, wire cr, wire cv_pf, wire cr_pf, ark gammas, wire pkcomm, wire shares
});

#[derive(Clone)]
struct SenderOut<E: Pairing> {
    cv: Integer,
    cr: Integer,
    cv_pf: PlaintextProof,
    cr_pf: PlaintextProof,
    gamma: E::G1,
    pkcomm: PkcommProof<E>,
    shares: Vec<ShareCt>,
}

/// The columns of [`Inputs`] as they are written, chunk after chunk of senders.
struct InputWriters<E: Pairing> {
    cv: ColumnWriter<Integer>,
    cr: ColumnWriter<Integer>,
    cv_pf: ColumnWriter<PlaintextProof>,
    cr_pf: ColumnWriter<PlaintextProof>,
    gammas: Vec<E::G1>,
    pkcomm: ColumnWriter<PkcommProof<E>>,
    shares: Vec<ColumnWriter<ShareCt>>,
}

impl<E: Pairing> InputWriters<E> {
    fn new(n: usize, m: usize) -> Result<Self> {
        Ok(InputWriters {
            cv: ColumnWriter::new("inputs cv")?,
            cr: ColumnWriter::new("inputs cr")?,
            cv_pf: ColumnWriter::new("inputs cv pok")?,
            cr_pf: ColumnWriter::new("inputs cr pok")?,
            gammas: Vec::with_capacity(n),
            pkcomm: ColumnWriter::new("inputs pkcomm")?,
            shares: (0..m)
                .map(|k| ColumnWriter::new(&format!("inputs shares for mixer {k}")))
                .collect::<Result<_>>()?,
        })
    }

    fn push(&mut self, o: SenderOut<E>) -> Result<()> {
        self.cv.push(&o.cv)?;
        self.cr.push(&o.cr)?;
        self.cv_pf.push(&o.cv_pf)?;
        self.cr_pf.push(&o.cr_pf)?;
        self.gammas.push(o.gamma);
        self.pkcomm.push(&o.pkcomm)?;
        for (w, s) in self.shares.iter_mut().zip(&o.shares) {
            w.push(s)?;
        }
        Ok(())
    }

    fn finish(self) -> Result<Inputs<E>> {
        Ok(Inputs {
            cv: self.cv.finish()?,
            cr: self.cr.finish()?,
            cv_pf: self.cv_pf.finish()?,
            cr_pf: self.cr_pf.finish()?,
            gammas: E::G1::normalize_batch(&self.gammas),
            pkcomm: self.pkcomm.finish()?,
            shares: self
                .shares
                .into_iter()
                .map(ColumnWriter::finish)
                .collect::<Result<_>>()?,
        })
    }
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
    let n = public.n;
    let mut out = InputWriters::new(n, public.m)?;
    let mut start = 0;
    while start < n {
        // One seed per sender, drawn in sender order whatever the chunking.
        let seeds: Vec<[u8; 32]> = (0..CHUNK.min(n - start)).map(|_| rng.gen()).collect();
        let mut chunk: Vec<SenderOut<E>> = seeds
            .into_par_iter()
            .enumerate()
            .map(|(j, s)| {
                let out = prepare_one(public, start + j, &mut ChaCha20Rng::from_seed(s));
                crate::primitives::counters::tick(1);
                out
            })
            .collect();
        if start == 0 {
            cheat(cfg, &mut chunk);
        }
        start += chunk.len();
        chunk.into_iter().try_for_each(|o| out.push(o))?;
    }
    out.finish()
}

/// The senders' tampers, all on the first chunk.
fn cheat<E: Pairing>(cfg: &Config, chunk: &mut [SenderOut<E>]) {
    // Sender 0 cheats: one response of its proofs no longer matches.
    if cfg.cheats(Tamper::InputPok, Cheater::Sender(0)) {
        chunk[0].cv_pf.z_m += 1;
    }
    if cfg.cheats(Tamper::PkComm, Cheater::Sender(0)) {
        chunk[0].pkcomm.z1 += E::ScalarField::one();
    }
    // Sender 1 publishes sender 0's whole input as its own.
    if cfg.cheats(Tamper::Replay, Cheater::Sender(1)) {
        chunk[1] = chunk[0].clone();
    }
    if cfg.cheats(Tamper::ShareCiphertext, Cheater::Sender(0)) {
        // 2 is a unit of Z*_{N²}; its component of order p′ survives decryption's power 2α.
        chunk[0].shares[0].cv = Integer::from(2);
    }
}

/// SHA-256 of a value's encoding: what the distinctness checks compare.
fn digest<T: Wire>(x: &T) -> [u8; 32] {
    Sha256::digest(encode(x)).into()
}

/// True iff no two of `digests` are equal.
fn distinct(mut digests: Vec<[u8; 32]>) -> bool {
    digests.par_sort_unstable();
    digests.windows(2).all(|w| w[0] != w[1])
}

/// True iff no two inputs share a ciphertext or a commitment: the cv_i and cr_i together, the
/// share ciphertexts for mixer k, and the γ_i. A resubmitted input would otherwise put one
/// sender's message into the output twice. Compares the values' SHA-256 digests, read a chunk at
/// a time.
fn all_distinct<E: Pairing>(inputs: &Inputs<E>, k: usize) -> Result<bool> {
    let n = inputs.cv.len();
    let mut cts = Vec::with_capacity(2 * n);
    for col in [&inputs.cv, &inputs.cr] {
        col.try_for_each_chunk(CHUNK, |_, chunk| {
            cts.par_extend(chunk.par_iter().map(digest));
            Ok(())
        })?;
    }
    let mut own = Vec::with_capacity(2 * n);
    inputs.shares[k].try_for_each_chunk(CHUNK, |_, chunk| {
        own.par_extend(
            chunk
                .par_iter()
                .flat_map_iter(|s| [digest(&s.cv), digest(&s.cr)]),
        );
        Ok(())
    })?;
    let gammas: HashSet<&E::G1Affine> = inputs.gammas.iter().collect();
    Ok(distinct(cts) && distinct(own) && gammas.len() == n)
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
            // A store that cannot be read is no verdict: the check fails.
            all_distinct(inputs, k).unwrap_or(false)
                && input_proofs_hold(cfg, public, k, inputs).unwrap_or(false)
        })
        .map(|_| ())
    })
}

/// Mixer k's check of every input proof: the senders' threshold PoKs of cv_i and cr_i, and
/// their PoKs of the share ciphertexts for k, each under its sender's and role's context. Read
/// and checked a chunk of senders at a time (in fast mode, each chunk one batch per kind of
/// proof).
fn input_proofs_hold<E: Pairing>(
    cfg: &Config,
    public: &Public<E>,
    k: usize,
    inputs: &Inputs<E>,
) -> Result<bool> {
    let (th, pk) = (&public.th, &public.mixer_pks[k]);
    let batched = cfg.mode.batches();
    let (cv, mut cr) = (inputs.cv.chunks(CHUNK), inputs.cr.chunks(CHUNK));
    let (mut cv_pf, mut cr_pf) = (inputs.cv_pf.chunks(CHUNK), inputs.cr_pf.chunks(CHUNK));
    let mut own = inputs.shares[k].chunks(CHUNK);
    let (v_role, r_role) = (share_role("v", k), share_role("r", k));
    let mut start = 0;
    for cv in cv {
        let cv = cv?;
        let cr = cr.next_in_step()?;
        let cv_pf = cv_pf.next_in_step()?;
        let cr_pf = cr_pf.next_in_step()?;
        let own = own.next_in_step()?;
        let ctxs = |role: &str| -> Vec<Vec<u8>> {
            (start..start + cv.len())
                .map(|i| public.context("sender", i, role))
                .collect()
        };
        let (s_cv, s_cv_pf): (Vec<Integer>, Vec<_>) =
            own.iter().map(|s| (s.cv.clone(), s.cv_pf.clone())).unzip();
        let (s_cr, s_cr_pf): (Vec<Integer>, Vec<_>) =
            own.into_iter().map(|s| (s.cr, s.cr_pf)).unzip();
        // The four batches side by side: each has a sequential part (its Fiat-Shamir hashing,
        // one long exponentiation) that would otherwise idle the other threads.
        let ((a, b), (c, d)) = rayon::join(
            || {
                rayon::join(
                    || th.verify_plaintexts(batched, &ctxs("cv"), &cv, &cv_pf),
                    || th.verify_plaintexts(batched, &ctxs("cr"), &cr, &cr_pf),
                )
            },
            || {
                rayon::join(
                    || pk.verify_plaintexts(batched, &ctxs(&v_role), &s_cv, &s_cv_pf),
                    || pk.verify_plaintexts(batched, &ctxs(&r_role), &s_cr, &s_cr_pf),
                )
            },
        );
        if !(a.is_ok() && b.is_ok() && c.is_ok() && d.is_ok()) {
            return Ok(false);
        }
        start += cv.len();
    }
    Ok(start == inputs.cv.len())
}
