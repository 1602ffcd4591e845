//! G1 of BLS12-381 (points over F_p, 48-byte compressed encoding).

use crate::fp::Fp;

blst_group!(G1, G1Affine, "G1", G1_COMPRESSED_BYTES = 48, p1, fp, g1);

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
