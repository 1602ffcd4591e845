//! The circuit in circom's formats, so that the suite's provers (`zksnark-prover`,
//! `collab-groth16`) read it like any zokrates-js export: wire 0 is the constant 1, then the
//! public inputs, then every private variable, in ark-relations' allocation order.
//!
//! [`compile`] synthesises without values (the setup's view) and turns ark-relations' matrices
//! into an [`R1cs`]; [`witness`] synthesises with values and no matrices. Both walk the same
//! code, whose allocations do not depend on the values, so wire i means the same in both.

use ark_bn254::Fr;
use ark_relations::r1cs::{
    ConstraintSystem, ConstraintSystemRef, OptimizationGoal, SynthesisError, SynthesisMode,
};
use zksnark_prover::{Constraint, LinComb, R1cs};

use crate::statement::{synthesize, Assignment, Layout, Statement, TreeHash, Variant};

fn new_cs(mode: SynthesisMode) -> ConstraintSystemRef<Fr> {
    let cs = ConstraintSystem::<Fr>::new_ref();
    // Inline every linear combination: sums cost no constraint and no wire.
    cs.set_optimization_goal(OptimizationGoal::Constraints);
    cs.set_mode(mode);
    cs
}

/// The constraint system of `statement` over a `hash` tree of `depth` levels, and which
/// constraints do what.
pub fn compile(
    statement: Statement,
    hash: TreeHash,
    variant: Variant,
    depth: usize,
) -> Result<(R1cs<Fr>, Layout), SynthesisError> {
    let cs = new_cs(SynthesisMode::Setup);
    let layout = synthesize(cs.clone(), statement, hash, variant, depth, None)?;
    cs.finalize();
    let m = cs.to_matrices().expect("setup mode keeps the matrices");
    let row = |terms: &Vec<(Fr, usize)>| -> LinComb<Fr> {
        terms.iter().map(|&(c, i)| (i as u32, c)).collect()
    };
    let constraints = (0..m.num_constraints)
        .map(|i| Constraint {
            a: row(&m.a[i]),
            b: row(&m.b[i]),
            c: row(&m.c[i]),
        })
        .collect();
    let n_wires = m.num_instance_variables + m.num_witness_variables;
    let r1cs = R1cs {
        n_wires,
        n_pub_out: 0,
        n_pub_in: m.num_instance_variables - 1,
        n_prv_in: 0,
        n_labels: n_wires as u64,
        constraints,
        wire_to_label: None,
    };
    Ok((r1cs, layout))
}

/// Every wire's value for `assignment` (constant 1, public inputs, private variables).
pub fn witness(
    statement: Statement,
    hash: TreeHash,
    variant: Variant,
    depth: usize,
    assignment: &Assignment,
) -> Result<Vec<Fr>, SynthesisError> {
    let cs = new_cs(SynthesisMode::Prove {
        construct_matrices: false,
    });
    synthesize(
        cs.clone(),
        statement,
        hash,
        variant,
        depth,
        Some(assignment),
    )?;
    let cs = cs.borrow().expect("the only reference");
    let mut values = cs.instance_assignment.clone();
    values.extend_from_slice(&cs.witness_assignment);
    Ok(values)
}
