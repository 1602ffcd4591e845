//! Fiat-Shamir transcript that binds the whole statement.
//!
//! Upstream's `group.hash` silently skipped every list, tuple and integer it was given (F1 in
//! docs/fixes.md), so most of its statements were never hashed. Here every value a proof depends on is
//! absorbed explicitly, with a label and a length prefix so that distinct statements can never
//! produce the same byte stream.

use ark_ff::PrimeField;
use ark_serialize::CanonicalSerialize;
use rug::Integer;
use sha2::{Digest, Sha256};

/// A running SHA-256 over labelled, length-prefixed items.
#[derive(Clone)]
pub struct Transcript {
    hasher: Sha256,
}

impl Transcript {
    /// A transcript for one proof type; the domain separates proof types from each other.
    pub fn new(domain: &[u8]) -> Self {
        let mut t = Transcript {
            hasher: Sha256::new(),
        };
        t.append_bytes(b"dom", domain);
        t
    }

    /// Absorbs a labelled byte string.
    pub fn append_bytes(&mut self, label: &[u8], bytes: &[u8]) {
        self.hasher.update((label.len() as u64).to_le_bytes());
        self.hasher.update(label);
        self.hasher.update((bytes.len() as u64).to_le_bytes());
        self.hasher.update(bytes);
    }

    /// Absorbs any arkworks value (field element, curve point, GT element) in its compressed form.
    pub fn append_ark<T: CanonicalSerialize + ?Sized>(&mut self, label: &[u8], value: &T) {
        let mut buf = Vec::with_capacity(value.compressed_size());
        value
            .serialize_compressed(&mut buf)
            .expect("serialising into a Vec cannot fail");
        self.append_bytes(label, &buf);
    }

    /// Absorbs a slice of arkworks values, with its length.
    pub fn append_ark_slice<T: CanonicalSerialize>(&mut self, label: &[u8], values: &[T]) {
        self.append_bytes(label, &(values.len() as u64).to_le_bytes());
        for v in values {
            self.append_ark(label, v);
        }
    }

    /// Absorbs a big integer (sign and magnitude).
    pub fn append_integer(&mut self, label: &[u8], value: &Integer) {
        let mut bytes = vec![u8::from(value.cmp0() == std::cmp::Ordering::Less)];
        bytes.extend(value.to_digits::<u8>(rug::integer::Order::MsfBe));
        self.append_bytes(label, &bytes);
    }

    /// Absorbs a labelled list of integers.
    pub fn append_integers(&mut self, label: &[u8], values: &[Integer]) {
        self.append_bytes(label, &(values.len() as u64).to_le_bytes());
        for v in values {
            self.append_integer(label, v);
        }
    }

    /// 64 uniform-looking bytes derived from everything absorbed so far, and the label.
    fn squeeze(&self, label: &[u8]) -> [u8; 64] {
        let mut out = [0u8; 64];
        for (i, chunk) in out.chunks_mut(32).enumerate() {
            let mut h = self.hasher.clone();
            h.update(b"squeeze");
            h.update(label);
            h.update([i as u8]);
            chunk.copy_from_slice(&h.finalize());
        }
        out
    }

    /// 32 challenge bytes, to seed a generator that expands them (challenge vectors).
    pub fn challenge_seed(&mut self, label: &[u8]) -> [u8; 32] {
        let bytes = self.squeeze(label);
        self.append_bytes(b"chal", label);
        let mut seed = [0u8; 32];
        seed.copy_from_slice(&bytes[..32]);
        seed
    }

    /// A challenge in the scalar field. 512 bits are reduced so the bias is negligible.
    pub fn challenge_scalar<F: PrimeField>(&mut self, label: &[u8]) -> F {
        let bytes = self.squeeze(label);
        self.append_bytes(b"chal", label);
        F::from_be_bytes_mod_order(&bytes)
    }

    /// A uniform challenge integer in [0, 2^bits), bits at most 512: all `bits` bits carry
    /// entropy (upstream forced the top bit, leaving 79 of its 80).
    pub fn challenge_bits(&mut self, label: &[u8], bits: u32) -> Integer {
        assert!((1..=512).contains(&bits), "challenge length out of range");
        let bytes = self.squeeze(label);
        self.append_bytes(b"chal", label);
        let mut x = Integer::from_digits(&bytes, rug::integer::Order::MsfBe);
        x.keep_bits_mut(bits);
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;

    #[test]
    fn challenge_depends_on_every_item() {
        let mut a = Transcript::new(b"t");
        a.append_integer(b"x", &Integer::from(5));
        let mut b = Transcript::new(b"t");
        b.append_integer(b"x", &Integer::from(6));
        assert_ne!(
            a.challenge_scalar::<Fr>(b"c"),
            b.challenge_scalar::<Fr>(b"c")
        );
    }

    #[test]
    fn length_prefix_separates_items() {
        let mut a = Transcript::new(b"t");
        a.append_bytes(b"x", b"ab");
        a.append_bytes(b"x", b"c");
        let mut b = Transcript::new(b"t");
        b.append_bytes(b"x", b"a");
        b.append_bytes(b"x", b"bc");
        assert_ne!(a.challenge_bits(b"c", 80), b.challenge_bits(b"c", 80));
    }

    #[test]
    fn challenge_bits_are_uniform_in_range() {
        let mut t = Transcript::new(b"t");
        let chals: Vec<Integer> = (0..64).map(|_| t.challenge_bits(b"c", 128)).collect();
        assert!(chals.iter().all(|c| c.significant_bits() <= 128));
        // The top bit is not forced: about half the challenges have it clear.
        let top = chals.iter().filter(|c| c.significant_bits() == 128).count();
        assert!((16..=48).contains(&top), "{top} of 64 with the top bit set");
    }
}
