//! Prove position i: π_i = Σ_(j≠i) m_j·g1^(a^(n+1−i+j)), one fixed-base MSM of size n−1.

use super::commit::{check_len, hash_values};
use super::params::ProverParams;
use crate::curve::g1::G1_COMPRESSED_BYTES;
use crate::curve::{G1Affine, Scalar};
use crate::Error;

g1_value!(
    /// A proof of one position (or, from [`super::batch`], of several): one G1 point.
    Proof,
    "proof"
);

pub(crate) fn check_index(n: usize, index: usize) -> Result<(), Error> {
    if index < n {
        Ok(())
    } else {
        Err(Error::IndexOutOfRange { index, n })
    }
}

/// The proof for position `index` (0-based) of `values`.
pub fn prove<V: AsRef<[u8]> + Sync>(
    pp: &ProverParams,
    values: &[V],
    index: usize,
) -> Result<Proof, Error> {
    check_len(pp.n(), values.len())?;
    prove_scalars(pp, &hash_values(values), index)
}

/// The proof for position `index` (0-based) of already hashed values.
pub fn prove_scalars(pp: &ProverParams, m: &[Scalar], index: usize) -> Result<Proof, Error> {
    let n = pp.n();
    check_len(n, m.len())?;
    check_index(n, index)?;
    let i = index + 1;
    let mut slots = Vec::with_capacity(n - 1);
    let mut scalars = Vec::with_capacity(n - 1);
    for (j0, mj) in m.iter().enumerate() {
        let j = j0 + 1;
        if j != i {
            slots.push(pp.slot(n + 1 - i + j));
            scalars.push(*mj);
        }
    }
    Ok(Proof(pp.table().msm(&slots, &scalars).to_affine()))
}
