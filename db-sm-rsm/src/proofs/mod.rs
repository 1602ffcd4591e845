//! The zero-knowledge proofs, each made non-interactive by a Fiat–Shamir transcript that hashes
//! its whole statement.

pub mod dpk_bb;
pub mod dpk_bbsplus;
pub mod elgamal_shuffle;
pub mod paillier_shuffle;
pub mod perm;
pub mod plaintext;
pub mod sigma;

/// The commitments of a distributed proof of knowledge (DPK_BB, DPK_BBS+): each mixer makes a
/// factor per entry, and the proof's commitment is their product.
pub trait CommitmentFactors {
    /// The identity (no factor yet) for `n` entries.
    fn empty(n: usize) -> Self;
    /// Multiplies `other`'s factors in, entry by entry.
    fn add(&mut self, other: &Self);
}

/// `acc_i ·= other_i` for every entry (arkworks writes the groups additively).
pub(crate) fn multiply_entries<T: for<'a> std::ops::AddAssign<&'a T>>(acc: &mut [T], other: &[T]) {
    for (a, b) in acc.iter_mut().zip(other) {
        *a += b;
    }
}
