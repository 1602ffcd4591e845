//! `cpsnark-bench`: the benchmark of `membership_hash`, the paper's three groups (proving,
//! verification, the membership witness over n copies of one prime) plus the witness over n
//! real hash-to-prime outputs, timed by criterion (used as a library) and written as one
//! enveloped report (`--out`, body schema `docs/report.schema.json`).
//!
//! Criterion's own text (each group's `time: [low mean high]` line) goes to stdout, as the
//! paper's artifact printed it; progress to stderr (the phase, then each group's sample being
//! measured out of the sample size, with the time left). Criterion's estimates are written to a
//! scratch directory, read back into the report and removed.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use ark_bls12_381::{Bls12_381, Fr};
use ark_ff::UniformRand;
use ark_serialize::CanonicalSerialize;
use clap::Parser;
use cpsnark_sm::{
    accumulator::{membership_witness, RsaAccumulator},
    hash_to_prime::hash_to_prime,
    prove, random, verify, Crs, Proof, Security, Statement, Witness,
};
use criterion::{
    measurement::{Measurement, ValueFormatter, WallTime},
    Bencher, Criterion,
};
use measure::envelope::{Envelope, Inputs, Outcome};
use measure::progress::Progress;
use measure::seed::{stream, Seed};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use rug::Integer;
use serde_json::{json, Value};

type E = Bls12_381;

const TOOL: &str = "cpsnark-bench";
/// The version of the body's schema (docs/report.schema.json).
const BODY_VERSION: u32 = 2;

/// The 64-bit prime the reference bench accumulated n times for its witness figure.
const WITNESS_PRIME: u64 = 12_702_637_924_034_044_211;

/// The four groups: the command-line name and criterion's (the paper's) group name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    Prove,
    Verify,
    Witness,
    WitnessHashed,
}

impl Group {
    const ALL: [Group; 4] = [
        Group::Prove,
        Group::Verify,
        Group::Witness,
        Group::WitnessHashed,
    ];

    fn option(self) -> &'static str {
        match self {
            Group::Prove => "prove",
            Group::Verify => "verify",
            Group::Witness => "witness",
            Group::WitnessHashed => "witness-hashed",
        }
    }

    fn criterion(self) -> &'static str {
        match self {
            Group::Prove => "membership_hash protocol proving",
            Group::Verify => "membership_hash protocol verification",
            Group::Witness => "membership_hash creating witness",
            Group::WitnessHashed => "membership_hash creating witness (hashed primes)",
        }
    }
}

fn parse_groups(s: &str) -> Result<BTreeSet<Group>, String> {
    if s.trim() == "all" {
        return Ok(Group::ALL.into_iter().collect());
    }
    s.split(',')
        .map(str::trim)
        .map(|g| {
            Group::ALL
                .into_iter()
                .find(|x| x.option() == g)
                .ok_or_else(|| {
                    format!(
                        "--groups: {g:?} is not one of all, prove, verify, witness, witness-hashed"
                    )
                })
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Clock {
    /// Wall-clock time (criterion's default).
    Wall,
    /// Process CPU time of all threads (`clock_gettime`), which a loaded shared machine
    /// disturbs far less; with one thread it is the single-core cost.
    Cpu,
}

impl Clock {
    fn name(self) -> &'static str {
        match self {
            Clock::Wall => "wall",
            Clock::Cpu => "cpu",
        }
    }
}

#[derive(Parser, Debug)]
#[command(
    name = TOOL,
    version,
    about = "Benchmark cpSNARK-Set membership_hash (Benarroch et al.): proving, verification and \
             the membership witness over n elements, timed by criterion."
)]
struct Cli {
    /// Set size of the witness groups.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(2..=10_000_000))]
    n: u64,
    /// Criterion's sample size per group (at least 10).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(10..=100_000))]
    samples: u64,
    /// Worker threads of the SNARK prover (rayon); the RSA part is single-threaded GMP.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: u64,
    /// Public seed of every generator (64 hexadecimal digits), for reproducible inputs: the CRS,
    /// the element, the set and the proofs' randomness are then derived from it (not secret).
    /// Without it, the operating system's generator.
    #[arg(long)]
    seed: Option<String>,
    /// The JSON report (written atomically).
    #[arg(long, default_value = "report.json")]
    out: PathBuf,
    /// `128`: 128-bit Fiat-Shamir challenges (the default); `paper`: the paper's 120-bit ones,
    /// for a like-for-like comparison. The report prints the setting.
    #[arg(long, default_value = "128")]
    security: String,
    /// The clock criterion measures with.
    #[arg(long, value_enum, default_value_t = Clock::Wall)]
    clock: Clock,
    /// Groups to run: all, or a comma-separated list of prove, verify, witness, witness-hashed.
    #[arg(long, default_value = "all")]
    groups: String,
    /// Warm-up of each group, in seconds (criterion 0.3's default, which the paper ran with).
    #[arg(long, default_value_t = 3.0)]
    warm_up: f64,
    /// Target measurement time of each group, in seconds (criterion 0.3's default).
    #[arg(long, default_value_t = 5.0)]
    measurement: f64,
}

