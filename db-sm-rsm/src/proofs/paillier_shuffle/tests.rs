//! The shuffle proof's completeness and soundness tests: each tampered value or false statement is rejected.

use super::prove::{prove_equal_exponents, prove_reencryption, Common};
use super::*;
use crate::primitives::bigint::from_hex;
use crate::primitives::security::{Security, SecurityLevel};
use crate::primitives::thpaillier::ThresholdKey;
use crate::proofs::perm::commit_perm_random;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

struct Setup<E: Pairing> {
    gens: Generators<E>,
    ck: CommitmentKey<E>,
    a: PermCommitment<E>,
    perm: Permutation,
    s: Vec<E::ScalarField>,
    pk: ThresholdPublicKey,
    fo: FoKey,
    input: Vec<Integer>,
    output: Vec<Integer>,
    rho: Vec<Integer>,
}

impl<E: Pairing> Setup<E> {
    fn new(n: usize, seed: u64) -> Self {
        Self::with_key(n, seed, false)
    }

    fn with_key(n: usize, seed: u64, paper_size: bool) -> Self {
        Self::with_security(n, seed, paper_size, Security::default())
    }

    fn with_security(n: usize, seed: u64, paper_size: bool, security: Security) -> Self {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let gens = Generators::<E>::with_security(&mut rng, security);
        let ck = CommitmentKey::new(&gens, n, &mut rng);
        let perm = Permutation::random(n, &mut rng);
        let (a, s) = commit_perm_random(&gens, &ck, &perm, &mut rng).unwrap();
        let mut key = if paper_size {
            ThresholdKey::fixed_test_key(&mut rng, 2)
        } else {
            ThresholdKey::fixed_small_test_key(&mut rng, 2)
        };
        key.pk.security = security;
        key.pk.build_table(6);
        let pk = key.pk;
        let fo = FoKey::new(&mut rng, &pk.n, n, pk.security.slack_bits);
        let input: Vec<Integer> = (0..n)
            .map(|i| pk.encrypt(&Integer::from(1000 + i), &mut rng).0)
            .collect();
        let rho: Vec<Integer> = (0..n).map(|_| pk.random_r(&mut rng)).collect();
        // out_j = Reenc(in_{π(j)}; ρ_{π(j)})
        let output = perm
            .pi
            .iter()
            .map(|&i| pk.reencrypt_with(&input[i], &rho[i]))
            .collect();
        Setup {
            gens,
            ck,
            a,
            perm,
            s,
            pk,
            fo,
            input,
            output,
            rho,
        }
    }

    fn statement(&self) -> ShuffleStatement<'_, E> {
        ShuffleStatement {
            gens: &self.gens,
            ck: &self.ck,
            perm_commitment: &self.a,
            pk: &self.pk,
            fo: &self.fo,
            input: &self.input,
            output: &self.output,
        }
    }

    fn prove(&self, seed: u64) -> Result<PaillierShuffleProof<E>> {
        let w = ShuffleWitness {
            perm: &self.perm,
            s: &self.s,
            rho: &self.rho,
        };
        prove_shuffle(&self.statement(), &w, &mut ChaCha20Rng::seed_from_u64(seed))
    }
}

fn completes<E: Pairing>() {
    for n in [1usize, 2, 7] {
        let su = Setup::<E>::new(n, 100 + n as u64);
        let proof = su.prove(1).unwrap();
        verify_shuffle(&su.statement(), &proof).unwrap();
        assert!(proof.size_bytes() > 0);
    }
}

fn rejects_tampering<E: Pairing>() {
    let su = Setup::<E>::new(6, 7);
    let proof = su.prove(2).unwrap();
    verify_shuffle(&su.statement(), &proof).unwrap();
    rejects_tampered_proofs(&su, &proof);
    rejects_values_out_of_range(&su, &proof);
    rejects_other_statements(&su, &proof);
}

