//! The proof of knowledge of a Paillier plaintext (upstream `pkenc_paillier`), for both key
//! types: the threshold key ([`ThresholdPublicKey`]) and a mixer's own key
//! ([`PaillierPublicKey`]), one implementation behind the [`PlaintextPok`] trait.
//!
//! For `c = (1+N)^m · H^r mod N²` the prover sends `C = (1+N)^{ρ_m} · H^{ρ_r} mod N²` (reduced:
//! B7 in docs/fixes.md), gets the challenge `chal` from a transcript over the proof's context,
//! the key, c and C, and answers `z_m = ρ_m + chal·m`, `z_r = ρ_r + chal·r` over the integers
//! (B9). The verifier checks `c^{chal} · C ≡ (1+N)^{z_m} · H^{z_r}` and that both responses are
//! non-negative and no longer than a mask allows. The context names the run, the party, the
//! entry and the role of the ciphertext (A7), so a proof cannot be replayed elsewhere.

use rand::{CryptoRng, RngCore};
use rayon::prelude::*;
use rug::{Complete, Integer};

use crate::error::ensure;
use crate::primitives::bigint::{
    self, mul_mod, multi_pow_mod, pow_mod, random_bits, FixedBaseTable,
};
use crate::primitives::paillier::PaillierPublicKey;
use crate::primitives::security::Security;
use crate::primitives::thpaillier::ThresholdPublicKey;
use crate::primitives::transcript::Transcript;
use crate::{Error, Result};

/// A Paillier-type public key under which plaintexts can be proven known.
pub trait PlaintextPok {
    /// What the proof needs of the key.
    fn pok_key(&self) -> PokKey<'_>;

    /// Proof of knowledge of the plaintext m and randomness r of `c`, for the context `ctx`.
    /// Masks of bitlen(N) + 2κ_r + κ_c bits hide chal·m (m < N) and chal·r statistically.
    fn prove_plaintext(
        &self,
        ctx: &[u8],
        c: &Integer,
        m: &Integer,
        r: &Integer,
        rng: &mut (impl RngCore + CryptoRng),
    ) -> PlaintextProof {
        let k = self.pok_key();
        let rho_m = random_bits(rng, k.mask_bits);
        let rho_r = random_bits(rng, k.mask_bits);
        let commitment = mul_mod(&k.one_plus_n_pow(&rho_m), &k.h_pow(&rho_r), k.n2);
        let chal = k.challenge(ctx, c, &commitment);
        PlaintextProof {
            z_m: rho_m + Integer::from(&chal * m),
            z_r: rho_r + Integer::from(&chal * r),
            commitment,
        }
    }

    /// Checks a proof made for the context `ctx`: `c^{chal} · C ≡ (1+N)^{z_m} · H^{z_r}
    /// (mod N²)`, and that the responses are in range (so a prover cannot use a wrapped-around
    /// or negative response).
    fn verify_plaintext(&self, ctx: &[u8], c: &Integer, proof: &PlaintextProof) -> Result<()> {
        let k = self.pok_key();
        k.check_proof(c, proof)?;
        let chal = k.challenge(ctx, c, &proof.commitment);
        let lhs = mul_mod(&pow_mod(c, &chal, k.n2)?, &proof.commitment, k.n2);
        let rhs = mul_mod(&k.one_plus_n_pow(&proof.z_m), &k.h_pow(&proof.z_r), k.n2);
        ensure(lhs == rhs, "PoK of plaintext: equation fails")
    }

