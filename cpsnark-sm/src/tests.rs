//! End-to-end tests of the composed proof. The LegoGroth16 setup for the 22 814-constraint
//! circuit takes seconds, so all tests share one CRS and one honest proof.

use std::sync::OnceLock;

use ark_bls12_381::{Bls12_381, Fr, G1Affine};
use ark_ec::CurveGroup;
use ark_ff::UniformRand;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rug::Integer;

use crate::{
    accumulator::RsaAccumulator,
    hash_to_prime::hash_to_prime,
    membership::{prove, prove_unchecked, verify, Crs, Proof, Statement, Witness},
    random, snark, Error,
};

type E = Bls12_381;

struct Fixture {
    crs: Crs<E>,
    acc: RsaAccumulator,
    stmt: Statement<E>,
    wit: Witness<E>,
    e: Integer,
    proof: Proof<E>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        // Seeded only so that failures reproduce.
        let mut rng = ChaCha20Rng::seed_from_u64(2024);
        let crs = Crs::<E>::setup(&mut rng).unwrap();
        let x = random::bits(252, &mut rng);
        let (e, _) = hash_to_prime(&crs.params, &x).unwrap();
        let mut acc = RsaAccumulator::new(crs.group().clone());
        acc.add(&[
            Integer::from(378_373_571_372_703_133u64),
            Integer::from(8_640_171_141_336_142_787u64),
        ])
        .unwrap();
        let w = acc.add_with_witness(&e).unwrap();
        let r_q = Fr::rand(&mut rng);
        let stmt = Statement {
            acc: acc.value().clone(),
            c_e_q: crs.commit_prime(&e, &r_q),
        };
        let wit = Witness { x, r_q, w };
        let proof = prove(&crs, &stmt, &wit, &mut rng).unwrap();
        Fixture {
            crs,
            acc,
            stmt,
            wit,
            e,
            proof,
        }
    })
}

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

#[test]
fn honest_proof_verifies() {
    let f = fixture();
    verify(&f.crs, &f.stmt, &f.proof).unwrap();
    // ≈ 4.4 KB as computed in the spec (§3.7).
    let size = f.proof.size_bytes();
    assert!((4_000..5_000).contains(&size), "proof size {size}");
}

#[test]
fn second_proof_of_the_same_statement_verifies_and_differs() {
    let f = fixture();
    let p = prove(&f.crs, &f.stmt, &f.wit, &mut rng(1)).unwrap();
    assert!(verify(&f.crs, &f.stmt, &p).is_ok());
    assert_ne!(p.c_e, f.proof.c_e, "c_e must be freshly randomised");
}

#[test]
fn tampered_statement_is_rejected() {
    let f = fixture();
    let grp = f.crs.group();
    let mut stmt = f.stmt.clone();
    stmt.acc = grp.op(&stmt.acc, &f.crs.integer_commitment.g);
    assert!(verify(&f.crs, &stmt, &f.proof).is_err());

    let mut stmt = f.stmt.clone();
    stmt.c_e_q = (stmt.c_e_q + f.crs.pedersen.h).into_affine();
    assert!(verify(&f.crs, &stmt, &f.proof).is_err());
}

