//! Wikström's commitment-consistent proof of shuffle for threshold-Paillier ciphertexts
//! (ACISP'09 Protocol 15 with App. D.2 / Protocol 23; upstream `shuffle_paillier_*`).
//!
//! Statement: the G1 commitment key `(h1; G_j)`, a mixer's permutation commitment
//! `a_i = h1^{s_i} · G_{π⁻¹(i)}`, the threshold key, an FO key mod N, inputs `c⃗` and outputs
//! `c⃗′` with `c′_j = c_{π(j)} · H^{ρ_{π(j)}}` (ρ indexed by input position, as in [`crate::proofs::perm`]).
//! The opening of the commitment itself is proved once, elsewhere (`perm::prove_perm`).
//!
//! With Fiat–Shamir exponents e⃗ (κ_e bits) and `e′_j = e_{π(j)}`:
//! `∏ a_i^{e_i} = h1^{e0} ∏ G_j^{e′_j}` and `∏ c′_j^{e′_j} = ∏ c_i^{e_i} · H^{r}`, r = Σ ρ_i e_i.
//! The proof publishes `b1 = h1^{t0} G_0^{t1} G_1^{t2}` and
//! `b2 = (1+N)^{t1} H^{t2} ∏ c′_j^{e′_j}` and shows
//! (a) the same e′ open `∏ a_i^{e_i}` in G1 and sit in the exponents of b2 (equal-exponent
//!     subproof, with FO commitments tying the integers together), and
//! (b) `b2 / ∏ c_i^{e_i} = (1+N)^{t1} H^{t2 + r}` for the (t1, t2) inside b1 (re-encryption
//!     subproof).
//!
//! Both sub-proofs open one published FO commitment `z_t = FO((t1, t2); y_t)`. With a commitment
//! each (upstream's layout), the two agreed on t1 only mod q, through b1: a mixer could shift
//! one output's plaintext by q·k, prove (a) with t1 and (b) with t1 + q·k·e′_j, and pass whenever
//! the larger response still fit its range (probability about 2^{−57} at upstream's lengths;
//! the test `sub_proofs_bind_one_t1` does it every time with 8-bit challenges).
//!
//! Differences from upstream (codes of docs/fixes.md): responses are integers (no reduction
//! mod 2^len, B9) and the verifier bounds them; e⃗ and both challenges come from Fiat–Shamir over
//! the whole statement (generators, keys, a⃗, c⃗, c⃗′: F1, S6); `e0` and `t0`, which only live in
//! G1, get uniform Zq masks and responses mod q. Products of many powers use multi-exponentiation
//! (G1: short-exponent Pippenger; mod N and N²: bucket multi-exponentiation).

use ark_ec::pairing::Pairing;
use ark_ec::CurveGroup;
use ark_ff::{PrimeField, UniformRand};
use ark_serialize::CanonicalSerialize;
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;
use rug::{Complete, Integer};

use crate::error::ensure;
use crate::primitives::bigint::{mul_mod, multi_pow_mod, pow_mod, random_bits};
use crate::primitives::fo::FoKey;
use crate::primitives::group::{
    challenge_short_vec, integer_to_scalar, msm_short, scalar_to_integer, Generators,
};
use crate::primitives::pedersen::CommitmentKey;
use crate::primitives::thpaillier::ThresholdPublicKey;
use crate::primitives::transcript::Transcript;
use crate::proofs::perm::{PermCommitment, Permutation};
use crate::{Error, Result};

mod challenge;
mod prove;
#[cfg(test)]
mod tests;
mod verify;

pub use prove::prove_shuffle;
pub use verify::verify_shuffle;

/// Re-encrypts every threshold-Paillier ciphertext with fresh randomness ρ and applies π:
/// `out_j = in_{π(j)} · H^{ρ_{π(j)}}`. Returns the outputs and ρ indexed by input position (the
/// witness).
pub fn shuffle(
    pk: &ThresholdPublicKey,
    perm: &Permutation,
    input: &[Integer],
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<(Vec<Integer>, Vec<Integer>)> {
    let rho: Vec<Integer> = (0..input.len()).map(|_| pk.random_r(rng)).collect();
    let re: Vec<Integer> = input
        .par_iter()
        .zip(&rho)
        .map(|(c, r)| {
            crate::primitives::counters::tick(1);
            pk.reencrypt_with(c, r)
        })
        .collect();
    Ok((perm.apply(&re)?, rho))
}

/// Upper bound on n: r = Σ ρ_i e_i must stay below its mask's slack (the r mask allows 20 bits for the sum of n terms).
pub const MAX_ENTRIES: usize = 1 << 20;

/// What the proof is about.
pub struct ShuffleStatement<'a, E: Pairing> {
    /// The global generators.
    pub gens: &'a Generators<E>,
    /// The Pedersen vector commitment key.
    pub ck: &'a CommitmentKey<E>,
    /// The mixer's permutation commitment.
    pub perm_commitment: &'a PermCommitment<E>,
    /// The threshold key.
    pub pk: &'a ThresholdPublicKey,
    /// The FO key mod the threshold N.
    pub fo: &'a FoKey,
    /// The ciphertexts c⃗.
    pub input: &'a [Integer],
    /// The ciphertexts c⃗′.
    pub output: &'a [Integer],
}

