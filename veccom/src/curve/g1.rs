//! G1 of BLS12-381 (points over F_p, 48-byte compressed encoding): the group of commitments,
//! proofs and prover parameters.
//!
//! [`G1`] is a point in Jacobian coordinates (cheap additions), [`G1Affine`] a normalised one
//! (cheap to store, to add as the second operand, and to encode). Decoding checks that a point is
//! on the curve and in the prime-order subgroup, so every `G1Affine` a verifier meets is in G1.

use blst::{
    blst_fp_cneg, blst_p1, blst_p1_add_or_double, blst_p1_add_or_double_affine, blst_p1_affine,
    blst_p1_affine_compress, blst_p1_affine_generator, blst_p1_affine_in_g1,
    blst_p1_affine_is_equal, blst_p1_affine_is_inf, blst_p1_cneg, blst_p1_double,
    blst_p1_from_affine, blst_p1_generator, blst_p1_is_equal, blst_p1_is_inf, blst_p1_mult,
    blst_p1_to_affine, blst_p1_uncompress, blst_p1s_to_affine, BLST_ERROR,
};

use super::fr::Scalar;

/// Bytes of a compressed G1 point.
pub const G1_COMPRESSED_BYTES: usize = 48;

/// A G1 point in Jacobian coordinates.
#[derive(Clone, Copy, Debug, Default)]
#[repr(transparent)]
pub struct G1(pub(crate) blst_p1);

/// A G1 point in affine coordinates (the point at infinity is (0, 0)).
#[derive(Clone, Copy, Debug, Default)]
#[repr(transparent)]
pub struct G1Affine(pub(crate) blst_p1_affine);

impl PartialEq for G1 {
    fn eq(&self, other: &G1) -> bool {
        // SAFETY: both are valid points.
        unsafe { blst_p1_is_equal(&self.0, &other.0) }
    }
}
impl Eq for G1 {}

impl PartialEq for G1Affine {
    fn eq(&self, other: &G1Affine) -> bool {
        // SAFETY: both are valid points.
        unsafe { blst_p1_affine_is_equal(&self.0, &other.0) }
    }
}
impl Eq for G1Affine {}

impl G1 {
    /// The point at infinity.
    pub fn identity() -> G1 {
        G1(blst_p1::default())
    }

    /// The fixed generator g1.
    pub fn generator() -> G1 {
        // SAFETY: blst returns a pointer to a static, valid point.
        G1(unsafe { *blst_p1_generator() })
    }

    /// Whether this is the point at infinity.
    pub fn is_identity(&self) -> bool {
        // SAFETY: a valid point.
        unsafe { blst_p1_is_inf(&self.0) }
    }

    /// self + other (any two points, equal ones included).
    pub fn add(&self, other: &G1) -> G1 {
        let mut out = blst_p1::default();
        // SAFETY: valid points; blst allows the output to be a fresh value.
        unsafe { blst_p1_add_or_double(&mut out, &self.0, &other.0) };
        G1(out)
    }

    /// self + other with an affine second operand (a mixed addition).
    pub fn add_affine(&self, other: &G1Affine) -> G1 {
        let mut out = blst_p1::default();
        // SAFETY: as in `add`.
        unsafe { blst_p1_add_or_double_affine(&mut out, &self.0, &other.0) };
        G1(out)
    }

    /// In-place mixed addition (the inner loop of the table multiplications).
    pub fn add_affine_assign(&mut self, other: &G1Affine) {
        let p: *mut blst_p1 = &mut self.0;
        // SAFETY: blst reads its inputs before writing the output, so out == a is allowed.
        unsafe { blst_p1_add_or_double_affine(p, p, &other.0) };
    }

    /// In-place addition.
    pub fn add_assign(&mut self, other: &G1) {
        let p: *mut blst_p1 = &mut self.0;
        // SAFETY: as in `add_affine_assign`.
        unsafe { blst_p1_add_or_double(p, p, &other.0) };
    }

    /// 2·self, in place.
    pub fn double_assign(&mut self) {
        let p: *mut blst_p1 = &mut self.0;
        // SAFETY: as in `add_affine_assign`.
        unsafe { blst_p1_double(p, p) };
    }

    /// −self.
    pub fn neg(&self) -> G1 {
        let mut out = self.0;
        // SAFETY: a valid point, negated in place.
        unsafe { blst_p1_cneg(&mut out, true) };
        G1(out)
    }

