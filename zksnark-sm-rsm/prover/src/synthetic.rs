//! Random satisfiable constraint systems shaped like a ZoKrates export (short linear
//! combinations, one new private wire per constraint), for tests and for measuring the prover
//! when no real export is at hand.

use ark_ff::PrimeField;
use rand::Rng;

use crate::r1cs::{Constraint, LinComb, R1cs};

/// An R1CS with `m` constraints and `n_public` public inputs, and a satisfying assignment.
pub fn synthetic<F: PrimeField, R: Rng>(
    m: usize,
    n_public: usize,
    rng: &mut R,
) -> (R1cs<F>, Vec<F>) {
    let n_private_in = 2;
    let mut w = vec![F::one()];
    w.extend((0..n_public + n_private_in).map(|_| F::rand(rng)));
    let mut constraints = Vec::with_capacity(m);
    for _ in 0..m {
        let a = random_lc(rng, w.len());
        let b = random_lc(rng, w.len());
        let value = eval(&a, &w) * eval(&b, &w);
        let out = w.len() as u32;
        w.push(value);
        constraints.push(Constraint {
            a,
            b,
            c: vec![(out, F::one())],
        });
    }
    let n_wires = w.len();
    let r1cs = R1cs {
        n_wires,
        n_pub_out: 0,
        n_pub_in: n_public,
        n_prv_in: n_private_in,
        n_labels: n_wires as u64,
        constraints,
        wire_to_label: Some((0..n_wires as u64).collect()),
    };
    (r1cs, w)
}

fn random_lc<F: PrimeField, R: Rng>(rng: &mut R, n_wires: usize) -> LinComb<F> {
    let terms = rng.gen_range(1..=3);
    (0..terms)
        .map(|_| (rng.gen_range(0..n_wires) as u32, F::rand(rng)))
        .collect()
}

fn eval<F: PrimeField>(lc: &LinComb<F>, w: &[F]) -> F {
    lc.iter().map(|&(i, c)| w[i as usize] * c).sum()
}
