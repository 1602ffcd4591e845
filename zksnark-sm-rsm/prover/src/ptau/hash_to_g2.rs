//! The G2 point a contribution's proof of knowledge is checked against, derived from the
//! transcript exactly as snarkjs's verifier derives it (so that its pairing check holds).
//!
//! For each of tau, alpha and beta (personalisation byte 0, 1, 2), the point is
//! `H(BLAKE2b-512(personalisation || previous challenge || s·G1 || (s·x)·G1))`, with both G1
//! points uncompressed. `H` reads the first 32 bytes of the digest as eight big-endian u32, keys
//! ChaCha20 with them (block counter from zero, nonce zero) and draws from its stream of u32:
//! - an F_q element as four 64-bit limbs, least significant first, each the high u32 then the
//!   low one, masked to 254 bits and redrawn while at or above q; the 256-bit number is taken as
//!   the element's Montgomery form (it is the element number·2^-256), as snarkjs's field code
//!   holds its elements so;
//! - an x in F_q^2 as c0 then c1, then one u32 whose low bit says whether y is "negative";
//!   repeated until x^3 + b is a square;
//! - y is that square root of the sign drawn; the point (x, y) of the twist is then multiplied
//!   by G2's cofactor, which puts it in the prime-order subgroup.

use ark_bn254::{g2, Fq, Fq2, G1Affine, G2Affine, G2Projective};
use ark_ec::short_weierstrass::SWCurveConfig;
use ark_ec::{CurveGroup, Group};
use ark_ff::{BigInt, Field};
use rand::RngCore;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use super::blake2b::Blake2b;
use super::encode::{fq2_negative, Encode};

/// G2's cofactor (the twist's order over the prime r), little-endian limbs.
const G2_COFACTOR: [u64; 4] = [
    0x345f2299c0f9fa8d,
    0x06ceecda572a2489,
    0xb85045b68181585e,
    0x30644e72e131a029,
];

/// The stream that the first 32 bytes of `hash` key.
fn stream(hash: &[u8; 64]) -> ChaCha20Rng {
    // The key is eight u32 read big-endian from the digest; ChaCha20's key words are
    // little-endian, so each 4-byte group is reversed.
    let mut key = [0u8; 32];
    for (k, h) in key.chunks_exact_mut(4).zip(hash.chunks_exact(4)) {
        k.copy_from_slice(&[h[3], h[2], h[1], h[0]]);
    }
    ChaCha20Rng::from_seed(key)
}

fn fq_from_stream(rng: &mut ChaCha20Rng) -> Fq {
    loop {
        let mut limbs = [0u64; 4];
        for limb in &mut limbs {
            let hi = rng.next_u32() as u64;
            let lo = rng.next_u32() as u64;
            *limb = (hi << 32) | lo;
        }
        limbs[3] &= (1u64 << 62) - 1; // 254 bits, the bit length of q
        let v = BigInt(limbs);
        if v < <Fq as ark_ff::PrimeField>::MODULUS {
            return Fq::new_unchecked(v);
        }
    }
}

/// `H` of the module documentation.
pub fn hash_to_g2(hash: &[u8; 64]) -> G2Affine {
    let mut rng = stream(hash);
    loop {
        let x = Fq2::new(fq_from_stream(&mut rng), fq_from_stream(&mut rng));
        let negative = rng.next_u32() & 1 == 1;
        let rhs = x.square() * x + g2::Config::COEFF_B;
        if let Some(mut y) = rhs.sqrt() {
            if fq2_negative(&y) != negative {
                y = -y;
            }
            let p = G2Projective::from(G2Affine::new_unchecked(x, y));
            return p.mul_bigint(G2_COFACTOR).into_affine();
        }
    }
}

/// The G2 point of one secret's proof of knowledge: `personalisation` is 0 for tau, 1 for
/// alpha, 2 for beta; `challenge` is the hash the contribution answers.
pub fn g2_sp(
    personalisation: u8,
    challenge: &[u8; 64],
    g1_s: &G1Affine,
    g1_sx: &G1Affine,
) -> G2Affine {
    let mut h = Blake2b::new();
    h.update(&[personalisation]);
    h.update(challenge);
    let mut points = Vec::with_capacity(128);
    g1_s.uncompressed(&mut points);
    g1_sx.uncompressed(&mut points);
    h.update(&points);
    hash_to_g2(&h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ec::AffineRepr;

    #[test]
    fn hashed_points_are_deterministic_and_in_the_subgroup() {
        for i in 0u8..8 {
            let p = hash_to_g2(&[i; 64]);
            assert!(p.is_on_curve() && p.is_in_correct_subgroup_assuming_on_curve());
            assert!(!p.is_zero());
            assert_eq!(p, hash_to_g2(&[i; 64]), "deterministic");
        }
        assert_ne!(hash_to_g2(&[0; 64]), hash_to_g2(&[1; 64]));
    }
}
