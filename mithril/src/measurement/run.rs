//! One benchmark run: the configuration, checked before any work; the native rows; the circuit
//! sizes and proofs (each in a child process of the benchmark binary); the fits, the targets and
//! the report.

use std::path::PathBuf;
use std::process::Command;

use measure::envelope::{Inputs, Outcome};
use measure::progress::Progress;
use measure::seed::{stream, Seed};
use measure::timing::Plan;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use serde_json::{json, Value};

use super::circuit::{fit_line, ProofRow, SizeRow};
use super::native::{batch_rows, cancellation_check, is_parallel, measure, Fixture, Row};
use super::stm::{stm_verify_row, verify_aggregate_row, StmRow};
use crate::circuit::{PairingCheck, LIMB_BITS, NUM_LIMBS};
use crate::Error;

/// The version of the report body's schema (`docs/report.schema.json`).
pub const BODY_VERSION: u32 = 3;

/// Largest n for the native runs.
pub const NATIVE_MAX_N: usize = 1 << 16;
/// Largest n for the circuit runs.
pub const CIRCUIT_MAX_N: usize = 1024;

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Run the native part.
    pub native: bool,
    /// Run the circuit part.
    pub circuit: bool,
    /// Measure mithril-stm at the native signer counts, in the same run.
    pub stm: bool,
    /// Native signer counts.
    pub native_n: Vec<usize>,
    /// Native thread counts.
    pub threads: Vec<usize>,
    /// Aggregates per batch verification.
    pub batch: Vec<usize>,
    /// Repetitions and their length.
    pub plan: Plan,
    /// n proved.
    pub circuit_n: Vec<usize>,
    /// n laid out and counted (the proved n are counted too).
    pub size_n: Vec<usize>,
    /// k, or `None` for the automatic choice.
    pub k: Option<u32>,
    /// The automatic k's column budget.
    pub max_columns: usize,
    /// The BLS check's layout.
    pub pairing: PairingCheck,
    /// n whose size is also counted with the other layout of the BLS check.
    pub ablation_n: Vec<usize>,
    /// Prover threads.
    pub prover_threads: usize,
    /// n to extrapolate the fits to.
    pub extrapolate: Vec<usize>,
    /// The public seed of a reproducible run (keys drawn from it are derived from the public
    /// seed, not secret); `None`: fresh randomness from the OS.
    pub seed: Option<Seed>,
    /// The report.
    pub out: PathBuf,
}

impl Config {
    /// Refuses values that cannot run, naming the option.
    pub fn validate(&self) -> Result<(), Error> {
        if !self.native && !self.circuit && !self.stm {
            return Err(Error::NothingToRun);
        }
        in_range(&self.native_n, 1, NATIVE_MAX_N, "--native-n")?;
        in_range(&self.threads, 1, 256, "--threads")?;
        in_range(&self.batch, 1, 1024, "--batch")?;
        in_range(&self.circuit_n, 1, CIRCUIT_MAX_N, "--circuit-n")?;
        in_range(&self.size_n, 1, CIRCUIT_MAX_N, "--size-n")?;
        in_range(&self.ablation_n, 1, CIRCUIT_MAX_N, "--ablation-n")?;
        in_range(&self.extrapolate, 1, 1 << 20, "--extrapolate")?;
        if (self.native || self.stm) && (self.native_n.is_empty() || self.threads.is_empty()) {
            return Err(Error::NoCounts);
        }
        if self.plan.repetitions == 0 || self.plan.repetitions > 1000 {
            return Err(out_of_range("--reps", self.plan.repetitions, "1..=1000"));
        }
        if !(self.plan.rep_seconds > 0.0 && self.plan.rep_seconds <= 60.0) {
            return Err(out_of_range(
                "--rep-seconds",
                self.plan.rep_seconds,
                "(0, 60]",
            ));
        }
        if let Some(k) = self.k {
            crate::circuit::Shape::with_k(k).validate()?;
        }
        if !(2..=1000).contains(&self.max_columns) {
            return Err(out_of_range("--max-columns", self.max_columns, "2..=1000"));
        }
        if !(1..=256).contains(&self.prover_threads) {
            return Err(out_of_range(
                "--prover-threads",
                self.prover_threads,
                "1..=256",
            ));
        }
        Ok(())
    }

