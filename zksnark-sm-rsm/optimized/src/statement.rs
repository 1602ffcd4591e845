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
//!   ([`crate::primitives::merkle::pad_field`],
//!   [`crate::primitives::merkle::pad_digest`]).
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

/// Which membership is proven.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Statement {
    /// Set membership: the committed value is in the set (public C).
    Sm,
    /// Reverse set membership: a commitment to the public value is in the tree (public v).
    Rsm,
}

impl Statement {
    /// The name in files and on the command line: `sm` or `rsm`.
    pub fn name(self) -> &'static str {
        match self {
            Statement::Sm => "sm",
            Statement::Rsm => "rsm",
        }
    }

    /// The statement of a name; `None` for an unknown one.
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
    /// Both variants, the default first.
    pub const ALL: [Variant; 2] = [Variant::Sound, Variant::AsPublished];

    /// The name in files and on the command line: `sound` or `as-published`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Sound => "sound",
            Variant::AsPublished => "as-published",
        }
    }

    /// The variant of a name; `None` for an unknown one.
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
    /// Poseidon over the BN254 scalar field: a node is one field element.
    Poseidon,
    /// SHA-256: a node is a 32-byte digest.
    Sha256,
}

impl TreeHash {
    /// The name in files and on the command line: `poseidon` or `sha256`.
    pub fn name(self) -> &'static str {
        match self {
            TreeHash::Poseidon => "poseidon",
            TreeHash::Sha256 => "sha256",
        }
    }

    /// The hash of a name; `None` for an unknown one.
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
    /// A Poseidon tree's node.
    Field(Fr),
    /// A SHA-256 tree's node.
    Digest([u8; 32]),
}

impl Node {
    /// The tree hash a node of this kind belongs to.
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
    /// SM: the commitment C and the root.
    Sm {
        /// The commitment whose value is a member.
        c: Point,
        /// The tree's root.
        root: Node,
    },
    /// RSM: the value v and the root.
    Rsm {
        /// The value some committed leaf opens to.
        v: Fr,
        /// The tree's root.
        root: Node,
    },
}

impl Public {
    /// The Groth16 public inputs, in the circuit's order.
    pub fn inputs(&self) -> Vec<Fr> {
        match self {
            Public::Sm { c, root } => [vec![c.x, c.y], root.inputs()].concat(),
            Public::Rsm { v, root } => [vec![*v], root.inputs()].concat(),
        }
    }

    /// The tree's root, either statement's.
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
    /// v's bits, least significant first ([`Variant::v_range`] says how many).
    pub v_bits: Vec<bool>,
    /// r's 254 bits, least significant first.
    pub r_bits: Vec<bool>,
    /// The siblings from the leaf up, all of the root's kind.
    pub siblings: Vec<Node>,
    /// `right[k]`: the sibling at level k is on the right.
    pub right: Vec<bool>,
}

impl Witness {
    /// The honest prover's witness: v's canonical bits for `variant`, r's canonical 254 bits, and
    /// the path.
    pub fn honest(
        variant: Variant,
        v: &Fr,
        r: &Fr,
        siblings: Vec<Node>,
        right: Vec<bool>,
    ) -> Witness {
        Witness {
            v_bits: variant.v_bits(v),
            r_bits: bits_le(r, scalar::SCALAR_BITS),
            siblings,
            right,
        }
    }
}

/// Everything the circuit is synthesised with: what the verifier sees and what the prover knows.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    /// The public inputs.
    pub public: Public,
    /// The witness.
    pub witness: Witness,
}

/// The constraints of each part of the circuit, in synthesis order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// Each part's name and its constraints' index range.
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
/// order. One step per part of the circuit, each named after its part (the layout's labels).
pub fn synthesize(
    cs: ConstraintSystemRef<Fr>,
    statement: Statement,
    hash: TreeHash,
    variant: Variant,
    depth: usize,
    assignment: Option<&Assignment>,
) -> Result<Layout, SynthesisError> {
    assert!((1..=MAX_DEPTH).contains(&depth), "depth 1..={MAX_DEPTH}");
    if let Some(a) = assignment {
        check_assignment(a, statement, hash, depth);
    }
    let mut s = Synthesis {
        cs: cs.clone(),
        layout: Layout::default(),
        witness: assignment.map(|a| &a.witness),
        statement,
        variant,
        depth,
    };
    let n_public = public_inputs(statement, hash);
    let public = assignment.map(|a| a.public.inputs());
    let inputs = (0..n_public)
        .map(|i| FpVar::new_input(cs.clone(), value(public.as_ref().map(|p| &p[i]))))
        .collect::<Result<Vec<_>, _>>()?;
    let root = &inputs[n_public - hash.root_inputs()..];
    let scalars = s.scalars()?;
    let comm = s.commitment(&scalars, &inputs)?;
    match hash {
        TreeHash::Poseidon => {
            let leaf = s.poseidon_leaf(&scalars.v, &comm)?;
            s.poseidon_path(leaf, &root[0])?;
        }
        TreeHash::Sha256 => {
            let leaf = s.sha256_leaf(&scalars.v_bits, &comm)?;
            s.sha256_path(leaf, root)?;
        }
    }
    Ok(s.layout)
}

