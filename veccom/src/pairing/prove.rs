//! Prove position i: π_i = Σ_(j≠i) m_j·g1^(a^(n+1−i+j)), one fixed-base MSM of size n−1.

use super::commit::{check_len, hash_values};
use super::params::ProverParams;
use crate::curve::g1::G1_COMPRESSED_BYTES;
use crate::curve::{G1Affine, Scalar};
use crate::Error;

/// A proof of one position (or, from [`super::batch`], of several): one G1 point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof(pub(crate) G1Affine);

impl Proof {
    /// Bytes of an encoded proof.
    pub const BYTES: usize = G1_COMPRESSED_BYTES;

    /// The 48-byte compressed encoding.
    pub fn to_bytes(&self) -> [u8; G1_COMPRESSED_BYTES] {
        self.0.to_bytes()
    }

    /// Decodes a proof, rejecting bytes that are not a point of G1.
    pub fn from_bytes(bytes: &[u8; G1_COMPRESSED_BYTES]) -> Result<Proof, Error> {
        G1Affine::from_bytes(bytes)
            .map(Proof)
            .ok_or(Error::Malformed("proof is not a point of G1"))
    }

    /// The point.
    pub fn point(&self) -> G1Affine {
        self.0
    }
}

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
