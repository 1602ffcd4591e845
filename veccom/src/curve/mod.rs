//! The BLS12-381 layer: safe wrappers around `blst` (the only module with `unsafe` code) and
//! the table methods built on them.
//!
//! * [`fr`]: the scalar field; [`hash_to_scalar`]: values to scalars (RFC 9380);
//! * [`g1`], [`g2`], [`gt`]: the three groups, with encodings that check subgroup membership;
//! * [`pairing`]: multi-Miller loop and final exponentiation;
//! * [`digits`]: signed-window and NAF recodings of scalars;
//! * [`msm`]: multi-scalar multiplication (naive, blst Pippenger, fixed-base tables).
#![allow(unsafe_code)]

pub mod digits;
pub mod fr;
pub mod g1;
pub mod g2;
pub mod gt;
pub mod hash_to_scalar;
pub mod msm;
pub mod pairing;

pub use fr::Scalar;
pub use g1::{G1Affine, G1};
pub use g2::{G2Affine, G2};
pub use gt::{Gt, GtTable};
