//! G2 of BLS12-381 (points over F_p², 96-byte compressed encoding): the group of the verifier
//! parameters g2^(a^i).

use blst::{
    blst_p2, blst_p2_add_or_double, blst_p2_affine, blst_p2_affine_compress,
    blst_p2_affine_generator, blst_p2_affine_in_g2, blst_p2_affine_is_equal, blst_p2_cneg,
    blst_p2_from_affine, blst_p2_generator, blst_p2_is_equal, blst_p2_is_inf, blst_p2_mult,
    blst_p2_to_affine, blst_p2_uncompress, blst_p2s_to_affine, BLST_ERROR,
};

use super::fr::Scalar;

/// Bytes of a compressed G2 point.
pub const G2_COMPRESSED_BYTES: usize = 96;

/// A G2 point in Jacobian coordinates.
#[derive(Clone, Copy, Debug, Default)]
#[repr(transparent)]
pub struct G2(pub(crate) blst_p2);

/// A G2 point in affine coordinates.
#[derive(Clone, Copy, Debug, Default)]
#[repr(transparent)]
pub struct G2Affine(pub(crate) blst_p2_affine);

impl PartialEq for G2 {
    fn eq(&self, other: &G2) -> bool {
        // SAFETY: both are valid points.
        unsafe { blst_p2_is_equal(&self.0, &other.0) }
    }
}
impl Eq for G2 {}

impl PartialEq for G2Affine {
    fn eq(&self, other: &G2Affine) -> bool {
        // SAFETY: both are valid points.
        unsafe { blst_p2_affine_is_equal(&self.0, &other.0) }
    }
}
impl Eq for G2Affine {}

impl G2 {
    /// The fixed generator g2.
    pub fn generator() -> G2 {
        // SAFETY: blst returns a pointer to a static, valid point.
        G2(unsafe { *blst_p2_generator() })
    }

    /// Whether this is the point at infinity.
    pub fn is_identity(&self) -> bool {
        // SAFETY: a valid point.
        unsafe { blst_p2_is_inf(&self.0) }
    }

    /// self + other.
    pub fn add(&self, other: &G2) -> G2 {
        let mut out = blst_p2::default();
        // SAFETY: valid points, fresh output.
        unsafe { blst_p2_add_or_double(&mut out, &self.0, &other.0) };
        G2(out)
    }

    /// k·self (blst, GLV-accelerated for full-size scalars).
    pub fn mul(&self, k: &Scalar) -> G2 {
        let bytes = k.to_le_bytes();
        let mut out = blst_p2::default();
        // SAFETY: blst reads 255 bits of the scalar and one valid point.
        unsafe { blst_p2_mult(&mut out, &self.0, bytes.as_ptr(), 255) };
        G2(out)
    }

    /// The affine form.
    pub fn to_affine(&self) -> G2Affine {
        let mut out = blst_p2_affine::default();
        // SAFETY: valid input, writable output.
        unsafe { blst_p2_to_affine(&mut out, &self.0) };
        G2Affine(out)
    }

    /// The affine forms of many points with one shared inversion.
    pub fn batch_to_affine(points: &[G2]) -> Vec<G2Affine> {
        let mut out = vec![G2Affine::default(); points.len()];
        if points.is_empty() {
            return out;
        }
        let list: [*const blst_p2; 2] = [&points[0].0, std::ptr::null()];
        // SAFETY: `G2` and `G2Affine` are transparent wrappers of the blst types; the arrays hold
        // `points.len()` entries each.
        unsafe {
            blst_p2s_to_affine(
                out.as_mut_ptr() as *mut blst_p2_affine,
                list.as_ptr(),
                points.len(),
            )
        };
        out
    }

    /// Σ k_i·P_i by blst's Pippenger, for scalars of `nbits` bits given as 32-byte little-endian
    /// strings (the batch verifier's combination of verifier parameters).
    pub fn msm(points: &[G2Affine], scalars: &[[u8; 32]], nbits: usize) -> G2 {
        super::msm::pippenger_msm_bits_g2(points, scalars, nbits)
    }
}

impl G2Affine {
    /// The fixed generator g2.
    pub fn generator() -> G2Affine {
        // SAFETY: blst returns a pointer to a static, valid point.
        G2Affine(unsafe { *blst_p2_affine_generator() })
    }

    /// The Jacobian form.
    pub fn to_projective(&self) -> G2 {
        let mut out = blst_p2::default();
        // SAFETY: valid input, writable output.
        unsafe { blst_p2_from_affine(&mut out, &self.0) };
        G2(out)
    }

    /// −self.
    pub fn neg(&self) -> G2Affine {
        let mut p = self.to_projective();
        // SAFETY: a valid point, negated in place.
        unsafe { blst_p2_cneg(&mut p.0, true) };
        p.to_affine()
    }

    /// The 96-byte compressed encoding.
    pub fn to_bytes(&self) -> [u8; G2_COMPRESSED_BYTES] {
        let mut out = [0u8; G2_COMPRESSED_BYTES];
        // SAFETY: blst writes exactly 96 bytes.
        unsafe { blst_p2_affine_compress(out.as_mut_ptr(), &self.0) };
        out
    }

    /// Decodes a compressed point of the prime-order subgroup.
    pub fn from_bytes(bytes: &[u8; G2_COMPRESSED_BYTES]) -> Option<G2Affine> {
        let mut out = blst_p2_affine::default();
        // SAFETY: blst reads exactly 96 bytes and writes one affine point.
        let rc = unsafe { blst_p2_uncompress(&mut out, bytes.as_ptr()) };
        if rc != BLST_ERROR::BLST_SUCCESS {
            return None;
        }
        // SAFETY: `out` is a valid point on the curve.
        let in_group = unsafe { blst_p2_affine_in_g2(&out) };
        in_group.then_some(G2Affine(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips_and_msm_matches_multiplications() {
        let g = G2::generator();
        let a = g.mul(&Scalar::from_u128(3)).to_affine();
        let b = g.mul(&Scalar::from_u128(5)).to_affine();
        assert_eq!(G2Affine::from_bytes(&a.to_bytes()), Some(a));
        let s = |x: u8| {
            let mut b = [0u8; 32];
            b[0] = x;
            b
        };
        // 7·(3·g) + 11·(5·g) = 76·g
        let m = G2::msm(&[a, b], &[s(7), s(11)], 128);
        assert_eq!(m, g.mul(&Scalar::from_u128(76)));
        assert_eq!(G2::batch_to_affine(&[g])[0], G2Affine::generator());
        assert!(a
            .neg()
            .to_projective()
            .add(&a.to_projective())
            .is_identity());
    }
}
