//! The zero-knowledge proofs, each made non-interactive by a Fiat–Shamir transcript that hashes
//! its whole statement.

pub mod dpk_bb;
pub mod dpk_bbsplus;
pub mod elgamal_shuffle;
pub mod paillier_shuffle;
pub mod perm;
pub mod plaintext;
pub mod sigma;
