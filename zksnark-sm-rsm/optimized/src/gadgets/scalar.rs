//! Scalars as bits, strictly: the prover supplies 254 bits, each constrained boolean, and the
//! bits must encode an integer below the BN254 modulus p, so every field element has exactly
//! one encoding. (254 bits can also hold v + p for about a third of all v; a circuit that packs
//! bits without this check, like the stdlib's `nonStrictUnpack256`, lets such a prover multiply
//! by v + p instead of v.)
//!
//! The comparison with c = p - 1 walks the maximal runs of zero bits of c from the top. A run
//! whose higher bits all equal c's must be all zero; if some higher bit differs, the first
//! difference from the top is a 1 of c where the scalar has 0 (by induction, a higher zero run
//! was forced to zero), so the scalar is already smaller. With `M` the number of c's one-bits
//! above the run where the scalar has 0, and `S` the sum of the run's bits, one constraint
//! `M * x = S` (x a free witness, S / M when M != 0) says exactly "M = 0 implies S = 0".
//! p - 1 has 53 zero runs below bit 254, so the check is 53 constraints on top of the 254 of
//! booleanity; the lexicographic AND/OR chain would take one per bit.

use ark_bn254::Fr;
use ark_ff::{BigInteger, Field, PrimeField, Zero};
use ark_r1cs_std::{
    alloc::AllocVar, boolean::Boolean, fields::fp::FpVar, fields::FieldVar, R1CSVar,
};
use ark_relations::r1cs::{ConstraintSystemRef, SynthesisError};

use super::linear;

/// Bits of a scalar: the bit length of the modulus.
pub const SCALAR_BITS: usize = Fr::MODULUS_BIT_SIZE as usize;

/// The maximal runs of zero bits of p - 1 (bit positions, each run listed from its top down),
/// each with the positions of the one-bits above it.
fn zero_runs() -> Vec<(Vec<usize>, Vec<usize>)> {
    let mut c = Fr::MODULUS;
    c.sub_with_borrow(&<Fr as PrimeField>::BigInt::from(1u64));
    let bits = c.to_bits_le();
    let mut runs = Vec::new();
    let mut ones_above = Vec::new();
    let mut i = SCALAR_BITS;
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

/// Enforces that the little-endian `bits` encode an integer at most p - 1.
pub fn enforce_canonical(bits: &[Boolean<Fr>]) -> Result<(), SynthesisError> {
    assert_eq!(bits.len(), SCALAR_BITS);
    let fp = |i: usize| FpVar::from(bits[i].clone());
    for (run, ones_above) in zero_runs() {
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

use ark_r1cs_std::eq::EqGadget;

/// Allocates the prover's bits of a scalar (`None` during setup), constrains them boolean and
/// canonical, and returns them with the field element they pack to (a linear combination).
pub fn canonical_bits(
    cs: ConstraintSystemRef<Fr>,
    bits: Option<&[bool]>,
) -> Result<(Vec<Boolean<Fr>>, FpVar<Fr>), SynthesisError> {
    if let Some(b) = bits {
        assert_eq!(b.len(), SCALAR_BITS, "a scalar is {SCALAR_BITS} bits");
    }
    let vars = (0..SCALAR_BITS)
        .map(|i| {
            Boolean::new_witness(cs.clone(), || {
                bits.map(|b| b[i]).ok_or(SynthesisError::AssignmentMissing)
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    enforce_canonical(&vars)?;
    let mut weight = Fr::ONE;
    let packed = linear(vars.iter().map(|b| {
        let term = (weight, FpVar::from(b.clone()));
        weight.double_in_place();
        term
    }));
    Ok((vars, packed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_minus_one_has_53_zero_runs() {
        let runs = zero_runs();
        assert_eq!(runs.len(), 53);
        // The lowest run is the 2-adic part: p - 1 = 2^28 * odd.
        assert_eq!(runs.last().unwrap().0, (0..28).rev().collect::<Vec<_>>());
    }
}
