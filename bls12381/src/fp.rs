//! F_p, the base field of BLS12-381 (381 bits): the coordinates of G1 points, for algorithms
//! that work on affine coordinates directly (batches of affine additions sharing one
//! inversion). Elements are in blst's Montgomery form.

use std::mem::MaybeUninit;

use blst::{
    blst_fp, blst_fp_add, blst_fp_cneg, blst_fp_inverse, blst_fp_mul, blst_fp_sqr, blst_fp_sub,
};

/// An element of F_p.
#[derive(Clone, Copy, Debug, Default, Eq)]
#[repr(transparent)]
pub struct Fp(pub(crate) blst_fp);

impl PartialEq for Fp {
    /// Equal limbs (blst keeps elements fully reduced), the lowest limb first: unequal elements,
    /// the usual case, differ there.
    #[inline]
    fn eq(&self, other: &Fp) -> bool {
        self.0.l[0] == other.0.l[0] && self.0.l == other.0.l
    }
}

/// The output of one blst F_p operation: `op` writes every limb of its output.
#[inline(always)]
fn written(op: impl FnOnce(*mut blst_fp)) -> Fp {
    let mut out = MaybeUninit::<blst_fp>::uninit();
    op(out.as_mut_ptr());
    // SAFETY: every caller passes a blst function that writes the whole output element, so
    // the value is initialised (no zeroing first, in the batched additions' inner loop).
    Fp(unsafe { out.assume_init() })
}

impl Fp {
    /// self + other.
    #[inline]
    pub fn add(&self, other: &Fp) -> Fp {
        // SAFETY: two valid field elements read, one written through `out`.
        written(|out| unsafe { blst_fp_add(out, &self.0, &other.0) })
    }

    /// self − other.
    #[inline]
    pub fn sub(&self, other: &Fp) -> Fp {
        // SAFETY: as in `add`.
        written(|out| unsafe { blst_fp_sub(out, &self.0, &other.0) })
    }

    /// self · other.
    #[inline]
    pub fn mul(&self, other: &Fp) -> Fp {
        // SAFETY: as in `add`.
        written(|out| unsafe { blst_fp_mul(out, &self.0, &other.0) })
    }

    /// self².
    #[inline]
    pub fn square(&self) -> Fp {
        // SAFETY: one valid field element read, one written through `out`.
        written(|out| unsafe { blst_fp_sqr(out, &self.0) })
    }

    /// 1/self (zero maps to zero: callers make sure it is not zero).
    #[inline]
    pub fn inverse(&self) -> Fp {
        // SAFETY: one valid field element read, one written through `out` (blst's constant-time inversion is defined for every input).
        written(|out| unsafe { blst_fp_inverse(out, &self.0) })
    }

    /// −self.
    #[inline]
    pub fn neg(&self) -> Fp {
        // SAFETY: one valid field element read, one written through `out`.
        written(|out| unsafe { blst_fp_cneg(out, &self.0, true) })
    }
}

#[cfg(test)]
mod tests {
    use crate::G1Affine;

    #[test]
    fn field_laws_on_the_generators_coordinates() {
        let g = G1Affine::generator();
        let (x, y) = (*g.x(), *g.y());
        assert_eq!(x.add(&y).sub(&y), x);
        assert_eq!(x.mul(&x), x.square());
        assert_eq!(x.mul(&x.inverse()).mul(&y), y);
        assert_eq!(x.add(&x.neg()), super::Fp::default());
        // y² = x³ + 4 on G1.
        let four = {
            let one = x.mul(&x.inverse());
            let two = one.add(&one);
            two.add(&two)
        };
        assert_eq!(y.square(), x.square().mul(&x).add(&four));
    }
}
