//! Value hashing equals an independent RFC 9380 hash_to_field written in Python (hashlib).

use measure::testing::python_reference;
use veccom::curve::hash_to_scalar::{hash_value, VALUE_DST};

#[test]
fn value_scalars_equal_python_hash_to_field() {
    let messages: Vec<Vec<u8>> = vec![
        vec![],
        b"abc".to_vec(),
        vec![0xff; 32],
        (0..200u8).collect(),
    ];
    let hexes: Vec<String> = messages
        .iter()
        .map(|m| m.iter().map(|b| format!("{b:02x}")).collect())
        .collect();
    let mut args = vec![std::str::from_utf8(VALUE_DST).unwrap()];
    args.extend(hexes.iter().map(String::as_str));
    let out = python_reference(env!("CARGO_MANIFEST_DIR"), "scalar_reference.py", &args);
    let want: Vec<String> = out.lines().map(str::to_string).collect();
    assert_eq!(want.len(), messages.len());
    for (m, w) in messages.iter().zip(&want) {
        let got: String = hash_value(m)
            .to_be_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(&got, w, "message {m:?}");
    }
}
