//! Native computations, outside any circuit: Poseidon, Baby Jubjub, the Merkle tree.
pub mod babyjubjub;
pub mod merkle;
pub mod poseidon;

/// A field element from its decimal digits, as published test vectors give it.
#[cfg(test)]
fn fr(digits: &str) -> ark_bn254::Fr {
    digits.parse().expect("a decimal field element")
}
