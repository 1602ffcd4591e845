//! The MSP.B circuit under halo2's MockProver: the honest statement is satisfied, and each way
//! of cheating leaves some constraint unsatisfied. The real prover's tests (a proof verifies,
//! and fails on a changed public input) take minutes and are `#[ignore]`d: run them with
//! `cargo test --release -p mithril --test circuit -- --ignored`; the benchmark checks the
//! same for every proof it makes.

use halo2_base::gates::flex_gate::GateChip;
use halo2_base::halo2_proofs::halo2curves::bn256::{Fr, G1Affine, G1};
use halo2_base::halo2_proofs::halo2curves::ff::{Field, PrimeField};
use halo2_base::halo2_proofs::halo2curves::group::Curve;
use halo2_base::poseidon::hasher::{spec::OptimizedPoseidonSpec, PoseidonHasher};
use halo2_base::Context;
use mithril::circuit::bn254::{self, Signing};
use mithril::circuit::relation::Statement;
use mithril::circuit::{poseidon, proof, Shape};
use rand_chacha::ChaCha20Rng;
use rand_core::{OsRng, RngCore, SeedableRng};

fn rng() -> ChaCha20Rng {
    let mut seed = [0u8; 32];
    OsRng.fill_bytes(&mut seed);
    ChaCha20Rng::from_seed(seed)
}

/// Large enough for n ≤ 2 (about 3.5 M advice cells: 7 columns of 2^19 rows).
fn shape() -> Shape {
    Shape::with_k(19)
}

#[test]
fn native_poseidon_matches_the_circuits() {
    let mut r = rng();
    let gate = GateChip::<Fr>::default();
    for len in 0..9 {
        let inputs: Vec<Fr> = (0..len).map(|_| Fr::random(&mut r)).collect();
        let mut ctx = Context::<Fr>::new(false, 0, "poseidon", 0, Default::default());
        let mut h = PoseidonHasher::<Fr, 3, 2>::new(OptimizedPoseidonSpec::new::<8, 57, 0>());
        h.initialize_consts(&mut ctx, &gate);
        let cells = ctx.assign_witnesses(inputs.clone());
        let circuit = *h.hash_fix_len_array(&mut ctx, &gate, &cells).value();
        assert_eq!(poseidon::hash(&inputs), circuit, "length {len}");
    }
    assert_ne!(poseidon::hash(&[]), poseidon::hash(&[Fr::ZERO]));
}

#[test]
fn bn254_msp_verifies_natively_and_splits_weights() {
    let mut r = rng();
    let s = Signing::new(3, b"m", &mut r);
    for (k, sig) in s.signers.iter().zip(&s.signatures) {
        assert!(bn254::verify(&s.message_point, &k.vk, sig));
        assert!(!bn254::verify(&bn254::message_point(b"n"), &k.vk, sig));
    }
    let e = bn254::weights(&s.signatures);
    let ivk = bn254::aggregate_keys(&s.keys(), &e);
    let mu = bn254::aggregate_signatures(&s.signatures, &e);
    assert!(bn254::verify(&s.message_point, &ivk, &mu));
    let seed = bn254::signature_seed(&s.signatures);
    for (i, w) in e.iter().enumerate() {
        let d = bn254::weight_digest(&seed, i);
        let back = Fr::from_u128(bn254::high_bits(&d)) * Fr::from_u128(1u128 << 64).square()
            + Fr::from_u128(*w);
        assert_eq!(back, d);
    }
}

/// One MockProver at a time: each holds about 4 GB.
static MOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn satisfied(st: &Statement) -> bool {
    let _one = MOCK.lock().unwrap_or_else(|e| e.into_inner());
    proof::mock_check(st, &shape(), st.instances()).is_ok()
}

/// The honest statement of `n` signers of `message`, changed by `cheat`, is unsatisfied.
fn unsatisfied_after(n: usize, message: &[u8], cheat: impl FnOnce(&mut Statement)) {
    let mut st = Statement::honest(&Signing::new(n, message, &mut rng()));
    cheat(&mut st);
    assert!(!satisfied(&st));
}

#[test]
fn honest_statements_are_satisfied() {
    let mut r = rng();
    for n in [1, 2] {
        let st = Statement::honest(&Signing::new(n, b"honest", &mut r));
        assert!(satisfied(&st), "n = {n}");
    }
}

/// A weight that is not the hash's: the prover's split hint for e_2 is changed (and the claimed
/// aggregate made with that weight, so that only the weight's derivation can catch it).
#[test]
fn a_wrong_weight_is_unsatisfied() {
    unsatisfied_after(2, b"w", |st| {
        let mut e = bn254::weights(&st.signatures);
        e[1] = e[1].wrapping_add(1);
        st.weight_hint = Some((1, e[1], None));
        st.aggregate = bn254::aggregate_signatures(&st.signatures, &e);
    });
}

