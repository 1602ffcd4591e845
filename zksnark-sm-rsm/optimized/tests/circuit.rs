//! The circuit against its statement: honest instances satisfy it and prove with the suite's
//! Groth16 prover and with the collaborative prover; a wrong leaf, a wrong path bit, a wrong r
//! and a scalar encoded out of range each break a constraint of the part that checks it, and a
//! proof forced out of such a witness, or checked against other public inputs, does not verify.

use std::net::{SocketAddr, TcpListener};

use ark_bn254::{Bn254, Fr};
use ark_ff::{BigInteger, One, PrimeField, UniformRand};
use ark_groth16::Groth16;
use ark_relations::r1cs::{ConstraintSystem, OptimizationGoal, SynthesisMode};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use collab_groth16::dealer::{deal, Shares};
use collab_groth16::net::{Mesh, DEFAULT_TIMEOUT};
use collab_groth16::party::{prove as collab_prove, Public as CollabPublic};
use collab_groth16::qap::Qap;
use collab_groth16::Variant;
use zksnark_optimized::export::{compile, witness};
use zksnark_optimized::gadgets::scalar::SCALAR_BITS;
use zksnark_optimized::primitives::babyjubjub::bits_le;
use zksnark_optimized::sample::{self, commit, sample};
use zksnark_optimized::statement::{synthesize, Assignment, Node, Public, Statement, TreeHash};
use zksnark_prover::{snark, R1cs, R1csCircuit};

const STATEMENTS: [Statement; 2] = [Statement::Sm, Statement::Rsm];

fn rng() -> ChaCha20Rng {
    ChaCha20Rng::from_entropy()
}

const P: TreeHash = TreeHash::Poseidon;

/// The part of the circuit whose constraint fails first, or None if the witness satisfies it.
fn first_failure(statement: Statement, hash: TreeHash, a: &Assignment) -> Option<&'static str> {
    let depth = a.witness.right.len();
    let (r1cs, layout) = compile(statement, hash, depth).unwrap();
    let w = witness(statement, hash, depth, a).unwrap();
    r1cs.first_unsatisfied(&w).map(|i| layout.component_of(i))
}

fn crafted(statement: Statement, n: usize, v_bits: Vec<bool>, r_bits: Vec<bool>) -> Assignment {
    sample::crafted(statement, P, n, v_bits, r_bits, &mut rng())
}

/// The bits of v + p, an out-of-range encoding of v (needs v + p < 2^254).
fn alias_bits(v: &Fr) -> Vec<bool> {
    let mut big = v.into_bigint();
    assert!(!big.add_with_carry(&Fr::MODULUS));
    let bits = big.to_bits_le();
    assert!(
        bits[SCALAR_BITS..].iter().all(|b| !b),
        "v + p must fit in 254 bits"
    );
    bits[..SCALAR_BITS].to_vec()
}

#[test]
fn constraint_counts_at_depth_14() {
    // The README's figures; a change to a gadget that costs constraints shows here.
    assert_eq!(
        compile(Statement::Sm, P, 14).unwrap().0.constraints.len(),
        5272
    );
    assert_eq!(
        compile(Statement::Rsm, P, 14).unwrap().0.constraints.len(),
        5276
    );
}

#[test]
fn setup_and_witness_synthesis_build_the_same_constraints() {
    for statement in STATEMENTS {
        let s = sample(statement, P, 6, &mut rng());
        let (r1cs, _) = compile(statement, P, s.depth).unwrap();
        let cs = ConstraintSystem::<Fr>::new_ref();
        cs.set_optimization_goal(OptimizationGoal::Constraints);
        cs.set_mode(SynthesisMode::Prove {
            construct_matrices: true,
        });
        synthesize(cs.clone(), statement, P, s.depth, Some(&s.assignment)).unwrap();
        cs.finalize();
        assert!(cs.is_satisfied().unwrap());
        let m = cs.to_matrices().unwrap();
        assert_eq!(m.num_constraints, r1cs.constraints.len());
        for (i, c) in r1cs.constraints.iter().enumerate() {
            let row =
                |t: &Vec<(Fr, usize)>| t.iter().map(|&(f, w)| (w as u32, f)).collect::<Vec<_>>();
            assert_eq!(
                (row(&m.a[i]), row(&m.b[i]), row(&m.c[i])),
                (c.a.clone(), c.b.clone(), c.c.clone())
            );
        }
    }
}

