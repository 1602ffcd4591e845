//! The Merkle vector commitment: a binary hash tree over the n values, the root as commitment
//! (32 bytes) and the ⌈log2 n⌉ sibling hashes of a leaf's path as its proof.
//!
//! ## Hashing ([`hash`])
//!
//! Leaves and inner nodes are hashed under different domain tags that also name n, so a leaf can
//! never pass for a node, nor a tree for a tree of another length:
//!
//! * SHA-256: leaf(v) = SHA-256(T_leaf ‖ v) with T_leaf a 64-byte block naming the scheme, "leaf"
//!   and n; node(l, r) = the SHA-256 compression function applied to the 64-byte block l ‖ r from
//!   the chaining value H_node = compress(IV, T_node). Both tag blocks are absorbed once per n, so
//!   a leaf of up to 55 bytes costs one compression and a node exactly one: a tree of n leaves
//!   costs 2n − 1 compressions (plus one per level whose last node has an empty right sibling).
//!   The node function is the compression function with a fixed chaining value, whose collision
//!   resistance is what Merkle–Damgård SHA-256 itself rests on.
//! * BLAKE3: leaf(v) = BLAKE3_keyed(K_leaf, v), node(l, r) = BLAKE3_keyed(K_node, l ‖ r) with keys
//!   derived by BLAKE3's derive_key from the scheme's context string and n. A 64-byte input is one
//!   BLAKE3 compression.
//!
//! ## The tree ([`tree`])
//!
//! n leaves are padded to 2^d, d = ⌈log2 n⌉, with empty leaves Z_0 = 0^32 (no value hashes to it
//! but with probability 2^-256); Z_(h+1) = node(Z_h, Z_h) is precomputed, so only nodes with at
//! least one real leaf below are ever computed, and the kept tree stores only those.
//!
//! ## Updates ([`update`])
//!
//! Changing value i changes exactly the d + 1 nodes on i's path. With the old proof of i as the
//! helper path the new root costs d + 1 hashes ([`update::commit_update`]), and the new path is an
//! [`update::UpdateHint`]: the proof of any j ≠ i changes in one sibling only, at the height ℓ
//! where the paths of i and j meet (the highest set bit of i XOR j), and that sibling is the new
//! node of i's path at height ℓ: copying it is the update with helper
//! ([`update::proof_update_with_hint`]); without the hint, the holder of j recomputes i's path up
//! to height ℓ from the new value and the old proof of i ([`update::proof_update`]).

pub mod hash;
pub mod tree;
pub mod update;
pub mod verify;

pub use hash::{Blake3Hasher, Digest, MerkleHash, Sha256Hasher};
pub use tree::{depth, MerkleTree};
pub use update::{commit_update, proof_update, proof_update_with_hint, UpdateHint};
pub use verify::verify;
