//! mithril-bench end to end: a small run (native rows, circuit sizes, no proof) writes an
//! enveloped report whose envelope and body conform to their schemas (checked with Python's
//! jsonschema) and covers every native operation with passing checks; the reports in data/
//! conform too; one --seed gives one input digest; bad input is refused with exit status 2
//! before any work.

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
    BENCH.validate_enveloped(&out).unwrap();
    let report = read_json(&out);
    assert_eq!(report["passed"], true);
    assert_eq!(report["tool"], "mithril-bench");
    let r = report["body"].clone();
    assert!(r.get("targets").is_none(), "verdicts live in the analysis");
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
    // mithril-stm at the native signer counts: like for like with ours, and its full STM
    // verification, both verified.
    let stm = r["stm"]["rows"].as_array().unwrap();
    for op in ["verify_aggregate", "stm_verify"] {
        assert!(
            stm.iter()
                .any(|x| x["operation"] == op && x["n"] == 64 && x["verified"] == true),
            "{op}"
        );
    }
    assert!(stm
        .iter()
        .filter(|x| x["operation"] == "verify_aggregate")
        .all(|x| x["ours_over_stm"].as_f64().unwrap() > 0.0));
    let sizes = r["circuit"]["sizes"].as_array().unwrap();
    assert_eq!(sizes.len(), 2);
    assert!(sizes[1]["advice_cells"].as_u64() > sizes[0]["advice_cells"].as_u64());
    let ex = &r["circuit"]["fit"]["extrapolations"][0];
    assert_eq!(
        (ex["n"].as_u64(), ex["extrapolated"].as_bool()),
        (Some(8), Some(true))
    );
    let left: Vec<_> = std::fs::read_dir(out.parent().unwrap()).unwrap().collect();
    assert_eq!(left.len(), 1, "no temporary file left");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_reports_in_data_conform_to_the_schema() {
    for name in ["sample-report.json", "n8-unloaded-report.json"] {
        let path = BENCH.path(&format!("data/{name}"));
        BENCH
            .validate_enveloped(&path)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// The inputs digest of a small native run (n = 2, one batch of one aggregate).
fn inputs_of(dir: &std::path::Path, name: &str, seed: Option<&str>) -> String {
    let out = dir.join(name);
    let mut args = vec![
        "--parts",
        "native",
        "--native-n",
        "2",
        "--threads",
        "1",
        "--batch",
        "1",
        "--reps",
        "1",
        "--rep-seconds",
        "0.001",
        "--out",
        out.to_str().unwrap(),
    ];
    if let Some(s) = seed {
        args.extend(["--seed", s]);
    }
    let o = BENCH.run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = read_json(&out);
    assert_eq!(r["seed"].as_str(), seed);
    r["inputs_sha256"].as_str().unwrap().to_string()
}

#[test]
fn one_seed_gives_the_same_inputs_and_no_seed_fresh_ones() {
    let dir = BENCH.scratch("seed");
    let seed = "0123456789abcdef".repeat(4);
    let a = inputs_of(&dir, "a.json", Some(&seed));
    assert_eq!(a, inputs_of(&dir, "b.json", Some(&seed)));
    assert_ne!(a, inputs_of(&dir, "c.json", Some(&"e".repeat(64))));
    assert_ne!(
        inputs_of(&dir, "d.json", None),
        inputs_of(&dir, "e.json", None)
    );
    assert!(read_json(&dir.join("a.json"))["body"]["keys"]
        .as_str()
        .unwrap()
        .contains("derived from the public seed (not secret)"));
    std::fs::remove_dir_all(&dir).unwrap();
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
        (&["--seed", "00"], "64 hexadecimal digits"),
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