#[test]
fn honest_instances_prove_and_verify_and_other_public_inputs_do_not() {
    for statement in STATEMENTS {
        let s = sample(statement, P, 9, &mut rng());
        assert_eq!(s.depth, 4);
        let (r1cs, _) = compile(statement, P, s.depth).unwrap();
        let w = witness(statement, P, s.depth, &s.assignment).unwrap();
        assert_eq!(r1cs.first_unsatisfied(&w), None);
        let public = s.assignment.public.inputs();
        assert_eq!(r1cs.public_inputs(&w), public);
        if let Public::Sm { c, .. } = &s.assignment.public {
            assert_eq!(*c, commit(&s.v, &s.r));
        }
        let pk = snark::setup(&r1cs, &mut rng()).unwrap();
        let proof = snark::prove(&r1cs, &w, &pk, &mut rng()).unwrap();
        assert!(snark::verify(&pk.vk, &proof, &public).unwrap());
        for i in 0..public.len() {
            let mut other = public.clone();
            other[i] += Fr::one();
            assert!(
                !snark::verify(&pk.vk, &proof, &other).unwrap(),
                "{statement:?} input {i}"
            );
        }
    }
}

#[test]
fn a_wrong_leaf_path_bit_or_r_breaks_the_part_that_checks_it() {
    for statement in STATEMENTS {
        let s = sample(statement, P, 9, &mut rng());
        let a = &s.assignment;
        assert_eq!(first_failure(statement, P, a), None, "control");

        // Wrong leaf: another v (with its own commitment, so only the tree can object).
        let v2 = s.v + Fr::one();
        let mut wrong_leaf = a.clone();
        wrong_leaf.witness.v_bits = bits_le(&v2, SCALAR_BITS);
        wrong_leaf.public = match &a.public {
            Public::Sm { root, .. } => Public::Sm {
                c: commit(&v2, &s.r),
                root: root.clone(),
            },
            Public::Rsm { root, .. } => Public::Rsm {
                v: v2,
                root: root.clone(),
            },
        };
        assert_eq!(
            first_failure(statement, P, &wrong_leaf),
            Some("Merkle path: bits, selections, Poseidons")
        );

        let mut wrong_bit = a.clone();
        wrong_bit.witness.right[0] ^= true;
        assert_eq!(
            first_failure(statement, P, &wrong_bit),
            Some("Merkle path: bits, selections, Poseidons")
        );

        let mut wrong_r = a.clone();
        wrong_r.witness.r_bits = bits_le(&(s.r + Fr::one()), SCALAR_BITS);
        let want = match statement {
            Statement::Sm => "C == v G + r H, fixed-base windows",
            Statement::Rsm => "Merkle path: bits, selections, Poseidons",
        };
        assert_eq!(first_failure(statement, P, &wrong_r), Some(want));
    }
}

#[test]
fn an_out_of_range_scalar_breaks_only_the_range_check_and_its_proof_does_not_verify() {
    let mut rng = rng();
    for statement in STATEMENTS {
        // v small enough that v + p still fits the 254 bits.
        let v = Fr::from(rng.gen::<u128>());
        let r = Fr::rand(&mut rng);
        let honest = crafted(
            statement,
            5,
            bits_le(&v, SCALAR_BITS),
            bits_le(&r, SCALAR_BITS),
        );
        let depth = honest.witness.right.len();
        assert_eq!(first_failure(statement, P, &honest), None, "control");

        // Everything else agrees with the bits of v + p: the tree holds the leaf they imply.
        let alias = crafted(statement, 5, alias_bits(&v), bits_le(&r, SCALAR_BITS));
        if let Public::Sm { c, .. } = &alias.public {
            // (v + p) G differs from v G: without the check, a proof would claim a false C.
            assert_ne!(*c, commit(&v, &r));
        }
        assert_eq!(
            first_failure(statement, P, &alias),
            Some("v: 254 bits, canonical")
        );
        let alias_r = crafted(
            statement,
            5,
            bits_le(&v, SCALAR_BITS),
            alias_bits(&Fr::from(rng.gen::<u64>())),
        );
        assert_eq!(
            first_failure(statement, P, &alias_r),
            Some("r: 254 bits, canonical")
        );

        // The suite's prover refuses; ark-groth16 forced to prove yields a proof that fails.
        let (r1cs, _) = compile(statement, P, depth).unwrap();
        let w = witness(statement, P, depth, &alias).unwrap();
        let pk = snark::setup(&r1cs, &mut rng).unwrap();
        assert!(snark::prove(&r1cs, &w, &pk, &mut rng).is_err());
        let forced = Groth16::<Bn254>::create_random_proof_with_reduction(
            R1csCircuit::for_proving(&r1cs, &w),
            &pk,
            &mut rng,
        )
        .unwrap();
        assert!(!snark::verify(&pk.vk, &forced, &alias.public.inputs()).unwrap());
    }
}

