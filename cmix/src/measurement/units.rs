//! The CPU cost of each counted operation, measured alone on one thread: the unit prices of the
//! lower bound. A phase's lower bound is the sum over its counted operations of count times
//! unit cost; it leaves out everything the protocol does not prescribe (copying, permuting,
//! allocation, threads, the network), which is what the overhead above it measures.

use std::collections::BTreeMap;

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use sha2::{Digest, Sha256};

use crate::group::{Group, Op};

/// Seconds of CPU per operation, by op name.
pub type UnitCosts = BTreeMap<String, f64>;

/// CPU seconds per call of `f(i)`: five slices, each running `f` in doubling blocks until it
/// has spent at least `min_cpu / 5` seconds (the CPU clock is read between blocks only, as
/// reading it is a system call that would dwarf a curve addition); the cheapest slice counts,
/// as the cost "in isolation" that other tenants of a shared machine can only inflate.
fn per_call(min_cpu: f64, mut f: impl FnMut(usize)) -> f64 {
    let mut best = f64::INFINITY;
    let mut i = 0;
    for _ in 0..5 {
        let start = measure::clock::process_cpu_seconds();
        let (mut calls, mut block) = (0usize, 1usize);
        loop {
            for _ in 0..block {
                f(i);
                i += 1;
            }
            calls += block;
            let spent = measure::clock::process_cpu_seconds() - start;
            if calls >= 3 && spent >= min_cpu / 5.0 {
                best = best.min(spent / calls as f64);
                break;
            }
            block = (block * 2).min(1 << 16);
        }
    }
    best
}

/// Measures every [`Op`] of `g`, each for at least `min_cpu` seconds. Call it from a thread
/// with nothing else running in the process.
pub fn unit_costs<G: Group>(g: &G, min_cpu: f64) -> UnitCosts {
    let mut rng = ChaCha20Rng::from_entropy();
    let n = 64;
    let xs: Vec<G::Elem> = (0..n).map(|_| g.random_elem(&mut rng)).collect();
    let ys: Vec<G::Elem> = (0..n).map(|_| g.random_elem(&mut rng)).collect();
    let es: Vec<G::Scalar> = (0..n).map(|_| g.random_scalar(&mut rng)).collect();
    let table = g.table(&xs[0]);
    let wires: Vec<Vec<u8>> = xs
        .iter()
        .map(|x| {
            let mut w = vec![];
            g.write_wire(x, &mut w);
            w
        })
        .collect();
    let payloads: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let mut b = vec![0u8; g.payload_bytes()];
            rng.fill_bytes(&mut b);
            b
        })
        .collect();
    let encoded: Vec<G::Elem> = payloads
        .iter()
        .map(|p| g.encode_payload(p).expect("a payload encodes"))
        .collect();
    let uniform: Vec<[u8; 64]> = (0..n)
        .map(|_| {
            let mut b = [0u8; 64];
            rng.fill_bytes(&mut b);
            b
        })
        .collect();
    let mut sink = 0usize;
    let mut costs = UnitCosts::new();
    for op in Op::ALL {
        let c = match op {
            Op::Mul => per_call(min_cpu, |i| {
                let z = g.mul(&xs[i % n], &ys[i % n]);
                sink ^= (z == xs[0]) as usize;
            }),
            Op::Inv => per_call(min_cpu, |i| {
                let z = g.invert(&xs[i % n]);
                sink ^= (z == xs[0]) as usize;
            }),
            Op::Exp => per_call(min_cpu, |i| {
                let z = g.exp(&xs[i % n], &es[(i + 1) % n]);
                sink ^= (z == xs[0]) as usize;
            }),
            Op::ExpFixed => per_call(min_cpu, |i| {
                let z = g.exp_table(&table, &es[i % n]);
                sink ^= (z == xs[0]) as usize;
            }),
            Op::RandomElem => per_call(min_cpu, |_| {
                let z = g.random_elem(&mut rng);
                sink ^= (z == xs[0]) as usize;
            }),
            Op::HashToElem => per_call(min_cpu, |i| {
                let z = g.hash_to_elem(&uniform[i % n]);
                sink ^= (z == xs[0]) as usize;
            }),
            Op::WriteWire => per_call(min_cpu, |i| {
                let mut w = Vec::with_capacity(g.wire_bytes());
                g.write_wire(&xs[i % n], &mut w);
                sink ^= w[0] as usize;
            }),
            Op::ReadWire => per_call(min_cpu, |i| {
                let z = g.read_wire(&wires[i % n]).expect("valid");
                sink ^= (z == xs[0]) as usize;
            }),
            Op::EncodePayload => per_call(min_cpu, |i| {
                let z = g.encode_payload(&payloads[i % n]).expect("encodes");
                sink ^= (z == xs[0]) as usize;
            }),
            Op::DecodePayload => per_call(min_cpu, |i| {
                let z = g.decode_payload(&encoded[i % n]).expect("decodes");
                sink ^= z[0] as usize;
            }),
            Op::Kdf => per_call(min_cpu, |i| {
                let hk = hkdf::Hkdf::<Sha256>::from_prk(&uniform[i % n][..32]).expect("a PRK");
                let mut wide = [0u8; 64];
                hk.expand(&(i as u64).to_le_bytes(), &mut wide)
                    .expect("64 bytes");
                sink ^= wide[0] as usize;
            }),
            Op::HashBlock => {
                let block = vec![7u8; 64 * 1024];
                per_call(min_cpu, |i| {
                    let d = Sha256::digest(&block[..block.len() - (i % 2)]);
                    sink ^= d[0] as usize;
                }) / 1024.0
            }
        };
        costs.insert(op.name().to_string(), c);
    }
    std::hint::black_box(sink);
    costs
}

/// The lower bound of a step: its counted operations times their unit costs.
pub fn lower_bound(ops: &BTreeMap<String, f64>, costs: &UnitCosts) -> f64 {
    ops.iter()
        .map(|(op, k)| k * costs.get(op).copied().unwrap_or(0.0))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::ristretto::Ristretto;

    #[test]
    fn every_op_gets_a_positive_cost_and_bounds_add_up() {
        let g = Ristretto::new();
        let c = unit_costs(&g, 0.001);
        assert_eq!(c.len(), Op::ALL.len());
        assert!(c.values().all(|&v| v > 0.0 && v < 0.1), "{c:?}");
        // A variable-base exponentiation costs more than a fixed-base one, which costs more
        // than a multiplication.
        assert!(
            c["exp"] > c["exp_fixed"] && c["exp_fixed"] > c["mul"],
            "{c:?}"
        );
        let ops = BTreeMap::from([("mul".to_string(), 10.0), ("exp".to_string(), 2.0)]);
        let lb = lower_bound(&ops, &c);
        assert!((lb - (10.0 * c["mul"] + 2.0 * c["exp"])).abs() < 1e-12);
    }
}
