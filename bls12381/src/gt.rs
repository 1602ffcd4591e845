//! GT, the order-r subgroup of F_p^12* that pairings land in (and, before the final
//! exponentiation, F_p^12 itself). After the final exponentiation every value lies in the
//! cyclotomic subgroup, where the inverse is the (free) conjugation and squaring is cheaper.

use blst::{
    blst_fp12, blst_fp12_conjugate, blst_fp12_cyclotomic_sqr, blst_fp12_is_one, blst_fp12_mul,
};

use crate::{output, Scalar};

/// An element of GT (or of F_p^12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Gt(pub(crate) blst_fp12);

impl Gt {
    /// The neutral element (blst's default F_p^12 element is one).
    pub fn one() -> Gt {
        Gt(blst_fp12::default())
    }

    /// Whether this is one.
    pub fn is_one(&self) -> bool {
        // SAFETY: a valid field element, read only.
        unsafe { blst_fp12_is_one(&self.0) }
    }

    /// self · other.
    #[inline]
    pub fn mul(&self, other: &Gt) -> Gt {
        // SAFETY: two valid field elements read, a distinct local written.
        Gt(output(|out| unsafe {
            blst_fp12_mul(out, &self.0, &other.0)
        }))
    }

    /// self ·= other.
    #[inline]
    pub fn mul_assign(&mut self, other: &Gt) {
        let p: *mut blst_fp12 = &mut self.0;
        // SAFETY: blst's F_p^12 multiplication allows the output to be the first input; both
        // inputs are valid.
        unsafe { blst_fp12_mul(p, p, &other.0) };
    }

    /// The inverse of a GT element (its conjugate; not the inverse outside GT).
    pub fn inverse(&self) -> Gt {
        let mut out = self.0;
        // SAFETY: a valid field element, conjugated in place.
        unsafe { blst_fp12_conjugate(&mut out) };
        Gt(out)
    }

    /// self², by the cyclotomic squaring (valid in GT only).
    #[inline]
    pub fn square(&self) -> Gt {
        // SAFETY: a valid field element read, a distinct local written.
        Gt(output(|out| unsafe {
            blst_fp12_cyclotomic_sqr(out, &self.0)
        }))
    }

    /// self^k by square-and-multiply over the 255 bits of k (GT only).
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
