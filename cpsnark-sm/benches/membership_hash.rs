//! Criterion benchmark of `membership_hash`, the three groups of the paper's artifact plus the
//! witness for real hash-to-prime outputs.
//!
//! Environment: CPSNARK_N (set size of the witness groups, default 10000), CPSNARK_SAMPLES
//! (criterion sample size, ≥ 10, default 100), CPSNARK_SECURITY (`128`, the default: 128-bit
//! Fiat-Shamir challenges; `paper`: the paper's 120-bit ones), CPSNARK_JSON (path of the JSON summary, checked
//! for writability before any work), CPSNARK_SEED (reproducible randomness: a ChaCha20 key of 32
//! bytes derived from it; default: OS entropy), RAYON_NUM_THREADS (threads of the
//! SNARK prover; the RSA part is single-threaded GMP), CPSNARK_CLOCK (`wall`, the default, or
//! `cpu`: process CPU time of all threads, which a loaded shared machine disturbs far less than
//! wall time; with one thread it is the single-core cost). Criterion's own filters work as usual:
//! `cargo bench -p cpsnark-sm --bench membership_hash -- "creating witness"`.
//!
//! Progress goes to stderr: the phase (setup, then each group), and within a group the sample
//! being measured out of the sample size, with the time left.

use std::{
    cell::RefCell,
    collections::BTreeSet,
    path::{Path, PathBuf},
    process::exit,
    time::{Duration, Instant},
};

use ark_bls12_381::{Bls12_381, Fr};
use ark_ff::UniformRand;
use ark_serialize::CanonicalSerialize;
use cpsnark_sm::{
    accumulator::{membership_witness, RsaAccumulator},
    hash_to_prime::hash_to_prime,
    prove, random, verify, Crs, Statement, Witness,
};
use criterion::{
    measurement::{Measurement, ValueFormatter, WallTime},
    Bencher, Criterion,
};
use measure::progress::Progress;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use rug::Integer;
use serde_json::{json, Value};

type E = Bls12_381;

const PROVING: &str = "membership_hash protocol proving";
const VERIFICATION: &str = "membership_hash protocol verification";
const WITNESS: &str = "membership_hash creating witness";
const WITNESS_HASHED: &str = "membership_hash creating witness (hashed primes)";

/// The 64-bit prime the reference bench accumulated n times for its witness figure.
const WITNESS_PRIME: u64 = 12_702_637_924_034_044_211;

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

fn fail(msg: &str) -> ! {
    eprintln!("membership_hash: {msg}");
    exit(2)
}

fn env_usize(name: &str, default: usize, min: usize) -> usize {
    match std::env::var(name) {
        Err(_) => default,
        Ok(s) => match s.trim().parse::<usize>() {
            Ok(v) if v >= min => v,
            _ => fail(&format!("{name}={s:?} must be an integer ≥ {min}")),
        },
    }
}

/// Criterion writes its estimates under this directory; we read them back for the summary.
fn criterion_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(d).join("criterion");
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion")
}

fn group_summary(dir: &Path, group: &str) -> Value {
    let path = dir.join(group).join("new").join("estimates.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", path.display())));
    let est: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| fail(&format!("malformed {}: {e}", path.display())));
    let ns = |v: &Value| {
        v.as_f64()
            .unwrap_or_else(|| fail(&format!("{} lacks an estimate", path.display())))
            * 1e-9
    };
    let mean = &est["mean"];
    let mut g = json!({
        "group": group,
        "mean_s": ns(&mean["point_estimate"]),
        "ci_low_s": ns(&mean["confidence_interval"]["lower_bound"]),
        "ci_high_s": ns(&mean["confidence_interval"]["upper_bound"]),
        "median_s": ns(&est["median"]["point_estimate"]),
        "printed": "mean",
    });
    // For short iterations criterion samples linearly and prints the regression slope, not the
    // mean, on its `time:` line (as in the reference's 31.9 ms verify figure); keep both.
    let slope = &est["slope"];
    if !slope.is_null() {
        g["slope_s"] = json!(ns(&slope["point_estimate"]));
        g["slope_ci_low_s"] = json!(ns(&slope["confidence_interval"]["lower_bound"]));
        g["slope_ci_high_s"] = json!(ns(&slope["confidence_interval"]["upper_bound"]));
        g["printed"] = json!("slope");
    }
    g
}

/// What the timed closures need.
struct Ctx<'a> {
    crs: &'a Crs<E>,
    stmt: &'a Statement<E>,
    wit: &'a Witness<E>,
    proof: &'a cpsnark_sm::Proof<E>,
    n: usize,
    seed: Option<u64>,
    samples: usize,
}

