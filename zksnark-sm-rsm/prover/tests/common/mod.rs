//! What the `zksnark-prover` binary's end-to-end tests share: running it, and its three steps
//! (`run`, `prove`, `verify`) on files named as the command line takes them.

#![allow(dead_code)]

use std::process::{Command, Output};

use measure::testing::{stderr, Bench};

/// The binary, for [`Bench::enveloped`] (its runs go through [`prover`]).
pub const BENCH: Bench = measure::bench!("zksnark-prover", "zksnark-prover");

/// Runs the binary with `args`, its threads set by `--threads` only.
pub fn prover(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zksnark-prover"))
        .args(args)
        .env_remove("RAYON_NUM_THREADS")
        .output()
        .expect("binary runs")
}

/// `run` on an R1CS and its witness, writing the report `out`, with `extra` arguments.
pub fn run(r1cs: &str, wtns: &str, out: &str, extra: &[&str]) -> Output {
    let args = ["run", "--r1cs", r1cs, "--wtns", wtns, "--out", out];
    prover(&[&args[..], extra].concat())
}

/// `prove` on an R1CS, its witness and a proving key, writing `proof`, with `extra` arguments.
pub fn prove(r1cs: &str, wtns: &str, pk: &str, proof: &str, extra: &[&str]) -> Output {
    let args = [
        "prove", "--r1cs", r1cs, "--wtns", wtns, "--pk", pk, "--proof", proof,
    ];
    prover(&[&args[..], extra].concat())
}

/// `setup` (with `extra` arguments) writing the keys `pk` and `vk`, then `prove` on one thread
/// writing `proof` and the public inputs `public`; panics unless both succeed.
pub fn setup_and_prove(r1cs: &str, wtns: &str, files: [&str; 4], extra: &[&str]) {
    let [pk, vk, proof, public] = files;
    let args = ["setup", "--r1cs", r1cs, "--pk", pk, "--vk", vk];
    let out = prover(&[&args[..], extra].concat());
    assert_eq!(out.status.code(), Some(0), "setup: {}", stderr(&out));
    let out = prove(
        r1cs,
        wtns,
        pk,
        proof,
        &["--public", public, "--threads", "1"],
    );
    assert_eq!(out.status.code(), Some(0), "prove: {}", stderr(&out));
}

/// `verify` of `proof` with the key `vk`, with `extra` arguments (the public inputs: `--public`
/// a file, or `--wtns` a witness).
pub fn verify(vk: &str, proof: &str, extra: &[&str]) -> Output {
    let args = ["verify", "--vk", vk, "--proof", proof];
    prover(&[&args[..], extra].concat())
}

/// A verification's exit status and its verdict (the standard output).
pub fn verdict(out: &Output) -> (Option<i32>, String) {
    let said = measure::testing::stdout(out).trim().to_string();
    (out.status.code(), said)
}
