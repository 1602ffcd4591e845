//! The two statements as one constraint system each, over the same set, tree and commitment as
//! the suite's ZoKrates programs:
//!
//! * **SM**, public (C.x, C.y, root), private (v, r, path): `v G + r H == C` and the leaf
//!   `Poseidon(0, v)` folds along the path to the root.
//! * **RSM**, public (v, root), private (r, path): the leaf `Poseidon(C.x, C.y)` of
//!   `C = v G + r H` folds to the root.
//!
//! Two variants ([`Variant`]) of the same statements:
//!
//! * **sound** (the default): v enters as 251 bits constrained below L, the order of Baby
//!   Jubjub's prime subgroup, so that a commitment, which fixes v only mod L, fixes the v of the
//!   statement; the tree's padding leaves are a hashed constant nobody can open
//!   ([`crate::primitives::merkle::pad_leaf`]).
//! * **as-published**: the statement as the paper's circuit has it: v below p (so RSM also
//!   proves v + k L for k = 1..7 when only v is in the set), and padding leaves that are the
//!   leaf of v = 0 (SM) or of the identity point (RSM), so 0 is a member of every set whose
//!   size is not a power of two.
//!
//! r enters as 254 bits constrained canonical ([`crate::gadgets::scalar`]) in both; its range
//! does not matter to soundness (any opening of C will do). G and H are constants of the
//! circuit, so both products are fixed-base windowed sums ([`crate::gadgets::edwards`]). In SM
//! the packed bits of v are the leaf's v (no further constraint); in RSM they must equal the
//! public v (one constraint).
//!
//! The SHA-256 variant keeps the commitment part and changes the tree as the ZoKrates programs
//! do: nodes are 32-byte digests, the root is public as 8 big-endian 32-bit words, a node is
//! `SHA256(left || right)` ([`crate::gadgets::sha256`]), the SM leaf is
//! `SHA256(be32(0) || be32(v))` (v's bits are already there) and the RSM leaf is
//! `SHA256(be32(C.x) || be32(C.y))` (C's coordinates decomposed, canonically, for it).

use std::ops::Range;
use std::sync::OnceLock;

use ark_bn254::Fr;
use ark_r1cs_std::{alloc::AllocVar, boolean::Boolean, eq::EqGadget, fields::fp::FpVar, R1CSVar};
use ark_relations::r1cs::{ConstraintSystemRef, SynthesisError};

use crate::gadgets::scalar::ScalarRange;
use crate::gadgets::sha256::{self, Word};
use crate::gadgets::{edwards, merkle, poseidon, scalar};
use crate::primitives::babyjubjub::{bits_le, pedersen_h, FixedBase, Point};

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

/// Which version of the statements the circuit enforces (see the module notes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Variant {
    /// v < L enforced, padding leaves nobody can open.
    #[default]
    Sound,
    /// The paper's statements: v < p, padding leaves of v = 0 or of the identity.
    AsPublished,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Sound, Variant::AsPublished];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Sound => "sound",
            Variant::AsPublished => "as-published",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == s)
    }

    /// The range v's bits are constrained to.
    pub fn v_range(self) -> ScalarRange {
        match self {
            Variant::Sound => ScalarRange::subgroup(),
            Variant::AsPublished => ScalarRange::field(),
        }
    }

    /// The prover's bits of v for this variant: its integer's low `v_range().bits` bits.
    pub fn v_bits(self, v: &Fr) -> Vec<bool> {
        bits_le(v, self.v_range().bits)
    }

    /// The fixes in force, one line each, `"<code>: <what this circuit does>"`; the codes are
    /// defined in `zksnark-sm-rsm/docs/fixes.md`.
    pub fn fixes(self) -> Vec<&'static str> {
        match self {
            Variant::Sound => vec![
                "Z1: set values and v are in [0, L), and the circuit enforces v < L (a commitment \
                 fixes v only mod L)",
                "Z2: padding leaves are a hashed, domain-separated constant that no value or \
                 commitment opens",
            ],
            Variant::AsPublished => vec![],
        }
    }
}

/// The tree's hash: the suite's two variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeHash {
    Poseidon,
    Sha256,
}

impl TreeHash {
    pub fn name(self) -> &'static str {
        match self {
            TreeHash::Poseidon => "poseidon",
            TreeHash::Sha256 => "sha256",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "poseidon" => Some(TreeHash::Poseidon),
            "sha256" => Some(TreeHash::Sha256),
            _ => None,
        }
    }

    /// Public field inputs that carry the root: one field element, or 8 words.
    pub fn root_inputs(self) -> usize {
        match self {
            TreeHash::Poseidon => 1,
            TreeHash::Sha256 => 8,
        }
    }
}

