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

/// One group of BLS12-381 over its blst functions, written once for G1 and G2: the Jacobian
/// and affine point types, their operations and encoding, and the multi-scalar multiplication.
/// Each invocation below names the group's types, its encoding size and its blst functions.
macro_rules! blst_group {
    (
        group: $g:literal,
        point: $proj:ident($raw:ident),
        affine: $affine:ident($raw_affine:ident),
        encoding: $bytes:ident = $nbytes:literal,
        msm: $msm:ident,
        blst: {
            generator: $generator:ident,
            add: $add:ident,
            cneg: $cneg:ident,
            mult: $mult:ident,
            to_affine: $to_affine:ident,
            from_affine: $from_affine:ident,
            is_equal: $is_equal:ident,
            is_inf: $is_inf:ident,
            compress: $compress:ident,
            uncompress: $uncompress:ident,
            in_group: $in_group:ident,
            pippenger: $pippenger:ident,
            pippenger_scratch: $scratch_sizeof:ident $(,)?
        } $(,)?
    ) => {
        #[doc = concat!("Bytes of a compressed ", $g, " point.")]
        pub const $bytes: usize = $nbytes;

        #[doc = concat!("A ", $g, " point, Jacobian coordinates.")]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $proj($raw);

        #[doc = concat!("A ", $g, " point, affine coordinates (infinity is (0, 0)).")]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $affine($raw_affine);

        impl PartialEq for $affine {
            fn eq(&self, other: &Self) -> bool {
                // SAFETY: two valid affine points, read only.
                unsafe { $is_equal(&self.0, &other.0) }
            }
        }
        impl Eq for $affine {}

        impl $proj {
            /// The fixed generator.
            pub fn generator() -> $proj {
                // SAFETY: blst returns a pointer to its static generator.
                $proj(unsafe { *$generator() })
            }

            /// self + other (equal points included).
            pub fn add(&self, other: &$proj) -> $proj {
                let mut out = $raw::default();
                // SAFETY: valid inputs, a fresh output.
                unsafe { $add(&mut out, &self.0, &other.0) };
                $proj(out)
            }

            /// −self.
            pub fn neg(&self) -> $proj {
                let mut out = self.0;
                // SAFETY: negates a valid point in place.
                unsafe { $cneg(&mut out, true) };
                $proj(out)
            }

            /// scalar·self, the scalar given as `nbits` little-endian bits in `scalar`.
            pub fn mul_bits(&self, scalar: &[u8], nbits: usize) -> $proj {
                assert!(nbits <= 8 * scalar.len());
                let mut out = $raw::default();
                // SAFETY: blst reads ⌈nbits/8⌉ bytes of `scalar`, which holds at least as many.
                unsafe { $mult(&mut out, &self.0, scalar.as_ptr(), nbits) };
                $proj(out)
            }

            /// The affine form.
            pub fn to_affine(&self) -> $affine {
                let mut out = $raw_affine::default();
                // SAFETY: valid input, fresh output.
                unsafe { $to_affine(&mut out, &self.0) };
                $affine(out)
            }
        }

        impl $affine {
            /// The fixed generator.
            pub fn generator() -> $affine {
                $proj::generator().to_affine()
            }

            /// The Jacobian form.
            pub fn to_projective(&self) -> $proj {
                let mut out = $raw::default();
                // SAFETY: valid input, fresh output.
                unsafe { $from_affine(&mut out, &self.0) };
                $proj(out)
            }

            /// Whether this is the point at infinity.
            pub fn is_identity(&self) -> bool {
                // SAFETY: a valid point, read only.
                unsafe { $is_inf(&self.0) }
            }

            #[doc = concat!("The ", $nbytes, "-byte compressed encoding (ZCash format, as blst")]
            /// and Mithril).
            pub fn to_bytes(&self) -> [u8; $bytes] {
                let mut out = [0u8; $bytes];
                // SAFETY: `out` has the bytes blst writes.
                unsafe { $compress(out.as_mut_ptr(), &self.0) };
                out
            }

            /// Decodes a compressed point, refusing bytes off the curve or outside the subgroup.
            pub fn from_bytes(bytes: &[u8]) -> Option<$affine> {
                if bytes.len() != $bytes {
                    return None;
                }
                let mut p = $raw_affine::default();
                // SAFETY: `bytes` holds the bytes blst reads; `p` is a fresh output.
                let rc = unsafe { $uncompress(&mut p, bytes.as_ptr()) };
                // SAFETY: a decoded point, read only.
                (rc == BLST_ERROR::BLST_SUCCESS && unsafe { $in_group(&p) }).then_some($affine(p))
            }
        }

        #[doc = concat!("Σ s_i·P_i in ", $g, ", each scalar `nbits` little-endian bits:")]
        /// blst's Pippenger, on one thread, or in chunks over the current rayon pool when it has
        /// more than one thread.
        pub fn $msm<S: AsRef<[u8]> + Sync>(
            points: &[$affine],
            scalars: &[S],
            nbits: usize,
        ) -> $proj {
            fn pippenger(points: &[$affine], scalars: &[&[u8]], nbits: usize) -> $proj {
                if points.is_empty() {
                    return $proj::default();
                }
                let ps: Vec<*const $raw_affine> =
                    points.iter().map(|p| &p.0 as *const $raw_affine).collect();
                let ss: Vec<*const u8> = scalars.iter().map(|s| s.as_ptr()).collect();
                // SAFETY: a pure size query.
                let words = unsafe { $scratch_sizeof(points.len()) }.div_ceil(8);
                let mut scratch = vec![0u64; words];
                let mut out = $proj::default();
                // SAFETY: `ps` and `ss` hold points.len() pointers to live affine points and to
                // scalars of at least ⌈nbits/8⌉ bytes (checked by the caller); the scratch
                // space has the size blst asked for.
                unsafe {
                    $pippenger(
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

            check_scalars(points.len(), scalars, nbits);
            let threads = rayon::current_num_threads();
            if threads <= 1 || points.len() < 2 * PARALLEL_MIN_TERMS {
                let s: Vec<&[u8]> = scalars.iter().map(AsRef::as_ref).collect();
                return pippenger(points, &s, nbits);
            }
            let chunk = points.len().div_ceil(threads).max(PARALLEL_MIN_TERMS);
            points
                .par_chunks(chunk)
                .zip(scalars.par_chunks(chunk))
                .map(|(p, s)| {
                    let s: Vec<&[u8]> = s.iter().map(AsRef::as_ref).collect();
                    pippenger(p, &s, nbits)
                })
                .reduce($proj::default, |a, b| a.add(&b))
        }
    };
}

blst_group! {
    group: "G1",
    point: G1(blst_p1),
    affine: G1Affine(blst_p1_affine),
    encoding: G1_BYTES = 48,
    msm: msm_g1,
    blst: {
        generator: blst_p1_generator,
        add: blst_p1_add_or_double,
        cneg: blst_p1_cneg,
        mult: blst_p1_mult,
        to_affine: blst_p1_to_affine,
        from_affine: blst_p1_from_affine,
        is_equal: blst_p1_affine_is_equal,
        is_inf: blst_p1_affine_is_inf,
        compress: blst_p1_affine_compress,
        uncompress: blst_p1_uncompress,
        in_group: blst_p1_affine_in_g1,
        pippenger: blst_p1s_mult_pippenger,
        pippenger_scratch: blst_p1s_mult_pippenger_scratch_sizeof,
    },
}

blst_group! {
    group: "G2",
    point: G2(blst_p2),
    affine: G2Affine(blst_p2_affine),
    encoding: G2_BYTES = 96,
    msm: msm_g2,
    blst: {
        generator: blst_p2_generator,
        add: blst_p2_add_or_double,
        cneg: blst_p2_cneg,
        mult: blst_p2_mult,
        to_affine: blst_p2_to_affine,
        from_affine: blst_p2_from_affine,
        is_equal: blst_p2_affine_is_equal,
        is_inf: blst_p2_affine_is_inf,
        compress: blst_p2_affine_compress,
        uncompress: blst_p2_uncompress,
        in_group: blst_p2_affine_in_g2,
        pippenger: blst_p2s_mult_pippenger,
        pippenger_scratch: blst_p2s_mult_pippenger_scratch_sizeof,
    },
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

fn check_scalars<S: AsRef<[u8]>>(points: usize, scalars: &[S], nbits: usize) {
    assert_eq!(points, scalars.len(), "one scalar per point");
    let bytes = nbits.div_ceil(8);
    assert!(
        scalars.iter().all(|s| s.as_ref().len() >= bytes),
        "scalars of {bytes} bytes"
    );
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
