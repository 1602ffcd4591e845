//! The benchmark runner: which schemes, lengths, thread counts and operations; progress on
//! stderr; the report as JSON.

use measure::envelope::{Inputs, Outcome};
use measure::progress::Progress;
use measure::seed::{stream, Seed};
use measure::timing::Plan;
use serde_json::{json, Value};
use std::path::PathBuf;

use super::ablation::ablation_rows;
use super::report::{AblationRow, Row, MERKLE_BLAKE3, MERKLE_SHA256, PAIRING, SCHEMES};
use super::workload::{
    is_parallel, set_peak_rss, Context, MerkleFixture, PairingFixture, MERKLE_OPS, PAIRING_OPS,
};
use crate::merkle::{Blake3Hasher, Sha256Hasher};
use crate::Error;

/// Largest n the pairing scheme is run at (its prover table at 2^18 is about 0.8 GB).
pub const PAIRING_MAX_N: usize = 1 << 18;
/// Largest n the Merkle scheme is run at.
pub const MERKLE_MAX_N: usize = 1 << 24;

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Schemes (names of [`SCHEMES`]).
    pub schemes: Vec<String>,
    /// Vector lengths for the pairing scheme.
    pub pairing_n: Vec<usize>,
    /// Vector lengths for the Merkle schemes.
    pub merkle_n: Vec<usize>,
    /// Thread counts (rayon pools).
    pub threads: Vec<usize>,
    /// Operations (empty: all).
    pub ops: Vec<String>,
    /// Repetitions per measurement.
    pub repetitions: usize,
    /// Minimum seconds per repetition.
    pub rep_seconds: f64,
    /// Positions per batch (pairing batch operations).
    pub batch: usize,
    /// Bytes per random value.
    pub value_bytes: usize,
    /// Lengths at which the ablation runs (one thread; empty: no ablation).
    pub ablation_n: Vec<usize>,
    /// The public seed of the inputs (values, and the pairing trapdoor, then derived from the
    /// seed and not secret); `None`: fresh randomness from the OS.
    pub seed: Option<Seed>,
    /// Where the report goes.
    pub out: PathBuf,
}

/// The version of the report body's schema (`docs/report.schema.json`).
pub const BODY_VERSION: u32 = 2;

/// Every operation name the runner knows.
pub fn known_operations() -> Vec<&'static str> {
    let mut v = vec!["setup"];
    for op in PAIRING_OPS.iter().chain(MERKLE_OPS.iter()) {
        if !v.contains(op) {
            v.push(op);
        }
    }
    v
}

impl Config {
    /// Checks every parameter; the error names the first bad one.
    pub fn validate(&self) -> Result<(), Error> {
        if self.schemes.is_empty() {
            return Err(Error::NoScheme);
        }
        for s in &self.schemes {
            if !SCHEMES.contains(&s.as_str()) {
                return Err(Error::UnknownScheme {
                    name: s.clone(),
                    known: SCHEMES.join(", "),
                });
            }
        }
        if self.schemes.iter().any(|s| s == PAIRING) {
            check_lengths(&self.pairing_n, PAIRING_MAX_N, "pairing")?;
        }
        if self.schemes.iter().any(|s| s != PAIRING) {
            check_lengths(&self.merkle_n, MERKLE_MAX_N, "Merkle")?;
        }
        if self.threads.is_empty() || self.threads.iter().any(|&t| t == 0 || t > 256) {
            return Err(setting(
                "thread counts",
                "in 1..=256",
                format!("{:?}", self.threads),
            ));
        }
        let known = known_operations();
        for op in &self.ops {
            if !known.contains(&op.as_str()) {
                return Err(Error::UnknownOperation {
                    name: op.clone(),
                    known: known.join(", "),
                });
            }
        }
        if self.repetitions == 0 || self.repetitions > 1000 {
            return Err(setting("repetitions", "in 1..=1000", self.repetitions));
        }
        if !(self.rep_seconds > 0.0 && self.rep_seconds <= 60.0) {
            return Err(setting("rep-seconds", "in (0, 60]", self.rep_seconds));
        }
        if self.batch == 0 || self.batch > 4096 {
            return Err(setting("batch", "in 1..=4096", self.batch));
        }
        if self.value_bytes > 1 << 16 {
            return Err(setting("value-bytes", "at most 65536", self.value_bytes));
        }
        if let Some(&n) = self.ablation_n.iter().find(|n| !(2..=1 << 16).contains(*n)) {
            return Err(Error::AblationLength(n));
        }
        Ok(())
    }

