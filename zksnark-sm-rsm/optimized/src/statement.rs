//! The two statements as one constraint system each, over the same set, tree and commitment as
//! the suite's ZoKrates programs:
//!
//! * **SM**, public (C.x, C.y, root), private (v, r, path): `v G + r H == C` and the leaf
//!   `Poseidon(0, v)` folds along the path to the root.
//! * **RSM**, public (v, root), private (r, path): the leaf `Poseidon(C.x, C.y)` of
//!   `C = v G + r H` folds to the root.
//!
//! v and r enter as 254 bits each, constrained canonical ([`crate::gadgets::scalar`]); G and H
//! are constants of the circuit, so both products are fixed-base windowed sums, chained into
//! one accumulator ([`crate::gadgets::edwards`]). In SM the packed bits of v are the leaf's v
//! (no further constraint); in RSM they must equal the public v (one constraint).

use std::ops::Range;
use std::sync::OnceLock;

use ark_bn254::Fr;
use ark_r1cs_std::{alloc::AllocVar, boolean::Boolean, eq::EqGadget, fields::fp::FpVar};
use ark_relations::r1cs::{ConstraintSystemRef, SynthesisError};

use crate::gadgets::{edwards, merkle, poseidon, scalar};
use crate::primitives::babyjubjub::{pedersen_h, FixedBase, Point};
use crate::primitives::merkle::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Statement {
    Sm,
    Rsm,
}

impl Statement {
    pub fn name(self) -> &'static str {
        match self {
            Statement::Sm => "sm",
            Statement::Rsm => "rsm",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "sm" => Some(Statement::Sm),
            "rsm" => Some(Statement::Rsm),
            _ => None,
        }
    }
}

/// The deepest tree the circuit is built for (the suite's trees are far shallower).
pub const MAX_DEPTH: usize = 32;

/// What the verifier sees.
#[derive(Clone, Debug, PartialEq)]
pub enum Public {
    Sm { c: Point, root: Fr },
    Rsm { v: Fr, root: Fr },
}

impl Public {
    /// The Groth16 public inputs, in the circuit's order.
    pub fn inputs(&self) -> Vec<Fr> {
        match self {
            Public::Sm { c, root } => vec![c.x, c.y, *root],
            Public::Rsm { v, root } => vec![*v, *root],
        }
    }
}

/// What only the prover knows. The scalars are the prover's bits: an honest prover takes the
/// canonical ones ([`crate::primitives::babyjubjub::bits_le`]); the tests also try others.
#[derive(Clone, Debug, PartialEq)]
pub struct Witness {
    pub v_bits: Vec<bool>,
    pub r_bits: Vec<bool>,
    pub path: Path,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    pub public: Public,
    pub witness: Witness,
}

/// The constraints of each part of the circuit, in synthesis order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    pub components: Vec<(&'static str, Range<usize>)>,
}

impl Layout {
    /// The part that constraint `index` belongs to.
    pub fn component_of(&self, index: usize) -> &'static str {
        self.components
            .iter()
            .find(|(_, r)| r.contains(&index))
            .map_or("(none)", |(name, _)| name)
    }
}

fn tables() -> &'static (FixedBase, FixedBase) {
    static T: OnceLock<(FixedBase, FixedBase)> = OnceLock::new();
    T.get_or_init(|| {
        (
            FixedBase::new(&Point::generator(), scalar::SCALAR_BITS),
            FixedBase::new(&pedersen_h(), scalar::SCALAR_BITS),
        )
    })
}

fn value<T: Clone>(x: Option<&T>) -> impl FnOnce() -> Result<T, SynthesisError> + '_ {
    move || x.cloned().ok_or(SynthesisError::AssignmentMissing)
}