    /// The command line's parameters as the report's envelope records them.
    pub fn parameters(&self) -> Value {
        let parts: Vec<&str> = [
            self.native.then_some("native"),
            self.circuit.then_some("circuit"),
            self.stm.then_some("stm"),
        ]
        .into_iter()
        .flatten()
        .collect();
        json!({
            "parts": parts,
            "native_n": self.native_n,
            "threads": self.threads,
            "batch": self.batch,
            "repetitions": self.plan.repetitions,
            "rep_seconds": self.plan.rep_seconds,
            "circuit_n": self.circuit_n,
            "size_n": self.size_n,
            "k": self.k.map_or(json!("auto"), |k| json!(k)),
            "max_columns": self.max_columns,
            "pairing_check": self.pairing.name(),
            "ablation_n": self.ablation_n,
            "prover_threads": self.prover_threads,
            "extrapolate": self.extrapolate,
        })
    }
}

/// Refuses the first of `xs` outside `lo..=hi`, naming `option`.
fn in_range(xs: &[usize], lo: usize, hi: usize, option: &'static str) -> Result<(), Error> {
    match xs.iter().find(|x| **x < lo || **x > hi) {
        Some(x) => Err(out_of_range(option, x, format!("{lo}..={hi}"))),
        None => Ok(()),
    }
}

fn out_of_range(option: &'static str, value: impl ToString, range: impl ToString) -> Error {
    Error::OutOfRange {
        option,
        value: value.to_string(),
        range: range.to_string(),
    }
}

fn pool(threads: usize) -> Result<rayon::ThreadPool, Error> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| Error::Pool { threads, source })
}

fn row_line(r: &Row) -> String {
    let bound = r.lower_bound.as_ref().map_or(String::new(), |b| {
        format!(", x{:.2} of bound ({})", b.ratio_cpu, b.what)
    });
    let agg = r.aggregates.map_or(String::new(), |a| format!(" b={a}"));
    let what = format!(
        "native {} n={}{agg} threads={}",
        r.operation, r.n, r.threads
    );
    timed_line(&what, r.cpu_s.median, &bound, r.verified)
}

/// A timed operation's line on the terminal: what ran, its median CPU time, what follows it,
/// and whether its check failed.
fn timed_line(what: &str, cpu_s: f64, then: &str, verified: bool) -> String {
    format!(
        "[mithril-msp] {what}: {:.4} ms cpu{then}{}",
        1e3 * cpu_s,
        if verified { "" } else { " CHECK FAILED" }
    )
}

fn native_part(
    cfg: &Config,
    rng: &mut ChaCha20Rng,
    inputs: &mut Inputs,
) -> Result<(Vec<Row>, Value), Error> {
    let first = cfg.threads[0];
    let ops = super::native::OPERATIONS;
    let per_n: u64 = cfg
        .threads
        .iter()
        .map(|&t| {
            ops.iter()
                .filter(|o| !o.ends_with("_each") && **o != "batch_verify")
                .filter(|o| t == first || is_parallel(o))
                .count() as u64
        })
        .sum();
    let progress = Progress::new(
        "mithril-msp native",
        None,
        per_n * cfg.native_n.len() as u64 + cfg.batch.len() as u64,
    );
    let mut rows = Vec::new();
    for &t in &cfg.threads {
        let pool = pool(t)?;
        for &n in &cfg.native_n {
            let fx = Fixture::new(n, rng);
            fx.add_inputs(inputs);
            for op in ops {
                if op == "batch_verify" || op == "ver_each" || (t != first && !is_parallel(op)) {
                    continue;
                }
                if let Some(r) = pool.install(|| measure(&cfg.plan, &fx, op)) {
                    eprintln!("{}", row_line(&r));
                    rows.push(r);
                }
                progress.inc(1);
            }
        }
    }
    let one = pool(first)?;
    for &b in &cfg.batch {
        let rs = one.install(|| batch_rows(&cfg.plan, 4, b, rng, inputs));
        for r in &rs {
            eprintln!("{}", row_line(r));
        }
        rows.extend(rs);
        progress.inc(1);
    }
    progress.finish();
    let (plain_accepts, weighted_rejects) = cancellation_check(rng, inputs);
    let checks = json!({
        "cancellation": {
            "n": 2,
            "plain_aggregation_accepts": plain_accepts,
            "weighted_aggregation_rejects": weighted_rejects,
            "passed": plain_accepts && weighted_rejects,
        }
    });
    Ok((rows, checks))
}

