//! Updates without the kept tree: the new root from the helper path, and proof updates with and
//! without the committer's hint.

use super::hash::{Digest, MerkleHash};

/// The new nodes of a changed position's path, from the leaf (height 0) up to just below the
/// root: what a proof holder needs to update in O(1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpdateHint {
    /// The changed position.
    pub index: usize,
    /// path[h]: the new node at height h on the path of `index`.
    pub path: Vec<Digest>,
}

/// The new root after position `index` takes `new_value`, from the (current) proof of `index`;
/// and the hint for other proofs. d + 1 hashes. The helper path must be valid for the current
/// root: verify it first if it came from someone else.
pub fn commit_update<H: MerkleHash>(
    hasher: &H,
    index: usize,
    new_value: &[u8],
    proof: &[Digest],
) -> (Digest, UpdateHint) {
    let mut path = Vec::with_capacity(proof.len());
    let mut acc = hasher.leaf(new_value);
    for (h, sib) in proof.iter().enumerate() {
        path.push(acc);
        acc = if (index >> h) & 1 == 0 {
            hasher.node(&acc, sib)
        } else {
            hasher.node(sib, &acc)
        };
    }
    (acc, UpdateHint { index, path })
}

/// Height at which the paths of i ≠ j meet: the highest bit where they differ.
#[inline]
fn meeting_height(i: usize, j: usize) -> usize {
    (usize::BITS - 1 - (i ^ j).leading_zeros()) as usize
}

/// The proof of position `j` after the change described by `hint`: one sibling copied.
pub fn proof_update_with_hint(proof: &mut [Digest], j: usize, hint: &UpdateHint) {
    if j == hint.index {
        return; // a path's own nodes are not in its proof
    }
    let h = meeting_height(j, hint.index);
    proof[h] = hint.path[h];
}

/// The proof of position `j` after position `i` takes `new_value`, given the old proof of `i`:
/// i's new path is recomputed up to the height where it meets j's (at most d hashes).
pub fn proof_update<H: MerkleHash>(
    hasher: &H,
    proof: &mut [Digest],
    j: usize,
    i: usize,
    new_value: &[u8],
    proof_i: &[Digest],
) {
    if i == j {
        return;
    }
    let top = meeting_height(i, j);
    let mut acc = hasher.leaf(new_value);
    for (h, sib) in proof_i.iter().enumerate().take(top) {
        acc = if (i >> h) & 1 == 0 {
            hasher.node(&acc, sib)
        } else {
            hasher.node(sib, &acc)
        };
    }
    proof[top] = acc;
}
