//! The suite's Poseidon Merkle tree, natively: leaves padded to `2^depth` with a pad leaf, an
//! inner node `Poseidon(left, right)`, and paths from the leaf up where `right[k]` means the
//! sibling at level k is on the right (the parent is `Poseidon(node, sibling)`).

use ark_bn254::Fr;

use super::babyjubjub::Point;
use super::poseidon::hash2;

/// SM leaf of a set element v: `Poseidon(0, v)`; the pad is the leaf of v = 0.
pub fn sm_leaf(v: &Fr) -> Fr {
    hash2(Fr::from(0u8), *v)
}

/// RSM leaf of a commitment C: `Poseidon(C.x, C.y)`; the pad is the identity's leaf.
pub fn rsm_leaf(c: &Point) -> Fr {
    hash2(c.x, c.y)
}

#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    pub siblings: Vec<Fr>,
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
pub struct Tree {
    levels: Vec<Vec<Fr>>,
}

impl Tree {
    pub fn new(leaves: &[Fr], pad: Fr) -> Self {
        assert!(leaves.len() >= 2, "a tree of depth >= 1 needs two leaves");
        let depth = (usize::BITS - (leaves.len() - 1).leading_zeros()) as usize;
        let mut level: Vec<Fr> = leaves.to_vec();
        level.resize(1 << depth, pad);
        let mut levels = vec![level];
        for _ in 0..depth {
            let below = levels.last().unwrap();
            let above = below.chunks(2).map(|p| hash2(p[0], p[1])).collect();
            levels.push(above);
        }
        Tree { levels }
    }

    pub fn depth(&self) -> usize {
        self.levels.len() - 1
    }

    pub fn root(&self) -> Fr {
        self.levels[self.depth()][0]
    }

    pub fn path(&self, index: usize) -> Path {
        let mut i = index;
        let mut path = Path {
            siblings: Vec::new(),
            right: Vec::new(),
        };
        for level in &self.levels[..self.depth()] {
            path.siblings.push(level[i ^ 1]);
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
