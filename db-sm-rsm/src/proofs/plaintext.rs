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
    fn prove_plaintext(
        &self,
        ctx: &[u8],
        c: &Integer,
        m: &Integer,
        r: &Integer,
        rng: &mut (impl RngCore + CryptoRng),
    ) -> PlaintextProof {
        self.pok_key().prove(ctx, c, m, r, rng)
    }

    /// Checks a proof made for the context `ctx`.
    fn verify_plaintext(&self, ctx: &[u8], c: &Integer, proof: &PlaintextProof) -> Result<()> {
        self.pok_key().verify(ctx, c, proof)
    }

    /// Checks many proofs at once: one long exponentiation per batch instead of one per proof
    /// ([`PokKey::verify_batch`]).
    fn verify_plaintext_batch(
        &self,
        ctxs: &[Vec<u8>],
        cs: &[Integer],
        proofs: &[PlaintextProof],
    ) -> Result<()> {
        self.pok_key().verify_batch(ctxs, cs, proofs)
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
        if cs.len() != proofs.len() || ctxs.len() != cs.len() {
            return Err(Error::Input(format!(
                "{} contexts, {} ciphertexts and {} proofs",
                ctxs.len(),
                cs.len(),
                proofs.len()
            )));
        }
        (0..cs.len())
            .into_par_iter()
            .try_for_each(|i| self.verify_plaintext(&ctxs[i], &cs[i], &proofs[i]))
    }
}

impl PlaintextPok for PaillierPublicKey {
    fn pok_key(&self) -> PokKey<'_> {
        PokKey {
            domain: b"paillier/pok-plaintext",
            n: &self.n,
            n2: &self.n2,
            hn: &self.hn,
            // The PoK uses the table only when it covers its long exponents: with an l-bit table
            // (or none) it pays upstream's full powmods.
            table: self.table(),
            mask_bits: self.pok_mask_bits(),
            security: self.security,
        }
    }
}

impl PlaintextPok for ThresholdPublicKey {
    fn pok_key(&self) -> PokKey<'_> {
        PokKey {
            domain: b"thpaillier/pok-plaintext",
            n: &self.n,
            n2: &self.n2,
            hn: &self.hn,
            table: self.table(),
            mask_bits: self.pok_mask_bits(),
            security: self.security,
        }
    }
}

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

    /// Masks of bitlen(N) + 2κ_r + κ_c bits hide chal·m (m < N) and chal·r statistically.
    pub fn prove(
        &self,
        ctx: &[u8],
        c: &Integer,
        m: &Integer,
        r: &Integer,
        rng: &mut (impl RngCore + CryptoRng),
    ) -> PlaintextProof {
        let rho_m = random_bits(rng, self.mask_bits);
        let rho_r = random_bits(rng, self.mask_bits);
        let commitment = mul_mod(&self.one_plus_n_pow(&rho_m), &self.h_pow(&rho_r), self.n2);
        let chal = self.challenge(ctx, c, &commitment);
        PlaintextProof {
            z_m: rho_m + Integer::from(&chal * m),
            z_r: rho_r + Integer::from(&chal * r),
            commitment,
        }
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

    /// Checks `c^{chal} · C ≡ (1+N)^{z_m} · H^{z_r} (mod N²)` and that the responses are in range
    /// (so a prover cannot use a wrapped-around or negative response).
    pub fn verify(&self, ctx: &[u8], c: &Integer, proof: &PlaintextProof) -> Result<()> {
        self.check_proof(c, proof)?;
        let chal = self.challenge(ctx, c, &proof.commitment);
        let lhs = mul_mod(&pow_mod(c, &chal, self.n2)?, &proof.commitment, self.n2);
        let rhs = mul_mod(
            &self.one_plus_n_pow(&proof.z_m),
            &self.h_pow(&proof.z_r),
            self.n2,
        );
        ensure(lhs == rhs, "PoK of plaintext: equation fails")
    }

    /// Verifies many proofs at once (Bellare–Garay–Rabin small exponents): with κ_e-bit δ_i drawn
    /// by Fiat–Shamir after all proofs are fixed,
    /// `(∏ c_i^{chal_i·δ_i} · ∏ C_i^{δ_i})² ≡ ((1+N)^{Σ δ_i z_m,i} · H^{Σ δ_i z_r,i})² (mod N²)`.
    /// One long exponentiation per batch plus a multi-exponentiation with 80- and 160-bit
    /// exponents replaces one 80-bit and one ~2170-bit exponentiation per proof.
    ///
    /// Soundness: a batch with an equation that fails by a factor of order > 2 passes with
    /// probability about 2^{-κ_e}. Squaring makes the check deliberately blind to factors of order
    /// 2 (±1-type elements of Z*_{N²}), which a single-proof check would catch: accepting
    /// those changes nothing about knowledge of the plaintext, and without the squaring such a
    /// factor would be caught only with probability 1/2. Use [`Self::verify`] to find a culprit.
    pub fn verify_batch(
        &self,
        ctxs: &[Vec<u8>],
        cs: &[Integer],
        proofs: &[PlaintextProof],
    ) -> Result<()> {
        if cs.len() != proofs.len() || ctxs.len() != cs.len() {
            return Err(Error::Input(format!(
                "{} contexts, {} ciphertexts and {} proofs",
                ctxs.len(),
                cs.len(),
                proofs.len()
            )));
        }
        cs.par_iter()
            .zip(proofs)
            .try_for_each(|(c, p)| self.check_proof(c, p))?;
        let chals: Vec<Integer> = (0..cs.len())
            .into_par_iter()
            .map(|i| self.challenge(&ctxs[i], &cs[i], &proofs[i].commitment))
            .collect();
        let mut t = Transcript::new(b"pok-plaintext/batch");
        t.append_bytes(b"domain", self.domain);
        for ctx in ctxs {
            t.append_bytes(b"context", ctx);
        }
        t.append_integer(b"N", self.n);
        t.append_integer(b"H", self.hn);
        t.append_integers(b"c", cs);
        for p in proofs {
            t.append_integer(b"C", &p.commitment);
            t.append_integer(b"z_m", &p.z_m);
            t.append_integer(b"z_r", &p.z_r);
        }
        let deltas: Vec<Integer> = (0..cs.len())
            .map(|_| t.challenge_bits(b"delta", self.security.batch_bits))
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
            || multi_pow_mod(&bases, &exps, self.n2),
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
                mul_mod(&self.one_plus_n_pow(&zm), &self.h_pow(&zr), self.n2)
            },
        );
        for x in [&mut lhs, &mut rhs] {
            x.square_mut();
            *x %= self.n2;
        }
        ensure(lhs == rhs, "PoK of plaintext: batch equation fails")
    }
}
