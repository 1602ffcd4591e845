//! Correctness gates of the pairing-based scheme: honest proofs verify, every kind of wrong
//! input is rejected, updates equal fresh computations, batches agree with single proofs.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use veccom::pairing::*;
use veccom::Error;

fn values(n: usize, rng: &mut ChaCha20Rng) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let mut v = vec![0u8; 32];
            rng.fill_bytes(&mut v);
            v
        })
        .collect()
}

fn fixture(n: usize, seed: u8) -> (ProverParams, VerifierParams, Vec<Vec<u8>>, ChaCha20Rng) {
    let mut rng = ChaCha20Rng::from_seed([seed; 32]);
    let (pp, vp) = setup(n, &mut rng).unwrap();
    let v = values(n, &mut rng);
    (pp, vp, v, rng)
}

#[test]
fn every_honest_proof_verifies_and_wrong_inputs_are_rejected() {
    for n in [1usize, 2, 17] {
        let (pp, vp, v, _) = fixture(n, n as u8);
        let c = commit(&pp, &v).unwrap();
        for i in 0..n {
            let p = prove(&pp, &v, i).unwrap();
            assert!(verify(&vp, &c, i, &v[i], &p), "n={n} i={i}");
            // A wrong value.
            assert!(!verify(&vp, &c, i, b"another value", &p));
            // A wrong index (also one past the end).
            if n > 1 {
                assert!(!verify(&vp, &c, (i + 1) % n, &v[i], &p));
            }
            assert!(!verify(&vp, &c, n, &v[i], &p));
        }
    }
}

#[test]
fn tampered_proofs_and_commitments_are_rejected() {
    let (pp, vp, v, _) = fixture(12, 3);
    let c = commit(&pp, &v).unwrap();
    let p = prove(&pp, &v, 4).unwrap();
    // Another valid point as the proof: the proof of a different position.
    let other = prove(&pp, &v, 5).unwrap();
    assert!(!verify(&vp, &c, 4, &v[4], &other));
    // One bit flipped in the encoding: either not a point of G1, or a different point.
    for byte in [0usize, 20, 47] {
        let mut b = p.to_bytes();
        b[byte] ^= 0x01;
        if let Ok(q) = Proof::from_bytes(&b) {
            assert!(!verify(&vp, &c, 4, &v[4], &q), "byte {byte}");
        }
    }
    // The point at infinity as a proof.
    let mut inf = [0u8; 48];
    inf[0] = 0xc0;
    let zero = Proof::from_bytes(&inf).unwrap();
    assert!(!verify(&vp, &c, 4, &v[4], &zero));
    // A commitment to a different vector.
    let mut w = v.clone();
    w[7][0] ^= 1;
    let c2 = commit(&pp, &w).unwrap();
    assert!(!verify(&vp, &c2, 4, &v[4], &p));
    // Garbage bytes do not decode.
    assert!(Proof::from_bytes(&[0xff; 48]).is_err());
    assert!(Commitment::from_bytes(&[0x12; 48]).is_err());
    // Encodings round-trip.
    assert_eq!(Commitment::from_bytes(&c.to_bytes()).unwrap(), c);
    assert_eq!(Proof::from_bytes(&p.to_bytes()).unwrap(), p);
    assert_eq!(c.to_bytes().len(), 48);
}

#[test]
fn updates_equal_fresh_commitments_and_proofs() {
    let (pp, vp, mut v, mut rng) = fixture(20, 9);
    let mut c = commit(&pp, &v).unwrap();
    let mut proofs: Vec<Proof> = (0..20).map(|i| prove(&pp, &v, i).unwrap()).collect();
    for round in 0..4 {
        let i = (rng.next_u32() % 20) as usize;
        let mut new = vec![0u8; 32];
        rng.fill_bytes(&mut new);
        c = commit_update(&pp, &c, i, &v[i], &new).unwrap();
        for (j, p) in proofs.iter_mut().enumerate() {
            *p = proof_update(&pp, p, j, i, &v[i], &new).unwrap();
        }
        v[i] = new;
        assert_eq!(c, commit(&pp, &v).unwrap(), "round {round}");
        for (j, p) in proofs.iter().enumerate() {
            assert_eq!(*p, prove(&pp, &v, j).unwrap(), "round {round} proof {j}");
            assert!(verify(&vp, &c, j, &v[j], p));
        }
    }
    // An update with the wrong old value gives a commitment that no longer matches.
    let bad = commit_update(&pp, &c, 2, b"not the old value", b"x").unwrap();
    let mut w = v.clone();
    w[2] = b"x".to_vec();
    assert_ne!(bad, commit(&pp, &w).unwrap());
}

