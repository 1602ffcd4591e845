//! Library-level tests: circom-format round trips, Groth16 over an imported R1CS, and the
//! negative cases (tampered proof, tampered public input, unsatisfying witness, malformed files).

use std::path::Path;

use ark_bn254::{Fr, G1Projective};
use ark_ec::{CurveGroup, Group};
use ark_ff::One;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use zksnark_prover::writer::{r1cs_bytes, wtns_bytes};
use zksnark_prover::{parse_wtns, snark, synthetic::synthetic, Constraint, Error, R1cs};

/// x^3 + x + 5 = y with y public, laid out as ZoKrates does it: wire 0 = 1, wire 1 = y (public
/// input), wire 2 = x (private input), wires 3, 4 = x^2, x^3.
fn cubic() -> (R1cs<Fr>, Vec<Fr>) {
    let f = |v: u64| Fr::from(v);
    let constraints = vec![
        Constraint {
            a: vec![(2, f(1))],
            b: vec![(2, f(1))],
            c: vec![(3, f(1))],
        },
        Constraint {
            a: vec![(3, f(1))],
            b: vec![(2, f(1))],
            c: vec![(4, f(1))],
        },
        Constraint {
            a: vec![(4, f(1)), (2, f(1)), (0, f(5))],
            b: vec![(0, f(1))],
            c: vec![(1, f(1))],
        },
    ];
    let r1cs = R1cs {
        n_wires: 5,
        n_pub_out: 0,
        n_pub_in: 1,
        n_prv_in: 1,
        n_labels: 5,
        constraints,
        wire_to_label: Some(vec![0, 1, 2, 3, 4]),
    };
    // x = 3: 27 + 3 + 5 = 35
    (r1cs, vec![f(1), f(35), f(3), f(9), f(27)])
}

/// Writes the circuit to bytes and reads it back, as the binary does from disk.
fn through_files(r1cs: &R1cs<Fr>, w: &[Fr]) -> (R1cs<Fr>, Vec<Fr>) {
    let path = Path::new("test.r1cs");
    let parsed = R1cs::<Fr>::parse(path, &r1cs_bytes(r1cs)).expect("own writer's output parses");
    let values = parse_wtns::<Fr>(Path::new("test.wtns"), &wtns_bytes(w)).expect("parses");
    let assignment = parsed.assignment(values, Path::new("test.wtns")).unwrap();
    (parsed, assignment)
}

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

#[test]
fn cubic_proves_and_verifies() {
    let (r1cs, w) = cubic();
    let (r1cs, w) = through_files(&r1cs, &w);
    assert_eq!(r1cs.first_unsatisfied(&w), None);
    let pk = snark::setup(&r1cs, &mut rng(1)).unwrap();
    let proof = snark::prove(&r1cs, &w, &pk, &mut rng(2)).unwrap();
    let public = r1cs.public_inputs(&w);
    assert_eq!(public, vec![Fr::from(35u64)]);
    assert!(snark::verify(&pk.vk, &proof, &public).unwrap());
}

#[test]
fn readers_round_trip_zokrates_section_order() {
    let (r1cs, w) = synthetic::<Fr, _>(200, 4, &mut rng(3));
    let bytes = r1cs_bytes(&r1cs);
    // zokrates-js writes the constraints section (type 2) first; the reader must not care.
    assert_eq!(&bytes[12..16], &2u32.to_le_bytes());
    assert_eq!(
        R1cs::<Fr>::parse(Path::new("x.r1cs"), &bytes).unwrap(),
        r1cs
    );
    assert_eq!(
        parse_wtns::<Fr>(Path::new("x.wtns"), &wtns_bytes(&w)).unwrap(),
        w
    );
}

#[test]
fn synthetic_circuit_proves_verifies_and_rejects_tampering() {
    let (r1cs, w) = synthetic::<Fr, _>(300, 5, &mut rng(4));
    let (r1cs, w) = through_files(&r1cs, &w);
    let pk = snark::setup(&r1cs, &mut rng(5)).unwrap();
    let proof = snark::prove(&r1cs, &w, &pk, &mut rng(6)).unwrap();
    let public = r1cs.public_inputs(&w);
    assert!(snark::verify(&pk.vk, &proof, &public).unwrap());

    // Tamper with each proof element in turn.
    let mut bad = proof.clone();
    bad.a = (bad.a + G1Projective::generator()).into_affine();
    assert!(!snark::verify(&pk.vk, &bad, &public).unwrap());
    let mut bad = proof.clone();
    bad.c = (bad.c + G1Projective::generator()).into_affine();
    assert!(!snark::verify(&pk.vk, &bad, &public).unwrap());
    let mut bad = proof.clone();
    bad.b = (bad.b + ark_bn254::G2Projective::generator()).into_affine();
    assert!(!snark::verify(&pk.vk, &bad, &public).unwrap());

    // Tamper with each public input in turn.
    for i in 0..public.len() {
        let mut p = public.clone();
        p[i] += Fr::one();
        assert!(!snark::verify(&pk.vk, &proof, &p).unwrap(), "input {i}");
    }
    // Wrong number of public inputs is an error, not a silent FAILED.
    assert!(matches!(
        snark::verify(&pk.vk, &proof, &public[1..]),
        Err(Error::Invalid(_))
    ));
}

#[test]
fn unsatisfying_witness_gives_no_proof() {
    let (r1cs, mut w) = cubic();
    let pk = snark::setup(&r1cs, &mut rng(7)).unwrap();
    w[2] = Fr::from(4u64); // x changed, x^2 not recomputed: constraint 0 breaks
    match snark::prove(&r1cs, &w, &pk, &mut rng(8)) {
        Err(Error::Unsatisfied { index: 0, total: 3 }) => {}
        other => panic!("expected Unsatisfied at constraint 0, got {other:?}"),
    }
    // A claimed output that does not match breaks the last constraint.
    let (_, mut w) = cubic();
    w[1] = Fr::from(36u64);
    assert!(matches!(
        snark::prove(&r1cs, &w, &pk, &mut rng(8)),
        Err(Error::Unsatisfied { index: 2, .. })
    ));
}

