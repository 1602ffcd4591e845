//! MSP.B proven in a halo2 circuit over BN254.
//!
//! * [`poseidon`]: the circuit's hash, evaluated outside the circuit;
//! * [`bn254`]: MSP on BN254 (keys, signatures, weights, aggregates) outside the circuit;
//! * [`relation`]: the constraints, with the statement's public inputs;
//! * [`proof`]: parameters, keys, proving and verifying (KZG on BN254, SHPLONK openings).
//!
//! Field elements of F_q (BN254's base field) are emulated in the circuit's field F_r with
//! [`NUM_LIMBS`] limbs of [`LIMB_BITS`] bits (`halo2-ecc`'s CRT integers); the emulated arithmetic
//! is `halo2-ecc`'s, the relation and its layout are this crate's.

pub mod bn254;
pub mod pairing;
pub mod poseidon;
pub mod proof;
pub mod relation;

pub use pairing::PairingCheck;

/// Bits per limb of an emulated F_q element.
pub const LIMB_BITS: usize = 88;
/// Limbs per emulated F_q element.
pub const NUM_LIMBS: usize = 3;
/// Rows reserved at the bottom of the circuit for blinding.
pub const BLINDING_ROWS: usize = 20;

/// The shape parameters of the circuit that are not forced by the curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// log2 of the number of rows.
    pub k: u32,
    /// Bits of the range-check lookup table (at most k − 1).
    pub lookup_bits: usize,
    /// Window of the in-circuit multi-scalar multiplications.
    pub window_bits: usize,
    /// How the BLS check is laid out.
    pub pairing: PairingCheck,
}

impl Shape {
    /// k with the largest lookup table it allows and windows of 4 bits.
    pub fn with_k(k: u32) -> Shape {
        Shape {
            k,
            lookup_bits: k as usize - 1,
            window_bits: 4,
            pairing: PairingCheck::ResidueWitness,
        }
    }

    /// Refuses shapes the chips cannot use.
    pub fn validate(&self) -> Result<(), crate::Error> {
        if !(10..=26).contains(&self.k) {
            return Err(crate::Error::RowsOutOfRange(self.k));
        }
        if self.lookup_bits < 8 || self.lookup_bits >= self.k as usize {
            return Err(crate::Error::LookupBits {
                bits: self.lookup_bits,
                k: self.k,
            });
        }
        if !(1..=8).contains(&self.window_bits) {
            return Err(crate::Error::WindowBits(self.window_bits));
        }
        Ok(())
    }
}
