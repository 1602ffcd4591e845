//! The zero-knowledge proofs, each made non-interactive by a Fiat–Shamir transcript that hashes
//! its whole statement.

use ark_ec::pairing::Pairing;

use crate::primitives::group::Generators;
use crate::primitives::transcript::Transcript;

pub mod dpk_bb;
pub mod dpk_bbsplus;
pub mod elgamal_shuffle;
pub mod paillier_shuffle;
pub mod perm;
pub mod plaintext;
pub mod sigma;

/// The commitments of a distributed proof of knowledge (DPK_BB, DPK_BBS+): each mixer makes a
/// factor per entry, and the proof's commitment is their product (the first mixer's factor,
/// the others multiplied in).
pub trait CommitmentFactors {
    /// Number of entries.
    fn entries(&self) -> usize;
    /// Multiplies `other`'s factors in, entry by entry: refused if they cover other entries or
    /// the store fails.
    fn add(&mut self, other: &Self) -> crate::Result<()>;
}

/// Multiplies a mixer's `factor` into the running product `acc` (the first factor starts it).
pub(crate) fn multiply_into<T: CommitmentFactors>(
    acc: &mut Option<T>,
    factor: T,
) -> crate::Result<()> {
    match acc {
        Some(acc) => acc.add(&factor),
        None => {
            *acc = Some(factor);
            Ok(())
        }
    }
}

/// Refuses factors that do not cover one entry each of `a`'s (in `what`).
pub(crate) fn same_entries(what: &str, a: usize, b: usize) -> crate::Result<()> {
    if a == b {
        return Ok(());
    }
    Err(crate::Error::Input(format!(
        "{what}: commitment factors of {b} entries multiplied into {a}"
    )))
}

/// `acc_i ·= other_i` for every entry (arkworks writes the groups additively).
pub(crate) fn multiply_entries<T: for<'a> std::ops::AddAssign<&'a T>>(acc: &mut [T], other: &[T]) {
    for (a, b) in acc.iter_mut().zip(other) {
        *a += b;
    }
}

/// The start of an entry's challenge in a distributed proof of knowledge: the proof's domain,
/// the generators, the verifier's key y and the entry's index (under `index_label`); the caller
/// appends the entry's statement and commitments.
pub(crate) fn dpk_entry_transcript<E: Pairing>(
    domain: &[u8],
    gens: &Generators<E>,
    y: &E::G2Affine,
    (index_label, index): (&[u8], usize),
) -> Transcript {
    let mut t = Transcript::new(domain);
    gens.append_to(&mut t);
    t.append_ark(b"y", y);
    t.append_bytes(index_label, &(index as u64).to_le_bytes());
    t
}
