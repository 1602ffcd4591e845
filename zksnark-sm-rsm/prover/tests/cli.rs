//! The `zksnark-prover` binary end to end on circom-format files written to a temporary
//! directory: run, setup/prove/verify, exit codes, and the JSON report.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ark_bn254::Fr;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use zksnark_prover::synthetic::synthetic;
use zksnark_prover::writer::{r1cs_bytes, wtns_bytes};

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("zksnark-prover-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }
    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
    fn s(&self, file: &str) -> String {
        self.path(file).to_string_lossy().into_owned()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A small satisfiable circuit (and a broken witness for it) written as .r1cs/.wtns files.
fn circuit(dir: &Dir) {
    let (r1cs, mut w) = synthetic::<Fr, _>(64, 3, &mut ChaCha20Rng::seed_from_u64(42));
    std::fs::write(dir.path("c.r1cs"), r1cs_bytes(&r1cs)).unwrap();
    std::fs::write(dir.path("c.wtns"), wtns_bytes(&w)).unwrap();
    let last = w.len() - 1;
    w[last] += Fr::from(1u64);
    std::fs::write(dir.path("bad.wtns"), wtns_bytes(&w)).unwrap();
}

fn prover(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zksnark-prover"))
        .args(args)
        .env_remove("RAYON_NUM_THREADS")
        .output()
        .expect("binary runs")
}

/// `run` on one thread with the given R1CS, witness and report paths.
fn run_one_thread(r1cs: &str, wtns: &str, json: &str) -> Output {
    prover(&[
        "run",
        "--r1cs",
        r1cs,
        "--wtns",
        wtns,
        "--out",
        json,
        "--threads",
        "1",
    ])
}

const SEED: &str = "0101010101010101010101010101010101010101010101010101010101010101";

fn body_schema() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.schema.json")
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exited normally")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn run_writes_report_and_passes() {
    let d = Dir::new("run");
    circuit(&d);
    let (r, w, j) = (d.s("c.r1cs"), d.s("c.wtns"), d.s("out.json"));
    let args = [
        "run",
        "--r1cs",
        &r,
        "--wtns",
        &w,
        "--threads",
        "2",
        "--out",
        &j,
        "--seed",
        SEED,
    ];
    let out = prover(&args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("Number of constraints: 64"));
    assert!(stderr(&out).contains("PASSED"));
    measure::testing::validate_enveloped(&body_schema(), &d.path("out.json")).unwrap();
    let enveloped = measure::testing::read_json(&d.path("out.json"));
    assert_eq!(enveloped["tool"], "zksnark-prover");
    assert_eq!(enveloped["passed"], true);
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

#[test]
fn run_rejects_unsatisfying_witness_without_report() {
    let d = Dir::new("runbad");
    circuit(&d);
    let (r, w, j) = (d.s("c.r1cs"), d.s("bad.wtns"), d.s("out.json"));
    let out = run_one_thread(&r, &w, &j);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("does not satisfy the R1CS"),
        "{}",
        stderr(&out)
    );
    assert!(!d.path("out.json").exists());
}

#[test]
fn setup_prove_verify_and_tampering() {
    let d = Dir::new("spv");
    circuit(&d);
    let (r, w, pk, vk) = (d.s("c.r1cs"), d.s("c.wtns"), d.s("pk.bin"), d.s("vk.bin"));
    let (proof, public) = (d.s("proof.bin"), d.s("public.json"));

    let out = prover(&[
        "setup", "--r1cs", &r, "--pk", &pk, "--vk", &vk, "--seed", SEED,
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = prover(&[
        "prove",
        "--r1cs",
        &r,
        "--wtns",
        &w,
        "--pk",
        &pk,
        "--proof",
        &proof,
        "--public",
        &public,
        "--threads",
        "1",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    let out = prover(&["verify", "--vk", &vk, "--proof", &proof, "--wtns", &w]);
    assert_eq!(
        (code(&out), stdout(&out).trim()),
        (0, "PASSED"),
        "{}",
        stderr(&out)
    );
    let out = prover(&[
        "verify", "--vk", &vk, "--proof", &proof, "--public", &public,
    ]);
    assert_eq!(
        (code(&out), stdout(&out).trim()),
        (0, "PASSED"),
        "{}",
        stderr(&out)
    );

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
    let t = d.s("tampered.json");
    let out = prover(&["verify", "--vk", &vk, "--proof", &proof, "--public", &t]);
    assert_eq!(code(&out), 1);
    assert!(stdout(&out).starts_with("FAILED"));

    // Tampered proof: flip bits in each byte position class; every variant must fail.
    let bytes = std::fs::read(d.path("proof.bin")).unwrap();
    for pos in [0, 10, 40, 70, 100, bytes.len() - 1] {
        let mut bad = bytes.clone();
        bad[pos] ^= 0x04;
        std::fs::write(d.path("bad-proof.bin"), &bad).unwrap();
        let bp = d.s("bad-proof.bin");
        let out = prover(&["verify", "--vk", &vk, "--proof", &bp, "--wtns", &w]);
        assert_eq!(code(&out), 1, "byte {pos}: {}", stdout(&out));
        assert!(stdout(&out).starts_with("FAILED"), "byte {pos}");
    }

    // An unsatisfying witness gives no proof.
    let (bw, p2) = (d.s("bad.wtns"), d.s("proof2.bin"));
    let out = prover(&[
        "prove", "--r1cs", &r, "--wtns", &bw, "--pk", &pk, "--proof", &p2,
    ]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("does not satisfy the R1CS"));
    assert!(!d.path("proof2.bin").exists());
}

#[test]
fn bad_input_exits_2_naming_the_file() {
    let d = Dir::new("bad");
    circuit(&d);
    let bytes = std::fs::read(d.path("c.r1cs")).unwrap();
    std::fs::write(d.path("short.r1cs"), &bytes[..bytes.len() / 3]).unwrap();
    let (r, w, j) = (d.s("short.r1cs"), d.s("c.wtns"), d.s("out.json"));
    let out = run_one_thread(&r, &w, &j);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains(&r) && err.contains("truncated"), "{err}");

    let missing = d.s("missing.r1cs");
    let out = prover(&["run", "--r1cs", &missing, "--wtns", &w, "--out", &j]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains(&missing));

    // A witness file given where the R1CS belongs.
    let out = prover(&["run", "--r1cs", &w, "--wtns", &w, "--out", &j]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("expected magic \"r1cs\""),
        "{}",
        stderr(&out)
    );

    let out = prover(&[
        "run",
        "--r1cs",
        &d.s("c.r1cs"),
        "--wtns",
        &w,
        "--out",
        &j,
        "--threads",
        "0",
    ]);
    assert_eq!(code(&out), 2);
    assert!(!Path::new(&j).exists());

    // A seed that is not 64 hexadecimal digits.
    let out = prover(&[
        "run", "--r1cs", &w, "--wtns", &w, "--out", &j, "--seed", "42",
    ]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("64 hexadecimal digits"),
        "{}",
        stderr(&out)
    );
}

/// One seed, one set of keys: two runs with the same --seed derive the same verification key
/// (the report's inputs digest covers it), two runs without a seed draw fresh ones.
#[test]
fn one_seed_gives_the_same_keys_and_no_seed_fresh_ones() {
    let d = Dir::new("seed");
    circuit(&d);
    let (r, w) = (d.s("c.r1cs"), d.s("c.wtns"));
    let digest = |name: &str, seed: Option<&str>| {
        let j = d.s(name);
        let mut args = vec![
            "run",
            "--r1cs",
            &r,
            "--wtns",
            &w,
            "--out",
            &j,
            "--threads",
            "1",
        ];
        if let Some(s) = seed {
            args.extend(["--seed", s]);
        }
        let out = prover(&args);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        measure::testing::read_json(&d.path(name))["inputs_sha256"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(digest("a.json", Some(SEED)), digest("b.json", Some(SEED)));
    assert_ne!(digest("c.json", None), digest("d.json", None));
}

/// The proof and key `run` writes in snarkjs's JSON form verify with `verify`; A and C swapped
/// do not.
#[test]
fn run_writes_snarkjs_json_that_verify_reads() {
    let d = Dir::new("snarkjs");
    circuit(&d);
    let (r, w, j) = (d.s("c.r1cs"), d.s("c.wtns"), d.s("out.json"));
    let (proof, vk, public) = (d.s("proof.json"), d.s("vk.json"), d.s("public.json"));
    let out = prover(&[
        "run", "--r1cs", &r, "--wtns", &w, "--out", &j, "--proof", &proof, "--vk", &vk, "--public",
        &public,
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = prover(&[
        "verify", "--vk", &vk, "--proof", &proof, "--public", &public,
    ]);
    assert_eq!((code(&out), stdout(&out).trim()), (0, "PASSED"));
    let mut p = measure::testing::read_json(&d.path("proof.json"));
    let a = p["pi_a"].clone();
    p["pi_a"] = p["pi_c"].clone();
    p["pi_c"] = a;
    std::fs::write(d.path("swapped.json"), p.to_string()).unwrap();
    let s = d.s("swapped.json");
    let out = prover(&["verify", "--vk", &vk, "--proof", &s, "--public", &public]);
    assert_eq!((code(&out), stdout(&out).trim()), (1, "FAILED"));
}
