//! CP_Root: knowledge of an e-th root W of the accumulator A, with e hidden in an integer
//! commitment c_e = G^e H^r. Together with the range check on s_e this shows that
//! the committed value is a (bounded) exponent under which A has a known root, i.e. that it is
//! accumulated.

use rand::{CryptoRng, RngCore};
use rug::Integer;

use crate::{
    commitments::IntegerCommitment, params::Parameters, random, rsa_group::GroupElem,
    transcript::ProofTranscript, Error,
};

/// Public input: the commitment to e and the accumulator value.
#[derive(Clone, Copy, Debug)]
pub struct RootStatement<'a> {
    /// The integer commitment to the hidden exponent e.
    pub c_e: &'a GroupElem,
    /// The accumulator value A.
    pub acc: &'a GroupElem,
}

/// Secret input: e, the randomness of c_e, and W with W^e = A.
#[derive(Clone, Copy, Debug)]
pub struct RootWitness<'a> {
    /// The exponent (the prime).
    pub e: &'a Integer,
    /// The randomness of c_e.
    pub r: &'a Integer,
    /// The root W with W^e = A.
    pub w: &'a GroupElem,
}

/// The proof: the committed witness, the four Σ first messages and six integer responses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootProof {
    /// W hidden as W·H^r_2.
    pub c_w: GroupElem,
    /// The commitment to r_2 (with randomness r_3).
    pub c_r: GroupElem,
    /// The first message for c_e.
    pub alpha1: GroupElem,
    /// The first message for c_r.
    pub alpha2: GroupElem,
    /// The first message for the relation c_w^e = A·H^(e·r_2).
    pub alpha3: GroupElem,
    /// The first message for the relation c_r^e = G^(e·r_2)·H^(e·r_3).
    pub alpha4: GroupElem,
    /// The response for e, whose range the verifier checks.
    pub s_e: Integer,
    /// The response for c_e's randomness r.
    pub s_r: Integer,
    /// The response for r_2.
    pub s_r2: Integer,
    /// The response for r_3.
    pub s_r3: Integer,
    /// The response for β = e·r_2.
    pub s_beta: Integer,
    /// The response for δ = e·r_3.
    pub s_delta: Integer,
}

/// B_N = ⌊⌊N/2⌋/2⌋: the bound for randomness that hides group elements.
fn hiding_bound(ic: &IntegerCommitment) -> Integer {
    Integer::from(ic.group.half_modulus() >> 1)
}

fn absorb_first_messages(t: &mut ProofTranscript, p: &RootProof) {
    t.domain(b"root");
    t.append_elem(b"c_w", &p.c_w);
    t.append_elem(b"c_r", &p.c_r);
    t.append_elem(b"alpha1", &p.alpha1);
    t.append_elem(b"alpha2", &p.alpha2);
    t.append_elem(b"alpha3", &p.alpha3);
    t.append_elem(b"alpha4", &p.alpha4);
}

