//! G2 of BLS12-381 (points over F_p², 96-byte compressed encoding).

use blst::{
    blst_fp2_cneg, blst_p2, blst_p2_add_or_double, blst_p2_add_or_double_affine, blst_p2_affine,
    blst_p2_affine_compress, blst_p2_affine_generator, blst_p2_affine_in_g2,
    blst_p2_affine_is_equal, blst_p2_affine_is_inf, blst_p2_cneg, blst_p2_double,
    blst_p2_from_affine, blst_p2_generator, blst_p2_is_equal, blst_p2_is_inf, blst_p2_mult,
    blst_p2_to_affine, blst_p2_uncompress, blst_p2s_to_affine,
};

blst_group! {
    group: "G2",
    point: G2(blst_p2),
    affine: G2Affine(blst_p2_affine),
    encoding: G2_COMPRESSED_BYTES = 96,
    blst: {
        generator: blst_p2_generator,
        affine_generator: blst_p2_affine_generator,
        is_inf: blst_p2_is_inf,
        affine_is_inf: blst_p2_affine_is_inf,
        is_equal: blst_p2_is_equal,
        affine_is_equal: blst_p2_affine_is_equal,
        add: blst_p2_add_or_double,
        add_affine: blst_p2_add_or_double_affine,
        double: blst_p2_double,
        cneg: blst_p2_cneg,
        coordinate_cneg: blst_fp2_cneg,
        mult: blst_p2_mult,
        to_affine: blst_p2_to_affine,
        batch_to_affine: blst_p2s_to_affine,
        from_affine: blst_p2_from_affine,
        compress: blst_p2_affine_compress,
        uncompress: blst_p2_uncompress,
        in_group: blst_p2_affine_in_g2,
    },
}

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
