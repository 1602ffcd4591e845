//! End-to-end tests of `cpsnark-bench`: a short run writes a report that validates against the
//! envelope and body schemas; one seed gives the same inputs, no seed fresh ones; bad input is
//! refused before any work.

use measure::testing::{read_json, Bench};

const BENCH: Bench = Bench {
    exe: env!("CARGO_BIN_EXE_cpsnark-bench"),
    crate_dir: env!("CARGO_MANIFEST_DIR"),
    name: "cpsnark",
};

const SEED: &str = "00000000000000000000000000000000000000000000000000000000000000c5";

/// A short run of `groups` at n = 16 writing `out`; panics unless it passes.
fn short_run(out: &std::path::Path, groups: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "--n",
        "16",
        "--samples",
        "10",
        "--warm-up",
        "0.01",
        "--measurement",
        "0.01",
        "--groups",
        groups,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = BENCH.run(&args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {stderr}");
    read_json(out)
}

#[test]
fn a_short_run_writes_a_valid_report() {
    let dir = BENCH.scratch("report");
    let out = dir.join("report.json");
    let r = short_run(&out, "prove,verify,witness", &["--seed", SEED]);
    BENCH.validate_enveloped(&out).unwrap();
    assert_eq!(r["tool"], "cpsnark-bench");
    assert_eq!(r["passed"], true);
    assert_eq!(r["seed"], SEED);
    assert_eq!(r["parameters"]["n"], 16);
    assert_eq!(r["parameters"]["security"], "128");
    let b = &r["body"];
    assert_eq!(b["security"]["challenge_bits"], 128);
    assert_eq!(b["checks"]["honest_proof"], "verified");
    assert_eq!(b["checks"]["last_timed_proof_verified"], true);
    let groups: Vec<&str> = b["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    assert_eq!(
        groups,
        [
            "membership_hash protocol proving",
            "membership_hash protocol verification",
            "membership_hash creating witness"
        ]
    );
    // The paper's lengths on request, and the report says so.
    let r = short_run(&out, "witness", &["--security", "paper"]);
    BENCH.validate_enveloped(&out).unwrap();
    assert_eq!(r["parameters"]["security"], "paper");
    assert_eq!(r["body"]["security"]["challenge_bits"], 120);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_seed_gives_the_same_inputs_and_no_seed_fresh_ones() {
    let dir = BENCH.scratch("seed");
    let digest = |name: &str, extra: &[&str]| {
        let r = short_run(&dir.join(name), "witness", extra);
        r["inputs_sha256"].as_str().unwrap().to_string()
    };
    let a = digest("a.json", &["--seed", SEED]);
    let b = digest("b.json", &["--seed", SEED]);
    assert_eq!(a, b, "one seed, two different inputs");
    let c = digest("c.json", &[]);
    let d = digest("d.json", &[]);
    assert_ne!(c, d, "two unseeded runs drew the same inputs");
    assert_ne!(a, c);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_refused_before_any_work() {
    let dir = BENCH.scratch("refused");
    let out = dir.join("r.json");
    let out = out.to_str().unwrap();
    BENCH.refuses(&["--samples", "5", "--out", out], "--samples");
    BENCH.refuses(&["--seed", "42", "--out", out], "64 hexadecimal digits");
    BENCH.refuses(&["--groups", "prove,sign", "--out", out], "--groups");
    BENCH.refuses(&["--security", "80", "--out", out], "--security");
    BENCH.refuses(&["--warm-up", "0", "--out", out], "--warm-up");
    // An output that is a directory: refused before the setup.
    BENCH.refuses(&["--out", dir.to_str().unwrap()], "is a directory");
    assert!(!std::path::Path::new(out).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
