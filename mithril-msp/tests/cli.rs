//! mithril-bench end to end: a small run (native rows, circuit sizes, no proof) writes a report
//! that conforms to docs/report.schema.json (checked with Python's jsonschema), covers every
//! native operation with passing checks and its targets; the reference report conforms too;
//! bad input is refused with exit status 2 before any work.

use measure::testing::{read_json, Bench};

const BENCH: Bench = Bench {
    exe: env!("CARGO_BIN_EXE_mithril-bench"),
    crate_dir: env!("CARGO_MANIFEST_DIR"),
    name: "mithril",
};

#[test]
fn a_small_run_writes_a_report_that_conforms_to_the_schema() {
    let dir = BENCH.scratch("run");
    let out = dir.join("sub/report.json");
    let o = BENCH.run(&[
        "--native-n",
        "2,64",
        "--threads",
        "1,2",
        "--batch",
        "2",
        "--reps",
        "2",
        "--rep-seconds",
        "0.001",
        "--circuit-n",
        "none",
        "--size-n",
        "1,2",
        "--ablation-n",
        "none",
        "--extrapolate",
        "8",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("[progress] mithril-msp native"), "{stderr}");
    assert!(
        stderr.contains("[progress] mithril-msp circuit"),
        "{stderr}"
    );
    BENCH.validate(&out).unwrap();
    let r = read_json(&out);
    assert_eq!(r["all_verified"], true);
    let rows = r["native"]["rows"].as_array().unwrap();
    for op in [
        "akey",
        "asig",
        "weights",
        "bkey",
        "bsig",
        "ver",
        "a_total",
        "b_total",
        "batch_verify",
        "ver_each",
    ] {
        assert!(
            rows.iter()
                .any(|x| x["operation"] == op && x["verified"] == true),
            "{op}"
        );
    }
    // One-thread steps at the first thread count only; parallel ones at both.
    assert!(rows
        .iter()
        .any(|x| x["operation"] == "b_total" && x["threads"] == 2));
    assert!(!rows
        .iter()
        .any(|x| x["operation"] == "ver" && x["threads"] == 2));
    assert_eq!(r["native"]["checks"]["cancellation"]["passed"], true);
    let sizes = r["circuit"]["sizes"].as_array().unwrap();
    assert_eq!(sizes.len(), 2);
    assert!(sizes[1]["advice_cells"].as_u64() > sizes[0]["advice_cells"].as_u64());
    let ex = &r["circuit"]["fit"]["extrapolations"][0];
    assert_eq!(
        (ex["n"].as_u64(), ex["extrapolated"].as_bool()),
        (Some(8), Some(true))
    );
    let targets = r["targets"].as_array().unwrap();
    assert!(targets
        .iter()
        .any(|t| t["target"].as_str().unwrap().contains("n = 64")));
    assert!(targets.iter().any(|t| t["target"]
        .as_str()
        .unwrap()
        .contains("cells per signature")));
    let left: Vec<_> = std::fs::read_dir(out.parent().unwrap()).unwrap().collect();
    assert_eq!(left.len(), 1, "no temporary file left");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_reports_in_data_conform_to_the_schema() {
    for name in ["reference-report.json", "n8-unloaded-report.json"] {
        let path = BENCH.path(&format!("data/{name}"));
        BENCH
            .validate(&path)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn bad_input_is_refused_with_status_2_before_any_work() {
    let dir = BENCH.scratch("bad");
    let out = dir.join("r.json");
    let o = out.to_str().unwrap();
    let cases: [(&[&str], &str); 10] = [
        (&["--native-n", "0"], "--native-n"),
        (&["--native-n", "ten"], "--native-n"),
        (&["--threads", "1,x"], "--threads"),
        (&["--k", "9"], "k = 9"),
        (&["--k", "big"], "--k"),
        (&["--pairing", "fast"], "--pairing"),
        (&["--parts", "proofs"], "--parts"),
        (&["--seed", "00"], "--seed"),
        (&["--reps", "0"], "--reps"),
        (&["--circuit-n", "5000"], "--circuit-n"),
    ];
    for (args, needle) in cases {
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["--out", o]);
        BENCH.refuses(&a, needle);
        assert!(!out.exists());
    }
    // An output that is a directory.
    BENCH.refuses(
        &[
            "--parts",
            "native",
            "--native-n",
            "2",
            "--out",
            dir.to_str().unwrap(),
        ],
        "is a directory",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