    /// Checks many proofs at once (Bellare–Garay–Rabin small exponents): with κ_e-bit δ_i drawn
    /// by Fiat–Shamir after all proofs are fixed,
    /// `(∏ c_i^{chal_i·δ_i} · ∏ C_i^{δ_i})² ≡ ((1+N)^{Σ δ_i z_m,i} · H^{Σ δ_i z_r,i})² (mod N²)`.
    /// One long exponentiation per batch plus a multi-exponentiation with short exponents
    /// replaces one short and one long exponentiation per proof.
    ///
    /// Soundness: a batch with an equation that fails by a factor of order > 2 passes with
    /// probability about 2^{-κ_e}. Squaring makes the check deliberately blind to factors of
    /// order 2 (±1-type elements of Z*_{N²}), which a single-proof check would catch: accepting
    /// those changes nothing about knowledge of the plaintext, and without the squaring such a
    /// factor would be caught only with probability 1/2. Use [`Self::verify_plaintext`] to find
    /// a culprit.
    fn verify_plaintext_batch(
        &self,
        ctxs: &[Vec<u8>],
        cs: &[Integer],
        proofs: &[PlaintextProof],
    ) -> Result<()> {
        let k = self.pok_key();
        lengths_agree(ctxs, cs, proofs)?;
        cs.par_iter()
            .zip(proofs)
            .try_for_each(|(c, p)| k.check_proof(c, p))?;
        let chals: Vec<Integer> = (0..cs.len())
            .into_par_iter()
            .map(|i| k.challenge(&ctxs[i], &cs[i], &proofs[i].commitment))
            .collect();
        let mut t = Transcript::new(b"pok-plaintext/batch");
        t.append_bytes(b"domain", k.domain);
        for ctx in ctxs {
            t.append_bytes(b"context", ctx);
        }
        t.append_integer(b"N", k.n);
        t.append_integer(b"H", k.hn);
        t.append_integers(b"c", cs);
        for p in proofs {
            t.append_integer(b"C", &p.commitment);
            t.append_integer(b"z_m", &p.z_m);
            t.append_integer(b"z_r", &p.z_r);
        }
        let deltas: Vec<Integer> = (0..cs.len())
            .map(|_| t.challenge_bits(b"delta", k.security.batch_bits))
            .collect();
        let mut bases: Vec<Integer> = cs.to_vec();
        bases.extend(proofs.iter().map(|p| p.commitment.clone()));
        let mut exps: Vec<Integer> = chals
            .iter()
            .zip(&deltas)
            .map(|(c, d)| Integer::from(c * d))
            .collect();
        exps.extend(deltas.iter().cloned());
        let (mut lhs, mut rhs) = rayon::join(
            || multi_pow_mod(&bases, &exps, k.n2),
            || {
                let zm: Integer = proofs
                    .iter()
                    .zip(&deltas)
                    .map(|(p, d)| Integer::from(&p.z_m * d))
                    .sum();
                let zr: Integer = proofs
                    .iter()
                    .zip(&deltas)
                    .map(|(p, d)| Integer::from(&p.z_r * d))
                    .sum();
                mul_mod(&k.one_plus_n_pow(&zm), &k.h_pow(&zr), k.n2)
            },
        );
        for x in [&mut lhs, &mut rhs] {
            x.square_mut();
            *x %= k.n2;
        }
        ensure(lhs == rhs, "PoK of plaintext: batch equation fails")
    }

    /// Checks every proof: as one batch (`batched`, fast mode) or each on its own (paper mode,
    /// upstream's cost).
    fn verify_plaintexts(
        &self,
        batched: bool,
        ctxs: &[Vec<u8>],
        cs: &[Integer],
        proofs: &[PlaintextProof],
    ) -> Result<()>
    where
        Self: Sync,
    {
        if batched {
            return self.verify_plaintext_batch(ctxs, cs, proofs);
        }
        lengths_agree(ctxs, cs, proofs)?;
        (0..cs.len())
            .into_par_iter()
            .try_for_each(|i| self.verify_plaintext(&ctxs[i], &cs[i], &proofs[i]))
    }
}

/// As many contexts and proofs as ciphertexts.
fn lengths_agree(ctxs: &[Vec<u8>], cs: &[Integer], proofs: &[PlaintextProof]) -> Result<()> {
    if cs.len() != proofs.len() || ctxs.len() != cs.len() {
        return Err(Error::Input(format!(
            "{} contexts, {} ciphertexts and {} proofs",
            ctxs.len(),
            cs.len(),
            proofs.len()
        )));
    }
    Ok(())
}

