//! F_r, the scalar field of BLS12-381 (r ≈ 2^254.9): the exponents of every group element.
//!
//! A [`Scalar`] is a `blst_fr` in Montgomery form; the scalar multiplications read its canonical
//! little-endian bytes ([`Scalar::to_le_bytes`]).

use blst::{
    blst_fr, blst_fr_add, blst_fr_from_scalar, blst_fr_from_uint64, blst_fr_mul, blst_fr_sub,
    blst_keygen, blst_scalar, blst_scalar_from_be_bytes, blst_scalar_from_bendian,
    blst_scalar_from_fr, blst_sk_check, blst_uint64_from_fr,
};
use rand_core::{CryptoRng, RngCore};

use crate::output;

/// An element of F_r.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct Scalar(pub(crate) blst_fr);

impl Scalar {
    /// Zero.
    pub const ZERO: Scalar = Scalar(blst_fr { l: [0; 4] });

    /// The scalar with canonical little-endian limbs `limbs`, which must be below r.
    pub fn from_limbs(limbs: [u64; 4]) -> Scalar {
        // SAFETY: blst reads four limbs from `limbs` (an array of four) and writes one field
        // element into `out`.
        Scalar(output(|out| unsafe {
            blst_fr_from_uint64(out, limbs.as_ptr())
        }))
    }

    /// A small integer.
    pub fn from_u128(x: u128) -> Scalar {
        Scalar::from_limbs([x as u64, (x >> 64) as u64, 0, 0])
    }

    /// The integer whose big-endian bytes are `bytes` (any length), reduced mod r.
    pub fn from_be_bytes_mod_r(bytes: &[u8]) -> Scalar {
        let mut s = blst_scalar::default();
        // SAFETY: blst reads exactly `bytes.len()` bytes from the slice and writes one 32-byte
        // scalar into `s`.
        unsafe { blst_scalar_from_be_bytes(&mut s, bytes.as_ptr(), bytes.len()) };
        Scalar::from_blst_scalar(&s)
    }

    /// A 32-byte big-endian integer as a secret key is encoded (the BLS standard's form):
    /// `None` unless it is in 1..r.
    pub fn from_be_bytes_checked(bytes: &[u8]) -> Option<Scalar> {
        let bytes: &[u8; 32] = bytes.try_into().ok()?;
        let mut s = blst_scalar::default();
        // SAFETY: blst reads the 32 bytes of the array and writes one scalar into `s`.
        unsafe { blst_scalar_from_bendian(&mut s, bytes.as_ptr()) };
        // SAFETY: `s` is a valid blst_scalar, read only.
        let ok = unsafe { blst_sk_check(&s) };
        ok.then(|| Scalar::from_blst_scalar(&s))
    }

    /// The BLS signature standard's KeyGen (HKDF-SHA-256, key_info empty) on 32 bytes of key
    /// material: a secret key in 1..r.
    pub fn key_gen(ikm: &[u8; 32]) -> Scalar {
        let mut s = blst_scalar::default();
        // SAFETY: blst reads the 32 bytes of `ikm` and no key_info (length 0: the pointer is
        // not read), and writes one scalar into `s`.
        unsafe { blst_keygen(&mut s, ikm.as_ptr(), ikm.len(), std::ptr::null(), 0) };
        Scalar::from_blst_scalar(&s)
    }

    fn from_blst_scalar(s: &blst_scalar) -> Scalar {
        let mut out = blst_fr::default();
        // SAFETY: `s` is a valid scalar below r (blst reduced or checked it); `out` is written.
        unsafe { blst_fr_from_scalar(&mut out, s) };
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
        // SAFETY: blst writes four limbs into `out` (an array of four) and reads one valid
        // field element.
        unsafe { blst_uint64_from_fr(out.as_mut_ptr(), &self.0) };
        out
    }

    /// Canonical 32-byte little-endian encoding, the form blst's scalar multiplications read.
    pub fn to_le_bytes(&self) -> [u8; 32] {
        let mut s = blst_scalar::default();
        // SAFETY: one valid field element read, one scalar written into `s`.
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
    #[inline]
    pub fn add(&self, other: &Scalar) -> Scalar {
        // SAFETY: three valid field elements; `out` is distinct from both inputs.
        Scalar(output(|out| unsafe { blst_fr_add(out, &self.0, &other.0) }))
    }

    /// self − other.
    #[inline]
    pub fn sub(&self, other: &Scalar) -> Scalar {
        // SAFETY: as in `add`.
        Scalar(output(|out| unsafe { blst_fr_sub(out, &self.0, &other.0) }))
    }

    /// self · other.
    #[inline]
    pub fn mul(&self, other: &Scalar) -> Scalar {
        // SAFETY: as in `add`.
        Scalar(output(|out| unsafe { blst_fr_mul(out, &self.0, &other.0) }))
    }

    /// Overwrites the value with zero (for a set-up trapdoor).
    pub fn wipe(&mut self) {
        // A volatile write so that the compiler keeps it although the value is dead afterwards.
        // SAFETY: `self.0.l` is a valid, aligned, writable array of four limbs.
        unsafe { std::ptr::write_volatile(&mut self.0.l, [0; 4]) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R_BE: [u8; 32] = [
        0x73, 0xed, 0xa7, 0x53, 0x29, 0x9d, 0x7d, 0x48, 0x33, 0x39, 0xd8, 0x08, 0x09, 0xa1, 0xd8,
        0x05, 0x53, 0xbd, 0xa4, 0x02, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00,
        0x00, 0x01,
    ];

    #[test]
    fn limbs_round_trip_and_arithmetic_is_modular() {
        let a = Scalar::from_u128(5);
        let b = Scalar::from_u128(7);
        assert_eq!(a.add(&b), Scalar::from_u128(12));
        assert_eq!(a.mul(&b).to_limbs(), [35, 0, 0, 0]);
        // 5 − 7 = r − 2: adding 2 gives zero.
        assert!(a.sub(&b).add(&Scalar::from_u128(2)).is_zero());
        assert!(Scalar::from_be_bytes_mod_r(&R_BE).is_zero());
        let mut x = Scalar::from_u128(9);
        x.wipe();
        assert!(x.is_zero());
        assert_eq!(Scalar::from_u128(1).to_be_bytes()[31], 1);
    }

    #[test]
    fn secret_keys_are_in_one_to_r() {
        let k = Scalar::key_gen(&[7; 32]);
        assert!(!k.is_zero());
        assert_eq!(Scalar::key_gen(&[7; 32]), k, "deterministic");
        assert_ne!(Scalar::key_gen(&[8; 32]), k);
        assert_eq!(Scalar::from_be_bytes_checked(&k.to_be_bytes()), Some(k));
        assert_eq!(Scalar::from_be_bytes_checked(&[0; 32]), None);
        assert_eq!(Scalar::from_be_bytes_checked(&R_BE), None);
        assert_eq!(Scalar::from_be_bytes_checked(&[1; 31]), None);
        // The standard's own key derivation, through blst's safe API, agrees.
        let theirs = blst::min_sig::SecretKey::key_gen(&[7; 32], &[]).unwrap();
        assert_eq!(theirs.to_bytes(), k.to_be_bytes());
    }
}
