//! Unit operations of the cost model (docs/protocol.md §10) on BN254 and BLS12-381, with Criterion.
//!
//! `cargo bench -p db-sm-rsm --bench ops` prints Criterion's estimates and writes a calibration
//! file (env `DBSM_CALIBRATION`, default `target/calibration.json`):
//! `[{"op", "curve", "ns", "wall_ns", "threads", "machine"}, ...]`: `ns` is the median over
//! Criterion's samples of the process CPU time per call (robust on a shared machine), `wall_ns`
//! the same for wall time (what Criterion prints). Operation names follow the cost model's classes
//! ([`db_sm_rsm::primitives::counters`]): `E1f`/`E1v`
//! (G1 fixed/variable base, full exponent), `E1f80`, `E1v80`, `E1f128`, `E1v128`, `E1f180`,
//! `E1v180` (short exponents), the same for G2 (`E2…`) and GT (`ET…`), `E1j2` (a two-base joint G1
//! exponentiation, `group::mul_var_joint`), `P` (one pairing), `MP3` (a multi-pairing
//! of three pairs, as in the batch signature checks), `MSM1024_G1` / `MSM1024_G1_80` /
//! `MSM1024_G1_128` (one 1024-term G1 multi-exponentiation, full, 80- and 128-bit exponents); curve-independent Paillier
//! operations have `curve: null`: `Enc_pp` (threshold-Paillier encryption with the fixed-base
//! table), `XN2(b)` / `XN(b)` (b-bit exponent mod the 4099-bit N² / 2050-bit N), `XN2s(448)`
//! (per-mixer encryption's powmod without table, mod the mixer's N²), `MXN2_4096x80` (one
//! 4096-term multi-exponentiation mod N² with 80-bit exponents), `CRT_dec` (per-mixer CRT
//! decryption).
//!
//! Everything runs in a rayon pool of `RAYON_NUM_THREADS` threads (default 1: unit costs are
//! single-core, as in the paper). Criterion's measurement is kept short (10 samples) so the
//! whole run takes a few minutes; override with Criterion's own command-line flags.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ark_ec::pairing::Pairing;
use ark_ec::CurveGroup;
use ark_ff::UniformRand;
use criterion::{black_box, Criterion};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

use db_sm_rsm::primitives::bigint::{multi_pow_mod, pow_mod, random_bits};
use db_sm_rsm::primitives::group::{
    msm, msm_short, mul_var, mul_var_joint, random_short, Generators,
};
use db_sm_rsm::primitives::paillier::PaillierKey;
use db_sm_rsm::primitives::thpaillier::ThresholdKey;
use measure::clock::process_cpu_seconds;
use measure::machine::machine_json;
use rug::Integer;

/// Per-call (CPU, wall) nanoseconds of every sample, keyed by (op, curve).
type Samples = Mutex<BTreeMap<(String, Option<String>), Vec<(f64, f64)>>>;

struct Recorder {
    samples: Samples,
}

impl Recorder {
    /// Benchmarks `f` under Criterion and records the time per call of each sample.
    fn bench<O>(&self, c: &mut Criterion, op: &str, curve: Option<&str>, mut f: impl FnMut() -> O) {
        let id = match curve {
            Some(cv) => format!("{cv}/{op}"),
            None => op.to_string(),
        };
        let key = (op.to_string(), curve.map(str::to_string));
        c.bench_function(&id, |b| {
            b.iter_custom(|iters| {
                // CPU time of the whole process (every thread: the work runs on rayon's
                // workers), not wall time: the machine is shared, and wall time there includes
                // waiting for a core.
                let cpu0 = process_cpu_seconds();
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(f());
                }
                let el = start.elapsed();
                let wall = el.as_nanos() as f64 / iters as f64;
                let cpu = match (process_cpu_seconds() - cpu0) * 1e9 / iters as f64 {
                    c if c.is_finite() => c,
                    _ => wall,
                };
                self.samples
                    .lock()
                    .unwrap()
                    .entry(key.clone())
                    .or_default()
                    .push((cpu, wall));
                el
            })
        });
    }

    /// (op, curve, median CPU ns per call, median wall ns per call).
    fn medians(&self) -> Vec<(String, Option<String>, f64, f64)> {
        let median = |mut v: Vec<f64>| {
            v.sort_by(|a, b| a.total_cmp(b));
            v[v.len() / 2]
        };
        let s = self.samples.lock().unwrap();
        s.iter()
            .map(|((op, curve), v)| {
                let cpu = median(v.iter().map(|x| x.0).collect());
                let wall = median(v.iter().map(|x| x.1).collect());
                (op.clone(), curve.clone(), cpu, wall)
            })
            .collect()
    }
}

/// Inputs per unit cost: each call takes the next (base, exponent) pair of a pool, as in a run
/// where every entry has its own. With one fixed input the loop measured ~1.6x faster than the
/// same operations inside a run (the CPU learns the exponent's digit pattern and keeps the few
/// table rows it touches cached), which made the lower bound too low.
const POOL: usize = 64;