#[test]
fn batches_verify_and_reject_any_wrong_member() {
    let (pp, vp, v, _) = fixture(16, 21);
    let c = commit(&pp, &v).unwrap();
    let s = [3usize, 0, 11, 7];
    let pb = prove_batch(&pp, &c, &v, &s).unwrap();
    let items: Vec<(usize, &[u8])> = s.iter().map(|&i| (i, v[i].as_slice())).collect();
    assert!(verify_batch(&vp, &c, &items, &pb));
    // Aggregating the single proofs gives the same 48 bytes.
    let singles: Vec<(usize, &[u8], Proof)> = s
        .iter()
        .map(|&i| (i, v[i].as_slice(), prove(&pp, &v, i).unwrap()))
        .collect();
    assert_eq!(aggregate(16, &c, &singles).unwrap(), pb);
    // One wrong value, one wrong position, a missing or an extra member: rejected.
    let mut wrong = items.clone();
    wrong[2].1 = b"wrong";
    assert!(!verify_batch(&vp, &c, &wrong, &pb));
    let mut moved = items.clone();
    moved[1].0 = 5;
    assert!(!verify_batch(&vp, &c, &moved, &pb));
    assert!(!verify_batch(&vp, &c, &items[..3], &pb));
    let mut extra = items.clone();
    extra.push((9, v[9].as_slice()));
    assert!(!verify_batch(&vp, &c, &extra, &pb));
    // A tampered combined proof, and a single proof passed off as the batch proof.
    assert!(!verify_batch(&vp, &c, &items, &singles[0].2));
    // Duplicates and out-of-range positions are refused up front.
    assert!(matches!(
        prove_batch(&pp, &c, &v, &[1, 1]),
        Err(Error::DuplicateIndex(1))
    ));
    assert!(matches!(
        prove_batch(&pp, &c, &v, &[16]),
        Err(Error::IndexOutOfRange { index: 16, n: 16 })
    ));
    let dup = vec![(1usize, v[1].as_slice()), (1, v[1].as_slice())];
    assert!(!verify_batch(&vp, &c, &dup, &pb));
    // A batch of one position verifies like a single proof.
    let one = prove_batch(&pp, &c, &v, &[6]).unwrap();
    assert!(verify_batch(&vp, &c, &[(6, v[6].as_slice())], &one));
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let mut rng = ChaCha20Rng::from_seed([1; 32]);
    assert!(matches!(
        setup(0, &mut rng),
        Err(Error::InvalidParameters(_))
    ));
    let (pp, _, v, _) = fixture(4, 5);
    assert!(matches!(
        commit(&pp, &v[..3]),
        Err(Error::WrongLength {
            expected: 4,
            got: 3
        })
    ));
    assert!(matches!(
        prove(&pp, &v, 4),
        Err(Error::IndexOutOfRange { .. })
    ));
    let c = commit(&pp, &v).unwrap();
    assert!(matches!(
        commit_update(&pp, &c, 9, b"a", b"b"),
        Err(Error::IndexOutOfRange { .. })
    ));
}

#[test]
fn two_threads_give_the_same_results() {
    let (pp, vp, v, _) = fixture(300, 13);
    let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build();
    let (one, two) = (pool(1).unwrap(), pool(2).unwrap());
    let (c1, p1) = one.install(|| (commit(&pp, &v).unwrap(), prove(&pp, &v, 123).unwrap()));
    let (c2, p2) = two.install(|| (commit(&pp, &v).unwrap(), prove(&pp, &v, 123).unwrap()));
    assert_eq!(c1, c2);
    assert_eq!(p1, p2);
    assert!(verify(&vp, &c1, 123, &v[123], &p1));
}