    /// k·self by blst's scalar multiplication (GLV endomorphism, 255-bit scalars): the
    /// reference cost of "one scalar multiplication".
    pub fn mul(&self, k: &Scalar) -> G1 {
        let bytes = k.to_le_bytes();
        let mut out = blst_p1::default();
        // SAFETY: blst reads 255 bits (32 bytes) of the scalar and one valid point.
        unsafe { blst_p1_mult(&mut out, &self.0, bytes.as_ptr(), 255) };
        G1(out)
    }

    /// The affine form (one field inversion).
    pub fn to_affine(&self) -> G1Affine {
        let mut out = blst_p1_affine::default();
        // SAFETY: valid input, writable output.
        unsafe { blst_p1_to_affine(&mut out, &self.0) };
        G1Affine(out)
    }

    /// The affine forms of many points with one shared inversion (Montgomery's trick).
    pub fn batch_to_affine(points: &[G1]) -> Vec<G1Affine> {
        let mut out = vec![G1Affine::default(); points.len()];
        if points.is_empty() {
            return out;
        }
        // blst reads a contiguous array when the second entry of the pointer list is null.
        let list: [*const blst_p1; 2] = [&points[0].0, std::ptr::null()];
        // SAFETY: `G1` is a transparent wrapper with the layout of blst_p1 (single field), the
        // input array has `points.len()` points and the output as many writable slots.
        unsafe {
            blst_p1s_to_affine(
                out.as_mut_ptr() as *mut blst_p1_affine,
                list.as_ptr(),
                points.len(),
            )
        };
        out
    }
}

impl G1Affine {
    /// The fixed generator g1.
    pub fn generator() -> G1Affine {
        // SAFETY: blst returns a pointer to a static, valid point.
        G1Affine(unsafe { *blst_p1_affine_generator() })
    }

    /// The point at infinity.
    pub fn identity() -> G1Affine {
        G1Affine(blst_p1_affine::default())
    }

    /// Whether this is the point at infinity.
    pub fn is_identity(&self) -> bool {
        // SAFETY: a valid point.
        unsafe { blst_p1_affine_is_inf(&self.0) }
    }

    /// The Jacobian form.
    pub fn to_projective(&self) -> G1 {
        let mut out = blst_p1::default();
        // SAFETY: valid input, writable output.
        unsafe { blst_p1_from_affine(&mut out, &self.0) };
        G1(out)
    }

    /// −self (the affine negation only flips y).
    pub fn neg(&self) -> G1Affine {
        let mut out = *self;
        // SAFETY: negating a valid field element into a distinct output.
        unsafe { blst_fp_cneg(&mut out.0.y, &self.0.y, !self.is_identity()) };
        out
    }

    /// The 48-byte compressed encoding (ZCash's BLS12-381 format, as blst and arkworks write it).
    pub fn to_bytes(&self) -> [u8; G1_COMPRESSED_BYTES] {
        let mut out = [0u8; G1_COMPRESSED_BYTES];
        // SAFETY: blst writes exactly 48 bytes.
        unsafe { blst_p1_affine_compress(out.as_mut_ptr(), &self.0) };
        out
    }

    /// Decodes a compressed point, rejecting bytes that are not a point of the prime-order
    /// subgroup (the check every received commitment and proof needs).
    pub fn from_bytes(bytes: &[u8; G1_COMPRESSED_BYTES]) -> Option<G1Affine> {
        let mut out = blst_p1_affine::default();
        // SAFETY: blst reads exactly 48 bytes and writes one affine point.
        let rc = unsafe { blst_p1_uncompress(&mut out, bytes.as_ptr()) };
        if rc != BLST_ERROR::BLST_SUCCESS {
            return None;
        }
        // SAFETY: `out` is a valid point on the curve.
        let in_group = unsafe { blst_p1_affine_in_g1(&out) };
        in_group.then_some(G1Affine(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips_and_rejects_garbage() {
        let g = G1::generator();
        let p = g.mul(&Scalar::from_u128(12345)).to_affine();
        assert_eq!(G1Affine::from_bytes(&p.to_bytes()), Some(p));
        let mut bad = p.to_bytes();
        bad[47] ^= 1;
        // Either not on the curve or a different point: never the same point back.
        assert_ne!(G1Affine::from_bytes(&bad), Some(p));
        assert_eq!(G1Affine::from_bytes(&[0xff; 48]), None);
        // 12345·g = 12344·g + g
        let q = g.mul(&Scalar::from_u128(12344)).add(&g);
        assert_eq!(q.to_affine(), p);
        let mut d = g;
        d.double_assign();
        assert_eq!(d, g.add(&g));
        assert!(g.add(&g.neg()).is_identity());
        let batch = G1::batch_to_affine(&[g, q]);
        assert_eq!(batch, vec![G1Affine::generator(), p]);
    }
}