    fn plan(&self) -> Plan {
        Plan {
            repetitions: self.repetitions,
            rep_seconds: self.rep_seconds,
        }
    }
}

/// Refuses a scheme's lengths: none, or one it is not run at.
fn check_lengths(list: &[usize], max: usize, scheme: &'static str) -> Result<(), Error> {
    if list.is_empty() {
        return Err(Error::NoLength(scheme));
    }
    match list.iter().find(|&&n| n == 0 || n > max) {
        Some(&n) => Err(Error::LengthOutOfRange { scheme, n, max }),
        None => Ok(()),
    }
}

fn setting(setting: &'static str, allowed: &'static str, value: impl ToString) -> Error {
    Error::Setting {
        setting,
        allowed,
        value: value.to_string(),
    }
}

fn fmt_s(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if s >= 1e-6 {
        format!("{:.3} us", s * 1e6)
    } else {
        format!("{:.1} ns", s * 1e9)
    }
}

/// The stderr line of a finished row.
pub fn row_line(r: &Row) -> String {
    let lb = r
        .lower_bound
        .as_ref()
        .map(|l| format!(", bound {} (x{:.2})", fmt_s(l.cpu_s.median), l.ratio_cpu))
        .unwrap_or_default();
    format!(
        "[veccom] {} n={} threads={} {}: cpu {} wall {}{lb}{}",
        r.scheme,
        r.n,
        r.threads,
        r.operation,
        fmt_s(r.cpu_s.median),
        fmt_s(r.wall_s.median),
        if r.verified { "" } else { "  CHECK FAILED" }
    )
}

fn ablation_line(r: &AblationRow) -> String {
    format!(
        "[veccom] ablation {} {} n={} {}: cpu {} (x{:.2} vs {})",
        r.scheme,
        r.operation,
        r.n,
        r.variant,
        fmt_s(r.cpu_s.median),
        r.speedup_vs_baseline,
        "baseline"
    )
}

fn pool(threads: usize) -> Result<rayon::ThreadPool, Error> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| Error::Pool { threads, source })
}

/// Number of measurements a (scheme, n) group makes, for the progress total.
fn group_steps(cfg: &Config, scheme: &str) -> u64 {
    let ops: &[&str] = if scheme == PAIRING {
        &PAIRING_OPS
    } else {
        &MERKLE_OPS
    };
    let wanted = |op: &str| cfg.ops.is_empty() || cfg.ops.iter().any(|o| o == op);
    let mut steps = 0;
    for (k, &t) in cfg.threads.iter().enumerate() {
        if scheme == PAIRING && k == 0 && wanted("setup") {
            steps += 1;
        }
        steps += ops
            .iter()
            .filter(|op| wanted(op) && (t == 1 || is_parallel(scheme, op)))
            .count() as u64;
    }
    steps.max(1)
}

/// The data of one scheme at one n.
enum Fixture {
    Pairing(Box<PairingFixture>),
    Sha256(Box<MerkleFixture<Sha256Hasher>>),
    Blake3(Box<MerkleFixture<Blake3Hasher>>),
}

/// The command line's parameters as the report's envelope records them.
pub fn parameters(cfg: &Config) -> Value {
    json!({
        "schemes": cfg.schemes,
        "pairing_n": cfg.pairing_n,
        "merkle_n": cfg.merkle_n,
        "threads": cfg.threads,
        "operations": cfg.ops,
        "repetitions": cfg.repetitions,
        "rep_seconds": cfg.rep_seconds,
        "batch": cfg.batch,
        "value_bytes": cfg.value_bytes,
        "ablation_n": cfg.ablation_n,
    })
}

