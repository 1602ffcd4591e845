//! The published reference figures are well-formed data: the declared columns, known
//! experiments, groups and statuses, positive values where the run finished and none where it
//! was killed.

use measure::testing::reference_figures;

#[test]
fn reference_figures_are_well_formed() {
    let header = [
        "experiment",
        "keys_in",
        "n",
        "prove_s",
        "proof_bytes",
        "verify_ms",
        "status",
        "k",
        "advice_columns",
        "lookup_bits",
        "limb_bits",
        "num_limbs",
        "machine",
        "threads",
        "source",
    ];
    let mut rows = 0;
    let mut m1_n8_fastest = f64::INFINITY;
    for (line, f) in reference_figures(env!("CARGO_MANIFEST_DIR"), &header) {
        assert!(["msp_a", "msp_b"].contains(&f[0].as_str()), "{line}");
        assert!(["G1", "G2", "unstated"].contains(&f[1].as_str()), "{line}");
        let n: u64 = f[2].parse().unwrap();
        assert!(n >= 2, "{line}");
        let num = |i: usize| -> Option<f64> {
            (!f[i].is_empty()).then(|| f[i].parse::<f64>().expect("a number"))
        };
        match f[6].as_str() {
            "ok" => {
                assert!(num(3).unwrap() > 0.0 && num(5).unwrap() > 0.0, "{line}");
                assert!(num(4).is_none_or(|b| b > 0.0));
                let k = num(7).unwrap();
                assert!((17.0..=21.0).contains(&k), "{line}");
            }
            "killed (out of memory)" => {
                assert!(
                    num(3).is_none() && num(4).is_none() && num(5).is_none(),
                    "{line}"
                );
            }
            other => panic!("unknown status {other:?}"),
        }
        assert!(!f[12].is_empty() && !f[14].is_empty(), "{line}");
        if f[0] == "msp_b" && n == 8 && f[12].contains("M1") {
            m1_n8_fastest = m1_n8_fastest.min(num(3).unwrap());
        }
        rows += 1;
    }
    assert_eq!(rows, 26);
    // The figure the analysis compares n = 8's proving time with (analysis/derive/mithril.py).
    assert_eq!(m1_n8_fastest, 114.6814);
}
