//! The scalar field F_r of BLS12-381 (r ≈ 2^254.9), the exponents of every group element here.
//!
//! A [`Scalar`] is a `blst_fr` in Montgomery form: additions and products of hashed values (the
//! update difference m' − m, the batch combinations Σ t_i·m_j) stay in that form; the
//! multi-scalar multiplications read the canonical little-endian limbs ([`Scalar::to_limbs`]).

use blst::{
    blst_fr, blst_fr_add, blst_fr_from_scalar, blst_fr_from_uint64, blst_fr_mul, blst_fr_sub,
    blst_scalar, blst_scalar_from_be_bytes, blst_scalar_from_fr, blst_uint64_from_fr,
};
use rand_core::{CryptoRng, RngCore};

/// An element of F_r.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scalar(pub(crate) blst_fr);

impl Scalar {
    /// Zero.
    pub const ZERO: Scalar = Scalar(blst_fr { l: [0; 4] });

    /// The scalar with canonical little-endian limbs `limbs`, which must be below r.
    pub fn from_limbs(limbs: [u64; 4]) -> Scalar {
        let mut out = blst_fr::default();
        // SAFETY: both pointers are valid for the four limbs blst reads and writes.
        unsafe { blst_fr_from_uint64(&mut out, limbs.as_ptr()) };
        Scalar(out)
    }

    /// A small integer.
    pub fn from_u128(x: u128) -> Scalar {
        Scalar::from_limbs([x as u64, (x >> 64) as u64, 0, 0])
    }

    /// The integer whose big-endian bytes are `bytes` (any length), reduced mod r.
    pub fn from_be_bytes_mod_r(bytes: &[u8]) -> Scalar {
        let mut s = blst_scalar::default();
        // SAFETY: blst reads exactly `bytes.len()` bytes and writes one 32-byte scalar.
        unsafe { blst_scalar_from_be_bytes(&mut s, bytes.as_ptr(), bytes.len()) };
        let mut out = blst_fr::default();
        // SAFETY: `s` is a valid scalar below r (blst reduced it), `out` is writable.
        unsafe { blst_fr_from_scalar(&mut out, &s) };
        Scalar(out)
    }

    /// A uniformly random scalar: 512 random bits reduced mod r (bias below 2^-256).
    pub fn random<R: RngCore + CryptoRng>(rng: &mut R) -> Scalar {
        let mut wide = [0u8; 64];
        rng.fill_bytes(&mut wide);
        let s = Scalar::from_be_bytes_mod_r(&wide);
        wide.fill(0);
        s
    }

    /// Canonical little-endian 64-bit limbs (the integer in [0, r)).
    pub fn to_limbs(&self) -> [u64; 4] {
        let mut out = [0u64; 4];
        // SAFETY: `out` holds the four limbs blst writes; `self.0` is a valid field element.
        unsafe { blst_uint64_from_fr(out.as_mut_ptr(), &self.0) };
        out
    }

    /// Canonical 32-byte little-endian encoding, the form blst's scalar multiplications read.
    pub fn to_le_bytes(&self) -> [u8; 32] {
        let mut s = blst_scalar::default();
        // SAFETY: `s` is writable, `self.0` a valid field element.
        unsafe { blst_scalar_from_fr(&mut s, &self.0) };
        s.b
    }

    /// Canonical 32-byte big-endian encoding.
    pub fn to_be_bytes(&self) -> [u8; 32] {
        let mut b = self.to_le_bytes();
        b.reverse();
        b
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        self.0.l == [0; 4]
    }

    /// self + other.
    pub fn add(&self, other: &Scalar) -> Scalar {
        let mut out = blst_fr::default();
        // SAFETY: all three are valid field elements (out may alias neither input here).
        unsafe { blst_fr_add(&mut out, &self.0, &other.0) };
        Scalar(out)
    }

    /// self − other.
    pub fn sub(&self, other: &Scalar) -> Scalar {
        let mut out = blst_fr::default();
        // SAFETY: as in `add`.
        unsafe { blst_fr_sub(&mut out, &self.0, &other.0) };
        Scalar(out)
    }

    /// self · other.
    pub fn mul(&self, other: &Scalar) -> Scalar {
        let mut out = blst_fr::default();
        // SAFETY: as in `add`.
        unsafe { blst_fr_mul(&mut out, &self.0, &other.0) };
        Scalar(out)
    }

    /// Overwrites the value with zero (for the set-up trapdoor).
    pub fn wipe(&mut self) {
        // A volatile write so that the compiler keeps it although the value is dead afterwards.
        // SAFETY: `self.0.l` is a valid, aligned, writable array.
        unsafe { std::ptr::write_volatile(&mut self.0.l, [0; 4]) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limbs_round_trip_and_arithmetic_is_modular() {
        let a = Scalar::from_u128(5);
        let b = Scalar::from_u128(7);
        assert_eq!(a.add(&b), Scalar::from_u128(12));
        assert_eq!(a.mul(&b).to_limbs(), [35, 0, 0, 0]);
        // 5 − 7 = r − 2: adding 2 gives zero.
        assert!(a.sub(&b).add(&Scalar::from_u128(2)).is_zero());
        // r itself reduces to zero.
        let r_be = [
            0x73, 0xed, 0xa7, 0x53, 0x29, 0x9d, 0x7d, 0x48, 0x33, 0x39, 0xd8, 0x08, 0x09, 0xa1,
            0xd8, 0x05, 0x53, 0xbd, 0xa4, 0x02, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0xff, 0xff, 0xff,
            0x00, 0x00, 0x00, 0x01,
        ];
        assert!(Scalar::from_be_bytes_mod_r(&r_be).is_zero());
        let mut x = Scalar::from_u128(9);
        x.wipe();
        assert!(x.is_zero());
        assert_eq!(Scalar::from_u128(1).to_be_bytes()[31], 1);
    }
}
