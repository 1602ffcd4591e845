//! G1 of BLS12-381 (points over F_p, 48-byte compressed encoding).

use crate::fp::Fp;

blst_group! {
    group: "G1",
    types: G1, G1Affine,
    compressed: G1_COMPRESSED_BYTES = 48,
    blst: {
        point: blst_p1,
        affine: blst_p1_affine,
        is_equal: blst_p1_is_equal,
        affine_is_equal: blst_p1_affine_is_equal,
        generator: blst_p1_generator,
        affine_generator: blst_p1_affine_generator,
        is_inf: blst_p1_is_inf,
        affine_is_inf: blst_p1_affine_is_inf,
        add_or_double: blst_p1_add_or_double,
        add_or_double_affine: blst_p1_add_or_double_affine,
        double: blst_p1_double,
        cneg: blst_p1_cneg,
        mult: blst_p1_mult,
        to_affine: blst_p1_to_affine,
        batch_to_affine: blst_p1s_to_affine,
        from_affine: blst_p1_from_affine,
        coordinate_cneg: blst_fp_cneg,
        compress: blst_p1_affine_compress,
        uncompress: blst_p1_uncompress,
        in_subgroup: blst_p1_affine_in_g1,
    }
}

impl G1Affine {
    /// The x coordinate (a reference: the batched additions read coordinates in their inner
    /// loop, where copies of 48 bytes show).
    #[inline]
    pub fn x(&self) -> &Fp {
        // SAFETY: `Fp` is a `#[repr(transparent)]` wrapper of `blst_fp`, so a reference to the
        // field is a valid reference to an `Fp` for as long as `self` is borrowed.
        unsafe { &*(&self.0.x as *const blst::blst_fp as *const Fp) }
    }

    /// The y coordinate (a reference, as [`G1Affine::x`]).
    #[inline]
    pub fn y(&self) -> &Fp {
        // SAFETY: as in `x`.
        unsafe { &*(&self.0.y as *const blst::blst_fp as *const Fp) }
    }

    /// The point (x, y), unchecked: for algorithms that compute the coordinates of a sum
    /// themselves (batched affine additions). Not on the curve unless the caller's arithmetic
    /// makes it so; [`G1Affine::from_bytes`] is the checked way in.
    #[inline]
    pub fn from_coordinates_unchecked(x: Fp, y: Fp) -> G1Affine {
        G1Affine(blst::blst_p1_affine { x: x.0, y: y.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scalar;

    #[test]
    fn coordinates_give_the_point_back() {
        let p = G1::generator().mul(&Scalar::from_u128(12345)).to_affine();
        assert_eq!(G1Affine::from_coordinates_unchecked(*p.x(), *p.y()), p);
    }
}
