//! The constraint-minimal circuit of the suite's zkSNARK baseline: set membership (SM) and
//! reverse set membership (RSM) of a Pedersen commitment on Baby Jubjub, over a Poseidon Merkle
//! tree, for the same set, root, commitment and generators as the ZoKrates programs of
//! `zksnark-sm-rsm`, exported as circom `.r1cs`/`.wtns` for the suite's Groth16 provers.
//!
//! Layers:
//! * [`primitives`]: the native computations (Poseidon with generated parameters, Baby Jubjub,
//!   the Merkle tree);
//! * [`gadgets`]: the same as constraints, each for the fewest constraints;
//! * [`statement`]: SM and RSM from the gadgets, with their public inputs;
//! * [`export`]: synthesis into the circom formats; [`inputs`]: the driver's input file.

#![warn(missing_docs)]

pub mod export;
pub mod gadgets;
pub mod inputs;
pub mod primitives;
pub mod sample;
pub mod statement;