#[test]
fn key_for_another_circuit_is_rejected() {
    let (r1cs, w) = cubic();
    let (other, _) = synthetic::<Fr, _>(20, 2, &mut rng(9));
    let pk = snark::setup(&other, &mut rng(10)).unwrap();
    assert!(matches!(
        snark::prove(&r1cs, &w, &pk, &mut rng(11)),
        Err(Error::Invalid(_))
    ));
}

#[test]
fn witness_by_label_is_mapped_through_the_wire_map() {
    let (mut r1cs, w) = cubic();
    // Labels are a permutation plus two labels without a wire (optimised-away signals).
    let map = [0u64, 3, 6, 1, 4];
    r1cs.wire_to_label = Some(map.to_vec());
    r1cs.n_labels = 7;
    let mut by_label = vec![Fr::from(0u64); 7];
    for (wire, &label) in map.iter().enumerate() {
        by_label[label as usize] = w[wire];
    }
    let parsed = R1cs::<Fr>::parse(Path::new("m.r1cs"), &r1cs_bytes(&r1cs)).unwrap();
    assert_eq!(parsed.assignment(by_label, Path::new("m.wtns")).unwrap(), w);
}

fn format_error(result: Result<impl std::fmt::Debug, Error>) -> String {
    match result {
        Err(e @ Error::Format { .. }) => e.to_string(),
        other => panic!("expected a format error, got {other:?}"),
    }
}

#[test]
fn malformed_r1cs_names_file_and_expectation() {
    let (r1cs, _) = cubic();
    let good = r1cs_bytes(&r1cs);
    let path = Path::new("dir/circuit.r1cs");
    let parse = |b: &[u8]| format_error(R1cs::<Fr>::parse(path, b));

    // Every truncation is caught and names the file.
    for len in [0, 3, 7, 11, 20, good.len() / 2, good.len() - 1] {
        let msg = parse(&good[..len]);
        assert!(msg.starts_with("dir/circuit.r1cs: "), "{msg}");
        assert!(
            msg.contains("truncated") || msg.contains("no "),
            "{len}: {msg}"
        );
    }
    assert!(parse(b"wtns\x01\0\0\0\0\0\0\0").contains("expected magic \"r1cs\""));

    let mut bad_version = good.clone();
    bad_version[4] = 9;
    assert!(parse(&bad_version).contains("unsupported R1CS version 9"));

    // Header section comes after the constraints section; find it by its type.
    let constraints_len = u64::from_le_bytes(good[16..24].try_into().unwrap()) as usize;
    let header = 24 + constraints_len + 12;
    let mut bad_prime = good.clone();
    bad_prime[header + 4] ^= 1;
    assert!(parse(&bad_prime).contains("not the BN254 scalar field modulus"));

    // First term of the first constraint refers to wire 2; make it 99.
    let mut bad_wire = good.clone();
    bad_wire[24 + 4..24 + 8].copy_from_slice(&99u32.to_le_bytes());
    let msg = parse(&bad_wire);
    assert!(
        msg.contains("wire index 99 out of range") && msg.contains("constraint 0"),
        "{msg}"
    );

    // A coefficient equal to the modulus is not canonical.
    let mut bad_coeff = good.clone();
    let modulus = good[header + 4..header + 36].to_vec();
    bad_coeff[24 + 8..24 + 40].copy_from_slice(&modulus);
    assert!(parse(&bad_coeff).contains("not reduced"));

    let mut extra = good.clone();
    extra.push(0);
    assert!(parse(&extra).contains("unexpected bytes after the last"));
}

#[test]
fn malformed_wtns_names_file_and_expectation() {
    let (r1cs, w) = cubic();
    let good = wtns_bytes(&w);
    let path = Path::new("w/witness.wtns");
    for len in [0, 5, 30, good.len() - 1] {
        let msg = format_error(parse_wtns::<Fr>(path, &good[..len]));
        assert!(msg.starts_with("w/witness.wtns: "), "{msg}");
        assert!(msg.contains("truncated"), "{len}: {msg}");
    }
    // A witness for another circuit (wrong length) is refused by the R1CS.
    let short = parse_wtns::<Fr>(path, &wtns_bytes(&w[..4])).unwrap();
    let msg = format_error(r1cs.assignment(short, path));
    assert!(msg.contains("does not belong to this circuit"), "{msg}");
    // Wire 0 must be the constant one.
    let mut not_one = w.clone();
    not_one[0] = Fr::from(2u64);
    let msg = format_error(r1cs.assignment(not_one, path));
    assert!(msg.contains("wire 0 must be the constant 1"), "{msg}");
}

#[test]
fn public_json_round_trips_and_rejects_non_canonical() {
    let values = vec![Fr::from(0u64), Fr::from(35u64), -Fr::one()];
    let path = Path::new("public.json");
    let text = snark::public_json(&values);
    assert_eq!(snark::parse_public_json(path, &text).unwrap(), values);
    // The modulus itself, a leading zero, a number instead of a string: all rejected.
    let modulus = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
    for bad in [
        format!("[\"{modulus}\"]"),
        "[\"035\"]".to_string(),
        "[35]".to_string(),
        "[\"-1\"]".to_string(),
    ] {
        let msg = format_error(snark::parse_public_json(path, &bad));
        assert!(msg.starts_with("public.json: "), "{msg}");
    }
}
