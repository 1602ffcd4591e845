//! Integer commitments in the hidden-order group and Pedersen commitments on the SNARK curve.

use ark_ec::{pairing::Pairing, CurveGroup};
use ark_ff::{BigInteger, PrimeField, UniformRand};
use rand::{CryptoRng, RngCore};
use rug::{integer::Order, ops::RemRounding, Integer};

use crate::{
    random,
    rsa_group::{GroupElem, RsaGroup},
    Error,
};

/// The scalar-field order q as a big integer.
pub fn field_modulus<F: PrimeField>() -> Integer {
    Integer::from_digits(&F::MODULUS.to_bytes_le(), Order::Lsf)
}

/// x mod q as a field element; negative x map to their non-negative residue. (Upstream panics
/// for x ≥ q; reducing is what a commitment mod q means, so we reduce.)
pub fn int_to_field<F: PrimeField>(x: &Integer) -> F {
    let r = x.clone().rem_euc(&field_modulus::<F>());
    F::from_le_bytes_mod_order(&r.to_digits::<u8>(Order::Lsf))
}

/// The canonical integer in [0, q) of a field element.
pub fn field_to_int<F: PrimeField>(f: &F) -> Integer {
    Integer::from_digits(&f.into_bigint().to_bytes_le(), Order::Lsf)
}

/// Com(m, s) = G^m · H^s in Z_N^*/{±1}; hiding because H = G^k for a secret-free uniform k,
/// binding under the strong-RSA / order assumptions of the hidden-order group.
#[derive(Clone, Debug)]
pub struct IntegerCommitment {
    /// The hidden-order group of the commitments.
    pub group: RsaGroup,
    /// The message base G.
    pub g: GroupElem,
    /// The randomness base H.
    pub h: GroupElem,
}

impl IntegerCommitment {
    /// G = 2 and H = G^k with k uniform in [0, ⌊N/2⌋) (so H is statistically close to uniform
    /// in ⟨G⟩); k is dropped right away.
    pub fn setup<R: RngCore + CryptoRng>(group: RsaGroup, rng: &mut R) -> Self {
        let g = group.elem(Integer::from(2));
        let k = random::below(group.half_modulus(), rng);
        let h = group.exp(&g, &k).expect("2 is a unit mod an odd N");
        IntegerCommitment { group, g, h }
    }

    /// G^m · H^s, refused when the exponents cannot be applied in the group.
    pub fn commit(&self, m: &Integer, s: &Integer) -> Result<GroupElem, Error> {
        self.group.exp2(&self.g, m, &self.h, s)
    }
}

/// Com(m, s) = g·m + h·s on G1 of the pairing curve.
#[derive(Clone, Debug)]
pub struct Pedersen<E: Pairing> {
    /// The message base.
    pub g: E::G1Affine,
    /// The randomness base.
    pub h: E::G1Affine,
}

impl<E: Pairing> Pedersen<E> {
    /// Two independent uniformly random bases (nobody knows log_g h).
    pub fn setup<R: RngCore + CryptoRng>(rng: &mut R) -> Self {
        Pedersen {
            g: E::G1::rand(rng).into_affine(),
            h: E::G1::rand(rng).into_affine(),
        }
    }

    /// g·m + h·s.
    pub fn commit(&self, m: &E::ScalarField, s: &E::ScalarField) -> E::G1 {
        self.g * m + self.h * s
    }

    /// Commit to an integer message, reduced mod q.
    pub fn commit_int(&self, m: &Integer, s: &E::ScalarField) -> E::G1 {
        self.commit(&int_to_field::<E::ScalarField>(m), s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bls12_381::{Bls12_381, Fr};
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn integer_field_conversions_reduce_mod_q() {
        let q = field_modulus::<Fr>();
        assert_eq!(q.significant_bits(), 255);
        let x = Integer::from(&q + 5u32);
        assert_eq!(int_to_field::<Fr>(&x), Fr::from(5u64));
        assert_eq!(int_to_field::<Fr>(&Integer::from(-1)), -Fr::from(1u64));
        assert_eq!(field_to_int(&Fr::from(77u64)), 77);
    }

    #[test]
    fn commitments_are_homomorphic() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let ic = IntegerCommitment::setup(RsaGroup::rsa2048(), &mut rng);
        let a = ic.commit(&Integer::from(5), &Integer::from(-7)).unwrap();
        let b = ic.commit(&Integer::from(6), &Integer::from(9)).unwrap();
        assert_eq!(
            ic.group.op(&a, &b),
            ic.commit(&Integer::from(11), &Integer::from(2)).unwrap()
        );

        let ped = Pedersen::<Bls12_381>::setup(&mut rng);
        let c = ped.commit_int(&Integer::from(-3), &Fr::from(4u64));
        assert_eq!(c, ped.commit(&(-Fr::from(3u64)), &Fr::from(4u64)));
    }
}