#[test]
fn tampered_proof_parts_are_rejected() {
    let f = fixture();
    let grp = f.crs.group();
    let g = &f.crs.integer_commitment.g;

    let mut p = f.proof.clone();
    p.c_e = grp.op(&p.c_e, g);
    assert!(verify(&f.crs, &f.stmt, &p).is_err());

    let mut p = f.proof.clone();
    p.root.s_r += 1;
    assert!(matches!(
        verify(&f.crs, &f.stmt, &p),
        Err(Error::RootRejected(_))
    ));

    let mut p = f.proof.clone();
    p.root.alpha2 = grp.op(&p.root.alpha2, g);
    assert!(verify(&f.crs, &f.stmt, &p).is_err());

    let mut p = f.proof.clone();
    p.modeq.s_r -= 1;
    assert!(matches!(
        verify(&f.crs, &f.stmt, &p),
        Err(Error::ModEqRejected(_))
    ));

    // The SNARK proof is bound by the transcript *and* checked on its own.
    let mut p = f.proof.clone();
    p.snark.groth16_proof.c = (p.snark.groth16_proof.c + f.crs.pedersen.g).into_affine();
    assert!(verify(&f.crs, &f.stmt, &p).is_err());
    assert!(snark::verify(&f.crs.snark, &p.snark, &f.stmt.c_e_q).is_err());

    let mut p = f.proof.clone();
    p.snark.link_pi = (p.snark.link_pi + f.crs.pedersen.g).into_affine();
    assert!(snark::verify(&f.crs.snark, &p.snark, &f.stmt.c_e_q).is_err());

    let mut p = f.proof.clone();
    p.snark.groth16_proof.d = (p.snark.groth16_proof.d + f.crs.pedersen.g).into_affine();
    assert!(snark::verify(&f.crs.snark, &p.snark, &f.stmt.c_e_q).is_err());
}

#[test]
fn snark_checks_its_link_commitment_against_the_statement() {
    let f = fixture();
    assert!(snark::verify(&f.crs.snark, &f.proof.snark, &f.stmt.c_e_q).is_ok());
    // The same SNARK proof does not vouch for a different commitment.
    let other: G1Affine = f.crs.commit_prime(&f.e, &Fr::from(5u64));
    assert!(matches!(
        snark::verify(&f.crs.snark, &f.proof.snark, &other),
        Err(Error::SnarkRejected(_))
    ));
}

#[test]
fn wrong_nonce_gives_no_valid_snark() {
    let f = fixture();
    let (e, idx) = hash_to_prime(&f.crs.params, &f.wit.x).unwrap();
    let wrong = if idx == 0 { 1 } else { idx - 1 };
    // Proving an unsatisfied circuit must fail outright or yield a rejected proof.
    if let Ok(p) = snark::prove(
        &f.crs.snark,
        &f.crs.params,
        &f.wit.x,
        wrong,
        &e,
        &f.wit.r_q,
        &mut rng(3),
    ) {
        assert!(snark::verify(&f.crs.snark, &p, &f.stmt.c_e_q).is_err());
    }
}

#[test]
fn non_member_cannot_be_proven() {
    let f = fixture();
    let mut r = rng(4);
    // Another element, committed honestly, but never added to the accumulator.
    let x = random::bits(252, &mut r);
    let (e, idx) = hash_to_prime(&f.crs.params, &x).unwrap();
    let r_q = Fr::rand(&mut r);
    let stmt = Statement {
        acc: f.acc.value().clone(),
        c_e_q: f.crs.commit_prime(&e, &r_q),
    };
    // The only witness available is the real member's (or any other group element).
    let wit = Witness {
        x,
        r_q,
        w: f.wit.w.clone(),
    };
    assert_eq!(
        prove(&f.crs, &stmt, &wit, &mut r).unwrap_err(),
        Error::NotAMember
    );
    // Running the prover anyway gives a proof that CP_Root rejects.
    let p = prove_unchecked(&f.crs, &stmt, &wit, &e, idx, &mut r).unwrap();
    assert!(matches!(
        verify(&f.crs, &stmt, &p),
        Err(Error::RootRejected(_))
    ));
}

#[test]
fn proof_for_one_statement_does_not_verify_for_another_member() {
    // Same accumulator, a different member's commitment: the replayed proof is rejected.
    let f = fixture();
    let mut r = rng(5);
    let stmt = Statement {
        acc: f.stmt.acc.clone(),
        c_e_q: f.crs.commit_prime(
            &Integer::from(378_373_571_372_703_133u64),
            &Fr::rand(&mut r),
        ),
    };
    assert!(verify(&f.crs, &stmt, &f.proof).is_err());
}

#[test]
fn inconsistent_witness_is_refused_by_the_prover() {
    let f = fixture();
    let mut wit = f.wit.clone();
    wit.r_q += Fr::from(1u64);
    assert!(matches!(
        prove(&f.crs, &f.stmt, &wit, &mut rng(6)),
        Err(Error::InvalidInput(_))
    ));
}
