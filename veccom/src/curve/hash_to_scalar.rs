//! Values to scalars: m = hash_to_field(value) of RFC 9380 (section 5.2) for F_r, with
//! expand_message_xmd over SHA-256, L = 48 bytes (ceil((255 + 128) / 8): the reduction mod r is
//! then 2^-128-close to uniform) and a domain-separation tag naming this scheme, so a value's
//! scalar here is never a scalar of another protocol hashing the same bytes.

use blst::blst_expand_message_xmd;

use super::fr::Scalar;

/// The domain-separation tag of value hashing in the pairing-based vector commitment.
pub const VALUE_DST: &[u8] = b"VECCOM-V01-CS01-with-BLS12381-FR_XMD:SHA-256_";

/// Bytes drawn from the expander per scalar (L of RFC 9380 for a 255-bit field, k = 128).
pub const EXPAND_BYTES: usize = 48;

/// expand_message_xmd(msg, dst, len) with SHA-256 (RFC 9380, section 5.3.1).
pub fn expand_message_xmd(msg: &[u8], dst: &[u8], len: usize) -> Vec<u8> {
    assert!(len <= 255 * 32, "expand_message_xmd: at most 8160 bytes");
    assert!(
        dst.len() <= 255,
        "expand_message_xmd: DST longer than 255 bytes"
    );
    let mut out = vec![0u8; len];
    // SAFETY: blst writes `len` bytes into `out` and reads `msg.len()` and `dst.len()` bytes.
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

/// hash_to_field(msg, 1) into F_r under `dst`.
pub fn hash_to_scalar_with_dst(msg: &[u8], dst: &[u8]) -> Scalar {
    let mut uniform = [0u8; EXPAND_BYTES];
    // SAFETY: as in `expand_message_xmd`, with the fixed output length of the array.
    unsafe {
        blst_expand_message_xmd(
            uniform.as_mut_ptr(),
            EXPAND_BYTES,
            msg.as_ptr(),
            msg.len(),
            dst.as_ptr(),
            dst.len(),
        )
    };
    Scalar::from_be_bytes_mod_r(&uniform)
}

/// The scalar m of one committed value.
pub fn hash_value(value: &[u8]) -> Scalar {
    hash_to_scalar_with_dst(value, VALUE_DST)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    /// RFC 9380, appendix K.1 (expand_message_xmd, SHA-256, DST
    /// "QUUX-V01-CS02-with-expander-SHA256-128").
    #[test]
    fn expander_matches_rfc9380_vectors() {
        let dst = b"QUUX-V01-CS02-with-expander-SHA256-128";
        assert_eq!(
            hex(&expand_message_xmd(b"", dst, 0x20)),
            "68a985b87eb6b46952128911f2a4412bbc302a9d759667f87f7a21d803f07235"
        );
        assert_eq!(
            hex(&expand_message_xmd(b"abc", dst, 0x20)),
            "d8ccab23b5985ccea865c6c97b6e5b8350e794e603b4b97902f53a8a0d605615"
        );
    }

    #[test]
    fn values_hash_to_distinct_scalars() {
        let a = hash_value(b"value a");
        assert_eq!(a, hash_value(b"value a"));
        assert_ne!(a, hash_value(b"value b"));
        assert_ne!(a, hash_to_scalar_with_dst(b"value a", b"OTHER-DST"));
    }
}
