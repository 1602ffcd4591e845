//! Poseidon as constraints. The round structure is the native one ([`Params::hash`]); only the
//! S-boxes cost anything: `x^5` is three products (x^2, x^4, x^5), so a two-input hash is
//! `3 * (8 * 3 + 57) = 243` constraints, fewer when an input is a constant (the SM leaf's 0).
//! Round constants and the MDS matrix enter linear combinations for free.
//!
//! Which values become wires decides how dense the constraints are, not how many there are.
//! Through the partial rounds, the state's two untouched elements are linear combinations of
//! every earlier S-box output, so an S-box input written as such a combination would put a
//! growing sum into both factors of `x * x` and into `x^4 * x`. Instead each partial round's
//! S-box input x is the wire, and the previous round's output `s = x^4 * x` is the linear
//! combination: the next input is `x' = c + m s + (the rest)` with m the MDS entry (nonzero), so
//! `s = (x' - c - rest) / m`. The third product of each partial round is emitted once x' exists,
//! as `x^4 * x = s`; the count stays 3 per round and the long sums appear once, on the output
//! side.

use ark_bn254::Fr;
use ark_ff::Field;
use ark_r1cs_std::{
    alloc::AllocVar,
    fields::{fp::FpVar, FieldVar},
    R1CSVar,
};
use ark_relations::r1cs::SynthesisError;

use super::linear;
use crate::primitives::poseidon::{pair_params, Params, FULL_ROUNDS};

fn sbox(x: &FpVar<Fr>) -> Result<FpVar<Fr>, SynthesisError> {
    let x2 = x.square()?;
    let x4 = x2.square()?;
    Ok(x4 * x)
}

/// A state element `rest + coeff * s` in terms of the pending S-box output s of the last
/// partial round (not yet a linear combination of wires).
#[derive(Clone)]
struct Pending {
    rest: FpVar<Fr>,
    coeff: Fr,
}

/// The last partial round's S-box, whose output is still pending: `x4 * x = s`.
struct OpenSbox {
    x: FpVar<Fr>,
    x4: FpVar<Fr>,
}

impl OpenSbox {
    fn output_value(&self) -> Result<Fr, SynthesisError> {
        Ok(self.x4.value()? * self.x.value()?)
    }
}

/// Closes `open`: the next S-box input `element0 + c` becomes a wire, the pending output is
/// solved from it, the deferred product is constrained, and the state resolved.
fn close(
    open: OpenSbox,
    state: &[Pending],
    c: &[Fr],
) -> Result<(FpVar<Fr>, Vec<FpVar<Fr>>), SynthesisError> {
    let e0 = &state[0];
    let x_next = FpVar::new_witness(e0.rest.cs().or(open.x.cs()), || {
        Ok(e0.rest.value()? + e0.coeff * open.output_value()? + c[0])
    })?;
    let s = (&x_next - c[0] - &e0.rest) * e0.coeff.inverse().expect("MDS entries are nonzero");
    open.x4.mul_equals(&open.x, &s)?;
    let rest = state[1..]
        .iter()
        .zip(&c[1..])
        .map(|(e, ci)| &e.rest + &s * e.coeff + *ci)
        .collect();
    Ok((x_next, rest))
}

/// Poseidon of `inputs` (`t - 1` of them) under `params`, constrained as the module docs say:
/// the same permutation and output as the native [`Params::hash`], `3` constraints per S-box.
pub fn hash(params: &Params, inputs: &[FpVar<Fr>]) -> Result<FpVar<Fr>, SynthesisError> {
    let t = params.t;
    assert_eq!(inputs.len() + 1, t, "width t takes t - 1 inputs");
    let constants = |r: usize| &params.round_constants[r * t..(r + 1) * t];
    let mix = |state: &[FpVar<Fr>]| -> Vec<FpVar<Fr>> {
        params
            .mds
            .iter()
            .map(|row| linear(row.iter().copied().zip(state.iter().cloned())))
            .collect()
    };
    let mut state: Vec<FpVar<Fr>> = std::iter::once(FpVar::Constant(Fr::from(0u8)))
        .chain(inputs.iter().cloned())
        .collect();
    let first_partial = FULL_ROUNDS / 2;
    let end_partial = first_partial + params.partial_rounds;

    for r in 0..first_partial {
        for (s, c) in state.iter_mut().zip(constants(r)) {
            *s = sbox(&(&*s + *c))?;
        }
        state = mix(&state);
    }

    // Partial rounds: the S-box input is element 0 with its constant; the others pass through.
    let mut pending: Option<(OpenSbox, Vec<Pending>)> = None;
    for r in first_partial..end_partial {
        let c = constants(r);
        let (x, rest) = match pending.take() {
            None => (
                &state[0] + c[0],
                state[1..]
                    .iter()
                    .zip(&c[1..])
                    .map(|(e, ci)| e + *ci)
                    .collect(),
            ),
            Some((open, st)) => close(open, &st, c)?,
        };
        if let FpVar::Constant(_) = x {
            // Only reachable with constant inputs: the whole round folds.
            let s = sbox(&x)?;
            state = mix(&[vec![s], rest].concat());
            continue;
        }
        let x4 = x.square()?.square()?;
        let mixed: Vec<Pending> = params
            .mds
            .iter()
            .map(|row| Pending {
                rest: linear(row[1..].iter().copied().zip(rest.iter().cloned())),
                coeff: row[0],
            })
            .collect();
        pending = Some((OpenSbox { x, x4 }, mixed));
    }

    // The first full round after the partial ones takes element 0 as its wire too.
    let mut r = end_partial;
    if let Some((open, st)) = pending {
        let c = constants(r);
        let (x, rest) = close(open, &st, c)?;
        let sboxed = std::iter::once(x)
            .chain(rest)
            .map(|e| sbox(&e))
            .collect::<Result<Vec<_>, _>>()?;
        state = mix(&sboxed);
        r += 1;
    }
    for r in r..params.rounds() {
        for (s, c) in state.iter_mut().zip(constants(r)) {
            *s = sbox(&(&*s + *c))?;
        }
        state = mix(&state);
    }
    Ok(state.swap_remove(0))
}

/// Poseidon(a, b) with the tree's parameters.
pub fn hash2(a: &FpVar<Fr>, b: &FpVar<Fr>) -> Result<FpVar<Fr>, SynthesisError> {
    hash(pair_params(), &[a.clone(), b.clone()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::UniformRand;
    use ark_relations::r1cs::{ConstraintSystem, OptimizationGoal};
    use rand::SeedableRng;

    #[test]
    fn the_gadget_computes_poseidon_in_243_constraints() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for constant_first in [false, true] {
            let cs = ConstraintSystem::<Fr>::new_ref();
            cs.set_optimization_goal(OptimizationGoal::Constraints);
            let (a, b) = (Fr::rand(&mut rng), Fr::rand(&mut rng));
            let av = if constant_first {
                FpVar::Constant(a)
            } else {
                FpVar::new_witness(cs.clone(), || Ok(a)).unwrap()
            };
            let bv = FpVar::new_witness(cs.clone(), || Ok(b)).unwrap();
            let out = hash2(&av, &bv).unwrap();
            assert_eq!(
                out.value().unwrap(),
                crate::primitives::poseidon::hash2(a, b)
            );
            cs.finalize();
            assert!(cs.is_satisfied().unwrap());
            // The zero capacity saves 3; a constant first input 3 more.
            let want = if constant_first { 237 } else { 240 };
            assert_eq!(cs.num_constraints(), want);
        }
    }
}
