//! DPK_BB: the distributed proof of knowledge behind DB-SM (docs/protocol.md §6.4-§6.5, the paper's
//! Figure 8). For every input i the m mixers jointly prove, from additive shares of the witness,
//!
//! ```text
//! DPK{(v, r, b): γ_i = g1^v·h1^r  ∧  e(σ̃_i, y)·e(σ̃_i, f2)^v = e(g1, f2)^b}
//! ```
//!
//! i.e. that σ̃_i^{1/b} is a Boneh-Boyen signature (key y) on the value committed in γ_i.
//!
//! It is a Schnorr proof run in three rounds across the mixers: each mixer k contributes a
//! commitment factor from its own nonces ([`commit`]), everyone hashes the product of the factors
//! ([`challenges`]), and each mixer answers with its share of the responses ([`respond`]); the
//! verifier adds the shares up ([`verify`]). The challenge hashes the whole per-entry statement
//! (generators, y, γ_i, σ̃_i, the entry index and both commitments), fixing F1.
//!
//! The relation degenerates when σ̃_i is the identity: `e(1, ·) = 1`, so b = 0 satisfies the
//! pairing equation for every v and the proof shows only that γ_i opens to *some* v. That is
//! what the mixers get if their blinding shares b_{i,k} sum to 0 (colluding mixers can arrange
//! it; every blinding, decryption and combination proof stays honest). The verifier therefore
//! rejects σ̃_i = 1. Any other σ̃_i is sound: b = 0 would then need `y·f2^v = 1`, i.e.
//! v = −x′, the verifier's secret key.

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup};
use ark_serialize::CanonicalSerialize;
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;

use crate::primitives::group::{mul_var, random_scalars, FixedBaseTable, Generators, Gt};
use crate::primitives::sharing::response_shares;
use crate::proofs::{dpk_entry_transcript, multiply_entries, same_entries, CommitmentFactors};
use crate::{Error, Result};

/// The public statement of all n proofs.
pub struct Statement<'a, E: Pairing> {
    /// The verifier's BB public key y = f2^{x'}.
    pub y: &'a E::G2Affine,
    /// The senders' commitments γ_i, input order.
    pub gammas: &'a [E::G1Affine],
    /// The blinded signatures σ̃_i, input order.
    pub sigmas: &'a [E::G1Affine],
}

/// Mixer k's additive shares of the witness, one per entry.
pub struct WitnessShares<F> {
    /// Shares of v.
    pub v: Vec<F>,
    /// Shares of r.
    pub r: Vec<F>,
    /// Shares of b.
    pub b: Vec<F>,
}

/// Mixer k's nonces for the commit round: secret, kept until the response round.
pub struct Nonces<F> {
    v: Vec<F>,
    r: Vec<F>,
    b: Vec<F>,
}

/// The commitments T1 (GT) and T2 (G1) of every entry: the running product of the mixers'
/// factors. It is public (each mixer broadcasts its factor), but not part of the proof: the
/// verifier recomputes it.
#[derive(Clone)]
pub struct Commitments<E: Pairing> {
    /// T1 of every entry.
    pub t1: Vec<Gt<E>>,
    /// T2 of every entry.
    pub t2: Vec<E::G1>,
}

impl<E: Pairing> CommitmentFactors for Commitments<E> {
    fn entries(&self) -> usize {
        self.t1.len()
    }

    fn add(&mut self, other: &Commitments<E>) -> Result<()> {
        same_entries("dpk_bbsig", self.t1.len(), other.t1.len())?;
        same_entries("dpk_bbsig", self.t2.len(), other.t2.len())?;
        multiply_entries(&mut self.t1, &other.t1);
        multiply_entries(&mut self.t2, &other.t2);
        Ok(())
    }
}

/// One proof per entry: the challenge and every mixer's three response shares.
#[derive(Clone, Debug)]
pub struct Proof<F> {
    /// The challenges.
    pub ch: Vec<F>,
    /// `zv[k][i]`, `zr[k][i]`, `zb[k][i]`: mixer k's shares for entry i.
    pub zv: Vec<Vec<F>>,
    /// Every mixer's response shares for r.
    pub zr: Vec<Vec<F>>,
    /// Every mixer's response shares for b.
    pub zb: Vec<Vec<F>>,
}

