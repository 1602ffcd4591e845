//! Replays a parsed R1CS into ark-relations, so that ark-groth16 sets up and proves exactly the
//! constraint system that zokrates-js compiled (no re-implementation of the statement).

use ark_ff::PrimeField;
use ark_relations::r1cs::{
    ConstraintSynthesizer, ConstraintSystemRef, LinearCombination, SynthesisError, Variable,
};

use crate::r1cs::{LinComb, R1cs};

/// An exported R1CS replayed into ark-relations, constraint by constraint, so that ark-groth16
/// sets up and proves exactly the circuit that was exported.
pub struct R1csCircuit<'a, F: PrimeField> {
    r1cs: &'a R1cs<F>,
    /// Full assignment in wire order; `None` during setup, when no values are needed.
    assignment: Option<&'a [F]>,
}

impl<'a, F: PrimeField> R1csCircuit<'a, F> {
    /// The circuit without values, for key generation.
    pub fn for_setup(r1cs: &'a R1cs<F>) -> Self {
        R1csCircuit {
            r1cs,
            assignment: None,
        }
    }

    /// The circuit with its full assignment (one value per wire, wire order), for proving.
    pub fn for_proving(r1cs: &'a R1cs<F>, assignment: &'a [F]) -> Self {
        assert_eq!(assignment.len(), r1cs.n_wires, "one value per wire");
        R1csCircuit {
            r1cs,
            assignment: Some(assignment),
        }
    }
}

impl<F: PrimeField> ConstraintSynthesizer<F> for R1csCircuit<'_, F> {
    fn generate_constraints(self, cs: ConstraintSystemRef<F>) -> Result<(), SynthesisError> {
        let n_public = self.r1cs.num_public();
        let mut vars = Vec::with_capacity(self.r1cs.n_wires);
        // Wire 0 is circom's constant 1, which ark-relations has built in as instance 0.
        vars.push(Variable::One);
        // Allocation order fixes the variable numbering: wires 1..=n_public become instance
        // variables 1..=n_public, so the verifier's public inputs are those wires in order.
        for wire in 1..self.r1cs.n_wires {
            let value = || {
                self.assignment
                    .map(|a| a[wire])
                    .ok_or(SynthesisError::AssignmentMissing)
            };
            vars.push(if wire <= n_public {
                cs.new_input_variable(value)?
            } else {
                cs.new_witness_variable(value)?
            });
        }
        let lc = |terms: &LinComb<F>| {
            LinearCombination(
                terms
                    .iter()
                    .map(|&(wire, coeff)| (coeff, vars[wire as usize]))
                    .collect(),
            )
        };
        for c in &self.r1cs.constraints {
            cs.enforce_constraint(lc(&c.a), lc(&c.b), lc(&c.c))?;
        }
        Ok(())
    }
}
