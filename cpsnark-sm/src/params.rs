//! Security parameters, derived from the size of the SNARK curve's scalar field.
//!
//! Everything in the protocol is sized from ν = bit length of the scalar field: the hash-to-prime
//! output must fit in the field with room for the masking slack, so the curve fixes the rest.

use ark_ff::PrimeField;

use crate::Error;

/// The protocol's size parameters. All values are bit lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parameters {
    /// λ: overall security level (⌊ν/2⌋).
    pub security_level: u32,
    /// λ_z: statistical zero-knowledge slack added to masks (λ − 3).
    pub security_zk: u32,
    /// λ_s: soundness parameter (λ − 2); the challenge is this rounded down to whole bytes.
    pub security_soundness: u32,
    /// μ: bit length of the hash-to-prime output (2λ − 2, top bit forced to 1).
    pub hash_to_prime_bits: u32,
    /// ν: bit length of the SNARK scalar field.
    pub field_size_bits: u32,
}

impl Parameters {
    /// Derive the parameters from the scalar field `F` and check that a masked prime still fits
    /// into the field (otherwise CP_ModEq, which works mod q, would not be sound).
    pub fn from_curve<F: PrimeField>() -> Result<Self, Error> {
        Self::from_field_size(F::MODULUS_BIT_SIZE)
    }

    /// Same as [`Parameters::from_curve`] for a field of `field_size_bits` bits.
    pub fn from_field_size(field_size_bits: u32) -> Result<Self, Error> {
        if field_size_bits < 16 {
            return Err(Error::InvalidParameters(format!(
                "field of {field_size_bits} bits is too small"
            )));
        }
        let security_level = field_size_bits / 2;
        let p = Parameters {
            security_level,
            security_zk: security_level - 3,
            security_soundness: security_level - 2,
            hash_to_prime_bits: 2 * security_level - 2,
            field_size_bits,
        };
        p.validate()?;
        Ok(p)
    }

    /// The inequality of the paper: d·μ + 2 ≤ ν with d = 1 + ⌊(λ_z + λ_s + 2)/μ⌋.
    pub fn validate(&self) -> Result<(), Error> {
        let d = 1 + (self.security_zk + self.security_soundness + 2) / self.hash_to_prime_bits;
        if d * self.hash_to_prime_bits + 2 > self.field_size_bits {
            return Err(Error::InvalidParameters(format!(
                "{d}·μ + 2 = {} exceeds the field size ν = {}",
                d * self.hash_to_prime_bits + 2,
                self.field_size_bits
            )));
        }
        Ok(())
    }

    /// Fiat-Shamir challenge length: λ_s rounded down to whole bytes (120 for BLS12-381).
    pub fn challenge_bits(&self) -> u32 {
        8 * (self.security_soundness / 8)
    }

    /// Bit length of the raw set element fed to the hash: one bit less than the field, so that
    /// every element is a canonical field element (254 for BLS12-381).
    pub fn message_bits(&self) -> u32 {
        self.field_size_bits - 1
    }

    /// Bit length of the nonce (index) of the hash-to-prime search: bitlen(λ · message_bits),
    /// enough tries that a 252-bit prime is found except with negligible probability.
    pub fn nonce_bits(&self) -> u32 {
        let tries = u64::from(self.security_level) * u64::from(self.message_bits());
        64 - tries.leading_zeros()
    }

    /// Miller-Rabin strength of the primality test (GMP `reps` = ⌊λ/2⌋).
    pub fn primality_reps(&self) -> u32 {
        self.security_level / 2
    }

    /// Bound on |s_e| accepted by CP_Root's range check: 2^{λ_z + λ_s + μ + 1}.
    pub fn response_bound_bits(&self) -> u32 {
        self.security_zk + self.security_soundness + self.hash_to_prime_bits + 1
    }
}

impl std::fmt::Display for Parameters {
    // Labels match the values (upstream's Display swaps λ_s and λ_z; we do not copy that).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Parameters(λ={} (security level), λ_z={} (zero-knowledge security), λ_s={} (soundness security), μ={} (hash-to-prime/range bits), ν={} (field size bits))",
            self.security_level,
            self.security_zk,
            self.security_soundness,
            self.hash_to_prime_bits,
            self.field_size_bits
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bls12_381_values_match_the_spec() {
        let p = Parameters::from_curve::<ark_bls12_381::Fr>().unwrap();
        assert_eq!(
            (
                p.security_level,
                p.security_zk,
                p.security_soundness,
                p.hash_to_prime_bits,
                p.field_size_bits
            ),
            (127, 124, 125, 252, 255)
        );
        assert_eq!(p.challenge_bits(), 120);
        assert_eq!(p.message_bits(), 254);
        assert_eq!(p.nonce_bits(), 15);
        assert_eq!(p.primality_reps(), 63);
        assert_eq!(p.response_bound_bits(), 502);
    }

    #[test]
    fn too_small_fields_are_rejected() {
        assert!(Parameters::from_field_size(8).is_err());
        // ν = 253: λ = 126, μ = 250, d = 1 + 248/250 = 1 → 252 ≤ 253 is fine;
        // an invalid combination must be reported, not silently accepted.
        let bad = Parameters {
            security_level: 127,
            security_zk: 124,
            security_soundness: 125,
            hash_to_prime_bits: 252,
            field_size_bits: 253,
        };
        assert!(bad.validate().is_err());
    }
}
