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
use collab_groth16::identity::{self, Certificate, Identity};
use collab_groth16::net::{Mesh, DEFAULT_TIMEOUT};
use collab_groth16::party::{prove as collab_prove, Public as CollabPublic};
use collab_groth16::qap::Qap;
use collab_groth16::Variant as CollabVariant;
use zksnark_optimized::export::{compile, witness};
use zksnark_optimized::gadgets::scalar::SCALAR_BITS;
use zksnark_optimized::primitives::babyjubjub::bits_le;
use zksnark_optimized::primitives::babyjubjub::{random_below_l, subgroup_order, Point};
use zksnark_optimized::sample::{self, commit, sample};
use zksnark_optimized::statement::{
    synthesize, Assignment, Node, Public, Statement, TreeHash, Variant, Witness,
};
use zksnark_prover::{snark, R1cs, R1csCircuit};

const STATEMENTS: [Statement; 2] = [Statement::Sm, Statement::Rsm];

fn rng() -> ChaCha20Rng {
    ChaCha20Rng::from_entropy()
}

const P: TreeHash = TreeHash::Poseidon;

/// The default variant, which most tests exercise.
const S: Variant = Variant::Sound;
/// The paper's statement.
const AP: Variant = Variant::AsPublished;

/// The part of the circuit whose constraint fails first, or None if the witness satisfies it.
fn first_failure_in(
    statement: Statement,
    hash: TreeHash,
    variant: Variant,
    a: &Assignment,
) -> Option<&'static str> {
    let depth = a.witness.right.len();
    let (r1cs, layout) = compile(statement, hash, variant, depth).unwrap();
    let w = witness(statement, hash, variant, depth, a).unwrap();
    r1cs.first_unsatisfied(&w).map(|i| layout.component_of(i))
}

fn first_failure(statement: Statement, hash: TreeHash, a: &Assignment) -> Option<&'static str> {
    first_failure_in(statement, hash, S, a)
}

fn crafted(statement: Statement, n: usize, v_bits: Vec<bool>, r_bits: Vec<bool>) -> Assignment {
    sample::crafted(statement, P, AP, n, v_bits, r_bits, &mut rng())
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
    let count = |statement, variant| {
        compile(statement, P, variant, 14)
            .unwrap()
            .0
            .constraints
            .len()
    };
    assert_eq!(count(Statement::Sm, AP), 5272);
    assert_eq!(count(Statement::Rsm, AP), 5276);
    assert_eq!(count(Statement::Sm, S), SOUND_COUNTS[0]);
    assert_eq!(count(Statement::Rsm, S), SOUND_COUNTS[1]);
}

/// The sound variant's constraints at depth 14 (SM, RSM).
const SOUND_COUNTS: [usize; 2] = [5267, 5271];