/// Cycles through a pool: the closure's next element on every call.
fn cycle<'a, T>(pool: &'a [T]) -> impl FnMut() -> &'a T {
    let mut i = 0;
    move || {
        i = (i + 1) % pool.len();
        &pool[i]
    }
}

fn bench_curve<E: Pairing>(c: &mut Criterion, rec: &Recorder, curve: &str) {
    let mut rng = ChaCha20Rng::from_seed([7; 32]);
    let gens = Generators::<E>::new(&mut rng);
    let full: Vec<E::ScalarField> = (0..POOL).map(|_| E::ScalarField::rand(&mut rng)).collect();
    let s80: Vec<E::ScalarField> = (0..POOL).map(|_| random_short(&mut rng, 80)).collect();
    let s128: Vec<E::ScalarField> = (0..POOL).map(|_| random_short(&mut rng, 128)).collect();
    let s180: Vec<E::ScalarField> = (0..POOL).map(|_| random_short(&mut rng, 180)).collect();
    let exps = [("", &full), ("80", &s80), ("128", &s128), ("180", &s180)];

    let p1s: Vec<E::G1> = (0..POOL).map(|_| E::G1::rand(&mut rng)).collect();
    let p2s: Vec<E::G2> = (0..POOL).map(|_| E::G2::rand(&mut rng)).collect();
    let pts: Vec<_> = p1s
        .iter()
        .zip(&p2s)
        .map(|(a, b)| E::pairing(*a, *b))
        .collect();
    for (suffix, xs) in exps {
        let pairs1: Vec<_> = p1s.iter().copied().zip(xs.iter().copied()).collect();
        let pairs2: Vec<_> = p2s.iter().copied().zip(xs.iter().copied()).collect();
        let pairst: Vec<_> = pts.iter().copied().zip(xs.iter().copied()).collect();
        let mut x = cycle(xs);
        rec.bench(c, &format!("E1f{suffix}"), Some(curve), || gens.g1.mul(x()));
        let mut p = cycle(&pairs1);
        rec.bench(c, &format!("E1v{suffix}"), Some(curve), || {
            let (b, e) = p();
            *b * e
        });
        rec.bench(c, &format!("E1v{suffix}_wnaf"), Some(curve), || {
            let (b, e) = p();
            mul_var(*b, e)
        });
        let mut p = cycle(&pairs2);
        rec.bench(c, &format!("E2v{suffix}_wnaf"), Some(curve), || {
            let (b, e) = p();
            mul_var(*b, e)
        });
        rec.bench(c, &format!("E2v{suffix}"), Some(curve), || {
            let (b, e) = p();
            *b * e
        });
        rec.bench(c, &format!("E2f{suffix}"), Some(curve), || gens.f2.mul(x()));
        rec.bench(c, &format!("ETf{suffix}"), Some(curve), || gens.ft.mul(x()));
        let mut p = cycle(&pairst);
        rec.bench(c, &format!("ETv{suffix}"), Some(curve), || {
            let (b, e) = p();
            *b * e
        });
    }
    let (p1, p2) = (p1s[0], p2s[0]);
    let joint: Vec<[(E::G1, E::ScalarField); 2]> = (0..POOL)
        .map(|i| {
            [
                (p1s[i], full[i]),
                (p1s[(i + 1) % POOL], full[(i + 7) % POOL]),
            ]
        })
        .collect();
    let mut j = cycle(&joint);
    rec.bench(c, "E1j2", Some(curve), || mul_var_joint(j()));

    let a1 = p1.into_affine();
    let a2 = p2.into_affine();
    rec.bench(c, "P", Some(curve), || E::pairing(a1, a2));
    let g1s: Vec<E::G1Affine> =
        E::G1::normalize_batch(&(0..3).map(|_| E::G1::rand(&mut rng)).collect::<Vec<_>>());
    let g2s: Vec<E::G2Affine> =
        E::G2::normalize_batch(&(0..3).map(|_| E::G2::rand(&mut rng)).collect::<Vec<_>>());
    rec.bench(c, "MP3", Some(curve), || {
        E::multi_pairing(g1s.clone(), g2s.clone())
    });

    let n = 1024;
    let bases: Vec<E::G1Affine> =
        E::G1::normalize_batch(&(0..n).map(|_| E::G1::rand(&mut rng)).collect::<Vec<_>>());
    let fulls: Vec<E::ScalarField> = (0..n).map(|_| E::ScalarField::rand(&mut rng)).collect();
    let shorts: Vec<E::ScalarField> = (0..n).map(|_| random_short(&mut rng, 80)).collect();
    let s128: Vec<E::ScalarField> = (0..n).map(|_| random_short(&mut rng, 128)).collect();
    rec.bench(c, "MSM1024_G1", Some(curve), || {
        msm::<E::G1>(&bases, &fulls).unwrap()
    });
    rec.bench(c, "MSM1024_G1_80", Some(curve), || {
        msm_short::<E::G1>(&bases, &shorts, 80).unwrap()
    });
    rec.bench(c, "MSM1024_G1_128", Some(curve), || {
        msm_short::<E::G1>(&bases, &s128, 128).unwrap()
    });
}

