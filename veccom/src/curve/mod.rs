//! The BLS12-381 layer: the suite's `bls12381` crate (safe functions over blst, where all the
//! curve's `unsafe` code is) and the table methods built on it here.
//!
//! * [`Scalar`], [`G1`], [`G2`], [`Gt`] and their modules [`g1`], [`g2`], [`pairing`]: from
//!   `bls12381`; [`hash_to_scalar`]: values to scalars (RFC 9380);
//! * [`digits`]: signed-window and NAF recodings of scalars;
//! * [`msm`]: multi-scalar multiplication (naive, blst Pippenger, fixed-base tables with batched
//!   affine additions);
//! * [`gt`]: exponentiation of a fixed GT element by a table.

pub mod digits;
pub mod gt;
pub mod hash_to_scalar;
pub mod msm;

pub use bls12381::{g1, g2, pairing};
pub use bls12381::{Fp, G1Affine, G2Affine, Gt, Scalar, G1, G2};
pub use gt::GtTable;
