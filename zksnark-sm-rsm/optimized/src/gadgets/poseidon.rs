//! Poseidon as constraints. The round structure is the native one ([`Params::hash`]); only the
//! S-boxes cost anything: `x^5` is three products (x^2, x^4, x^5), so a two-input hash is
//! `3 * (8 * 3 + 57) = 243` constraints, fewer when an input is a constant (the SM leaf's 0).
//! Round constants and the MDS matrix enter linear combinations for free.

use ark_bn254::Fr;
use ark_r1cs_std::fields::{fp::FpVar, FieldVar};
use ark_relations::r1cs::SynthesisError;

use super::linear;
use crate::primitives::poseidon::{pair_params, Params};

fn sbox(x: &FpVar<Fr>) -> Result<FpVar<Fr>, SynthesisError> {
    let x2 = x.square()?;
    let x4 = x2.square()?;
    Ok(x4 * x)
}

pub fn hash(params: &Params, inputs: &[FpVar<Fr>]) -> Result<FpVar<Fr>, SynthesisError> {
    assert_eq!(inputs.len() + 1, params.t, "width t takes t - 1 inputs");
    let mut state: Vec<FpVar<Fr>> = std::iter::once(FpVar::Constant(Fr::from(0u8)))
        .chain(inputs.iter().cloned())
        .collect();
    for r in 0..params.rounds() {
        for (s, c) in state
            .iter_mut()
            .zip(&params.round_constants[r * params.t..])
        {
            *s += *c;
        }
        let sboxed = if params.is_full_round(r) { params.t } else { 1 };
        for s in &mut state[..sboxed] {
            *s = sbox(s)?;
        }
        state = params
            .mds
            .iter()
            .map(|row| linear(row.iter().copied().zip(state.iter().cloned())))
            .collect();
    }
    Ok(state.swap_remove(0))
}

/// Poseidon(a, b) with the tree's parameters.
pub fn hash2(a: &FpVar<Fr>, b: &FpVar<Fr>) -> Result<FpVar<Fr>, SynthesisError> {
    hash(pair_params(), &[a.clone(), b.clone()])
}