/// One value of the proof changed: an equation fails.
fn rejects_tampered_proofs<E: Pairing>(su: &Setup<E>, proof: &PaillierShuffleProof<E>) {
    let st = su.statement();
    // The proof with one value changed by `tamper`.
    let rejects = |tamper: &dyn Fn(&mut PaillierShuffleProof<E>)| {
        let mut p = proof.clone();
        tamper(&mut p);
        verify_shuffle(&st, &p).is_err()
    };

    assert!(rejects(&|p| p.eq.d_e[0] += 1), "d_e");
    assert!(
        rejects(&|p| p.eq.d_e0 += E::ScalarField::from(1u64)),
        "d_e0"
    );
    assert!(rejects(&|p| p.eq.d_t1 += 1), "eq d_t1");
    assert!(rejects(&|p| p.eq.d_y1 += 1), "eq d_y1");
    assert!(rejects(&|p| p.renc.d_r += 1), "d_r");
    assert!(rejects(&|p| p.renc.d_t2 += 1), "renc d_t2");
    assert!(rejects(&|p| p.renc.d_y2 += 1), "renc d_y2");
    assert!(
        rejects(&|p| p.eq.cb2 = mul_mod(&p.eq.cb2, &su.pk.hn, &su.pk.n2)),
        "Cb2"
    );
    assert!(
        rejects(&|p| p.renc.cz1 = mul_mod(&p.renc.cz1, &su.fo.g, &su.fo.n)),
        "Cz1"
    );
    assert!(
        rejects(&|p| p.b1 = (p.b1 + su.gens.h1.base()).into_affine()),
        "b1"
    );
    assert!(
        rejects(&|p| p.b2 = mul_mod(&p.b2, &su.pk.hn, &su.pk.n2)),
        "b2"
    );
    assert!(
        rejects(&|p| p.eq.ca = (p.eq.ca + su.gens.h1.base()).into_affine()),
        "Ca"
    );
    assert!(
        rejects(&|p| p.eq.d_e[2] += Integer::from(1) << 300),
        "oversized d_e"
    );
}

/// The guards before the equations: ciphertexts and the mod-N² commitments units in
/// (0, N²), FO commitments units in (0, N), responses non-negative and within their mask's
/// length. Each rejection names the guard.
fn rejects_values_out_of_range<E: Pairing>(su: &Setup<E>, proof: &PaillierShuffleProof<E>) {
    let st = su.statement();
    let guard = |p: &PaillierShuffleProof<E>, st: &ShuffleStatement<'_, E>, what: &str| {
        let err = verify_shuffle(st, p).unwrap_err().to_string();
        assert!(err.contains("out of range"), "{what}: {err}");
    };
    let factor = from_hex(crate::primitives::thpaillier::fixed::P_1024);
    let n2 = &su.pk.n2;
    for (what, c) in [
        ("zero", Integer::new()),
        ("N²", n2.clone()),
        ("not a unit", factor.clone()),
    ] {
        let mut out = su.output.clone();
        out[1] = c.clone();
        let st_out = ShuffleStatement {
            output: &out,
            ..su.statement()
        };
        guard(proof, &st_out, &format!("output {what}"));
        let mut inp = su.input.clone();
        inp[4] = c.clone();
        let st_in = ShuffleStatement {
            input: &inp,
            ..su.statement()
        };
        guard(proof, &st_in, &format!("input {what}"));
        let mut p = proof.clone();
        p.b2 = c.clone();
        guard(&p, &st, &format!("b2 {what}"));
        let mut p = proof.clone();
        p.renc.cb2c = c;
        guard(&p, &st, &format!("Cb2c {what}"));
    }
    for (what, c) in [
        ("zero", Integer::new()),
        ("N", su.fo.n.clone()),
        ("not a unit", factor),
    ] {
        let mut p = proof.clone();
        p.z_t = c.clone();
        guard(&p, &st, &format!("z_t {what}"));
        let mut p = proof.clone();
        p.eq.cz1 = c.clone();
        guard(&p, &st, &format!("eq Cz1 {what}"));
        let mut p = proof.clone();
        p.renc.z1 = c;
        guard(&p, &st, &format!("renc z1 {what}"));
    }
    let len = Lengths::new::<E>(&su.pk, &su.fo);
    let long = |bits: u32| Integer::from(1) << (bits + 2);
    let mut p = proof.clone();
    p.eq.d_t1 = Integer::from(-1);
    guard(&p, &st, "negative eq d_t1");
    let mut p = proof.clone();
    p.renc.d_t2 = long(len.t);
    guard(&p, &st, "long renc d_t2");
    let mut p = proof.clone();
    p.eq.d_y1 = long(len.y);
    guard(&p, &st, "long eq d_y1");
    let mut p = proof.clone();
    p.renc.d_r = long(len.r);
    guard(&p, &st, "long d_r");
    let mut p = proof.clone();
    p.eq.d_e[5] = Integer::from(-2);
    guard(&p, &st, "negative d_e");
}

/// Statement elements: an output re-randomised, an input changed, another commitment.
fn rejects_other_statements<E: Pairing>(su: &Setup<E>, proof: &PaillierShuffleProof<E>) {
    let mut out = su.output.clone();
    out[3] = su
        .pk
        .reencrypt(&out[3], &mut ChaCha20Rng::seed_from_u64(3))
        .0;
    let st2 = ShuffleStatement {
        output: &out,
        ..su.statement()
    };
    assert!(verify_shuffle(&st2, proof).is_err(), "changed output");
    let mut inp = su.input.clone();
    inp[0] = su
        .pk
        .reencrypt(&inp[0], &mut ChaCha20Rng::seed_from_u64(4))
        .0;
    let st3 = ShuffleStatement {
        input: &inp,
        ..su.statement()
    };
    assert!(verify_shuffle(&st3, proof).is_err(), "changed input");
    let other = Permutation::random(6, &mut ChaCha20Rng::seed_from_u64(5));
    let (a2, _) =
        commit_perm_random(&su.gens, &su.ck, &other, &mut ChaCha20Rng::seed_from_u64(6)).unwrap();
    let st4 = ShuffleStatement {
        perm_commitment: &a2,
        ..su.statement()
    };
    assert!(verify_shuffle(&st4, proof).is_err(), "other commitment");
}

