//! cmix-bench end to end: three node processes and the clients over TLS on loopback. A small
//! run writes a report whose envelope conforms to the suite's envelope schema and whose body
//! conforms to docs/report.schema.json (checked with Python's jsonschema), with every node and
//! step and passing delivery checks; one seed gives one digest of the inputs, no seed a fresh
//! one; every injected fault is detected over the network; bad input is refused with exit
//! status 2 before any work.

use measure::testing::{args, Bench};

const BENCH: Bench = measure::bench!("cmix-bench", "cmix");

#[test]
fn a_small_run_writes_a_report_that_conforms_to_the_schema() {
    let run = BENCH.run_in_scratch(
        "run",
        &args(
            "--clients 16,20 --groups ec,mg --threads 1,2 --reps 2 --ec-width 2 \
             --unit-seconds 0.01",
        ),
    );
    let stderr = &run.stderr;
    assert!(
        stderr.contains("[progress] cmix ec clients=16 threads=1 batches: 2/2 done"),
        "{stderr}"
    );
    let report = BENCH.enveloped(&run.out, true);
    assert!(report["seed"].is_null());
    assert_eq!(report["parameters"]["clients"], serde_json::json!([16, 20]));
    let r = &report["body"];
    let runs = r["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2 * 2 * 2);
    for run in runs {
        assert_eq!(run["status"], "PASSED", "{run}");
        assert_eq!(run["checks"]["delivered_exactly_once"], true);
        assert_eq!(run["checks"]["permuted"], true);
        assert_eq!(run["checks"]["batches"], 2);
        let steps = run["steps"].as_array().unwrap();
        // Every node reports the six phases and its tag steps.
        assert_eq!(steps.len(), 3 * 8, "{run}");
        for s in steps {
            assert!(s["lower_bound_s"].as_f64().unwrap() > 0.0, "{s}");
            assert_eq!(s["cpu_s"]["n"], 2);
        }
        // The first node receives every client's slot; the last node delivers every message.
        let find = |node: u64, step: &str| {
            steps
                .iter()
                .find(|s| s["node"] == node && s["step"] == step)
                .unwrap()
                .clone()
        };
        let clients = run["clients"].as_u64().unwrap();
        let width = run["elements_per_slot"].as_u64().unwrap();
        let wire = if run["group"] == "ec" { 32 } else { 256 };
        assert!(
            find(0, "realpre")["bytes_received"]["mean"]
                .as_f64()
                .unwrap()
                >= (clients * width * wire) as f64
        );
        assert!(
            find(2, "realpost")["bytes_sent"]["mean"].as_f64().unwrap()
                >= (clients * run["payload_bytes_per_slot"].as_u64().unwrap()) as f64
        );
        // realmix: one multiplication per element at every node.
        assert_eq!(
            find(1, "realmix")["ops"]["mul"].as_f64().unwrap(),
            (clients * width) as f64
        );
        for setup in run["setup"].as_array().unwrap() {
            assert_eq!(setup["tls_handshakes"]["count"], clients);
        }
    }
    // ec against mg, per step and per payload byte.
    assert!(!r["comparison"].as_array().unwrap().is_empty());
    // Measurements only: verdicts against targets are the analysis's.
    assert!(r.get("targets").is_none());
}

/// A run with `tamper` injected in `group` succeeds (a detected fault is a passed check) and
/// reports the fault as detected, with an error that `says` what.
fn detected(group: &str, tamper: &str, says: &str) {
    let name = format!("tamper-{group}-{}", tamper.replace(':', "-"));
    let line = format!(
        "--clients 16 --groups {group} --threads 1 --reps 1 --ec-width 2 --unit-seconds 0.005 \
         --tamper {tamper}"
    );
    let run = BENCH.run_in_scratch(&name, &args(&line));
    let r = BENCH.enveloped(&run.out, true);
    let run = &r["body"]["runs"][0];
    assert_eq!(run["status"], "DETECTED", "{run}");
    assert_eq!(run["tamper"], tamper);
    let err = run["error"].as_str().unwrap();
    assert!(err.contains(says), "{group} {tamper}: {err}");
}

#[test]
fn every_fault_is_detected_over_the_network() {
    detected("ec", "proof:2", "proof of knowledge");
    detected("ec", "element:1", "not a valid ec element");
    detected("ec", "tag:0:3", "tagged");
    detected("ec", "tag:2:15", "tagged");
    detected("ec", "share:1:4", "precomputation tag hash");
    detected("ec", "opening:5", "commitment");
    detected("mg", "element:2", "not a valid mg element");
    detected("mg", "tag:1:0", "tagged");
    detected("mg", "share:0:9", "precomputation tag hash");
}

#[test]
fn bad_input_exits_2_before_any_work() {
    let cases = [
        ("--clients 3", "--clients 3"),
        ("--clients 16 --groups ec,dh", "unknown group"),
        ("--clients 16 --threads 0", "--threads 0"),
        ("--clients 16 --reps 0", "--reps 0"),
        ("--clients 16 --ec-width 0", "--ec-width 0"),
        ("--clients 16 --tamper tag:5:1", "node 5"),
        ("--clients 16 --tamper tag:1:16", "slot 16"),
        ("--clients 16 --tamper melt:1", "expected proof:N"),
        ("--clients 16 --seed abc", "64 hexadecimal digits"),
        ("--clients x", "invalid value"),
    ];
    let stderrs = BENCH.refuses_bad_input(&cases, "--clients 16");
    for ((args, _), stderr) in cases.iter().zip(stderrs) {
        assert!(
            !stderr.contains("timing the operations"),
            "{args:?} started work: {stderr}"
        );
    }
}

#[test]
fn one_seed_gives_the_same_inputs_and_no_seed_fresh_ones() {
    let small =
        args("--clients 16 --groups ec,mg --threads 1 --reps 2 --ec-width 1 --unit-seconds 0.001");
    BENCH.seeds_reproduce(&small, |r, seed| {
        let keys = r["body"]["protocol"]["keys"].as_str().unwrap();
        let derived = keys.contains("derived from the public seed (not secret)");
        assert_eq!(derived, seed.is_some(), "{keys}");
    });
}

#[test]
fn the_sample_report_conforms_and_every_run_passed() {
    // data/sample-report.json is the default run the results file's figures come from.
    let report = BENCH.enveloped(&BENCH.path("data/sample-report.json"), true);
    assert_ne!(report["provenance"]["commit"], "unknown");
    let r = &report["body"];
    for group in ["ec", "mg", "mg-full"] {
        for threads in [1, 2] {
            assert!(
                r["runs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|x| x["group"] == group
                        && x["clients"] == 500
                        && x["threads"] == threads
                        && x["status"] == "PASSED"),
                "{group} at 500 clients, {threads} threads"
            );
        }
    }
}
