//! Distributed set membership (DB-SM) and reverse set membership (DB-RSM) proofs among m
//! mix-servers, and the traceable mixnet under them, after the paper "Traceable mixnets"
//! (PETS 2024): one run of the whole protocol, timed party by party and printed in the paper's
//! report format (the `db-sm-rsm` program).
//!
//! The crate is built in six layers; each uses only the layers above it in this list:
//!
//! * [`primitives`]: groups, big integers, the counters of expensive operations, Fiat–Shamir
//!   transcripts, the security setting, commitments, ElGamal and Paillier encryption, BB and
//!   BBS+ signatures, secret sharing;
//! * [`storage`]: the run's store on disk: per-entry lists read back whole or chunk by chunk,
//!   and the journal of finished steps from which a killed run resumes;
//! * [`proofs`]: the zero-knowledge proofs: sigma proofs, the permutation-commitment proof, the
//!   ElGamal and Paillier shuffle proofs, the Paillier proofs of knowledge of plaintext, and the
//!   two distributed proofs DPK_BB and DPK_BBS+;
//! * [`measurement`]: the report (timer tree, paper format, JSON rows), the lower bound implied
//!   by the operation counts, and the machine's speed probe;
//! * [`transport`]: how the parties talk: all in one process, or each in its own over a
//!   bulletin board on TLS 1.3, and the processes of such a run;
//! * [`protocol`]: the run's configuration, the parties and their keys, and one function per
//!   step of the report, from preprocessing to the size lines.
//!
//! Upstream's shortcuts and defects, and what this crate does about each, are listed with their
//! codes in `docs/fixes.md`; the protocol notes follow.
//!
#![doc = include_str!("../docs/protocol.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod error;
pub mod measurement;
pub mod primitives;
pub mod proofs;
pub mod protocol;
pub mod storage;
pub mod transport;

pub use error::{Error, Result};

/// Runs a generic test function once per supported curve, as one test per curve:
/// `curve_tests!(name, ...)` defines `bn254::name` and `bls12_381::name`, each calling
/// `name::<E>()` of the enclosing module.
#[cfg(test)]
macro_rules! curve_tests {
    ($($name:ident),+ $(,)?) => {
        mod bn254 {
            $(
                #[test]
                fn $name() {
                    super::$name::<ark_bn254::Bn254>();
                }
            )+
        }
        mod bls12_381 {
            $(
                #[test]
                fn $name() {
                    super::$name::<ark_bls12_381::Bls12_381>();
                }
            )+
        }
    };
}
#[cfg(test)]
pub(crate) use curve_tests;
