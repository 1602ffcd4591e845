//! BLS12-381 for MSP: the suite's `bls12381` crate (safe functions over blst, where all the
//! curve's `unsafe` code is), with the multi-scalar multiplications as MSP runs them.
//!
//! * [`G1`] / [`G2`]: points in Jacobian coordinates; [`G1Affine`] / [`G2Affine`]: normalised
//!   points, the form that is stored, encoded and fed to multi-scalar multiplications and
//!   pairings. Decoding checks that a point is on the curve and in the prime-order subgroup.
//! * [`hash_to_g1`]: RFC 9380 hashing to G1 (`BLS12381G1_XMD:SHA-256_SSWU_RO_`), the random
//!   oracle H of BLS signatures;
//! * [`msm_g1`] / [`msm_g2`]: blst's Pippenger multi-scalar multiplication on one thread, or on
//!   the current rayon pool split into per-thread chunks of at least 64 terms;
//! * [`pairing_product_is_one`]: Π e(P_i, Q_i) = 1 with one shared Miller loop and one final
//!   exponentiation.

pub use bls12381::hash::hash_to_g1;
pub use bls12381::pairing::pairing_product_is_one;
pub use bls12381::{G1Affine, G2Affine, Scalar, G1, G2};
pub use bls12381::{G1_COMPRESSED_BYTES as G1_BYTES, G2_COMPRESSED_BYTES as G2_BYTES};

/// Terms per chunk below which splitting an MSM over threads does not pay.
pub const PARALLEL_MIN_TERMS: usize = 64;

/// Σ s_i·P_i in G1, each scalar `nbits` little-endian bits: blst's Pippenger, on one thread, or
/// in chunks over the current rayon pool when it has more than one thread.
pub fn msm_g1<S: AsRef<[u8]> + Sync>(points: &[G1Affine], scalars: &[S], nbits: usize) -> G1 {
    bls12381::msm::g1_par(points, scalars, nbits, PARALLEL_MIN_TERMS)
}

/// Σ s_i·P_i in G2, as [`msm_g1`].
pub fn msm_g2<S: AsRef<[u8]> + Sync>(points: &[G2Affine], scalars: &[S], nbits: usize) -> G2 {
    bls12381::msm::g2_par(points, scalars, nbits, PARALLEL_MIN_TERMS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_round_trip_and_refuse_garbage() {
        let p = G1::generator().mul_bits(&[7], 3).to_affine();
        assert_eq!(G1Affine::from_bytes(&p.to_bytes()), Some(p));
        let q = G2::generator().mul_bits(&[5], 3).to_affine();
        assert_eq!(G2Affine::from_bytes(&q.to_bytes()), Some(q));
        assert_eq!(G1Affine::from_bytes(&[0xff; G1_BYTES]), None);
        assert_eq!(G2Affine::from_bytes(&[0x11; G2_BYTES]), None);
    }

    #[test]
    fn msm_agrees_with_scalar_multiplications_and_pairing_is_bilinear() {
        let g1 = G1::generator();
        let g2 = G2::generator();
        let pts1: Vec<G1Affine> = (1u8..=5)
            .map(|i| g1.mul_bits(&[i], 8).to_affine())
            .collect();
        let pts2: Vec<G2Affine> = (1u8..=5)
            .map(|i| g2.mul_bits(&[i], 8).to_affine())
            .collect();
        let scalars: Vec<[u8; 16]> = (0u8..5)
            .map(|i| [i.wrapping_mul(37).wrapping_add(1); 16])
            .collect();
        let naive1 = pts1.iter().zip(&scalars).fold(G1::default(), |a, (p, s)| {
            a.add(&p.to_projective().mul_bits(s, 128))
        });
        assert_eq!(msm_g1(&pts1, &scalars, 128).to_affine(), naive1.to_affine());
        let naive2 = pts2.iter().zip(&scalars).fold(G2::default(), |a, (p, s)| {
            a.add(&p.to_projective().mul_bits(s, 128))
        });
        assert_eq!(msm_g2(&pts2, &scalars, 128).to_affine(), naive2.to_affine());
        // e(3·g1, 5·g2)·e(−15·g1, g2) = 1, and not with −14.
        let a = g1.mul_bits(&[3], 8).to_affine();
        let b = g2.mul_bits(&[5], 8).to_affine();
        let c = g1.mul_bits(&[15], 8).neg().to_affine();
        let d = g1.mul_bits(&[14], 8).neg().to_affine();
        assert!(pairing_product_is_one(&[
            (a, b),
            (c, G2Affine::generator())
        ]));
        assert!(!pairing_product_is_one(&[
            (a, b),
            (d, G2Affine::generator())
        ]));
    }
}
