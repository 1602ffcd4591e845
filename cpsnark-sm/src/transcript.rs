//! Fiat-Shamir transcript (Merlin/STROBE) shared by the sub-proofs of one membership proof.
//!
//! Upstream absorbs only the prover's messages: neither the statement (A, c_e_q), nor the
//! hash-to-prime SNARK proof, nor the CRS. That "weak Fiat-Shamir" lets a proof be replayed
//! against a different statement crafted from it. We absorb the CRS digest, the statement and the
//! SNARK proof before the first challenge (cost: a few microseconds of hashing).

use ark_serialize::CanonicalSerialize;
use merlin::Transcript;
use rug::{integer::Order, Integer};

use crate::rsa_group::GroupElem;

/// Thin typed layer over a Merlin transcript.
pub struct ProofTranscript {
    inner: Transcript,
    challenge_bytes: usize,
}

impl ProofTranscript {
    /// `challenge_bits` is rounded down to whole bytes (the parameters already are).
    pub fn new(label: &'static [u8], challenge_bits: u32) -> Self {
        ProofTranscript {
            inner: Transcript::new(label),
            challenge_bytes: (challenge_bits / 8) as usize,
        }
    }

    /// Separate the sub-protocols so that messages of one cannot be read as another's.
    pub fn domain(&mut self, name: &'static [u8]) {
        self.inner.append_message(b"dom-sep", name);
    }

    /// Absorbs `bytes` under `label`.
    pub fn append_bytes(&mut self, label: &'static [u8], bytes: &[u8]) {
        self.inner.append_message(label, bytes);
    }

    /// Absorbs an RSA group element's canonical bytes under `label`.
    pub fn append_elem(&mut self, label: &'static [u8], x: &GroupElem) {
        self.inner.append_message(label, &x.to_bytes());
    }

    /// Any arkworks value, in its compressed canonical encoding.
    pub fn append_serializable<T: CanonicalSerialize>(&mut self, label: &'static [u8], x: &T) {
        let mut bytes = Vec::with_capacity(x.compressed_size());
        x.serialize_compressed(&mut bytes)
            .expect("serialising into a Vec cannot fail");
        self.inner.append_message(label, &bytes);
    }

    /// A non-negative challenge of `challenge_bits` bits, read big-endian.
    pub fn challenge(&mut self, label: &'static [u8]) -> Integer {
        let mut buf = vec![0u8; self.challenge_bytes];
        self.inner.challenge_bytes(label, &mut buf);
        Integer::from_digits(&buf, Order::Msf)
    }
}
