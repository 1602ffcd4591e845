//! The prover: e⃗ from the statement, the values both sub-proofs share ([`Common`]), then the
//! equal-exponent sub-proof (a) and the re-encryption sub-proof (b), each opening z_t.

use super::challenge::{equal_exponent_challenge, reencryption_challenge, Shared};
use super::*;

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
    /// What the prover's sub-proof challenges share.
    pub(super) fn shared(&self, bits: u32) -> Shared<'_, E> {
        Shared::new(&self.transcript, bits, &self.b1, &self.b2, &self.z_t)
    }

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