/// The prover's secrets: π, the commitment randomness s⃗ and the re-encryption randomness ρ⃗
/// (indexed by input position).
pub struct ShuffleWitness<'a, E: Pairing> {
    /// π.
    pub perm: &'a Permutation,
    /// The commitment's randomness s⃗.
    pub s: &'a [E::ScalarField],
    /// The re-encryption randomness, by input position.
    pub rho: &'a [Integer],
}

/// Equal-exponent subproof, (a) above.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EqualExponentProof<E: Pairing> {
    /// `FO(e′⃗; y1)`.
    pub z1: Integer,
    /// Commitment to the e′ masks in G1.
    pub ca: E::G1Affine,
    /// Commitment to the (t0, t1, t2) masks in G1.
    pub cb1: E::G1Affine,
    /// Commitment to the masks in the exponents of b2.
    pub cb2: Integer,
    /// FO commitment to the e′ masks.
    pub cz1: Integer,
    /// FO commitment to the (t1, t2) masks.
    pub cz2: Integer,
    /// Response for e0.
    pub d_e0: E::ScalarField,
    /// Response for t0.
    pub d_t0: E::ScalarField,
    /// Responses for e′⃗.
    pub d_e: Vec<Integer>,
    /// Response for t1.
    pub d_t1: Integer,
    /// Response for t2.
    pub d_t2: Integer,
    /// Response for z1's randomness.
    pub d_y1: Integer,
    /// Response for z_t's randomness.
    pub d_y2: Integer,
}

/// Re-encryption subproof, (b) above.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReencryptionProof<E: Pairing> {
    /// `FO((r); y1)`.
    pub z1: Integer,
    /// Commitment to the (t0, t1, t2) masks in G1.
    pub cb1: E::G1Affine,
    /// Commitment to the masks of b2/c.
    pub cb2c: Integer,
    /// FO commitment to the r mask.
    pub cz1: Integer,
    /// FO commitment to the (t1, t2) masks.
    pub cz2: Integer,
    /// Response for t0.
    pub d_t0: E::ScalarField,
    /// Response for r.
    pub d_r: Integer,
    /// Response for t1.
    pub d_t1: Integer,
    /// Response for t2.
    pub d_t2: Integer,
    /// Response for z1's randomness.
    pub d_y1: Integer,
    /// Response for z_t's randomness.
    pub d_y2: Integer,
}

/// `(b1, b2, z_t, π_eq, π_renc)`. Both sub-proofs open the one commitment `z_t = FO((t1, t2);
/// y_t)` (their `d_t1, d_t2, d_y2`), which binds them to the same integers t1, t2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaillierShuffleProof<E: Pairing> {
    /// h1^{t0}·G_0^{t1}·G_1^{t2}.
    pub b1: E::G1Affine,
    /// (1+N)^{t1}·H^{t2}·∏ c′_j^{e′_j}.
    pub b2: Integer,
    /// FO((t1, t2); y_t).
    pub z_t: Integer,
    /// The equal-exponent sub-proof.
    pub eq: EqualExponentProof<E>,
    /// The re-encryption sub-proof.
    pub renc: ReencryptionProof<E>,
}

fn ibytes(x: &Integer) -> usize {
    // sign byte + magnitude, as the transcript serialises it
    1 + x.significant_bits().div_ceil(8) as usize
}

impl<E: Pairing> PaillierShuffleProof<E> {
    /// Serialised size: compressed G1 points, field elements, and integers at their length.
    pub fn size_bytes(&self) -> usize {
        let g = self.b1.compressed_size();
        let f = E::ScalarField::default().compressed_size();
        let eq = &self.eq;
        let r = &self.renc;
        let ints_eq: usize = [
            &eq.z1, &eq.cb2, &eq.cz1, &eq.cz2, &eq.d_t1, &eq.d_t2, &eq.d_y1, &eq.d_y2,
        ]
        .iter()
        .map(|x| ibytes(x))
        .sum::<usize>()
            + eq.d_e.iter().map(ibytes).sum::<usize>();
        let ints_r: usize = [
            &r.z1, &r.cb2c, &r.cz1, &r.cz2, &r.d_r, &r.d_t1, &r.d_t2, &r.d_y1, &r.d_y2,
        ]
        .iter()
        .map(|x| ibytes(x))
        .sum();
        g * 4 + f * 3 + ibytes(&self.b2) + ibytes(&self.z_t) + ints_eq + ints_r
    }
}

