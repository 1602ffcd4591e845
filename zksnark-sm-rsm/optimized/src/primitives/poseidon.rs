//! Poseidon over the BN254 scalar field with x^5 S-boxes, as circomlib (and the ZoKrates stdlib)
//! instantiate it: width t = inputs + 1, state `[0, inputs...]`, 8 full rounds around
//! `PARTIAL_ROUNDS[t]` partial rounds, output the first state element.
//!
//! The round constants and the MDS matrix are not tables copied from anywhere: they are generated
//! here, as the Poseidon paper (Grassi et al., USENIX Security 2021, appendix F) specifies, by a
//! Grain LFSR in self-shrinking mode seeded with the instance's parameters. The known-answer
//! tests (circomlib's published vectors) show that the generated parameters are the ones the
//! rest of the suite (circomlibjs, ZoKrates) uses.

use ark_bn254::Fr;
use ark_ff::{BigInteger, Field, PrimeField, Zero};

/// Full rounds (half before, half after the partial rounds).
pub const FULL_ROUNDS: usize = 8;

/// Partial rounds of the widths this crate uses (circomlib's choice for 128-bit security).
pub fn partial_rounds(t: usize) -> usize {
    match t {
        2 => 56,
        3 => 57,
        _ => panic!("Poseidon width {t} is not instantiated here (only t = 2, 3)"),
    }
}

/// Round constants (`(full + partial) * t`, round-major) and the t x t MDS matrix of one width.
#[derive(Clone, Debug)]
pub struct Params {
    /// The state's width: one capacity element and `t - 1` inputs.
    pub t: usize,
    /// Rounds with one S-box (on the first element); the full rounds, [`FULL_ROUNDS`], have `t`.
    pub partial_rounds: usize,
    /// `t` constants per round, added before the S-boxes.
    pub round_constants: Vec<Fr>,
    /// The MDS matrix, by rows: the linear layer after the S-boxes.
    pub mds: Vec<Vec<Fr>>,
}

/// The Grain LFSR of the Poseidon paper: an 80-bit state, feedback taps 62, 51, 38, 23, 13, 0,
/// the first 160 outputs thrown away, and self-shrinking (a pair (a, b) yields b iff a = 1).
struct Grain {
    state: [bool; 80],
}

impl Grain {
    fn new(field_bits: usize, t: usize, full: usize, partial: usize) -> Self {
        let mut bits = Vec::with_capacity(80);
        let mut push = |value: usize, width: usize| {
            for i in (0..width).rev() {
                bits.push((value >> i) & 1 == 1);
            }
        };
        push(1, 2); // a prime field
        push(0, 4); // the S-box x^alpha
        push(field_bits, 12);
        push(t, 12);
        push(full, 10);
        push(partial, 10);
        push((1 << 30) - 1, 30);
        let mut g = Grain {
            state: bits.try_into().expect("80 initial bits"),
        };
        for _ in 0..160 {
            g.clock();
        }
        g
    }

    fn clock(&mut self) -> bool {
        let s = &self.state;
        let new = s[62] ^ s[51] ^ s[38] ^ s[23] ^ s[13] ^ s[0];
        self.state.copy_within(1.., 0);
        self.state[79] = new;
        new
    }

    fn bit(&mut self) -> bool {
        loop {
            let keep = self.clock();
            let b = self.clock();
            if keep {
                return b;
            }
        }
    }

    /// `n` output bits read most significant first, as an integer.
    fn integer(&mut self, n: usize) -> <Fr as PrimeField>::BigInt {
        let bits: Vec<bool> = (0..n).map(|_| self.bit()).collect();
        <Fr as PrimeField>::BigInt::from_bits_be(&bits)
    }

    /// A uniform field element: n-bit integers at or above the modulus are rejected.
    fn field_element(&mut self) -> Fr {
        loop {
            if let Some(x) = Fr::from_bigint(self.integer(Fr::MODULUS_BIT_SIZE as usize)) {
                return x;
            }
        }
    }

