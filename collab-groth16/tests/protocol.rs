//! The protocol end to end in one process (parties on threads, loopback TCP): proofs that the
//! ordinary verifier accepts for m = 2, 3, 4 in both variants, and every fault making the run
//! fail.

mod common;

use ark_bn254::{Bn254, Fr};
use ark_ff::UniformRand;
use ark_groth16::Groth16;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use collab_groth16::plain;
use collab_groth16::tamper::Tamper;
use collab_groth16::{Error, Variant};
use common::{circuit, run_parties};
use zksnark_prover::R1csCircuit;

#[test]
fn plain_prover_matches_ark_groth16_bit_for_bit() {
    let c = circuit();
    let mut rng = ChaCha20Rng::from_entropy();
    let (r, s) = (Fr::rand(&mut rng), Fr::rand(&mut rng));
    let ours = plain::prove(&c.r1cs, &c.w, &c.pk, r, s).unwrap();
    let ark = Groth16::<Bn254>::create_proof_with_reduction(
        R1csCircuit::for_proving(&c.r1cs, &c.w),
        &c.pk,
        r,
        s,
    )
    .unwrap();
    assert_eq!(ours, ark);
    assert!(c.verifies(&ours));
}

fn assert_joint_proof(m: usize, variant: Variant) {
    let c = circuit();
    let outcomes = run_parties(c, m, variant, None);
    let proofs: Vec<_> = outcomes
        .into_iter()
        .map(|o| o.expect("honest parties succeed").proof)
        .collect();
    assert!(
        proofs.iter().all(|p| *p == proofs[0]),
        "every party outputs the same proof"
    );
    assert!(c.verifies(&proofs[0]), "{m} parties, {variant:?}");
}

#[test]
fn semi_honest_proofs_verify_for_2_3_4_parties() {
    for m in [2, 3, 4] {
        assert_joint_proof(m, Variant::SemiHonest);
    }
}

#[test]
fn malicious_proofs_verify_for_2_3_parties() {
    for m in [2, 3] {
        assert_joint_proof(m, Variant::Malicious);
    }
}

/// A wire that some constraint's A uses: changing its value breaks the witness.
fn used_private_wire() -> usize {
    let c = circuit();
    let inputs = c.qap.inputs();
    let wire = c.r1cs.constraints[10]
        .a
        .iter()
        .map(|&(w, _)| w as usize)
        .find(|&w| w >= inputs)
        .or_else(|| {
            c.r1cs
                .constraints
                .iter()
                .flat_map(|k| k.a.iter())
                .map(|&(w, _)| w as usize)
                .find(|&w| w >= inputs)
        })
        .expect("some constraint uses a private wire");
    wire - inputs
}

#[test]
fn semi_honest_faults_make_the_proof_fail_to_verify() {
    let c = circuit();
    let wire = used_private_wire();
    for spec in [
        format!("witness:1:{wire}"),
        "triple-x:0:5".to_string(),
        "triple-z:1:100".to_string(),
        "a-share:0".to_string(),
        "b-share:1".to_string(),
        "c-share:2".to_string(),
    ] {
        let tamper = Tamper::parse(&spec).unwrap();
        let outcomes = run_parties(c, 3, Variant::SemiHonest, Some(tamper));
        for o in outcomes {
            let proof = o.expect("semi-honest parties do not notice").proof;
            assert!(!c.verifies(&proof), "{spec}: the proof must not verify");
        }
    }
}

#[test]
fn malicious_faults_abort_or_are_rejected() {
    let c = circuit();
    let wire = used_private_wire();
    for (spec, mac_abort) in [
        (format!("witness:1:{wire}"), true),
        ("triple-x:0:5".to_string(), true),
        ("a-share:1".to_string(), true),
        ("b-share:0".to_string(), true),
        ("triple-z:1:100".to_string(), false),
        ("c-share:0".to_string(), false),
    ] {
        let tamper = Tamper::parse(&spec).unwrap();
        let outcomes = run_parties(c, 2, Variant::Malicious, Some(tamper));
        for o in outcomes {
            match (o, mac_abort) {
                (Err(Error::Abort(msg)), true) => {
                    assert!(
                        msg.contains("MAC") || msg.contains("pairing"),
                        "{spec}: {msg}"
                    )
                }
                (Ok(online), false) => assert!(!c.verifies(&online.proof), "{spec}"),
                (other, _) => panic!("{spec}: unexpected outcome {:?}", other.map(|o| o.proof)),
            }
        }
    }
}
