//! The three byte forms of a BN254 point in the `.ptau` format and its hashes.
//!
//! - *LEM* (what the file stores): affine x then y, each coordinate little-endian in Montgomery
//!   form (R = 2^256), an F_q^2 coordinate as c0 then c1. This is also how arkworks holds an
//!   element, so the bytes are its limbs. The point at infinity is all zeros.
//! - *Uncompressed* (what the challenge hashes read): x then y in standard form, big-endian, an
//!   F_q^2 coordinate written as one big-endian number of 64 bytes, i.e. c1 then c0. Infinity is
//!   all zeros.
//! - *Compressed* (what the response hash reads): x alone as above, with bit 7 of the first byte
//!   set when y is "negative" (above (q - 1)/2; in F_q^2 the sign of c1, or of c0 when c1 = 0).
//!   Infinity is 0x40 followed by zeros.

use ark_bn254::{g1, g2, Fq, Fq2, G1Affine, G2Affine};
use ark_ec::short_weierstrass::Affine;
use ark_ec::AffineRepr;
use ark_ff::{BigInteger, PrimeField, Zero};

pub const G1_BYTES: usize = 64;
pub const G2_BYTES: usize = 128;

/// Whether `x` lies in the upper half of F_q (the sign the encodings and hash-to-G2 use).
pub fn fq_negative(x: &Fq) -> bool {
    x.into_bigint() > Fq::MODULUS_MINUS_ONE_DIV_TWO
}

pub fn fq2_negative(x: &Fq2) -> bool {
    if x.c1.is_zero() {
        fq_negative(&x.c0)
    } else {
        fq_negative(&x.c1)
    }
}

fn lem(out: &mut Vec<u8>, x: &Fq) {
    for limb in x.0 .0 {
        out.extend_from_slice(&limb.to_le_bytes());
    }
}

/// An F_q^2 element in LEM: c0 then c1.
fn lem2(out: &mut Vec<u8>, x: &Fq2) {
    lem(out, &x.c0);
    lem(out, &x.c1);
}

fn be(out: &mut Vec<u8>, x: &Fq) {
    out.extend_from_slice(&x.into_bigint().to_bytes_be());
}

/// An F_q^2 element as one big-endian number: c1 then c0.
fn be2(out: &mut Vec<u8>, x: &Fq2) {
    be(out, &x.c1);
    be(out, &x.c0);
}

/// x then y, each written by `coordinate`; infinity as `bytes` zeros.
fn affine<P: AffineRepr>(
    out: &mut Vec<u8>,
    p: &P,
    bytes: usize,
    coordinate: fn(&mut Vec<u8>, &P::BaseField),
) {
    match p.xy() {
        None => out.resize(out.len() + bytes, 0),
        Some((x, y)) => {
            coordinate(out, x);
            coordinate(out, y);
        }
    }
}

/// x written by `coordinate`, flagged when y is `negative`; infinity as 0x40 and zeros, `bytes`
/// in all.
fn compressed<P: AffineRepr>(
    out: &mut Vec<u8>,
    p: &P,
    bytes: usize,
    coordinate: fn(&mut Vec<u8>, &P::BaseField),
    negative: fn(&P::BaseField) -> bool,
) {
    let start = out.len();
    match p.xy() {
        None => {
            out.resize(start + bytes, 0);
            out[start] = 0x40;
        }
        Some((x, y)) => {
            coordinate(out, x);
            if negative(y) {
                out[start] |= 0x80;
            }
        }
    }
}

pub fn g1_lem(out: &mut Vec<u8>, p: &G1Affine) {
    affine(out, p, G1_BYTES, lem)
}

pub fn g2_lem(out: &mut Vec<u8>, p: &G2Affine) {
    affine(out, p, G2_BYTES, lem2)
}

pub fn g1_uncompressed(out: &mut Vec<u8>, p: &G1Affine) {
    affine(out, p, G1_BYTES, be)
}

pub fn g2_uncompressed(out: &mut Vec<u8>, p: &G2Affine) {
    affine(out, p, G2_BYTES, be2)
}

pub fn g1_compressed(out: &mut Vec<u8>, p: &G1Affine) {
    compressed(out, p, G1_BYTES / 2, be, fq_negative)
}

pub fn g2_compressed(out: &mut Vec<u8>, p: &G2Affine) {
    compressed(out, p, G2_BYTES / 2, be2, fq2_negative)
}

/// A point type's three encodings, so that a section is written by one generic routine.
pub trait Encode: Sync {
    const BYTES: usize;
    fn lem(&self, out: &mut Vec<u8>);
    fn uncompressed(&self, out: &mut Vec<u8>);
    fn compressed(&self, out: &mut Vec<u8>);
}

impl Encode for Affine<g1::Config> {
    const BYTES: usize = G1_BYTES;
    fn lem(&self, out: &mut Vec<u8>) {
        g1_lem(out, self)
    }
    fn uncompressed(&self, out: &mut Vec<u8>) {
        g1_uncompressed(out, self)
    }
    fn compressed(&self, out: &mut Vec<u8>) {
        g1_compressed(out, self)
    }
}

impl Encode for Affine<g2::Config> {
    const BYTES: usize = G2_BYTES;
    fn lem(&self, out: &mut Vec<u8>) {
        g2_lem(out, self)
    }
    fn uncompressed(&self, out: &mut Vec<u8>) {
        g2_uncompressed(out, self)
    }
    fn compressed(&self, out: &mut Vec<u8>) {
        g2_compressed(out, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_encode_as_their_coordinates() {
        // G1's generator is (1, 2): Montgomery form of 1 is R mod q, so LEM is not (1, 2).
        let mut u = Vec::new();
        g1_uncompressed(&mut u, &G1Affine::generator());
        let mut expected = vec![0u8; 64];
        expected[31] = 1;
        expected[63] = 2;
        assert_eq!(u, expected);
        let mut c = Vec::new();
        g1_compressed(&mut c, &G1Affine::generator());
        assert_eq!(c, expected[..32], "y = 2 is in the lower half: no flag");
        let mut l = Vec::new();
        g1_lem(&mut l, &G1Affine::generator());
        assert_eq!(l.len(), 64);
        assert_ne!(l[..32], expected[..32]);
        let mut c = Vec::new();
        g1_compressed(&mut c, &(-G1Affine::generator()));
        assert_eq!(c[0], 0x80, "-G has y = q - 2: flagged");
        let mut z = Vec::new();
        g2_compressed(&mut z, &G2Affine::zero());
        assert_eq!(z[0], 0x40);
        assert!(z[1..].iter().all(|&b| b == 0) && z.len() == 64);
    }
}
