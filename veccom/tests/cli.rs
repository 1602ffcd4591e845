//! veccom-bench end to end: a small run writes a report that conforms to
//! docs/report.schema.json (checked with Python's jsonschema), covers every scheme and
//! operation with passing checks, and bad input is refused with exit status 2 before any work.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_veccom-bench"))
        .args(args)
        .env("SUITE_PROGRESS", "lines")
        .output()
        .expect("veccom-bench runs")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("veccom-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn schema() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.schema.json")
}

/// Validates `report` against the schema with Python's jsonschema; Err(message) if invalid.
fn validate(report: &Path) -> Result<(), String> {
    let code = "import json, sys, jsonschema\n\
                s = json.load(open(sys.argv[1]))\n\
                jsonschema.Draft202012Validator.check_schema(s)\n\
                errs = sorted(jsonschema.Draft202012Validator(s).iter_errors(json.load(open(sys.argv[2]))), key=str)\n\
                print('\\n'.join(e.message for e in errs))\n\
                sys.exit(1 if errs else 0)\n";
    let out = Command::new("python3")
        .args(["-c", code])
        .arg(schema())
        .arg(report)
        .output()
        .expect("python3 with jsonschema (requirements.txt) is needed to check the schema");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[test]
fn a_small_run_writes_a_report_that_conforms_to_the_schema() {
    let dir = scratch("run");
    let out = dir.join("sub/report.json");
    let o = bench(&[
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
    validate(&out).unwrap();
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(r["all_verified"], true);
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
    assert!(r["provenance"]["commit"].is_string());

    // The schema is not vacuous: a row without its CPU time, or an unknown scheme, fails.
    let mut broken = r.clone();
    broken["rows"][0].as_object_mut().unwrap().remove("cpu_s");
    let bad = dir.join("broken.json");
    std::fs::write(&bad, serde_json::to_string(&broken).unwrap()).unwrap();
    assert!(validate(&bad).unwrap_err().contains("cpu_s"));
    let mut broken = r.clone();
    broken["rows"][1]["scheme"] = "rsa-accumulator".into();
    std::fs::write(&bad, serde_json::to_string(&broken).unwrap()).unwrap();
    assert!(validate(&bad).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_reference_report_conforms_to_the_schema() {
    let r = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/reference-report.json");
    validate(&r).unwrap();
}

#[test]
fn bad_input_is_refused_with_a_message_and_status_2() {
    let dir = scratch("bad");
    let out = dir.join("r.json");
    let o = out.to_str().unwrap();
    for (args, needle) in [
        (vec!["--n", "0", "--out", o], "n = 0"),
        (vec!["--schemes", "rsa", "--out", o], "unknown scheme"),
        (vec!["--threads", "0", "--out", o], "thread counts"),
        (vec!["--ops", "frobnicate", "--out", o], "unknown operation"),
        (vec!["--n", "2^3..100", "--out", o], "powers of two"),
        (vec!["--reps", "0", "--out", o], "repetitions"),
        (vec!["--out", dir.to_str().unwrap()], "is a directory"),
    ] {
        let r = bench(&args);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!out.exists(), "no report on bad input");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