/// A tree node: a field element (Poseidon) or a digest (SHA-256).
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Field(Fr),
    Digest([u8; 32]),
}

impl Node {
    pub fn hash(&self) -> TreeHash {
        match self {
            Node::Field(_) => TreeHash::Poseidon,
            Node::Digest(_) => TreeHash::Sha256,
        }
    }

    /// As public inputs: the element, or the digest's 8 big-endian words.
    pub fn inputs(&self) -> Vec<Fr> {
        match self {
            Node::Field(x) => vec![*x],
            Node::Digest(d) => sha256::words_of(d).iter().map(|&w| Fr::from(w)).collect(),
        }
    }
}

/// The deepest tree the circuit is built for (the suite's trees are far shallower).
pub const MAX_DEPTH: usize = 32;

/// What the verifier sees.
#[derive(Clone, Debug, PartialEq)]
pub enum Public {
    Sm { c: Point, root: Node },
    Rsm { v: Fr, root: Node },
}

impl Public {
    /// The Groth16 public inputs, in the circuit's order.
    pub fn inputs(&self) -> Vec<Fr> {
        match self {
            Public::Sm { c, root } => [vec![c.x, c.y], root.inputs()].concat(),
            Public::Rsm { v, root } => [vec![*v], root.inputs()].concat(),
        }
    }

    pub fn root(&self) -> &Node {
        match self {
            Public::Sm { root, .. } | Public::Rsm { root, .. } => root,
        }
    }
}

