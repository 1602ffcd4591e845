//! The seed's published figures are well-formed data, and the thesis's prepre figures the
//! report compares with are the ones in the table.

use std::path::Path;

use measure::testing::csv_rows;

#[test]
fn seed_figures_are_well_formed_and_match_the_reports_targets() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/seed-figures.csv");
    let header = [
        "quantity", "group", "clients", "value", "unit", "machine", "source",
    ];
    let mut prepre = vec![];
    for (line, f) in csv_rows(&path, &header) {
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
            prepre.push((f[1].clone(), v));
        }
    }
    for (family, v) in cmix::measurement::report::THESIS_PREPRE_500 {
        assert!(
            prepre.iter().any(|(f, x)| f == family && *x == v),
            "{family} {v} not in the table"
        );
    }
}