/// What the command line asked for, checked before any work.
struct Settings {
    n: usize,
    samples: usize,
    threads: usize,
    seed: Option<Seed>,
    security: Security,
    clock: Clock,
    groups: BTreeSet<Group>,
    warm_up: Duration,
    measurement: Duration,
}

impl Settings {
    fn from_cli(cli: &Cli) -> Result<Settings, String> {
        let seconds = |v: f64, what: &str| {
            if v.is_finite() && v > 0.0 && v <= 3600.0 {
                Ok(Duration::from_secs_f64(v))
            } else {
                Err(format!(
                    "{what} must be a number of seconds in (0, 3600], got {v}"
                ))
            }
        };
        Ok(Settings {
            n: cli.n as usize,
            samples: cli.samples as usize,
            threads: cli.threads as usize,
            seed: cli.seed.as_deref().map(str::parse).transpose()?,
            security: cli
                .security
                .parse()
                .map_err(|e| format!("--security: {e}"))?,
            clock: cli.clock,
            groups: parse_groups(&cli.groups)?,
            warm_up: seconds(cli.warm_up, "--warm-up")?,
            measurement: seconds(cli.measurement, "--measurement")?,
        })
    }

    fn parameters(&self) -> Value {
        json!({
            "n": self.n,
            "samples": self.samples,
            "threads": self.threads,
            "security": self.security.name(),
            "clock": self.clock.name(),
            "groups": self.groups.iter().map(|g| g.option()).collect::<Vec<_>>(),
            "warm_up_s": self.warm_up.as_secs_f64(),
            "measurement_s": self.measurement.as_secs_f64(),
        })
    }
}

/// Process CPU time (user + system, all threads) as a criterion measurement.
struct CpuTime;

fn process_cpu_time() -> Duration {
    Duration::from_secs_f64(measure::clock::process_cpu_seconds())
}

impl Measurement for CpuTime {
    type Intermediate = Duration;
    type Value = Duration;
    fn start(&self) -> Duration {
        process_cpu_time()
    }
    fn end(&self, start: Duration) -> Duration {
        process_cpu_time().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, d: &Duration) -> f64 {
        d.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        // Same units as wall time (nanoseconds), so criterion prints it the same way.
        WallTime.formatter()
    }
}

