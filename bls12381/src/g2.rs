//! G2 of BLS12-381 (points over F_p², 96-byte compressed encoding).

blst_group!(G2, G2Affine, "G2", G2_COMPRESSED_BYTES = 96, p2, fp2, g2);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scalar;

    #[test]
    fn encoding_round_trips_and_arithmetic_agrees() {
        let g = G2::generator();
        let a = g.mul(&Scalar::from_u128(3)).to_affine();
        assert_eq!(G2Affine::from_bytes(&a.to_bytes()), Some(a));
        assert_eq!(G2Affine::from_bytes(&[0x11; 96]), None);
        assert_eq!(G2::batch_to_affine(&[g])[0], G2Affine::generator());
        assert!(a
            .neg()
            .to_projective()
            .add(&a.to_projective())
            .is_identity());
        let mut d = g;
        d.double_assign();
        d.add_affine_assign(&G2Affine::generator());
        assert_eq!(d.to_affine(), a);
        assert_eq!(g.mul_bits(&[3], 2), a.to_projective());
    }
}
