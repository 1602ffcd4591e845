//! The `collab-groth16` binary, run by the tests: a scratch directory with a small circuit,
//! and `run` on it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ark_bn254::Fr;
use ark_ff::One;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::Value;

use zksnark_prover::synthetic::synthetic;
use zksnark_prover::writer::{r1cs_bytes, wtns_bytes};

pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("collab-groth16-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }
    pub fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A small satisfiable circuit as .r1cs/.wtns, and a witness that does not satisfy it.
pub fn circuit(dir: &Dir) {
    let (r1cs, mut w) = synthetic::<Fr, _>(200, 2, &mut ChaCha20Rng::from_entropy());
    std::fs::write(dir.path("c.r1cs"), r1cs_bytes(&r1cs)).unwrap();
    std::fs::write(dir.path("c.wtns"), wtns_bytes(&w)).unwrap();
    let last = w.len() - 1;
    w[last] += Fr::one();
    std::fs::write(dir.path("bad.wtns"), wtns_bytes(&w)).unwrap();
}

pub fn collab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_collab-groth16"))
        .args(args)
        .env("SUITE_PROGRESS", "off")
        .output()
        .expect("the binary runs")
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `collab-groth16 run` on the directory's circuit; the report (the whole envelope) if one
/// was written.
pub fn run(dir: &Dir, extra: &[&str]) -> (Output, Option<Value>) {
    let json = dir.path("report.json");
    let _ = std::fs::remove_file(&json);
    let (r1cs, wtns) = (dir.path("c.r1cs"), dir.path("c.wtns"));
    let mut args = vec![
        "run",
        "--r1cs",
        s(&r1cs),
        "--wtns",
        s(&wtns),
        "--out",
        s(&json),
    ];
    args.extend_from_slice(extra);
    let out = collab(&args);
    let report = std::fs::read_to_string(&json)
        .ok()
        .map(|t| serde_json::from_str(&t).expect("report.json is JSON"));
    (out, report)
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
