//! Commit (build the tree and keep it) and prove (read a path off the kept tree).

use rayon::prelude::*;

use super::hash::{Digest, MerkleHash};
use crate::Error;

/// d = ⌈log2 n⌉, the number of hashes in a proof.
pub fn depth(n: usize) -> usize {
    n.max(1).next_power_of_two().trailing_zeros() as usize
}

/// Below this many nodes a level is hashed on one thread even in a larger pool.
const PARALLEL_LEVEL: usize = 4096;

/// A Merkle tree kept by the committer: every real node of every level, so that proofs are
/// copies and updates rehash one path.
#[derive(Clone, Debug)]
pub struct MerkleTree<H: MerkleHash> {
    hasher: H,
    n: usize,
    /// levels[h][k]: node k at height h (leaves at h = 0); only nodes with a real leaf below.
    levels: Vec<Vec<Digest>>,
    /// empty[h]: the hash of an all-empty subtree of height h.
    empty: Vec<Digest>,
}

/// Z_0 = 0^32, Z_(h+1) = node(Z_h, Z_h), for h ≤ d.
pub fn empty_subtrees<H: MerkleHash>(hasher: &H, d: usize) -> Vec<Digest> {
    let mut z = vec![[0u8; 32]];
    for h in 0..d {
        let next = hasher.node(&z[h], &z[h]);
        z.push(next);
    }
    z
}

impl<H: MerkleHash> MerkleTree<H> {
    /// Builds the tree of `values` with `hasher` (made for this n), on the current rayon pool.
    pub fn commit<V: AsRef<[u8]> + Sync>(hasher: &H, values: &[V]) -> Result<Self, Error> {
        let n = values.len();
        if n == 0 {
            return Err(Error::InvalidParameters(
                "a vector needs at least one value".into(),
            ));
        }
        let d = depth(n);
        let parallel = rayon::current_num_threads() > 1;
        let leaves: Vec<Digest> = if parallel && n >= PARALLEL_LEVEL {
            values.par_iter().map(|v| hasher.leaf(v.as_ref())).collect()
        } else {
            values.iter().map(|v| hasher.leaf(v.as_ref())).collect()
        };
        let empty = empty_subtrees(hasher, d);
        let mut levels = Vec::with_capacity(d + 1);
        levels.push(leaves);
        for h in 0..d {
            let below = &levels[h];
            let pair = |k: usize| {
                let right = below.get(2 * k + 1).unwrap_or(&empty[h]);
                hasher.node(&below[2 * k], right)
            };
            let count = below.len().div_ceil(2);
            let level: Vec<Digest> = if parallel && count >= PARALLEL_LEVEL {
                (0..count).into_par_iter().map(pair).collect()
            } else {
                (0..count).map(pair).collect()
            };
            levels.push(level);
        }
        Ok(MerkleTree {
            hasher: hasher.clone(),
            n,
            levels,
            empty,
        })
    }

    /// The commitment.
    pub fn root(&self) -> Digest {
        self.levels[self.levels.len() - 1][0]
    }

    /// The vector length.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the vector is empty (never: commit refuses that).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The hasher the tree was built with.
    pub fn hasher(&self) -> &H {
        &self.hasher
    }

    /// The proof of position `index`: its path's siblings, from the leaves up.
    pub fn prove(&self, index: usize) -> Result<Vec<Digest>, Error> {
        if index >= self.n {
            return Err(Error::IndexOutOfRange { index, n: self.n });
        }
        let d = self.levels.len() - 1;
        Ok((0..d)
            .map(|h| {
                let sib = (index >> h) ^ 1;
                *self.levels[h].get(sib).unwrap_or(&self.empty[h])
            })
            .collect())
    }

    /// Replaces value `index` and rehashes its path (d + 1 hashes); returns the new root.
    pub fn update(&mut self, index: usize, value: &[u8]) -> Result<Digest, Error> {
        if index >= self.n {
            return Err(Error::IndexOutOfRange { index, n: self.n });
        }
        self.levels[0][index] = self.hasher.leaf(value);
        let d = self.levels.len() - 1;
        let mut k = index;
        for h in 0..d {
            let parent = k / 2;
            let left = self.levels[h][2 * parent];
            let right = *self.levels[h].get(2 * parent + 1).unwrap_or(&self.empty[h]);
            self.levels[h + 1][parent] = self.hasher.node(&left, &right);
            k = parent;
        }
        Ok(self.root())
    }

    /// Number of stored nodes (the tree's memory is 32 bytes each).
    pub fn stored_nodes(&self) -> usize {
        self.levels.iter().map(Vec::len).sum()
    }
}