/// Records the constraints that `f` adds under `name`.
fn part<T>(
    cs: &ConstraintSystemRef<Fr>,
    layout: &mut Layout,
    name: &'static str,
    f: impl FnOnce() -> Result<T, SynthesisError>,
) -> Result<T, SynthesisError> {
    let start = cs.num_constraints();
    let out = f()?;
    layout.components.push((name, start..cs.num_constraints()));
    Ok(out)
}

/// Synthesises the statement for a tree of `depth` levels into `cs`: with `assignment` for a
/// witness, without for the setup. Public inputs are allocated first, in [`Public::inputs`]
/// order.
pub fn synthesize(
    cs: ConstraintSystemRef<Fr>,
    statement: Statement,
    depth: usize,
    assignment: Option<&Assignment>,
) -> Result<Layout, SynthesisError> {
    assert!((1..=MAX_DEPTH).contains(&depth), "depth 1..={MAX_DEPTH}");
    let public = assignment.map(|a| a.public.inputs());
    if let Some(p) = &public {
        let want = if statement == Statement::Sm { 3 } else { 2 };
        assert_eq!(p.len(), want, "the assignment is for the other statement");
    }
    let witness = assignment.map(|a| &a.witness);
    if let Some(w) = witness {
        assert_eq!(w.path.siblings.len(), depth, "one sibling per level");
        assert_eq!(w.path.right.len(), depth, "one direction bit per level");
    }
    let inputs = (0..public
        .as_ref()
        .map_or(if statement == Statement::Sm { 3 } else { 2 }, Vec::len))
        .map(|i| FpVar::new_input(cs.clone(), value(public.as_ref().map(|p| &p[i]))))
        .collect::<Result<Vec<_>, _>>()?;
    let root = inputs.last().unwrap().clone();

    let mut layout = Layout::default();
    let (v_bits, v) = part(&cs, &mut layout, "v: 254 bits, canonical", || {
        scalar::canonical_bits(cs.clone(), witness.map(|w| w.v_bits.as_slice()))
    })?;
    let (r_bits, _) = part(&cs, &mut layout, "r: 254 bits, canonical", || {
        scalar::canonical_bits(cs.clone(), witness.map(|w| w.r_bits.as_slice()))
    })?;
    // SM constrains the last addition's output to be the public C (no separate equality).
    let (name, c) = match statement {
        Statement::Sm => (
            "C == v G + r H, fixed-base windows",
            Some(edwards::PointVar {
                x: inputs[0].clone(),
                y: inputs[1].clone(),
            }),
        ),
        Statement::Rsm => ("C = v G + r H, fixed-base windows", None),
    };
    let comm = part(&cs, &mut layout, name, || {
        let (g, h) = tables();
        let g_terms = edwards::fixed_base_terms(&v_bits, g)?;
        let h_terms = edwards::fixed_base_terms(&r_bits, h)?;
        edwards::sum(&[g_terms, h_terms].concat(), c.as_ref())
    })?;

    let leaf = match statement {
        Statement::Sm => part(&cs, &mut layout, "leaf Poseidon(0, v)", || {
            poseidon::hash2(&FpVar::Constant(Fr::from(0u8)), &v)
        })?,
        Statement::Rsm => {
            part(&cs, &mut layout, "public v == its bits", || {
                v.enforce_equal(&inputs[0])
            })?;
            part(&cs, &mut layout, "leaf Poseidon(C.x, C.y)", || {
                poseidon::hash2(&comm.x, &comm.y)
            })?
        }
    };

    part(
        &cs,
        &mut layout,
        "Merkle path: bits, selections, Poseidons",
        || {
            let siblings = (0..depth)
                .map(|k| {
                    FpVar::new_witness(cs.clone(), value(witness.map(|w| &w.path.siblings[k])))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let right = (0..depth)
                .map(|k| Boolean::new_witness(cs.clone(), value(witness.map(|w| &w.path.right[k]))))
                .collect::<Result<Vec<_>, _>>()?;
            merkle::fold(leaf, &siblings, &right)?.enforce_equal(&root)
        },
    )?;
    Ok(layout)
}
