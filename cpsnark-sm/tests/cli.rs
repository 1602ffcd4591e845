//! End-to-end tests of `cpsnark-bench`: a short run writes a report that validates against the
//! envelope and body schemas; one seed gives the same inputs, no seed fresh ones; bad input is
//! refused before any work.

use measure::testing::{args, Bench, SEEDS};

const BENCH: Bench = measure::bench!("cpsnark-bench", "cpsnark");

/// The arguments of a short run of `groups` at n = 16.
fn short_args(groups: &str) -> Vec<&str> {
    let short = args("--n 16 --samples 10 --warm-up 0.01 --measurement 0.01 --groups");
    [short, vec![groups]].concat()
}

#[test]
fn a_short_run_writes_a_valid_report() {
    let dir = BENCH.scratch("report");
    let out = dir.join("report.json");
    BENCH.run_seeded(&short_args("prove,verify,witness"), &out, Some(SEEDS[0]));
    let r = BENCH.enveloped(&out, true);
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
    let args = [short_args("witness"), vec!["--security", "paper"]].concat();
    BENCH.run_seeded(&args, &out, None);
    let r = BENCH.enveloped(&out, true);
    assert_eq!(r["parameters"]["security"], "paper");
    assert_eq!(r["body"]["security"]["challenge_bits"], 120);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_seed_gives_the_same_inputs_and_no_seed_fresh_ones() {
    BENCH.seeds_reproduce(&short_args("witness"), |_, _| {});
}

#[test]
fn bad_input_is_refused_before_any_work() {
    let cases = [
        ("--samples 5", "--samples"),
        ("--seed 42", "64 hexadecimal digits"),
        ("--groups prove,sign", "--groups"),
        ("--security 80", "--security"),
        ("--warm-up 0", "--warm-up"),
    ];
    // An output that is a directory too: refused before the setup.
    BENCH.refuses_bad_input(&cases, "");
}
