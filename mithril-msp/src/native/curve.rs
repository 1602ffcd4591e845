//! BLS12-381 through `blst`: the few group operations MSP needs, as safe functions. This is the
//! only module with `unsafe` code; every block states why its call is sound.
//!
//! * [`G1`] / [`G2`]: points in Jacobian coordinates; [`G1Affine`] / [`G2Affine`]: normalised
//!   points, the form that is stored, encoded and fed to multi-scalar multiplications and
//!   pairings. Decoding checks that a point is on the curve and in the prime-order subgroup.
//! * [`hash_to_g1`]: RFC 9380 hashing to G1 (`BLS12381G1_XMD:SHA-256_SSWU_RO_`), the random
//!   oracle H of BLS signatures;
//! * [`msm_g1`] / [`msm_g2`]: blst's Pippenger multi-scalar multiplication on one thread, or on
//!   the current rayon pool split into per-thread chunks;
//! * [`pairing_product_is_one`]: Π e(P_i, Q_i) = 1 with one shared Miller loop and one final
//!   exponentiation.
#![allow(unsafe_code)]

use blst::{
    blst_final_exp, blst_fp12, blst_fp12_is_one, blst_hash_to_g1, blst_miller_loop_n, blst_p1,
    blst_p1_add_or_double, blst_p1_affine, blst_p1_affine_compress, blst_p1_affine_in_g1,
    blst_p1_affine_is_equal, blst_p1_affine_is_inf, blst_p1_cneg, blst_p1_from_affine,
    blst_p1_generator, blst_p1_mult, blst_p1_to_affine, blst_p1_uncompress,
    blst_p1s_mult_pippenger, blst_p1s_mult_pippenger_scratch_sizeof, blst_p2,
    blst_p2_add_or_double, blst_p2_affine, blst_p2_affine_compress, blst_p2_affine_in_g2,
    blst_p2_affine_is_equal, blst_p2_affine_is_inf, blst_p2_cneg, blst_p2_from_affine,
    blst_p2_generator, blst_p2_mult, blst_p2_to_affine, blst_p2_uncompress,
    blst_p2s_mult_pippenger, blst_p2s_mult_pippenger_scratch_sizeof, BLST_ERROR,
};
use rayon::prelude::*;

/// Bytes of a compressed G1 point.
pub const G1_BYTES: usize = 48;
/// Bytes of a compressed G2 point.
pub const G2_BYTES: usize = 96;

/// A G1 point, Jacobian coordinates.
#[derive(Clone, Copy, Debug, Default)]
pub struct G1(blst_p1);
/// A G1 point, affine coordinates (infinity is (0, 0)).
#[derive(Clone, Copy, Debug, Default)]
pub struct G1Affine(blst_p1_affine);
/// A G2 point, Jacobian coordinates.
#[derive(Clone, Copy, Debug, Default)]
pub struct G2(blst_p2);
/// A G2 point, affine coordinates (infinity is (0, 0)).
#[derive(Clone, Copy, Debug, Default)]
pub struct G2Affine(blst_p2_affine);

impl PartialEq for G1Affine {
    fn eq(&self, other: &Self) -> bool {
        // SAFETY: two valid affine points, read only.
        unsafe { blst_p1_affine_is_equal(&self.0, &other.0) }
    }
}
impl Eq for G1Affine {}

impl PartialEq for G2Affine {
    fn eq(&self, other: &Self) -> bool {
        // SAFETY: two valid affine points, read only.
        unsafe { blst_p2_affine_is_equal(&self.0, &other.0) }
    }
}
impl Eq for G2Affine {}

impl G1 {
    /// The fixed generator.
    pub fn generator() -> G1 {
        // SAFETY: blst returns a pointer to its static generator.
        G1(unsafe { *blst_p1_generator() })
    }

    /// self + other (equal points included).
    pub fn add(&self, other: &G1) -> G1 {
        let mut out = blst_p1::default();
        // SAFETY: valid inputs, a fresh output.
        unsafe { blst_p1_add_or_double(&mut out, &self.0, &other.0) };
        G1(out)
    }