/// Both key types have N, N², H, an optional table for H, a mask length and a security setting
/// under the same names; they differ only in their Fiat–Shamir domain. The PoK uses a key's
/// table, which for long exponents it covers (fast mode); with an l-bit table or none it pays
/// upstream's full powmods.
macro_rules! plaintext_pok {
    ($key:ty, $domain:literal) => {
        impl PlaintextPok for $key {
            fn pok_key(&self) -> PokKey<'_> {
                PokKey {
                    domain: $domain,
                    n: &self.n,
                    n2: &self.n2,
                    hn: &self.hn,
                    table: self.table(),
                    mask_bits: self.pok_mask_bits(),
                    security: self.security,
                }
            }
        }
    };
}

plaintext_pok!(PaillierPublicKey, b"paillier/pok-plaintext");
plaintext_pok!(ThresholdPublicKey, b"thpaillier/pok-plaintext");

/// Proof of knowledge of (m, r) with `c = (1+N)^m · H^r mod N²` (upstream `pkenc_paillier`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaintextProof {
    /// `(1+N)^{ρ_m} · H^{ρ_r} mod N²`, reduced (fix B7: upstream sent the ~8300-bit product).
    pub commitment: Integer,
    /// `ρ_m + chal·m` and `ρ_r + chal·r` over the integers (fix B9).
    pub z_m: Integer,
    /// See `z_m`.
    pub z_r: Integer,
}

impl PlaintextProof {
    /// Serialised size: each integer at its minimal length.
    pub fn size_bytes(&self) -> usize {
        [&self.commitment, &self.z_m, &self.z_r]
            .iter()
            .map(|x| x.significant_bits().div_ceil(8) as usize)
            .sum()
    }
}

/// The parts of a Paillier-type key the PoK of plaintext uses; shared by both key types.
pub struct PokKey<'a> {
    /// Fiat–Shamir domain of the key type.
    pub domain: &'static [u8],
    /// The modulus N.
    pub n: &'a Integer,
    /// N².
    pub n2: &'a Integer,
    /// The base H of the randomness.
    pub hn: &'a Integer,
    /// The key's fixed-base table for H, if built.
    pub table: Option<&'a FixedBaseTable>,
    /// Length of the masks.
    pub mask_bits: u32,
    /// Challenge and batching lengths.
    pub security: Security,
}

impl PokKey<'_> {
    /// `H^e`: through the key's table when it covers e (else the table falls back to a powmod).
    fn h_pow(&self, e: &Integer) -> Integer {
        match self.table {
            Some(t) => t.pow(e),
            None => pow_mod(self.hn, e, self.n2).expect("non-negative exponent"),
        }
    }

    fn check(&self, c: &Integer, what: &str) -> Result<()> {
        ensure(
            *c > 0 && c < self.n2 && c.gcd_ref(self.n).complete() == 1,
            format!("PoK of plaintext: {what} out of range or not a unit"),
        )
    }

    fn one_plus_n_pow(&self, m: &Integer) -> Integer {
        (bigint::rem_euc(m, self.n) * self.n + 1u32) % self.n2
    }

    /// The challenge of one proof. `ctx` says what the proof is for (the run, the sender or
    /// mixer and its entry, the role of the ciphertext), so that a proof cannot be replayed for
    /// another sender, entry or run.
    fn challenge(&self, ctx: &[u8], c: &Integer, commitment: &Integer) -> Integer {
        let mut t = Transcript::new(self.domain);
        t.append_bytes(b"context", ctx);
        t.append_integer(b"N", self.n);
        t.append_integer(b"H", self.hn);
        t.append_integer(b"c", c);
        t.append_integer(b"C", commitment);
        t.challenge_bits(b"chal", self.security.challenge_bits)
    }

    /// Range and unit checks shared by the single and the batch verifier. Honest responses are
    /// < 2^{mask} + 2^{κ_c}·max(m, r) < 2^{mask+1}; bounding them stops wrap-around tricks.
    fn check_proof(&self, c: &Integer, proof: &PlaintextProof) -> Result<()> {
        self.check(c, "ciphertext")?;
        self.check(&proof.commitment, "commitment")?;
        for z in [&proof.z_m, &proof.z_r] {
            ensure(
                z.cmp0() != std::cmp::Ordering::Less && z.significant_bits() <= self.mask_bits + 1,
                "PoK of plaintext: response out of range",
            )?;
        }
        Ok(())
    }
}

