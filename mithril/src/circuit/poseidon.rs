//! Poseidon over BN254's scalar field, outside the circuit.
//!
//! The circuit hashes with `halo2-base`'s sponge (width 3, rate 2, x^5 S-box, 8 full and 57
//! partial rounds, round constants and MDS matrix from the reference Grain generator). The
//! prover needs the same values outside the circuit (the weights, to compute the claimed
//! aggregate; the key commitment, which the verifier computes from the registered keys), so this
//! module evaluates the same hash with the plain permutation of the Poseidon paper: every round
//! adds its constants, applies the S-box (to the whole state in a full round, to the first word
//! in a partial one) and multiplies by the MDS matrix. `halo2-base` evaluates the equivalent
//! "optimised" form (constants moved through the linear layers, sparse matrices in the partial
//! rounds); the tests check that both give the same digests.
//!
//! Sponge: the state starts as (2^64, 0, 0), the capacity word carrying the domain tag of
//! variable-length hashing. Inputs are absorbed two at a time into words 1 and 2, each chunk
//! followed by a permutation; a chunk shorter than the rate is padded with a single 1 and zeros,
//! and an input whose length is a multiple of the rate gets one more permutation on a (1, 0)
//! padding chunk. The digest is word 1.

use std::sync::OnceLock;

use halo2_base::halo2_proofs::halo2curves::bn256::Fr;
use halo2_base::halo2_proofs::halo2curves::ff::{Field, PrimeField};
use poseidon_primitives::poseidon::primitives::Spec;

/// State width.
pub const T: usize = 3;
/// Words absorbed per permutation.
pub const RATE: usize = 2;
/// Full rounds (half before, half after the partial rounds).
pub const R_F: usize = 8;
/// Partial rounds.
pub const R_P: usize = 57;

/// The parameter set, for the Grain constant generator.
#[derive(Debug)]
struct Params;

impl Spec<Fr, T, RATE> for Params {
    fn full_rounds() -> usize {
        R_F
    }
    fn partial_rounds() -> usize {
        R_P
    }
    fn sbox(x: Fr) -> Fr {
        let x2 = x.square();
        x2.square() * x
    }
    fn secure_mds() -> usize {
        0
    }
}

struct Constants {
    rounds: Vec<[Fr; T]>,
    mds: [[Fr; T]; T],
}

fn constants() -> &'static Constants {
    static C: OnceLock<Constants> = OnceLock::new();
    C.get_or_init(|| {
        let (rounds, mds, _) = <Params as Spec<Fr, T, RATE>>::constants();
        Constants { rounds, mds }
    })
}

/// The Poseidon permutation.
pub fn permute(state: &mut [Fr; T]) {
    let c = constants();
    for (round, rc) in c.rounds.iter().enumerate() {
        for (s, k) in state.iter_mut().zip(rc) {
            *s += k;
        }
        let full = !(R_F / 2..R_F / 2 + R_P).contains(&round);
        if full {
            for s in state.iter_mut() {
                *s = Params::sbox(*s);
            }
        } else {
            state[0] = Params::sbox(state[0]);
        }
        let mut next = [Fr::ZERO; T];
        for (row, out) in c.mds.iter().zip(next.iter_mut()) {
            for (m, s) in row.iter().zip(state.iter()) {
                *out += *m * s;
            }
        }
        *state = next;
    }
}

/// The digest of a fixed-length input.
pub fn hash(inputs: &[Fr]) -> Fr {
    let mut state = [Fr::from_u128(1u128 << 64), Fr::ZERO, Fr::ZERO];
    let mut absorb = |chunk: &[Fr]| {
        for (s, x) in state[1..].iter_mut().zip(chunk) {
            *s += x;
        }
        if chunk.len() < RATE {
            state[1 + chunk.len()] += Fr::ONE;
        }
        permute(&mut state);
    };
    for chunk in inputs.chunks(RATE) {
        absorb(chunk);
    }
    if inputs.len().is_multiple_of(RATE) {
        absorb(&[]);
    }
    state[1]
}
