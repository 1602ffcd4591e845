//! The verifier: the response ranges and units, then each sub-proof's equations under its
//! recomputed challenge.

use super::challenge::{equal_exponent_challenge, reencryption_challenge};
use super::*;

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
