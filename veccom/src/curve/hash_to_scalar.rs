//! Values to scalars: m = hash_to_field(value) of RFC 9380 (section 5.2) for F_r, with
//! expand_message_xmd over SHA-256, L = 48 bytes (ceil((255 + 128) / 8): the reduction mod r is
//! then 2^-128-close to uniform) and a domain-separation tag naming this scheme, so a value's
//! scalar here is never a scalar of another protocol hashing the same bytes.

pub use bls12381::hash::{
    expand_message_xmd, hash_to_scalar as hash_to_scalar_with_dst,
    SCALAR_EXPAND_BYTES as EXPAND_BYTES,
};

use super::Scalar;

/// The domain-separation tag of value hashing in the pairing-based vector commitment.
pub const VALUE_DST: &[u8] = b"VECCOM-V01-CS01-with-BLS12381-FR_XMD:SHA-256_";

/// The scalar m of one committed value.
pub fn hash_value(value: &[u8]) -> Scalar {
    hash_to_scalar_with_dst(value, VALUE_DST)
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::hex::encode as hex;

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
