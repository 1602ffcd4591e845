//! Input preparation by the senders (spec §2.2) and the mixers' input checks (§2.3).
//!
//! Sender i picks a message v_i and commitment randomness r_i, publishes the commitment
//! γ_i = g1^{v_i}·h1^{r_i} with a proof of knowledge of its opening, threshold-Paillier
//! encryptions cv_i, cr_i of both with proofs of knowledge of plaintext, and, for every mixer k,
//! additive shares v_{i,k}, r_{i,k} encrypted under mixer k's own Paillier key, each with a proof
//! of knowledge of plaintext. As upstream (B12), nothing proves the shares consistent with γ_i.

use ark_ec::pairing::Pairing;
use ark_ec::CurveGroup;
use ark_ff::{One, UniformRand};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use rug::Integer;
use std::collections::HashSet;

use crate::group::scalar_to_integer;
use crate::paillier;
use crate::pedersen::commit_g1;
use crate::report::{Report, Totals};
use crate::run::{Config, Mode};
use crate::setup::{Mixer, Public};
use crate::sharing::share;
use crate::sigma::{pkcomm_prove, PkcommProof};
use crate::tamper::Tamper;
use crate::thpaillier::PlaintextProof;
use crate::Result;

/// One sender's encrypted share for one mixer.
#[derive(Clone, Debug)]
pub struct ShareCt {
    pub cv: Integer,
    pub cr: Integer,
    pub cv_pf: paillier::PlaintextProof,
    pub cr_pf: paillier::PlaintextProof,
}

/// Everything the senders publish (input order).
pub struct Inputs<E: Pairing> {
    pub cv: Vec<Integer>,
    pub cr: Vec<Integer>,
    pub cv_pf: Vec<PlaintextProof>,
    pub cr_pf: Vec<PlaintextProof>,
    pub gammas: Vec<E::G1Affine>,
    pub pkcomm: Vec<PkcommProof<E>>,
    /// `shares[k][i]`: sender i's encrypted shares for mixer k.
    pub shares: Vec<Vec<ShareCt>>,
}

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

/// All n senders (in parallel; each with its own CSPRNG seeded from `rng`).
pub fn prepare<E: Pairing>(
    cfg: &Config,
    public: &Public<E>,
    rng: &mut ChaCha20Rng,
) -> Result<Inputs<E>> {
    let seeds: Vec<[u8; 32]> = (0..public.n).map(|_| rng.gen()).collect();
    let outs: Vec<SenderOut<E>> = seeds
        .into_par_iter()
        .enumerate()
        .map(|(i, s)| prepare_one(public, i, &mut ChaCha20Rng::from_seed(s)))
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
    if cfg.tampers(Tamper::InputPok) {
        inp.cv_pf[0].z_m += 1;
    }
    if cfg.tampers(Tamper::PkComm) {
        inp.pkcomm[0].z1 += E::ScalarField::one();
    }
    if cfg.tampers(Tamper::Replay) {
        inp.replay(0, 1);
    }
    if cfg.tampers(Tamper::ShareCiphertext) {
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

/// `checking inputs`: each mixer checks the threshold PoKs of every cv_i, cr_i and the PoKs of
/// its own share ciphertexts, each for its sender and role in this run, and that no input
/// repeats another's ciphertexts.
pub fn check<E: Pairing>(
    cfg: &Config,
    r: &mut Report,
    public: &Public<E>,
    mixers: &mut [Mixer<E>],
    inputs: &Inputs<E>,
) -> Result<()> {
    let n = public.n;
    let ctxs = |role: &str| -> Vec<Vec<u8>> {
        (0..n).map(|i| public.context("sender", i, role)).collect()
    };
    let ok = r.section("check_encs", Totals::Mixers, |r| {
        let mut all = true;
        for mx in mixers.iter() {
            let label = "checking proofs of knowledge of input ciphertexts";
            let pk = &public.mixer_pks[mx.k];
            all &= r.time(mx.party(), label, || {
                let own = &inputs.shares[mx.k];
                let (cv_ctx, cr_ctx) = (ctxs("cv"), ctxs("cr"));
                let (v_ctx, r_ctx) = (ctxs(&share_role("v", mx.k)), ctxs(&share_role("r", mx.k)));
                let distinct = all_distinct(inputs, mx.k);
                let proofs_ok = if cfg.mode == Mode::Fast {
                    // Small-exponent batch verification: one long exponentiation per batch.
                    let (cv, cv_pf): (Vec<Integer>, Vec<_>) =
                        own.iter().map(|s| (s.cv.clone(), s.cv_pf.clone())).unzip();
                    let (cr, cr_pf): (Vec<Integer>, Vec<_>) =
                        own.iter().map(|s| (s.cr.clone(), s.cr_pf.clone())).unzip();
                    // The four batches side by side: each has a sequential part (its
                    // Fiat-Shamir hashing, one long exponentiation) that would otherwise idle
                    // the other threads.
                    let th = &public.th;
                    let ((a, b), (c, d)) = rayon::join(
                        || {
                            rayon::join(
                                || th.verify_plaintext_batch(&cv_ctx, &inputs.cv, &inputs.cv_pf),
                                || th.verify_plaintext_batch(&cr_ctx, &inputs.cr, &inputs.cr_pf),
                            )
                        },
                        || {
                            rayon::join(
                                || pk.verify_plaintext_batch(&v_ctx, &cv, &cv_pf),
                                || pk.verify_plaintext_batch(&r_ctx, &cr, &cr_pf),
                            )
                        },
                    );
                    a.is_ok() && b.is_ok() && c.is_ok() && d.is_ok()
                } else {
                    let th = &public.th;
                    (0..n).into_par_iter().all(|i| {
                        let s = &own[i];
                        th.verify_plaintext(&cv_ctx[i], &inputs.cv[i], &inputs.cv_pf[i])
                            .is_ok()
                            && th
                                .verify_plaintext(&cr_ctx[i], &inputs.cr[i], &inputs.cr_pf[i])
                                .is_ok()
                            && pk.verify_plaintext(&v_ctx[i], &s.cv, &s.cv_pf).is_ok()
                            && pk.verify_plaintext(&r_ctx[i], &s.cr, &s.cr_pf).is_ok()
                    })
                };
                distinct && proofs_ok
            });
        }
        all
    });
    r.status("status_encs", ok);
    Ok(())
}
