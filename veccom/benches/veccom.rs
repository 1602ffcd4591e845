//! Criterion benchmarks of both schemes: every operation, its counted-operation lower bound
//! (the same closures veccom-bench times), and the ablation's methods.
//!
//! Lengths and threads come from the environment (the defaults are the full sweep, which takes
//! long; sizes, peak memory and ratios are in veccom-bench's report):
//!
//! ```text
//! VECCOM_BENCH_N=100,1000,2^10..2^16     pairing scheme
//! VECCOM_BENCH_MERKLE_N=100,1000,2^10..2^20
//! VECCOM_BENCH_ABLATION_N=100,1000
//! VECCOM_BENCH_THREADS=1                 size of rayon's global pool (ablation included)
//! cargo bench -p veccom --bench veccom -- 'pairing-bls12-381/n=1000'
//! ```

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use measure::cli::parse_counts;
use veccom::measurement::ablation::AblationData;
use veccom::measurement::workload::{Measured, MerkleFixture, PairingFixture};
use veccom::merkle::{Blake3Hasher, Sha256Hasher};

fn lengths(var: &str, default: &str) -> Vec<usize> {
    let s = std::env::var(var).unwrap_or_else(|_| default.to_string());
    parse_counts(&s, var).unwrap_or_else(|e| panic!("{e}"))
}

/// Sizes rayon's global pool once (criterion's state cannot move into another pool).
fn threads() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let t = std::env::var("VECCOM_BENCH_THREADS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1);
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .expect("the global rayon pool is sized once");
    });
}

fn bench_measured(c: &mut Criterion, group: &str, measured: Vec<Measured>) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for mut m in measured {
        assert!(m.verified, "{group} {}: check failed", m.operation);
        g.bench_function(m.operation, |b| b.iter(|| (m.run)()));
        if let Some((what, mut bound)) = m.bound.take() {
            eprintln!("{group} {} lower bound: {what}", m.operation);
            g.bench_function(format!("{}-lower-bound", m.operation), |b| {
                b.iter(&mut bound)
            });
        }
    }
    g.finish();
}

fn pairing(c: &mut Criterion) {
    threads();
    for n in lengths("VECCOM_BENCH_N", "100,1000,2^10..2^16") {
        let fx = PairingFixture::new(n, 32, 16, &mut measure::seed::stream("veccom/bench", None));
        bench_measured(
            c,
            &format!("pairing-bls12-381/n={n}"),
            fx.operations(&|_| true),
        );
    }
}

fn merkle(c: &mut Criterion) {
    threads();
    for n in lengths("VECCOM_BENCH_MERKLE_N", "100,1000,2^10..2^20") {
        let sha = MerkleFixture::<Sha256Hasher>::new(
            n,
            32,
            &mut measure::seed::stream("veccom/bench", None),
        );
        bench_measured(
            c,
            &format!("merkle-sha256/n={n}"),
            sha.operations(&|_| true),
        );
        let b3 = MerkleFixture::<Blake3Hasher>::new(
            n,
            32,
            &mut measure::seed::stream("veccom/bench", None),
        );
        bench_measured(c, &format!("merkle-blake3/n={n}"), b3.operations(&|_| true));
    }
}

/// The ablation's methods (on the pool of VECCOM_BENCH_THREADS, one thread by default).
fn ablation(c: &mut Criterion) {
    threads();
    for n in lengths("VECCOM_BENCH_ABLATION_N", "100,1000") {
        let data = AblationData::new(n, 32, &mut measure::seed::stream("veccom/bench", None));
        for grp in data.groups() {
            let name = format!("ablation/{}/{}/n={n}", grp.scheme, grp.operation);
            let mut g = c.benchmark_group(name);
            g.sample_size(10).measurement_time(Duration::from_secs(2));
            for mut v in grp.variants {
                assert_ne!(v.agrees, Some(false), "{} disagrees", v.name);
                g.bench_function(v.name, |b| b.iter(|| (v.run)()));
            }
            g.finish();
        }
    }
}

criterion_group!(benches, pairing, merkle, ablation);
criterion_main!(benches);