/// Criterion's scratch directory, removed when the run ends however it ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A group's estimates, read back from criterion's `estimates.json`.
fn group_summary(dir: &Path, group: Group) -> Result<Value, String> {
    let path = dir
        .join(group.criterion())
        .join("new")
        .join("estimates.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("criterion's estimates {}: {e}", path.display()))?;
    let est: Value =
        serde_json::from_str(&text).map_err(|e| format!("malformed {}: {e}", path.display()))?;
    let ns = |v: &Value| {
        v.as_f64()
            .map(|x| x * 1e-9)
            .ok_or_else(|| format!("{} lacks an estimate", path.display()))
    };
    let mean = &est["mean"];
    let mut g = json!({
        "group": group.criterion(),
        "mean_s": ns(&mean["point_estimate"])?,
        "ci_low_s": ns(&mean["confidence_interval"]["lower_bound"])?,
        "ci_high_s": ns(&mean["confidence_interval"]["upper_bound"])?,
        "median_s": ns(&est["median"]["point_estimate"])?,
        "printed": "mean",
    });
    // For short iterations criterion samples linearly and prints the regression slope, not the
    // mean, on its `time:` line (as in the reference's 31.9 ms verify figure); keep both.
    let slope = &est["slope"];
    if !slope.is_null() {
        g["slope_s"] = json!(ns(&slope["point_estimate"])?);
        g["slope_ci_low_s"] = json!(ns(&slope["confidence_interval"]["lower_bound"])?);
        g["slope_ci_high_s"] = json!(ns(&slope["confidence_interval"]["upper_bound"])?);
        g["printed"] = json!("slope");
    }
    Ok(g)
}

/// Which sample of a group is being measured, for the progress line. Criterion calls a group's
/// closure once per warm-up round and then once per sample, so the calls after the warm-up
/// count the samples.
struct Samples {
    group: &'static str,
    total: u64,
    warm_up: Duration,
    first_call: Cell<Option<Instant>>,
    progress: RefCell<Option<Progress>>,
}

impl Samples {
    fn new(group: &'static str, total: usize, warm_up: Duration) -> Self {
        Samples {
            group,
            total: total as u64,
            warm_up,
            first_call: Cell::new(None),
            progress: RefCell::new(None),
        }
    }

    fn tick(&self) {
        let first = match self.first_call.get() {
            Some(t) => t,
            None => {
                let t = Instant::now();
                self.first_call.set(Some(t));
                t
            }
        };
        if first.elapsed() < self.warm_up {
            return;
        }
        let mut progress = self.progress.borrow_mut();
        let p =
            progress.get_or_insert_with(|| Progress::new(self.group, Some("sample"), self.total));
        if p.done() < self.total {
            p.inc(1);
        }
    }

    fn finish(self) {
        if let Some(p) = self.progress.into_inner() {
            p.finish();
        }
    }
}

/// What the timed closures need, and the count of what failed inside them.
struct Ctx<'a> {
    crs: &'a Crs<E>,
    stmt: &'a Statement<E>,
    wit: &'a Witness<E>,
    proof: &'a Proof<E>,
    same: Vec<Integer>,
    hashed: Vec<Integer>,
    settings: &'a Settings,
    /// Proofs that failed to be made or verified inside a timed loop.
    failures: Cell<u64>,
    /// The last proof the proving group made (verified after the group).
    last_proof: RefCell<Option<Proof<E>>>,
}

/// Criterion with the run's sample size, warm-up and measurement time, writing to `out_dir`.
fn configure<M: Measurement>(c: Criterion<M>, s: &Settings, out_dir: &Path) -> Criterion<M> {
    c.sample_size(s.samples)
        .warm_up_time(s.warm_up)
        .measurement_time(s.measurement)
        .output_directory(out_dir)
}

/// Runs the selected groups.
fn run_groups<M: Measurement + 'static>(mut c: Criterion<M>, ctx: &Ctx<'_>, rng: &mut ChaCha20Rng) {
    let s = ctx.settings;
    let group = |c: &mut Criterion<M>, g: Group, f: &mut dyn FnMut(&mut Bencher<M>)| {
        if !s.groups.contains(&g) {
            return;
        }
        let counter = Samples::new(g.criterion(), s.samples, s.warm_up);
        c.bench_function(g.criterion(), |b| {
            counter.tick();
            f(b)
        });
        counter.finish();
    };
    let fail = || ctx.failures.set(ctx.failures.get() + 1);
    group(&mut c, Group::Prove, &mut |b| {
        b.iter(|| match prove(ctx.crs, ctx.stmt, ctx.wit, rng) {
            Ok(p) => *ctx.last_proof.borrow_mut() = Some(p),
            Err(_) => fail(),
        })
    });
    group(&mut c, Group::Verify, &mut |b| {
        b.iter(|| {
            if verify(ctx.crs, ctx.stmt, ctx.proof).is_err() {
                fail()
            }
        })
    });
    // n copies of one 64-bit prime; the witness of the first skips it (the paper's set).
    group(&mut c, Group::Witness, &mut |b| {
        b.iter(|| membership_witness(ctx.crs.group(), &ctx.same, 0).map_err(|_| fail()))
    });
    // n real hash-to-prime outputs of distinct elements (hashed before, untimed).
    group(&mut c, Group::WitnessHashed, &mut |b| {
        b.iter(|| membership_witness(ctx.crs.group(), &ctx.hashed, 0).map_err(|_| fail()))
    });
    c.final_summary();
}

