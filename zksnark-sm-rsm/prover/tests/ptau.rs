//! `zksnark-prover ptau` end to end: the file's sections, the powers' pairing relations, the
//! Lagrange bases against the powers, the contribution record, the seed, refusals. (snarkjs's
//! own verifier judges the same files in `npm test`, test/ptau.test.mjs.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ark_bn254::{Bn254, Fq, Fq2, Fr, G1Affine, G1Projective, G2Affine};
use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::{BigInt, FftField, Field};

const SEED: &str = "0f0e0d0c0b0a09080706050403020100000102030405060708090a0b0c0d0e0f";

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Self {
        let d = std::env::temp_dir().join(format!("zksnark-ptau-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn ptau(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zksnark-prover"))
        .arg("ptau")
        .args(args)
        .output()
        .expect("binary runs")
}

fn generate(out: &Path, power: u32, seed: Option<&str>) -> serde_json::Value {
    let mut args = vec![
        "--power".to_string(),
        power.to_string(),
        "--out".into(),
        out.to_string_lossy().into_owned(),
        "--threads".into(),
        "1".into(),
    ];
    if let Some(s) = seed {
        args.extend(["--seed".into(), s.into()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = ptau(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("a JSON summary on stdout")
}

/// Section type -> body.
fn sections(bytes: &[u8]) -> Vec<(u32, &[u8])> {
    assert_eq!(&bytes[..4], b"ptau");
    assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 1);
    let count = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    let mut pos = 12;
    let mut out = Vec::new();
    for _ in 0..count {
        let ty = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap());
        let size = u64::from_le_bytes(bytes[pos + 4..pos + 12].try_into().unwrap()) as usize;
        out.push((ty, &bytes[pos + 12..pos + 12 + size]));
        pos += 12 + size;
    }
    assert_eq!(pos, bytes.len());
    out
}

fn fq(b: &[u8]) -> Fq {
    let limbs =
        std::array::from_fn(|i| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap()));
    Fq::new_unchecked(BigInt(limbs))
}

fn g1s(b: &[u8]) -> Vec<G1Affine> {
    b.chunks_exact(64)
        .map(|c| {
            let p = G1Affine::new_unchecked(fq(&c[..32]), fq(&c[32..]));
            assert!(p.is_on_curve());
            p
        })
        .collect()
}

fn g2s(b: &[u8]) -> Vec<G2Affine> {
    b.chunks_exact(128)
        .map(|c| {
            let x = Fq2::new(fq(&c[..32]), fq(&c[32..64]));
            let y = Fq2::new(fq(&c[64..96]), fq(&c[96..]));
            let p = G2Affine::new_unchecked(x, y);
            assert!(p.is_on_curve() && p.is_in_correct_subgroup_assuming_on_curve());
            p
        })
        .collect()
}

#[test]
fn the_file_holds_consistent_powers_and_lagrange_bases() {
    let dir = Dir::new("consistent");
    let power = 4u32;
    let n = 1usize << power;
    let file = dir.0.join("pot.ptau");
    let summary = generate(&file, power, Some(SEED));
    assert_eq!(summary["power"], power);
    assert_eq!(summary["participants"], 1);
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(summary["bytes"], bytes.len());
    let s = sections(&bytes);
    let types: Vec<u32> = s.iter().map(|(t, _)| *t).collect();
    assert_eq!(types, [1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15]);
    let [tau_g1, alpha_g1, beta_g1] = [2, 4, 5].map(|i| g1s(s[i - 1].1));
    let tau_g2 = g2s(s[2].1);
    let beta_g2 = g2s(s[5].1);
    assert_eq!(
        (tau_g1.len(), tau_g2.len(), alpha_g1.len()),
        (2 * n - 1, n, n)
    );
    assert_eq!(tau_g1[0], G1Affine::generator());
    assert_eq!(tau_g2[0], G2Affine::generator());
    let e = |a: G1Affine, b: G2Affine| Bn254::pairing(a, b);
    // Each power is the previous one times tau, in both groups and in the alpha and beta rows.
    for i in 1..2 * n - 1 {
        assert_eq!(
            e(tau_g1[i], tau_g2[0]),
            e(tau_g1[i - 1], tau_g2[1]),
            "tau G1 {i}"
        );
    }
    for i in 1..n {
        assert_eq!(
            e(tau_g1[0], tau_g2[i]),
            e(tau_g1[1], tau_g2[i - 1]),
            "tau G2 {i}"
        );
        assert_eq!(
            e(alpha_g1[i], tau_g2[0]),
            e(alpha_g1[i - 1], tau_g2[1]),
            "alpha {i}"
        );
        assert_eq!(
            e(beta_g1[i], tau_g2[0]),
            e(beta_g1[i - 1], tau_g2[1]),
            "beta {i}"
        );
    }
    assert_eq!(
        e(beta_g1[0], tau_g2[0]),
        e(tau_g1[0], beta_g2[0]),
        "beta in G1 and G2"
    );
    // The contribution record repeats tau G1, tau G2, alpha G1, beta G1, beta G2.
    let c = s[6].1;
    assert_eq!(
        u32::from_le_bytes(c[..4].try_into().unwrap()),
        1,
        "one contribution"
    );
    assert_eq!(g1s(&c[4..68])[0], tau_g1[1]);
    assert_eq!(g2s(&c[68..196])[0], tau_g2[1]);
    assert_eq!(g1s(&c[196..260])[0], alpha_g1[0]);
    // Every Lagrange basis of size 2^p interpolates the powers: sum_j L_j w^(ij) = tau^i.
    let lagrange = g1s(s[7].1);
    assert_eq!(lagrange.len(), (4 << power) - 1);
    let lagrange_alpha = g1s(s[9].1);
    for p in 0..=power {
        let size = 1usize << p;
        let basis = &lagrange[size - 1..2 * size - 1];
        let w = Fr::get_root_of_unity(size as u64).unwrap();
        for i in [0, size - 1] {
            let coeffs: Vec<Fr> = (0..size).map(|j| w.pow([(i * j) as u64])).collect();
            let sum = G1Projective::msm(basis, &coeffs).unwrap().into_affine();
            assert_eq!(sum, tau_g1[i], "Lagrange 2^{p}, power {i}");
            let sum = G1Projective::msm(&lagrange_alpha[size - 1..2 * size - 1], &coeffs).unwrap();
            assert_eq!(
                sum.into_affine(),
                alpha_g1[i],
                "alpha Lagrange 2^{p}, power {i}"
            );
        }
    }
    let g2_lagrange = g2s(s[8].1);
    assert_eq!(
        g2_lagrange[n - 1..2 * n - 1]
            .iter()
            .fold(ark_bn254::G2Projective::default(), |a, b| a + b)
            .into_affine(),
        G2Affine::generator(),
        "the Lagrange basis of G2 sums to 1"
    );
}

#[test]
fn one_seed_gives_one_file_and_bad_input_is_refused() {
    let dir = Dir::new("seed");
    let [a, b, c] = ["a", "b", "c"].map(|f| dir.0.join(format!("{f}.ptau")));
    generate(&a, 3, Some(SEED));
    generate(&b, 3, Some(SEED));
    let fresh = generate(&c, 3, None);
    assert_eq!(fresh["seeded"], false);
    let read = |p: &Path| std::fs::read(p).unwrap();
    assert_eq!(read(&a), read(&b));
    assert_ne!(read(&a), read(&c));
    for (args, message) in [
        (vec!["--power", "0"], "--power must be between 1 and 27"),
        (vec!["--power", "28"], "--power must be between 1 and 27"),
        (
            vec!["--power", "3", "--seed", "12"],
            "64 hexadecimal digits",
        ),
    ] {
        let out = dir.0.join("refused.ptau");
        let mut all = args.clone();
        all.extend(["--out", out.to_str().unwrap()]);
        let r = ptau(&all);
        assert_eq!(r.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&r.stderr).contains(message),
            "{args:?}"
        );
        assert!(!out.exists());
    }
    // An output that is a directory is refused before any work.
    let r = ptau(&["--power", "3", "--out", dir.0.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("is a directory"));
}
