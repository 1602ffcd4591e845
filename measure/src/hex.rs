//! Bytes as lower-case hexadecimal text, the form the reports and the programs' messages give
//! digests, seeds and keys in.

/// `bytes` as lower-case hexadecimal digits, two a byte.
pub fn encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of hexadecimal text (either case); `None` for an odd length or a character that is
/// not a hexadecimal digit.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let digits = text
        .chars()
        .map(|c| c.to_digit(16).map(|d| d as u8))
        .collect::<Option<Vec<u8>>>()?;
    (digits.len() % 2 == 0).then(|| digits.chunks(2).map(|p| (p[0] << 4) | p[1]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_what_is_not_hex() {
        let b = [0u8, 1, 7, 171, 255];
        assert_eq!(encode(&b), "000107abff");
        assert_eq!(decode(&encode(&b)).unwrap(), b);
        assert_eq!(decode("ABff").unwrap(), [0xab, 0xff]);
        for bad in ["abc", "0g", "zz", "+f", "é0"] {
            assert!(decode(bad).is_none(), "{bad:?}");
        }
    }
}
