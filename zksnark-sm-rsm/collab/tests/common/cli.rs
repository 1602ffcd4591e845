//! The `collab-groth16` binary, run by the tests: a scratch directory with a small circuit,
//! and `run` on it.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

use ark_bn254::Fr;
use ark_ff::One;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::Value;

use measure::testing::{Bench, Scratch};
use zksnark_prover::synthetic::synthetic;
use zksnark_prover::writer::{r1cs_bytes, wtns_bytes};

/// The binary, for [`Bench::validate_enveloped`] (its runs go through [`collab`]).
pub const BENCH: Bench = measure::bench!("collab-groth16", "collab-groth16");

/// A fresh scratch directory for one test, removed when dropped.
pub fn scratch(name: &str) -> Scratch {
    Scratch::new("collab-groth16", name)
}

/// A small satisfiable circuit as .r1cs/.wtns, and a witness that does not satisfy it.
pub fn circuit(dir: &Scratch) {
    let (r1cs, mut w) = synthetic::<Fr, _>(200, 2, &mut ChaCha20Rng::from_entropy());
    std::fs::write(dir.path("c.r1cs"), r1cs_bytes(&r1cs)).unwrap();
    std::fs::write(dir.path("c.wtns"), wtns_bytes(&w)).unwrap();
    let last = w.len() - 1;
    w[last] += Fr::one();
    std::fs::write(dir.path("bad.wtns"), wtns_bytes(&w)).unwrap();
}

pub fn collab(args: impl IntoIterator<Item = impl AsRef<OsStr>>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_collab-groth16"))
        .args(args)
        .env("SUITE_PROGRESS", "off")
        .output()
        .expect("the binary runs")
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The arguments of `collab-groth16 run` on the directory's files `r1cs` and `wtns`, writing
/// the report `out`.
pub fn run_args(dir: &Scratch, r1cs: &str, wtns: &str, out: &Path) -> Vec<String> {
    let (r1cs, wtns) = (dir.s(r1cs), dir.s(wtns));
    ["run", "--r1cs", &r1cs, "--wtns", &wtns, "--out", s(out)]
        .map(String::from)
        .to_vec()
}

/// Runs `collab-groth16 run` on the directory's circuit; the report (the whole envelope) if one
/// was written.
pub fn run(dir: &Scratch, extra: &[&str]) -> (Output, Option<Value>) {
    let json = dir.path("report.json");
    let _ = std::fs::remove_file(&json);
    let mut args = run_args(dir, "c.r1cs", "c.wtns", &json);
    args.extend(extra.iter().map(|a| a.to_string()));
    let out = collab(&args);
    let report = std::fs::read_to_string(&json)
        .ok()
        .map(|t| serde_json::from_str(&t).expect("report.json is JSON"));
    (out, report)
}
