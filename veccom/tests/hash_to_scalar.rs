//! Value hashing equals an independent RFC 9380 hash_to_field written in Python (hashlib).

use std::path::Path;
use std::process::Command;

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
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scalar_reference.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(std::str::from_utf8(VALUE_DST).unwrap())
        .args(&hexes)
        .output()
        .expect("python3 must be installed for the independent hash_to_field");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
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
