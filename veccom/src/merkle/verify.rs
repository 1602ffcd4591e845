//! Verify: hash the value, fold the d siblings in, compare with the root.

use super::hash::{Digest, MerkleHash};
use super::tree::depth;

/// Folds `value`'s leaf at `index` up through `siblings`: the root its path leads to.
pub fn root_from_path<H: MerkleHash>(
    hasher: &H,
    index: usize,
    leaf: Digest,
    siblings: &[Digest],
) -> Digest {
    let mut acc = leaf;
    for (h, sib) in siblings.iter().enumerate() {
        acc = if (index >> h) & 1 == 0 {
            hasher.node(&acc, sib)
        } else {
            hasher.node(sib, &acc)
        };
    }
    acc
}

/// Whether `proof` shows that position `index` of the length-`n` vector committed in `root`
/// holds `value`. `hasher` must be the one for length n.
pub fn verify<H: MerkleHash>(
    hasher: &H,
    root: &Digest,
    n: usize,
    index: usize,
    value: &[u8],
    proof: &[Digest],
) -> bool {
    if index >= n || proof.len() != depth(n) {
        return false;
    }
    root_from_path(hasher, index, hasher.leaf(value), proof) == *root
}
