//! Boneh-Boyen (weak, short) signatures with batch verification.
//!
//! Secret x′ ∈ Zq, public `y = f2^{x′}` in G2; `σ(v) = g1^{1/(v+x′)}`; valid iff
//! `e(σ, y·f2^{v}) = e(g1, f2)`.
//!
//! Batch verification (Bellare-Garay-Rabin small exponents): the verifier draws κ_e-bit δ_i with
//! its own CSPRNG and checks `e(Σδ_iσ_i, y) · e(Σδ_i v_i σ_i, f2) = e(g1,f2)^{Σδ_i}`. Both sums are
//! MSMs and the check is one multi-pairing of three pairs (`e(−g1^{Σδ}, f2)` replaces the GT
//! exponentiation), so the per-batch cost is one Miller loop set and one final exponentiation.
//! A batch with one bad signature passes with probability about 2^−κ_e.

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{Field, UniformRand, Zero};
use ark_serialize::CanonicalSerialize;
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;

use crate::error::ensure;
use crate::primitives::group::{msm, msm_short, random_nonzero, random_short, Generators};
use crate::{Error, Result};

/// A signing key: secret x′ and public y = f2^{x′}.
#[derive(Clone, Debug)]
pub struct SigningKey<E: Pairing> {
    /// The secret key x′.
    pub x: E::ScalarField,
    /// The public key y = f2^{x′}.
    pub y: E::G2Affine,
}

impl<E: Pairing> SigningKey<E> {
    /// A fresh key pair.
    pub fn generate(gens: &Generators<E>, rng: &mut (impl RngCore + CryptoRng)) -> Self {
        let x = random_nonzero(rng);
        SigningKey {
            x,
            y: gens.f2.mul(&x).into_affine(),
        }
    }
}

/// `σ = g1^{1/(v+x′)}`; fails only if v = −x′ (probability 1/q for a random message).
pub fn sign<E: Pairing>(
    gens: &Generators<E>,
    sk: &SigningKey<E>,
    v: &E::ScalarField,
) -> Result<E::G1Affine> {
    let inv = (*v + sk.x)
        .inverse()
        .ok_or_else(|| Error::Input("message is minus the signing key".into()))?;
    Ok(gens.g1.mul(&inv).into_affine())
}

/// Signs every message (in parallel).
pub fn sign_many<E: Pairing>(
    gens: &Generators<E>,
    sk: &SigningKey<E>,
    vs: &[E::ScalarField],
) -> Result<Vec<E::G1Affine>> {
    let mut inv: Vec<E::ScalarField> = vs.iter().map(|v| *v + sk.x).collect();
    if inv.iter().any(|x| x.is_zero()) {
        return Err(Error::Input("a message is minus the signing key".into()));
    }
    ark_ff::batch_inversion(&mut inv);
    let sig: Vec<E::G1> = inv.par_iter().map(|i| gens.g1.mul(i)).collect();
    Ok(E::G1::normalize_batch(&sig))
}

/// Checks one signature with two pairings.
pub fn verify<E: Pairing>(
    gens: &Generators<E>,
    y: &E::G2Affine,
    v: &E::ScalarField,
    sig: &E::G1Affine,
) -> Result<()> {
    let rhs = (y.into_group() + gens.f2.mul(v)).into_affine();
    let lhs = crate::primitives::counters::multi_pairing::<E>(
        [*sig, (-gens.g1.point()).into_affine()],
        [rhs, gens.f2.base()],
    );
    ensure(lhs.is_zero(), "BB signature")
}

/// Batch verification of σ_i on v_i (see the module comment).
pub fn batch_verify<E: Pairing>(
    gens: &Generators<E>,
    y: &E::G2Affine,
    vs: &[E::ScalarField],
    sigs: &[E::G1Affine],
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<()> {
    if vs.len() != sigs.len() {
        return Err(Error::Input("one BB signature per message".into()));
    }
    if sigs.iter().any(|s| s.is_zero()) {
        return Err(Error::Verify(
            "BB batch: a signature is the identity".into(),
        ));
    }
    let kappa_e = gens.batch_bits();
    let delta: Vec<E::ScalarField> = (0..vs.len()).map(|_| random_short(rng, kappa_e)).collect();
    let dv: Vec<E::ScalarField> = delta.par_iter().zip(vs).map(|(d, v)| *d * v).collect();
    let a = msm_short::<E::G1>(sigs, &delta, kappa_e as usize)?;
    let b = msm::<E::G1>(sigs, &dv)?;
    let sum_delta: E::ScalarField = delta.iter().sum();
    let c = -gens.g1.mul(&sum_delta);
    let pts = E::G1::normalize_batch(&[a, b, c]);
    let out =
        crate::primitives::counters::multi_pairing::<E>(pts, [*y, gens.f2.base(), gens.f2.base()]);
    ensure(out.is_zero(), "BB signature batch")
}

/// Size in bytes of a compressed signature.
pub fn signature_size<E: Pairing>() -> usize {
    E::G1Affine::zero().compressed_size()
}

/// A random message (upstream's messages are random Zq elements).
pub fn random_message<E: Pairing>(rng: &mut (impl RngCore + CryptoRng)) -> E::ScalarField {
    E::ScalarField::rand(rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::One;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn bb<E: Pairing>() {
        let mut rng = ChaCha20Rng::seed_from_u64(60);
        let gens = Generators::<E>::new(&mut rng);
        let sk = SigningKey::<E>::generate(&gens, &mut rng);
        let n = 8;
        let vs: Vec<E::ScalarField> = (0..n).map(|_| random_message::<E>(&mut rng)).collect();
        let sigs = sign_many(&gens, &sk, &vs).unwrap();
        assert_eq!(sigs[0], sign(&gens, &sk, &vs[0]).unwrap());
        for i in 0..n {
            verify(&gens, &sk.y, &vs[i], &sigs[i]).unwrap();
        }
        assert!(verify(&gens, &sk.y, &vs[1], &sigs[0]).is_err());
        batch_verify(&gens, &sk.y, &vs, &sigs, &mut rng).unwrap();
        // Exactly one bad element, at 0, in the middle, at the end: rejected.
        for i in [0, n / 2, n - 1] {
            let mut bad = sigs.clone();
            bad[i] = (bad[i] + gens.g1.base()).into_affine();
            assert!(batch_verify(&gens, &sk.y, &vs, &bad, &mut rng).is_err());
            let mut badv = vs.clone();
            badv[i] += E::ScalarField::one();
            assert!(batch_verify(&gens, &sk.y, &badv, &sigs, &mut rng).is_err());
        }
        // Swapping two signatures is caught too.
        let mut sw = sigs.clone();
        sw.swap(0, 1);
        assert!(batch_verify(&gens, &sk.y, &vs, &sw, &mut rng).is_err());
        let other = SigningKey::<E>::generate(&gens, &mut rng);
        assert!(batch_verify(&gens, &other.y, &vs, &sigs, &mut rng).is_err());
        assert!(batch_verify(&gens, &sk.y, &vs[1..], &sigs, &mut rng).is_err());
        assert!(sign(&gens, &sk, &-sk.x).is_err());
        assert!(signature_size::<E>() > 0);
    }

    crate::curve_tests!(bb);
}
