//! G2 of BLS12-381 (points over F_p², 96-byte compressed encoding).

blst_group! {
    group: "G2",
    types: G2, G2Affine,
    compressed: G2_COMPRESSED_BYTES = 96,
    blst: {
        point: blst_p2,
        affine: blst_p2_affine,
        is_equal: blst_p2_is_equal,
        affine_is_equal: blst_p2_affine_is_equal,
        generator: blst_p2_generator,
        affine_generator: blst_p2_affine_generator,
        is_inf: blst_p2_is_inf,
        affine_is_inf: blst_p2_affine_is_inf,
        add_or_double: blst_p2_add_or_double,
        add_or_double_affine: blst_p2_add_or_double_affine,
        double: blst_p2_double,
        cneg: blst_p2_cneg,
        mult: blst_p2_mult,
        to_affine: blst_p2_to_affine,
        batch_to_affine: blst_p2s_to_affine,
        from_affine: blst_p2_from_affine,
        coordinate_cneg: blst_fp2_cneg,
        compress: blst_p2_affine_compress,
        uncompress: blst_p2_uncompress,
        in_subgroup: blst_p2_affine_in_g2,
    }
}
