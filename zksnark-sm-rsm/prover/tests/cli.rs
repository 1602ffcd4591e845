//! The `zksnark-prover` binary end to end on circom-format files written to a temporary
//! directory: run, setup/prove/verify, exit codes, and the JSON report.

mod common;

use std::path::Path;

use ark_bn254::Fr;
use measure::testing::{
    assert_refused, assert_seeds_reproduce, inputs_sha256, read_json, stderr, Scratch,
};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use common::{prove, run, setup_and_prove, verdict, verify, BENCH};
use zksnark_prover::synthetic::synthetic;
use zksnark_prover::writer::{r1cs_bytes, wtns_bytes};

/// A scratch directory for one test with a small satisfiable circuit, and a broken witness for
/// it, as .r1cs/.wtns files.
fn circuit(test: &str) -> Scratch {
    let dir = Scratch::new("zksnark-prover", test);
    let (r1cs, mut w) = synthetic::<Fr, _>(64, 3, &mut ChaCha20Rng::seed_from_u64(42));
    std::fs::write(dir.path("c.r1cs"), r1cs_bytes(&r1cs)).unwrap();
    std::fs::write(dir.path("c.wtns"), wtns_bytes(&w)).unwrap();
    let last = w.len() - 1;
    w[last] += Fr::from(1u64);
    std::fs::write(dir.path("bad.wtns"), wtns_bytes(&w)).unwrap();
    dir
}

const SEED: &str = "0101010101010101010101010101010101010101010101010101010101010101";

#[test]
fn run_writes_report_and_passes() {
    let d = circuit("run");
    let (r, w, j) = (d.s("c.r1cs"), d.s("c.wtns"), d.s("out.json"));
    let out = run(&r, &w, &j, &["--threads", "2", "--seed", SEED]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("Number of constraints: 64") && err.contains("PASSED"));
    let enveloped = BENCH.enveloped(&d.path("out.json"), true);
    assert_eq!(enveloped["seed"], SEED);
    let report = &enveloped["body"];
    assert_eq!(report["constraints"], 64);
    assert_eq!(report["public_inputs"], 3);
    assert_eq!(report["threads"], 2);
    assert_eq!(report["status"], "PASSED");
    for phase in ["setup", "prove", "verify"] {
        for field in ["real", "user", "sys"] {
            assert!(report["phases"][phase][field].as_f64().unwrap() >= 0.0);
        }
    }
    assert!(report["peak_rss_mib"].as_f64().unwrap() > 0.0);
    assert!(report["versions"]["ark-groth16"]
        .as_str()
        .unwrap()
        .starts_with("0.4"));
}

/// `run --expect-public`: the proof is checked against the verifier's public inputs, not the
/// witness's. The witness's own inputs pass and say so; one value changed fails (exit 1, the
/// report written, FAILED, and the inputs not as expected); a file of the wrong length is bad
/// input before any work.
#[test]
fn run_verifies_against_the_expected_public_inputs() {
    let d = circuit("expect");
    let (r, w, j) = (d.s("c.r1cs"), d.s("c.wtns"), d.s("out.json"));
    let (public, expected) = (d.s("public.json"), d.path("expected.json"));
    let out = run(&r, &w, &j, &["--threads", "1", "--public", &public]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = BENCH.enveloped(&d.path("out.json"), true);
    assert_eq!(report["body"]["verified_against"], "witness");
    assert_eq!(
        report["body"]["witness_public_inputs_as_expected"],
        serde_json::Value::Null
    );
    let own: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(&public).unwrap()).unwrap();

    let with = |values: &[String]| {
        std::fs::write(&expected, serde_json::to_string(values).unwrap()).unwrap();
        run(
            &r,
            &w,
            &j,
            &[
                "--threads",
                "1",
                "--expect-public",
                d.s("expected.json").as_str(),
            ],
        )
    };
    let out = with(&own);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let body = &BENCH.enveloped(&d.path("out.json"), true)["body"];
    assert_eq!(body["status"], "PASSED");
    assert_eq!(body["verified_against"], "expected");
    assert_eq!(body["witness_public_inputs_as_expected"], true);

    let mut other = own.clone();
    other[1] = if other[1] == "1" { "2" } else { "1" }.to_string();
    let out = with(&other);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let body = &BENCH.enveloped(&d.path("out.json"), false)["body"];
    assert_eq!(body["status"], "FAILED");
    assert_eq!(body["witness_public_inputs_as_expected"], false);

    let _ = std::fs::remove_file(d.path("out.json"));
    let out = with(&own[1..]);
    assert_refused(
        &out,
        "a short --expect-public",
        "public inputs, but the circuit has 3",
    );
    assert!(!d.path("out.json").exists());
}

#[test]
fn run_rejects_unsatisfying_witness_without_report() {
    let d = circuit("runbad");
    let (r, w, j) = (d.s("c.r1cs"), d.s("bad.wtns"), d.s("out.json"));
    let out = run(&r, &w, &j, &["--threads", "1"]);
    assert_refused(&out, "run", "does not satisfy the R1CS");
    assert!(!d.path("out.json").exists());
}

