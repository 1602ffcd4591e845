//! One group of BLS12-381 over its blst functions, written once for G1 and G2. Each invocation,
//! in `g1` and `g2`, names the group's types, its encoding size and, one by one, the blst items
//! the group is built on: blst spells them per group (`blst_p1_add_or_double`,
//! `blst_p2_add_or_double`, `blst_fp_cneg`, `blst_fp2_cneg`, ...), and naming each in full keeps
//! every C function the unsafe blocks call visible at the invocation, greppable, and free of a
//! name-pasting dependency.

macro_rules! blst_group {
    (
        group: $g:literal,
        types: $proj:ident, $affine:ident,
        compressed: $bytes:ident = $nbytes:literal,
        blst: {
            point: $point:ident,
            affine: $aff:ident,
            is_equal: $is_equal:ident,
            affine_is_equal: $affine_is_equal:ident,
            generator: $generator:ident,
            affine_generator: $affine_generator:ident,
            is_inf: $is_inf:ident,
            affine_is_inf: $affine_is_inf:ident,
            add_or_double: $add_or_double:ident,
            add_or_double_affine: $add_or_double_affine:ident,
            double: $double:ident,
            cneg: $cneg:ident,
            mult: $mult:ident,
            to_affine: $to_affine:ident,
            batch_to_affine: $batch_to_affine:ident,
            from_affine: $from_affine:ident,
            coordinate_cneg: $coordinate_cneg:ident,
            compress: $compress:ident,
            uncompress: $uncompress:ident,
            in_subgroup: $in_subgroup:ident $(,)?
        } $(,)?
    ) => {
        #[doc = concat!("Bytes of a compressed ", $g, " point.")]
        pub const $bytes: usize = $nbytes;

        #[doc = concat!("A ", $g, " point in Jacobian coordinates (the default is the identity).")]
        #[derive(Clone, Copy, Debug, Default)]
        #[repr(transparent)]
        pub struct $proj(pub(crate) blst::$point);

        #[doc = concat!("A ", $g, " point in affine coordinates (the identity is (0, 0), also the")]
        /// default).
        #[derive(Clone, Copy, Debug, Default)]
        #[repr(transparent)]
        pub struct $affine(pub(crate) blst::$aff);

        impl PartialEq for $proj {
            fn eq(&self, other: &Self) -> bool {
                // SAFETY: two valid points, read only.
                unsafe { blst::$is_equal(&self.0, &other.0) }
            }
        }
        impl Eq for $proj {}

        impl PartialEq for $affine {
            fn eq(&self, other: &Self) -> bool {
                // SAFETY: two valid points, read only.
                unsafe { blst::$affine_is_equal(&self.0, &other.0) }
            }
        }
        impl Eq for $affine {}

        impl $proj {
            /// The identity (point at infinity).
            pub fn identity() -> $proj {
                $proj(blst::$point::default())
            }

            /// The fixed generator.
            pub fn generator() -> $proj {
                // SAFETY: blst returns a pointer to its static, valid generator, copied here.
                $proj(unsafe { *blst::$generator() })
            }

            /// Whether this is the identity.
            #[inline]
            pub fn is_identity(&self) -> bool {
                // SAFETY: a valid point, read only.
                unsafe { blst::$is_inf(&self.0) }
            }

            /// self + other (any two points, equal ones included).
            #[inline]
            pub fn add(&self, other: &$proj) -> $proj {
                // SAFETY: two valid points read; `out`, a distinct local, written.
                $proj(crate::output(|out| unsafe {
                    blst::$add_or_double(out, &self.0, &other.0)
                }))
            }

            /// self + other with an affine second operand (a mixed addition).
            #[inline]
            pub fn add_affine(&self, other: &$affine) -> $proj {
                // SAFETY: as in `add`.
                $proj(crate::output(|out| unsafe {
                    blst::$add_or_double_affine(out, &self.0, &other.0)
                }))
            }

            /// self += other.
            #[inline]
            pub fn add_assign(&mut self, other: &$proj) {
                let p: *mut blst::$point = &mut self.0;
                // SAFETY: blst reads both inputs before it writes the output, so the output may
                // be the first input; `other` is a valid point.
                unsafe { blst::$add_or_double(p, p, &other.0) };
            }

            /// self += other, other affine.
            #[inline]
            pub fn add_affine_assign(&mut self, other: &$affine) {
                let p: *mut blst::$point = &mut self.0;
                // SAFETY: as in `add_assign`.
                unsafe { blst::$add_or_double_affine(p, p, &other.0) };
            }

            /// self = 2·self.
            #[inline]
            pub fn double_assign(&mut self) {
                let p: *mut blst::$point = &mut self.0;
                // SAFETY: as in `add_assign` (blst reads the input before writing the output).
                unsafe { blst::$double(p, p) };
            }

            /// −self.
            #[inline]
            pub fn neg(&self) -> $proj {
                let mut out = self.0;
                // SAFETY: a valid point, negated in place.
                unsafe { blst::$cneg(&mut out, true) };
                $proj(out)
            }

            /// k·self (blst's scalar multiplication, with the GLV endomorphism for full-size
            /// scalars: the reference cost of "one scalar multiplication").
            pub fn mul(&self, k: &crate::Scalar) -> $proj {
                self.mul_bits(&k.to_le_bytes(), 255)
            }

            /// scalar·self, the scalar given as `nbits` little-endian bits in `scalar`.
            pub fn mul_bits(&self, scalar: &[u8], nbits: usize) -> $proj {
                assert!(nbits <= 8 * scalar.len(), "{nbits} bits in {} bytes", scalar.len());
                // SAFETY: blst reads ⌈nbits/8⌉ bytes of `scalar`, which holds at least as many
                // (asserted), and one valid point; `out` is written.
                $proj(crate::output(|out| unsafe {
                    blst::$mult(out, &self.0, scalar.as_ptr(), nbits)
                }))
            }

            /// The affine form (one field inversion).
            pub fn to_affine(&self) -> $affine {
                // SAFETY: one valid point read, `out` written.
                $affine(crate::output(|out| unsafe {
                    blst::$to_affine(out, &self.0)
                }))
            }

            /// The affine forms of many points with one shared inversion (Montgomery's trick).
            pub fn batch_to_affine(points: &[$proj]) -> Vec<$affine> {
                let mut out = vec![$affine::default(); points.len()];
                if points.is_empty() {
                    return out;
                }
                // blst reads a contiguous array when the second entry of the pointer list is
                // null.
                let list: [*const blst::$point; 2] = [&points[0].0, std::ptr::null()];
                // SAFETY: the point types are transparent wrappers of blst's, so `points` is a
                // contiguous array of `points.len()` valid points and `out` one of as many
                // writable affine points; the null second pointer selects that array form.
                unsafe {
                    blst::$batch_to_affine(
                        out.as_mut_ptr() as *mut blst::$aff,
                        list.as_ptr(),
                        points.len(),
                    )
                };
                out
            }
        }

        impl $affine {
            /// The fixed generator.
            pub fn generator() -> $affine {
                // SAFETY: blst returns a pointer to its static, valid generator, copied here.
                $affine(unsafe { *blst::$affine_generator() })
            }

            /// The identity.
            pub fn identity() -> $affine {
                $affine(blst::$aff::default())
            }

            /// Whether this is the identity.
            #[inline]
            pub fn is_identity(&self) -> bool {
                // SAFETY: a valid point, read only.
                unsafe { blst::$affine_is_inf(&self.0) }
            }

            /// The Jacobian form.
            #[inline]
            pub fn to_projective(&self) -> $proj {
                // SAFETY: one valid point read, `out` written.
                $proj(crate::output(|out| unsafe {
                    blst::$from_affine(out, &self.0)
                }))
            }

            /// −self (y negated; the identity stays itself).
            #[inline]
            pub fn neg(&self) -> $affine {
                let mut out = *self;
                // SAFETY: `self.0.y` is a valid coordinate read, `out.0.y` (a distinct copy)
                // written.
                unsafe { blst::$coordinate_cneg(&mut out.0.y, &self.0.y, !self.is_identity()) };
                out
            }

            #[doc = concat!("The ", $nbytes, "-byte compressed encoding (ZCash's BLS12-381 format,")]
            /// as blst, arkworks and Mithril write it).
            pub fn to_bytes(&self) -> [u8; $bytes] {
                let mut out = [0u8; $bytes];
                // SAFETY: blst writes exactly the array's bytes and reads one valid point.
                unsafe { blst::$compress(out.as_mut_ptr(), &self.0) };
                out
            }

            /// Decodes a compressed point, refusing bytes that are not a point of the
            /// prime-order subgroup (the check every received point needs).
            pub fn from_bytes(bytes: &[u8; $bytes]) -> Option<$affine> {
                let mut p = blst::$aff::default();
                // SAFETY: blst reads exactly the array's bytes and writes one affine point.
                let rc = unsafe { blst::$uncompress(&mut p, bytes.as_ptr()) };
                if rc != blst::BLST_ERROR::BLST_SUCCESS {
                    return None;
                }
                // SAFETY: `p` is a decoded point on the curve, read only.
                let in_group = unsafe { blst::$in_subgroup(&p) };
                in_group.then_some($affine(p))
            }
        }

        /// The group's operations against each other, for G1 and G2 alike.
        #[cfg(test)]
        mod group_tests {
            use super::*;
            use crate::Scalar;

            #[test]
            fn encoding_round_trips_and_arithmetic_agrees() {
                let g = $proj::generator();
                let p = g.mul(&Scalar::from_u128(12345)).to_affine();
                assert_eq!($affine::from_bytes(&p.to_bytes()), Some(p));
                let mut bad = p.to_bytes();
                bad[$nbytes - 1] ^= 1;
                assert_ne!($affine::from_bytes(&bad), Some(p));
                assert_eq!($affine::from_bytes(&[0xff; $nbytes]), None);
                assert_eq!($affine::from_bytes(&[0x11; $nbytes]), None);
                let q = g.mul(&Scalar::from_u128(12344)).add(&g);
                assert_eq!(q.to_affine(), p);
                let mut d = g;
                d.double_assign();
                assert_eq!(d, g.add(&g));
                d.add_affine_assign(&$affine::generator());
                assert_eq!(d, g.mul(&Scalar::from_u128(3)));
                assert!(g.add(&g.neg()).is_identity());
                assert!(p.neg().to_projective().add(&p.to_projective()).is_identity());
                assert_eq!($proj::batch_to_affine(&[g, q]), vec![$affine::generator(), p]);
                assert!($proj::batch_to_affine(&[]).is_empty());
                assert_eq!(p.neg().to_projective(), p.to_projective().neg());
                assert!($affine::identity().neg().is_identity());
                assert_eq!(g.mul_bits(&[7], 3), g.mul(&Scalar::from_u128(7)));
                let mut s = g;
                s.add_affine_assign(&p);
                s.add_assign(&g);
                assert_eq!(s, g.add_affine(&p).add(&g));
                assert_eq!($proj::default(), $proj::identity());
            }
        }
    };
}