/// Warm-up of each group (criterion 0.3's default, which the paper's bench ran with).
const WARM_UP: Duration = Duration::from_secs(3);

/// Criterion 0.3's defaults, which the paper's bench ran with, except the sample size.
fn configure<M: Measurement>(c: Criterion<M>, samples: usize, out_dir: &Path) -> Criterion<M> {
    c.sample_size(samples)
        .warm_up_time(WARM_UP)
        .measurement_time(Duration::from_secs(5))
        .output_directory(out_dir)
        .configure_from_args()
}

/// Which sample of a group is being measured, for the progress line. Criterion calls a group's
/// closure once per warm-up round (for `WARM_UP`) and then once per sample, so the calls after
/// the warm-up count the samples.
struct Samples {
    group: &'static str,
    total: u64,
    first_call: RefCell<Option<Instant>>,
    progress: RefCell<Option<Progress>>,
}

impl Samples {
    fn new(group: &'static str, total: usize) -> Self {
        Samples {
            group,
            total: total as u64,
            first_call: RefCell::new(None),
            progress: RefCell::new(None),
        }
    }

    fn tick(&self) {
        let first = *self
            .first_call
            .borrow_mut()
            .get_or_insert_with(Instant::now);
        if first.elapsed() < WARM_UP {
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

/// Run the four groups; returns the names of those criterion's filter let run.
fn run_groups<M: Measurement + 'static>(
    mut c: Criterion<M>,
    ctx: &Ctx<'_>,
    rng: &mut ChaCha20Rng,
) -> BTreeSet<&'static str> {
    let Ctx {
        crs,
        stmt,
        wit,
        proof,
        n,
        seed,
        samples,
    } = *ctx;
    // Criterion calls a group's closure only if its filter matches: record which ran.
    let mut ran = BTreeSet::new();
    let mut group =
        |c: &mut Criterion<M>, name: &'static str, f: &mut dyn FnMut(&mut Bencher<M>)| {
            let counter = Samples::new(name, samples);
            c.bench_function(name, |b| {
                counter.tick();
                f(b)
            });
            if counter.first_call.borrow().is_some() {
                ran.insert(name);
            }
            counter.finish();
        };

    group(&mut c, PROVING, &mut |b| {
        b.iter(|| prove(crs, stmt, wit, rng).expect("honest proof"))
    });
    group(&mut c, VERIFICATION, &mut |b| {
        b.iter(|| verify(crs, stmt, proof).expect("honest proof verifies"))
    });
    // n copies of one 64-bit prime; the witness of the first skips it (the paper's set).
    let same = vec![Integer::from(WITNESS_PRIME); n];
    group(&mut c, WITNESS, &mut |b| {
        b.iter(|| membership_witness(crs.group(), &same, 0).expect("witness"))
    });
    // n real hash-to-prime outputs of distinct elements (hashing is a one-time cost, untimed,
    // done only if the group runs).
    let mut hashed: Option<Vec<Integer>> = None;
    group(&mut c, WITNESS_HASHED, &mut |b| {
        let set = hashed.get_or_insert_with(|| {
            let base = random::bits(64, &mut measure::seed::rng("cpsnark-sm set", seed));
            (0..n as u64)
                .into_par_iter()
                .map(|i| {
                    let xi = Integer::from(&base << 180u32) + i;
                    hash_to_prime(&crs.params, &xi).expect("prime").0
                })
                .collect()
        });
        b.iter(|| membership_witness(crs.group(), set, 0).expect("witness"))
    });
    c.final_summary();
    ran
}