/// Runs this program as a child for one circuit size or proof; its JSON object.
fn child(
    cfg: &Config,
    mode: &str,
    n: usize,
    k: Option<u32>,
    seed: [u8; 32],
) -> Result<Value, Error> {
    let exe = std::env::current_exe().map_err(Error::OwnPath)?;
    let mut cmd = Command::new(exe);
    cmd.args(["--child", mode, "--child-n", &n.to_string()])
        .args(["--pairing", cfg.pairing.name()])
        .args(["--max-columns", &cfg.max_columns.to_string()])
        .args(["--seed", &measure::hex::encode(&seed)])
        .env("RAYON_NUM_THREADS", cfg.prover_threads.to_string());
    if let Some(k) = k {
        cmd.args(["--k", &k.to_string()]);
    }
    let out = cmd
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|source| Error::ChildStart {
            mode: mode.into(),
            source,
        })?;
    if !out.status.success() {
        let why = match out.status.code() {
            Some(c) => format!("exit status {c}"),
            None => "killed by a signal (out of memory?)".to_string(),
        };
        return Err(Error::ChildFailed {
            mode: mode.into(),
            n,
            why,
        });
    }
    serde_json::from_slice(&out.stdout).map_err(|source| Error::ChildOutput {
        mode: mode.into(),
        source,
    })
}

/// The child's work: one size or one proof, printed as JSON on stdout.
pub fn child_main(
    mode: &str,
    n: usize,
    k: Option<u32>,
    pairing: PairingCheck,
    max_columns: usize,
    seed: [u8; 32],
) -> Result<Value, Error> {
    let mut rng = ChaCha20Rng::from_seed(seed);
    match mode {
        "size" => Ok(serde_json::to_value(super::circuit::size_run(
            n,
            k,
            pairing,
            max_columns,
            &mut rng,
        ))?),
        "prove" => {
            let k = k.ok_or(Error::ProveNeedsK)?;
            let mut shape = crate::circuit::Shape::with_k(k);
            shape.pairing = pairing;
            shape.validate()?;
            Ok(serde_json::to_value(super::circuit::proof_run(
                n, &shape, &mut rng,
            )?)?)
        }
        other => Err(Error::ChildMode(other.into())),
    }
}

/// mithril-stm at every native signer count, on the first thread count's pool: the
/// multisignature layer beside ours, and its full STM verification (a failure to aggregate is
/// recorded, the run goes on).
fn stm_part(
    cfg: &Config,
    rng: &mut ChaCha20Rng,
    inputs: &mut Inputs,
) -> Result<(Vec<StmRow>, Vec<Value>), Error> {
    let one = pool(cfg.threads[0])?;
    let progress = Progress::new("mithril-msp stm", None, 2 * cfg.native_n.len() as u64);
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for &n in &cfg.native_n {
        let r = one.install(|| verify_aggregate_row(&cfg.plan, n, rng, inputs));
        eprintln!("{}", stm_line(&r));
        rows.push(r);
        progress.inc(1);
        if n > super::stm::STM_MAX_N {
            progress.inc(1);
            continue;
        }
        match one.install(|| stm_verify_row(&cfg.plan, n, rng, inputs)) {
            Ok(r) => {
                eprintln!("{}", stm_line(&r));
                rows.push(r);
            }
            Err(e) => {
                eprintln!("[mithril-msp] mithril-stm stm_verify n={n}: {e}");
                failures.push(json!({"operation": "stm_verify", "n": n, "error": e.to_string()}));
            }
        }
        progress.inc(1);
    }
    progress.finish();
    Ok((rows, failures))
}

