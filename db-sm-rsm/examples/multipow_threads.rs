//! Two ways to run the multi-exponentiation mod N² (`bigint::multi_pow_mod`) on two threads,
//! measured in one process against one thread: the terms cut in two halves, one per thread, each
//! half its own bucket method; and the windows shared out among the threads (what the library
//! does), each as wall and CPU time, on the shape of a batch of Paillier
//! proofs of knowledge (1000 terms with 160-bit exponents, 1000 with 80-bit ones, 4096-bit
//! modulus).
//!
//!     cargo run --release -p db-sm-rsm --example multipow_threads

use std::time::Instant;

use db_sm_rsm::primitives::bigint::{mul_mod, multi_pow_mod, random_bits};
use measure::clock::process_cpu_seconds as cpu_seconds;
use rand::SeedableRng;
use rayon::{ThreadPool, ThreadPoolBuilder};
use rug::Integer;

fn pool(threads: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

fn main() {
    let mut rng = rand_chacha::ChaCha20Rng::from_seed([1; 32]);
    let modulus = random_bits(&mut rng, 4096) | Integer::from(1);
    let half = 1000;
    let bases: Vec<Integer> = (0..2 * half).map(|_| random_bits(&mut rng, 4090)).collect();
    let exps: Vec<Integer> = (0..2 * half)
        .map(|i| random_bits(&mut rng, if i < half { 160 } else { 80 }))
        .collect();
    let (one, two) = (pool(1), pool(2));
    let want = one.install(|| multi_pow_mod(&bases, &exps, &modulus));
    // The former split: each half on its own thread, computed with no further parallelism.
    let split = || {
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| {
                pool(1).install(|| multi_pow_mod(&bases[..half], &exps[..half], &modulus))
            });
            let b = s.spawn(|| {
                pool(1).install(|| multi_pow_mod(&bases[half..], &exps[half..], &modulus))
            });
            (a.join().expect("no panic"), b.join().expect("no panic"))
        });
        mul_mod(&a, &b, &modulus)
    };
    let windows = || two.install(|| multi_pow_mod(&bases, &exps, &modulus));
    let single = || one.install(|| multi_pow_mod(&bases, &exps, &modulus));
    let cases: [(&str, &dyn Fn() -> Integer); 3] = [
        ("1 thread", &single),
        ("2 threads, terms split", &split),
        ("2 threads, windows shared", &windows),
    ];
    for round in 1..=4 {
        let mut line = format!("round {round}:");
        for (name, f) in cases {
            let (c0, t0) = (cpu_seconds(), Instant::now());
            let got = f();
            let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
            assert_eq!(got, want, "{name}: a different product");
            line += &format!(
                " | {name}: wall {:.0} ms, CPU {:.0} ms",
                wall * 1e3,
                cpu * 1e3
            );
        }
        println!("{line}");
    }
}