    /// An n-bit integer reduced modulo p (the paper's MDS sampling does not reject).
    fn reduced(&mut self) -> Fr {
        Fr::from_le_bytes_mod_order(&self.integer(Fr::MODULUS_BIT_SIZE as usize).to_bytes_le())
    }
}

impl Params {
    /// Generates the parameters of width `t`: round constants first, then a Cauchy MDS matrix
    /// `M[i][j] = 1 / (x_i + y_j)` from 2t further outputs.
    pub fn generate(t: usize) -> Self {
        let partial = partial_rounds(t);
        let mut grain = Grain::new(Fr::MODULUS_BIT_SIZE as usize, t, FULL_ROUNDS, partial);
        let round_constants = (0..(FULL_ROUNDS + partial) * t)
            .map(|_| grain.field_element())
            .collect();
        let mds = loop {
            let xy: Vec<Fr> = (0..2 * t).map(|_| grain.reduced()).collect();
            let distinct = (0..xy.len()).all(|i| (0..i).all(|j| xy[i] != xy[j]));
            let (x, y) = xy.split_at(t);
            let invertible = x.iter().all(|xi| y.iter().all(|yj| !(*xi + yj).is_zero()));
            if distinct && invertible {
                break x
                    .iter()
                    .map(|xi| y.iter().map(|yj| (*xi + yj).inverse().unwrap()).collect())
                    .collect();
            }
        };
        Params {
            t,
            partial_rounds: partial,
            round_constants,
            mds,
        }
    }

    /// Rounds in all, full and partial.
    pub fn rounds(&self) -> usize {
        FULL_ROUNDS + self.partial_rounds
    }

    /// Whether round `r` applies the S-box to every element (full) or to the first (partial).
    pub fn is_full_round(&self, r: usize) -> bool {
        r < FULL_ROUNDS / 2 || r >= FULL_ROUNDS / 2 + self.partial_rounds
    }

    /// The permutation's output element 0 on `[0, inputs...]`.
    pub fn hash(&self, inputs: &[Fr]) -> Fr {
        assert_eq!(inputs.len() + 1, self.t, "width t takes t - 1 inputs");
        let mut state: Vec<Fr> = std::iter::once(Fr::from(0u8))
            .chain(inputs.iter().copied())
            .collect();
        for r in 0..self.rounds() {
            for (s, c) in state.iter_mut().zip(&self.round_constants[r * self.t..]) {
                *s += c;
            }
            let sboxed = if self.is_full_round(r) { self.t } else { 1 };
            for s in &mut state[..sboxed] {
                *s = s.pow([5u64]);
            }
            state = self
                .mds
                .iter()
                .map(|row| row.iter().zip(&state).map(|(m, s)| *m * s).sum())
                .collect();
        }
        state[0]
    }
}

/// The two-input Poseidon of the Merkle tree (width 3), parameters generated once.
pub fn pair_params() -> &'static Params {
    static P: std::sync::OnceLock<Params> = std::sync::OnceLock::new();
    P.get_or_init(|| Params::generate(3))
}

/// Poseidon(a, b), circomlib's `Poseidon(2)`.
pub fn hash2(a: Fr, b: Fr) -> Fr {
    pair_params().hash(&[a, b])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::fr;

    // circomlib's published known answers (circomlibjs test/poseidon.js).
    #[test]
    fn known_answers() {
        assert_eq!(
            hash2(fr("1"), fr("2")),
            fr("7853200120776062878684798364095072458815029376092732009249414926327459813530")
        );
        assert_eq!(
            hash2(fr("0"), fr("0")),
            fr("14744269619966411208579211824598458697587494354926760081771325075741142829156")
        );
        assert_eq!(
            Params::generate(2).hash(&[fr("1")]),
            fr("18586133768512220936620570745912940619677854269274689475585506675881198879027")
        );
    }

    #[test]
    fn a_changed_input_changes_the_hash() {
        assert_ne!(hash2(fr("1"), fr("2")), hash2(fr("2"), fr("1")));
        assert_ne!(hash2(fr("1"), fr("2")), hash2(fr("1"), fr("3")));
    }
}