/// The n distinct elements base·2^180 + i and their hash-to-prime outputs (in parallel).
fn hashed_set(crs: &Crs<E>, base: &Integer, n: usize) -> Result<Vec<Integer>, String> {
    (0..n as u64)
        .into_par_iter()
        .map(|i| {
            let x = Integer::from(base << 180u32) + i;
            hash_to_prime(&crs.params, &x)
                .map(|(e, _)| e)
                .map_err(|e| e.to_string())
        })
        .collect()
}

fn compressed<T: CanonicalSerialize>(x: &T) -> Vec<u8> {
    let mut b = Vec::with_capacity(x.compressed_size());
    x.serialize_compressed(&mut b)
        .expect("serialising into a Vec cannot fail");
    b
}

/// What the groups measure: the CRS, the statement of one accumulated element, its witness and
/// one honest proof (and whether it verified), made untimed as in the paper's bench.
struct Setup {
    crs: Crs<E>,
    setup_s: f64,
    stmt: Statement<E>,
    wit: Witness<E>,
    proof: Proof<E>,
    honest: Result<(), cpsnark_sm::Error>,
}

/// The CRS (stream `cpsnark-sm/crs`), the statement (stream `cpsnark-sm/statement`) and one
/// honest proof (stream `cpsnark-sm/prover`, returned: the proving group goes on drawing from
/// it).
fn setup(s: &Settings, inputs: &mut Inputs) -> Result<(Setup, ChaCha20Rng), String> {
    let seed = s.seed.as_ref();
    eprintln!("[progress] {TOOL}: setup (CRS, LegoGroth16 keys, one honest proof)");
    let t0 = Instant::now();
    let crs = Crs::<E>::setup_with(s.security, &mut stream("cpsnark-sm/crs", seed))
        .map_err(|e| format!("setup: {e}"))?;
    let setup_s = t0.elapsed().as_secs_f64();
    println!("params: {}", crs.params);
    println!(
        "crs size: ({}, {}) (verifying key, proving key; bytes compressed); setup {setup_s:.1} s",
        crs.snark.vk.compressed_size(),
        crs.snark.pk.compressed_size(),
    );
    println!(
        "threads: {}; witness set size n = {}; sample size {}",
        s.threads, s.n, s.samples
    );
    inputs.add("crs digest", crs.digest());
    // The statement: one element x accumulated with two other primes.
    let mut st_rng = stream("cpsnark-sm/statement", seed);
    let x = random::bits(crs.params.hash_to_prime_bits, &mut st_rng);
    let (e, _) = hash_to_prime(&crs.params, &x).map_err(|e| e.to_string())?;
    let r_q = Fr::rand(&mut st_rng);
    let mut acc = RsaAccumulator::new(crs.group().clone());
    acc.add(&[
        Integer::from(378_373_571_372_703_133u64),
        Integer::from(8_640_171_141_336_142_787u64),
    ])
    .map_err(|e| e.to_string())?;
    let w = acc.add_with_witness(&e).map_err(|e| e.to_string())?;
    let stmt = Statement::<E> {
        acc: acc.value().clone(),
        c_e_q: crs.commit_prime(&e, &r_q),
    };
    inputs
        .add("element", &x.to_digits::<u8>(rug::integer::Order::Msf))
        .add("accumulator", &stmt.acc.to_bytes())
        .add("c_e_q", &compressed(&stmt.c_e_q));
    let wit = Witness::<E> { x, r_q, w };
    let mut prover = stream("cpsnark-sm/prover", seed);
    let proof = prove(&crs, &stmt, &wit, &mut prover).map_err(|e| e.to_string())?;
    let honest = verify(&crs, &stmt, &proof);
    println!("proof size: {} bytes", proof.size_bytes());
    let su = Setup {
        crs,
        setup_s,
        stmt,
        wit,
        proof,
        honest,
    };
    Ok((su, prover))
}