crate::wire_struct!(impl PlaintextProof { wire commitment, wire z_m, wire z_r });

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::paillier::PaillierKey;
    use crate::primitives::thpaillier::ThresholdKey;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// What the tests need of a key beyond the proof: encryption, and its H to change.
    trait TestKey: PlaintextPok + Clone + Sync {
        fn enc(&self, m: &Integer, rng: &mut ChaCha20Rng) -> (Integer, Integer);
        fn hn_mut(&mut self) -> &mut Integer;
    }

    impl TestKey for PaillierPublicKey {
        fn enc(&self, m: &Integer, rng: &mut ChaCha20Rng) -> (Integer, Integer) {
            self.encrypt(m, rng)
        }
        fn hn_mut(&mut self) -> &mut Integer {
            &mut self.hn
        }
    }

    impl TestKey for ThresholdPublicKey {
        fn enc(&self, m: &Integer, rng: &mut ChaCha20Rng) -> (Integer, Integer) {
            self.encrypt(m, rng)
        }
        fn hn_mut(&mut self) -> &mut Integer {
            &mut self.hn
        }
    }

    fn paillier_key() -> PaillierPublicKey {
        PaillierKey::fixed_small_test_key(&mut ChaCha20Rng::seed_from_u64(3)).pk
    }

    fn threshold_key() -> ThresholdPublicKey {
        let mut key = ThresholdKey::fixed_small_test_key(&mut ChaCha20Rng::seed_from_u64(7), 2);
        key.pk.build_table(6);
        key.pk
    }

    fn test_ctxs(n: usize) -> Vec<Vec<u8>> {
        vec![b"test".to_vec(); n]
    }

    fn completes_and_rejects_tampering<K: TestKey>(pk: K) {
        let mut r = ChaCha20Rng::seed_from_u64(4);
        let (n, n2, hn) = (
            pk.pok_key().n.clone(),
            pk.pok_key().n2.clone(),
            pk.pok_key().hn.clone(),
        );
        let m = bigint::random_below(&mut r, &n);
        let (c, rr) = pk.enc(&m, &mut r);
        let proof = pk.prove_plaintext(b"test", &c, &m, &rr, &mut r);
        pk.verify_plaintext(b"test", &c, &proof).unwrap();
        assert!(proof.commitment < n2);
        let (c_other, _) = pk.enc(&m, &mut r);
        assert!(pk.verify_plaintext(b"test", &c_other, &proof).is_err());
        let mut bad = proof.clone();
        bad.z_m += 1;
        assert!(pk.verify_plaintext(b"test", &c, &bad).is_err());
        let mut bad = proof.clone();
        bad.z_r += 1;
        assert!(pk.verify_plaintext(b"test", &c, &bad).is_err());
        let mut bad = proof.clone();
        bad.z_r -= 1;
        assert!(pk.verify_plaintext(b"test", &c, &bad).is_err());
        let mut bad = proof.clone();
        bad.commitment = mul_mod(&bad.commitment, &hn, &n2);
        assert!(pk.verify_plaintext(b"test", &c, &bad).is_err());
        // Statement element: a different key's H.
        let mut pk2 = pk.clone();
        *pk2.hn_mut() = mul_mod(&hn, &hn, &n2);
        assert!(pk2.verify_plaintext(b"test", &c, &proof).is_err());
        // Oversized response (would let a cheating prover wrap around).
        let mut bad = proof;
        bad.z_r += Integer::from(1) << (pk.pok_key().mask_bits + 5);
        assert!(pk.verify_plaintext(b"test", &c, &bad).is_err());
    }

    /// A proof is bound to its context (run, sender, role): the same proof under another
    /// context, alone or in a batch, is rejected.
    fn bound_to_its_context<K: TestKey>(pk: K) {
        let mut r = ChaCha20Rng::seed_from_u64(16);
        let m = Integer::from(99);
        let (c, rr) = pk.enc(&m, &mut r);
        let proof = pk.prove_plaintext(b"run A/sender 0/cv", &c, &m, &rr, &mut r);
        pk.verify_plaintext(b"run A/sender 0/cv", &c, &proof)
            .unwrap();
        for other in [
            &b"run A/sender 1/cv"[..],
            b"run B/sender 0/cv",
            b"run A/sender 0/cr",
        ] {
            assert!(pk.verify_plaintext(other, &c, &proof).is_err());
        }
        let (c2, rr2) = pk.enc(&m, &mut r);
        let p2 = pk.prove_plaintext(b"run A/sender 1/cv", &c2, &m, &rr2, &mut r);
        let cs = [c.clone(), c2.clone()];
        let ps = [proof.clone(), p2.clone()];
        let ctxs = vec![b"run A/sender 0/cv".to_vec(), b"run A/sender 1/cv".to_vec()];
        pk.verify_plaintext_batch(&ctxs, &cs, &ps).unwrap();
        let swapped = vec![ctxs[1].clone(), ctxs[0].clone()];
        assert!(pk.verify_plaintext_batch(&swapped, &cs, &ps).is_err());
    }

    /// A batch passes when every proof does, and fails with one bad response, commitment or
    /// ciphertext anywhere, including position 0, or with a proof missing.
    fn batch_rejects_one_bad_proof<K: TestKey>(pk: K) {
        let mut r = ChaCha20Rng::seed_from_u64(13);
        let (n2, hn) = (pk.pok_key().n2.clone(), pk.pok_key().hn.clone());
        let (cs, proofs): (Vec<Integer>, Vec<PlaintextProof>) = (0..6)
            .map(|i| {
                let m = Integer::from(i * 1000 + 7);
                let (c, rr) = pk.enc(&m, &mut r);
                let p = pk.prove_plaintext(b"test", &c, &m, &rr, &mut r);
                (c, p)
            })
            .unzip();
        let ctxs = test_ctxs(cs.len());
        pk.verify_plaintext_batch(&ctxs, &cs, &proofs).unwrap();
        pk.verify_plaintexts(false, &ctxs, &cs, &proofs).unwrap();
        for bad in [0usize, 2, 4] {
            for (what, z_m, z_r) in [("z_m", 1, 0), ("z_r", 0, 1)] {
                let mut ps = proofs.clone();
                ps[bad].z_m += z_m;
                ps[bad].z_r += z_r;
                assert!(
                    pk.verify_plaintext_batch(&ctxs, &cs, &ps).is_err(),
                    "{what} at {bad}"
                );
                assert!(
                    pk.verify_plaintexts(false, &ctxs, &cs, &ps).is_err(),
                    "{what} at {bad}"
                );
            }
            let mut ps = proofs.clone();
            ps[bad].commitment = mul_mod(&ps[bad].commitment, &hn, &n2);
            assert!(
                pk.verify_plaintext_batch(&ctxs, &cs, &ps).is_err(),
                "C at {bad}"
            );
            let mut cs2 = cs.clone();
            cs2[bad] = mul_mod(&cs2[bad], &pk.enc(&Integer::new(), &mut r).0, &n2);
            assert!(
                pk.verify_plaintext_batch(&ctxs, &cs2, &proofs).is_err(),
                "c at {bad}"
            );
        }
        assert!(pk
            .verify_plaintext_batch(&ctxs[..5], &cs[..5], &proofs)
            .is_err());
    }

    #[test]
    fn proofs_under_a_mixer_key() {
        completes_and_rejects_tampering(paillier_key());
        bound_to_its_context(paillier_key());
        batch_rejects_one_bad_proof(paillier_key());
    }

    #[test]
    fn proofs_under_the_threshold_key() {
        completes_and_rejects_tampering(threshold_key());
        bound_to_its_context(threshold_key());
        batch_rejects_one_bad_proof(threshold_key());
    }
}
