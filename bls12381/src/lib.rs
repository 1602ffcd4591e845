//! BLS12-381 over `blst`, as the suite's experiments use it (`veccom`'s vector commitments,
//! `mithril`'s multisignatures): safe functions over blst's C API, in one place.
//!
//! * [`scalar`]: F_r, the exponents (keys, weights, committed values), and the BLS key
//!   derivation;
//! * [`fp`]: F_p, the coordinates of G1 (for algorithms that add affine points in batches);
//! * [`g1`], [`g2`]: the two groups, in Jacobian and affine coordinates, with compressed
//!   encodings whose decoding checks subgroup membership;
//! * [`gt`] and [`pairing`]: the target group, the multi-Miller loop, the final exponentiation,
//!   and the check that a product of pairings is one;
//! * [`hash`]: RFC 9380's expand_message_xmd, hashing to F_r and to G1;
//! * [`msm`]: blst's Pippenger multi-scalar multiplication, on one thread or split over the
//!   current rayon pool.
//!
//! This crate holds all the `unsafe` code the suite's curve arithmetic needs: every block says,
//! in its SAFETY comment, why the call is sound (valid pointers of the lengths blst reads and
//! writes, and values blst accepts). The experiment crates using it forbid `unsafe` code.
//!
//! The types are `#[repr(transparent)]` over blst's, so that slices of them are the contiguous
//! arrays blst's batch functions read.

#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]

#[macro_use]
mod group;

pub mod fp;
pub mod g1;
pub mod g2;
pub mod gt;
pub mod hash;
pub mod msm;
pub mod pairing;
pub mod scalar;

pub use fp::Fp;
pub use g1::{G1Affine, G1, G1_COMPRESSED_BYTES};
pub use g2::{G2Affine, G2, G2_COMPRESSED_BYTES};
pub use gt::Gt;
pub use scalar::Scalar;

/// The value a blst function writes into its output argument: `op` gets a fresh default value
/// to write.
#[inline(always)]
pub(crate) fn output<T: Default>(op: impl FnOnce(&mut T)) -> T {
    let mut out = T::default();
    op(&mut out);
    out
}