impl<F: CanonicalSerialize> Proof<F> {
    /// Bytes of one entry's proof: the challenge and 3m response shares.
    pub fn entry_size_bytes(&self) -> usize {
        let m = self.zv.len();
        self.ch
            .first()
            .map(|c| c.compressed_size() * (1 + 3 * m))
            .unwrap_or(0)
    }
}

/// Mixer k's commit round: fresh nonces and its factors of every entry's commitments (what it
/// publishes; the commitments are the products of every mixer's factors, [`Commitments::add`]).
pub fn commit_share<E: Pairing>(
    gens: &Generators<E>,
    st: &Statement<E>,
    rng: &mut (impl RngCore + CryptoRng),
) -> (Commitments<E>, Nonces<E::ScalarField>) {
    let n = st.sigmas.len();
    let nonces: Nonces<E::ScalarField> = Nonces {
        v: random_scalars(rng, n),
        r: random_scalars(rng, n),
        b: random_scalars(rng, n),
    };
    let (t1, t2) = (0..n)
        .into_par_iter()
        .map(|i| {
            // e(σ̃, f2^{-v̂})·e(g1,f2)^{b̂}: one pairing and a G2 fixed-base exponentiation, as
            // upstream (the pairing of σ̃ with f2 is per mixer because the exponent is).
            let f2v = gens.f2.mul(&-nonces.v[i]).into_affine();
            let t1 = crate::primitives::counters::pairing::<E>(st.sigmas[i], f2v)
                + gens.eg1f2.mul(&nonces.b[i]);
            let t2 = gens.g1.mul(&nonces.v[i]) + gens.h1.mul(&nonces.r[i]);
            crate::primitives::counters::tick(1);
            (t1, t2)
        })
        .unzip();
    (Commitments { t1, t2 }, nonces)
}

fn challenge<E: Pairing>(
    gens: &Generators<E>,
    st: &Statement<E>,
    i: usize,
    t1: &Gt<E>,
    t2: &E::G1,
) -> E::ScalarField {
    let mut t = dpk_entry_transcript(b"db-sm-rsm/dpk_bbsig", gens, st.y, (b"i", i));
    t.append_ark(b"gamma", &st.gammas[i]);
    t.append_ark(b"sigma", &st.sigmas[i]);
    t.append_ark(b"T1", t1);
    t.append_ark(b"T2", &t2.into_affine());
    t.challenge_scalar(b"ch")
}

/// The challenge round (every mixer computes all n challenges itself).
pub fn challenges<E: Pairing>(
    gens: &Generators<E>,
    st: &Statement<E>,
    acc: &Commitments<E>,
) -> Vec<E::ScalarField> {
    (0..st.sigmas.len())
        .into_par_iter()
        .map(|i| challenge(gens, st, i, &acc.t1[i], &acc.t2[i]))
        .collect()
}

/// Mixer k's response round: `ẑ − x_k·ch` for each witness share.
pub fn respond<F: ark_ff::PrimeField>(
    nonces: &Nonces<F>,
    w: &WitnessShares<F>,
    ch: &[F],
) -> (Vec<F>, Vec<F>, Vec<F>) {
    (
        response_shares(&nonces.v, &w.v, ch),
        response_shares(&nonces.r, &w.r, ch),
        response_shares(&nonces.b, &w.b, ch),
    )
}

