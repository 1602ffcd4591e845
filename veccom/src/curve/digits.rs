//! Signed windowed digits of a scalar, the recoding every table method here reads.
//!
//! A scalar k < 2^255 is written k = Σ_j d_j·2^(c·j), j < ⌈256/c⌉, with digits
//! d_j ∈ [−2^(c−1)+1, 2^(c−1)]: a window value v > 2^(c−1) becomes v − 2^c and carries one into
//! the next window. Negative digits cost nothing (negating a point flips y; inverting a pairing
//! value is a conjugation), so a table needs only the 2^(c−1) positive multiples, half of an
//! unsigned window's. With c·⌈256/c⌉ ≥ 256 the top window never carries out.

/// Number of c-bit windows that hold any scalar below 2^255 with signed digits.
pub const fn windows(c: usize) -> usize {
    256usize.div_ceil(c)
}

/// The `c`-bit window of `limbs` starting at bit `pos` (bits past 256 read as zero).
#[inline]
fn window(limbs: &[u64; 4], pos: usize, c: usize) -> u64 {
    let limb = pos / 64;
    let shift = pos % 64;
    if limb >= 4 {
        return 0;
    }
    let mut v = limbs[limb] >> shift;
    if shift + c > 64 && limb + 1 < 4 {
        v |= limbs[limb + 1] << (64 - shift);
    }
    v & ((1u64 << c) - 1)
}

/// Writes the `windows(c)` signed digits of the scalar with little-endian limbs `limbs` (below
/// 2^255) into `out`, least significant first. `c` must be in 1..=24.
pub fn signed_digits(limbs: &[u64; 4], c: usize, out: &mut [i32]) {
    debug_assert!((1..=24).contains(&c));
    debug_assert!(limbs[3] >> 63 == 0, "scalars are below 2^255");
    let k = windows(c);
    debug_assert!(out.len() >= k);
    let half = 1i64 << (c - 1);
    let mut carry = 0i64;
    for (j, d) in out.iter_mut().enumerate().take(k) {
        let v = window(limbs, j * c, c) as i64 + carry;
        if v > half {
            *d = (v - (1i64 << c)) as i32;
            carry = 1;
        } else {
            *d = v as i32;
            carry = 0;
        }
    }
    debug_assert_eq!(carry, 0);
}

/// The non-adjacent form of a scalar below 2^255: 257 digits in {−1, 0, 1}, no two adjacent
/// ones non-zero, so about a third of them are non-zero.
pub fn naf(limbs: &[u64; 4]) -> [i8; 257] {
    let mut out = [0i8; 257];
    // Work on a copy with one spare limb for the carries of the recoding.
    let mut k = [limbs[0], limbs[1], limbs[2], limbs[3], 0u64];
    let mut i = 0;
    while k.iter().any(|&l| l != 0) {
        if k[0] & 1 == 1 {
            // d = 2 − (k mod 4) ∈ {1, −1}; subtract d so that k becomes divisible by 4.
            let d: i8 = if k[0] & 3 == 1 { 1 } else { -1 };
            out[i] = d;
            if d == 1 {
                k[0] &= !1;
            } else {
                // k += 1, propagating the carry.
                for l in k.iter_mut() {
                    let (s, c) = l.overflowing_add(1);
                    *l = s;
                    if !c {
                        break;
                    }
                }
            }
        }
        // k >>= 1
        for j in 0..5 {
            let hi = if j + 1 < 5 { k[j + 1] << 63 } else { 0 };
            k[j] = (k[j] >> 1) | hi;
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Σ d_j·2^(c·j) as a 320-bit two's-complement number, for comparison with the limbs.
    fn recompose(d: &[i32], c: usize) -> [u64; 5] {
        let mut acc = [0u64; 5];
        for (j, &dj) in d.iter().enumerate().rev() {
            // acc <<= c
            for _ in 0..c {
                let mut carry = 0;
                for l in acc.iter_mut() {
                    let nc = *l >> 63;
                    *l = (*l << 1) | carry;
                    carry = nc;
                }
            }
            let add = dj as i64 as u64;
            let ext = if dj < 0 { u64::MAX } else { 0 };
            let mut carry = 0u128;
            for (i, l) in acc.iter_mut().enumerate() {
                let term = if i == 0 { add } else { ext };
                let s = *l as u128 + term as u128 + carry;
                *l = s as u64;
                carry = s >> 64;
            }
            let _ = j;
        }
        acc
    }

    #[test]
    fn digits_recompose_to_the_scalar_and_stay_in_range() {
        let cases = [
            [0u64, 0, 0, 0],
            [1, 0, 0, 0],
            [u64::MAX, u64::MAX, u64::MAX, (1 << 63) - 1],
            [
                0x0123_4567_89ab_cdef,
                0xfedc_ba98_7654_3210,
                0xdead_beef,
                0x73ed_a753_299d_7d48,
            ],
        ];
        for limbs in cases {
            for c in [1, 4, 7, 8, 10, 11, 13, 16] {
                let mut d = vec![0i32; windows(c)];
                signed_digits(&limbs, c, &mut d);
                let half = 1i32 << (c - 1);
                assert!(d.iter().all(|&x| -half < x && x <= half), "c={c} {d:?}");
                let r = recompose(&d, c);
                assert_eq!(&r[..4], &limbs[..], "c={c}");
                assert_eq!(r[4], 0);
            }
            let n = naf(&limbs);
            assert!(n.windows(2).all(|w| w[0] == 0 || w[1] == 0));
            let as_i32: Vec<i32> = n.iter().map(|&x| x as i32).collect();
            assert_eq!(&recompose(&as_i32, 1)[..4], &limbs[..]);
        }
    }
}
