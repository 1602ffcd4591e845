//! veccom-bench end to end: a small run writes an enveloped report whose envelope and body
//! conform to their schemas (checked with Python's jsonschema), covering every scheme and
//! operation with passing checks; one --seed gives one input digest; bad input is refused with
//! exit status 2 before any work.

use measure::testing::{read_json, Bench};

const BENCH: Bench = Bench {
    exe: env!("CARGO_BIN_EXE_veccom-bench"),
    crate_dir: env!("CARGO_MANIFEST_DIR"),
    name: "veccom",
};

#[test]
fn a_small_run_writes_a_report_that_conforms_to_the_schema() {
    let dir = BENCH.scratch("run");
    let out = dir.join("sub/report.json");
    let o = BENCH.run(&[
        "--n",
        "5",
        "--merkle-n",
        "9",
        "--threads",
        "1,2",
        "--reps",
        "2",
        "--rep-seconds",
        "0.001",
        "--batch",
        "3",
        "--ablation-n",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("[progress] veccom pairing-bls12-381 n=5"),
        "{stderr}"
    );
    assert!(
        stderr.contains("[veccom] merkle-sha256 n=9 threads=1 verify"),
        "{stderr}"
    );
    BENCH.validate_enveloped(&out).unwrap();
    let report = read_json(&out);
    assert_eq!(report["passed"], true);
    assert_eq!(report["tool"], "veccom-bench");
    assert!(report["provenance"]["commit"].is_string());
    let r = report["body"].clone();
    let rows = r["rows"].as_array().unwrap();
    let has = |scheme: &str, op: &str, threads: u64| {
        rows.iter()
            .any(|x| x["scheme"] == scheme && x["operation"] == op && x["threads"] == threads)
    };
    for op in [
        "setup",
        "commit",
        "prove",
        "verify",
        "commit_update",
        "proof_update",
        "prove_batch",
        "aggregate",
        "verify_batch",
    ] {
        assert!(has("pairing-bls12-381", op, 1), "pairing {op}");
    }
    for scheme in ["merkle-sha256", "merkle-blake3"] {
        for op in [
            "commit",
            "prove",
            "verify",
            "commit_update",
            "tree_update",
            "proof_update",
            "proof_update_with_hint",
        ] {
            assert!(has(scheme, op, 1), "{scheme} {op}");
        }
        assert!(has(scheme, "commit", 2));
        assert!(
            !has(scheme, "verify", 2),
            "one-thread operations are not repeated"
        );
    }
    assert!(has("pairing-bls12-381", "commit", 2) && !has("pairing-bls12-381", "verify", 2));
    for x in rows {
        assert_eq!(x["verified"], true, "{x}");
        let bounded = matches!(
            x["operation"].as_str().unwrap(),
            "commit" | "verify" | "commit_update" | "proof_update"
        );
        if bounded {
            assert!(x["lower_bound"]["ratio_cpu"].as_f64().unwrap() > 0.0, "{x}");
        }
    }
    assert!(!r["ablation"].as_array().unwrap().is_empty());

    // The schema is not vacuous: a row without its CPU time, or an unknown scheme, fails.
    let mut broken = report.clone();
    broken["body"]["rows"][0]
        .as_object_mut()
        .unwrap()
        .remove("cpu_s");
    let bad = dir.join("broken.json");
    std::fs::write(&bad, serde_json::to_string(&broken).unwrap()).unwrap();
    assert!(BENCH
        .validate_enveloped(&bad)
        .unwrap_err()
        .contains("cpu_s"));
    let mut broken = report.clone();
    broken["body"]["rows"][1]["scheme"] = "rsa-accumulator".into();
    std::fs::write(&bad, serde_json::to_string(&broken).unwrap()).unwrap();
    assert!(BENCH.validate_enveloped(&bad).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_sample_report_conforms_to_the_schema() {
    let r = BENCH.path("data/sample-report.json");
    BENCH.validate_enveloped(&r).unwrap();
}

/// The inputs digest of a small run (set-up, commit and verify of each scheme at n = 4).
fn inputs_of(dir: &std::path::Path, name: &str, seed: Option<&str>) -> String {
    let out = dir.join(name);
    let mut args = vec![
        "--n",
        "4",
        "--merkle-n",
        "4",
        "--threads",
        "1",
        "--ops",
        "setup,commit,verify",
        "--reps",
        "1",
        "--rep-seconds",
        "0.001",
        "--ablation-n",
        "none",
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
    let other = "f".repeat(64);
    assert_ne!(a, inputs_of(&dir, "c.json", Some(&other)));
    assert_ne!(
        inputs_of(&dir, "d.json", None),
        inputs_of(&dir, "e.json", None)
    );
    assert!(read_json(&dir.join("a.json"))["body"]["trapdoor"]
        .as_str()
        .unwrap()
        .contains("not secret"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_refused_with_a_message_and_status_2() {
    let dir = BENCH.scratch("bad");
    let out = dir.join("r.json");
    let o = out.to_str().unwrap();
    for (args, needle) in [
        (vec!["--n", "0", "--out", o], "n = 0"),
        (vec!["--schemes", "rsa", "--out", o], "unknown scheme"),
        (vec!["--threads", "0", "--out", o], "thread counts"),
        (vec!["--ops", "frobnicate", "--out", o], "unknown operation"),
        (vec!["--n", "2^3..100", "--out", o], "powers of two"),
        (vec!["--reps", "0", "--out", o], "repetitions"),
        (vec!["--seed", "42", "--out", o], "64 hexadecimal digits"),
        (vec!["--out", dir.to_str().unwrap()], "is a directory"),
    ] {
        BENCH.refuses(&args, needle);
        assert!(!out.exists(), "no report on bad input");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