/// Proves knowledge of e, r and W for the statement: W and r_2 committed, the Σ first
/// messages absorbed, the responses to the transcript's challenge.
pub fn prove<R: RngCore + CryptoRng>(
    params: &Parameters,
    ic: &IntegerCommitment,
    wit: RootWitness<'_>,
    transcript: &mut ProofTranscript,
    rng: &mut R,
) -> Result<RootProof, Error> {
    let grp = &ic.group;
    let (g, h) = (&ic.g, &ic.h);
    let b_n = hiding_bound(ic);
    let slack = params.security_zk + params.security_soundness;
    let b_r = Integer::from(&b_n << slack);
    let b_big = Integer::from(&b_n << (slack + params.hash_to_prime_bits));

    // Commit to W (hidden by H^{r_2}) and to r_2 itself.
    let r_2 = random::symmetric(&b_n, rng);
    let r_3 = random::symmetric(&b_n, rng);
    let c_w = grp.op(wit.w, &grp.exp(h, &r_2)?);
    let c_r = ic.commit(&r_2, &r_3)?;

    // Masks: each one exceeds the secret it hides by 2^{λ_z+λ_s} (statistical ZK).
    let r_e = random::symmetric_bits(slack + params.hash_to_prime_bits, rng);
    let r_r = random::symmetric(&b_r, rng);
    let r_r2 = random::symmetric(&b_r, rng);
    let r_r3 = random::symmetric(&b_r, rng);
    let r_beta = random::symmetric(&b_big, rng);
    let r_delta = random::symmetric(&b_big, rng);

    let alpha1 = ic.commit(&r_e, &r_r)?;
    let alpha2 = ic.commit(&r_r2, &r_r3)?;
    let alpha3 = grp.exp2(&c_w, &r_e, h, &Integer::from(-&r_beta))?;
    let alpha4 = grp.op(
        &grp.exp2(&c_r, &r_e, h, &Integer::from(-&r_delta))?,
        &grp.exp(g, &Integer::from(-&r_beta))?,
    );

    let mut proof = RootProof {
        c_w,
        c_r,
        alpha1,
        alpha2,
        alpha3,
        alpha4,
        s_e: Integer::new(),
        s_r: Integer::new(),
        s_r2: Integer::new(),
        s_r3: Integer::new(),
        s_beta: Integer::new(),
        s_delta: Integer::new(),
    };
    absorb_first_messages(transcript, &proof);
    // The statement (c_e, A) is not needed to prove: the caller's transcript has absorbed it.
    let c = transcript.challenge(b"c");

    let ce = Integer::from(&c * wit.e);
    proof.s_e = r_e - &ce;
    proof.s_r = r_r - Integer::from(&c * wit.r);
    proof.s_r2 = r_r2 - Integer::from(&c * &r_2);
    proof.s_r3 = r_r3 - Integer::from(&c * &r_3);
    proof.s_beta = r_beta - Integer::from(&ce * &r_2);
    proof.s_delta = r_delta - Integer::from(&ce * &r_3);
    Ok(proof)
}

