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

use ark_bn254::{Fq, Fq2};
use ark_ec::short_weierstrass::{Affine, SWCurveConfig};
use ark_ec::AffineRepr;
use ark_ff::{BigInteger, PrimeField, Zero};

/// Whether `x` lies in the upper half of F_q (the sign the encodings and hash-to-G2 use).
pub fn fq_negative(x: &Fq) -> bool {
    x.into_bigint() > Fq::MODULUS_MINUS_ONE_DIV_TWO
}

/// Whether `x` is "negative": the sign of c1, or of c0 when c1 is zero.
pub fn fq2_negative(x: &Fq2) -> bool {
    if x.c1.is_zero() {
        fq_negative(&x.c0)
    } else {
        fq_negative(&x.c1)
    }
}

/// A coordinate's byte forms: an element of F_q, or of F_q^2 (as two of F_q).
pub trait Coordinate {
    /// Bytes of one coordinate.
    const BYTES: usize;
    /// LEM: little-endian Montgomery form, c0 then c1 in F_q^2.
    fn lem(&self, out: &mut Vec<u8>);
    /// Big-endian standard form, in F_q^2 one number of twice the bytes: c1 then c0.
    fn be(&self, out: &mut Vec<u8>);
    /// The sign of the compressed encoding.
    fn negative(&self) -> bool;
}

impl Coordinate for Fq {
    const BYTES: usize = 32;
    fn lem(&self, out: &mut Vec<u8>) {
        for limb in self.0 .0 {
            out.extend_from_slice(&limb.to_le_bytes());
        }
    }
    fn be(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.into_bigint().to_bytes_be());
    }
    fn negative(&self) -> bool {
        fq_negative(self)
    }
}

impl Coordinate for Fq2 {
    const BYTES: usize = 64;
    fn lem(&self, out: &mut Vec<u8>) {
        self.c0.lem(out);
        self.c1.lem(out);
    }
    fn be(&self, out: &mut Vec<u8>) {
        self.c1.be(out);
        self.c0.be(out);
    }
    fn negative(&self) -> bool {
        fq2_negative(self)
    }
}

/// A point type's three encodings, so that a section is written by one generic routine.
pub trait Encode: Sync {
    /// The bytes of one point in the LEM form.
    const BYTES: usize;
    /// Appends the LEM form: affine x then y, little-endian Montgomery limbs.
    fn lem(&self, out: &mut Vec<u8>);
    /// Appends the uncompressed form the challenge hashes read.
    fn uncompressed(&self, out: &mut Vec<u8>);
    /// Appends the compressed form the response hash reads.
    fn compressed(&self, out: &mut Vec<u8>);
}

impl<P: SWCurveConfig> Encode for Affine<P>
where
    P::BaseField: Coordinate,
{
    const BYTES: usize = 2 * <P::BaseField as Coordinate>::BYTES;

    fn lem(&self, out: &mut Vec<u8>) {
        coordinates(out, self, Coordinate::lem)
    }

    fn uncompressed(&self, out: &mut Vec<u8>) {
        coordinates(out, self, Coordinate::be)
    }

    /// x alone, flagged when y is negative; infinity as 0x40 and zeros.
    fn compressed(&self, out: &mut Vec<u8>) {
        let start = out.len();
        match self.xy() {
            None => {
                out.resize(start + Self::BYTES / 2, 0);
                out[start] = 0x40;
            }
            Some((x, y)) => {
                x.be(out);
                if y.negative() {
                    out[start] |= 0x80;
                }
            }
        }
    }
}

/// x then y, each written by `write`; infinity as zeros.
fn coordinates<P: SWCurveConfig>(
    out: &mut Vec<u8>,
    p: &Affine<P>,
    write: fn(&P::BaseField, &mut Vec<u8>),
) where
    P::BaseField: Coordinate,
{
    match p.xy() {
        None => out.resize(out.len() + <Affine<P> as Encode>::BYTES, 0),
        Some((x, y)) => {
            write(x, out);
            write(y, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::{G1Affine, G2Affine};

    #[test]
    fn generators_encode_as_their_coordinates() {
        // G1's generator is (1, 2): Montgomery form of 1 is R mod q, so LEM is not (1, 2).
        let mut u = Vec::new();
        G1Affine::generator().uncompressed(&mut u);
        let mut expected = vec![0u8; 64];
        expected[31] = 1;
        expected[63] = 2;
        assert_eq!(u, expected);
        let mut c = Vec::new();
        G1Affine::generator().compressed(&mut c);
        assert_eq!(c, expected[..32], "y = 2 is in the lower half: no flag");
        let mut l = Vec::new();
        G1Affine::generator().lem(&mut l);
        assert_eq!(l.len(), 64);
        assert_ne!(l[..32], expected[..32]);
        let mut c = Vec::new();
        (-G1Affine::generator()).compressed(&mut c);
        assert_eq!(c[0], 0x80, "-G has y = q - 2: flagged");
        let mut z = Vec::new();
        G2Affine::zero().compressed(&mut z);
        assert_eq!(z[0], 0x40);
        assert!(z[1..].iter().all(|&b| b == 0) && z.len() == 64);
    }
}
