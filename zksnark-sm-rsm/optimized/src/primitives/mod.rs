//! Native computations, outside any circuit: Poseidon, Baby Jubjub, the Merkle tree.
pub mod babyjubjub;
pub mod merkle;
pub mod poseidon;
