//! Random instances built natively, as the driver builds them in JS (independent uniform set
//! elements, each RSM element with its own randomness, a random proven index): for the tests
//! and for measuring the circuit without the driver.

use ark_bn254::Fr;
use ark_ff::UniformRand;
use rand::Rng;

use crate::gadgets::scalar::SCALAR_BITS;
use crate::primitives::babyjubjub::{bits_le, pedersen_h, Point};
use crate::primitives::merkle::{rsm_leaf, sm_leaf, Tree};
use crate::statement::{Assignment, Public, Statement, Witness};

pub struct Sample {
    pub statement: Statement,
    pub depth: usize,
    pub assignment: Assignment,
    /// The proven element's value and randomness (the witness holds their bits).
    pub v: Fr,
    pub r: Fr,
}

pub fn commit(v: &Fr, r: &Fr) -> Point {
    Point::generator().mul(v).add(&pedersen_h().mul(r))
}

/// An instance over a set of `n >= 2` elements.
pub fn sample<R: Rng>(statement: Statement, n: usize, rng: &mut R) -> Sample {
    let values: Vec<Fr> = (0..n).map(|_| Fr::rand(rng)).collect();
    let index = rng.gen_range(0..n);
    let (leaves, pad, r) = match statement {
        Statement::Sm => (
            values.iter().map(sm_leaf).collect::<Vec<_>>(),
            sm_leaf(&Fr::from(0u8)),
            Fr::rand(rng),
        ),
        Statement::Rsm => {
            let rands: Vec<Fr> = (0..n).map(|_| Fr::rand(rng)).collect();
            let leaves = values
                .iter()
                .zip(&rands)
                .map(|(v, r)| rsm_leaf(&commit(v, r)))
                .collect();
            (leaves, rsm_leaf(&Point::identity()), rands[index])
        }
    };
    let tree = Tree::new(&leaves, pad);
    let v = values[index];
    let public = match statement {
        Statement::Sm => Public::Sm {
            c: commit(&v, &r),
            root: tree.root(),
        },
        Statement::Rsm => Public::Rsm {
            v,
            root: tree.root(),
        },
    };
    Sample {
        statement,
        depth: tree.depth(),
        assignment: Assignment {
            public,
            witness: Witness {
                v_bits: bits_le(&v, SCALAR_BITS),
                r_bits: bits_le(&r, SCALAR_BITS),
                path: tree.path(index),
            },
        },
        v,
        r,
    }
}
