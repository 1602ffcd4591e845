//! G2 of BLS12-381 (points over F_p², 96-byte compressed encoding).

blst_group!(G2, G2Affine, "G2", G2_COMPRESSED_BYTES = 96, p2, fp2, g2);