/// An assignment must be for the circuit being built.
fn check_assignment(a: &Assignment, statement: Statement, hash: TreeHash, depth: usize) {
    assert_eq!(
        a.public.inputs().len(),
        public_inputs(statement, hash),
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

/// v's and r's bits, and v packed.
struct Scalars {
    v_bits: Vec<Boolean<Fr>>,
    v: FpVar<Fr>,
    r_bits: Vec<Boolean<Fr>>,
}

/// One circuit being built: where its constraints go, the parts recorded so far, the prover's
/// values (none for the setup).
struct Synthesis<'a> {
    cs: ConstraintSystemRef<Fr>,
    layout: Layout,
    witness: Option<&'a Witness>,
    statement: Statement,
    variant: Variant,
    depth: usize,
}

impl Synthesis<'_> {
    /// Records the constraints that `f` adds under `name`.
    fn part<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce() -> Result<T, SynthesisError>,
    ) -> Result<T, SynthesisError> {
        part(&self.cs, &mut self.layout, name, f)
    }

    /// `v: ...` and `r: 254 bits, canonical`: the scalars' bits in their ranges.
    fn scalars(&mut self) -> Result<Scalars, SynthesisError> {
        let (cs, witness, variant) = (self.cs.clone(), self.witness, self.variant);
        let v_part = match variant {
            Variant::Sound => "v: 251 bits, below L",
            Variant::AsPublished => "v: 254 bits, canonical",
        };
        let (v_bits, v) = self.part(v_part, || {
            scalar::bits_in(
                cs.clone(),
                witness.map(|w| w.v_bits.as_slice()),
                &variant.v_range(),
            )
        })?;
        let (r_bits, _) = self.part("r: 254 bits, canonical", || {
            scalar::canonical_bits(cs, witness.map(|w| w.r_bits.as_slice()))
        })?;
        Ok(Scalars { v_bits, v, r_bits })
    }

    /// `C == v G + r H` (SM: the last addition's output is the public C, no separate equality)
    /// or `C = v G + r H` and `public v == its bits` (RSM).
    fn commitment(
        &mut self,
        scalars: &Scalars,
        inputs: &[FpVar<Fr>],
    ) -> Result<edwards::PointVar, SynthesisError> {
        let (name, c) = match self.statement {
            Statement::Sm => (
                "C == v G + r H, fixed-base windows",
                Some(edwards::PointVar {
                    x: inputs[0].clone(),
                    y: inputs[1].clone(),
                }),
            ),
            Statement::Rsm => ("C = v G + r H, fixed-base windows", None),
        };
        let variant = self.variant;
        let comm = self.part(name, || {
            let t = tables();
            let g = match variant {
                Variant::Sound => &t.g_sound,
                Variant::AsPublished => &t.g_as_published,
            };
            let g_terms = edwards::fixed_base_terms(&scalars.v_bits, g)?;
            let h_terms = edwards::fixed_base_terms(&scalars.r_bits, &t.h)?;
            edwards::sum(&[g_terms, h_terms].concat(), c.as_ref())
        })?;
        if self.statement == Statement::Rsm {
            self.part("public v == its bits", || {
                scalars.v.enforce_equal(&inputs[0])
            })?;
        }
        Ok(comm)
    }

    /// `leaf Poseidon(0, v)` (SM) or `leaf Poseidon(C.x, C.y)` (RSM).
    fn poseidon_leaf(
        &mut self,
        v: &FpVar<Fr>,
        comm: &edwards::PointVar,
    ) -> Result<FpVar<Fr>, SynthesisError> {
        match self.statement {
            Statement::Sm => self.part("leaf Poseidon(0, v)", || {
                poseidon::hash2(&FpVar::Constant(Fr::from(0u8)), v)
            }),
            Statement::Rsm => self.part("leaf Poseidon(C.x, C.y)", || {
                poseidon::hash2(&comm.x, &comm.y)
            }),
        }
    }

    /// `Merkle path: bits, selections, Poseidons`: the leaf folds to the public root.
    fn poseidon_path(&mut self, leaf: FpVar<Fr>, root: &FpVar<Fr>) -> Result<(), SynthesisError> {
        let (cs, witness, depth) = (self.cs.clone(), self.witness, self.depth);
        self.part("Merkle path: bits, selections, Poseidons", || {
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
                .map(|k| direction(&cs, witness, k))
                .collect::<Result<Vec<_>, _>>()?;
            merkle::fold(leaf, &siblings, &bits)?.enforce_equal(root)
        })
    }

    /// `leaf SHA256(be32(0) || be32(v))` (SM), or `C.x, C.y: 254 bits, canonical` and
    /// `leaf SHA256(be32(C.x) || be32(C.y))` (RSM).
    fn sha256_leaf(
        &mut self,
        v_bits: &[Boolean<Fr>],
        comm: &edwards::PointVar,
    ) -> Result<Vec<Word>, SynthesisError> {
        if self.statement == Statement::Sm {
            return self.part("leaf SHA256(be32(0) || be32(v))", || {
                let zero = (0..8).map(|_| Word::constant(0));
                let message: Vec<Word> = zero
                    .chain(sha256::words_of_bits(&fp_bits(v_bits)))
                    .collect();
                sha256::hash64(&message)
            });
        }
        let cs = self.cs.clone();
        let coords = self.part("C.x, C.y: 254 bits, canonical", || {
            [&comm.x, &comm.y]
                .into_iter()
                .map(|coord| {
                    let bits = coord.value().ok().map(|x| bits_le(&x, scalar::SCALAR_BITS));
                    let (bits, packed) = scalar::canonical_bits(cs.clone(), bits.as_deref())?;
                    packed.enforce_equal(coord)?;
                    Ok(sha256::words_of_bits(&fp_bits(&bits)))
                })
                .collect::<Result<Vec<_>, SynthesisError>>()
        })?;
        self.part("leaf SHA256(be32(C.x) || be32(C.y))", || {
            sha256::hash64(&coords.concat())
        })
    }

    /// `Merkle path: digests, bits, selections, SHA-256s`: the leaf folds to the public root's
    /// 8 words.
    fn sha256_path(&mut self, leaf: Vec<Word>, root: &[FpVar<Fr>]) -> Result<(), SynthesisError> {
        let (cs, witness, depth) = (self.cs.clone(), self.witness, self.depth);
        self.part("Merkle path: digests, bits, selections, SHA-256s", || {
            let mut node = leaf;
            for k in 0..depth {
                let words = witness.map(|w| match &w.siblings[k] {
                    Node::Digest(d) => sha256::words_of(d),
                    Node::Field(_) => unreachable!("checked above"),
                });
                let sibling = (0..8)
                    .map(|j| Word::witness(cs.clone(), words.map(|w| w[j])))
                    .collect::<Result<Vec<_>, _>>()?;
                let bit = FpVar::from(direction(&cs, witness, k)?);
                node = sha256::hash64(&ordered(&node, &sibling, &bit).concat())?;
            }
            for (word, input) in node.iter().zip(root) {
                word.packed().enforce_equal(input)?;
            }
            Ok(())
        })
    }
}

