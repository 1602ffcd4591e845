//! A Merkle path as constraints: per level one path bit (1 constraint), one selection (1
//! constraint: `left = sibling + bit * (node - sibling)`, and `right = node + sibling - left`
//! for free), then a single Poseidon of (left, right). Hashing both orders and selecting after,
//! as a ZoKrates conditional does, would double the hashing.

use ark_bn254::Fr;
use ark_r1cs_std::{boolean::Boolean, fields::fp::FpVar};
use ark_relations::r1cs::SynthesisError;

use super::poseidon::hash2;

/// The root implied by `leaf`, the siblings from the leaf up, and the bits `right[k]` (the
/// sibling at level k is on the right).
pub fn fold(
    leaf: FpVar<Fr>,
    siblings: &[FpVar<Fr>],
    right: &[Boolean<Fr>],
) -> Result<FpVar<Fr>, SynthesisError> {
    assert_eq!(siblings.len(), right.len(), "one direction bit per sibling");
    let mut node = leaf;
    for (sib, bit) in siblings.iter().zip(right) {
        let left = FpVar::from(bit.clone()) * (&node - sib) + sib;
        let right = &node + sib - &left;
        node = hash2(&left, &right)?;
    }
    Ok(node)
}
