//! Random instances built natively, as the driver builds them in JS (independent set elements
//! uniform in [0, L), each RSM element with its own randomness, a random proven index, the
//! variant's padding leaf): for the tests and for measuring the circuit without the driver.

use ark_bn254::Fr;
use rand::Rng;

use crate::primitives::babyjubjub::{pedersen_h, random_below_l, Point};
use crate::primitives::merkle::{
    pad_digest, pad_field, rsm_leaf, rsm_leaf_sha, sha_node, sm_leaf, sm_leaf_sha, Tree,
};
use crate::statement::{Assignment, Node, Public, Statement, TreeHash, Variant, Witness};

/// A random instance of one statement and the honest assignment that proves it.
pub struct Sample {
    /// SM or RSM.
    pub statement: Statement,
    /// The tree's hash.
    pub hash: TreeHash,
    /// The tree's depth.
    pub depth: usize,
    /// The public inputs and the honest witness.
    pub assignment: Assignment,
    /// The proven element's value and randomness (the witness holds their bits).
    pub v: Fr,
    /// See `v`.
    pub r: Fr,
}

/// The Pedersen commitment `v G + r H` to `v` under randomness `r`.
pub fn commit(v: &Fr, r: &Fr) -> Point {
    Point::generator().mul(v).add(&pedersen_h().mul(r))
}

/// The tree over `leaves` padded with `pad`, and the path of position `index` (a padding
/// position too), as (depth, root, siblings, right).
pub fn tree_of(leaves: Vec<Node>, pad: Node, index: usize) -> (usize, Node, Vec<Node>, Vec<bool>) {
    let tree = Tree::with_hash(&leaves, pad, |a, b| match (a, b) {
        (Node::Field(x), Node::Field(y)) => Node::Field(crate::primitives::poseidon::hash2(*x, *y)),
        (Node::Digest(x), Node::Digest(y)) => Node::Digest(sha_node(x, y)),
        _ => unreachable!("one kind of node per tree"),
    });
    let path = tree.path(index);
    (tree.depth(), tree.root(), path.siblings, path.right)
}

/// The leaf of a set element (SM) or of a commitment (RSM).
pub fn leaf(statement: Statement, hash: TreeHash, v: &Fr, c: &Point) -> Node {
    match (statement, hash) {
        (Statement::Sm, TreeHash::Poseidon) => Node::Field(sm_leaf(v)),
        (Statement::Rsm, TreeHash::Poseidon) => Node::Field(rsm_leaf(c)),
        (Statement::Sm, TreeHash::Sha256) => Node::Digest(sm_leaf_sha(v)),
        (Statement::Rsm, TreeHash::Sha256) => Node::Digest(rsm_leaf_sha(c)),
    }
}

/// The padding leaf: in the sound variant a hashed constant nobody can open; as published, the
/// leaf of v = 0 (SM) or of the identity (RSM), which anybody opens.
pub fn pad(statement: Statement, hash: TreeHash, variant: Variant) -> Node {
    match (variant, hash) {
        (Variant::Sound, TreeHash::Poseidon) => Node::Field(pad_field()),
        (Variant::Sound, TreeHash::Sha256) => Node::Digest(pad_digest()),
        (Variant::AsPublished, _) => leaf(statement, hash, &Fr::from(0u8), &Point::identity()),
    }
}

/// An instance over a set of `n >= 2` elements, values and randomness uniform in [0, L).
pub fn sample<R: Rng>(
    statement: Statement,
    hash: TreeHash,
    variant: Variant,
    n: usize,
    rng: &mut R,
) -> Sample {
    let values: Vec<Fr> = (0..n).map(|_| random_below_l(rng)).collect();
    let rands: Vec<Fr> = (0..n).map(|_| random_below_l(rng)).collect();
    let index = rng.gen_range(0..n);
    let leaves = values
        .iter()
        .zip(&rands)
        .map(|(v, r)| match statement {
            // SM's set is plaintexts: only the proven element is committed.
            Statement::Sm => leaf(statement, hash, v, &Point::identity()),
            Statement::Rsm => leaf(statement, hash, v, &commit(v, r)),
        })
        .collect();
    let (depth, root, siblings, right) = tree_of(leaves, pad(statement, hash, variant), index);
    let (v, r) = (values[index], rands[index]);
    let public = match statement {
        Statement::Sm => Public::Sm {
            c: commit(&v, &r),
            root,
        },
        Statement::Rsm => Public::Rsm { v, root },
    };
    Sample {
        statement,
        hash,
        depth,
        assignment: Assignment {
            public,
            witness: Witness::honest(variant, &v, &r, siblings, right),
        },
        v,
        r,
    }
}

/// An instance whose proven element has the given scalar bits (canonical or not) and whose
/// tree and public values agree with them, so that only the encoding can be at fault.
pub fn crafted<R: Rng>(
    statement: Statement,
    hash: TreeHash,
    variant: Variant,
    n: usize,
    v_bits: Vec<bool>,
    r_bits: Vec<bool>,
    rng: &mut R,
) -> Assignment {
    use ark_ff::{BigInteger, PrimeField};
    let c = Point::generator()
        .mul_bits(&v_bits)
        .add(&pedersen_h().mul_bits(&r_bits));
    // The field element the bits pack to (reduced mod p, as the circuit's packing is).
    let v = Fr::from_le_bytes_mod_order(
        &<Fr as PrimeField>::BigInt::from_bits_le(&v_bits).to_bytes_le(),
    );
    let index = rng.gen_range(0..n);
    let mut leaves: Vec<Node> = (0..n)
        .map(|_| {
            leaf(
                Statement::Sm,
                hash,
                &random_below_l(rng),
                &Point::identity(),
            )
        })
        .collect();
    leaves[index] = leaf(statement, hash, &v, &c);
    let (_, root, siblings, right) = tree_of(leaves, pad(statement, hash, variant), index);
    Assignment {
        public: match statement {
            Statement::Sm => Public::Sm { c, root },
            Statement::Rsm => Public::Rsm { v, root },
        },
        witness: Witness {
            v_bits,
            r_bits,
            siblings,
            right,
        },
    }
}
