//! BBS+ "quasi-signatures" on Pedersen commitments, with batch verification.
//!
//! Secret x′, public `y = f2^{x′}`. On a commitment `C = g1^v·h1^r` the signer picks c, r̂ ∈ Zq
//! and outputs `(S, c, r̂)` with `S = (f1·h1^{r̂}·C)^{1/(c+x′)}`, so that
//! `e(S, y·f2^{c}) = e(f1·h1^{r̂}·C, f2)`; then `(S, c, r̂+r)` is an ordinary BBS+ signature on v:
//! `e(S, y·f2^{c}) = e(f1·g1^{v}·h1^{r̂+r}, f2)`.
//!
//! Batch verification against the commitments, with the verifier's own κ_e-bit δ_i:
//! `e(Σδ_i S_i, y) · e(Σδ_i (c_i S_i − C_i − r̂_i h1), f2) = e(f1,f2)^{Σδ_i}`, computed as MSMs
//! and one multi-pairing of three pairs.

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{Field, UniformRand, Zero};
use ark_serialize::CanonicalSerialize;
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;

use crate::error::ensure;
use crate::primitives::group::{msm, msm_short, mul_var, random_short, Generators};
use crate::{Error, Result};

pub use crate::primitives::bbsig::SigningKey;

/// A quasi-signature `(S, c, r̂)` on a commitment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuasiSig<E: Pairing> {
    /// S = (f1·h1^{r̂}·C)^{1/(c + x′)}.
    pub s: E::G1Affine,
    /// The signature's c.
    pub c: E::ScalarField,
    /// The signature's r̂, added to the commitment's randomness.
    pub r_hat: E::ScalarField,
}

impl<E: Pairing> QuasiSig<E> {
    /// Compressed size: one G1 point and two scalars.
    pub fn size_bytes(&self) -> usize {
        self.s.compressed_size() + self.c.compressed_size() + self.r_hat.compressed_size()
    }
}

/// `S = (f1·h1^{r̂}·C)^{1/(c+x′)}` with fresh c, r̂ (c redrawn in the 1/q event c = −x′).
pub fn sign_commitment<E: Pairing>(
    gens: &Generators<E>,
    sk: &SigningKey<E>,
    comm: &E::G1Affine,
    rng: &mut (impl RngCore + CryptoRng),
) -> QuasiSig<E> {
    let (c, inv) = loop {
        let c = E::ScalarField::rand(rng);
        if let Some(inv) = (c + sk.x).inverse() {
            break (c, inv);
        }
    };
    let r_hat = E::ScalarField::rand(rng);
    let base = gens.f1.point() + gens.h1.mul(&r_hat) + comm;
    QuasiSig {
        s: mul_var(base, &inv).into_affine(),
        c,
        r_hat,
    }
}

/// Signs every commitment (in parallel, with per-entry randomness drawn up front).
pub fn sign_commitments<E: Pairing>(
    gens: &Generators<E>,
    sk: &SigningKey<E>,
    comms: &[E::G1Affine],
    rng: &mut (impl RngCore + CryptoRng),
) -> Vec<QuasiSig<E>> {
    let mut cs: Vec<E::ScalarField> = Vec::with_capacity(comms.len());
    while cs.len() < comms.len() {
        let c = E::ScalarField::rand(rng);
        if !(c + sk.x).is_zero() {
            cs.push(c);
        }
    }
    let r_hats: Vec<E::ScalarField> = comms.iter().map(|_| E::ScalarField::rand(rng)).collect();
    let mut invs: Vec<E::ScalarField> = cs.iter().map(|c| *c + sk.x).collect();
    ark_ff::batch_inversion(&mut invs);
    let s: Vec<E::G1> = (0..comms.len())
        .into_par_iter()
        .map(|i| {
            mul_var(
                gens.f1.point() + gens.h1.mul(&r_hats[i]) + comms[i],
                &invs[i],
            )
        })
        .collect();
    E::G1::normalize_batch(&s)
        .into_iter()
        .zip(cs.into_iter().zip(r_hats))
        .map(|(s, (c, r_hat))| QuasiSig { s, c, r_hat })
        .collect()
}

/// Checks one quasi-signature against its commitment.
pub fn verify_commitment<E: Pairing>(
    gens: &Generators<E>,
    y: &E::G2Affine,
    comm: &E::G1Affine,
    sig: &QuasiSig<E>,
) -> Result<()> {
    let g2 = (y.into_group() + gens.f2.mul(&sig.c)).into_affine();
    let g1 = (-(gens.f1.point() + gens.h1.mul(&sig.r_hat) + comm)).into_affine();
    let out = crate::primitives::counters::multi_pairing::<E>([sig.s, g1], [g2, gens.f2.base()]);
    ensure(!sig.s.is_zero() && out.is_zero(), "BBS+ quasi-signature")
}

/// Checks the ordinary BBS+ signature `(S, c, r′)` on v: `e(S, y·f2^c) = e(f1·g1^v·h1^{r′}, f2)`.
pub fn verify_signature<E: Pairing>(
    gens: &Generators<E>,
    y: &E::G2Affine,
    v: &E::ScalarField,
    s: &E::G1Affine,
    c: &E::ScalarField,
    r: &E::ScalarField,
) -> Result<()> {
    let g2 = (y.into_group() + gens.f2.mul(c)).into_affine();
    let g1 = (-(gens.f1.point() + gens.g1.mul(v) + gens.h1.mul(r))).into_affine();
    let out = crate::primitives::counters::multi_pairing::<E>([*s, g1], [g2, gens.f2.base()]);
    ensure(!s.is_zero() && out.is_zero(), "BBS+ signature")
}