/// The other split of the same digest, d + r = lo' + 2^128·hi' (it exists when d + r < 2^254):
/// the recomposition holds in the field, only the canonicity check refuses it.
#[test]
fn a_non_canonical_weight_split_is_unsatisfied() {
    let mut r = rng();
    let r_plus = |d: &Fr| -> Option<(u128, u128)> {
        // d + r as a 256-bit integer, from d's limbs and r = −1 + 1.
        let mut sum = [0u64; 5];
        let add = |acc: &mut [u64; 5], x: &[u8]| {
            let mut carry = 0u128;
            for (i, a) in acc.iter_mut().enumerate().take(4) {
                let w = u64::from_le_bytes(x[8 * i..8 * i + 8].try_into().unwrap()) as u128;
                let s = *a as u128 + w + carry;
                *a = s as u64;
                carry = s >> 64;
            }
            acc[4] += carry as u64;
        };
        add(&mut sum, d.to_repr().as_ref());
        add(&mut sum, (-Fr::ONE).to_repr().as_ref());
        add(&mut sum, Fr::ONE.to_repr().as_ref());
        let hi = sum[2] as u128 | (sum[3] as u128) << 64;
        (sum[4] == 0 && hi < 1u128 << 126).then(|| (sum[0] as u128 | (sum[1] as u128) << 64, hi))
    };
    let (st, index, lo, hi) = loop {
        let signing = Signing::new(2, b"split", &mut r);
        let st = Statement::honest(&signing);
        let seed = bn254::signature_seed(&st.signatures);
        if let Some((i, (lo, hi))) =
            (0..2).find_map(|i| r_plus(&bn254::weight_digest(&seed, i)).map(|x| (i, x)))
        {
            break (st, i, lo, hi);
        }
    };
    let mut st = st;
    let mut e = bn254::weights(&st.signatures);
    e[index] = lo;
    st.weight_hint = Some((index, lo, Some(hi)));
    st.aggregate = bn254::aggregate_signatures(&st.signatures, &e);
    assert!(!satisfied(&st));
}

/// A signature that is not sk·H(m) (σ_1 + g1, a valid curve point), with the aggregate made
/// honestly from the signatures given: only the BLS check can catch it.
#[test]
fn a_wrong_signature_is_unsatisfied() {
    let mut r = rng();
    let mut signing = Signing::new(2, b"s", &mut r);
    signing.signatures[0] = (signing.signatures[0] + G1Affine::generator()).to_affine();
    let st = Statement::honest(&signing);
    assert!(!satisfied(&st));
}

/// The public aggregate changed.
#[test]
fn a_wrong_aggregate_is_unsatisfied() {
    unsatisfied_after(1, b"a", |st| {
        st.aggregate = (st.aggregate + G1Affine::generator()).to_affine();
    });
}

/// Signatures σ1 + D, σ2 − D: their plain sum is valid, the weighted one is not.
#[test]
fn cancelled_signatures_are_unsatisfied() {
    let mut r = rng();
    let mut signing = Signing::new(2, b"c", &mut r);
    let plain_before = (signing.signatures[0] + signing.signatures[1]).to_affine();
    let d = (G1::generator() * Fr::random(&mut r)).to_affine();
    signing.signatures[0] = (signing.signatures[0] + d).to_affine();
    signing.signatures[1] = (signing.signatures[1] - d).to_affine();
    assert_eq!(
        (signing.signatures[0] + signing.signatures[1]).to_affine(),
        plain_before
    );
    let st = Statement::honest(&signing);
    assert!(!satisfied(&st));
}

/// Keys other than the committed ones.
#[test]
fn a_wrong_key_commitment_is_unsatisfied() {
    unsatisfied_after(1, b"k", |st| st.key_commitment += Fr::ONE);
}

#[test]
#[ignore = "a real proof: a few minutes of CPU and about 3 GB"]
fn a_real_proof_verifies_and_fails_on_a_changed_public_input() {
    let mut r = rng();
    let shape = shape();
    let st = Statement::honest(&Signing::new(1, b"real", &mut r));
    let srs = proof::setup(shape.k, &mut r);
    let keys = proof::keygen(&srs, &st, &shape).unwrap();
    let circuit = proof::witness(&keys, &st, &shape);
    let pf = proof::prove(&srs, &keys, circuit, &st.instances(), &mut r).unwrap();
    assert!(proof::verify(&srs, keys.vk(), &st.instances(), &pf));
    for i in 0..st.instances().len() {
        let mut bad = st.instances();
        bad[i] += Fr::ONE;
        assert!(!proof::verify(&srs, keys.vk(), &bad, &pf), "instance {i}");
    }
    let mut flipped = pf.clone();
    flipped[pf.len() / 2] ^= 1;
    assert!(!proof::verify(&srs, keys.vk(), &st.instances(), &flipped));
}