/// Runs everything `cfg` asks for: the outcome (passed when every check passed), the digest of
/// the generated inputs, and the report's body.
pub fn run(cfg: &Config) -> Result<Outcome, Error> {
    cfg.validate()?;
    let seed = cfg.seed.as_ref();
    let mut inputs = Inputs::new();
    let pools: Vec<(usize, rayon::ThreadPool)> = cfg
        .threads
        .iter()
        .map(|&t| pool(t).map(|p| (t, p)))
        .collect::<Result<_, _>>()?;
    let mut rows: Vec<Row> = Vec::new();
    for scheme in SCHEMES
        .iter()
        .filter(|s| cfg.schemes.iter().any(|c| c == *s))
    {
        let ns = if *scheme == PAIRING {
            &cfg.pairing_n
        } else {
            &cfg.merkle_n
        };
        for &n in ns {
            rows.extend(scheme_rows(cfg, scheme, n, &pools, &mut inputs));
        }
    }
    let ablation = ablation(cfg)?;
    let passed =
        rows.iter().all(|r| r.verified) && ablation.iter().all(|r| r.agrees != Some(false));
    let body = json!({
        "clock": "CPU time: CLOCK_PROCESS_CPUTIME_ID, all threads of the process; wall time: monotonic clock",
        "trapdoor": if seed.is_some() {
            "derived from the public seed (not secret): a reproducible run"
        } else {
            "drawn from the operating system's CSPRNG and wiped after the set-up"
        },
        "rows": rows,
        "ablation": ablation,
    });
    Ok(Outcome {
        passed,
        inputs,
        body,
    })
}

/// One scheme at one length: its fixture made (and, for the pairing scheme, its set-up timed)
/// on the first pool, then every operation on every pool; the rows carry the group's peak
/// memory. The fixture's generated inputs go into `inputs`.
fn scheme_rows(
    cfg: &Config,
    scheme: &str,
    n: usize,
    pools: &[(usize, rayon::ThreadPool)],
    inputs: &mut Inputs,
) -> Vec<Row> {
    let plan = cfg.plan();
    let start_rss = measure::clock::reset_peak_rss();
    let progress = Progress::new(
        &format!("veccom {scheme}"),
        Some(&format!("n={n}")),
        group_steps(cfg, scheme),
    );
    let mut on_row = |r: &Row| {
        eprintln!("{}", row_line(r));
        progress.inc(1);
    };
    let mut group: Vec<Row> = Vec::new();
    let wants_setup = cfg.ops.is_empty() || cfg.ops.iter().any(|o| o == "setup");
    let (t0, p0) = &pools[0];
    let mut rng = stream(&format!("veccom/{scheme}/n={n}"), cfg.seed.as_ref());
    let rng = &mut rng;
    let fixture = p0.install(|| match scheme {
        PAIRING => Fixture::Pairing(Box::new(PairingFixture::new(
            n,
            cfg.value_bytes,
            cfg.batch,
            rng,
        ))),
        MERKLE_SHA256 => Fixture::Sha256(Box::new(MerkleFixture::new(n, cfg.value_bytes, rng))),
        MERKLE_BLAKE3 => Fixture::Blake3(Box::new(MerkleFixture::new(n, cfg.value_bytes, rng))),
        _ => unreachable!("validated"),
    });
    match &fixture {
        Fixture::Pairing(fx) => fx.add_inputs(inputs),
        Fixture::Sha256(fx) => fx.add_inputs(inputs),
        Fixture::Blake3(fx) => fx.add_inputs(inputs),
    }
    if let (Fixture::Pairing(fx), true) = (&fixture, wants_setup) {
        let r = fx.setup_row(*t0);
        on_row(&r);
        group.push(r);
    }
    for (_, p) in pools {
        let mut ctx = Context {
            plan,
            ops: &cfg.ops,
            value_bytes: cfg.value_bytes,
            batch: cfg.batch,
            on_row: &mut on_row,
        };
        let part = p.install(|| match &fixture {
            Fixture::Pairing(fx) => fx.run(&mut ctx),
            Fixture::Sha256(fx) => fx.run(&mut ctx),
            Fixture::Blake3(fx) => fx.run(&mut ctx),
        });
        group.extend(part);
    }
    drop(fixture);
    set_peak_rss(&mut group, start_rss);
    progress.finish();
    group
}

/// The ablation rows, one per `--ablation-n`, on one thread.
fn ablation(cfg: &Config) -> Result<Vec<AblationRow>, Error> {
    let mut rows = Vec::new();
    if cfg.ablation_n.is_empty() {
        return Ok(rows);
    }
    let plan = cfg.plan();
    let one = pool(1)?;
    let progress = Progress::new("veccom ablation", None, cfg.ablation_n.len() as u64);
    for &n in &cfg.ablation_n {
        let mut on_row = |r: &AblationRow| eprintln!("{}", ablation_line(r));
        let mut rng = stream(&format!("veccom/ablation/n={n}"), cfg.seed.as_ref());
        rows.extend(
            one.install(|| ablation_rows(n, &plan, cfg.value_bytes, &mut rng, &mut on_row)),
        );
        progress.inc(1);
    }
    progress.finish();
    Ok(rows)
}
