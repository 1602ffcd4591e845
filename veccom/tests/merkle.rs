//! Correctness gates of the Merkle scheme: roots and proofs equal an independent computation
//! (Python hashlib for SHA-256, the Python blake3 package for BLAKE3), honest proofs verify,
//! wrong inputs are rejected, updates equal fresh trees and proofs.

use std::path::Path;

use measure::testing::python_reference;
use veccom::merkle::*;

/// Value i of the test vectors (the same definition as `test_value` in merkle_reference.py).
fn test_value(i: usize) -> Vec<u8> {
    (0..i % 70).map(|k| ((7 * i + k) % 256) as u8).collect()
}

fn test_vector(n: usize) -> Vec<Vec<u8>> {
    (0..n).map(test_value).collect()
}

fn hex(d: &Digest) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks our roots and proofs against the reference's JSON lines.
fn check_against_reference<H: MerkleHash>(lines: &str) -> usize {
    let mut checked = 0;
    for line in lines.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["column"], H::NAME);
        let n = v["n"].as_u64().unwrap() as usize;
        let tree = MerkleTree::commit(&H::for_length(n), &test_vector(n)).unwrap();
        assert_eq!(
            hex(&tree.root()),
            v["root"].as_str().unwrap(),
            "{} root, n = {n}",
            H::NAME
        );
        for (i, want) in v["proofs"].as_object().unwrap() {
            let i: usize = i.parse().unwrap();
            let got: Vec<String> = tree.prove(i).unwrap().iter().map(hex).collect();
            let want: Vec<String> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
                .collect();
            assert_eq!(got, want, "{} proof of {i}, n = {n}", H::NAME);
        }
        checked += 1;
    }
    checked
}

#[test]
fn sha256_roots_and_proofs_equal_python_hashlib() {
    let args = [
        "--column", "sha256", "1", "2", "3", "5", "8", "13", "100", "1000", "1025",
    ];
    let out = python_reference(env!("CARGO_MANIFEST_DIR"), "merkle_reference.py", &args);
    let n = check_against_reference::<Sha256Hasher>(&out);
    assert_eq!(n, 9);
}

#[test]
fn blake3_roots_and_proofs_equal_the_python_blake3_vectors() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/merkle-blake3.jsonl");
    let lines = std::fs::read_to_string(data).unwrap();
    assert_eq!(check_against_reference::<Blake3Hasher>(&lines), 8);
}

fn honest_and_dishonest<H: MerkleHash>() {
    for n in [1usize, 2, 7, 13, 64] {
        let hasher = H::for_length(n);
        let v = test_vector(n);
        let tree = MerkleTree::commit(&hasher, &v).unwrap();
        let root = tree.root();
        for i in 0..n {
            let p = tree.prove(i).unwrap();
            assert_eq!(p.len(), depth(n));
            assert!(verify(&hasher, &root, n, i, &v[i], &p), "n={n} i={i}");
            assert!(!verify(&hasher, &root, n, i, b"wrong value", &p));
            if n > 1 {
                assert!(!verify(&hasher, &root, n, (i + 1) % n, &v[i], &p));
                let mut t = p.clone();
                t[i % p.len()][5] ^= 0x10;
                assert!(!verify(&hasher, &root, n, i, &v[i], &t));
                assert!(!verify(&hasher, &root, n, i, &v[i], &p[1..]));
            }
            let mut longer = p.clone();
            longer.push([0; 32]);
            assert!(!verify(&hasher, &root, n, i, &v[i], &longer));
            assert!(!verify(&hasher, &root, n, n + i, &v[i], &p));
        }
        // A tree of another length does not verify against this root.
        if n > 1 {
            let other = H::for_length(n + 1);
            assert!(!verify(
                &other,
                &root,
                n + 1,
                0,
                &v[0],
                &tree.prove(0).unwrap()
            ));
        }
    }
}

#[test]
fn honest_proofs_verify_and_wrong_inputs_are_rejected() {
    honest_and_dishonest::<Sha256Hasher>();
    honest_and_dishonest::<Blake3Hasher>();
}

fn updates_match_fresh<H: MerkleHash>() {
    let n = 37;
    let hasher = H::for_length(n);
    let mut v = test_vector(n);
    let mut tree = MerkleTree::commit(&hasher, &v).unwrap();
    let mut proofs: Vec<Vec<Digest>> = (0..n).map(|i| tree.prove(i).unwrap()).collect();
    let mut no_hint = proofs.clone();
    let mut root = tree.root();
    for (round, i) in [5usize, 36, 0, 5, 20].into_iter().enumerate() {
        let new = format!("new value {round}").into_bytes();
        // Without the tree: the new root from the helper path.
        let (new_root, hint) = commit_update(&hasher, i, &new, &proofs[i]);
        // With the tree: rehash one path.
        let tree_root = tree.update(i, &new).unwrap();
        assert_eq!(new_root, tree_root);
        for (j, p) in no_hint.iter_mut().enumerate() {
            proof_update(&hasher, p, j, i, &new, &proofs[i]);
        }
        for (j, p) in proofs.iter_mut().enumerate() {
            proof_update_with_hint(p, j, &hint);
        }
        v[i] = new;
        root = new_root;
        let fresh = MerkleTree::commit(&hasher, &v).unwrap();
        assert_eq!(root, fresh.root(), "round {round}");
        for j in 0..n {
            let want = fresh.prove(j).unwrap();
            assert_eq!(proofs[j], want, "hint, round {round}, proof {j}");
            assert_eq!(no_hint[j], want, "no hint, round {round}, proof {j}");
            assert_eq!(tree.prove(j).unwrap(), want);
        }
    }
    assert!(verify(&hasher, &root, n, 20, &v[20], &proofs[20]));
    assert!(tree.update(n, b"x").is_err());
    assert!(tree.prove(n).is_err());
}

#[test]
fn updates_equal_fresh_trees_and_proofs() {
    updates_match_fresh::<Sha256Hasher>();
    updates_match_fresh::<Blake3Hasher>();
}

#[test]
fn two_threads_build_the_same_tree() {
    let n = 20_000;
    let v = test_vector(n);
    let hasher = Sha256Hasher::for_length(n);
    let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build();
    let (one, two) = (pool(1).unwrap(), pool(2).unwrap());
    let a = one.install(|| MerkleTree::commit(&hasher, &v).unwrap());
    let b = two.install(|| MerkleTree::commit(&hasher, &v).unwrap());
    assert_eq!(a.root(), b.root());
    assert_eq!(a.prove(12_345).unwrap(), b.prove(12_345).unwrap());
    let empty: Vec<Vec<u8>> = vec![];
    assert!(MerkleTree::commit(&hasher, &empty).is_err());
}
