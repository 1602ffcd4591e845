//! Reproducible randomness from a run's `--seed`, with the full 32 bytes a ChaCha20 key needs.
//!
//! Every program of the suite takes the same `--seed`: 64 hexadecimal digits, 32 bytes. A seed
//! names a run's inputs; it is public (it is printed in the report), so anything drawn from it
//! is reproducible and *not secret*. Each use draws its own stream: the generator's key is
//! SHA-256(len(domain) || domain || seed) for a domain name such as `"db-sm-rsm/inputs"`, so two
//! programs (or two uses in one program) given the same seed still draw independent streams.
//! Without a seed, a generator is keyed by the operating system's CSPRNG and nothing is
//! reproducible, which is what secret keys need.

use std::fmt;
use std::str::FromStr;

use rand_chacha::ChaCha20Rng;
use rand_core::{OsRng, RngCore, SeedableRng};
use sha2::{Digest, Sha256};

/// A run's seed: 32 bytes, written as 64 hexadecimal digits on command lines and in reports.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed([u8; 32]);

impl Seed {
    /// The seed of these 32 bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Seed {
        Seed(bytes)
    }

    /// A fresh seed from the operating system's CSPRNG.
    pub fn fresh() -> Seed {
        let mut b = [0u8; 32];
        OsRng.fill_bytes(&mut b);
        Seed(b)
    }

    /// The 32 bytes.
    pub fn bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The 64 lower-case hexadecimal digits.
    pub fn hex(&self) -> String {
        crate::hex::encode(&self.0)
    }

    /// The 32-byte key of the stream named `domain` (see the module's documentation).
    pub fn stream_key(&self, domain: &str) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update((domain.len() as u64).to_be_bytes());
        h.update(domain.as_bytes());
        h.update(self.0);
        h.finalize().into()
    }
}

impl fmt::Display for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seed({})", self.hex())
    }
}

impl FromStr for Seed {
    type Err = crate::Error;

    /// Exactly 64 hexadecimal digits (either case); anything else is refused with a message
    /// that says what a seed looks like.
    fn from_str(s: &str) -> Result<Seed, crate::Error> {
        let s = s.trim();
        let bad = || crate::Error::Seed { got: s.to_string() };
        if s.len() != 64 || !s.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(bad());
        }
        let mut b = [0u8; 32];
        for (i, out) in b.iter_mut().enumerate() {
            *out = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(Seed(b))
    }
}

/// The generator of the stream `domain`: keyed from `seed` (reproducible, public) or, without
/// a seed, by the operating system (fresh, secret).
pub fn stream(domain: &str, seed: Option<&Seed>) -> ChaCha20Rng {
    match seed {
        Some(s) => ChaCha20Rng::from_seed(s.stream_key(domain)),
        None => ChaCha20Rng::from_seed(Seed::fresh().0),
    }
}

/// The 32-byte key of a generator from a 64-bit run number: SHA-256 of the domain and the
/// number (big-endian). Kept for programs that still name runs by a number.
pub fn seed_bytes(domain: &str, seed: u64) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update((domain.len() as u64).to_be_bytes());
    h.update(domain.as_bytes());
    h.update(seed.to_be_bytes());
    h.finalize().into()
}

/// A ChaCha20 generator keyed from a 64-bit run number (see [`seed_bytes`]) or by the OS.
pub fn rng(domain: &str, seed: Option<u64>) -> ChaCha20Rng {
    match seed {
        Some(s) => ChaCha20Rng::from_seed(seed_bytes(domain, s)),
        None => ChaCha20Rng::from_seed(Seed::fresh().0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";

    #[test]
    fn a_seed_is_64_hex_digits_and_prints_back() {
        let s: Seed = HEX.parse().unwrap();
        assert_eq!(s.hex(), HEX.to_lowercase());
        assert_eq!(s.to_string().parse::<Seed>().unwrap(), s);
        for bad in [
            "",
            "42",
            &HEX[..63],
            &format!("{HEX}0"),
            &HEX.replace('0', "g"),
        ] {
            let e = bad.parse::<Seed>().unwrap_err().to_string();
            assert!(e.contains("64 hexadecimal digits"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn seeded_streams_are_reproducible_and_separated_by_domain() {
        let s: Seed = HEX.parse().unwrap();
        let t = Seed::from_bytes([1; 32]);
        let a = stream("x", Some(&s)).next_u64();
        assert_eq!(a, stream("x", Some(&s)).next_u64());
        assert_ne!(a, stream("y", Some(&s)).next_u64());
        assert_ne!(a, stream("x", Some(&t)).next_u64());
        assert_ne!(stream("x", None).next_u64(), stream("x", None).next_u64());
        // The domain's length is hashed first: "ab"+seed and "a"+"b..." cannot collide.
        assert_ne!(
            s.stream_key("ab"),
            Seed::from_bytes([0; 32]).stream_key("a")
        );
    }

    #[test]
    fn numbered_streams_are_reproducible_and_separated_by_domain() {
        let a = rng("x", Some(7)).next_u64();
        assert_eq!(a, rng("x", Some(7)).next_u64());
        assert_ne!(a, rng("y", Some(7)).next_u64());
        assert_ne!(a, rng("x", Some(8)).next_u64());
        assert_ne!(rng("x", None).next_u64(), rng("x", None).next_u64());
    }
}
