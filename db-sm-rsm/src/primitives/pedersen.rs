//! Pedersen commitments: single-value commitments in G1 (`g1^v · h1^r`) and in GT
//! (`genh2^v · genh3^r` with genh2 = e(g1,f2)⁻¹, genh3 = fT, used by DPK_BBS+), and the vector
//! commitment key `(h1; G_0..G_{n'-1})` of the permutation commitments, n' = max(n, 2).

use ark_ec::pairing::Pairing;
use ark_ec::CurveGroup;
use ark_ff::{UniformRand, Zero};
use ark_serialize::CanonicalSerialize;
use rand::{CryptoRng, RngCore};

use crate::primitives::group::{msm, Generators, Gt};
use crate::primitives::transcript::Transcript;
use crate::{Error, Result};

/// `g1^v · h1^r` (two fixed-base exponentiations).
pub fn commit_g1<E: Pairing>(
    gens: &Generators<E>,
    v: &E::ScalarField,
    r: &E::ScalarField,
) -> E::G1 {
    gens.g1.mul(v) + gens.h1.mul(r)
}

/// `genh2^v · genh3^r` in GT. genh2 = e(g1,f2)⁻¹, so genh2^v is e(g1,f2)^{-v}: the table of
/// e(g1,f2) serves without a table for its inverse.
pub fn commit_gt<E: Pairing>(
    gens: &Generators<E>,
    v: &E::ScalarField,
    r: &E::ScalarField,
) -> Gt<E> {
    gens.eg1f2.mul(&-*v) + gens.ft.mul(r)
}

/// The vector commitment key `(h; G_0..G_{n'-1})`. `h` is the global h1, so commitments can use
/// its fixed-base table from [`Generators`]; the G_i are fresh uniformly random points from the
/// dealer (upstream's `commkey`, S5 in docs/fixes.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitmentKey<E: Pairing> {
    /// The randomness base h1.
    pub h: E::G1Affine,
    /// The bases G_0, ..., G_{n'-1}.
    pub gens: Vec<E::G1Affine>,
}

impl<E: Pairing> CommitmentKey<E> {
    /// A key for vectors of length n, with n' = max(n, 2) generators (the Paillier shuffle uses
    /// G_0 and G_1 even when n = 1).
    pub fn new(gens: &Generators<E>, n: usize, rng: &mut (impl RngCore + CryptoRng)) -> Self {
        let points: Vec<E::G1> = (0..n.max(2)).map(|_| E::G1::rand(rng)).collect();
        CommitmentKey {
            h: gens.h1.base(),
            gens: E::G1::normalize_batch(&points),
        }
    }

    /// Number of generators n'.
    pub fn len(&self) -> usize {
        self.gens.len()
    }

    /// True iff the key has no bases.
    pub fn is_empty(&self) -> bool {
        self.gens.is_empty()
    }

    /// `h^s · ∏ G_i^{x_i}` for a vector no longer than the key (MSM over the G_i, h from its
    /// table).
    pub fn commit(
        &self,
        gens: &Generators<E>,
        x: &[E::ScalarField],
        s: &E::ScalarField,
    ) -> Result<E::G1> {
        self.check_h(gens)?;
        if x.len() > self.gens.len() {
            return Err(Error::Input(format!(
                "vector of length {} exceeds the commitment key ({})",
                x.len(),
                self.gens.len()
            )));
        }
        Ok(gens.h1.mul(s) + msm::<E::G1>(&self.gens[..x.len()], x)?)
    }

    /// The key's h must be the global h1 whose table [`Generators`] holds.
    pub fn check_h(&self, gens: &Generators<E>) -> Result<()> {
        if self.h != gens.h1.base() {
            return Err(Error::Input(
                "commitment key's h is not the global h1".into(),
            ));
        }
        Ok(())
    }

    /// Binds the key into a transcript.
    pub fn append_to(&self, t: &mut Transcript) {
        t.append_ark(b"ck.h", &self.h);
        t.append_ark_slice(b"ck.G", &self.gens);
    }

    /// Serialised size in bytes (compressed points).
    pub fn size_bytes(&self) -> usize {
        self.h.compressed_size() * (1 + self.gens.len())
    }
}

/// Checks `c == g1^v · h1^r` (used by tests and by parties that receive an opening).
pub fn open_g1<E: Pairing>(
    gens: &Generators<E>,
    c: &E::G1Affine,
    v: &E::ScalarField,
    r: &E::ScalarField,
) -> Result<()> {
    crate::error::ensure(
        commit_g1(gens, v, r).into_affine() == *c,
        "Pedersen opening",
    )
}

/// The identity of GT, for callers that accumulate products.
pub fn gt_one<E: Pairing>() -> Gt<E> {
    Gt::<E>::zero()
}

crate::wire_struct!(impl[E: Pairing] CommitmentKey<E> { ark h, ark gens });

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// The GT Pedersen bases of DPK_BBS+: genh2 = e(g1,f2)⁻¹ and genh3 = fT.
    fn gt_bases<E: Pairing>(gens: &Generators<E>) -> (Gt<E>, Gt<E>) {
        (-gens.eg1f2.point(), gens.ft.point())
    }

    fn pedersen<E: Pairing>() {
        let mut rng = ChaCha20Rng::seed_from_u64(10);
        let gens = Generators::<E>::new(&mut rng);
        let (v, r) = (
            E::ScalarField::rand(&mut rng),
            E::ScalarField::rand(&mut rng),
        );
        let c = commit_g1(&gens, &v, &r).into_affine();
        assert_eq!(c, (gens.g1.point() * v + gens.h1.point() * r).into_affine());
        open_g1(&gens, &c, &v, &r).unwrap();
        assert!(open_g1(&gens, &c, &(v + E::ScalarField::from(1u64)), &r).is_err());
        // Homomorphic: C(v1,r1)·C(v2,r2) = C(v1+v2, r1+r2).
        let (v2, r2) = (
            E::ScalarField::rand(&mut rng),
            E::ScalarField::rand(&mut rng),
        );
        assert_eq!(
            commit_g1(&gens, &v, &r) + commit_g1(&gens, &v2, &r2),
            commit_g1(&gens, &(v + v2), &(r + r2))
        );

        let (h2, h3) = gt_bases(&gens);
        assert_eq!(commit_gt(&gens, &v, &r), h2 * v + h3 * r);
        assert!(gt_one::<E>().is_zero());
        assert_eq!(
            h2 + E::pairing(gens.g1.base(), gens.f2.base()),
            gt_one::<E>()
        );

        let ck = CommitmentKey::<E>::new(&gens, 1, &mut rng);
        assert_eq!(ck.len(), 2);
        let ck = CommitmentKey::<E>::new(&gens, 5, &mut rng);
        let x: Vec<E::ScalarField> = (0..5).map(|_| E::ScalarField::rand(&mut rng)).collect();
        let s = E::ScalarField::rand(&mut rng);
        let naive =
            ck.gens.iter().zip(&x).map(|(g, x)| *g * x).sum::<E::G1>() + gens.h1.point() * s;
        assert_eq!(ck.commit(&gens, &x, &s).unwrap(), naive);
        let too_long = vec![E::ScalarField::zero(); 6];
        assert!(ck.commit(&gens, &too_long, &s).is_err());
        let other = Generators::<E>::new(&mut rng);
        assert!(ck.commit(&other, &x, &s).is_err());
    }

    crate::curve_tests!(pedersen);
}