/// The verifier: sums the response shares, recomputes T1' and T2', and re-hashes. Returns the
/// indices of the entries whose proof fails (empty: all verify).
pub fn verify<E: Pairing>(
    gens: &Generators<E>,
    st: &Statement<E>,
    proof: &Proof<E::ScalarField>,
) -> Result<Vec<usize>> {
    let n = st.sigmas.len();
    let m = proof.zv.len();
    let lens_ok = st.gammas.len() == n
        && proof.ch.len() == n
        && proof.zr.len() == m
        && proof.zb.len() == m
        && proof
            .zv
            .iter()
            .chain(&proof.zr)
            .chain(&proof.zb)
            .all(|z| z.len() == n);
    if !lens_ok {
        return Err(Error::Input(
            "dpk_bbsig: proof and statement lengths differ".into(),
        ));
    }
    // The verifier raises its own key y to every challenge: a fixed-base table (32 rows of 256
    // G2 points) costs about as much as 40 variable-base G2 exponentiations and turns each of
    // the n into a table look-up.
    let y = FixedBaseTable::full(st.y.into_group());
    let bad = (0..n)
        .into_par_iter()
        .filter(|&i| {
            crate::primitives::counters::tick(1);
            if st.sigmas[i].is_zero() {
                // The identity: the total blinding is 0 and the relation holds for any v.
                return true;
            }
            let sum =
                |z: &Vec<Vec<E::ScalarField>>| -> E::ScalarField { z.iter().map(|zk| zk[i]).sum() };
            let (zv, zr, zb) = (sum(&proof.zv), sum(&proof.zr), sum(&proof.zb));
            let ch = proof.ch[i];
            let g2 = (y.mul(&ch) + gens.f2.mul(&-zv)).into_affine();
            let t1 =
                crate::primitives::counters::pairing::<E>(st.sigmas[i], g2) + gens.eg1f2.mul(&zb);
            let t2 = mul_var(st.gammas[i].into_group(), &ch) + gens.h1.mul(&zr) + gens.g1.mul(&zv);
            challenge(gens, st, i, &t1, &t2) != ch
        })
        .collect();
    Ok(bad)
}

