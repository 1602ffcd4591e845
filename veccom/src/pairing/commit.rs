//! Commit: C = Σ_i m_i·g1^(a^i), one fixed-base MSM of size n.

use rayon::prelude::*;

use super::params::ProverParams;
use crate::curve::g1::G1_COMPRESSED_BYTES;
use crate::curve::hash_to_scalar::hash_value;
use crate::curve::{G1Affine, Scalar};
use crate::Error;

g1_value!(
    /// A commitment to a vector: one G1 point.
    Commitment,
    "commitment"
);

/// The scalars m_i = H(value_i), on the current rayon pool.
pub fn hash_values<V: AsRef<[u8]> + Sync>(values: &[V]) -> Vec<Scalar> {
    if rayon::current_num_threads() > 1 && values.len() >= 256 {
        values.par_iter().map(|v| hash_value(v.as_ref())).collect()
    } else {
        values.iter().map(|v| hash_value(v.as_ref())).collect()
    }
}

/// Commits to `values` (exactly n of them).
pub fn commit<V: AsRef<[u8]> + Sync>(pp: &ProverParams, values: &[V]) -> Result<Commitment, Error> {
    check_len(pp.n(), values.len())?;
    commit_scalars(pp, &hash_values(values))
}

/// Commits to already hashed values.
pub fn commit_scalars(pp: &ProverParams, m: &[Scalar]) -> Result<Commitment, Error> {
    check_len(pp.n(), m.len())?;
    // Positions 1..=n are parameters k = 1..=n, slots 0..n.
    let slots: Vec<u32> = (0..pp.n() as u32).collect();
    Ok(Commitment(pp.table().msm(&slots, m).to_affine()))
}

pub(crate) fn check_len(n: usize, got: usize) -> Result<(), Error> {
    if got == n {
        Ok(())
    } else {
        Err(Error::WrongLength { expected: n, got })
    }
}
