//! The prover on a real zokrates-js export: a small ZoKrates program (a stdlib Poseidon
//! preimage) is compiled and its witness computed by zokrates-js, exported in circom format
//! (`snarkjs: true`), then set up, proven and verified by the binary. Skipped, with a message,
//! when zksnark-sm-rsm/node_modules (npm ci) or node is absent.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

fn prover(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zksnark-prover"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// Says why the test did nothing. Written to the stderr handle itself: libtest captures only
/// the print macros, and a skip must show in CI logs without --nocapture.
fn skip(why: &str) {
    use std::io::Write;
    let msg = format!("SKIPPED zokrates_js_export_proves_and_verifies: {why}\n");
    let _ = std::io::stderr().write_all(msg.as_bytes());
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The files of one test run, in a scratch directory removed at the end.
struct Files {
    dir: PathBuf,
}

impl Files {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("zksnark-prover-zokjs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Files { dir }
    }

    fn p(&self, f: &str) -> String {
        self.dir.join(f).to_string_lossy().into_owned()
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
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
fn export(pkg: &Path, f: &Files) -> usize {
    // --eval resolves "zokrates-js" from the working directory: the package's node_modules.
    let out = Command::new("node")
        .current_dir(pkg)
        .args([
            "--input-type=module",
            "--eval",
            EXPORT,
            &f.p(""),
            "1",
            "2",
            POSEIDON_1_2,
        ])
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "zokrates-js export failed: {}",
        text(&out.stderr)
    );
    text(&out.stdout).trim().parse().expect("constraint count")
}

/// `run` proves the very R1CS zokrates-js compiled, with its one public input.
fn run_reports_the_exported_circuit(f: &Files, constraints: usize) {
    let json = f.p("run.json");
    let out = prover(&[
        "run",
        "--r1cs",
        &f.p("circuit.r1cs"),
        "--wtns",
        &f.p("witness.wtns"),
        "--out",
        &json,
        "--threads",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let enveloped: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let report = &enveloped["body"];
    assert_eq!(
        report["constraints"], constraints,
        "the very R1CS zokrates-js compiled"
    );
    assert_eq!(report["public_inputs"], 1);
    assert_eq!(report["status"], "PASSED");
}

/// `setup`, `prove` (writing the public inputs: h, in ZoKrates's order) and `verify` from the
/// witness.
fn setup_prove_verify(f: &Files) {
    let (r1cs, wtns, pk, vk) = (
        f.p("circuit.r1cs"),
        f.p("witness.wtns"),
        f.p("pk.bin"),
        f.p("vk.bin"),
    );
    let (proof, public) = (f.p("proof.bin"), f.p("public.json"));
    let out = prover(&["setup", "--r1cs", &r1cs, "--pk", &pk, "--vk", &vk]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = prover(&[
        "prove",
        "--r1cs",
        &r1cs,
        "--wtns",
        &wtns,
        "--pk",
        &pk,
        "--proof",
        &proof,
        "--public",
        &public,
        "--threads",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The public wire is h, in ZoKrates's order: the exported wires map as we assume.
    let values: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(&public).unwrap()).unwrap();
    assert_eq!(values, vec![POSEIDON_1_2.to_string()]);
    let out = prover(&["verify", "--vk", &vk, "--proof", &proof, "--wtns", &wtns]);
    assert_eq!(
        (out.status.code(), text(&out.stdout).trim()),
        (Some(0), "PASSED")
    );
}

/// Claiming the hash of something else: the proof does not verify.
fn tampered_public_input_fails(f: &Files) {
    let public = f.p("public.json");
    std::fs::write(
        &public,
        "[\"7853200120776062878684798364095072458815029376092732009249414926327459813531\"]",
    )
    .unwrap();
    let out = prover(&[
        "verify",
        "--vk",
        &f.p("vk.bin"),
        "--proof",
        &f.p("proof.bin"),
        "--public",
        &public,
    ]);
    assert_eq!(
        (out.status.code(), text(&out.stdout).trim()),
        (Some(1), "FAILED")
    );
}

/// A witness whose private input was changed after the fact does not satisfy the R1CS: no
/// proof, exit 2.
fn altered_witness_is_refused(f: &Files) {
    let mut bytes = std::fs::read(f.p("witness.wtns")).unwrap();
    let header = 12 + 12 + 4 + 32 + 4; // preamble, section 1 header, n8, prime, count
    let private_a = header + 12 + 2 * 32; // section 2 header, then wires 0 (one), 1 (h), 2 (a)
    bytes[private_a] ^= 1;
    let bad = f.p("bad.wtns");
    std::fs::write(&bad, &bytes).unwrap();
    let bad_proof = f.p("bad-proof.bin");
    let out = prover(&[
        "prove",
        "--r1cs",
        &f.p("circuit.r1cs"),
        "--wtns",
        &bad,
        "--pk",
        &f.p("pk.bin"),
        "--proof",
        &bad_proof,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("does not satisfy the R1CS"),
        "{}",
        text(&out.stderr)
    );
    assert!(!Path::new(&bad_proof).exists());
}

#[test]
fn zokrates_js_export_proves_and_verifies() {
    let pkg = package_dir();
    if let Some(why) = missing_tools(&pkg) {
        skip(&why);
        return;
    }
    let files = Files::new();
    let constraints = export(&pkg, &files);
    run_reports_the_exported_circuit(&files, constraints);
    setup_prove_verify(&files);
    tampered_public_input_fails(&files);
    altered_witness_is_refused(&files);
}
