//! R1CS gadgets (ark-r1cs-std 0.4 variables over the BN254 scalar field), each built for the
//! fewest constraints. Linear combinations cost nothing: the constraint system is synthesised
//! with `OptimizationGoal::Constraints`, which inlines them into the constraints that use them.
pub mod edwards;
pub mod merkle;
pub mod poseidon;
pub mod scalar;
pub mod sha256;

use ark_bn254::Fr;
use ark_r1cs_std::fields::fp::FpVar;

/// `sum coeffs[i] * vars[i]`, a linear combination (no constraint).
pub(crate) fn linear(terms: impl IntoIterator<Item = (Fr, FpVar<Fr>)>) -> FpVar<Fr> {
    terms
        .into_iter()
        .fold(FpVar::Constant(Fr::from(0u8)), |acc, (c, v)| acc + v * c)
}
