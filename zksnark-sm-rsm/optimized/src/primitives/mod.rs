//! Native computations, outside any circuit: Poseidon, Baby Jubjub, the Merkle tree.
pub mod poseidon;