#[test]
fn setup_prove_verify_and_tampering() {
    let d = circuit("spv");
    let (r, w, pk, vk) = (d.s("c.r1cs"), d.s("c.wtns"), d.s("pk.bin"), d.s("vk.bin"));
    let (proof, public) = (d.s("proof.bin"), d.s("public.json"));

    setup_and_prove(&r, &w, [&pk, &vk, &proof, &public], &["--seed", SEED]);

    let passed = (Some(0), "PASSED".to_string());
    let out = verify(&vk, &proof, &["--wtns", &w]);
    assert_eq!(verdict(&out), passed, "{}", stderr(&out));
    let out = verify(&vk, &proof, &["--public", &public]);
    assert_eq!(verdict(&out), passed, "{}", stderr(&out));

    // Tampered public input: change the first decimal digit string to a different value.
    let values: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(d.path("public.json")).unwrap()).unwrap();
    let mut tampered = values.clone();
    tampered[0] = "12345".into();
    std::fs::write(
        d.path("tampered.json"),
        serde_json::to_string(&tampered).unwrap(),
    )
    .unwrap();
    let (code, said) = verdict(&verify(&vk, &proof, &["--public", &d.s("tampered.json")]));
    assert!(code == Some(1) && said.starts_with("FAILED"), "{said}");

    // Tampered proof: flip bits in each byte position class; every variant must fail.
    let bytes = std::fs::read(d.path("proof.bin")).unwrap();
    for pos in [0, 10, 40, 70, 100, bytes.len() - 1] {
        let mut bad = bytes.clone();
        bad[pos] ^= 0x04;
        std::fs::write(d.path("bad-proof.bin"), &bad).unwrap();
        let (code, said) = verdict(&verify(&vk, &d.s("bad-proof.bin"), &["--wtns", &w]));
        assert!(
            code == Some(1) && said.starts_with("FAILED"),
            "byte {pos}: {said}"
        );
    }

    // An unsatisfying witness gives no proof.
    let out = prove(&r, &d.s("bad.wtns"), &pk, &d.s("proof2.bin"), &[]);
    assert_refused(&out, "prove", "does not satisfy the R1CS");
    assert!(!d.path("proof2.bin").exists());
}

#[test]
fn bad_input_exits_2_naming_the_file() {
    let d = circuit("bad");
    let bytes = std::fs::read(d.path("c.r1cs")).unwrap();
    std::fs::write(d.path("short.r1cs"), &bytes[..bytes.len() / 3]).unwrap();
    let (r, w, j) = (d.s("short.r1cs"), d.s("c.wtns"), d.s("out.json"));
    let out = run(&r, &w, &j, &["--threads", "1"]);
    assert_refused(&out, "a short R1CS", "truncated");
    assert!(stderr(&out).contains(&r));

    let missing = d.s("missing.r1cs");
    assert_refused(&run(&missing, &w, &j, &[]), "no R1CS", &missing);

    // A witness file given where the R1CS belongs.
    let out = run(&w, &w, &j, &[]);
    assert_refused(&out, "a witness as R1CS", "expected magic \"r1cs\"");

    let out = run(&d.s("c.r1cs"), &w, &j, &["--threads", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!Path::new(&j).exists());

    // A seed that is not 64 hexadecimal digits.
    let out = run(&w, &w, &j, &["--seed", "42"]);
    assert_refused(&out, "--seed 42", "64 hexadecimal digits");
}

/// One seed, one set of keys: two runs with the same --seed derive the same verification key
/// (the report's inputs digest covers it), another seed and two runs without a seed draw fresh
/// ones.
#[test]
fn one_seed_gives_the_same_keys_and_no_seed_fresh_ones() {
    let d = circuit("seed");
    let (r, w) = (d.s("c.r1cs"), d.s("c.wtns"));
    assert_seeds_reproduce(|name, seed| {
        let mut extra = vec!["--threads", "1"];
        if let Some(s) = seed {
            extra.extend(["--seed", s]);
        }
        let out = run(&r, &w, &d.s(name), &extra);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        inputs_sha256(&read_json(&d.path(name)))
    });
}

/// The proof and key `run` writes in snarkjs's JSON form verify with `verify`; A and C swapped
/// do not.
#[test]
fn run_writes_snarkjs_json_that_verify_reads() {
    let d = circuit("snarkjs");
    let (r, w, j) = (d.s("c.r1cs"), d.s("c.wtns"), d.s("out.json"));
    let (proof, vk, public) = (d.s("proof.json"), d.s("vk.json"), d.s("public.json"));
    let out = run(
        &r,
        &w,
        &j,
        &["--proof", &proof, "--vk", &vk, "--public", &public],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = verify(&vk, &proof, &["--public", &public]);
    assert_eq!(verdict(&out), (Some(0), "PASSED".into()));
    let mut p = read_json(&d.path("proof.json"));
    let a = p["pi_a"].clone();
    p["pi_a"] = p["pi_c"].clone();
    p["pi_c"] = a;
    std::fs::write(d.path("swapped.json"), p.to_string()).unwrap();
    let out = verify(&vk, &d.s("swapped.json"), &["--public", &public]);
    assert_eq!(verdict(&out), (Some(1), "FAILED".into()));
}
