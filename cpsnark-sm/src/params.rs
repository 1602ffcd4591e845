//! Security parameters, derived from the size of the SNARK curve's scalar field and a named
//! security setting.
//!
//! Everything in the protocol is sized from ν = bit length of the scalar field: the hash-to-prime
//! output must fit in the field with room for the masking slack, so the curve fixes the rest.
//!
//! The soundness of the composition needs d = 1 + ⌊(λ_z + λ_s + 2)/μ⌋ with d·μ + 2 ≤ ν (the
//! paper's inequality): for BLS12-381 (ν = 255, μ = 252) that is d = 1, i.e. λ_z + λ_s ≤ μ − 3 =
//! 249 bits shared between the statistical zero-knowledge slack λ_z and the soundness parameter
//! λ_s, which sets the Fiat-Shamir challenge length.
//!
//! | setting | λ_s | challenge | λ_z | masks |
//! | --- | --- | --- | --- | --- |
//! | `128` (default) | 128 | 128 bits | 121 (μ − 3 − 128) | λ_z + λ_s + μ = 501 bits |
//! | `paper` | 125 (λ − 2) | 120 bits (λ_s rounded down to bytes) | 124 (λ − 3) | 501 bits |
//!
//! The default moves three bits of the budget from the slack (still far above the 80 bits the
//! suite requires) to the challenge, so every mask and response has the paper's length and the
//! cost is the paper's but for the 8 more bits of each challenge exponent. `paper` keeps the
//! paper's 120-bit challenges, for a like-for-like comparison only.

use ark_ff::PrimeField;

use crate::Error;

/// The suite's standard: Fiat-Shamir challenges of at least this many bits by default.
pub const MIN_CHALLENGE_BITS: u32 = 128;
/// The suite's standard: statistical slack of at least this many bits by default.
pub const MIN_SLACK_BITS: u32 = 80;

/// The named security settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Security {
    /// 128-bit challenges (λ_s = 128), the rest of the budget as statistical slack.
    #[default]
    Bits128,
    /// The paper's lengths: λ_s = λ − 2 and λ_z = λ − 3, 120-bit challenges.
    Paper,
}

impl Security {
    /// The command-line and report name: `128` or `paper`.
    pub fn name(self) -> &'static str {
        match self {
            Security::Bits128 => "128",
            Security::Paper => "paper",
        }
    }
}

impl std::str::FromStr for Security {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self, crate::Error> {
        match s {
            "128" => Ok(Security::Bits128),
            "paper" => Ok(Security::Paper),
            other => Err(crate::Error::UnknownSecurity(other.into())),
        }
    }
}

/// The protocol's size parameters. All values are bit lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parameters {
    /// The named setting these lengths come from.
    pub setting: Security,
    /// λ: overall security level (⌊ν/2⌋).
    pub security_level: u32,
    /// λ_z: statistical zero-knowledge slack added to masks.
    pub security_zk: u32,
    /// λ_s: soundness parameter; the challenge is this rounded down to whole bytes.
    pub security_soundness: u32,
    /// μ: bit length of the hash-to-prime output (2λ − 2, top bit forced to 1).
    pub hash_to_prime_bits: u32,
    /// ν: bit length of the SNARK scalar field.
    pub field_size_bits: u32,
}

impl Parameters {
    /// The default parameters (setting `128`) for the scalar field `F`, checked against the
    /// paper's inequality (otherwise CP_ModEq, which works mod q, would not be sound).
    pub fn from_curve<F: PrimeField>() -> Result<Self, Error> {
        Self::from_curve_with::<F>(Security::default())
    }

    /// The parameters of `setting` for the scalar field `F`.
    pub fn from_curve_with<F: PrimeField>(setting: Security) -> Result<Self, Error> {
        Self::from_field_size(F::MODULUS_BIT_SIZE, setting)
    }

