//! Mithril's mergeable multisignatures (MSP): BLS multisignatures with plain and randomised
//! aggregation, natively on BLS12-381 and proven in a halo2 circuit over BN254.
//!
//! Layers, bottom up:
//!
//! * [`native`]: MSP on BLS12-381 with `blst` (keys in G2, signatures in G1): plain aggregation
//!   (MSP.AKey, MSP.ASig), randomised aggregation with 128-bit weights (MSP.BKey, MSP.BSig),
//!   verification (MSP.Ver) and batch verification of several aggregates;
//! * [`circuit`]: MSP.B as a `halo2-base` / `halo2-ecc` circuit over BN254: the weights from an
//!   in-circuit Poseidon of the signatures, one multi-scalar multiplication per group, one BLS
//!   check on the weighted aggregate, constrained to hold; keys, proofs, verification;
//! * [`measurement`]: timings, circuit sizes, fits and the benchmark report;
//! * [`error`]: the one error type, naming the option or the step that failed.
//!
//! Why the randomised aggregation matters: with plain sums, signatures σ_1 + D and σ_2 − D (each
//! invalid) aggregate to the valid σ_1 + σ_2, so an aggregate that verifies says nothing about the
//! individual signatures. With weights e_i drawn from a hash of all the signatures, the error
//! becomes (e_1 − e_2)·D, which vanishes only if e_1 = e_2: probability 2^-128.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod circuit;
pub mod error;
pub mod measurement;
pub mod native;

pub use error::Error;