crate::wire_struct!(impl[E: Pairing] Commitments<E> { ark t1, ark t2 });
// Nonces are a mixer's secret; they travel only into its own journal.
crate::wire_struct!(impl[F: ark_ff::PrimeField] Nonces<F> { ark v, ark r, ark b });
crate::wire_struct!(impl[F: ark_ff::PrimeField] Proof<F> { ark ch, ark zv, ark zr, ark zb });

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::sharing::share;
    use ark_ff::{Field, UniformRand, Zero};
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn no_shares<F: ark_ff::PrimeField>(m: usize) -> Vec<WitnessShares<F>> {
        (0..m)
            .map(|_| WitnessShares {
                v: vec![],
                r: vec![],
                b: vec![],
            })
            .collect()
    }

    /// The three rounds among the mixers holding `shares`, as the protocol runs them.
    fn prove_all<E: Pairing>(
        gens: &Generators<E>,
        st: &Statement<E>,
        shares: &[WitnessShares<E::ScalarField>],
        rng: &mut ChaCha20Rng,
    ) -> Proof<E::ScalarField> {
        let mut acc: Option<Commitments<E>> = None;
        let nonces: Vec<_> = shares
            .iter()
            .map(|_| {
                let (factors, nonces) = commit_share(gens, st, rng);
                crate::proofs::multiply_into(&mut acc, factors).unwrap();
                nonces
            })
            .collect();
        let ch = challenges(gens, st, &acc.unwrap());
        let mut proof = Proof {
            ch,
            zv: vec![],
            zr: vec![],
            zb: vec![],
        };
        for (nonce, w) in nonces.iter().zip(shares) {
            let (zv, zr, zb) = respond(nonce, w, &proof.ch);
            proof.zv.push(zv);
            proof.zr.push(zr);
            proof.zb.push(zb);
        }
        proof
    }

    fn run<E: Pairing>(tamper: bool) -> Vec<usize> {
        run_changed::<E>(if tamper { "zb" } else { "" })
    }

    /// An honest proof of 5 entries, checked after one change: `zb` (a response share), or a
    /// statement element the proof was made for: `gamma` (γ_0), `sigma` (σ̃_3) or `y`.
    fn run_changed<E: Pairing>(change: &str) -> Vec<usize> {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let gens = Generators::<E>::new(&mut rng);
        let (n, m) = (5, 3);
        let xp = E::ScalarField::rand(&mut rng);
        let y = gens.f2.mul(&xp).into_affine();
        let mut gammas = Vec::new();
        let mut sigmas = Vec::new();
        let mut shares = no_shares::<E::ScalarField>(m);
        for _ in 0..n {
            let (v, r, b) = (
                E::ScalarField::rand(&mut rng),
                E::ScalarField::rand(&mut rng),
                E::ScalarField::rand(&mut rng),
            );
            gammas.push((gens.g1.mul(&v) + gens.h1.mul(&r)).into_affine());
            let e = b * (v + xp).inverse().unwrap();
            sigmas.push(gens.g1.mul(&e).into_affine());
            for (x, which) in [(v, 0), (r, 1), (b, 2)] {
                for (k, s) in share(&x, m, &mut rng).into_iter().enumerate() {
                    match which {
                        0 => shares[k].v.push(s),
                        1 => shares[k].r.push(s),
                        _ => shares[k].b.push(s),
                    }
                }
            }
        }
        let st = Statement {
            y: &y,
            gammas: &gammas,
            sigmas: &sigmas,
        };
        let mut proof = prove_all(&gens, &st, &shares, &mut rng);
        let (mut y2, mut gammas2, mut sigmas2) = (y, gammas.clone(), sigmas.clone());
        match change {
            "zb" => proof.zb[1][0] += E::ScalarField::from(1u64),
            "gamma" => gammas2[0] = (gammas2[0] + gens.g1.base()).into_affine(),
            "sigma" => sigmas2[3] = (sigmas2[3] + gens.g1.base()).into_affine(),
            "y" => y2 = (y2 + gens.f2.base()).into_affine(),
            _ => {}
        }
        let st = Statement {
            y: &y2,
            gammas: &gammas2,
            sigmas: &sigmas2,
        };
        verify(&gens, &st, &proof).unwrap()
    }

    /// The proof is bound to its statement: a changed commitment, blinded signature or key
    /// fails the entries it touches.
    #[test]
    fn rejects_a_changed_statement() {
        assert_eq!(run_changed::<ark_bn254::Bn254>("gamma"), vec![0]);
        assert_eq!(run_changed::<ark_bn254::Bn254>("sigma"), vec![3]);
        assert_eq!(run_changed::<ark_bn254::Bn254>("y"), vec![0, 1, 2, 3, 4]);
    }

    /// Mixers whose blinding shares sum to 0 get σ̃ = 1, and with it an honest-looking proof for
    /// values nobody signed: every entry must be rejected.
    fn zero_blinding<E: Pairing>() -> Vec<usize> {
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        let gens = Generators::<E>::new(&mut rng);
        let (n, m) = (4, 3);
        let y = gens.f2.mul(&E::ScalarField::rand(&mut rng)).into_affine();
        let mut gammas = Vec::new();
        let mut shares = no_shares::<E::ScalarField>(m);
        for _ in 0..n {
            // v is not signed by anyone; b is shared as shares summing to 0.
            let (v, r) = (
                E::ScalarField::rand(&mut rng),
                E::ScalarField::rand(&mut rng),
            );
            gammas.push((gens.g1.mul(&v) + gens.h1.mul(&r)).into_affine());
            let sv = share(&v, m, &mut rng);
            let sr = share(&r, m, &mut rng);
            let sb = share(&E::ScalarField::zero(), m, &mut rng);
            for k in 0..m {
                shares[k].v.push(sv[k]);
                shares[k].r.push(sr[k]);
                shares[k].b.push(sb[k]);
            }
        }
        let sigmas = vec![E::G1Affine::zero(); n];
        let st = Statement {
            y: &y,
            gammas: &gammas,
            sigmas: &sigmas,
        };
        let proof = prove_all(&gens, &st, &shares, &mut rng);
        verify(&gens, &st, &proof).unwrap()
    }

    #[test]
    fn identity_blinded_signature_is_rejected() {
        assert_eq!(zero_blinding::<ark_bn254::Bn254>(), vec![0, 1, 2, 3]);
        assert_eq!(
            zero_blinding::<ark_bls12_381::Bls12_381>(),
            vec![0, 1, 2, 3]
        );
    }

    fn completes_and_rejects_a_tampered_share<E: Pairing>() {
        assert!(run::<E>(false).is_empty());
        assert_eq!(run::<E>(true), vec![0]);
    }

    crate::curve_tests!(completes_and_rejects_a_tampered_share);
}
