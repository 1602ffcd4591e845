//! The published reference figures are well-formed data: the declared columns, known schemes
//! and units, positive values, and operation names that are this crate's or listed extras.

use measure::testing::reference_figures;

use veccom::measurement::run::known_operations;

/// Reference operations with no measurement of the same name here (see data/README.md).
const EXTRAS: [&str; 4] = [
    "tree_build",
    "prove_from_scratch",
    "commitment_size",
    "proof_size",
];

#[test]
fn reference_figures_are_well_formed() {
    let header = [
        "operation",
        "scheme",
        "n",
        "value",
        "unit",
        "machine",
        "source",
    ];
    let known = known_operations();
    let mut rows = 0;
    for (line, f) in reference_figures(env!("CARGO_MANIFEST_DIR"), &header) {
        assert!(
            known.contains(&f[0].as_str()) || EXTRAS.contains(&f[0].as_str()),
            "{line}"
        );
        assert!(
            ["pairing-bls12-381", "merkle-sha256"].contains(&f[1].as_str()),
            "{line}"
        );
        assert!(f[2].parse::<usize>().unwrap() >= 1);
        assert!(f[3].parse::<f64>().unwrap() > 0.0, "{line}");
        assert!(
            ["ms", "us", "ns", "bytes"].contains(&f[4].as_str()),
            "{line}"
        );
        assert!(!f[5].is_empty() && f[6].len() > 10, "{line}");
        rows += 1;
    }
    assert_eq!(rows, 20);
}