fn stm_line(r: &StmRow) -> String {
    let ours = r
        .ours_over_stm
        .map_or(String::new(), |x| format!(", ours/mithril-stm x{x:.3}"));
    let what = format!(
        "mithril-stm {} n={} ({} signatures)",
        r.operation, r.n, r.signatures
    );
    timed_line(&what, r.cpu_s.median, &ours, r.verified)
}

fn other(p: PairingCheck) -> PairingCheck {
    match p {
        PairingCheck::FinalExponentiation => PairingCheck::ResidueWitness,
        PairingCheck::ResidueWitness => PairingCheck::FinalExponentiation,
    }
}

struct CircuitResults {
    reference_design: Value,
    sizes: Vec<SizeRow>,
    ablation: Vec<SizeRow>,
    proofs: Vec<ProofRow>,
    failures: Vec<Value>,
}

fn circuit_part(cfg: &Config, rng: &mut ChaCha20Rng, inputs: &mut Inputs) -> CircuitResults {
    let mut size_n: Vec<usize> = cfg.size_n.iter().chain(&cfg.circuit_n).copied().collect();
    size_n.sort_unstable();
    size_n.dedup();
    let steps = (size_n.len() + cfg.ablation_n.len() + cfg.circuit_n.len()) as u64;
    let progress = Progress::new("mithril-msp circuit", None, steps);
    let mut design_shape = crate::circuit::Shape::with_k(18);
    design_shape.pairing = cfg.pairing;
    let (g1_cells, g2_cells) = crate::circuit::proof::reference_design_cells(&design_shape, rng);
    let mut res = CircuitResults {
        reference_design: json!({
            "what": "one 254-bit scalar multiplication per group per signature (window 4), counted with the same chips",
            "g1_scalar_mult_cells": g1_cells,
            "g2_scalar_mult_cells": g2_cells,
            "cells_per_signature": g1_cells + g2_cells,
        }),
        sizes: vec![],
        ablation: vec![],
        proofs: vec![],
        failures: vec![],
    };
    // Each child's inputs (keys, signatures, parameters) are a function of the seed it is given.
    let mut seed = |what: &str, n: usize| {
        let mut s = [0u8; 32];
        rng.fill_bytes(&mut s);
        inputs.add(&format!("circuit {what} n={n} seed"), &s);
        s
    };
    let failed = |res: &mut CircuitResults, what: &str, n: usize, e: Error| {
        eprintln!("[mithril-msp] circuit {what} n={n}: {e}");
        res.failures
            .push(json!({"part": what, "n": n, "error": e.to_string()}));
    };
    for &n in &size_n {
        match child(cfg, "size", n, cfg.k, seed("size", n))
            .and_then(|v| Ok(serde_json::from_value::<SizeRow>(v)?))
        {
            Ok(r) => {
                eprintln!(
                    "[mithril-msp] circuit size n={n}: k={}, {} advice cells ({} columns), {} lookup cells",
                    r.size.k, r.size.advice_cells, r.size.advice_columns, r.size.lookup_cells
                );
                res.sizes.push(r);
            }
            Err(e) => failed(&mut res, "size", n, e),
        }
        progress.inc(1);
    }
    let alt = Config {
        pairing: other(cfg.pairing),
        ..cfg.clone()
    };
    for &n in &cfg.ablation_n {
        match child(&alt, "size", n, cfg.k, seed("ablation", n))
            .and_then(|v| Ok(serde_json::from_value::<SizeRow>(v)?))
        {
            Ok(r) => res.ablation.push(r),
            Err(e) => failed(&mut res, "ablation", n, e),
        }
        progress.inc(1);
    }
    for &n in &cfg.circuit_n {
        let k = cfg
            .k
            .or_else(|| res.sizes.iter().find(|s| s.n == n).map(|s| s.size.k));
        match child(cfg, "prove", n, k, seed("prove", n))
            .and_then(|v| Ok(serde_json::from_value::<ProofRow>(v)?))
        {
            Ok(r) => {
                eprintln!(
                    "[mithril-msp] circuit proof n={n} k={}: prove {:.1} s wall / {:.1} s cpu, keygen {:.1} s cpu, verify {:.1} ms, {} bytes, peak {:.0} MiB{}",
                    r.size.k,
                    r.prove_total.wall_s,
                    r.prove_total.cpu_s,
                    r.keygen.cpu_s,
                    1e3 * r.verify.wall_s,
                    r.proof_bytes,
                    r.peak_rss_mib,
                    if r.verified && r.rejects_changed_public_input && r.rejects_changed_proof { "" } else { " CHECK FAILED" }
                );
                res.proofs.push(r);
            }
            Err(e) => failed(&mut res, "prove", n, e),
        }
        progress.inc(1);
    }
    progress.finish();
    res
}

