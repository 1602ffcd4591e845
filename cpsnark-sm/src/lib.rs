//! cpSNARK-Set membership with hash-to-prime (`membership_hash`) of Benarroch, Campanelli,
//! Fiore, Gurkan and Kolonelos ("Zero-Knowledge Proofs for Set Membership", eprint 2019/1255),
//! written from the paper's description, not from the reference code.
//!
//! A prover shows that a Pedersen commitment c_e_q (BLS12-381 G1) holds a prime e = H2P(x), the
//! Blake2s hash-to-prime of a secret element x, and that e is accumulated in an RSA-2048
//! accumulator A. Three sub-proofs share one Merlin transcript:
//!
//! * [`root`] — CP_Root: knowledge of an e-th root of A, e in an integer commitment c_e;
//! * [`modeq`] — CP_ModEq: c_e and c_e_q commit to the same value mod q;
//! * [`snark`] — CP_HashToPrime: LegoGroth16 proof of the hash-to-prime [`hash_to_prime`]
//!   circuit (22 814 constraints) whose CP_link commitment equals c_e_q.
//!
//! Differences from the reference implementation, on purpose:
//! * the Fiat-Shamir transcript absorbs the CRS digest, the statement (A, c_e_q) and the SNARK
//!   proof before any challenge; the reference absorbs none of them (weak Fiat-Shamir);
//! * all randomness comes from the caller's CSPRNG (the reference drew integers from GMP's
//!   Mersenne Twister seeded with 13);
//! * integers are reduced mod q before Pedersen commitments (the reference panicked for ≥ q),
//!   group elements are canonical representatives in [1, ⌊N/2⌋] by type;
//! * the nonce search runs once per proof (twice in the reference), the SNARK verifying key is
//!   prepared once at setup and the proving key is never cloned per call.

#![warn(missing_docs)]

pub mod accumulator;
pub mod commitments;
pub mod hash_to_prime;
pub mod membership;
pub mod modeq;
pub mod params;
pub mod random;
pub mod root;
pub mod rsa_group;
pub mod snark;
pub mod transcript;

#[cfg(test)]
mod tests;

pub use membership::{prove, verify, Crs, Proof, Statement, Witness};
pub use params::{Parameters, Security};

/// Everything that can go wrong, with the reason a proof was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Parameters that cannot be used together (sizes, security levels), named.
    #[error("invalid parameters: {0}")]
    InvalidParameters(String),
    /// A security setting other than `128` and `paper`.
    #[error("security setting {0:?}: expected \"128\" or \"paper\"")]
    UnknownSecurity(String),
    /// A statement or witness that does not fit the parameters.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A value that is no canonical unit of the RSA group.
    #[error("not an element of the RSA group (non-canonical or not a unit)")]
    InvalidGroupElement,
    /// An element for which no nonce in the allowed range hashes to a prime.
    #[error("no prime found in the nonce range for this element")]
    HashToPrimeNotFound,
    /// A witness whose root does not give the accumulator.
    #[error("the element is not in the accumulator (W^e != A)")]
    NotAMember,
    /// CP_Root's verifier rejected, with the check that failed.
    #[error("CP_Root rejected: {0}")]
    RootRejected(&'static str),
    /// CP_ModEq's verifier rejected, with the check that failed.
    #[error("CP_ModEq rejected: {0}")]
    ModEqRejected(&'static str),
    /// The hash-to-prime SNARK's verifier rejected.
    #[error("hash-to-prime SNARK rejected: {0}")]
    SnarkRejected(String),
    /// The hash-to-prime SNARK could not be set up or proven.
    #[error("hash-to-prime SNARK failed: {0}")]
    Snark(String),
}
