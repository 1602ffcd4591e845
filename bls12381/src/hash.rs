//! Hashing (RFC 9380): expand_message_xmd with SHA-256, hash_to_field into F_r, and the
//! hash to G1 (`BLS12381G1_XMD:SHA-256_SSWU_RO_`, the random oracle of BLS signatures).

use blst::{blst_expand_message_xmd, blst_hash_to_g1, blst_p1};

use crate::{Scalar, G1};

/// Bytes drawn from the expander per scalar: L of RFC 9380 for a 255-bit field and k = 128,
/// so that the reduction mod r is 2^-128-close to uniform.
pub const SCALAR_EXPAND_BYTES: usize = 48;

/// expand_message_xmd(msg, dst, len) with SHA-256 (RFC 9380, section 5.3.1).
pub fn expand_message_xmd(msg: &[u8], dst: &[u8], len: usize) -> Vec<u8> {
    assert!(len <= 255 * 32, "expand_message_xmd: at most 8160 bytes");
    assert!(
        dst.len() <= 255,
        "expand_message_xmd: DST longer than 255 bytes"
    );
    let mut out = vec![0u8; len];
    // SAFETY: blst writes `len` bytes into `out` (of that length) and reads `msg.len()` and
    // `dst.len()` bytes of the two slices.
    unsafe {
        blst_expand_message_xmd(
            out.as_mut_ptr(),
            len,
            msg.as_ptr(),
            msg.len(),
            dst.as_ptr(),
            dst.len(),
        )
    };
    out
}

/// hash_to_field(msg, 1) into F_r under `dst` (RFC 9380, section 5.2).
pub fn hash_to_scalar(msg: &[u8], dst: &[u8]) -> Scalar {
    assert!(
        dst.len() <= 255,
        "hash_to_scalar: DST longer than 255 bytes"
    );
    let mut uniform = [0u8; SCALAR_EXPAND_BYTES];
    // SAFETY: as in `expand_message_xmd`, with the fixed output length of the array.
    unsafe {
        blst_expand_message_xmd(
            uniform.as_mut_ptr(),
            SCALAR_EXPAND_BYTES,
            msg.as_ptr(),
            msg.len(),
            dst.as_ptr(),
            dst.len(),
        )
    };
    Scalar::from_be_bytes_mod_r(&uniform)
}

/// H(msg) in G1 under the domain separation tag `dst` (hash_to_curve with SSWU and the
/// 11-isogeny, expand_message_xmd with SHA-256).
pub fn hash_to_g1(msg: &[u8], dst: &[u8]) -> G1 {
    let mut out = blst_p1::default();
    // SAFETY: pointer and length pairs of two live slices and an empty augmentation string
    // (length 0: its pointer is not read); `out` is written.
    unsafe {
        blst_hash_to_g1(
            &mut out,
            msg.as_ptr(),
            msg.len(),
            dst.as_ptr(),
            dst.len(),
            std::ptr::null(),
            0,
        )
    };
    G1(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_deterministic_and_separated_by_tag() {
        assert_eq!(expand_message_xmd(b"m", b"T", 48).len(), 48);
        assert_eq!(
            Scalar::from_be_bytes_mod_r(&expand_message_xmd(b"m", b"T", 48)),
            hash_to_scalar(b"m", b"T")
        );
        assert_ne!(hash_to_scalar(b"m", b"T"), hash_to_scalar(b"m", b"U"));
        let h = hash_to_g1(b"m", b"T").to_affine();
        assert_eq!(crate::G1Affine::from_bytes(&h.to_bytes()), Some(h));
        assert_ne!(h, hash_to_g1(b"m", b"U").to_affine());
    }
}