fn fits(cfg: &Config, c: &CircuitResults) -> Value {
    let xs: Vec<f64> = c.sizes.iter().map(|s| s.n as f64).collect();
    let advice: Vec<f64> = c.sizes.iter().map(|s| s.size.advice_cells as f64).collect();
    let total: Vec<f64> = c
        .sizes
        .iter()
        .map(|s| (s.size.advice_cells + s.size.lookup_cells) as f64)
        .collect();
    let ok: Vec<&ProofRow> = c.proofs.iter().filter(|p| p.verified).collect();
    let pn: Vec<f64> = ok.iter().map(|p| p.n as f64).collect();
    let prove_cpu: Vec<f64> = ok.iter().map(|p| p.prove_total.cpu_s).collect();
    let prove_wall: Vec<f64> = ok.iter().map(|p| p.prove_total.wall_s).collect();
    let keygen_cpu: Vec<f64> = ok.iter().map(|p| p.keygen.cpu_s).collect();
    let rss: Vec<f64> = ok.iter().map(|p| p.peak_rss_mib).collect();
    let l_advice = fit_line(&xs, &advice);
    let l_total = fit_line(&xs, &total);
    let l_prove = fit_line(&pn, &prove_cpu);
    let l_wall = fit_line(&pn, &prove_wall);
    let l_keygen = fit_line(&pn, &keygen_cpu);
    let l_rss = fit_line(&pn, &rss);
    // Marginal cells per signature between consecutive counted n.
    let marginal: Vec<Value> = c
        .sizes
        .windows(2)
        .map(|w| {
            json!({
                "from_n": w[0].n,
                "to_n": w[1].n,
                "advice_cells_per_signature":
                    (w[1].size.advice_cells as f64 - w[0].size.advice_cells as f64)
                        / (w[1].n - w[0].n) as f64,
            })
        })
        .collect();
    let at =
        |l: &Option<super::circuit::Line>, n: f64| l.as_ref().map(|l| l.intercept + l.slope * n);
    let extrapolations: Vec<Value> = cfg
        .extrapolate
        .iter()
        .map(|&n| {
            let x = n as f64;
            json!({
                "n": n,
                "extrapolated": true,
                "advice_cells": at(&l_advice, x),
                "advice_and_lookup_cells": at(&l_total, x),
                "prove_cpu_s": at(&l_prove, x),
                "prove_wall_s": at(&l_wall, x),
                "keygen_cpu_s": at(&l_keygen, x),
                "peak_rss_mib": at(&l_rss, x),
            })
        })
        .collect();
    json!({
        "advice_cells": l_advice,
        "advice_and_lookup_cells": l_total,
        "marginal": marginal,
        "prove_cpu_s": l_prove,
        "prove_wall_s": l_wall,
        "keygen_cpu_s": l_keygen,
        "peak_rss_mib": l_rss,
        "extrapolations": extrapolations,
    })
}

