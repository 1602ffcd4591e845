//! Exponentiation of one fixed GT element (the verifier's gt^(a^(n+1))) by a table.
//!
//! In GT the inverse is the (free) conjugation: signed digits halve the table.

use super::digits::{signed_digits, windows};
use super::{Gt, Scalar};

/// Window width of the GT table: 33 windows of 8 bits, 128 entries each (2.4 MB), so an
/// exponentiation is at most 32 products and no squaring.
pub const GT_TABLE_BITS: usize = 8;

/// base^(d·2^(8j)) for every window j and digit d in 1..=128: exponentiation of one fixed GT
/// element by a sum of table entries.
#[derive(Clone, Debug)]
pub struct GtTable {
    entries: Vec<Gt>,
}

impl GtTable {
    /// The table of `base` (a GT element).
    pub fn new(base: &Gt) -> GtTable {
        let half = 1usize << (GT_TABLE_BITS - 1);
        let k = windows(GT_TABLE_BITS);
        let mut entries = Vec::with_capacity(k * half);
        let mut window_base = *base;
        for _ in 0..k {
            let mut m = window_base;
            for _ in 0..half {
                entries.push(m);
                m.mul_assign(&window_base);
            }
            // The next window's base, window_base^(2^8): eight squarings.
            for _ in 0..GT_TABLE_BITS {
                window_base = window_base.square();
            }
        }
        GtTable { entries }
    }

    /// base^k.
    pub fn pow(&self, k: &Scalar) -> Gt {
        let half = 1usize << (GT_TABLE_BITS - 1);
        let mut digits = [0i32; windows(GT_TABLE_BITS)];
        signed_digits(&k.to_limbs(), GT_TABLE_BITS, &mut digits);
        let mut acc: Option<Gt> = None;
        for (j, &d) in digits.iter().enumerate() {
            if d == 0 {
                continue;
            }
            let e = &self.entries[j * half + d.unsigned_abs() as usize - 1];
            let term = if d < 0 { e.inverse() } else { *e };
            acc = Some(match acc {
                None => term,
                Some(a) => a.mul(&term),
            });
        }
        acc.unwrap_or_else(Gt::one)
    }

    /// Memory held by the table.
    pub fn bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<Gt>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::pairing::pairing;
    use crate::curve::{G1Affine, G2Affine};

    #[test]
    fn table_exponentiation_agrees_with_square_and_multiply() {
        let e = pairing(&G1Affine::generator(), &G2Affine::generator());
        let table = GtTable::new(&e);
        for k in [
            Scalar::from_u128(1234567 * 7654321),
            Scalar::from_be_bytes_mod_r(&[0xa5; 48]),
        ] {
            assert_eq!(table.pow(&k), e.pow(&k));
        }
        assert_eq!(table.pow(&Scalar::ZERO), Gt::one());
    }
}
