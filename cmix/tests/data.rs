//! The thesis's published figures are well-formed data, with the prepre timings at 500
//! clients that the analysis compares with.

use measure::testing::reference_figures;

#[test]
fn thesis_figures_are_well_formed_with_prepre_for_both_groups() {
    let header = [
        "quantity", "group", "clients", "value", "unit", "machine", "source",
    ];
    let mut prepre = vec![];
    for (line, f) in reference_figures(env!("CARGO_MANIFEST_DIR"), &header) {
        assert!(["", "ec", "mg"].contains(&f[1].as_str()), "{line}");
        assert!(f[2].is_empty() || f[2].parse::<u32>().is_ok(), "{line}");
        let v: f64 = f[3].parse().unwrap_or_else(|_| panic!("{line}"));
        assert!(v > 0.0, "{line}");
        assert!(
            ["s", "bytes", "count", "GB"].contains(&f[4].as_str()),
            "{line}"
        );
        assert!(!f[6].is_empty(), "{line}");
        if f[0] == "prepre_user_s_per_node" {
            assert_eq!((f[2].as_str(), f[4].as_str()), ("500", "s"), "{line}");
            prepre.push(f[1].clone());
        }
    }
    prepre.sort();
    assert_eq!(prepre, ["ec", "mg"]);
}
