//! GT, the order-r subgroup of F_p^12* that pairings land in, and exponentiation of its fixed
//! element gt^(a^(n+1)) by a table.
//!
//! After the final exponentiation every value lies in the cyclotomic subgroup, where the inverse
//! is the (free) conjugation: signed digits halve a table.

use blst::{blst_fp12, blst_fp12_conjugate, blst_fp12_cyclotomic_sqr, blst_fp12_mul};

use super::digits::{signed_digits, windows};
use super::fr::Scalar;

/// An element of GT (or, before the final exponentiation, of F_p^12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Gt(pub(crate) blst_fp12);

impl Gt {
    /// The neutral element.
    pub fn one() -> Gt {
        Gt(blst_fp12::default())
    }

    /// self · other.
    pub fn mul(&self, other: &Gt) -> Gt {
        let mut out = blst_fp12::default();
        // SAFETY: valid field elements, fresh output.
        unsafe { blst_fp12_mul(&mut out, &self.0, &other.0) };
        Gt(out)
    }

    /// In-place product.
    pub fn mul_assign(&mut self, other: &Gt) {
        let p: *mut blst_fp12 = &mut self.0;
        // SAFETY: blst's fp12 multiplication allows the output to alias the first input.
        unsafe { blst_fp12_mul(p, p, &other.0) };
    }

    /// The inverse of a GT element (its conjugate).
    pub fn inverse(&self) -> Gt {
        let mut out = self.0;
        // SAFETY: a valid field element, conjugated in place.
        unsafe { blst_fp12_conjugate(&mut out) };
        Gt(out)
    }

    /// self², by the cyclotomic squaring (valid in GT only).
    pub fn square(&self) -> Gt {
        let mut out = blst_fp12::default();
        // SAFETY: a valid element of the cyclotomic subgroup, fresh output.
        unsafe { blst_fp12_cyclotomic_sqr(&mut out, &self.0) };
        Gt(out)
    }

    /// self^k by square-and-multiply over the bits of k: about 255 squarings and 128 products,
    /// the cost the table in [`GtTable`] avoids.
    pub fn pow(&self, k: &Scalar) -> Gt {
        let limbs = k.to_limbs();
        let mut acc = Gt::one();
        for bit in (0..255).rev() {
            acc = acc.square();
            if (limbs[bit / 64] >> (bit % 64)) & 1 == 1 {
                acc.mul_assign(self);
            }
        }
        acc
    }
}

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
