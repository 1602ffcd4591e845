//! The `collab-groth16` binary end to end: party processes over loopback TCP, report.json (its
//! byte counts against the protocol's message sizes and the kernel's, and its JSON Schema),
//! exit codes for a verified proof, a tampered share, and bad input.

mod common;

use serde_json::Value;

use common::cli::{
    circuit, collab, free_addr, introduce_and_finish, run, run_args, saved_key, scratch,
    separate_party, waiting_coordinator, Introduced, BENCH,
};
use measure::testing::{assert_refused, stderr};

/// The bodies of the messages one party sends each other party in the online phase, as the
/// protocol defines them (field elements 32 bytes, G1 64, G2 128, vectors with an 8-byte
/// length).
fn online_messages(variant: &str, n: u64) -> Vec<u64> {
    let open_ab = (8 + 32 * n) * 2 + 32 * 2 + 64 * 2 + 128;
    let open_c = 64;
    match variant {
        "semi-honest" => vec![open_ab, open_c],
        // randomisers (eps vector + coin commitment), coin reveal, sigma commitment, sigma reveal
        // (field, G1 and view digest inside a byte vector, and the nonce).
        "malicious" => vec![8 + 64 + 32, open_ab, 64, 32, 8 + 32 + 64 + 32 + 32, open_c],
        _ => unreachable!(),
    }
}

/// What TLS 1.3 adds to a frame of `len` bytes (its 4-byte length included): each record of up
/// to 16 KiB of data carries a 5-byte header, a content-type byte and a 16-byte AEAD tag. A
/// frame that the TLS writer takes in more than one piece may end a record early, hence a
/// range: (least, most).
fn tls_overhead(len: u64) -> (u64, u64) {
    let records = len.div_ceil(16384);
    (22 * records, 22 * (2 * records))
}