    /// Same as [`Parameters::from_curve_with`] for a field of `field_size_bits` bits.
    pub fn from_field_size(field_size_bits: u32, setting: Security) -> Result<Self, Error> {
        if field_size_bits < 16 {
            return Err(Error::InvalidParameters(format!(
                "field of {field_size_bits} bits is too small"
            )));
        }
        let security_level = field_size_bits / 2;
        let hash_to_prime_bits = 2 * security_level - 2;
        let (security_soundness, security_zk) = match setting {
            Security::Paper => (security_level - 2, security_level - 3),
            Security::Bits128 => {
                // The slack gets what the inequality leaves: λ_z + λ_s + 2 < μ.
                let zk = hash_to_prime_bits.checked_sub(3 + MIN_CHALLENGE_BITS);
                match zk {
                    Some(zk) if zk >= MIN_SLACK_BITS => (MIN_CHALLENGE_BITS, zk),
                    _ => {
                        return Err(Error::InvalidParameters(format!(
                            "a {field_size_bits}-bit field leaves no room for {MIN_CHALLENGE_BITS}-bit \
                             challenges with {MIN_SLACK_BITS} bits of slack"
                        )))
                    }
                }
            }
        };
        let p = Parameters {
            setting,
            security_level,
            security_zk,
            security_soundness,
            hash_to_prime_bits,
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

    /// Fiat-Shamir challenge length: λ_s rounded down to whole bytes (BLS12-381: 128 by
    /// default, the paper's 120 with setting `paper`).
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
            "Parameters(setting {}: λ={} (security level), λ_z={} (zero-knowledge security), λ_s={} (soundness security), {}-bit challenges, μ={} (hash-to-prime/range bits), ν={} (field size bits))",
            self.setting.name(),
            self.security_level,
            self.security_zk,
            self.security_soundness,
            self.challenge_bits(),
            self.hash_to_prime_bits,
            self.field_size_bits
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::ProofTranscript;
    use ark_bls12_381::Fr;

    /// The lengths of `p`: security level, zero-knowledge slack, soundness, hash-to-prime and
    /// field bits.
    fn lengths(p: &Parameters) -> (u32, u32, u32, u32, u32) {
        (
            p.security_level,
            p.security_zk,
            p.security_soundness,
            p.hash_to_prime_bits,
            p.field_size_bits,
        )
    }

    #[test]
    fn bls12_381_default_values() {
        let p = Parameters::from_curve::<Fr>().unwrap();
        assert_eq!(p.setting, Security::Bits128);
        assert_eq!(lengths(&p), (127, 121, 128, 252, 255));
        assert_eq!(p.challenge_bits(), 128);
        assert_eq!(p.message_bits(), 254);
        assert_eq!(p.nonce_bits(), 15);
        assert_eq!(p.primality_reps(), 63);
        // The masks and the range check are the paper's: the budget λ_z + λ_s is unchanged.
        assert_eq!(p.response_bound_bits(), 502);
    }

    #[test]
    fn bls12_381_paper_values_match_the_spec() {
        let p = Parameters::from_curve_with::<Fr>(Security::Paper).unwrap();
        assert_eq!(lengths(&p), (127, 124, 125, 252, 255));
        assert_eq!(p.challenge_bits(), 120);
        assert_eq!(p.response_bound_bits(), 502);
        assert_eq!("paper".parse::<Security>(), Ok(Security::Paper));
        assert_eq!("128".parse::<Security>(), Ok(Security::Bits128));
        assert!("80".parse::<Security>().is_err());
    }

    /// The suite's standard: by default every Fiat-Shamir challenge has at least 128 bits and
    /// every mask at least 80 bits of statistical slack. Fails if the default drops below.
    #[test]
    fn default_challenges_have_at_least_128_bits() {
        let p = Parameters::from_curve::<Fr>().unwrap();
        assert!(p.challenge_bits() >= MIN_CHALLENGE_BITS, "{p}");
        assert!(p.security_soundness >= MIN_CHALLENGE_BITS, "{p}");
        assert!(p.security_zk >= MIN_SLACK_BITS, "{p}");
        // The transcript draws challenges of that length (the largest of 64 uniform 128-bit
        // draws has fewer than 125 bits with probability 2^-192).
        let mut t = ProofTranscript::new(b"params-test", p.challenge_bits());
        let longest = (0..64)
            .map(|_| t.challenge(b"c").significant_bits())
            .max()
            .unwrap();
        assert!(
            (125..=p.challenge_bits()).contains(&longest),
            "challenges of {longest} bits"
        );
    }

    #[test]
    fn too_small_fields_are_rejected() {
        assert!(Parameters::from_field_size(8, Security::Paper).is_err());
        // No room for 128-bit challenges with 80 bits of slack below 2·(128 + 80 + 3) + 4 bits.
        assert!(Parameters::from_field_size(200, Security::Bits128).is_err());
        // An invalid combination must be reported, not silently accepted.
        let bad = Parameters {
            setting: Security::Paper,
            security_level: 127,
            security_zk: 124,
            security_soundness: 125,
            hash_to_prime_bits: 252,
            field_size_bits: 253,
        };
        assert!(bad.validate().is_err());
    }
}
