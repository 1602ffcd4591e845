//! Updates after value i changes from m to m' (δ = m' − m): C' = C + δ·g1^(a^i) and, for a
//! proof of position j ≠ i, π_j' = π_j + δ·g1^(a^(n+1−j+i)). One fixed-base multiplication each.

use super::commit::Commitment;
use super::params::ProverParams;
use super::prove::{check_index, Proof};
use crate::curve::hash_to_scalar::hash_value;
use crate::curve::Scalar;
use crate::Error;

/// The commitment after position `index` (0-based) changes from `old` to `new`.
pub fn commit_update(
    pp: &ProverParams,
    c: &Commitment,
    index: usize,
    old: &[u8],
    new: &[u8],
) -> Result<Commitment, Error> {
    commit_update_scalars(pp, c, index, &hash_value(old), &hash_value(new))
}

/// [`commit_update`] for hashed values.
pub fn commit_update_scalars(
    pp: &ProverParams,
    c: &Commitment,
    index: usize,
    old: &Scalar,
    new: &Scalar,
) -> Result<Commitment, Error> {
    check_index(pp.n(), index)?;
    let delta = new.sub(old);
    let shift = pp.table().mul(pp.slot(index + 1) as usize, &delta);
    Ok(Commitment(c.0.to_projective().add(&shift).to_affine()))
}

/// The proof of position `proof_index` after position `changed` (both 0-based) changes from
/// `old` to `new`.
pub fn proof_update(
    pp: &ProverParams,
    proof: &Proof,
    proof_index: usize,
    changed: usize,
    old: &[u8],
    new: &[u8],
) -> Result<Proof, Error> {
    proof_update_scalars(
        pp,
        proof,
        proof_index,
        changed,
        &hash_value(old),
        &hash_value(new),
    )
}

/// [`proof_update`] for hashed values.
pub fn proof_update_scalars(
    pp: &ProverParams,
    proof: &Proof,
    proof_index: usize,
    changed: usize,
    old: &Scalar,
    new: &Scalar,
) -> Result<Proof, Error> {
    let n = pp.n();
    check_index(n, proof_index)?;
    check_index(n, changed)?;
    if proof_index == changed {
        // π_i does not involve m_i.
        return Ok(*proof);
    }
    let (j, i) = (proof_index + 1, changed + 1);
    let delta = new.sub(old);
    let shift = pp.table().mul(pp.slot(n + 1 - j + i) as usize, &delta);
    Ok(Proof(proof.0.to_projective().add(&shift).to_affine()))
}