    /// −self.
    pub fn neg(&self) -> G1 {
        let mut out = self.0;
        // SAFETY: negates a valid point in place.
        unsafe { blst_p1_cneg(&mut out, true) };
        G1(out)
    }

    /// scalar·self, the scalar given as `nbits` little-endian bits in `scalar`.
    pub fn mul_bits(&self, scalar: &[u8], nbits: usize) -> G1 {
        assert!(nbits <= 8 * scalar.len());
        let mut out = blst_p1::default();
        // SAFETY: blst reads ⌈nbits/8⌉ bytes of `scalar`, which holds at least that many.
        unsafe { blst_p1_mult(&mut out, &self.0, scalar.as_ptr(), nbits) };
        G1(out)
    }

    /// The affine form.
    pub fn to_affine(&self) -> G1Affine {
        let mut out = blst_p1_affine::default();
        // SAFETY: valid input, fresh output.
        unsafe { blst_p1_to_affine(&mut out, &self.0) };
        G1Affine(out)
    }
}

impl G1Affine {
    /// The fixed generator.
    pub fn generator() -> G1Affine {
        G1::generator().to_affine()
    }

    /// The Jacobian form.
    pub fn to_projective(&self) -> G1 {
        let mut out = blst_p1::default();
        // SAFETY: valid input, fresh output.
        unsafe { blst_p1_from_affine(&mut out, &self.0) };
        G1(out)
    }

    /// Whether this is the point at infinity.
    pub fn is_identity(&self) -> bool {
        // SAFETY: a valid point, read only.
        unsafe { blst_p1_affine_is_inf(&self.0) }
    }

    /// The 48-byte compressed encoding (ZCash format, as blst and Mithril).
    pub fn to_bytes(&self) -> [u8; G1_BYTES] {
        let mut out = [0u8; G1_BYTES];
        // SAFETY: `out` has the 48 bytes blst writes.
        unsafe { blst_p1_affine_compress(out.as_mut_ptr(), &self.0) };
        out
    }

    /// Decodes a compressed point, refusing bytes off the curve or outside the subgroup.
    pub fn from_bytes(bytes: &[u8]) -> Option<G1Affine> {
        if bytes.len() != G1_BYTES {
            return None;
        }
        let mut p = blst_p1_affine::default();
        // SAFETY: `bytes` holds the 48 bytes blst reads; `p` is a fresh output.
        let rc = unsafe { blst_p1_uncompress(&mut p, bytes.as_ptr()) };
        // SAFETY: a decoded point, read only.
        (rc == BLST_ERROR::BLST_SUCCESS && unsafe { blst_p1_affine_in_g1(&p) })
            .then_some(G1Affine(p))
    }
}

impl G2 {
    /// The fixed generator.
    pub fn generator() -> G2 {
        // SAFETY: blst returns a pointer to its static generator.
        G2(unsafe { *blst_p2_generator() })
    }

    /// self + other (equal points included).
    pub fn add(&self, other: &G2) -> G2 {
        let mut out = blst_p2::default();
        // SAFETY: valid inputs, a fresh output.
        unsafe { blst_p2_add_or_double(&mut out, &self.0, &other.0) };
        G2(out)
    }

    /// −self.
    pub fn neg(&self) -> G2 {
        let mut out = self.0;
        // SAFETY: negates a valid point in place.
        unsafe { blst_p2_cneg(&mut out, true) };
        G2(out)
    }

    /// scalar·self, the scalar given as `nbits` little-endian bits in `scalar`.
    pub fn mul_bits(&self, scalar: &[u8], nbits: usize) -> G2 {
        assert!(nbits <= 8 * scalar.len());
        let mut out = blst_p2::default();
        // SAFETY: blst reads ⌈nbits/8⌉ bytes of `scalar`, which holds at least that many.
        unsafe { blst_p2_mult(&mut out, &self.0, scalar.as_ptr(), nbits) };
        G2(out)
    }

