//! Security and size parameters (spec §1.2).
//!
//! Upstream hard-codes `logq = 254` and mixes a global κ = 2048 with the key's κ_N = 2050 (bug
//! B13). Here every length that depends on a key or a curve is derived from it at the call site;
//! these constants are only the statistical and challenge lengths.

/// Length of random challenge vectors e, batching exponents δ, and sub-proof challenges.
pub const KAPPA_E: u32 = 80;
/// Challenge length of the Paillier proofs of knowledge of plaintext.
pub const KAPPA_C: u32 = 80;
/// Statistical slack in masks.
pub const KAPPA_R: u32 = 20;
/// Nominal Paillier modulus length (bits) for fresh keys.
pub const KAPPA: u32 = 2048;
