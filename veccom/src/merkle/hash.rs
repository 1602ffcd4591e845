//! The two hash columns of the Merkle scheme, behind one trait.

use sha2::digest::generic_array::GenericArray;
use sha2::{compress256, Digest as _, Sha256};

/// A 32-byte hash value (a root, a node, a leaf).
pub type Digest = [u8; 32];

/// Leaf and node hashing of a Merkle tree for vectors of one length.
pub trait MerkleHash: Clone + Send + Sync {
    /// The column's name in reports ("sha256", "blake3").
    const NAME: &'static str;

    /// The hasher for vectors of length `n` (its domain tags name n).
    fn for_length(n: usize) -> Self;

    /// The hash of one value.
    fn leaf(&self, value: &[u8]) -> Digest;

    /// The hash of two children.
    fn node(&self, left: &Digest, right: &Digest) -> Digest;
}

/// SHA-256's initial chaining value (FIPS 180-4, section 5.3.3).
const SHA256_IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// The 64-byte tag block: the label, then n as a big-endian u64, then zeros.
pub fn tag_block(label: &[u8], n: usize) -> [u8; 64] {
    assert!(label.len() <= 56, "tag label too long");
    let mut b = [0u8; 64];
    b[..label.len()].copy_from_slice(label);
    b[label.len()..label.len() + 8].copy_from_slice(&(n as u64).to_be_bytes());
    b
}

/// Label of the SHA-256 leaf tag.
pub const SHA256_LEAF_LABEL: &[u8] = b"veccom/merkle-sha256/leaf";
/// Label of the SHA-256 node tag.
pub const SHA256_NODE_LABEL: &[u8] = b"veccom/merkle-sha256/node";
/// Context of the BLAKE3 leaf key.
pub const BLAKE3_LEAF_CONTEXT: &str = "veccom merkle-blake3 2024 leaf key";
/// Context of the BLAKE3 node key.
pub const BLAKE3_NODE_CONTEXT: &str = "veccom merkle-blake3 2024 node key";

#[inline]
fn compress(state: &mut [u32; 8], block: &[u8; 64]) {
    compress256(state, std::slice::from_ref(GenericArray::from_slice(block)));
}

#[inline]
fn state_bytes(state: &[u32; 8]) -> Digest {
    let mut out = [0u8; 32];
    for (o, w) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

/// The SHA-256 column (the compression function through `sha2`, which uses the SHA extensions
/// of x86-64 and ARMv8 when the CPU has them).
#[derive(Clone, Debug)]
pub struct Sha256Hasher {
    leaf_state: [u32; 8],
    node_state: [u32; 8],
    leaf_prefix: Sha256,
}

impl MerkleHash for Sha256Hasher {
    const NAME: &'static str = "sha256";

    fn for_length(n: usize) -> Self {
        let leaf_tag = tag_block(SHA256_LEAF_LABEL, n);
        let node_tag = tag_block(SHA256_NODE_LABEL, n);
        let mut leaf_state = SHA256_IV;
        compress(&mut leaf_state, &leaf_tag);
        let mut node_state = SHA256_IV;
        compress(&mut node_state, &node_tag);
        let mut leaf_prefix = Sha256::new();
        leaf_prefix.update(leaf_tag);
        Sha256Hasher {
            leaf_state,
            node_state,
            leaf_prefix,
        }
    }

    #[inline]
    fn leaf(&self, value: &[u8]) -> Digest {
        if value.len() <= 55 {
            // SHA-256(T_leaf ‖ v): after the tag block, v and its padding fit one block.
            let mut block = [0u8; 64];
            block[..value.len()].copy_from_slice(value);
            block[value.len()] = 0x80;
            let bits = (64 + value.len() as u64) * 8;
            block[56..].copy_from_slice(&bits.to_be_bytes());
            let mut s = self.leaf_state;
            compress(&mut s, &block);
            state_bytes(&s)
        } else {
            self.leaf_prefix
                .clone()
                .chain_update(value)
                .finalize()
                .into()
        }
    }

    #[inline]
    fn node(&self, left: &Digest, right: &Digest) -> Digest {
        let mut block = [0u8; 64];
        block[..32].copy_from_slice(left);
        block[32..].copy_from_slice(right);
        let mut s = self.node_state;
        compress(&mut s, &block);
        state_bytes(&s)
    }
}

/// The BLAKE3 column.
#[derive(Clone, Debug)]
pub struct Blake3Hasher {
    leaf_key: [u8; 32],
    node_key: [u8; 32],
}

impl MerkleHash for Blake3Hasher {
    const NAME: &'static str = "blake3";

    fn for_length(n: usize) -> Self {
        let nb = (n as u64).to_be_bytes();
        Blake3Hasher {
            leaf_key: blake3::derive_key(BLAKE3_LEAF_CONTEXT, &nb),
            node_key: blake3::derive_key(BLAKE3_NODE_CONTEXT, &nb),
        }
    }

    #[inline]
    fn leaf(&self, value: &[u8]) -> Digest {
        *blake3::keyed_hash(&self.leaf_key, value).as_bytes()
    }

    #[inline]
    fn node(&self, left: &Digest, right: &Digest) -> Digest {
        let mut block = [0u8; 64];
        block[..32].copy_from_slice(left);
        block[32..].copy_from_slice(right);
        *blake3::keyed_hash(&self.node_key, &block).as_bytes()
    }
}

/// One SHA-256 compression of a fixed block: the unit of the lower bound.
pub fn sha256_compression(state: &mut [u32; 8], block: &[u8; 64]) {
    compress(state, block);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_leaves_are_sha256_of_tag_and_value() {
        let h = Sha256Hasher::for_length(10);
        for len in [0usize, 1, 32, 55, 56, 64, 200] {
            let v = vec![0x5au8; len];
            let mut msg = tag_block(SHA256_LEAF_LABEL, 10).to_vec();
            msg.extend_from_slice(&v);
            let want: Digest = Sha256::digest(&msg).into();
            assert_eq!(h.leaf(&v), want, "len {len}");
        }
        // Tags name n: the same value is another leaf in a tree of another length.
        assert_ne!(h.leaf(b"x"), Sha256Hasher::for_length(11).leaf(b"x"));
        assert_ne!(h.node(&[1; 32], &[2; 32]), h.node(&[2; 32], &[1; 32]));
        let b = Blake3Hasher::for_length(10);
        assert_ne!(b.leaf(b"x"), Blake3Hasher::for_length(11).leaf(b"x"));
        assert_ne!(b.node(&[0; 32], &[0; 32]), b.leaf(&[0; 64]));
    }
}