    /// The affine form.
    pub fn to_affine(&self) -> G2Affine {
        let mut out = blst_p2_affine::default();
        // SAFETY: valid input, fresh output.
        unsafe { blst_p2_to_affine(&mut out, &self.0) };
        G2Affine(out)
    }
}

impl G2Affine {
    /// The fixed generator.
    pub fn generator() -> G2Affine {
        G2::generator().to_affine()
    }

    /// The Jacobian form.
    pub fn to_projective(&self) -> G2 {
        let mut out = blst_p2::default();
        // SAFETY: valid input, fresh output.
        unsafe { blst_p2_from_affine(&mut out, &self.0) };
        G2(out)
    }

    /// Whether this is the point at infinity.
    pub fn is_identity(&self) -> bool {
        // SAFETY: a valid point, read only.
        unsafe { blst_p2_affine_is_inf(&self.0) }
    }

    /// The 96-byte compressed encoding.
    pub fn to_bytes(&self) -> [u8; G2_BYTES] {
        let mut out = [0u8; G2_BYTES];
        // SAFETY: `out` has the 96 bytes blst writes.
        unsafe { blst_p2_affine_compress(out.as_mut_ptr(), &self.0) };
        out
    }

    /// Decodes a compressed point, refusing bytes off the curve or outside the subgroup.
    pub fn from_bytes(bytes: &[u8]) -> Option<G2Affine> {
        if bytes.len() != G2_BYTES {
            return None;
        }
        let mut p = blst_p2_affine::default();
        // SAFETY: `bytes` holds the 96 bytes blst reads; `p` is a fresh output.
        let rc = unsafe { blst_p2_uncompress(&mut p, bytes.as_ptr()) };
        // SAFETY: a decoded point, read only.
        (rc == BLST_ERROR::BLST_SUCCESS && unsafe { blst_p2_affine_in_g2(&p) })
            .then_some(G2Affine(p))
    }
}

/// H(msg) in G1 under the domain separation tag `dst` (RFC 9380, hash_to_curve with SSWU and
/// the 11-isogeny, expand_message_xmd with SHA-256).
pub fn hash_to_g1(msg: &[u8], dst: &[u8]) -> G1 {
    let mut out = blst_p1::default();
    // SAFETY: pointer and length pairs of live slices; an empty augmentation string.
    unsafe {
        blst_hash_to_g1(
            &mut out,
            msg.as_ptr(),
            msg.len(),
            dst.as_ptr(),
            dst.len(),
            std::ptr::null(),
            0,
        )
    };
    G1(out)
}

/// Terms per chunk below which splitting an MSM over threads does not pay.
const PARALLEL_MIN_TERMS: usize = 64;

macro_rules! pippenger {
    ($name:ident, $affine:ident, $proj:ident, $raw:ident, $sizeof:ident, $mult:ident) => {
        fn $name(points: &[$affine], scalars: &[&[u8]], nbits: usize) -> $proj {
            if points.is_empty() {
                return $proj::default();
            }
            let ps: Vec<*const $raw> = points.iter().map(|p| &p.0 as *const $raw).collect();
            let ss: Vec<*const u8> = scalars.iter().map(|s| s.as_ptr()).collect();
            // SAFETY: a pure size query.
            let words = unsafe { $sizeof(points.len()) }.div_ceil(8);
            let mut scratch = vec![0u64; words];
            let mut out = $proj::default();
            // SAFETY: `ps` and `ss` hold points.len() pointers to live affine points and to
            // scalars of at least ⌈nbits/8⌉ bytes (checked by the callers); the scratch space
            // has the size blst asked for.
            unsafe {
                $mult(
                    &mut out.0,
                    ps.as_ptr(),
                    points.len(),
                    ss.as_ptr(),
                    nbits,
                    scratch.as_mut_ptr(),
                )
            };
            out
        }
    };
}