#[test]
fn setup_and_witness_synthesis_build_the_same_constraints() {
    for statement in STATEMENTS {
        let s = sample(statement, P, S, 6, &mut rng());
        let (r1cs, _) = compile(statement, P, S, s.depth).unwrap();
        let cs = ConstraintSystem::<Fr>::new_ref();
        cs.set_optimization_goal(OptimizationGoal::Constraints);
        cs.set_mode(SynthesisMode::Prove {
            construct_matrices: true,
        });
        synthesize(cs.clone(), statement, P, S, s.depth, Some(&s.assignment)).unwrap();
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
        let s = sample(statement, P, S, 9, &mut rng());
        assert_eq!(s.depth, 4);
        let (r1cs, _) = compile(statement, P, S, s.depth).unwrap();
        let w = witness(statement, P, S, s.depth, &s.assignment).unwrap();
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
        let s = sample(statement, P, S, 9, &mut rng());
        let a = &s.assignment;
        assert_eq!(first_failure(statement, P, a), None, "control");

        // Wrong leaf: another v (with its own commitment, so only the tree can object).
        let v2 = s.v + Fr::one();
        let mut wrong_leaf = a.clone();
        wrong_leaf.witness.v_bits = S.v_bits(&v2);
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
        assert_eq!(first_failure_in(statement, P, AP, &honest), None, "control");

        // Everything else agrees with the bits of v + p: the tree holds the leaf they imply.
        let alias = crafted(statement, 5, alias_bits(&v), bits_le(&r, SCALAR_BITS));
        if let Public::Sm { c, .. } = &alias.public {
            // (v + p) G differs from v G: without the check, a proof would claim a false C.
            assert_ne!(*c, commit(&v, &r));
        }
        assert_eq!(
            first_failure_in(statement, P, AP, &alias),
            Some("v: 254 bits, canonical")
        );
        let alias_r = crafted(
            statement,
            5,
            bits_le(&v, SCALAR_BITS),
            alias_bits(&Fr::from(rng.gen::<u64>())),
        );
        assert_eq!(
            first_failure_in(statement, P, AP, &alias_r),
            Some("r: 254 bits, canonical")
        );

        // The suite's prover refuses; ark-groth16 forced to prove yields a proof that fails.
        let (r1cs, _) = compile(statement, P, AP, depth).unwrap();
        let w = witness(statement, P, AP, depth, &alias).unwrap();
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
            assert_eq!(
                first_failure_in(statement, P, AP, &a),
                None,
                "{statement:?}"
            );
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
        CollabVariant::SemiHonest,
        &mut rng(),
    );
    let listeners: Vec<TcpListener> = (0..m)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let addrs: Vec<SocketAddr> = listeners.iter().map(|l| l.local_addr().unwrap()).collect();
    let ids: Vec<Identity> = (0..m).map(|_| identity::generate().unwrap()).collect();
    let certs: Vec<Certificate<'static>> = ids.iter().map(|i| i.cert.clone()).collect();
    let proofs: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = materials
            .iter()
            .zip(listeners)
            .zip(&ids)
            .map(|((material, listener), me)| {
                let (addrs, inputs, qap, certs) = (&addrs, &inputs, &qap, &certs);
                scope.spawn(move || {
                    let shares = Shares::expand(material);
                    let mut mesh =
                        Mesh::establish(material.id, me, certs, addrs, &listener, DEFAULT_TIMEOUT)
                            .unwrap();
                    let public = CollabPublic {
                        r1cs,
                        pk,
                        qap,
                        inputs,
                    };
                    collab_prove(&public, &shares, &mut mesh, None, &mut rng(), &mut |_| {})
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
        let s = sample(statement, P, S, 4, &mut rng());
        let (r1cs, _) = compile(statement, P, S, s.depth).unwrap();
        let w = witness(statement, P, S, s.depth, &s.assignment).unwrap();
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
        let s = sample(statement, TreeHash::Sha256, S, 3, &mut rng());
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
        wrong_v.witness.v_bits = S.v_bits(&(s.v + Fr::one()));
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

/// Proves `a` on `variant`'s circuit with the suite's Groth16 prover and verifies it for the
/// assignment's public inputs; None if the prover refuses (the witness breaks a constraint).
fn real_proof_verifies(statement: Statement, variant: Variant, a: &Assignment) -> Option<bool> {
    let depth = a.witness.right.len();
    let (r1cs, _) = compile(statement, P, variant, depth).unwrap();
    let w = witness(statement, P, variant, depth, a).unwrap();
    let pk = snark::setup(&r1cs, &mut rng()).unwrap();
    let proof = snark::prove(&r1cs, &w, &pk, &mut rng()).ok()?;
    Some(snark::verify(&pk.vk, &proof, &a.public.inputs()).unwrap())
}

/// v + L as a field element (below p, since v < L and 2 L < p).
fn plus_l(v: &Fr) -> Fr {
    *v + Fr::from_bigint(subgroup_order()).unwrap()
}

/// What a prover claims and the scalars it proves it with.
struct Claim {
    /// The public v (RSM).
    v: Fr,
    /// The public commitment (SM).
    c: Point,
    v_bits: Vec<bool>,
    r: Fr,
}

/// A tree of `n` random set elements, whose element at `index` is `leaf` if given, padded as
/// `variant` pads; the assignment proves position `index` for `claim`.
fn attack(
    statement: Statement,
    variant: Variant,
    n: usize,
    index: usize,
    leaf: Option<Node>,
    claim: Claim,
) -> Assignment {
    let mut rng = rng();
    let mut leaves: Vec<Node> = (0..n)
        .map(|_| {
            let (v, r) = (random_below_l(&mut rng), random_below_l(&mut rng));
            sample::leaf(statement, P, &v, &commit(&v, &r))
        })
        .collect();
    if let Some(l) = leaf {
        leaves[index] = l;
    }
    let (_, root, siblings, right) =
        sample::tree_of(leaves, sample::pad(statement, P, variant), index);
    Assignment {
        public: match statement {
            Statement::Sm => Public::Sm { c: claim.c, root },
            Statement::Rsm => Public::Rsm { v: claim.v, root },
        },
        witness: Witness {
            v_bits: claim.v_bits,
            r_bits: bits_le(&claim.r, SCALAR_BITS),
            siblings,
            right,
        },
    }
}

/// RSM with a tree that holds only Com(v, r): the paper's statement also proves v + L (the
/// commitment fixes v only mod L and the circuit checks v against p); the sound circuit's
/// v < L rejects it, so no proof exists.
#[test]
fn rsm_proves_v_plus_l_as_published_and_not_when_sound() {
    let mut rng = rng();
    // v + L must fit the sound variant's 251 bits for its range check to be what rejects it.
    let v = Fr::from(rng.gen::<u128>());
    let r = random_below_l(&mut rng);
    let c = commit(&v, &r);
    let lifted = plus_l(&v);
    assert_eq!(commit(&lifted, &r), c, "v + L commits like v");
    let leaf = Some(sample::leaf(Statement::Rsm, P, &v, &c));
    for variant in Variant::ALL {
        let claim = Claim {
            v: lifted,
            c,
            v_bits: variant.v_bits(&lifted),
            r,
        };
        let a = attack(Statement::Rsm, variant, 5, 2, leaf.clone(), claim);
        match variant {
            Variant::AsPublished => {
                assert_eq!(first_failure_in(Statement::Rsm, P, variant, &a), None);
                assert_eq!(
                    real_proof_verifies(Statement::Rsm, variant, &a),
                    Some(true),
                    "a real Groth16 proof that v + L is in the set"
                );
            }
            Variant::Sound => {
                assert_eq!(
                    first_failure_in(Statement::Rsm, P, variant, &a),
                    Some("v: 251 bits, below L")
                );
                assert_eq!(real_proof_verifies(Statement::Rsm, variant, &a), None);
            }
        }
    }
}

/// 0 through a padding position (n = 5, positions 5 to 7 are padding): SM with C = r H (a
/// commitment to 0) and RSM with v = 0, r = 0 prove as published, where the padding leaf is
/// the leaf of 0 or of the identity; with the sound padding leaf the path does not fold.
#[test]
fn zero_is_a_member_through_a_padding_leaf_as_published_and_not_when_sound() {
    let zero = Fr::from(0u8);
    for statement in STATEMENTS {
        let r = match statement {
            Statement::Sm => random_below_l(&mut rng()),
            Statement::Rsm => zero,
        };
        let c = commit(&zero, &r);
        for variant in Variant::ALL {
            let claim = Claim {
                v: zero,
                c,
                v_bits: variant.v_bits(&zero),
                r,
            };
            let a = attack(statement, variant, 5, 5, None, claim);
            match variant {
                Variant::AsPublished => {
                    assert_eq!(first_failure_in(statement, P, variant, &a), None);
                    assert_eq!(
                        real_proof_verifies(statement, variant, &a),
                        Some(true),
                        "{statement:?}: a real proof that 0 is in the set"
                    );
                }
                Variant::Sound => assert_eq!(
                    first_failure_in(statement, P, variant, &a),
                    Some("Merkle path: bits, selections, Poseidons"),
                    "{statement:?}"
                ),
            }
        }
    }
}

/// Every honest instance of either variant proves (the fix costs no honest prover anything).
#[test]
fn honest_instances_of_both_variants_satisfy_their_circuit() {
    for statement in STATEMENTS {
        for variant in Variant::ALL {
            let s = sample(statement, P, variant, 5, &mut rng());
            assert_eq!(
                first_failure_in(statement, P, variant, &s.assignment),
                None,
                "{statement:?} {variant:?}"
            );
        }
    }
}
