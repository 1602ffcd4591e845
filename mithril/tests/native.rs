//! MSP on BLS12-381: signatures, both aggregations, verification, batches, the cancellation
//! attack, and agreement with `mithril-stm` on the same keys.

use mithril::native::curve::{G1Affine, G1};
use mithril::native::msp::{
    akey, asig, batch_verify, bkey, bsig, ver, verify, weights, Aggregate, Params, Signature,
    Signing, SigningKey, VerificationKey,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{OsRng, RngCore, SeedableRng};

fn rng() -> ChaCha20Rng {
    let mut seed = [0u8; 32];
    OsRng.fill_bytes(&mut seed);
    ChaCha20Rng::from_seed(seed)
}

/// A random G1 point (a random multiple of the generator).
fn random_point(rng: &mut impl RngCore) -> G1 {
    let mut s = [0u8; 32];
    rng.fill_bytes(&mut s);
    G1::generator().mul_bits(&s, 255)
}

#[test]
fn signatures_verify_and_tampering_is_rejected() {
    let params = Params::default();
    let mut r = rng();
    let s = Signing::new(&params, 3, b"epoch 42", &mut r);
    for (k, sig) in s.keys.iter().zip(&s.signatures) {
        assert!(verify(&params, b"epoch 42", k, sig));
        assert!(!verify(&params, b"epoch 43", k, sig));
    }
    // Another signer's key, another tag, the identity.
    assert!(!verify(&params, b"epoch 42", &s.keys[1], &s.signatures[0]));
    let other = Params {
        dst: b"ANOTHER_TAG_".to_vec(),
    };
    assert!(!verify(&other, b"epoch 42", &s.keys[0], &s.signatures[0]));
    let inf = Signature(G1Affine::default());
    assert!(!verify(&params, b"epoch 42", &s.keys[0], &inf));
    // Encodings round-trip; signing keys too.
    let sk = SigningKey::from_be_bytes(&s.signers[0].to_be_bytes()).unwrap();
    assert_eq!(sk.verification_key(), s.keys[0]);
    assert!(SigningKey::from_be_bytes(&[0xff; 32]).is_none());
}

#[test]
fn both_aggregations_verify_and_reject_a_forged_signature() {
    let params = Params::default();
    let mut r = rng();
    for n in [1, 2, 4, 17, 64] {
        let s = Signing::new(&params, n, b"msg", &mut r);
        let (ivk, mu) = (akey(&s.keys), asig(&s.signatures));
        assert!(ver(&params, b"msg", &ivk, &mu), "A, n = {n}");
        assert!(!ver(&params, b"other", &ivk, &mu));
        let (mu, e) = bsig(&s.signatures);
        let ivk = bkey(&s.keys, &e);
        assert!(ver(&params, b"msg", &ivk, &mu), "B, n = {n}");
        assert!(!ver(&params, b"other", &ivk, &mu));
        // One signature replaced by a random point: both aggregations reject.
        let mut forged = s.signatures.clone();
        forged[n / 2] = Signature(random_point(&mut r).to_affine());
        assert!(!ver(&params, b"msg", &akey(&s.keys), &asig(&forged)));
        let (mu, e) = bsig(&forged);
        assert!(!ver(&params, b"msg", &bkey(&s.keys, &e), &mu));
    }
}

#[test]
fn weights_are_128_bit_distinct_and_depend_on_every_signature() {
    let params = Params::default();
    let mut r = rng();
    let s = Signing::new(&params, 8, b"msg", &mut r);
    let e = weights(&s.signatures);
    assert_eq!(e.len(), 8);
    for i in 0..8 {
        for j in 0..i {
            assert_ne!(e[i], e[j]);
        }
    }
    let mut changed = s.signatures.clone();
    changed[7] = s.signatures[0];
    let e2 = weights(&changed);
    assert!(
        e.iter().zip(&e2).all(|(a, b)| a != b),
        "every weight changes"
    );
}

/// The cancellation ("rogue signature") test: valid σ1, σ2 submitted as σ1 + D and σ2 − D.
/// Neither verifies alone; their plain sum is the valid σ1 + σ2, so plain aggregation accepts;
/// the weighted sum carries (e1 − e2)·D and is rejected.
#[test]
fn cancellation_passes_plain_aggregation_and_fails_weighted() {
    let params = Params::default();
    let mut r = rng();
    for _ in 0..4 {
        let s = Signing::new(&params, 2, b"msg", &mut r);
        let d = random_point(&mut r);
        let s1 = Signature(s.signatures[0].0.to_projective().add(&d).to_affine());
        let s2 = Signature(s.signatures[1].0.to_projective().add(&d.neg()).to_affine());
        assert!(!verify(&params, b"msg", &s.keys[0], &s1));
        assert!(!verify(&params, b"msg", &s.keys[1], &s2));
        let submitted = [s1, s2];
        assert!(
            ver(&params, b"msg", &akey(&s.keys), &asig(&submitted)),
            "plain aggregation accepts the cancelled pair"
        );
        let (mu, e) = bsig(&submitted);
        assert!(
            !ver(&params, b"msg", &bkey(&s.keys, &e), &mu),
            "weighted aggregation rejects it"
        );
    }
}

#[test]
fn batch_verification_accepts_valid_batches_and_rejects_any_bad_aggregate() {
    let params = Params::default();
    let mut r = rng();
    let mut batch: Vec<Aggregate> = (0..5)
        .map(|j| Aggregate::signed(&params, 3 + j, format!("message {j}").into_bytes(), &mut r))
        .collect();
    assert!(batch_verify(&params, &batch, &mut r));
    assert!(batch_verify(&params, &batch[..1], &mut r));
    // Errors that cancel across aggregates: μ1 + D and μ2 − D.
    let d = random_point(&mut r);
    let mut cancelled = batch.clone();
    cancelled[0].signature = Signature(batch[0].signature.0.to_projective().add(&d).to_affine());
    cancelled[1].signature = Signature(
        batch[1]
            .signature
            .0
            .to_projective()
            .add(&d.neg())
            .to_affine(),
    );
    assert!(!batch_verify(&params, &cancelled, &mut r));
    // One aggregate's message changed.
    batch[3].message = b"forged".to_vec();
    assert!(!batch_verify(&params, &batch, &mut r));
}

mod mithril_stm_agreement {
    use super::*;
    use mithril_stm::{BlsSignature, BlsSigningKey, BlsVerificationKey};

    fn theirs(
        signers: &[SigningKey],
        keys: &[VerificationKey],
        sigs: &[Signature],
    ) -> (Vec<BlsVerificationKey>, Vec<BlsSignature>) {
        let vks = keys
            .iter()
            .map(|k| BlsVerificationKey::from_bytes(&k.0.to_bytes()).unwrap())
            .collect::<Vec<_>>();
        let ss = sigs
            .iter()
            .map(|s| BlsSignature::from_bytes(&s.0.to_bytes()).unwrap())
            .collect::<Vec<_>>();
        // The same signing keys give the same verification keys.
        for (sk, vk) in signers.iter().zip(&vks) {
            let stm = BlsSigningKey::from_bytes(&sk.to_be_bytes()).unwrap();
            assert_eq!(BlsVerificationKey::from(&stm).to_bytes(), vk.to_bytes());
        }
        (vks, ss)
    }

    #[test]
    fn same_keys_same_signatures_same_aggregates() {
        // mithril-stm hashes messages under an empty tag: use it to compare signatures.
        let params = Params::mithril_stm_compatible();
        let mut r = rng();
        for n in [2, 3, 16, 65] {
            let msg = format!("snapshot {n}").into_bytes();
            let s = Signing::new(&params, n, &msg, &mut r);
            let (vks, sigs) = theirs(&s.signers, &s.keys, &s.signatures);
            for (sk, sig) in s.signers.iter().zip(&s.signatures) {
                let stm = BlsSigningKey::from_bytes(&sk.to_be_bytes()).unwrap();
                assert_eq!(stm.sign(&msg).to_bytes(), sig.0.to_bytes());
            }
            let (their_ivk, their_mu) = BlsSignature::aggregate(&vks, &sigs).unwrap();
            let (mu, e) = bsig(&s.signatures);
            let ivk = bkey(&s.keys, &e);
            assert_eq!(their_ivk.to_bytes(), ivk.0.to_bytes(), "BKey, n = {n}");
            assert_eq!(their_mu.to_bytes(), mu.0.to_bytes(), "BSig, n = {n}");
            assert!(BlsSignature::verify_aggregate(&msg, &vks, &sigs).is_ok());
            assert!(ver(&params, &msg, &ivk, &mu));
            // A forged signature: both reject.
            let mut forged = s.signatures.clone();
            forged[0] = Signature(random_point(&mut r).to_affine());
            let (vks, fs) = theirs(&s.signers, &s.keys, &forged);
            assert!(BlsSignature::verify_aggregate(&msg, &vks, &fs).is_err());
            let (mu, e) = bsig(&forged);
            assert!(!ver(&params, &msg, &bkey(&s.keys, &e), &mu));
        }
    }

    /// `mithril-stm`'s batch check of several aggregates sums their signatures without weights,
    /// so errors that cancel across two aggregates pass it; the weighted batch check refuses
    /// them.
    #[test]
    fn cancellation_across_aggregates_plain_batch_accepts_weighted_rejects() {
        let params = Params::mithril_stm_compatible();
        let mut r = rng();
        let mut msgs = Vec::new();
        let mut ivks = Vec::new();
        let mut mus = Vec::new();
        for j in 0..2 {
            let msg = format!("aggregate {j}").into_bytes();
            let s = Signing::new(&params, 4, &msg, &mut r);
            let (mu, e) = bsig(&s.signatures);
            ivks.push(bkey(&s.keys, &e));
            mus.push(mu);
            msgs.push(msg);
        }
        let d = random_point(&mut r);
        mus[0] = Signature(mus[0].0.to_projective().add(&d).to_affine());
        mus[1] = Signature(mus[1].0.to_projective().add(&d.neg()).to_affine());
        assert!(!ver(&params, &msgs[0], &ivks[0], &mus[0]));
        assert!(!ver(&params, &msgs[1], &ivks[1], &mus[1]));
        let vks: Vec<BlsVerificationKey> = ivks
            .iter()
            .map(|k| BlsVerificationKey::from_bytes(&k.0.to_bytes()).unwrap())
            .collect();
        let sigs: Vec<BlsSignature> = mus
            .iter()
            .map(|s| BlsSignature::from_bytes(&s.0.to_bytes()).unwrap())
            .collect();
        assert!(BlsSignature::batch_verify_aggregates(&msgs, &vks, &sigs).is_ok());
        let batch: Vec<Aggregate> = (0..2)
            .map(|j| Aggregate {
                message: msgs[j].clone(),
                key: ivks[j],
                signature: mus[j],
            })
            .collect();
        assert!(!batch_verify(&params, &batch, &mut r));
    }
}