#[test]
fn edge_scalars_satisfy_the_circuit() {
    // Zero (the identity commitment), p - 1, and all-ones digits in the Montgomery segment: the
    // fixed-base layout has no exceptional case, so every one of them has its witness.
    let all_ones_low = {
        let mut bits = vec![true; 249];
        bits.resize(SCALAR_BITS, false);
        bits
    };
    let cases = [
        (
            bits_le(&Fr::from(0u8), SCALAR_BITS),
            bits_le(&Fr::from(0u8), SCALAR_BITS),
        ),
        (
            bits_le(&-Fr::one(), SCALAR_BITS),
            bits_le(&-Fr::one(), SCALAR_BITS),
        ),
        (all_ones_low.clone(), bits_le(&Fr::one(), SCALAR_BITS)),
    ];
    for statement in STATEMENTS {
        for (v_bits, r_bits) in &cases {
            let a = crafted(statement, 3, v_bits.clone(), r_bits.clone());
            assert_eq!(first_failure(statement, P, &a), None, "{statement:?}");
        }
    }
}

/// Two parties of collab-groth16 (semi-honest), each on its own thread and loopback mesh.
fn collaborative_proof(
    r1cs: &R1cs<Fr>,
    w: &[Fr],
    pk: &ark_groth16::ProvingKey<Bn254>,
) -> ark_groth16::Proof<Bn254> {
    let m = 2;
    let qap = Qap::new(r1cs).unwrap();
    let inputs = r1cs.public_inputs(w);
    let materials = deal(
        &w[qap.inputs()..],
        qap.size() + 1,
        m,
        Variant::SemiHonest,
        &mut rng(),
    );
    let listeners: Vec<TcpListener> = (0..m)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let addrs: Vec<SocketAddr> = listeners.iter().map(|l| l.local_addr().unwrap()).collect();
    let proofs: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = materials
            .iter()
            .zip(listeners)
            .map(|(material, listener)| {
                let (addrs, inputs, qap) = (&addrs, &inputs, &qap);
                scope.spawn(move || {
                    let shares = Shares::expand(material);
                    let mut mesh =
                        Mesh::establish(material.id, addrs, &listener, DEFAULT_TIMEOUT).unwrap();
                    let public = CollabPublic {
                        r1cs,
                        pk,
                        qap,
                        inputs,
                    };
                    collab_prove(&public, &shares, &mut mesh, None, &mut rng())
                        .unwrap()
                        .proof
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        proofs.iter().all(|p| *p == proofs[0]),
        "both parties output one proof"
    );
    proofs[0].clone()
}

#[test]
fn the_collaborative_prover_proves_the_circuit_unchanged() {
    for statement in STATEMENTS {
        let s = sample(statement, P, 4, &mut rng());
        let (r1cs, _) = compile(statement, P, s.depth).unwrap();
        let w = witness(statement, P, s.depth, &s.assignment).unwrap();
        let pk = snark::setup(&r1cs, &mut rng()).unwrap();
        let proof = collaborative_proof(&r1cs, &w, &pk);
        let public = s.assignment.public.inputs();
        assert!(
            snark::verify(&pk.vk, &proof, &public).unwrap(),
            "{statement:?}"
        );
        let mut other = public.clone();
        other[0] += Fr::one();
        assert!(!snark::verify(&pk.vk, &proof, &other).unwrap());
    }
}

#[test]
fn the_sha256_variant_agrees_with_sha2_and_rejects_a_wrong_path() {
    let path_part = "Merkle path: digests, bits, selections, SHA-256s";
    for statement in STATEMENTS {
        let s = sample(statement, TreeHash::Sha256, 3, &mut rng());
        assert_eq!(s.depth, 2);
        let a = &s.assignment;
        // The native tree (sha2 crate) and the circuit agree on the root.
        assert_eq!(first_failure(statement, TreeHash::Sha256, a), None);
        assert_eq!(
            a.public.inputs().len(),
            if statement == Statement::Sm { 10 } else { 9 }
        );

        let mut wrong_bit = a.clone();
        wrong_bit.witness.right[1] ^= true;
        assert_eq!(
            first_failure(statement, TreeHash::Sha256, &wrong_bit),
            Some(path_part)
        );
        let mut wrong_sibling = a.clone();
        if let Node::Digest(d) = &mut wrong_sibling.witness.siblings[0] {
            d[31] ^= 1;
        }
        assert_eq!(
            first_failure(statement, TreeHash::Sha256, &wrong_sibling),
            Some(path_part)
        );
        let mut wrong_v = a.clone();
        wrong_v.witness.v_bits = bits_le(&(s.v + Fr::one()), SCALAR_BITS);
        let want = match statement {
            Statement::Sm => "C == v G + r H, fixed-base windows",
            Statement::Rsm => "public v == its bits",
        };
        assert_eq!(
            first_failure(statement, TreeHash::Sha256, &wrong_v),
            Some(want)
        );
    }
}