/// Checks `proof` for the statement: the four Σ relations at the transcript's challenge and the
/// range of s_e; an error names the failed check.
pub fn verify(
    params: &Parameters,
    ic: &IntegerCommitment,
    stmt: RootStatement<'_>,
    proof: &RootProof,
    transcript: &mut ProofTranscript,
) -> Result<(), Error> {
    let grp = &ic.group;
    let (g, h) = (&ic.g, &ic.h);
    absorb_first_messages(transcript, proof);
    let c = transcript.challenge(b"c");

    // Range check first: it is what makes e bounded, and it is cheap.
    let bound = Integer::from(1) << params.response_bound_bits();
    if proof.s_e.clone().abs() > bound {
        return Err(Error::RootRejected("s_e out of range"));
    }

    let lhs1 = grp.op(&grp.exp(stmt.c_e, &c)?, &ic.commit(&proof.s_e, &proof.s_r)?);
    if lhs1 != proof.alpha1 {
        return Err(Error::RootRejected("alpha1"));
    }
    let lhs2 = grp.op(
        &grp.exp(&proof.c_r, &c)?,
        &ic.commit(&proof.s_r2, &proof.s_r3)?,
    );
    if lhs2 != proof.alpha2 {
        return Err(Error::RootRejected("alpha2"));
    }
    let lhs3 = grp.op(
        &grp.exp(stmt.acc, &c)?,
        &grp.exp2(&proof.c_w, &proof.s_e, h, &Integer::from(-&proof.s_beta))?,
    );
    if lhs3 != proof.alpha3 {
        return Err(Error::RootRejected("alpha3"));
    }
    let lhs4 = grp.op(
        &grp.exp2(&proof.c_r, &proof.s_e, h, &Integer::from(-&proof.s_delta))?,
        &grp.exp(g, &Integer::from(-&proof.s_beta))?,
    );
    if lhs4 != proof.alpha4 {
        return Err(Error::RootRejected("alpha4"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsa_group::RsaGroup;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    struct Fixture {
        params: Parameters,
        ic: IntegerCommitment,
        e: Integer,
        r: Integer,
        w: GroupElem,
        acc: GroupElem,
        c_e: GroupElem,
        proof: RootProof,
    }

    fn fixture() -> Fixture {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let params = Parameters::from_curve::<ark_bls12_381::Fr>().unwrap();
        let ic = IntegerCommitment::setup(RsaGroup::rsa2048(), &mut rng);
        // A 252-bit prime e; W = G^{p2·p3} for two other primes, A = W^e.
        let e = (Integer::from(1) << 251u32) + 129u32;
        let e = e.next_prime();
        let other = Integer::from(378_373_571_372_703_133u64) * 8_640_171_141_336_142_787u64;
        let w = ic.group.exp(&ic.g, &other).unwrap();
        let acc = ic.group.exp(&w, &e).unwrap();
        let r = random::below(ic.group.half_modulus(), &mut rng);
        let c_e = ic.commit(&e, &r).unwrap();
        let mut t = ProofTranscript::new(b"root-test", params.challenge_bits());
        let proof = prove(
            &params,
            &ic,
            RootWitness {
                e: &e,
                r: &r,
                w: &w,
            },
            &mut t,
            &mut rng,
        )
        .unwrap();
        Fixture {
            params,
            ic,
            e,
            r,
            w,
            acc,
            c_e,
            proof,
        }
    }

    fn check(
        f: &Fixture,
        c_e: &GroupElem,
        acc: &GroupElem,
        proof: &RootProof,
    ) -> Result<(), Error> {
        let mut t = ProofTranscript::new(b"root-test", f.params.challenge_bits());
        verify(&f.params, &f.ic, RootStatement { c_e, acc }, proof, &mut t)
    }

    #[test]
    fn honest_proof_verifies_and_tampering_is_rejected() {
        let f = fixture();
        assert!(check(&f, &f.c_e, &f.acc, &f.proof).is_ok());
        let grp = &f.ic.group;
        let bump = |x: &GroupElem| grp.op(x, &f.ic.g);

        // A tampered response.
        let mut p = f.proof.clone();
        p.s_beta += 1;
        assert!(check(&f, &f.c_e, &f.acc, &p).is_err());
        let mut p = f.proof.clone();
        p.s_e += 1;
        assert!(check(&f, &f.c_e, &f.acc, &p).is_err());
        // A tampered commitment (first message).
        let mut p = f.proof.clone();
        p.c_w = bump(&p.c_w);
        assert!(check(&f, &f.c_e, &f.acc, &p).is_err());
        let mut p = f.proof.clone();
        p.alpha4 = bump(&p.alpha4);
        assert!(check(&f, &f.c_e, &f.acc, &p).is_err());
        // A tampered statement element.
        assert!(check(&f, &f.c_e, &bump(&f.acc), &f.proof).is_err());
        assert!(check(&f, &bump(&f.c_e), &f.acc, &f.proof).is_err());
    }

    #[test]
    fn oversized_exponent_fails_the_range_check() {
        // A prover whose "e" is far beyond μ bits produces |s_e| above the bound.
        let f = fixture();
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        let big_e = Integer::from(&f.e << 400u32);
        let acc = f.ic.group.exp(&f.w, &big_e).unwrap();
        let c_e = f.ic.commit(&big_e, &f.r).unwrap();
        let mut t = ProofTranscript::new(b"root-test", f.params.challenge_bits());
        let proof = prove(
            &f.params,
            &f.ic,
            RootWitness {
                e: &big_e,
                r: &f.r,
                w: &f.w,
            },
            &mut t,
            &mut rng,
        )
        .unwrap();
        assert_eq!(
            check(&f, &c_e, &acc, &proof),
            Err(Error::RootRejected("s_e out of range"))
        );
    }
}
