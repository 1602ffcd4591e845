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

/// A free loopback address (released again before whoever it is for binds it).
pub fn free_addr() -> String {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string()
}

/// A process started with piped standard input and output, and the line it introduced itself
/// with (its certificate).
pub struct Introduced {
    pub child: std::process::Child,
    pub line: String,
    /// The rest of its standard output (the coordinator's table), read to its end.
    pub rest: Option<std::thread::JoinHandle<String>>,
}

impl Introduced {
    /// Starts the binary with `args` and reads its first line.
    pub fn start(args: &[String]) -> Introduced {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_collab-groth16"))
            .args(args)
            .env("SUITE_PROGRESS", "off")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        out.read_line(&mut line).unwrap();
        let rest = std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = std::io::Read::read_to_string(&mut out, &mut rest);
            rest
        });
        Introduced {
            child,
            line,
            rest: Some(rest),
        }
    }

    /// Waits for it to exit: whether it succeeded, and the rest of its standard output.
    pub fn wait(&mut self) -> (bool, String) {
        let ok = self.child.wait().unwrap().success();
        (ok, self.rest.take().unwrap().join().unwrap())
    }

    /// Writes `line` on its standard input.
    pub fn tell(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// The certificate in its line.
    pub fn cert(&self) -> tls_link::Certificate<'static> {
        let hex = self.line.split_whitespace().last().unwrap();
        tls_link::cert_from_hex(hex).unwrap()
    }
}

/// `collab-groth16 run --no-spawn` on the directory's circuit with the key `pk`, waiting for
/// `m` parties on `addr`.
pub fn waiting_coordinator(
    dir: &Scratch,
    out: &Path,
    pk: &Path,
    addr: &str,
    m: usize,
) -> Introduced {
    let mut args = run_args(dir, "c.r1cs", "c.wtns", out);
    args.extend(
        [
            "--no-spawn",
            "--listen",
            addr,
            "--pk",
            s(pk),
            "--parties",
            &m.to_string(),
        ]
        .map(String::from),
    );
    args.extend(["--timeout", "120"].map(String::from));
    Introduced::start(&args)
}

/// `collab-groth16 party` number `id` for the coordinator at `addr`, its mesh listener on
/// `listen`.
pub fn separate_party(dir: &Scratch, pk: &Path, addr: &str, id: usize, listen: &str) -> Introduced {
    let args = [
        "party",
        "--coordinator",
        addr,
        "--id",
        &id.to_string(),
        "--r1cs",
        &dir.s("c.r1cs"),
        "--pk",
        s(pk),
        "--listen",
        listen,
        "--timeout",
        "120",
    ];
    Introduced::start(&args.map(String::from))
}

/// What an operator does between separately started processes: each party's line to the
/// coordinator, the coordinator's to every party.
pub fn introduce(coordinator: &mut Introduced, parties: &mut [Introduced]) {
    for p in parties.iter_mut() {
        coordinator.tell(&p.line);
        p.tell(&coordinator.line);
    }
}

/// [`introduce`], then every process to its end: each party and the coordinator must succeed,
/// the coordinator's table say PASSED, and the report at `json` be a passed one (returned).
pub fn introduce_and_finish(
    mut coordinator: Introduced,
    parties: &mut [Introduced],
    json: &std::path::Path,
) -> serde_json::Value {
    introduce(&mut coordinator, parties);
    for p in parties.iter_mut() {
        assert!(p.wait().0);
    }
    let (ok, table) = coordinator.wait();
    assert!(ok && table.contains("PASSED"), "{table}");
    let enveloped = measure::testing::read_json(json);
    assert_eq!(enveloped["passed"], true);
    enveloped
}

/// A fresh Groth16 key for the directory's circuit, saved as `pk.bin`.
pub fn saved_key(dir: &Scratch) -> std::path::PathBuf {
    use ark_serialize::Compress;
    let r1cs = zksnark_prover::R1cs::<Fr>::read(&dir.path("c.r1cs")).unwrap();
    let pk = zksnark_prover::snark::setup(&r1cs, &mut ChaCha20Rng::from_entropy()).unwrap();
    let path = dir.path("pk.bin");
    zksnark_prover::snark::save(&path, &pk, Compress::No).unwrap();
    path
}