#[test]
fn parties_prove_and_every_byte_is_accounted_for() {
    let dir = scratch("ok");
    circuit(&dir);
    let (out, report) = run(
        &dir,
        &["--parties", "2,3", "--variants", "semi-honest,malicious"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let enveloped = report.unwrap();
    assert_eq!(enveloped["passed"], true);
    assert_eq!(enveloped["tool"], "collab-groth16");
    BENCH.validate_enveloped(&dir.path("report.json")).unwrap();
    let r = &enveloped["body"];
    assert_eq!(r["single_prover"]["status"], "PASSED");
    // One sample before the runs, one after each.
    assert_eq!(r["single_prover"]["samples"].as_array().unwrap().len(), 5);
    let n = r["inputs"]["domain_size"].as_u64().unwrap();
    let runs = r["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    for run in runs {
        let m = run["parties"].as_u64().unwrap();
        let variant = run["variant"].as_str().unwrap();
        assert_eq!(run["status"], "PASSED", "{run}");
        let parties = run["per_party"].as_array().unwrap();
        assert_eq!(parties.len() as u64, m);
        let frames: Vec<u64> = online_messages(variant, n).iter().map(|b| 4 + b).collect();
        let payload: u64 = frames.iter().sum();
        let (least, most) = frames
            .iter()
            .map(|&f| tls_overhead(f))
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
        for p in parties {
            let online = &p["online"];
            assert_eq!(p["outcome"], "proof");
            // The protocol's frames, exactly; on the sockets, those frames in TLS records.
            let u = |k: &str| online[k].as_u64().unwrap();
            assert_eq!(u("payload_bytes_sent"), (m - 1) * payload, "{variant}");
            assert_eq!(u("payload_bytes_received"), u("payload_bytes_sent"));
            assert_eq!(u("messages_sent"), (m - 1) * frames.len() as u64);
            for k in ["bytes_sent", "bytes_received"] {
                let tls = u(k) - (m - 1) * payload;
                assert!(
                    (m - 1) * least <= tls && tls <= (m - 1) * most,
                    "{variant}: {k} adds {tls} bytes to the frames, not {least}..{most} per peer"
                );
            }
            assert_eq!(online["rounds"], if variant == "malicious" { 6 } else { 2 });
            // The kernel counted the same bytes on the same connections: the TLS handshakes
            // (two links per pair of parties, one each way) and the online phase.
            assert!(u("connection_bytes_received") > u("bytes_received"));
            assert_eq!(
                online["tcp_bytes_received"],
                online["connection_bytes_received"]
            );
            assert!(online["cpu_s"].as_f64().unwrap() > 0.0);
            assert_eq!(p["refused_connections"], serde_json::json!([]));
        }
        assert_eq!(run["refused_connections"], serde_json::json!([]));
        // The dealer sends party 0 its explicit shares and everyone else a seed; each party
        // received on its socket exactly what the dealer sent it, TLS records included.
        let dealt = run["dealer"]["bytes_sent_per_party"].as_array().unwrap();
        assert!(dealt[0].as_u64().unwrap() > 32 * n);
        assert!(dealt[1..].iter().all(|b| b.as_u64().unwrap() < 200));
        for (p, sent) in parties.iter().zip(dealt) {
            assert_eq!(p["preprocessing"]["bytes_received"], *sent, "{variant}");
        }
    }
    check_schema(r);
}

/// Validates `report` against docs/report.schema.json with the reference JSON Schema
/// implementation (Python's jsonschema, which scripts/install installs), and checks that the
/// schema rejects a report with a key missing and one with a wrong type.
fn check_schema(report: &Value) {
    let dir = scratch("schema");
    let validate = |doc: &Value| -> bool {
        let path = dir.path("doc.json");
        std::fs::write(&path, doc.to_string()).unwrap();
        BENCH.validate(&path).map_err(|e| eprintln!("{e}")).is_ok()
    };
    assert!(validate(report), "report.json does not match its schema");
    let mut missing = report.clone();
    missing["runs"][0]["per_party"][0]["online"]
        .as_object_mut()
        .unwrap()
        .remove("bytes_sent");
    assert!(!validate(&missing));
    let mut wrong = report.clone();
    wrong["runs"][0]["summary"]["online_cpu_s_max"] = Value::from("fast");
    assert!(!validate(&wrong));
}

#[test]
fn a_tampered_share_fails_the_run_with_exit_1() {
    let dir = scratch("tamper");
    circuit(&dir);
    for (variant, spec) in [
        ("semi-honest", "witness:1:3"),
        ("malicious", "triple-x:0:7"),
    ] {
        let (out, report) = run(
            &dir,
            &["--parties", "2", "--variants", variant, "--tamper", spec],
        );
        assert_eq!(out.status.code(), Some(1), "{variant}: {}", stderr(&out));
        let enveloped = report.expect("the report is written for a failed run");
        assert_eq!(enveloped["passed"], false);
        let r = &enveloped["body"];
        assert_eq!(r["tamper"], spec);
        assert_eq!(r["runs"][0]["status"], "FAILED");
        // Semi-honest parties notice only when they verify the opened proof; malicious ones
        // abort at the MAC check, before C is opened.
        let outcome = if variant == "malicious" {
            "abort"
        } else {
            "rejected"
        };
        for p in r["runs"][0]["per_party"].as_array().unwrap() {
            assert_eq!(p["outcome"], outcome, "{variant}");
        }
    }
}

#[test]
fn bad_input_exits_2_before_any_work() {
    let dir = scratch("bad");
    circuit(&dir);
    let cases: [(&[&str], &str); 9] = [
        (&["--parties", "9"], "2 to 8"),
        (&["--variants", "honest"], "unknown variant"),
        (&["--tamper", "a-share:5", "--parties", "2"], "party 5"),
        (&["--no-spawn"], "--no-spawn needs --pk"),
        (&["--threads", "0"], "at least 1"),
        (&["--network", "moon"], "--network"),
        (&["--kill-party", "1:dance"], "expected PARTY:STEP"),
        (&["--kill-party", "2:fft", "--parties", "2"], "party 2"),
        (&["--kill-party", "0:mac_check"], "no mac_check step"),
    ];
    for (extra, message) in cases {
        let (out, report) = run(&dir, extra);
        assert_refused(&out, &format!("{extra:?}"), message);
        assert!(report.is_none());
    }
    let json = dir.path("r.json");
    let out = collab(run_args(&dir, "c.r1cs", "bad.wtns", &json));
    assert_refused(&out, "a bad witness", "does not satisfy");
    let out = collab(run_args(&dir, "missing.r1cs", "c.wtns", &json));
    assert_refused(&out, "no R1CS", "missing.r1cs");
}

/// Parties started by hand join a coordinator that waits for them; the certificates go through
/// the processes' pipes, carried as an operator would.
#[test]
fn parties_started_separately_join_a_waiting_coordinator() {
    let dir = scratch("nospawn");
    circuit(&dir);
    let pk = saved_key(&dir);
    let (addr, json) = (free_addr(), dir.path("r.json"));
    let coordinator = waiting_coordinator(&dir, &json, &pk, &addr, 3);
    assert!(
        coordinator.line.starts_with("coordinator "),
        "{}",
        coordinator.line
    );
    let mut parties: Vec<Introduced> = (0..3)
        .map(|id| separate_party(&dir, &pk, &addr, id, "127.0.0.1:0"))
        .collect();
    let enveloped = introduce_and_finish(coordinator, &mut parties, &json);
    let r = &enveloped["body"];
    assert_eq!(r["setup"]["source"], "file");
    assert_eq!(r["runs"][0]["per_party"].as_array().unwrap().len(), 3);
}

/// C, the Beaver products and h carry no MAC in the malicious variant: a deviation there is not
/// caught by the MAC check but yields a proof that every party's Groth16 verifier rejects (and
/// the run fails), never an accepted false proof. The report's security model says so.
#[test]
fn a_deviation_in_an_unmaced_value_gives_a_proof_every_party_rejects() {
    let dir = scratch("unmaced");
    circuit(&dir);
    for spec in ["c-share:0", "triple-z:1:100"] {
        let (out, report) = run(
            &dir,
            &[
                "--parties",
                "2",
                "--variants",
                "malicious",
                "--tamper",
                spec,
            ],
        );
        assert_eq!(out.status.code(), Some(1), "{spec}: {}", stderr(&out));
        let enveloped = report.expect("the report is written for a failed run");
        assert_eq!(enveloped["passed"], false);
        let run = &enveloped["body"]["runs"][0];
        assert_eq!(run["status"], "FAILED");
        for p in run["per_party"].as_array().unwrap() {
            assert_eq!(p["outcome"], "rejected", "{spec}: no MAC catches it");
        }
        let model = run["security_model"].as_str().unwrap();
        assert!(
            model.contains(
                "A deviation makes the run abort, or yields a proof every party rejects; \
                 never an accepted false proof"
            ),
            "{model}"
        );
        assert!(model.contains("TLS 1.3") && model.contains("Trusted dealer"));
        assert!(enveloped["body"]["channels"]
            .as_str()
            .unwrap()
            .starts_with("TLS 1.3, mutually authenticated, pinned"));
    }
}

/// One seed, one set of inputs: the same --seed gives the same proving key and dealt material
/// (the envelope's inputs_sha256), no seed gives fresh ones.
#[test]
fn one_seed_gives_the_same_inputs_and_no_seed_fresh_ones() {
    let dir = scratch("seed");
    circuit(&dir);
    let seed = "00ff".repeat(16);
    let digest = |extra: &[&str]| {
        let mut args = vec!["--parties", "2"];
        args.extend_from_slice(extra);
        let (out, report) = run(&dir, &args);
        assert!(out.status.success(), "{}", stderr(&out));
        let r = report.unwrap();
        assert!(r["body"]["randomness"]
            .as_str()
            .unwrap()
            .contains(if extra.is_empty() {
                "CSPRNG"
            } else {
                "derived from the public seed (not secret)"
            }));
        r["inputs_sha256"].as_str().unwrap().to_string()
    };
    let (a, b) = (digest(&["--seed", &seed]), digest(&["--seed", &seed]));
    assert_eq!(a, b);
    let (c, d) = (digest(&[]), digest(&[]));
    assert_ne!(c, d);
    assert_ne!(a, c);
}
