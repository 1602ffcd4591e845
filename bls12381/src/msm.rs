//! Σ k_i·P_i by blst's Pippenger bucket method, for scalars of `nbits` bits given as
//! little-endian bytes: on one thread ([`g1`], [`g2`], or [`g1_packed`], [`g2_packed`] for
//! scalars already stored back to back), or split over the current rayon pool ([`g1_par`],
//! [`g2_par`]: one contiguous share of the terms per thread, the shares' sums added).

use blst::{
    blst_p1_affine, blst_p1s_mult_pippenger, blst_p1s_mult_pippenger_scratch_sizeof,
    blst_p2_affine, blst_p2s_mult_pippenger, blst_p2s_mult_pippenger_scratch_sizeof,
};
use rayon::prelude::*;

use crate::{G1Affine, G2Affine, G1, G2};

/// Bytes blst reads per scalar of `nbits` bits.
pub fn scalar_bytes(nbits: usize) -> usize {
    nbits.div_ceil(8)
}

/// The scalars back to back, ⌈nbits/8⌉ little-endian bytes each (the form blst reads).
pub fn pack<S: AsRef<[u8]>>(scalars: &[S], nbits: usize) -> Vec<u8> {
    let stride = scalar_bytes(nbits);
    let mut out = Vec::with_capacity(stride * scalars.len());
    for s in scalars {
        let s = s.as_ref();
        assert!(
            s.len() >= stride,
            "a scalar of {} bytes, {nbits} bits needed",
            s.len()
        );
        out.extend_from_slice(&s[..stride]);
    }
    out
}

macro_rules! pippenger {
    ($packed:ident, $one:ident, $par:ident, $affine:ident, $proj:ident, $raw_affine:ident, $sizeof:ident, $mult:ident, $g:literal) => {
        #[doc = concat!("Σ k_i·P_i in ", $g, " on one thread; `packed` holds the scalars back")]
        /// to back, ⌈nbits/8⌉ little-endian bytes each.
        pub fn $packed(points: &[$affine], packed: &[u8], nbits: usize) -> $proj {
            assert!((1..=256).contains(&nbits), "nbits {nbits} out of range");
            assert_eq!(
                packed.len(),
                points.len() * scalar_bytes(nbits),
                "one scalar of {} bytes per point",
                scalar_bytes(nbits)
            );
            let mut out = $proj::default();
            if points.is_empty() {
                return out;
            }
            // SAFETY: a pure size query.
            let words = unsafe { $sizeof(points.len()) }.div_ceil(8);
            let mut scratch = vec![0u64; words.max(1)];
            // A null second pointer tells blst that the first points to a contiguous array.
            let p: [*const $raw_affine; 2] = [&points[0].0, std::ptr::null()];
            let s: [*const u8; 2] = [packed.as_ptr(), std::ptr::null()];
            // SAFETY: `points` is a contiguous array of `points.len()` valid affine points (the
            // affine type is a transparent wrapper of blst's), `packed` holds as many scalars of
            // ⌈nbits/8⌉ bytes (asserted), the scratch space is as large as blst asked (in
            // bytes, rounded up to words), and `out` is written.
            unsafe {
                $mult(
                    &mut out.0,
                    p.as_ptr(),
                    points.len(),
                    s.as_ptr(),
                    nbits,
                    scratch.as_mut_ptr() as *mut _,
                )
            };
            out
        }

        #[doc = concat!("Σ k_i·P_i in ", $g, " on one thread, each scalar `nbits` little-endian")]
        /// bits (its first ⌈nbits/8⌉ bytes are read).
        pub fn $one<S: AsRef<[u8]>>(points: &[$affine], scalars: &[S], nbits: usize) -> $proj {
            assert_eq!(points.len(), scalars.len(), "one scalar per point");
            $packed(points, &pack(scalars, nbits), nbits)
        }

        #[doc = concat!("Σ k_i·P_i in ", $g, " split over the current rayon pool: on one thread")]
        /// when the pool has one or the terms are fewer than 2·`min_chunk`, else one share of at
        /// least `min_chunk` terms per thread.
        pub fn $par<S: AsRef<[u8]> + Sync>(
            points: &[$affine],
            scalars: &[S],
            nbits: usize,
            min_chunk: usize,
        ) -> $proj {
            assert_eq!(points.len(), scalars.len(), "one scalar per point");
            let threads = rayon::current_num_threads();
            if threads <= 1 || points.len() < 2 * min_chunk.max(1) {
                return $one(points, scalars, nbits);
            }
            let chunk = points.len().div_ceil(threads).max(min_chunk);
            points
                .par_chunks(chunk)
                .zip(scalars.par_chunks(chunk))
                .map(|(p, s)| $one(p, s, nbits))
                .reduce($proj::default, |a, b| a.add(&b))
        }
    };
}

pippenger!(
    g1_packed,
    g1,
    g1_par,
    G1Affine,
    G1,
    blst_p1_affine,
    blst_p1s_mult_pippenger_scratch_sizeof,
    blst_p1s_mult_pippenger,
    "G1"
);
pippenger!(
    g2_packed,
    g2,
    g2_par,
    G2Affine,
    G2,
    blst_p2_affine,
    blst_p2s_mult_pippenger_scratch_sizeof,
    blst_p2s_mult_pippenger,
    "G2"
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scalar;

    #[test]
    fn pippenger_agrees_with_scalar_multiplications_on_any_pool() {
        let gen1 = G1::generator();
        let gen2 = G2::generator();
        let pts1: Vec<G1Affine> = (1u128..=300)
            .map(|i| gen1.mul(&Scalar::from_u128(i)).to_affine())
            .collect();
        let pts2: Vec<G2Affine> = (1u128..=5)
            .map(|i| gen2.mul(&Scalar::from_u128(i)).to_affine())
            .collect();
        let scalars: Vec<[u8; 16]> = (0u8..=255)
            .cycle()
            .take(300)
            .map(|i| [i.wrapping_mul(37) | 1; 16])
            .collect();
        let naive1 = pts1.iter().zip(&scalars).fold(G1::identity(), |a, (p, s)| {
            a.add(&p.to_projective().mul_bits(s, 128))
        });
        assert_eq!(g1(&pts1, &scalars, 128), naive1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        assert_eq!(pool.install(|| g1_par(&pts1, &scalars, 128, 32)), naive1);
        let naive2 = pts2.iter().zip(&scalars).fold(G2::identity(), |a, (p, s)| {
            a.add(&p.to_projective().mul_bits(s, 128))
        });
        assert_eq!(g2(&pts2, &scalars[..5], 128), naive2);
        assert_eq!(
            pool.install(|| g2_par(&pts2, &scalars[..5], 128, 1)),
            naive2
        );
        // Fewer bits than bytes: only the low 100 bits count.
        let short: Vec<[u8; 16]> = scalars[..5]
            .iter()
            .map(|s| {
                let mut s = *s;
                s[12] &= 0x0f;
                s[13..].fill(0);
                s
            })
            .collect();
        assert_eq!(g2(&pts2, &scalars[..5], 100), g2(&pts2, &short, 128));
        assert!(g1::<[u8; 16]>(&[], &[], 128).is_identity());
    }
}
