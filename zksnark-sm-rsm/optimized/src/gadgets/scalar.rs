//! Scalars as bits, strictly: the prover supplies the bits, each constrained boolean, and the
//! bits must encode an integer at most a constant bound, so that every value has exactly one
//! encoding.
//!
//! * r (and, in the `as-published` variant, v): 254 bits below the BN254 modulus p. 254 bits
//!   can also hold v + p for about a third of all v; a circuit that packs bits without this
//!   check, like the stdlib's `nonStrictUnpack256`, lets such a prover multiply by v + p
//!   instead of v.
//! * v in the `sound` variant: 251 bits below L, the order of Baby Jubjub's prime subgroup. A
//!   commitment `v G + r H` fixes v only mod L (p is about 8 L), so a range check against p
//!   still lets RSM prove that v + k L is in the set when only v is.
//!
//! The comparison with a constant c (p - 1 or L - 1) walks the maximal runs of zero bits of c
//! from the top. A run whose higher bits all equal c's must be all zero; if some higher bit
//! differs, the first difference from the top is a 1 of c where the scalar has 0 (by induction,
//! a higher zero run was forced to zero), so the scalar is already smaller. With `M` the number
//! of c's one-bits above the run where the scalar has 0, and `S` the sum of the run's bits, one
//! constraint `M * x = S` (x a free witness, S / M when M != 0) says exactly "M = 0 implies
//! S = 0". p - 1 has 53 zero runs below bit 254, so the check is 53 constraints on top of the
//! 254 of booleanity; the lexicographic AND/OR chain would take one per bit.

use ark_bn254::Fr;
use ark_ff::{BigInteger, Field, PrimeField, Zero};
use ark_r1cs_std::{
    alloc::AllocVar, boolean::Boolean, eq::EqGadget, fields::fp::FpVar, fields::FieldVar, R1CSVar,
};
use ark_relations::r1cs::{ConstraintSystemRef, SynthesisError};

use super::linear;
use crate::primitives::babyjubjub::{subgroup_order, SUBGROUP_BITS};

type Big = <Fr as PrimeField>::BigInt;

/// Bits of a scalar below p: the bit length of the modulus.
pub const SCALAR_BITS: usize = Fr::MODULUS_BIT_SIZE as usize;

/// The largest value a range allows, and its bit length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScalarRange {
    /// How many bits the scalar is decomposed into.
    pub bits: usize,
    /// The largest value those bits may take (inclusive): `p - 1` or `L - 1`.
    pub max: Big,
}

impl ScalarRange {
    /// [0, p): a canonical field element.
    pub fn field() -> Self {
        let mut max = Fr::MODULUS;
        max.sub_with_borrow(&Big::from(1u64));
        ScalarRange {
            bits: SCALAR_BITS,
            max,
        }
    }

    /// [0, L): one value per class mod the subgroup order.
    pub fn subgroup() -> Self {
        let mut max = subgroup_order();
        max.sub_with_borrow(&Big::from(1u64));
        ScalarRange {
            bits: SUBGROUP_BITS,
            max,
        }
    }

    /// The maximal runs of zero bits of `max` below `bits` (bit positions, each run listed from
    /// its top down), each with the positions of the one-bits above it.
    fn zero_runs(&self) -> Vec<(Vec<usize>, Vec<usize>)> {
        let bits = self.max.to_bits_le();
        let mut runs = Vec::new();
        let mut ones_above = Vec::new();
        let mut i = self.bits;
        while i > 0 {
            i -= 1;
            if bits[i] {
                ones_above.push(i);
                continue;
            }
            let mut run = vec![i];
            while i > 0 && !bits[i - 1] {
                i -= 1;
                run.push(i);
            }
            runs.push((run, ones_above.clone()));
        }
        runs
    }

    /// The constraints of [`bits_in`] for this range: booleanity and one per zero run.
    pub fn constraints(&self) -> usize {
        self.bits + self.zero_runs().len()
    }
}

/// Enforces that the little-endian `bits` encode an integer at most `range.max`.
pub fn enforce_at_most(bits: &[Boolean<Fr>], range: &ScalarRange) -> Result<(), SynthesisError> {
    assert_eq!(bits.len(), range.bits);
    let fp = |i: usize| FpVar::from(bits[i].clone());
    for (run, ones_above) in range.zero_runs() {
        let sum = linear(run.iter().map(|&i| (Fr::ONE, fp(i))));
        let misses = ones_above
            .iter()
            .fold(FpVar::Constant(Fr::zero()), |acc, &i| {
                acc + FpVar::Constant(Fr::ONE) - fp(i)
            });
        if let FpVar::Constant(m) = misses {
            // No one-bit above: the run must be zero outright.
            assert!(m.is_zero());
            sum.enforce_equal(&FpVar::Constant(Fr::zero()))?;
            continue;
        }
        let cs = misses.cs();
        let x = FpVar::new_witness(cs, || {
            let (m, s) = (misses.value()?, sum.value()?);
            Ok(m.inverse().map_or(Fr::zero(), |inv| s * inv))
        })?;
        misses.mul_equals(&x, &sum)?;
    }
    Ok(())
}

/// Allocates the prover's bits of a scalar (`None` during setup), constrains them boolean and
/// within `range`, and returns them with the field element they pack to (a linear combination).
pub fn bits_in(
    cs: ConstraintSystemRef<Fr>,
    bits: Option<&[bool]>,
    range: &ScalarRange,
) -> Result<(Vec<Boolean<Fr>>, FpVar<Fr>), SynthesisError> {
    if let Some(b) = bits {
        assert_eq!(b.len(), range.bits, "a scalar is {} bits", range.bits);
    }
    let vars = (0..range.bits)
        .map(|i| {
            Boolean::new_witness(cs.clone(), || {
                bits.map(|b| b[i]).ok_or(SynthesisError::AssignmentMissing)
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    enforce_at_most(&vars, range)?;
    let mut weight = Fr::ONE;
    let packed = linear(vars.iter().map(|b| {
        let term = (weight, FpVar::from(b.clone()));
        weight.double_in_place();
        term
    }));
    Ok((vars, packed))
}

/// [`bits_in`] for a canonical field element: 254 bits below p.
pub fn canonical_bits(
    cs: ConstraintSystemRef<Fr>,
    bits: Option<&[bool]>,
) -> Result<(Vec<Boolean<Fr>>, FpVar<Fr>), SynthesisError> {
    bits_in(cs, bits, &ScalarRange::field())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_minus_one_has_53_zero_runs() {
        let runs = ScalarRange::field().zero_runs();
        assert_eq!(runs.len(), 53);
        // The lowest run is the 2-adic part: p - 1 = 2^28 * odd.
        assert_eq!(runs.last().unwrap().0, (0..28).rev().collect::<Vec<_>>());
        assert_eq!(ScalarRange::field().constraints(), 254 + 53);
    }

    #[test]
    fn the_subgroup_range_is_251_bits_below_l() {
        let r = ScalarRange::subgroup();
        assert_eq!(r.bits, 251);
        // L - 1 has its top bit at 250 (L is about 2^250.6).
        assert!(r.max.get_bit(250));
        assert_eq!(r.max.num_bits(), 251);
    }
}
