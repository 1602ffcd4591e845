//! The suite's Merkle trees, natively: leaves padded to `2^depth` with a pad leaf, an inner node
//! `H(left, right)`, and paths from the leaf up where `right[k]` means the sibling at level k is
//! on the right (the parent is `H(node, sibling)`). H is Poseidon, or SHA-256 of the two 32-byte
//! digests (the SHA-256 variant, whose leaves hash the 32-byte big-endian encodings).

use ark_bn254::Fr;
use ark_ff::{BigInteger, PrimeField};
use sha2::{Digest, Sha256};

use super::babyjubjub::Point;
use super::poseidon::hash2;

/// SM leaf of a set element v: `Poseidon(0, v)`.
pub fn sm_leaf(v: &Fr) -> Fr {
    hash2(Fr::from(0u8), *v)
}

/// RSM leaf of a commitment C: `Poseidon(C.x, C.y)`.
pub fn rsm_leaf(c: &Point) -> Fr {
    hash2(c.x, c.y)
}

/// The string whose SHA-256 is the sound variant's padding leaf (the suite's JS code uses the
/// same).
pub const PAD_DOMAIN: &str = "traceable-mixnets/zksnark-sm-rsm/padding-leaf";

/// The sound variant's padding leaf of a SHA-256 tree: `SHA256(PAD_DOMAIN)`. A leaf is the
/// SHA-256 of a 64-byte message and this is the SHA-256 of a 45-byte one, so opening it would
/// take a SHA-256 collision.
pub fn pad_digest() -> [u8; 32] {
    Sha256::digest(PAD_DOMAIN.as_bytes()).into()
}

/// The sound variant's padding leaf of a Poseidon tree: `SHA256(PAD_DOMAIN)` read big-endian
/// mod p. Every leaf is a Poseidon output, so opening it would take a Poseidon preimage of a
/// value nobody chose.
pub fn pad_field() -> Fr {
    Fr::from_be_bytes_mod_order(&pad_digest())
}

/// SHA-256 of two 32-byte blocks.
pub fn sha_node(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    Sha256::new()
        .chain_update(left)
        .chain_update(right)
        .finalize()
        .into()
}

/// The 32-byte big-endian encoding of a field element.
pub fn be32(x: &Fr) -> [u8; 32] {
    let bytes = x.into_bigint().to_bytes_be();
    let mut out = [0u8; 32];
    out[32 - bytes.len()..].copy_from_slice(&bytes);
    out
}

/// SHA-256 variant's SM leaf: `SHA256(be32(0) || be32(v))`.
pub fn sm_leaf_sha(v: &Fr) -> [u8; 32] {
    sha_node(&[0u8; 32], &be32(v))
}

/// SHA-256 variant's RSM leaf: `SHA256(be32(C.x) || be32(C.y))`.
pub fn rsm_leaf_sha(c: &Point) -> [u8; 32] {
    sha_node(&be32(&c.x), &be32(&c.y))
}

/// A leaf's authentication path, from the leaf up.
#[derive(Clone, Debug, PartialEq)]
pub struct Path<N = Fr> {
    /// The sibling at each level.
    pub siblings: Vec<N>,
    /// `right[k]`: the sibling at level k is the right child (the path's node the left).
    pub right: Vec<bool>,
}

/// The root that `leaf` and `path` imply.
pub fn fold(leaf: Fr, path: &Path) -> Fr {
    path.siblings
        .iter()
        .zip(&path.right)
        .fold(leaf, |node, (sib, &right)| {
            if right {
                hash2(node, *sib)
            } else {
                hash2(*sib, node)
            }
        })
}

/// A whole tree, for tests and small instances.
pub struct Tree<N = Fr> {
    levels: Vec<Vec<N>>,
}

impl Tree<Fr> {
    /// A Poseidon tree.
    pub fn new(leaves: &[Fr], pad: Fr) -> Self {
        Tree::with_hash(leaves, pad, |a, b| hash2(*a, *b))
    }
}

impl<N: Clone> Tree<N> {
    /// The tree over `leaves` (at least two), padded with `pad` to the next power of two, each
    /// parent `node(left, right)`.
    pub fn with_hash(leaves: &[N], pad: N, node: impl Fn(&N, &N) -> N) -> Self {
        assert!(leaves.len() >= 2, "a tree of depth >= 1 needs two leaves");
        let depth = (usize::BITS - (leaves.len() - 1).leading_zeros()) as usize;
        let mut level: Vec<N> = leaves.to_vec();
        level.resize(1 << depth, pad);
        let mut levels = vec![level];
        for _ in 0..depth {
            let below = levels.last().unwrap();
            let above = below.chunks(2).map(|p| node(&p[0], &p[1])).collect();
            levels.push(above);
        }
        Tree { levels }
    }

    /// Levels above the leaves: the length of every path.
    pub fn depth(&self) -> usize {
        self.levels.len() - 1
    }

    /// The root node.
    pub fn root(&self) -> N {
        self.levels[self.depth()][0].clone()
    }

    /// The path of leaf `index` (a padding position too).
    pub fn path(&self, index: usize) -> Path<N> {
        let mut i = index;
        let mut path = Path {
            siblings: Vec::new(),
            right: Vec::new(),
        };
        for level in &self.levels[..self.depth()] {
            path.siblings.push(level[i ^ 1].clone());
            path.right.push(i & 1 == 0);
            i >>= 1;
        }
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_folds_to_the_root() {
        let leaves: Vec<Fr> = (1..=5u64).map(|v| sm_leaf(&Fr::from(v))).collect();
        let tree = Tree::new(&leaves, sm_leaf(&Fr::from(0u8)));
        assert_eq!(tree.depth(), 3);
        for (i, leaf) in leaves.iter().enumerate() {
            let path = tree.path(i);
            assert_eq!(fold(*leaf, &path), tree.root());
            let mut flipped = path.clone();
            flipped.right[0] = !flipped.right[0];
            assert_ne!(fold(*leaf, &flipped), tree.root());
        }
    }
}