/// Mask lengths, derived from the key, the curve and the security level rather than hard-coded
/// (B13). Each is the bit length of the largest value it masks (a response is mask + chal·x)
/// plus κ_r; at 128-bit security (κ_e = κ_c = 128, κ_r = 80) and the 2050-bit N:
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lengths {
    /// e′ masks: κ_e + κ_c + κ_r (336; upstream 180).
    pub e: u32,
    /// t1, t2 masks: bitlen(q) + κ_c + κ_r (462 on BN254; upstream 354).
    pub t: u32,
    /// FO randomness masks: bitlen(y) + κ_c + κ_r (2338; upstream 2170).
    pub y: u32,
    /// r masks: (r_bits + κ_e + 20) + κ_c + κ_r, r = Σ ρ_i·e_i for n ≤ 2^20 (1381; upstream 1225).
    pub r: u32,
}

impl Lengths {
    pub(crate) fn new<E: Pairing>(pk: &ThresholdPublicKey, fo: &FoKey) -> Self {
        let s = pk.security;
        let slack = s.slack_bits + s.challenge_bits;
        Lengths {
            e: s.batch_bits + slack,
            t: E::ScalarField::MODULUS_BIT_SIZE + slack,
            y: fo.randomness_bits() + slack,
            r: pk.r_bits() + s.batch_bits + 20 + slack,
        }
    }
}

impl<E: Pairing> ShuffleStatement<'_, E> {
    pub(super) fn check_shape(&self) -> Result<usize> {
        let n = self.input.len();
        if self.output.len() != n || self.perm_commitment.a.len() != n {
            return Err(Error::Input(format!(
                "Paillier shuffle: {} inputs, {} outputs, {} commitments",
                n,
                self.output.len(),
                self.perm_commitment.a.len()
            )));
        }
        if n == 0 || n > MAX_ENTRIES || self.ck.len() < n.max(2) || self.fo.gens.len() < n.max(2) {
            return Err(Error::Input(format!(
                "Paillier shuffle: n = {n} needs 1..=2^20 entries and keys of at least max(n, 2)"
            )));
        }
        if self.fo.n != self.pk.n {
            return Err(Error::Input("FO key is not over the threshold N".into()));
        }
        if self.gens.security != self.pk.security
            || self.fo.slack_bits != self.pk.security.slack_bits
        {
            return Err(Error::Input(
                "Paillier shuffle: generators, threshold key and FO key at different security \
                 levels"
                    .into(),
            ));
        }
        self.ck.check_h(self.gens)?;
        Ok(n)
    }

    /// Absorbs the whole statement and derives e⃗ (κ_e-bit integers).
    pub(super) fn transcript(&self, n: usize) -> (Transcript, Vec<Integer>, Vec<E::ScalarField>) {
        let mut t = Transcript::new(b"pshuffle/statement");
        self.gens.append_to(&mut t);
        self.ck.append_to(&mut t);
        t.append_ark_slice(b"a", &self.perm_commitment.a);
        t.append_integer(b"N", &self.pk.n);
        t.append_integer(b"H", &self.pk.hn);
        t.append_integer(b"fo.g", &self.fo.g);
        t.append_integers(b"fo.G", &self.fo.gens);
        t.append_integers(b"in", self.input);
        t.append_integers(b"out", self.output);
        let kappa_e = self.pk.security.batch_bits;
        let e_f: Vec<E::ScalarField> = challenge_short_vec(&mut t, b"e", n, kappa_e);
        let e: Vec<Integer> = e_f.iter().map(scalar_to_integer).collect();
        (t, e, e_f)
    }
}

fn to_scalars<F: PrimeField>(xs: &[Integer]) -> Vec<F> {
    xs.par_iter().map(integer_to_scalar).collect()
}

/// `g1^x` for an integer x (reduced mod q).
fn smul<E: Pairing>(p: &E::G1Affine, x: &Integer) -> E::G1 {
    *p * integer_to_scalar::<E::ScalarField>(x)
}

fn in_range(x: &Integer, bits: u32) -> bool {
    x.cmp0() != std::cmp::Ordering::Less && x.significant_bits() <= bits + 1
}

crate::wire_struct!(impl[E: Pairing] EqualExponentProof<E> {
    wire z1, ark ca, ark cb1, wire cb2, wire cz1, wire cz2, ark d_e0, ark d_t0, wire d_e,
    wire d_t1, wire d_t2, wire d_y1, wire d_y2
});
crate::wire_struct!(impl[E: Pairing] ReencryptionProof<E> {
    wire z1, ark cb1, wire cb2c, wire cz1, wire cz2, ark d_t0, wire d_r, wire d_t1, wire d_t2,
    wire d_y1, wire d_y2
});
crate::wire_struct!(impl[E: Pairing] PaillierShuffleProof<E> {
    ark b1, wire b2, wire z_t, wire eq, wire renc
});