pippenger!(
    pippenger_g1,
    G1Affine,
    G1,
    blst_p1_affine,
    blst_p1s_mult_pippenger_scratch_sizeof,
    blst_p1s_mult_pippenger
);
pippenger!(
    pippenger_g2,
    G2Affine,
    G2,
    blst_p2_affine,
    blst_p2s_mult_pippenger_scratch_sizeof,
    blst_p2s_mult_pippenger
);

fn check_scalars<S: AsRef<[u8]>>(points: usize, scalars: &[S], nbits: usize) {
    assert_eq!(points, scalars.len(), "one scalar per point");
    let bytes = nbits.div_ceil(8);
    assert!(
        scalars.iter().all(|s| s.as_ref().len() >= bytes),
        "scalars of {bytes} bytes"
    );
}

/// Σ s_i·P_i in G1, each scalar `nbits` little-endian bits: blst's Pippenger, on one thread, or
/// in chunks over the current rayon pool when it has more than one thread.
pub fn msm_g1<S: AsRef<[u8]> + Sync>(points: &[G1Affine], scalars: &[S], nbits: usize) -> G1 {
    check_scalars(points.len(), scalars, nbits);
    let threads = rayon::current_num_threads();
    if threads <= 1 || points.len() < 2 * PARALLEL_MIN_TERMS {
        let s: Vec<&[u8]> = scalars.iter().map(AsRef::as_ref).collect();
        return pippenger_g1(points, &s, nbits);
    }
    let chunk = points.len().div_ceil(threads).max(PARALLEL_MIN_TERMS);
    points
        .par_chunks(chunk)
        .zip(scalars.par_chunks(chunk))
        .map(|(p, s)| {
            let s: Vec<&[u8]> = s.iter().map(AsRef::as_ref).collect();
            pippenger_g1(p, &s, nbits)
        })
        .reduce(G1::default, |a, b| a.add(&b))
}

/// Σ s_i·Q_i in G2, as [`msm_g1`].
pub fn msm_g2<S: AsRef<[u8]> + Sync>(points: &[G2Affine], scalars: &[S], nbits: usize) -> G2 {
    check_scalars(points.len(), scalars, nbits);
    let threads = rayon::current_num_threads();
    if threads <= 1 || points.len() < 2 * PARALLEL_MIN_TERMS {
        let s: Vec<&[u8]> = scalars.iter().map(AsRef::as_ref).collect();
        return pippenger_g2(points, &s, nbits);
    }
    let chunk = points.len().div_ceil(threads).max(PARALLEL_MIN_TERMS);
    points
        .par_chunks(chunk)
        .zip(scalars.par_chunks(chunk))
        .map(|(p, s)| {
            let s: Vec<&[u8]> = s.iter().map(AsRef::as_ref).collect();
            pippenger_g2(p, &s, nbits)
        })
        .reduce(G2::default, |a, b| a.add(&b))
}

/// Whether Π e(P_i, Q_i) = 1: one Miller loop over all pairs (they share its F_p^12 squarings),
/// one final exponentiation.
pub fn pairing_product_is_one(pairs: &[(G1Affine, G2Affine)]) -> bool {
    if pairs.is_empty() {
        return true;
    }
    let ps: Vec<*const blst_p1_affine> = pairs.iter().map(|(p, _)| &p.0 as *const _).collect();
    let qs: Vec<*const blst_p2_affine> = pairs.iter().map(|(_, q)| &q.0 as *const _).collect();
    let mut f = blst_fp12::default();
    let mut e = blst_fp12::default();
    // SAFETY: `ps`, `qs` hold pairs.len() pointers to live affine points; fresh outputs.
    unsafe {
        blst_miller_loop_n(&mut f, qs.as_ptr(), ps.as_ptr(), pairs.len());
        blst_final_exp(&mut e, &f);
        blst_fp12_is_one(&e)
    }
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
        assert_eq!(G1Affine::from_bytes(&p.to_bytes()[..47]), None);
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
