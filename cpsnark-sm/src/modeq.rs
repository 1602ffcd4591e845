//! CP_ModEq: the integer commitment c_e (in the RSA group) and the Pedersen commitment c_e_q (on
//! the curve) open to the same value mod q. One integer mask r_e serves both sides,
//! so the responses tie the two openings together.

use ark_ec::{pairing::Pairing, CurveGroup};
use ark_ff::UniformRand;
use rand::{CryptoRng, RngCore};
use rug::Integer;

use crate::{
    commitments::{int_to_field, IntegerCommitment, Pedersen},
    params::Parameters,
    random,
    rsa_group::GroupElem,
    transcript::ProofTranscript,
    Error,
};

/// CP_ModEq's proof: the two first messages and the responses on each side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModEqProof<E: Pairing> {
    /// The first message in the RSA group, G^r_e H^r_r.
    pub alpha1: GroupElem,
    /// The first message on the curve, g·r_e + h·r_r_q.
    pub alpha2: E::G1Affine,
    /// The response for the committed value, shared by both sides.
    pub s_e: Integer,
    /// The response for the integer commitment's randomness.
    pub s_r: Integer,
    /// The response for the Pedersen commitment's randomness.
    pub s_r_q: E::ScalarField,
}

fn absorb_first_messages<E: Pairing>(
    t: &mut ProofTranscript,
    alpha1: &GroupElem,
    alpha2: &E::G1Affine,
) {
    t.domain(b"modeq");
    t.append_elem(b"alpha1", alpha1);
    t.append_serializable(b"alpha2", alpha2);
}

/// Prove that c_e = G^e H^r and c_e_q = g·e + h·r_q hold the same e.
#[allow(clippy::too_many_arguments)]
pub fn prove<E: Pairing, R: RngCore + CryptoRng>(
    params: &Parameters,
    ic: &IntegerCommitment,
    ped: &Pedersen<E>,
    e: &Integer,
    r: &Integer,
    r_q: &E::ScalarField,
    transcript: &mut ProofTranscript,
    rng: &mut R,
) -> Result<ModEqProof<E>, Error> {
    let slack = params.security_zk + params.security_soundness;
    let b_r = Integer::from(ic.group.half_modulus() >> 1) << slack;
    let r_e = random::symmetric_bits(slack + params.hash_to_prime_bits, rng);
    let r_r = random::symmetric(&b_r, rng);
    let r_r_q = E::ScalarField::rand(rng);

    let alpha1 = ic.commit(&r_e, &r_r)?;
    let alpha2 = ped.commit_int(&r_e, &r_r_q).into_affine();
    absorb_first_messages::<E>(transcript, &alpha1, &alpha2);
    let c = transcript.challenge(b"c");

    let c_q: E::ScalarField = int_to_field(&c);
    Ok(ModEqProof {
        alpha1,
        alpha2,
        s_e: r_e - Integer::from(&c * e),
        s_r: r_r - Integer::from(&c * r),
        s_r_q: r_r_q - c_q * r_q,
    })
}

/// Checks `proof` for c_e and c_e_q against the transcript's challenge; an error names the
/// failed check.
pub fn verify<E: Pairing>(
    ic: &IntegerCommitment,
    ped: &Pedersen<E>,
    c_e: &GroupElem,
    c_e_q: &E::G1Affine,
    proof: &ModEqProof<E>,
    transcript: &mut ProofTranscript,
) -> Result<(), Error> {
    absorb_first_messages::<E>(transcript, &proof.alpha1, &proof.alpha2);
    let c = transcript.challenge(b"c");

    let grp = &ic.group;
    let lhs1 = grp.op(&ic.commit(&proof.s_e, &proof.s_r)?, &grp.exp(c_e, &c)?);
    if lhs1 != proof.alpha1 {
        return Err(Error::ModEqRejected("alpha1"));
    }
    let c_q: E::ScalarField = int_to_field(&c);
    let lhs2 = ped.commit_int(&proof.s_e, &proof.s_r_q) + *c_e_q * c_q;
    if lhs2.into_affine() != proof.alpha2 {
        return Err(Error::ModEqRejected("alpha2"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsa_group::RsaGroup;
    use ark_bls12_381::{Bls12_381, Fr};
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn honest_proof_verifies_and_tampering_is_rejected() {
        let mut rng = ChaCha20Rng::seed_from_u64(21);
        let params = Parameters::from_curve::<Fr>().unwrap();
        let ic = IntegerCommitment::setup(RsaGroup::rsa2048(), &mut rng);
        let ped = Pedersen::<Bls12_381>::setup(&mut rng);
        let e = random::bits(252, &mut rng);
        let r = random::below(ic.group.half_modulus(), &mut rng);
        let r_q = Fr::rand(&mut rng);
        let c_e = ic.commit(&e, &r).unwrap();
        let c_e_q = ped.commit_int(&e, &r_q).into_affine();

        let mut t = ProofTranscript::new(b"modeq-test", params.challenge_bits());
        let proof = prove(&params, &ic, &ped, &e, &r, &r_q, &mut t, &mut rng).unwrap();
        let check =
            |c_e: &GroupElem, c_e_q: &ark_bls12_381::G1Affine, p: &ModEqProof<Bls12_381>| {
                let mut t = ProofTranscript::new(b"modeq-test", params.challenge_bits());
                verify(&ic, &ped, c_e, c_e_q, p, &mut t)
            };
        assert!(check(&c_e, &c_e_q, &proof).is_ok());

        // Tampered responses.
        let mut p = proof.clone();
        p.s_r_q += Fr::from(1u64);
        assert_eq!(check(&c_e, &c_e_q, &p), Err(Error::ModEqRejected("alpha2")));
        let mut p = proof.clone();
        p.s_e += 1;
        assert!(check(&c_e, &c_e_q, &p).is_err());
        // Tampered commitment (first message).
        let mut p = proof.clone();
        p.alpha2 = (p.alpha2 + ped.g).into_affine();
        assert!(check(&c_e, &c_e_q, &p).is_err());
        // Tampered statement: c_e_q commits to e + 1.
        let other = ped
            .commit_int(&Integer::from(&e + 1u32), &r_q)
            .into_affine();
        assert!(check(&c_e, &other, &proof).is_err());
        let other_c_e = ic.commit(&Integer::from(&e + 1u32), &r).unwrap();
        assert!(check(&other_c_e, &c_e_q, &proof).is_err());

        // A prover whose two commitments disagree cannot make an accepting proof.
        let mut t = ProofTranscript::new(b"modeq-test", params.challenge_bits());
        let bad = prove(&params, &ic, &ped, &e, &r, &r_q, &mut t, &mut rng).unwrap();
        assert!(check(&c_e, &other, &bad).is_err());
    }
}