/// The report's body: the security lengths, sizes, what was verified, the groups' estimates.
fn body(su: &Setup, last_ok: bool, failures: u64, groups: Vec<Value>) -> Value {
    let (crs, p) = (&su.crs, &su.crs.params);
    json!({
        "security": {
            "setting": p.setting.name(),
            "challenge_bits": p.challenge_bits(),
            "soundness_bits": p.security_soundness,
            "zk_slack_bits": p.security_zk,
            "hash_to_prime_bits": p.hash_to_prime_bits,
            "field_bits": p.field_size_bits,
        },
        "proof_bytes": su.proof.size_bytes(),
        "crs": {
            "verifying_key_bytes": crs.snark.vk.compressed_size(),
            "proving_key_bytes": crs.snark.pk.compressed_size(),
            "setup_s": su.setup_s,
        },
        "checks": {
            "honest_proof": match &su.honest {
                Ok(()) => "verified".to_string(),
                Err(e) => format!("rejected: {e}"),
            },
            "last_timed_proof_verified": last_ok,
            "failures_in_timed_loops": failures,
        },
        "groups": groups,
        "libraries": {
            "legogroth16": "0.18",
            "arkworks": "0.4",
            "rug": "1.19",
            "gmp": format!(
                "{}.{}.{}",
                gmp_mpfr_sys::gmp::VERSION,
                gmp_mpfr_sys::gmp::VERSION_MINOR,
                gmp_mpfr_sys::gmp::VERSION_PATCHLEVEL
            ),
            "criterion": "0.5",
        },
    })
}

/// The whole measurement: setup (untimed, as in the paper's bench), one honest proof checked,
/// the groups, and the report's body.
fn measure_all(s: &Settings) -> Result<Outcome, String> {
    let mut inputs = Inputs::new();
    let (su, mut prover) = setup(s, &mut inputs)?;
    // The witness sets: n copies of one prime, and n hashed primes (only if that group runs).
    let base = random::bits(64, &mut stream("cpsnark-sm/set", s.seed.as_ref()));
    inputs
        .add("witness prime", &WITNESS_PRIME.to_be_bytes())
        .add("n", &(s.n as u64).to_be_bytes())
        .add(
            "hashed set base",
            &base.to_digits::<u8>(rug::integer::Order::Msf),
        );
    let hashed = if s.groups.contains(&Group::WitnessHashed) {
        eprintln!("[progress] {TOOL}: hashing {} elements to primes", s.n);
        hashed_set(&su.crs, &base, s.n)?
    } else {
        Vec::new()
    };
    let dir = Scratch(std::env::temp_dir().join(format!("{TOOL}-{}", std::process::id())));
    let ctx = Ctx {
        crs: &su.crs,
        stmt: &su.stmt,
        wit: &su.wit,
        proof: &su.proof,
        same: vec![Integer::from(WITNESS_PRIME); s.n],
        hashed,
        settings: s,
        failures: Cell::new(0),
        last_proof: RefCell::new(None),
    };
    if su.honest.is_ok() {
        match s.clock {
            Clock::Wall => run_groups(
                configure(Criterion::default(), s, &dir.0),
                &ctx,
                &mut prover,
            ),
            Clock::Cpu => run_groups(
                configure(Criterion::default().with_measurement(CpuTime), s, &dir.0),
                &ctx,
                &mut prover,
            ),
        }
    }
    // The proving group's last proof is checked too, outside the timed loop.
    let last_ok = match ctx.last_proof.borrow().as_ref() {
        Some(p) => verify(&su.crs, &su.stmt, p).is_ok(),
        None => true,
    };
    let groups = if su.honest.is_ok() {
        Group::ALL
            .into_iter()
            .filter(|g| s.groups.contains(g))
            .map(|g| group_summary(&dir.0, g))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        Vec::new()
    };
    let failures = ctx.failures.get();
    let passed = su.honest.is_ok() && last_ok && failures == 0;
    Ok(Outcome {
        passed,
        inputs,
        body: body(&su, last_ok, failures, groups),
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let settings = match Settings::from_cli(&cli) {
        Ok(s) => s,
        Err(e) => return measure::cli::refuse(TOOL, e),
    };
    if let Err(e) = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.threads)
        .build_global()
    {
        return measure::cli::refuse(
            TOOL,
            format!("cannot start {} threads: {e}", settings.threads),
        );
    }
    let envelope = Envelope::begin(
        TOOL,
        env!("CARGO_PKG_VERSION"),
        BODY_VERSION,
        settings.parameters(),
        settings.seed.as_ref(),
    );
    measure::cli::finish_run(
        &cli.out,
        envelope,
        || measure_all(&settings),
        |r| {
            let groups = r["body"]["groups"].as_array().map_or(0, Vec::len);
            format!(" ({groups} groups)")
        },
    )
}
