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
    fn check_shape(&self) -> Result<usize> {
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
    fn transcript(&self, n: usize) -> (Transcript, Vec<Integer>, Vec<E::ScalarField>) {
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

/// What both sub-proofs share: the statement's e⃗ (as integers and scalars) with its transcript,
/// the prover's values t0, t1, t2, e0, e′⃗, r, and b1, b2 and `c = ∏ c_i^{e_i}`.
pub(crate) struct Common<E: Pairing> {
    pub transcript: Transcript,
    pub e_p: Vec<Integer>,
    pub e0: E::ScalarField,
    pub r: Integer,
    pub t0: E::ScalarField,
    pub t1: Integer,
    pub t2: Integer,
    pub b1: E::G1Affine,
    pub b2: Integer,
    pub c_e: Integer,
    /// `FO((t1, t2); y_t)`: the one commitment to the integers t1, t2 that both sub-proofs
    /// open, so that both speak of the same t1, t2 and not merely of the same values mod q.
    pub z_t: Integer,
    pub y_t: Integer,
}

impl<E: Pairing> Common<E> {
    /// The prover's first step: e⃗ from the statement, then fresh t0, t1, t2 and b1, b2.
    pub(crate) fn new(
        st: &ShuffleStatement<'_, E>,
        w: &ShuffleWitness<'_, E>,
        rng: &mut (impl RngCore + CryptoRng),
    ) -> Result<Self> {
        let n = st.check_shape()?;
        if w.perm.len() != n || w.s.len() != n || w.rho.len() != n {
            return Err(Error::Input(
                "Paillier shuffle: witness lengths differ".into(),
            ));
        }
        let pk = st.pk;
        let (transcript, e, e_f) = st.transcript(n);
        let (g0, g1) = (st.ck.gens[0], st.ck.gens[1]);
        let e_p: Vec<Integer> = w.perm.pi.iter().map(|&i| e[i].clone()).collect();
        let e0: E::ScalarField = w.s.iter().zip(&e_f).map(|(s, e)| *s * e).sum();
        let r: Integer = w
            .rho
            .iter()
            .zip(&e)
            .map(|(rho, e)| Integer::from(rho * e))
            .sum();
        let t0 = E::ScalarField::rand(rng);
        let t1 = scalar_to_integer(&E::ScalarField::rand(rng));
        let t2 = scalar_to_integer(&E::ScalarField::rand(rng));
        let n2 = &pk.n2;
        let b1 = (st.gens.h1.mul(&t0) + smul::<E>(&g0, &t1) + smul::<E>(&g1, &t2)).into_affine();
        let (cp_e, c_e) = rayon::join(
            || multi_pow_mod(st.output, &e_p, n2),
            || multi_pow_mod(st.input, &e, n2),
        );
        let b2 = mul_mod(
            &mul_mod(&pk.one_plus_n_pow(&t1), &pk.h_pow(&t2), n2),
            &cp_e,
            n2,
        );
        let y_t = st.fo.random_y(rng);
        let z_t = st.fo.commit(&[t1.clone(), t2.clone()], &y_t)?;
        Ok(Common {
            transcript,
            e_p,
            e0,
            r,
            t0,
            t1,
            t2,
            b1,
            b2,
            c_e,
            z_t,
            y_t,
        })
    }
}

/// Proves that `output` is a re-encryption and permutation of `input` under the committed π.
pub fn prove_shuffle<E: Pairing>(
    st: &ShuffleStatement<'_, E>,
    w: &ShuffleWitness<'_, E>,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<PaillierShuffleProof<E>> {
    let c = Common::new(st, w, rng)?;
    let eq = prove_equal_exponents(st, &c, rng)?;
    let renc = prove_reencryption(st, &c, rng)?;
    Ok(PaillierShuffleProof {
        b1: c.b1,
        b2: c.b2,
        z_t: c.z_t,
        eq,
        renc,
    })
}

/// The response `m + chal·x` to the mask m of the integer x.
fn respond(m: Integer, chal: &Integer, x: &Integer) -> Integer {
    m + Integer::from(chal * x)
}

/// The masks both sub-proofs draw, in this order, for t1 and t2 (b1's exponents, opened by z_t)
/// and for the FO randomness y1 (of the sub-proof's z1) and y_t (of z_t).
struct OpeningMasks {
    t1: Integer,
    t2: Integer,
    y1: Integer,
    y_t: Integer,
}

impl OpeningMasks {
    fn draw(len: &Lengths, rng: &mut (impl RngCore + CryptoRng)) -> Self {
        let t1 = random_bits(rng, len.t);
        let t2 = random_bits(rng, len.t);
        let y1 = random_bits(rng, len.y);
        let y_t = random_bits(rng, len.y);
        OpeningMasks { t1, t2, y1, y_t }
    }

    /// Cb1 = h1^{m_t0}·g0^{m_t1}·g1^{m_t2}, the first message of the b1 equation.
    fn cb1<E: Pairing>(&self, st: &ShuffleStatement<'_, E>, m_t0: &E::ScalarField) -> E::G1Affine {
        let (g0, g1) = (st.ck.gens[0], st.ck.gens[1]);
        (st.gens.h1.mul(m_t0) + smul::<E>(&g0, &self.t1) + smul::<E>(&g1, &self.t2)).into_affine()
    }

    /// Cz2 = FO((m_t1, m_t2); m_y_t), the first message of z_t's opening.
    fn cz2(&self, fo: &FoKey) -> Result<Integer> {
        fo.commit(&[self.t1.clone(), self.t2.clone()], &self.y_t)
    }

    /// The responses (d_t1, d_t2, d_y1, d_y2) for t1, t2, the sub-proof's y1 and y_t.
    fn respond<E: Pairing>(self, chal: &Integer, c: &Common<E>, y1: &Integer) -> [Integer; 4] {
        [
            respond(self.t1, chal, &c.t1),
            respond(self.t2, chal, &c.t2),
            respond(self.y1, chal, y1),
            respond(self.y_t, chal, &c.y_t),
        ]
    }
}

/// (a) The equal-exponent sub-proof.
pub(crate) fn prove_equal_exponents<E: Pairing>(
    st: &ShuffleStatement<'_, E>,
    c: &Common<E>,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<EqualExponentProof<E>> {
    let (pk, fo, n2) = (st.pk, st.fo, &st.pk.n2);
    let n = st.input.len();
    let len = Lengths::new::<E>(pk, fo);
    let y1 = fo.random_y(rng);
    let z1 = fo.commit(&c.e_p, &y1)?;
    let m_e0 = E::ScalarField::rand(rng);
    let m_t0 = E::ScalarField::rand(rng);
    let m_e: Vec<Integer> = (0..n).map(|_| random_bits(rng, len.e)).collect();
    let m = OpeningMasks::draw(&len, rng);
    let m_e_f: Vec<E::ScalarField> = to_scalars(&m_e);
    let ca = (st.gens.h1.mul(&m_e0)
        + msm_short::<E::G1>(&st.ck.gens[..n], &m_e_f, len.e as usize)?)
    .into_affine();
    let cb1 = m.cb1(st, &m_t0);
    let cb2 = mul_mod(
        &mul_mod(&pk.one_plus_n_pow(&m.t1), &pk.h_pow(&m.t2), n2),
        &multi_pow_mod(st.output, &m_e, n2),
        n2,
    );
    let cz1 = fo.commit(&m_e, &m.y1)?;
    let cz2 = m.cz2(fo)?;
    let sh = c.shared(pk.security.challenge_bits);
    let chal = equal_exponent_challenge(&sh, [&ca, &cb1], [&z1, &cb2, &cz1, &cz2]);
    let chal_f: E::ScalarField = integer_to_scalar(&chal);
    let [d_t1, d_t2, d_y1, d_y2] = m.respond(&chal, c, &y1);
    Ok(EqualExponentProof {
        d_e0: m_e0 + chal_f * c.e0,
        d_t0: m_t0 + chal_f * c.t0,
        d_e: m_e
            .into_iter()
            .zip(&c.e_p)
            .map(|(m, x)| respond(m, &chal, x))
            .collect(),
        d_t1,
        d_t2,
        d_y1,
        d_y2,
        z1,
        ca,
        cb1,
        cb2,
        cz1,
        cz2,
    })
}

/// (b) The re-encryption sub-proof.
pub(crate) fn prove_reencryption<E: Pairing>(
    st: &ShuffleStatement<'_, E>,
    c: &Common<E>,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<ReencryptionProof<E>> {
    let (pk, fo, n2) = (st.pk, st.fo, &st.pk.n2);
    let len = Lengths::new::<E>(pk, fo);
    let y1 = fo.random_y(rng);
    let z1 = fo.commit(std::slice::from_ref(&c.r), &y1)?;
    let m_t0 = E::ScalarField::rand(rng);
    let m_r = random_bits(rng, len.r);
    let m = OpeningMasks::draw(&len, rng);
    let cb1 = m.cb1(st, &m_t0);
    let cb2c = mul_mod(
        &pk.one_plus_n_pow(&m.t1),
        &pk.h_pow(&Integer::from(&m.t2 + &m_r)),
        n2,
    );
    let cz1 = fo.commit(std::slice::from_ref(&m_r), &m.y1)?;
    let cz2 = m.cz2(fo)?;
    let sh = c.shared(pk.security.challenge_bits);
    let chal = reencryption_challenge(&sh, &c.c_e, &cb1, [&z1, &cb2c, &cz1, &cz2]);
    let chal_f: E::ScalarField = integer_to_scalar(&chal);
    let [d_t1, d_t2, d_y1, d_y2] = m.respond(&chal, c, &y1);
    Ok(ReencryptionProof {
        d_t0: m_t0 + chal_f * c.t0,
        d_r: respond(m_r, &chal, &c.r),
        d_t1,
        d_t2,
        d_y1,
        d_y2,
        z1,
        cb1,
        cb2c,
        cz1,
        cz2,
    })
}

/// A labelled G1 element of a sub-proof's first message.
type Point<'a, E> = (&'static [u8], &'a <E as Pairing>::G1Affine);
/// A labelled integer of a sub-proof's first message.
type Int<'a> = (&'static [u8], &'a Integer);

/// The challenge of a sub-proof: the statement's transcript, then the sub-proof's name and its
/// first message (its G1 elements, then its integers), κ_c bits.
fn sub_challenge<E: Pairing>(
    statement: &Transcript,
    bits: u32,
    sub: &[u8],
    points: &[Point<'_, E>],
    ints: &[Int<'_>],
) -> Integer {
    let mut t = statement.clone();
    t.append_bytes(b"sub", sub);
    for (label, p) in points {
        t.append_ark(label, *p);
    }
    for (label, x) in ints {
        t.append_integer(label, x);
    }
    t.challenge_bits(b"chal", bits)
}

/// What both sub-proofs' challenges hash besides their own first message: the statement's
/// transcript, b1, b2 and z_t; `bits`, the challenge's length κ_c.
struct Shared<'a, E: Pairing> {
    transcript: &'a Transcript,
    bits: u32,
    b1: &'a E::G1Affine,
    b2: &'a Integer,
    z_t: &'a Integer,
}

impl<E: Pairing> Common<E> {
    /// What the prover's sub-proof challenges share.
    fn shared(&self, bits: u32) -> Shared<'_, E> {
        Shared {
            transcript: &self.transcript,
            bits,
            b1: &self.b1,
            b2: &self.b2,
            z_t: &self.z_t,
        }
    }
}

impl<E: Pairing> PaillierShuffleProof<E> {
    /// What the verifier's sub-proof challenges share, from the proof and the statement's
    /// transcript.
    fn shared<'a>(&'a self, transcript: &'a Transcript, bits: u32) -> Shared<'a, E> {
        Shared {
            transcript,
            bits,
            b1: &self.b1,
            b2: &self.b2,
            z_t: &self.z_t,
        }
    }
}

/// (a)'s challenge, for prover and verifier alike: the shared values, then its first message
/// (Ca, Cb1; z1, Cb2, Cz1, Cz2).
fn equal_exponent_challenge<E: Pairing>(
    sh: &Shared<'_, E>,
    [ca, cb1]: [&E::G1Affine; 2],
    [z1, cb2, cz1, cz2]: [&Integer; 4],
) -> Integer {
    sub_challenge::<E>(
        sh.transcript,
        sh.bits,
        b"equal-exponent",
        &[(b"b1", sh.b1), (b"Ca", ca), (b"Cb1", cb1)],
        &[
            (b"b2", sh.b2),
            (b"z_t", sh.z_t),
            (b"z1", z1),
            (b"Cb2", cb2),
            (b"Cz1", cz1),
            (b"Cz2", cz2),
        ],
    )
}

/// (b)'s challenge, for prover and verifier alike: the shared values, c = ∏ c_i^{e_i}, then its
/// first message (Cb1; z1, Cb2c, Cz1, Cz2).
fn reencryption_challenge<E: Pairing>(
    sh: &Shared<'_, E>,
    c_e: &Integer,
    cb1: &E::G1Affine,
    [z1, cb2c, cz1, cz2]: [&Integer; 4],
) -> Integer {
    sub_challenge::<E>(
        sh.transcript,
        sh.bits,
        b"re-encryption",
        &[(b"b1", sh.b1), (b"Cb1", cb1)],
        &[
            (b"b2", sh.b2),
            (b"z_t", sh.z_t),
            (b"c", c_e),
            (b"z1", z1),
            (b"Cb2c", cb2c),
            (b"Cz1", cz1),
            (b"Cz2", cz2),
        ],
    )
}

/// Verifies a [`PaillierShuffleProof`]: both subproofs' equations, response ranges, and that every
/// ciphertext and commitment is a unit in range.
pub fn verify_shuffle<E: Pairing>(
    st: &ShuffleStatement<'_, E>,
    proof: &PaillierShuffleProof<E>,
) -> Result<()> {
    let n = st.check_shape()?;
    check_shuffle_ranges(st, proof, n)?;
    let (t0_transcript, e, e_f) = st.transcript(n);
    verify_equal_exponent(st, proof, &t0_transcript, &e_f)?;
    verify_reencryption(st, proof, &t0_transcript, &e)
}

/// The checks before the equations: one response per entry, every ciphertext a unit mod N²,
/// every FO commitment a unit in range, every response within its mask's length.
fn check_shuffle_ranges<E: Pairing>(
    st: &ShuffleStatement<'_, E>,
    proof: &PaillierShuffleProof<E>,
    n: usize,
) -> Result<()> {
    let (pk, fo) = (st.pk, st.fo);
    let len = Lengths::new::<E>(pk, fo);
    let (eq, rp) = (&proof.eq, &proof.renc);
    ensure(
        eq.d_e.len() == n,
        "Paillier shuffle: wrong number of responses",
    )?;
    st.output
        .par_iter()
        .chain(st.input.par_iter())
        .try_for_each(|c| pk.check_ciphertext(c))?;
    for x in [&proof.b2, &eq.cb2, &rp.cb2c] {
        pk.check_ciphertext(x)?;
    }
    for x in [
        &proof.z_t, &eq.z1, &eq.cz1, &eq.cz2, &rp.z1, &rp.cz1, &rp.cz2,
    ] {
        ensure(
            *x > 0 && *x < fo.n && x.gcd_ref(&fo.n).complete() == 1,
            "Paillier shuffle: FO commitment out of range",
        )?;
    }
    let ranges_ok = eq.d_e.iter().all(|d| in_range(d, len.e))
        && [&eq.d_t1, &eq.d_t2, &rp.d_t1, &rp.d_t2]
            .iter()
            .all(|d| in_range(d, len.t))
        && [&eq.d_y1, &eq.d_y2, &rp.d_y1, &rp.d_y2]
            .iter()
            .all(|d| in_range(d, len.y))
        && in_range(&rp.d_r, len.r);
    ensure(ranges_ok, "Paillier shuffle: response out of range")
}

/// b1^chal · Cb1 = h1^{d_t0} · g0^{d_t1} · g1^{d_t2}: the equation both sub-proofs check of b1.
fn b1_holds<E: Pairing>(
    st: &ShuffleStatement<'_, E>,
    b1: &E::G1Affine,
    cb1: &E::G1Affine,
    chal_f: E::ScalarField,
    (d_t0, d_t1, d_t2): (&E::ScalarField, &Integer, &Integer),
) -> bool {
    let (g0, g1) = (st.ck.gens[0], st.ck.gens[1]);
    *b1 * chal_f + *cb1 == st.gens.h1.mul(d_t0) + smul::<E>(&g0, d_t1) + smul::<E>(&g1, d_t2)
}

/// z^chal · Cz = FO.commit(xs; y) mod the FO modulus: the equation of an FO commitment's
/// opening.
fn fo_holds(
    fo: &FoKey,
    z: &Integer,
    cz: &Integer,
    chal: &Integer,
    xs: &[Integer],
    y: &Integer,
) -> Result<bool> {
    let lhs = mul_mod(&pow_mod(z, chal, &fo.n)?, cz, &fo.n);
    Ok(lhs == fo.commit(xs, y)?)
}

/// z_t^chal · Cz2 = FO((d_t1, d_t2); d_y2): sub-proof `sub`'s opening of z_t, the commitment to
/// t1, t2 both sub-proofs open (its last equation).
fn z_t_opens<E: Pairing>(
    fo: &FoKey,
    proof: &PaillierShuffleProof<E>,
    chal: &Integer,
    (cz2, d_t1, d_t2, d_y2): (&Integer, &Integer, &Integer, &Integer),
    sub: &str,
) -> Result<()> {
    let d_t = [d_t1.clone(), d_t2.clone()];
    ensure(
        fo_holds(fo, &proof.z_t, cz2, chal, &d_t, d_y2)?,
        format!("Paillier shuffle ({sub}): z_t equation fails"),
    )
}

/// (a) The equal-exponent sub-proof: its challenge from the statement's transcript, then the
/// commitment, b1, b2, z1 and z_t equations.
fn verify_equal_exponent<E: Pairing>(
    st: &ShuffleStatement<'_, E>,
    proof: &PaillierShuffleProof<E>,
    t0_transcript: &Transcript,
    e_f: &[E::ScalarField],
) -> Result<()> {
    let (pk, fo, n2) = (st.pk, st.fo, &st.pk.n2);
    let len = Lengths::new::<E>(pk, fo);
    let n = e_f.len();
    let eq = &proof.eq;
    let sh = proof.shared(t0_transcript, pk.security.challenge_bits);
    let first = [&eq.z1, &eq.cb2, &eq.cz1, &eq.cz2];
    let chal = equal_exponent_challenge(&sh, [&eq.ca, &eq.cb1], first);
    let chal_f: E::ScalarField = integer_to_scalar(&chal);
    let d_e_f: Vec<E::ScalarField> = to_scalars(&eq.d_e);
    let (a, rhs_a) = rayon::join(
        || msm_short::<E::G1>(&st.perm_commitment.a, e_f, pk.security.batch_bits as usize),
        || msm_short::<E::G1>(&st.ck.gens[..n], &d_e_f, len.e as usize + 1),
    );
    let a = a?;
    let rhs_a = rhs_a? + st.gens.h1.mul(&eq.d_e0);
    ensure(
        a * chal_f + eq.ca == rhs_a,
        "Paillier shuffle (a): commitment equation fails",
    )?;
    ensure(
        b1_holds(
            st,
            &proof.b1,
            &eq.cb1,
            chal_f,
            (&eq.d_t0, &eq.d_t1, &eq.d_t2),
        ),
        "Paillier shuffle (a): b1 equation fails",
    )?;
    let (lhs_b2, rhs_b2) = rayon::join(
        || {
            mul_mod(
                &pow_mod(&proof.b2, &chal, n2).expect("chal >= 0"),
                &eq.cb2,
                n2,
            )
        },
        || {
            mul_mod(
                &mul_mod(&pk.one_plus_n_pow(&eq.d_t1), &pk.h_pow(&eq.d_t2), n2),
                &multi_pow_mod(st.output, &eq.d_e, n2),
                n2,
            )
        },
    );
    ensure(lhs_b2 == rhs_b2, "Paillier shuffle (a): b2 equation fails")?;
    ensure(
        fo_holds(fo, &eq.z1, &eq.cz1, &chal, &eq.d_e, &eq.d_y1)?,
        "Paillier shuffle (a): z1 equation fails",
    )?;
    z_t_opens(
        fo,
        proof,
        &chal,
        (&eq.cz2, &eq.d_t1, &eq.d_t2, &eq.d_y2),
        "a",
    )
}

/// (b) The re-encryption sub-proof: c = Π c_i^{e_i}, its challenge, then the b1, re-encryption,
/// z1 and z_t equations.
fn verify_reencryption<E: Pairing>(
    st: &ShuffleStatement<'_, E>,
    proof: &PaillierShuffleProof<E>,
    t0_transcript: &Transcript,
    e: &[Integer],
) -> Result<()> {
    let (pk, fo, n2) = (st.pk, st.fo, &st.pk.n2);
    let rp = &proof.renc;
    let c_e = multi_pow_mod(st.input, e, n2);
    let sh = proof.shared(t0_transcript, pk.security.challenge_bits);
    let first = [&rp.z1, &rp.cb2c, &rp.cz1, &rp.cz2];
    let chal = reencryption_challenge(&sh, &c_e, &rp.cb1, first);
    let chal_f: E::ScalarField = integer_to_scalar(&chal);
    ensure(
        b1_holds(
            st,
            &proof.b1,
            &rp.cb1,
            chal_f,
            (&rp.d_t0, &rp.d_t1, &rp.d_t2),
        ),
        "Paillier shuffle (b): b1 equation fails",
    )?;
    // (b2 / c)^chal · Cb2c = (1+N)^{d_t1} H^{d_t2 + d_r}, checked without the inverse.
    let lhs = mul_mod(&pow_mod(&proof.b2, &chal, n2)?, &rp.cb2c, n2);
    let rhs = mul_mod(
        &mul_mod(
            &pk.one_plus_n_pow(&rp.d_t1),
            &pk.h_pow(&Integer::from(&rp.d_t2 + &rp.d_r)),
            n2,
        ),
        &pow_mod(&c_e, &chal, n2)?,
        n2,
    );
    ensure(
        lhs == rhs,
        "Paillier shuffle (b): re-encryption equation fails",
    )?;
    ensure(
        fo_holds(
            fo,
            &rp.z1,
            &rp.cz1,
            &chal,
            std::slice::from_ref(&rp.d_r),
            &rp.d_y1,
        )?,
        "Paillier shuffle (b): z1 equation fails",
    )?;
    z_t_opens(
        fo,
        proof,
        &chal,
        (&rp.cz2, &rp.d_t1, &rp.d_t2, &rp.d_y2),
        "b",
    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::bigint::from_hex;
    use crate::primitives::security::{Security, SecurityLevel};
    use crate::primitives::thpaillier::ThresholdKey;
    use crate::proofs::perm::commit_perm_random;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    struct Setup<E: Pairing> {
        gens: Generators<E>,
        ck: CommitmentKey<E>,
        a: PermCommitment<E>,
        perm: Permutation,
        s: Vec<E::ScalarField>,
        pk: ThresholdPublicKey,
        fo: FoKey,
        input: Vec<Integer>,
        output: Vec<Integer>,
        rho: Vec<Integer>,
    }

    impl<E: Pairing> Setup<E> {
        fn new(n: usize, seed: u64) -> Self {
            Self::with_key(n, seed, false)
        }

        fn with_key(n: usize, seed: u64, paper_size: bool) -> Self {
            Self::with_security(n, seed, paper_size, Security::default())
        }

        fn with_security(n: usize, seed: u64, paper_size: bool, security: Security) -> Self {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let gens = Generators::<E>::with_security(&mut rng, security);
            let ck = CommitmentKey::new(&gens, n, &mut rng);
            let perm = Permutation::random(n, &mut rng);
            let (a, s) = commit_perm_random(&gens, &ck, &perm, &mut rng).unwrap();
            let mut key = if paper_size {
                ThresholdKey::fixed_test_key(&mut rng, 2)
            } else {
                ThresholdKey::fixed_small_test_key(&mut rng, 2)
            };
            key.pk.security = security;
            key.pk.build_table(6);
            let pk = key.pk;
            let fo = FoKey::new(&mut rng, &pk.n, n, pk.security.slack_bits);
            let input: Vec<Integer> = (0..n)
                .map(|i| pk.encrypt(&Integer::from(1000 + i), &mut rng).0)
                .collect();
            let rho: Vec<Integer> = (0..n).map(|_| pk.random_r(&mut rng)).collect();
            // out_j = Reenc(in_{π(j)}; ρ_{π(j)})
            let output = perm
                .pi
                .iter()
                .map(|&i| pk.reencrypt_with(&input[i], &rho[i]))
                .collect();
            Setup {
                gens,
                ck,
                a,
                perm,
                s,
                pk,
                fo,
                input,
                output,
                rho,
            }
        }

        fn statement(&self) -> ShuffleStatement<'_, E> {
            ShuffleStatement {
                gens: &self.gens,
                ck: &self.ck,
                perm_commitment: &self.a,
                pk: &self.pk,
                fo: &self.fo,
                input: &self.input,
                output: &self.output,
            }
        }

        fn prove(&self, seed: u64) -> Result<PaillierShuffleProof<E>> {
            let w = ShuffleWitness {
                perm: &self.perm,
                s: &self.s,
                rho: &self.rho,
            };
            prove_shuffle(&self.statement(), &w, &mut ChaCha20Rng::seed_from_u64(seed))
        }
    }

    fn completes<E: Pairing>() {
        for n in [1usize, 2, 7] {
            let su = Setup::<E>::new(n, 100 + n as u64);
            let proof = su.prove(1).unwrap();
            verify_shuffle(&su.statement(), &proof).unwrap();
            assert!(proof.size_bytes() > 0);
        }
    }

    fn rejects_tampering<E: Pairing>() {
        let su = Setup::<E>::new(6, 7);
        let proof = su.prove(2).unwrap();
        verify_shuffle(&su.statement(), &proof).unwrap();
        rejects_tampered_proofs(&su, &proof);
        rejects_values_out_of_range(&su, &proof);
        rejects_other_statements(&su, &proof);
    }

    /// One value of the proof changed: an equation fails.
    fn rejects_tampered_proofs<E: Pairing>(su: &Setup<E>, proof: &PaillierShuffleProof<E>) {
        let st = su.statement();
        // The proof with one value changed by `tamper`.
        let rejects = |tamper: &dyn Fn(&mut PaillierShuffleProof<E>)| {
            let mut p = proof.clone();
            tamper(&mut p);
            verify_shuffle(&st, &p).is_err()
        };

        assert!(rejects(&|p| p.eq.d_e[0] += 1), "d_e");
        assert!(
            rejects(&|p| p.eq.d_e0 += E::ScalarField::from(1u64)),
            "d_e0"
        );
        assert!(rejects(&|p| p.eq.d_t1 += 1), "eq d_t1");
        assert!(rejects(&|p| p.eq.d_y1 += 1), "eq d_y1");
        assert!(rejects(&|p| p.renc.d_r += 1), "d_r");
        assert!(rejects(&|p| p.renc.d_t2 += 1), "renc d_t2");
        assert!(rejects(&|p| p.renc.d_y2 += 1), "renc d_y2");
        assert!(
            rejects(&|p| p.eq.cb2 = mul_mod(&p.eq.cb2, &su.pk.hn, &su.pk.n2)),
            "Cb2"
        );
        assert!(
            rejects(&|p| p.renc.cz1 = mul_mod(&p.renc.cz1, &su.fo.g, &su.fo.n)),
            "Cz1"
        );
        assert!(
            rejects(&|p| p.b1 = (p.b1 + su.gens.h1.base()).into_affine()),
            "b1"
        );
        assert!(
            rejects(&|p| p.b2 = mul_mod(&p.b2, &su.pk.hn, &su.pk.n2)),
            "b2"
        );
        assert!(
            rejects(&|p| p.eq.ca = (p.eq.ca + su.gens.h1.base()).into_affine()),
            "Ca"
        );
        assert!(
            rejects(&|p| p.eq.d_e[2] += Integer::from(1) << 300),
            "oversized d_e"
        );
    }

    /// The guards before the equations: ciphertexts and the mod-N² commitments units in
    /// (0, N²), FO commitments units in (0, N), responses non-negative and within their mask's
    /// length. Each rejection names the guard.
    fn rejects_values_out_of_range<E: Pairing>(su: &Setup<E>, proof: &PaillierShuffleProof<E>) {
        let st = su.statement();
        let guard = |p: &PaillierShuffleProof<E>, st: &ShuffleStatement<'_, E>, what: &str| {
            let err = verify_shuffle(st, p).unwrap_err().to_string();
            assert!(err.contains("out of range"), "{what}: {err}");
        };
        let factor = from_hex(crate::primitives::thpaillier::fixed::P_1024);
        let n2 = &su.pk.n2;
        for (what, c) in [
            ("zero", Integer::new()),
            ("N²", n2.clone()),
            ("not a unit", factor.clone()),
        ] {
            let mut out = su.output.clone();
            out[1] = c.clone();
            let st_out = ShuffleStatement {
                output: &out,
                ..su.statement()
            };
            guard(proof, &st_out, &format!("output {what}"));
            let mut inp = su.input.clone();
            inp[4] = c.clone();
            let st_in = ShuffleStatement {
                input: &inp,
                ..su.statement()
            };
            guard(proof, &st_in, &format!("input {what}"));
            let mut p = proof.clone();
            p.b2 = c.clone();
            guard(&p, &st, &format!("b2 {what}"));
            let mut p = proof.clone();
            p.renc.cb2c = c;
            guard(&p, &st, &format!("Cb2c {what}"));
        }
        for (what, c) in [
            ("zero", Integer::new()),
            ("N", su.fo.n.clone()),
            ("not a unit", factor),
        ] {
            let mut p = proof.clone();
            p.z_t = c.clone();
            guard(&p, &st, &format!("z_t {what}"));
            let mut p = proof.clone();
            p.eq.cz1 = c.clone();
            guard(&p, &st, &format!("eq Cz1 {what}"));
            let mut p = proof.clone();
            p.renc.z1 = c;
            guard(&p, &st, &format!("renc z1 {what}"));
        }
        let len = Lengths::new::<E>(&su.pk, &su.fo);
        let long = |bits: u32| Integer::from(1) << (bits + 2);
        let mut p = proof.clone();
        p.eq.d_t1 = Integer::from(-1);
        guard(&p, &st, "negative eq d_t1");
        let mut p = proof.clone();
        p.renc.d_t2 = long(len.t);
        guard(&p, &st, "long renc d_t2");
        let mut p = proof.clone();
        p.eq.d_y1 = long(len.y);
        guard(&p, &st, "long eq d_y1");
        let mut p = proof.clone();
        p.renc.d_r = long(len.r);
        guard(&p, &st, "long d_r");
        let mut p = proof.clone();
        p.eq.d_e[5] = Integer::from(-2);
        guard(&p, &st, "negative d_e");
    }

    /// Statement elements: an output re-randomised, an input changed, another commitment.
    fn rejects_other_statements<E: Pairing>(su: &Setup<E>, proof: &PaillierShuffleProof<E>) {
        let mut out = su.output.clone();
        out[3] = su
            .pk
            .reencrypt(&out[3], &mut ChaCha20Rng::seed_from_u64(3))
            .0;
        let st2 = ShuffleStatement {
            output: &out,
            ..su.statement()
        };
        assert!(verify_shuffle(&st2, proof).is_err(), "changed output");
        let mut inp = su.input.clone();
        inp[0] = su
            .pk
            .reencrypt(&inp[0], &mut ChaCha20Rng::seed_from_u64(4))
            .0;
        let st3 = ShuffleStatement {
            input: &inp,
            ..su.statement()
        };
        assert!(verify_shuffle(&st3, proof).is_err(), "changed input");
        let other = Permutation::random(6, &mut ChaCha20Rng::seed_from_u64(5));
        let (a2, _) =
            commit_perm_random(&su.gens, &su.ck, &other, &mut ChaCha20Rng::seed_from_u64(6))
                .unwrap();
        let st4 = ShuffleStatement {
            perm_commitment: &a2,
            ..su.statement()
        };
        assert!(verify_shuffle(&st4, proof).is_err(), "other commitment");
    }

    /// An honest prover cannot make a proof for outputs that are not a shuffle of the inputs.
    fn rejects_false_statements<E: Pairing>() {
        let mut su = Setup::<E>::new(5, 9);
        // One output encrypts a different message.
        su.output[2] = su
            .pk
            .encrypt(&Integer::from(77), &mut ChaCha20Rng::seed_from_u64(1))
            .0;
        let proof = su.prove(3).unwrap();
        assert!(
            verify_shuffle(&su.statement(), &proof).is_err(),
            "wrong plaintext"
        );
        // Outputs permuted by a permutation other than the committed one.
        let mut su = Setup::<E>::new(5, 10);
        su.output.swap(0, 1);
        let proof = su.prove(4).unwrap();
        assert!(
            verify_shuffle(&su.statement(), &proof).is_err(),
            "wrong permutation"
        );
    }

    /// Lengths short enough for the attack below to pass the response ranges every time (8-bit
    /// challenges and e⃗, 20-bit slack); with 80-bit ones it passes with probability ~2^{−57}.
    const SHORT: Security = Security {
        level: SecurityLevel::Paper,
        challenge_bits: 8,
        batch_bits: 8,
        slack_bits: 20,
        pok_slack_bits: 40,
    };

    /// A mixer changes the plaintext of output j by q (the group order) and proves the shuffle
    /// anyway: the equal-exponent sub-proof honestly, with (t1, t2); the re-encryption sub-proof
    /// with t1* = t1 + q·e′_j, which absorbs the change (b2/c = (1+N)^{t1*}·H^{t2+r}) and agrees
    /// with b1 mod q. Only a commitment that binds t1 as an integer in both sub-proofs at once
    /// catches it.
    fn split_t1_cheat<E: Pairing>(seed: u64) -> Result<()> {
        let mut su = Setup::<E>::with_security(4, seed, false, SHORT);
        let j = 2;
        let q = scalar_to_integer(&-E::ScalarField::from(1u64)) + 1u32;
        su.output[j] = su.pk.add(&su.output[j], &su.pk.one_plus_n_pow(&q));
        let w = ShuffleWitness {
            perm: &su.perm,
            s: &su.s,
            rho: &su.rho,
        };
        let st = su.statement();
        let mut rng = ChaCha20Rng::seed_from_u64(seed + 1);
        let c = Common::new(&st, &w, &mut rng)?;
        let eq = prove_equal_exponents(&st, &c, &mut rng)?;
        let cheat = Common {
            transcript: c.transcript.clone(),
            e_p: c.e_p.clone(),
            r: c.r.clone(),
            t1: &c.t1 + Integer::from(&q * &c.e_p[j]),
            t2: c.t2.clone(),
            b2: c.b2.clone(),
            c_e: c.c_e.clone(),
            z_t: c.z_t.clone(),
            y_t: c.y_t.clone(),
            ..c
        };
        let renc = prove_reencryption(&st, &cheat, &mut rng)?;
        let proof = PaillierShuffleProof {
            b1: c.b1,
            b2: c.b2.clone(),
            z_t: c.z_t.clone(),
            eq,
            renc,
        };
        verify_shuffle(&st, &proof)
    }

    #[test]
    fn sub_proofs_bind_one_t1() {
        for seed in [21, 22, 23] {
            assert!(
                split_t1_cheat::<ark_bn254::Bn254>(seed).is_err(),
                "a shuffle with a changed plaintext was accepted (seed {seed})"
            );
        }
    }

    /// The 2050-bit fixed key, as in a real run: honest proof passes, a changed output fails.
    #[test]
    fn paper_size_key_bn254() {
        let su = Setup::<ark_bn254::Bn254>::with_key(3, 11, true);
        assert_eq!(su.pk.n.significant_bits(), 2050);
        let proof = su.prove(12).unwrap();
        verify_shuffle(&su.statement(), &proof).unwrap();
        let mut out = su.output.clone();
        out.swap(1, 2);
        let st = ShuffleStatement {
            output: &out,
            ..su.statement()
        };
        assert!(verify_shuffle(&st, &proof).is_err());
    }

    crate::curve_tests!(completes, rejects_tampering, rejects_false_statements);
}