/// Batch verification of quasi-signatures against their commitments (module comment).
pub fn batch_verify_commitments<E: Pairing>(
    gens: &Generators<E>,
    y: &E::G2Affine,
    comms: &[E::G1Affine],
    sigs: &[QuasiSig<E>],
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<()> {
    if comms.len() != sigs.len() {
        return Err(Error::Input(
            "one BBS+ quasi-signature per commitment".into(),
        ));
    }
    if sigs.iter().any(|s| s.s.is_zero()) {
        return Err(Error::Verify(
            "BBS+ batch: a signature is the identity".into(),
        ));
    }
    let n = sigs.len();
    let kappa_e = gens.batch_bits();
    let delta: Vec<E::ScalarField> = (0..n).map(|_| random_short(rng, kappa_e)).collect();
    let s: Vec<E::G1Affine> = sigs.iter().map(|q| q.s).collect();
    let dc: Vec<E::ScalarField> = (0..n)
        .into_par_iter()
        .map(|i| delta[i] * sigs[i].c)
        .collect();
    let a = msm_short::<E::G1>(&s, &delta, kappa_e as usize)?;
    // B = Σ δ_i c_i S_i − Σ δ_i C_i − (Σ δ_i r̂_i)·h1.
    let sum_dr: E::ScalarField = (0..n).map(|i| delta[i] * sigs[i].r_hat).sum();
    let b = msm::<E::G1>(&s, &dc)?
        - msm_short::<E::G1>(comms, &delta, kappa_e as usize)?
        - gens.h1.mul(&sum_dr);
    let sum_delta: E::ScalarField = delta.iter().sum();
    let c = -gens.f1.mul(&sum_delta);
    let pts = E::G1::normalize_batch(&[a, b, c]);
    let out =
        crate::primitives::counters::multi_pairing::<E>(pts, [*y, gens.f2.base(), gens.f2.base()]);
    ensure(out.is_zero(), "BBS+ quasi-signature batch")
}

crate::wire_struct!(impl[E: Pairing] QuasiSig<E> { ark s, ark c, ark r_hat });

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::pedersen::commit_g1;
    use ark_ff::One;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn bbsplus<E: Pairing>() {
        let mut rng = ChaCha20Rng::seed_from_u64(70);
        let gens = Generators::<E>::new(&mut rng);
        let sk = SigningKey::<E>::generate(&gens, &mut rng);
        let n = 7;
        let vs: Vec<E::ScalarField> = (0..n).map(|_| E::ScalarField::rand(&mut rng)).collect();
        let rs: Vec<E::ScalarField> = (0..n).map(|_| E::ScalarField::rand(&mut rng)).collect();
        let comms: Vec<E::G1Affine> = E::G1::normalize_batch(
            &(0..n)
                .map(|i| commit_g1(&gens, &vs[i], &rs[i]))
                .collect::<Vec<_>>(),
        );
        let sigs = sign_commitments(&gens, &sk, &comms, &mut rng);
        let one = sign_commitment(&gens, &sk, &comms[0], &mut rng);
        verify_commitment(&gens, &sk.y, &comms[0], &one).unwrap();
        assert!(one.size_bytes() > 0);
        for i in 0..n {
            verify_commitment(&gens, &sk.y, &comms[i], &sigs[i]).unwrap();
            // Unblinded: (S, c, r̂ + r) is a BBS+ signature on v.
            verify_signature(
                &gens,
                &sk.y,
                &vs[i],
                &sigs[i].s,
                &sigs[i].c,
                &(sigs[i].r_hat + rs[i]),
            )
            .unwrap();
        }
        assert!(verify_signature(
            &gens,
            &sk.y,
            &(vs[0] + E::ScalarField::one()),
            &sigs[0].s,
            &sigs[0].c,
            &(sigs[0].r_hat + rs[0]),
        )
        .is_err());
        batch_verify_commitments(&gens, &sk.y, &comms, &sigs, &mut rng).unwrap();
        // Exactly one bad element (S, c, r̂ or the commitment), at 0 and elsewhere: rejected.
        for i in [0, n - 1] {
            let mut bad = sigs.clone();
            bad[i].s = (bad[i].s + gens.g1.base()).into_affine();
            assert!(batch_verify_commitments(&gens, &sk.y, &comms, &bad, &mut rng).is_err());
            let mut bad = sigs.clone();
            bad[i].c += E::ScalarField::one();
            assert!(batch_verify_commitments(&gens, &sk.y, &comms, &bad, &mut rng).is_err());
            let mut bad = sigs.clone();
            bad[i].r_hat += E::ScalarField::one();
            assert!(batch_verify_commitments(&gens, &sk.y, &comms, &bad, &mut rng).is_err());
            let mut badc = comms.clone();
            badc[i] = (badc[i] + gens.h1.base()).into_affine();
            assert!(batch_verify_commitments(&gens, &sk.y, &badc, &sigs, &mut rng).is_err());
            assert!(verify_commitment(&gens, &sk.y, &badc[i], &sigs[i]).is_err());
        }
        let other = SigningKey::<E>::generate(&gens, &mut rng);
        assert!(batch_verify_commitments(&gens, &other.y, &comms, &sigs, &mut rng).is_err());
        assert!(batch_verify_commitments(&gens, &sk.y, &comms[1..], &sigs, &mut rng).is_err());
    }

    crate::curve_tests!(bbsplus);
}
