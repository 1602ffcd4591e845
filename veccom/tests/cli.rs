//! veccom-bench end to end: a small run writes an enveloped report whose envelope and body
//! conform to their schemas (checked with Python's jsonschema), covering every scheme and
//! operation with passing checks; one --seed gives one input digest; bad input is refused with
//! exit status 2 before any work.

use measure::testing::{args, Bench};
use veccom::measurement::workload::{MERKLE_OPS, PAIRING_OPS};

const BENCH: Bench = measure::bench!("veccom-bench", "veccom");

#[test]
fn a_small_run_writes_a_report_that_conforms_to_the_schema() {
    let run = BENCH.run_in_scratch(
        "run",
        &args(
            "--n 5 --merkle-n 9 --threads 1,2 --reps 2 --rep-seconds 0.001 --batch 3 \
             --ablation-n 4",
        ),
    );
    let stderr = &run.stderr;
    assert!(
        stderr.contains("[progress] veccom pairing-bls12-381 n=5"),
        "{stderr}"
    );
    assert!(
        stderr.contains("[veccom] merkle-sha256 n=9 threads=1 verify"),
        "{stderr}"
    );
    let report = BENCH.enveloped(&run.out, true);
    assert!(report["provenance"]["commit"].is_string());
    let r = report["body"].clone();
    let rows = r["rows"].as_array().unwrap();
    let has = |scheme: &str, op: &str, threads: u64| {
        rows.iter()
            .any(|x| x["scheme"] == scheme && x["operation"] == op && x["threads"] == threads)
    };
    for op in ["setup"].iter().chain(&PAIRING_OPS) {
        assert!(has("pairing-bls12-381", op, 1), "pairing {op}");
    }
    for scheme in ["merkle-sha256", "merkle-blake3"] {
        for op in MERKLE_OPS {
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
    let bad = run.scratch.path("broken.json");
    std::fs::write(&bad, serde_json::to_string(&broken).unwrap()).unwrap();
    assert!(BENCH
        .validate_enveloped(&bad)
        .unwrap_err()
        .contains("cpu_s"));
    let mut broken = report.clone();
    broken["body"]["rows"][1]["scheme"] = "rsa-accumulator".into();
    std::fs::write(&bad, serde_json::to_string(&broken).unwrap()).unwrap();
    assert!(BENCH.validate_enveloped(&bad).is_err());
}

#[test]
fn the_sample_report_conforms_to_the_schema() {
    let r = BENCH.path("data/sample-report.json");
    BENCH.validate_enveloped(&r).unwrap();
}

#[test]
fn one_seed_gives_the_same_inputs_and_no_seed_fresh_ones() {
    // Set-up, commit and verify of each scheme at n = 4.
    let small = args(
        "--n 4 --merkle-n 4 --threads 1 --ops setup,commit,verify --reps 1 --rep-seconds 0.001 \
         --ablation-n none",
    );
    BENCH.seeds_reproduce(&small, |r, seed| {
        let trapdoor = r["body"]["trapdoor"].as_str().unwrap();
        assert_eq!(
            trapdoor.contains("not secret"),
            seed.is_some(),
            "{trapdoor}"
        );
    });
}

#[test]
fn bad_input_is_refused_with_a_message_and_status_2() {
    let cases = [
        ("--n 0", "n = 0"),
        ("--schemes rsa", "unknown scheme"),
        ("--threads 0", "thread counts"),
        ("--ops frobnicate", "unknown operation"),
        ("--n 2^3..100", "powers of two"),
        ("--reps 0", "repetitions"),
        ("--seed 42", "64 hexadecimal digits"),
    ];
    BENCH.refuses_bad_input(&cases, "");
}