fn main() {
    let n = env_usize("CPSNARK_N", 10_000, 2);
    let samples = env_usize("CPSNARK_SAMPLES", 100, 10);
    let json_path = std::env::var("CPSNARK_JSON").ok();
    let seed = std::env::var("CPSNARK_SEED").ok().map(|s| {
        s.trim()
            .parse::<u64>()
            .unwrap_or_else(|_| fail(&format!("CPSNARK_SEED={s:?} must be a u64")))
    });
    let threads = rayon::current_num_threads();
    if let Some(path) = &json_path {
        measure::output::check_writable(Path::new(path)).unwrap_or_else(|e| fail(&e));
    }
    let started = Instant::now();
    let provenance = measure::provenance::provenance_json();
    let mut rng = measure::seed::rng("cpsnark-sm", seed);

    // Untimed setup, as in the paper's bench.
    eprintln!("[progress] cpsnark-sm: setup (CRS, LegoGroth16 keys, one honest proof)");
    let t0 = Instant::now();
    let setting = match std::env::var("CPSNARK_SECURITY") {
        Err(_) => cpsnark_sm::Security::default(),
        Ok(s) => s
            .parse()
            .unwrap_or_else(|e| fail(&format!("CPSNARK_SECURITY: {e}"))),
    };
    let crs =
        Crs::<E>::setup_with(setting, &mut rng).unwrap_or_else(|e| fail(&format!("setup: {e}")));
    println!("params: {}", crs.params);
    println!(
        "crs size: ({}, {}) (verifying key, proving key; bytes compressed); setup {:.1} s",
        crs.snark.vk.compressed_size(),
        crs.snark.pk.compressed_size(),
        t0.elapsed().as_secs_f64()
    );
    println!(
        "threads: {threads} (RAYON_NUM_THREADS); witness set size n = {n}; sample size {samples}"
    );

    let x = random::bits(crs.params.hash_to_prime_bits, &mut rng);
    let (e, _) = hash_to_prime(&crs.params, &x).unwrap_or_else(|e| fail(&e.to_string()));
    let r_q = Fr::rand(&mut rng);
    let mut acc = RsaAccumulator::new(crs.group().clone());
    acc.add(&[
        Integer::from(378_373_571_372_703_133u64),
        Integer::from(8_640_171_141_336_142_787u64),
    ])
    .unwrap_or_else(|e| fail(&e.to_string()));
    let w = acc
        .add_with_witness(&e)
        .unwrap_or_else(|e| fail(&e.to_string()));
    let stmt = Statement::<E> {
        acc: acc.value().clone(),
        c_e_q: crs.commit_prime(&e, &r_q),
    };
    let wit = Witness::<E> { x, r_q, w };
    let proof = prove(&crs, &stmt, &wit, &mut rng).unwrap_or_else(|e| fail(&e.to_string()));
    verify(&crs, &stmt, &proof).unwrap_or_else(|e| fail(&format!("honest proof rejected: {e}")));
    println!("proof size: {} bytes", proof.size_bytes());

    let clock = std::env::var("CPSNARK_CLOCK").unwrap_or_else(|_| "wall".into());
    // One criterion directory per configuration, so that its "change:" lines compare a run with
    // the previous run of the same set size, thread count and clock only.
    let out_dir = criterion_dir().join(format!("n{n}-t{threads}-{clock}"));
    let ctx = Ctx {
        crs: &crs,
        stmt: &stmt,
        wit: &wit,
        proof: &proof,
        n,
        seed,
        samples,
    };
    let ran = match clock.as_str() {
        "wall" => run_groups(
            configure(Criterion::default(), samples, &out_dir),
            &ctx,
            &mut rng,
        ),
        "cpu" => run_groups(
            configure(
                Criterion::default().with_measurement(CpuTime),
                samples,
                &out_dir,
            ),
            &ctx,
            &mut rng,
        ),
        other => fail(&format!(
            "CPSNARK_CLOCK={other:?} must be \"wall\" or \"cpu\""
        )),
    };

    if let Some(path) = json_path {
        let groups: Vec<Value> = [PROVING, VERIFICATION, WITNESS, WITNESS_HASHED]
            .into_iter()
            .filter(|g| ran.contains(g))
            .map(|g| group_summary(&out_dir, g))
            .collect();
        let gmp = format!(
            "{}.{}.{}",
            gmp_mpfr_sys::gmp::VERSION,
            gmp_mpfr_sys::gmp::VERSION_MINOR,
            gmp_mpfr_sys::gmp::VERSION_PATCHLEVEL
        );
        let summary = json!({
            "experiment": "cpsnark-sm",
            "n": n,
            "threads": threads,
            "sample_size": samples,
            "clock": clock,
            "seed": seed,
            "proof_bytes": proof.size_bytes(),
            "security": {
                "setting": crs.params.setting.name(),
                "challenge_bits": crs.params.challenge_bits(),
                "soundness_bits": crs.params.security_soundness,
                "zk_slack_bits": crs.params.security_zk,
            },
            "groups": groups,
            "machine": measure::machine::machine_json(),
            "provenance": provenance,
            "wall_s": started.elapsed().as_secs_f64(),
            "versions": {
                "cpsnark-sm": env!("CARGO_PKG_VERSION"),
                "legogroth16": "0.18",
                "arkworks": "0.4",
                "rug": "1.19",
                "gmp": gmp,
                "criterion": "0.5",
            },
        });
        measure::output::write_json_atomic(Path::new(&path), &summary)
            .unwrap_or_else(|e| fail(&format!("cannot write {path}: {e}")));
        println!("summary written to {path}");
    }
}
