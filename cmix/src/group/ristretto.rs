//! ristretto255 ("ec"), on `curve25519-dalek`.
//!
//! **Payloads.** An element's 32-byte encoding is the field element `s` (little-endian, even,
//! below `p = 2^255 - 19`). To carry 30 bytes, byte 0 holds an even counter, bytes 1..=30 the
//! payload and byte 31 zero (so `s < 2^248 < p`); the counter is stepped until the bytes
//! decompress to a point. About a quarter of candidate encodings are valid, so 128 counters
//! fail with probability below 2^-53. Decoding is compression: the canonical encoding gives the
//! bytes back, and a blinded or tampered element fails the zero-byte check with probability
//! 1 - 2^-8 per element (the message's check value catches the rest).
//!
//! **Random elements** are Elligator images of 64 uniform bytes (two maps and an addition, so
//! the distribution is uniform), which is also how per-message keys are made from KDF output.
//!
//! **Fixed-base tables**: the generator's is the library's precomputed basepoint table; the
//! joint key gets one made per batch (`RistrettoBasepointTable::create`, radix-16 comb).

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoBasepointTable, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::Identity;
use rand_core::{CryptoRng, RngCore};

use super::{Group, Op, OpCounts};
use crate::Error;

/// ristretto255 with counted operations.
#[derive(Default)]
pub struct Ristretto {
    ops: OpCounts,
}

impl Ristretto {
    /// The group, with its counters at zero.
    pub fn new() -> Self {
        Self::default()
    }
}

const PAYLOAD: usize = 30;

impl Group for Ristretto {
    type Elem = RistrettoPoint;
    type Scalar = Scalar;
    type Table = RistrettoBasepointTable;

    fn name(&self) -> &'static str {
        "ec"
    }
    fn describe(&self) -> String {
        "ristretto255 (curve25519-dalek), 30 payload bytes per element, 253-bit scalars".into()
    }
    fn exponent_bits(&self) -> u32 {
        253
    }
    fn ops(&self) -> &OpCounts {
        &self.ops
    }
    fn wire_bytes(&self) -> usize {
        32
    }
    fn payload_bytes(&self) -> usize {
        PAYLOAD
    }

    fn identity(&self) -> RistrettoPoint {
        RistrettoPoint::identity()
    }
    fn mul(&self, a: &RistrettoPoint, b: &RistrettoPoint) -> RistrettoPoint {
        self.ops.add(Op::Mul, 1);
        a + b
    }
    fn mul_assign(&self, a: &mut RistrettoPoint, b: &RistrettoPoint) {
        self.ops.add(Op::Mul, 1);
        *a += b;
    }
    fn invert(&self, a: &RistrettoPoint) -> RistrettoPoint {
        self.ops.add(Op::Inv, 1);
        -a
    }
    fn batch_invert(&self, xs: &mut [RistrettoPoint]) {
        self.ops.add(Op::Inv, xs.len() as u64);
        for x in xs {
            *x = -*x;
        }
    }
    fn exp(&self, base: &RistrettoPoint, e: &Scalar) -> RistrettoPoint {
        self.ops.add(Op::Exp, 1);
        base * e
    }
    fn exp_g(&self, e: &Scalar) -> RistrettoPoint {
        self.ops.add(Op::ExpFixed, 1);
        RISTRETTO_BASEPOINT_TABLE * e
    }
    fn table(&self, base: &RistrettoPoint) -> RistrettoBasepointTable {
        RistrettoBasepointTable::create(base)
    }
    fn exp_table(&self, table: &RistrettoBasepointTable, e: &Scalar) -> RistrettoPoint {
        self.ops.add(Op::ExpFixed, 1);
        table * e
    }

    fn random_scalar<R: RngCore + CryptoRng>(&self, rng: &mut R) -> Scalar {
        Scalar::random(rng)
    }
    fn random_scalar_full<R: RngCore + CryptoRng>(&self, rng: &mut R) -> Scalar {
        Scalar::random(rng)
    }
    fn challenge_scalar(&self, c: &[u8; 16]) -> Scalar {
        let mut b = [0u8; 32];
        b[..16].copy_from_slice(c);
        Scalar::from_bytes_mod_order(b)
    }
    fn scalar_mul_add(&self, c: &Scalar, x: &Scalar, k: &Scalar) -> Scalar {
        k + c * x
    }
    fn scalar_to_bytes(&self, s: &Scalar) -> Vec<u8> {
        s.to_bytes().to_vec()
    }
    fn scalar_from_bytes(&self, b: &[u8]) -> Result<Scalar, Error> {
        let arr: [u8; 32] = b.try_into().map_err(|_| Error::Element {
            group: "ec scalar",
            why: format!("{} bytes, expected 32", b.len()),
        })?;
        Option::from(Scalar::from_canonical_bytes(arr)).ok_or(Error::Element {
            group: "ec scalar",
            why: "not reduced modulo the group order".into(),
        })
    }

    fn random_elem<R: RngCore + CryptoRng>(&self, rng: &mut R) -> RistrettoPoint {
        self.ops.add(Op::RandomElem, 1);
        let mut b = [0u8; 64];
        rng.fill_bytes(&mut b);
        RistrettoPoint::from_uniform_bytes(&b)
    }
    fn hash_to_elem(&self, bytes: &[u8; 64]) -> RistrettoPoint {
        self.ops.add(Op::HashToElem, 1);
        RistrettoPoint::from_uniform_bytes(bytes)
    }

    fn write_wire(&self, e: &RistrettoPoint, out: &mut Vec<u8>) {
        self.ops.add(Op::WriteWire, 1);
        out.extend_from_slice(e.compress().as_bytes());
    }
    fn read_wire(&self, bytes: &[u8]) -> Result<RistrettoPoint, Error> {
        self.ops.add(Op::ReadWire, 1);
        let c = CompressedRistretto::from_slice(bytes).map_err(|_| Error::Element {
            group: "ec",
            why: format!("{} bytes, expected 32", bytes.len()),
        })?;
        c.decompress().ok_or(Error::Element {
            group: "ec",
            why: "not the canonical encoding of a ristretto255 point".into(),
        })
    }

    fn encode_payload(&self, bytes: &[u8]) -> Result<RistrettoPoint, Error> {
        self.ops.add(Op::EncodePayload, 1);
        if bytes.len() > PAYLOAD {
            return Err(Error::PayloadTooLong {
                group: "ec",
                got: bytes.len(),
                max: PAYLOAD,
            });
        }
        let mut s = [0u8; 32];
        s[1..1 + bytes.len()].copy_from_slice(bytes);
        for counter in 0..128u8 {
            s[0] = counter << 1;
            if let Some(p) = CompressedRistretto(s).decompress() {
                return Ok(p);
            }
        }
        // Unreachable in practice (probability below 2^-53 per payload).
        Err(Error::Payload("no counter gives a point"))
    }
    fn decode_payload(&self, e: &RistrettoPoint) -> Result<Vec<u8>, Error> {
        self.ops.add(Op::DecodePayload, 1);
        let s = e.compress().to_bytes();
        if s[31] != 0 {
            return Err(Error::Payload("the last byte of the encoding is not zero"));
        }
        Ok(s[1..1 + PAYLOAD].to_vec())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ristretto_satisfies_the_group_laws() {
        super::super::tests::group_laws(&super::Ristretto::new());
    }
}