/// Runs everything `cfg` asks for: the outcome (passed when every check and proof passed), the
/// digest of the generated inputs, and the report's body.
pub fn run(cfg: &Config) -> Result<Outcome, Error> {
    let seed = cfg.seed.as_ref();
    let mut inputs = Inputs::new();
    let (native_rows, checks) = if cfg.native {
        native_part(cfg, &mut stream("mithril-msp/native", seed), &mut inputs)?
    } else {
        (vec![], json!({}))
    };
    let stm = if cfg.stm {
        Some(stm_part(
            cfg,
            &mut stream("mithril-msp/stm", seed),
            &mut inputs,
        )?)
    } else {
        None
    };
    let circuit = cfg
        .circuit
        .then(|| circuit_part(cfg, &mut stream("mithril-msp/circuit", seed), &mut inputs));
    let fit = circuit.as_ref().map_or(Value::Null, |c| fits(cfg, c));
    let mut passed = native_rows.iter().all(|r| r.verified)
        && checks
            .get("cancellation")
            .is_none_or(|c| c["passed"] == json!(true));
    if let Some((rows, failures)) = &stm {
        passed &= failures.is_empty() && rows.iter().all(|r| r.verified);
    }
    if let Some(c) = &circuit {
        passed &= c.failures.is_empty()
            && c.proofs
                .iter()
                .all(|p| p.verified && p.rejects_changed_public_input && p.rejects_changed_proof);
    }
    let circuit_json = circuit.as_ref().map(|c| {
        json!({
            "curve": "BN254 (circuit field: its scalar field; signatures in G1, keys in G2)",
            "limb_bits": LIMB_BITS,
            "num_limbs": NUM_LIMBS,
            "window_bits": 4,
            "weight_bits": crate::circuit::bn254::WEIGHT_BITS,
            "pairing_check": cfg.pairing.name(),
            "assumptions": crate::circuit::relation::ASSUMPTIONS,
            "prover_threads": cfg.prover_threads,
            "reference_design": c.reference_design,
            "sizes": c.sizes,
            "ablation": c.ablation,
            "proofs": c.proofs,
            "failures": c.failures,
            "fit": fit,
        })
    });
    let keys = if seed.is_some() {
        "derived from the public seed (not secret): a reproducible run"
    } else {
        "generated from the operating system's CSPRNG"
    };
    let body = json!({
        "clock": "cpu_s: CPU time of the process (user + system, all threads); wall_s: elapsed time",
        "keys": keys,
        "native": if cfg.native {
            json!({
                "curve": "BLS12-381 (blst; keys in G2, signatures in G1)",
                "hash_to_curve": "RFC 9380 BLS12381G1_XMD:SHA-256_SSWU_RO_, tag BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_",
                "weights": "BLAKE2b-128(signatures || index), 128-bit",
                "rows": native_rows,
                "checks": checks,
            })
        } else {
            Value::Null
        },
        "circuit": circuit_json,
        "stm": stm.map(|(rows, failures)| json!({
            "library": "mithril-stm 0.9.5 (crates.io)",
            "blst_pool_threads": super::stm::blst_pool_threads(),
            "stm_max_n": super::stm::STM_MAX_N,
            "stm_parameters": {
                "k": super::stm::STM_PARAMS.k,
                "m": super::stm::STM_PARAMS.m,
                "phi_f": super::stm::STM_PARAMS.phi_f,
            },
            "rows": rows,
            "failures": failures,
        })),
    });
    Ok(Outcome {
        passed,
        inputs,
        body,
    })
}