/// The direction bit of level `k` (the sibling is on the right).
fn direction(
    cs: &ConstraintSystemRef<Fr>,
    witness: Option<&Witness>,
    k: usize,
) -> Result<Boolean<Fr>, SynthesisError> {
    Boolean::new_witness(cs.clone(), value(witness.map(|w| &w.right[k])))
}

/// (left, right) of a tree level: per bit, left = sibling + bit (node - sibling) and
/// right = node + sibling - left.
fn ordered(node: &[Word], sibling: &[Word], bit: &FpVar<Fr>) -> [Vec<Word>; 2] {
    let mut left = Vec::with_capacity(8);
    let mut right = Vec::with_capacity(8);
    for (n, s) in node.iter().zip(sibling) {
        let (l, r): (Vec<_>, Vec<_>) =
            n.0.iter()
                .zip(&s.0)
                .map(|(nb, sb)| {
                    let l = bit * (nb - sb) + sb;
                    let r = nb + sb - &l;
                    (l, r)
                })
                .unzip();
        left.push(Word(l));
        right.push(Word(r));
    }
    [left, right]
}

/// Booleans as the field bits the SHA-256 gadget takes.
fn fp_bits(bits: &[Boolean<Fr>]) -> Vec<FpVar<Fr>> {
    bits.iter().cloned().map(FpVar::from).collect()
}