/// Paillier unit operations (curve-independent): threshold-Paillier encryption with the
/// 13-bit-window table for H (upstream's `Enc_pp`), modular exponentiations mod the 4099-bit N²
/// and the 2050-bit N with the exponent lengths the protocol uses, and CRT decryption under a per-mixer
/// key. Test keys from the checked-in primes: their secrecy is irrelevant to timing.
fn bench_paillier(c: &mut Criterion, rec: &Recorder) {
    let mut rng = ChaCha20Rng::from_seed([9; 32]);
    let mut th = ThresholdKey::fixed_test_key(&mut rng, 4).pk;
    th.build_table(13);
    let msg = random_bits(&mut rng, 250);
    let rs: Vec<Integer> = (0..8).map(|_| th.random_r(&mut rng)).collect();
    let mut r = cycle(&rs);
    rec.bench(c, "Enc_pp", None, || th.encrypt_with(&msg, r()));
    let base = th.encrypt_with(&msg, &rs[0]);
    let cts: Vec<Integer> = rs.iter().map(|r| th.encrypt_with(&msg, r)).collect();
    for bits in [4099u32, 2170, 180, 128, 80] {
        let pairs: Vec<(Integer, Integer)> = cts
            .iter()
            .map(|b| (b.clone(), random_bits(&mut rng, bits)))
            .collect();
        let mut p = cycle(&pairs);
        rec.bench(c, &format!("XN2({bits})"), None, || {
            let (b, e) = p();
            pow_mod(b, e, &th.n2).unwrap()
        });
    }
    for bits in [2170u32, 180, 128, 80] {
        let pairs: Vec<(Integer, Integer)> = cts
            .iter()
            .map(|b| (Integer::from(b % &th.n), random_bits(&mut rng, bits)))
            .collect();
        let mut p = cycle(&pairs);
        rec.bench(c, &format!("XN({bits})"), None, || {
            let (b, e) = p();
            pow_mod(b, e, &th.n).unwrap()
        });
    }
    // A multi-exponentiation as the batch verifiers run it: 4096 terms of 80-bit exponents
    // (the per-term cost falls slowly with the batch size; the lower bound takes a large batch).
    let terms = 4096;
    let mut bases = Vec::with_capacity(terms);
    let mut cur = base.clone();
    for _ in 0..terms {
        cur = Integer::from(&cur * &base) % &th.n2;
        bases.push(cur.clone());
    }
    let exps: Vec<Integer> = (0..terms).map(|_| random_bits(&mut rng, 80)).collect();
    rec.bench(c, "MXN2_4096x80", None, || {
        multi_pow_mod(&bases, &exps, &th.n2)
    });
    let mixer = PaillierKey::fixed_test_key(&mut rng, 0);
    let (ct, _) = mixer.pk.encrypt(&msg, &mut rng);
    rec.bench(c, "CRT_dec", None, || mixer.decrypt(&ct).unwrap());
    let e448 = mixer.pk.random_r(&mut rng);
    rec.bench(c, "XN2s(448)", None, || {
        pow_mod(&ct, &e448, &mixer.pk.n2).unwrap()
    });
}

fn write_calibration(rec: &Recorder, threads: usize) {
    let path = std::env::var("DBSM_CALIBRATION").unwrap_or_else(|_| {
        // Benches run with the package directory as cwd; the workspace target is one up.
        let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "../target".into());
        format!("{target}/calibration.json")
    });
    let m = machine_json();
    let rows: Vec<serde_json::Value> = rec
        .medians()
        .into_iter()
        .map(|(op, curve, ns, wall_ns)| {
            serde_json::json!({"op": op, "curve": curve, "ns": ns, "wall_ns": wall_ns,
                               "threads": threads, "machine": m})
        })
        .collect();
    let text = serde_json::to_string_pretty(&rows).expect("JSON of plain values");
    // Write then rename, so a reader never sees a half-written file.
    let tmp = format!("{path}.tmp");
    if let Some(dir) = std::path::Path::new(&path).parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).expect("create the calibration directory");
        }
    }
    std::fs::write(&tmp, text).expect("write the calibration file");
    std::fs::rename(&tmp, &path).expect("rename the calibration file");
    eprintln!("calibration: {} operations written to {path}", rows.len());
}

fn main() {
    let threads: usize = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    // The global pool, so that every parallel routine inside the library uses it.
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .expect("rayon pool");
    let rec = Recorder {
        samples: Mutex::new(BTreeMap::new()),
    };
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(700))
        .configure_from_args();
    bench_curve::<ark_bn254::Bn254>(&mut c, &rec, "bn254");
    bench_curve::<ark_bls12_381::Bls12_381>(&mut c, &rec, "bls12-381");
    bench_paillier(&mut c, &rec);
    c.final_summary();
    write_calibration(&rec, threads);
}
