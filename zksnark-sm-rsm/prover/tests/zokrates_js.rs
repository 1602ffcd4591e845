//! The prover on a real zokrates-js export: a small ZoKrates program (a stdlib Poseidon
//! preimage) is compiled and its witness computed by zokrates-js, exported in circom format
//! (`snarkjs: true`), then set up, proven and verified by the binary. Skipped, with a message,
//! when zksnark-sm-rsm/node_modules (npm ci) or node is absent.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{prove, run, setup_and_prove, verdict, verify};
use measure::testing::{assert_refused, read_json, stderr, stdout, Scratch};

/// The circomlib test vector Poseidon(1, 2), which the ZoKrates stdlib Poseidon reproduces.
const POSEIDON_1_2: &str =
    "7853200120776062878684798364095072458815029376092732009249414926327459813530";

const EXPORT: &str = r#"
import { initialize } from "zokrates-js";
import { writeFileSync } from "node:fs";
const [out, a, b, h] = process.argv.slice(1);
const zk = (await initialize()).withOptions({ backend: "ark", scheme: "g16", curve: "bn128" });
const source = `import "hashes/poseidon/poseidon" as poseidon;
def main(private field a, private field b, field h) {
    assert(poseidon([a, b]) == h);
    return;
}`;
const artifacts = zk.compile(source, { snarkjs: true });
writeFileSync(out + "/circuit.r1cs", artifacts.snarkjs.program);
const w = zk.computeWitness(artifacts, [a, b, h], { snarkjs: true });
writeFileSync(out + "/witness.wtns", w.snarkjs.witness);
console.log(artifacts.constraintCount);
"#;

fn package_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("prover/ sits in zksnark-sm-rsm/")
        .to_path_buf()
}

/// Says why the test did nothing. Written to the stderr handle itself: libtest captures only
/// the print macros, and a skip must show in CI logs without --nocapture.
fn skip(why: &str) {
    use std::io::Write;
    let msg = format!("SKIPPED zokrates_js_export_proves_and_verifies: {why}\n");
    let _ = std::io::stderr().write_all(msg.as_bytes());
}

/// Why the test cannot run here, if it cannot.
fn missing_tools(pkg: &Path) -> Option<String> {
    if !pkg.join("node_modules/zokrates-js").is_dir() {
        return Some(format!(
            "{} has no node_modules/zokrates-js (run `npm ci` there to enable this test)",
            pkg.display()
        ));
    }
    if Command::new("node").arg("--version").output().is_err() {
        return Some("node is not installed".into());
    }
    None
}

/// zokrates-js compiles the program and computes its witness for Poseidon(1, 2), exported in
/// circom format; returns the constraint count it reports.
fn export(pkg: &Path, f: &Scratch) -> usize {
    // --eval resolves "zokrates-js" from the working directory: the package's node_modules.
    let out = Command::new("node")
        .current_dir(pkg)
        .args([
            "--input-type=module",
            "--eval",
            EXPORT,
            f.dir().to_str().unwrap(),
            "1",
            "2",
            POSEIDON_1_2,
        ])
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "zokrates-js export failed: {}",
        stderr(&out)
    );
    stdout(&out).trim().parse().expect("constraint count")
}

/// `run` proves the very R1CS zokrates-js compiled, with its one public input.
fn run_reports_the_exported_circuit(f: &Scratch, constraints: usize) {
    let (r1cs, wtns, json) = (f.s("circuit.r1cs"), f.s("witness.wtns"), f.s("run.json"));
    let out = run(&r1cs, &wtns, &json, &["--threads", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = &read_json(&f.path("run.json"))["body"];
    assert_eq!(
        report["constraints"], constraints,
        "the very R1CS zokrates-js compiled"
    );
    assert_eq!(report["public_inputs"], 1);
    assert_eq!(report["status"], "PASSED");
}

/// `setup`, `prove` (writing the public inputs: h, in ZoKrates's order) and `verify` from the
/// witness.
fn setup_prove_verify(f: &Scratch) {
    let (r1cs, wtns, pk, vk) = (
        f.s("circuit.r1cs"),
        f.s("witness.wtns"),
        f.s("pk.bin"),
        f.s("vk.bin"),
    );
    let (proof, public) = (f.s("proof.bin"), f.s("public.json"));
    setup_and_prove(&r1cs, &wtns, [&pk, &vk, &proof, &public], &[]);
    // The public wire is h, in ZoKrates's order: the exported wires map as we assume.
    let values: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(&public).unwrap()).unwrap();
    assert_eq!(values, vec![POSEIDON_1_2.to_string()]);
    let out = verify(&vk, &proof, &["--wtns", &wtns]);
    assert_eq!(verdict(&out), (Some(0), "PASSED".into()));
}

/// Claiming the hash of something else: the proof does not verify.
fn tampered_public_input_fails(f: &Scratch) {
    let public = f.s("public.json");
    std::fs::write(
        &public,
        "[\"7853200120776062878684798364095072458815029376092732009249414926327459813531\"]",
    )
    .unwrap();
    let out = verify(&f.s("vk.bin"), &f.s("proof.bin"), &["--public", &public]);
    assert_eq!(verdict(&out), (Some(1), "FAILED".into()));
}

/// A witness whose private input was changed after the fact does not satisfy the R1CS: no
/// proof, exit 2.
fn altered_witness_is_refused(f: &Scratch) {
    let mut bytes = std::fs::read(f.s("witness.wtns")).unwrap();
    let header = 12 + 12 + 4 + 32 + 4; // preamble, section 1 header, n8, prime, count
    let private_a = header + 12 + 2 * 32; // section 2 header, then wires 0 (one), 1 (h), 2 (a)
    bytes[private_a] ^= 1;
    let bad = f.s("bad.wtns");
    std::fs::write(&bad, &bytes).unwrap();
    let bad_proof = f.s("bad-proof.bin");
    let out = prove(&f.s("circuit.r1cs"), &bad, &f.s("pk.bin"), &bad_proof, &[]);
    assert_refused(&out, "prove", "does not satisfy the R1CS");
    assert!(!Path::new(&bad_proof).exists());
}

#[test]
fn zokrates_js_export_proves_and_verifies() {
    let pkg = package_dir();
    if let Some(why) = missing_tools(&pkg) {
        skip(&why);
        return;
    }
    let files = Scratch::new("zksnark-prover-zokjs", "export");
    let constraints = export(&pkg, &files);
    run_reports_the_exported_circuit(&files, constraints);
    setup_prove_verify(&files);
    tampered_public_input_fails(&files);
    altered_witness_is_refused(&files);
}