/// What only the prover knows. The scalars are the prover's bits: an honest prover takes the
/// canonical ones ([`crate::primitives::babyjubjub::bits_le`]); the tests also try others.
#[derive(Clone, Debug, PartialEq)]
pub struct Witness {
    pub v_bits: Vec<bool>,
    pub r_bits: Vec<bool>,
    /// The siblings from the leaf up, all of the root's kind.
    pub siblings: Vec<Node>,
    /// `right[k]`: the sibling at level k is on the right.
    pub right: Vec<bool>,
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

/// The fixed-base tables: G for v's bits in each variant, H for r's 254 bits.
struct Tables {
    g_sound: FixedBase,
    g_as_published: FixedBase,
    h: FixedBase,
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| Tables {
        g_sound: FixedBase::new(&Point::generator(), Variant::Sound.v_range().bits),
        g_as_published: FixedBase::new(&Point::generator(), Variant::AsPublished.v_range().bits),
        h: FixedBase::new(&pedersen_h(), scalar::SCALAR_BITS),
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

/// The number of public inputs of a statement.
pub fn public_inputs(statement: Statement, hash: TreeHash) -> usize {
    let lead = if statement == Statement::Sm { 2 } else { 1 };
    lead + hash.root_inputs()
}

/// Synthesises the statement for a tree of `depth` levels into `cs`: with `assignment` for a
/// witness, without for the setup. Public inputs are allocated first, in [`Public::inputs`]
/// order.
pub fn synthesize(
    cs: ConstraintSystemRef<Fr>,
    statement: Statement,
    hash: TreeHash,
    variant: Variant,
    depth: usize,
    assignment: Option<&Assignment>,
) -> Result<Layout, SynthesisError> {
    assert!((1..=MAX_DEPTH).contains(&depth), "depth 1..={MAX_DEPTH}");
    let n_public = public_inputs(statement, hash);
    let public = assignment.map(|a| a.public.inputs());
    if let Some(a) = assignment {
        assert_eq!(
            a.public.inputs().len(),
            n_public,
            "the assignment is for another circuit"
        );
        assert_eq!(
            a.public.root().hash(),
            hash,
            "the root is of the tree's kind"
        );
        assert_eq!(a.witness.siblings.len(), depth, "one sibling per level");
        assert_eq!(a.witness.right.len(), depth, "one direction bit per level");
        assert!(
            a.witness.siblings.iter().all(|s| s.hash() == hash),
            "siblings of the tree's kind"
        );
    }
    let witness = assignment.map(|a| &a.witness);
    let inputs = (0..n_public)
        .map(|i| FpVar::new_input(cs.clone(), value(public.as_ref().map(|p| &p[i]))))
        .collect::<Result<Vec<_>, _>>()?;
    let root = inputs[n_public - hash.root_inputs()..].to_vec();

    let mut layout = Layout::default();
    let v_part = match variant {
        Variant::Sound => "v: 251 bits, below L",
        Variant::AsPublished => "v: 254 bits, canonical",
    };
    let (v_bits, v) = part(&cs, &mut layout, v_part, || {
        scalar::bits_in(
            cs.clone(),
            witness.map(|w| w.v_bits.as_slice()),
            &variant.v_range(),
        )
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
        let t = tables();
        let g = match variant {
            Variant::Sound => &t.g_sound,
            Variant::AsPublished => &t.g_as_published,
        };
        let g_terms = edwards::fixed_base_terms(&v_bits, g)?;
        let h_terms = edwards::fixed_base_terms(&r_bits, &t.h)?;
        edwards::sum(&[g_terms, h_terms].concat(), c.as_ref())
    })?;
    if statement == Statement::Rsm {
        part(&cs, &mut layout, "public v == its bits", || {
            v.enforce_equal(&inputs[0])
        })?;
    }

    let right = |k: usize| witness.map(|w| &w.right[k]);
    match hash {
        TreeHash::Poseidon => {
            let leaf = match statement {
                Statement::Sm => part(&cs, &mut layout, "leaf Poseidon(0, v)", || {
                    poseidon::hash2(&FpVar::Constant(Fr::from(0u8)), &v)
                })?,
                Statement::Rsm => part(&cs, &mut layout, "leaf Poseidon(C.x, C.y)", || {
                    poseidon::hash2(&comm.x, &comm.y)
                })?,
            };
            part(
                &cs,
                &mut layout,
                "Merkle path: bits, selections, Poseidons",
                || {
                    let siblings = (0..depth)
                        .map(|k| {
                            let sib = witness.map(|w| match &w.siblings[k] {
                                Node::Field(x) => *x,
                                Node::Digest(_) => unreachable!("checked above"),
                            });
                            FpVar::new_witness(cs.clone(), value(sib.as_ref()))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    let bits = (0..depth)
                        .map(|k| Boolean::new_witness(cs.clone(), value(right(k))))
                        .collect::<Result<Vec<_>, _>>()?;
                    merkle::fold(leaf, &siblings, &bits)?.enforce_equal(&root[0])
                },
            )?;
        }
        TreeHash::Sha256 => {
            let leaf = match statement {
                Statement::Sm => part(&cs, &mut layout, "leaf SHA256(be32(0) || be32(v))", || {
                    let zero = (0..8).map(|_| Word::constant(0));
                    let message: Vec<Word> = zero
                        .chain(sha256::words_of_bits(&fp_bits(&v_bits)))
                        .collect();
                    sha256::hash64(&message)
                })?,
                Statement::Rsm => {
                    let coords = part(&cs, &mut layout, "C.x, C.y: 254 bits, canonical", || {
                        [&comm.x, &comm.y]
                            .into_iter()
                            .map(|coord| {
                                let bits =
                                    coord.value().ok().map(|x| bits_le(&x, scalar::SCALAR_BITS));
                                let (bits, packed) =
                                    scalar::canonical_bits(cs.clone(), bits.as_deref())?;
                                packed.enforce_equal(coord)?;
                                Ok(sha256::words_of_bits(&fp_bits(&bits)))
                            })
                            .collect::<Result<Vec<_>, SynthesisError>>()
                    })?;
                    part(
                        &cs,
                        &mut layout,
                        "leaf SHA256(be32(C.x) || be32(C.y))",
                        || sha256::hash64(&coords.concat()),
                    )?
                }
            };
            part(
                &cs,
                &mut layout,
                "Merkle path: digests, bits, selections, SHA-256s",
                || {
                    let mut node = leaf;
                    for k in 0..depth {
                        let words = witness.map(|w| match &w.siblings[k] {
                            Node::Digest(d) => sha256::words_of(d),
                            Node::Field(_) => unreachable!("checked above"),
                        });
                        let sibling = (0..8)
                            .map(|j| Word::witness(cs.clone(), words.map(|w| w[j])))
                            .collect::<Result<Vec<_>, _>>()?;
                        let bit = FpVar::from(Boolean::new_witness(cs.clone(), value(right(k)))?);
                        // Per bit: left = sibling + bit (node - sibling), right = node + sibling - left.
                        let mut left = Vec::with_capacity(8);
                        let mut rightw = Vec::with_capacity(8);
                        for (n, s) in node.iter().zip(&sibling) {
                            let (l, r): (Vec<_>, Vec<_>) =
                                n.0.iter()
                                    .zip(&s.0)
                                    .map(|(nb, sb)| {
                                        let l = &bit * (nb - sb) + sb;
                                        let r = nb + sb - &l;
                                        (l, r)
                                    })
                                    .unzip();
                            left.push(Word(l));
                            rightw.push(Word(r));
                        }
                        node = sha256::hash64(&[left, rightw].concat())?;
                    }
                    for (word, input) in node.iter().zip(&root) {
                        word.packed().enforce_equal(input)?;
                    }
                    Ok(())
                },
            )?;
        }
    }
    Ok(layout)
}

/// Booleans as the field bits the SHA-256 gadget takes.
fn fp_bits(bits: &[Boolean<Fr>]) -> Vec<FpVar<Fr>> {
    bits.iter().cloned().map(FpVar::from).collect()
}