/// An honest prover cannot make a proof for outputs that are not a shuffle of the inputs.
fn rejects_false_statements<E: Pairing>() {
    let mut su = Setup::<E>::new(5, 9);
    // One output encrypts a different message.
    su.output[2] = su
        .pk
        .encrypt(&Integer::from(77), &mut ChaCha20Rng::seed_from_u64(1))
        .0;
    let proof = su.prove(3).unwrap();
    assert!(
        verify_shuffle(&su.statement(), &proof).is_err(),
        "wrong plaintext"
    );
    // Outputs permuted by a permutation other than the committed one.
    let mut su = Setup::<E>::new(5, 10);
    su.output.swap(0, 1);
    let proof = su.prove(4).unwrap();
    assert!(
        verify_shuffle(&su.statement(), &proof).is_err(),
        "wrong permutation"
    );
}

/// Lengths short enough for the attack below to pass the response ranges every time (8-bit
/// challenges and e⃗, 20-bit slack); with 80-bit ones it passes with probability ~2^{−57}.
const SHORT: Security = Security {
    level: SecurityLevel::Paper,
    challenge_bits: 8,
    batch_bits: 8,
    slack_bits: 20,
    pok_slack_bits: 40,
};

/// A mixer changes the plaintext of output j by q (the group order) and proves the shuffle
/// anyway: the equal-exponent sub-proof honestly, with (t1, t2); the re-encryption sub-proof
/// with t1* = t1 + q·e′_j, which absorbs the change (b2/c = (1+N)^{t1*}·H^{t2+r}) and agrees
/// with b1 mod q. Only a commitment that binds t1 as an integer in both sub-proofs at once
/// catches it.
fn split_t1_cheat<E: Pairing>(seed: u64) -> Result<()> {
    let mut su = Setup::<E>::with_security(4, seed, false, SHORT);
    let j = 2;
    let q = scalar_to_integer(&-E::ScalarField::from(1u64)) + 1u32;
    su.output[j] = su.pk.add(&su.output[j], &su.pk.one_plus_n_pow(&q));
    let w = ShuffleWitness {
        perm: &su.perm,
        s: &su.s,
        rho: &su.rho,
    };
    let st = su.statement();
    let mut rng = ChaCha20Rng::seed_from_u64(seed + 1);
    let c = Common::new(&st, &w, &mut rng)?;
    let eq = prove_equal_exponents(&st, &c, &mut rng)?;
    let cheat = Common {
        transcript: c.transcript.clone(),
        e_p: c.e_p.clone(),
        r: c.r.clone(),
        t1: &c.t1 + Integer::from(&q * &c.e_p[j]),
        t2: c.t2.clone(),
        b2: c.b2.clone(),
        c_e: c.c_e.clone(),
        z_t: c.z_t.clone(),
        y_t: c.y_t.clone(),
        ..c
    };
    let renc = prove_reencryption(&st, &cheat, &mut rng)?;
    let proof = PaillierShuffleProof {
        b1: c.b1,
        b2: c.b2.clone(),
        z_t: c.z_t.clone(),
        eq,
        renc,
    };
    verify_shuffle(&st, &proof)
}

#[test]
fn sub_proofs_bind_one_t1() {
    for seed in [21, 22, 23] {
        assert!(
            split_t1_cheat::<ark_bn254::Bn254>(seed).is_err(),
            "a shuffle with a changed plaintext was accepted (seed {seed})"
        );
    }
}

/// The 2050-bit fixed key, as in a real run: honest proof passes, a changed output fails.
#[test]
fn paper_size_key_bn254() {
    let su = Setup::<ark_bn254::Bn254>::with_key(3, 11, true);
    assert_eq!(su.pk.n.significant_bits(), 2050);
    let proof = su.prove(12).unwrap();
    verify_shuffle(&su.statement(), &proof).unwrap();
    let mut out = su.output.clone();
    out.swap(1, 2);
    let st = ShuffleStatement {
        output: &out,
        ..su.statement()
    };
    assert!(verify_shuffle(&st, &proof).is_err());
}

crate::curve_tests!(completes, rejects_tampering, rejects_false_statements);
