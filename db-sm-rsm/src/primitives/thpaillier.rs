//! Threshold Paillier: Damgård–Jurik–Nielsen with s = 1 and short-exponent encryption (DJN §4.1),
//! made m-out-of-m with additive key shares, with a trusted dealer (S1 and S3 in docs/fixes.md).
//!
//! * `N = P'Q'` with safe primes `P' = 2p'+1`, `Q' = 2q'+1`; `M = p'q'`.
//! * Secret `d ≡ 0 (mod M)`, `d ≡ 1 (mod N)`, split additively mod `N·M`: `d = Σ d_k`.
//! * `h = −x² mod N²`, `H = h^N mod N²`; `Enc(m; r) = (1+N)^m · H^r mod N²`, r of ⌈bitlen(N)/2⌉ bits.
//! * Decryption share `c^{4 d_k}`; combining: `m = L((∏_k s_k)²) · 8⁻¹ mod N`. Squaring the
//!   product (as DJN's `c_i^{2λ}` does) makes decryption blind to a share multiplied by an element of
//!   order 2 (such as −1), which the share proof — like any sigma proof in Z*_{N²} — would catch
//!   only with probability 1/2; the proof correspondingly works on squares.
//! * `v` a random square mod N² and `v_k = v^{d_k}` verify the shares.
//!
//! Fixes against upstream (codes of docs/fixes.md): the PoK commitment is reduced mod N²
//! (B7); responses are integers, never reduced mod 2^len (B9); the batched share proof draws its
//! n+1 batching exponents by Fiat–Shamir and spends δ_0 on the verification key only (B5, S6) and
//! masks with ≥ bitlen(N·M) + κ_c + κ_r bits (B6); every challenge binds the whole statement (F1).
//! The lengths κ_c, κ_e, κ_r come from the key's [`Security`] setting.

use crate::error::ensure;
use crate::primitives::bigint::{
    self, from_hex, invert, l_function, mul_mod, multi_pow_mod, pow_mod, random_below, random_bits,
    random_unit, FixedBaseTable,
};
use crate::primitives::security::Security;
use crate::primitives::transcript::Transcript;
use crate::{Error, Result};
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;
use rug::{Complete, Integer};
use std::sync::Arc;

/// The public key, with an optional fixed-base table for `H` shared between clones.
#[derive(Clone, Debug)]
pub struct ThresholdPublicKey {
    /// The modulus N = P′Q′.
    pub n: Integer,
    /// N².
    pub n2: Integer,
    /// `4⁻¹ mod N`, used when combining shares.
    pub inv4: Integer,
    /// `h = −x² mod N²`.
    pub h: Integer,
    /// `H = h^N mod N²`, the encryption base (upstream `hn`).
    pub hn: Integer,
    /// Verification base (a random square mod N²) and per-mixer verification keys `v^{d_k}`.
    pub v: Integer,
    /// The verification keys v^{d_k}, one per mixer.
    pub vks: Vec<Integer>,
    table: Option<Arc<FixedBaseTable>>,
    /// Challenge, batching and slack lengths of this key's proofs.
    pub security: Security,
}

/// Mixer k's additive share of the decryption exponent.
#[derive(Clone, Debug)]
pub struct ThresholdSecretShare {
    /// The mixer k holding it.
    pub index: usize,
    /// Its share d_k.
    pub d: Integer,
}

/// Everything the dealer hands out: the public key and one share per mixer.
#[derive(Clone, Debug)]
pub struct ThresholdKey {
    /// The public key.
    pub pk: ThresholdPublicKey,
    /// One share per mixer.
    pub shares: Vec<ThresholdSecretShare>,
}

/// Fixed test primes, generated once with [`bigint::safe_prime`] from OsRng and checked in so that
/// tests and quick runs skip the safe-prime search. They are public: keys built from them are
/// TEST KEYS ONLY and never secret.
pub mod fixed {
    /// 1025- and 1026-bit safe primes just above powers of two: N has 2050 bits and N² 4099, like
    /// upstream's debug key.
    pub const P_2050: &str =
        "10eae1bb7eada812627a2e1aafe801b71b3ce50ec0877299239cbda6d674a94aab3a06daf1b8a7abd2765c2007997a26a1ba67dbdb9cdf4cb794a6d80258230d240e12437831e97b834d808e7380d88eb57e1612fb436fbc94b849c611e5bb55089f95e65ddd95dabb3cab1c3f9a1de3fb943d0a58041e87f6b905f97bca1702b";
    /// See `P_2050`.
    pub const Q_2050: &str =
        "215f33d795e2bf38e9c1ce8081a648f7a924da48be6a4127d1b39a82ddeffd68fa559a60bf572387e0f28767a5691206de7dbec4c09c81b96f5d4fe3a39fb70fb408c6ccce70c105f716080f98ec5c6fa21f7f015e2316b06f84961ad94df03b379f8083aaa94aea2affb99250a771ab96c16e0a66d80a25ea3122a135bd61ecf";
    /// 512- and 513-bit safe primes: a 1024-bit N for fast tests.
    pub const P_1024: &str =
        "8ab0fbc1a594c1c4eb0d488ec4dbdaf92c558147e10c46639efe0c8f57f575f9ffcfaf3d0770c162ca7cfe341246099379fc965d0926ca5fa9f9c7ddc045a92b";
    /// See `P_1024`.
    pub const Q_1024: &str =
        "100fe17433d84c65e05fe1451bb3080a3146250a253ac1fca4b048de78dd55f757c2dbea1912bf7b6915920a7cf4c957e9ffba01f1471f96b57d60e1771288fe7";
}

impl ThresholdKey {
    /// Dealer key generation with fresh safe primes of ⌊n_bits/2⌋ and n_bits+1−⌊n_bits/2⌋ bits just
    /// above powers of two, so N has exactly `n_bits` bits and N² has 2·n_bits−1 (upstream's shape:
    /// 2050 and 4099). Seconds at 2050 bits.
    pub fn generate(rng: &mut (impl RngCore + CryptoRng), n_bits: u32, m: usize) -> Self {
        assert!(n_bits >= 64, "n_bits must be >= 64");
        let a = n_bits / 2;
        let p = bigint::safe_prime(rng, a);
        let q = bigint::safe_prime(rng, n_bits + 1 - a);
        Self::from_safe_primes(rng, &p, &q, m).expect("fresh safe primes of distinct sizes")
    }

    /// TEST KEY: the checked-in 2050-bit-N safe primes ([`fixed`]), fresh dealer randomness.
    pub fn fixed_test_key(rng: &mut (impl RngCore + CryptoRng), m: usize) -> Self {
        Self::from_safe_primes(rng, &from_hex(fixed::P_2050), &from_hex(fixed::Q_2050), m)
            .expect("checked-in test primes are valid")
    }

    /// TEST KEY: the checked-in 1024-bit-N safe primes ([`fixed`]), for fast tests.
    pub fn fixed_small_test_key(rng: &mut (impl RngCore + CryptoRng), m: usize) -> Self {
        Self::from_safe_primes(rng, &from_hex(fixed::P_1024), &from_hex(fixed::Q_1024), m)
            .expect("checked-in test primes are valid")
    }

    /// The dealer's work given the two safe primes: d, its additive shares, h, H, v and the v_k.
    pub fn from_safe_primes(
        rng: &mut (impl RngCore + CryptoRng),
        p: &Integer,
        q: &Integer,
        m: usize,
    ) -> Result<Self> {
        if m == 0 {
            return Err(Error::Input("need at least one mixer".into()));
        }
        let pp = Integer::from(p - 1u32) / 2u32;
        let qp = Integer::from(q - 1u32) / 2u32;
        if p == q || !bigint::is_prime(&pp) || !bigint::is_prime(&qp) {
            return Err(Error::Input(
                "P' and Q' must be distinct safe primes".into(),
            ));
        }
        let n = Integer::from(p * q);
        let n2 = Integer::from(&n * &n);
        let mm = Integer::from(&pp * &qp);
        // d ≡ 0 mod M and d ≡ 1 mod N: d = M · (M⁻¹ mod N).
        let d = &mm * invert(&mm, &n).map_err(|_| Error::Input("gcd(M,N)≠1".into()))?;
        let nm = Integer::from(&n * &mm);
        let mut shares = Vec::with_capacity(m);
        let mut sum = Integer::new();
        for k in 0..m - 1 {
            let dk = random_below(rng, &nm);
            sum += &dk;
            shares.push(ThresholdSecretShare { index: k, d: dk });
        }
        let last = (Integer::from(&d - &sum) % &nm + &nm) % &nm;
        shares.push(ThresholdSecretShare {
            index: m - 1,
            d: last,
        });
        let x = random_unit(rng, &n);
        let h = (&n2 - Integer::from(&x * &x)) % &n2;
        let hn = pow_mod(&h, &n, &n2)?;
        let y = random_unit(rng, &n2);
        let v = mul_mod(&y, &y, &n2);
        let vks = shares
            .par_iter()
            .map(|s| pow_mod(&v, &s.d, &n2).expect("non-negative"))
            .collect();
        let inv4 = invert(&Integer::from(4), &n)?;
        Ok(ThresholdKey {
            pk: ThresholdPublicKey {
                n,
                n2,
                inv4,
                h,
                hn,
                v,
                vks,
                table: None,
                security: Security::default(),
            },
            shares,
        })
    }
}

/// Batched proof that mixer k's shares `s_i = c_i^{4 d_k}` use the `d_k` behind `v_k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareProof {
    /// κ_c-bit Fiat–Shamir challenge.
    pub chal: Integer,
    /// `ρ + chal·d_k` over the integers.
    pub z: Integer,
}

impl ShareProof {
    /// Serialised size: each integer at its minimal length.
    pub fn size_bytes(&self) -> usize {
        int_bytes(&self.chal) + int_bytes(&self.z)
    }
}

/// Serialised size of a non-negative integer in bytes.
pub fn int_bytes(x: &Integer) -> usize {
    x.significant_bits().div_ceil(8) as usize
}

impl ThresholdPublicKey {
    /// Bits of the short encryption randomness r: ⌈bitlen(N)/2⌉ (1025 for the 2050-bit N).
    pub fn r_bits(&self) -> u32 {
        self.n.significant_bits().div_ceil(2)
    }

    /// Mask length of the PoK of plaintext: bitlen(N) + κ_c + the PoK slack (2258 for the
    /// 2050-bit N at 128-bit security; upstream's 2170 at paper security).
    pub fn pok_mask_bits(&self) -> u32 {
        self.n.significant_bits() + self.security.challenge_bits + self.security.pok_slack_bits
    }

    /// Mask length of the share proof: the shares d_k are < N·M < N², so
    /// bitlen(N²) + κ_c + κ_r (4307 bits at 128-bit security, 4199 at paper security) hides
    /// chal·d_k statistically (fix B6).
    pub fn share_mask_bits(&self) -> u32 {
        self.n2.significant_bits() + self.security.challenge_bits + self.security.slack_bits
    }

    /// Builds (or rebuilds) the fixed-base table for H with `window`-bit digits; see
    /// [`FixedBaseTable`] for memory (window 13 ≈ 332 MB, 10 ≈ 53 MB, 8 ≈ 17 MB at 2050 bits).
    pub fn build_table(&mut self, window: u32) {
        self.build_table_bits(window, self.r_bits());
    }

    /// A table for H covering `exp_bits`-bit exponents. Covering [`Self::long_exponent_bits`]
    /// makes every H-power of the proofs table-driven too (PoK masks and responses, the shuffle's
    /// `H^{t2+r}`, the batch verifier), at ⌈exp_bits/window⌉·(2^window−1) residues of N²: about
    /// 36 MB at window 8 and 2300 bits. Upstream's table covers only r (the paper-faithful cost).
    pub fn build_table_bits(&mut self, window: u32, exp_bits: u32) {
        self.table = Some(Arc::new(FixedBaseTable::new(
            &self.hn, &self.n2, exp_bits, window,
        )));
    }

    /// Longest H-exponent the proofs use: a PoK batch response sum Σ δ_i z_r,i for up to 2^24
    /// proofs (mask + 1 + κ_e + 24 bits; 2411 for the 2050-bit N at 128-bit security).
    pub fn long_exponent_bits(&self) -> u32 {
        self.pok_mask_bits() + 1 + self.security.batch_bits + 24
    }

    /// The fixed-base table for H, if built.
    pub fn table(&self) -> Option<&FixedBaseTable> {
        self.table.as_deref()
    }

    /// `H^r mod N²`, through the table when one is built (upstream's `Enc_pp` cost).
    pub fn h_pow(&self, r: &Integer) -> Integer {
        match &self.table {
            Some(t) => t.pow(r),
            None => pow_mod(&self.hn, r, &self.n2).expect("non-negative exponent"),
        }
    }

    /// `(1+N)^m mod N² = 1 + mN mod N²`, for any integer m (reduced mod N first).
    pub fn one_plus_n_pow(&self, m: &Integer) -> Integer {
        let mr = bigint::rem_euc(m, &self.n);
        (mr * &self.n + 1u32) % &self.n2
    }

    /// Fresh encryption randomness.
    pub fn random_r(&self, rng: &mut (impl RngCore + CryptoRng)) -> Integer {
        random_bits(rng, self.r_bits())
    }

    /// `Enc(m; r) = (1+N)^m · H^r mod N²`.
    pub fn encrypt_with(&self, m: &Integer, r: &Integer) -> Integer {
        mul_mod(&self.one_plus_n_pow(m), &self.h_pow(r), &self.n2)
    }

    /// Encrypts with fresh randomness; returns the ciphertext and r.
    pub fn encrypt(&self, m: &Integer, rng: &mut (impl RngCore + CryptoRng)) -> (Integer, Integer) {
        let r = self.random_r(rng);
        (self.encrypt_with(m, &r), r)
    }

    /// `c · H^r`: same plaintext, fresh randomness.
    pub fn reencrypt_with(&self, c: &Integer, r: &Integer) -> Integer {
        mul_mod(c, &self.h_pow(r), &self.n2)
    }

    /// `c · H^r` for fresh r; returns the ciphertext and r.
    pub fn reencrypt(
        &self,
        c: &Integer,
        rng: &mut (impl RngCore + CryptoRng),
    ) -> (Integer, Integer) {
        let r = self.random_r(rng);
        (self.reencrypt_with(c, &r), r)
    }

    /// Homomorphic addition of plaintexts.
    pub fn add(&self, c1: &Integer, c2: &Integer) -> Integer {
        mul_mod(c1, c2, &self.n2)
    }

    /// Checks that c is a plausible ciphertext: in (0, N²) and a unit.
    pub fn check_ciphertext(&self, c: &Integer) -> Result<()> {
        ensure(
            *c > 0 && *c < self.n2 && c.gcd_ref(&self.n).complete() == 1,
            "ciphertext out of range or not a unit",
        )
    }

    /// Combines the m decryption shares of one ciphertext: `L(∏ s_k) · 4⁻¹ mod N`.
    pub fn combine(&self, shares: &[Integer]) -> Result<Integer> {
        if shares.len() != self.vks.len() {
            return Err(Error::Input(format!(
                "need {} decryption shares, got {}",
                self.vks.len(),
                shares.len()
            )));
        }
        let mut prod = shares
            .iter()
            .fold(Integer::from(1), |a, s| mul_mod(&a, s, &self.n2));
        // (∏ s_k)² = c^{8d} = 1 + 8mN: squaring removes any order-2 factor of a share.
        prod.square_mut();
        prod %= &self.n2;
        ensure(
            Integer::from(&prod % &self.n) == 1,
            "combined shares are not of the form 1 + xN",
        )?;
        let inv2 = Integer::from(&self.n + 1u32) / 2u32;
        let inv8 = mul_mod(&self.inv4, &inv2, &self.n);
        Ok(mul_mod(&l_function(&prod, &self.n), &inv8, &self.n))
    }

    /// Combines share vectors of many ciphertexts (`shares_by_mixer[k][i]`).
    pub fn combine_all(&self, shares_by_mixer: &[Vec<Integer>]) -> Result<Vec<Integer>> {
        let len = shares_by_mixer.first().map_or(0, Vec::len);
        if shares_by_mixer.iter().any(|s| s.len() != len) {
            return Err(Error::Input("share vectors differ in length".into()));
        }
        (0..len)
            .into_par_iter()
            .map(|i| {
                let col: Vec<Integer> = shares_by_mixer.iter().map(|s| s[i].clone()).collect();
                self.combine(&col)
            })
            .collect()
    }

    fn absorb_key(&self, t: &mut Transcript) {
        t.append_integer(b"N", &self.n);
        t.append_integer(b"H", &self.hn);
    }

    /// Statement of mixer k's share batch, and the n+1 Fiat–Shamir batching exponents
    /// (δ_0 for the verification key, δ_{i+1} for ciphertext i: fix B5).
    fn share_batch(
        &self,
        k: usize,
        cts: &[Integer],
        shares: &[Integer],
    ) -> Result<(Transcript, Integer, Integer)> {
        if cts.len() != shares.len() {
            return Err(Error::Input(
                "ciphertexts and shares differ in length".into(),
            ));
        }
        let vk = self
            .vks
            .get(k)
            .ok_or_else(|| Error::Input(format!("no verification key for mixer {k}")))?;
        let mut t = Transcript::new(b"thpaillier/decryption-shares");
        self.absorb_key(&mut t);
        t.append_integer(b"v", &self.v);
        t.append_bytes(b"k", &(k as u64).to_le_bytes());
        t.append_integer(b"vk", vk);
        t.append_integers(b"ciphertexts", cts);
        t.append_integers(b"shares", shares);
        let deltas: Vec<Integer> = (0..=cts.len())
            .map(|_| t.challenge_bits(b"delta", self.security.batch_bits))
            .collect();
        // A = v_k^{δ_0} ∏ s_i^{δ_{i+1}},  B = v^{δ_0} (∏ c_i^{δ_{i+1}})^4.
        let (a, b) = rayon::join(
            || {
                mul_mod(
                    &pow_mod(vk, &deltas[0], &self.n2).expect("non-negative"),
                    &multi_pow_mod(shares, &deltas[1..], &self.n2),
                    &self.n2,
                )
            },
            || {
                let mut cprod = multi_pow_mod(cts, &deltas[1..], &self.n2);
                for _ in 0..2 {
                    cprod.square_mut();
                    cprod %= &self.n2;
                }
                mul_mod(
                    &pow_mod(&self.v, &deltas[0], &self.n2).expect("non-negative"),
                    &cprod,
                    &self.n2,
                )
            },
        );
        // Prove log_{B²}(A²) = d_k: combining squares the shares too, so factors of order 2 are
        // irrelevant to decryption, and the check does not leave them to a coin flip.
        let (a, b) = (mul_mod(&a, &a, &self.n2), mul_mod(&b, &b, &self.n2));
        t.append_integer(b"A", &a);
        t.append_integer(b"B", &b);
        Ok((t, a, b))
    }

    /// Verifies mixer k's batch of decryption shares: recompute A², B² and
    /// `T = (B²)^z · (A²)^{−chal}`,
    /// and compare the challenge.
    pub fn verify_shares(
        &self,
        k: usize,
        cts: &[Integer],
        shares: &[Integer],
        proof: &ShareProof,
    ) -> Result<()> {
        // One gcd per share: in parallel, or it alone caps the 2-thread speed-up of the check.
        shares.par_iter().try_for_each(|s| {
            self.check_ciphertext(s)
                .map_err(|_| Error::Verify("decryption share out of range".into()))
        })?;
        ensure(
            proof.z.cmp0() != std::cmp::Ordering::Less
                && proof.z.significant_bits() <= self.share_mask_bits() + 1,
            "decryption-share proof: response out of range",
        )?;
        let (mut t, a, b) = self.share_batch(k, cts, shares)?;
        let ac = pow_mod(&a, &proof.chal, &self.n2)?;
        let tt = mul_mod(
            &pow_mod(&b, &proof.z, &self.n2)?,
            &invert(&ac, &self.n2)?,
            &self.n2,
        );
        t.append_integer(b"T", &tt);
        ensure(
            t.challenge_bits(b"chal", self.security.challenge_bits) == proof.chal,
            "decryption-share proof: challenge mismatch",
        )
    }
}

impl ThresholdSecretShare {
    /// `c^{4 d_k} mod N²` (a ≈4099-bit exponent; mixers hold no factors, so no CRT).
    pub fn decryption_share(&self, pk: &ThresholdPublicKey, c: &Integer) -> Integer {
        let e = Integer::from(&self.d * 4u32);
        pow_mod(c, &e, &pk.n2).expect("non-negative exponent")
    }

    /// Shares of many ciphertexts, in parallel.
    pub fn decryption_shares(&self, pk: &ThresholdPublicKey, cts: &[Integer]) -> Vec<Integer> {
        cts.par_iter()
            .map(|c| {
                let s = self.decryption_share(pk, c);
                crate::primitives::counters::tick(1);
                s
            })
            .collect()
    }

    /// Batched proof that `shares[i] = cts[i]^{4 d_k}` for all i, up to factors of order 2
    /// (Bellare–Garay–Rabin small exponents): `A² = (B²)^{d_k}`; prove it with `T = (B²)^ρ`,
    /// `z = ρ + chal·d_k`.
    pub fn prove_shares(
        &self,
        pk: &ThresholdPublicKey,
        cts: &[Integer],
        shares: &[Integer],
        rng: &mut (impl RngCore + CryptoRng),
    ) -> Result<ShareProof> {
        let (mut t, _a, b) = pk.share_batch(self.index, cts, shares)?;
        let rho = random_bits(rng, pk.share_mask_bits());
        let tt = pow_mod(&b, &rho, &pk.n2)?;
        t.append_integer(b"T", &tt);
        let chal = t.challenge_bits(b"chal", pk.security.challenge_bits);
        let z = rho + Integer::from(&chal * &self.d);
        Ok(ShareProof { chal, z })
    }
}

crate::wire_struct!(impl ThresholdSecretShare { wire index, wire d });
crate::wire_struct!(impl ShareProof { wire chal, wire z });

/// The public key without its table (a receiver builds the table it needs itself, see
/// [`ThresholdPublicKey::table_shape`]).
impl crate::primitives::wire::Wire for ThresholdPublicKey {
    fn put(&self, out: &mut Vec<u8>) {
        self.n.put(out);
        self.h.put(out);
        self.v.put(out);
        self.vks.put(out);
        self.security.put(out);
    }
    fn get(inp: &mut &[u8]) -> crate::Result<Self> {
        let n = Integer::get(inp)?;
        let h = Integer::get(inp)?;
        let v = Integer::get(inp)?;
        let vks = Vec::get(inp)?;
        let security = Security::get(inp)?;
        if n <= 1 {
            return Err(crate::Error::Input(
                "malformed message: a threshold key with N <= 1".into(),
            ));
        }
        let n2 = Integer::from(n.square_ref());
        let inv4 = crate::primitives::bigint::invert(&Integer::from(4), &n)?;
        let hn = crate::primitives::bigint::pow_mod(&h, &n, &n2)?;
        Ok(ThresholdPublicKey {
            n,
            n2,
            inv4,
            h,
            hn,
            v,
            vks,
            table: None,
            security,
        })
    }
}

impl ThresholdPublicKey {
    /// The shape of this key's fixed-base table for H, if it has one: (window, exponent bits),
    /// what [`ThresholdPublicKey::build_table_bits`] takes.
    pub fn table_shape(&self) -> Option<(u32, u32)> {
        self.table.as_ref().map(|t| (t.window, t.exp_bits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proofs::plaintext::PlaintextPok;

    fn test_ctxs(n: usize) -> Vec<Vec<u8>> {
        vec![b"test".to_vec(); n]
    }
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn rng(seed: u64) -> ChaCha20Rng {
        ChaCha20Rng::seed_from_u64(seed)
    }

    fn small_key(m: usize) -> ThresholdKey {
        let mut key = ThresholdKey::fixed_small_test_key(&mut rng(7), m);
        key.pk.build_table(6);
        key
    }

    fn decrypt(key: &ThresholdKey, c: &Integer) -> Integer {
        let shares: Vec<Integer> = key
            .shares
            .iter()
            .map(|s| s.decryption_share(&key.pk, c))
            .collect();
        key.pk.combine(&shares).unwrap()
    }

    #[test]
    fn fresh_keygen_round_trip() {
        let mut r = rng(1);
        let key = ThresholdKey::generate(&mut r, 256, 3);
        assert_eq!(key.pk.n.significant_bits(), 256);
        assert_eq!(key.pk.n2.significant_bits(), 511);
        let m = Integer::from(123456789u64);
        let (c, _) = key.pk.encrypt(&m, &mut r);
        assert_eq!(decrypt(&key, &c), m);
    }

    #[test]
    fn round_trip_reencryption_and_homomorphism() {
        let key = small_key(4);
        let mut r = rng(2);
        let m1 = random_below(&mut r, &key.pk.n);
        let m2 = random_below(&mut r, &key.pk.n);
        let (c1, _) = key.pk.encrypt(&m1, &mut r);
        let (c2, _) = key.pk.encrypt(&m2, &mut r);
        assert_eq!(decrypt(&key, &c1), m1);
        let (c1b, _) = key.pk.reencrypt(&c1, &mut r);
        assert_ne!(c1b, c1);
        assert_eq!(decrypt(&key, &c1b), m1);
        let sum = Integer::from(&m1 + &m2) % &key.pk.n;
        assert_eq!(decrypt(&key, &key.pk.add(&c1, &c2)), sum);
        // With and without the table give the same ciphertext.
        let rr = key.pk.random_r(&mut r);
        let mut plain = key.pk.clone();
        plain.table = None;
        assert_eq!(plain.encrypt_with(&m1, &rr), key.pk.encrypt_with(&m1, &rr));
    }

    #[test]
    fn wrong_share_combination_gives_wrong_plaintext() {
        let key = small_key(3);
        let mut r = rng(3);
        let m = Integer::from(42);
        let (c, _) = key.pk.encrypt(&m, &mut r);
        let mut shares: Vec<Integer> = key
            .shares
            .iter()
            .map(|s| s.decryption_share(&key.pk, &c))
            .collect();
        // Missing one mixer's contribution: error or garbage, never m.
        shares[1] = Integer::from(1);
        assert_ne!(key.pk.combine(&shares).ok(), Some(m.clone()));
        // A share of a different ciphertext.
        let (c2, _) = key.pk.encrypt(&m, &mut r);
        shares[1] = key.shares[1].decryption_share(&key.pk, &c2);
        assert_ne!(key.pk.combine(&shares).ok(), Some(m));
        assert!(key.pk.combine(&shares[..2]).is_err());
    }

    #[test]
    fn long_table_gives_the_same_proofs_and_checks() {
        let key = small_key(2);
        let mut long = key.pk.clone();
        long.build_table_bits(5, long.long_exponent_bits());
        let mut none = key.pk.clone();
        none.table = None;
        let mut r = rng(14);
        let m = Integer::from(5);
        let (c, rr) = long.encrypt(&m, &mut r);
        assert_eq!(none.encrypt_with(&m, &rr), c);
        let big = random_bits(&mut r, long.long_exponent_bits());
        assert_eq!(long.h_pow(&big), none.h_pow(&big));
        let p1 = long.prove_plaintext(b"test", &c, &m, &rr, &mut r);
        none.verify_plaintext(b"test", &c, &p1).unwrap();
        let p2 = none.prove_plaintext(b"test", &c, &m, &rr, &mut r);
        long.verify_plaintext(b"test", &c, &p2).unwrap();
        long.verify_plaintext_batch(&test_ctxs(2), &[c.clone(), c.clone()], &[p1.clone(), p2])
            .unwrap();
        let mut bad = p1;
        bad.z_r += 1;
        assert!(long.verify_plaintext(b"test", &c, &bad).is_err());
    }

    fn share_setup(n: usize) -> (ThresholdKey, Vec<Integer>, Vec<Integer>) {
        let key = small_key(3);
        let mut r = rng(5);
        let cts: Vec<Integer> = (0..n)
            .map(|i| key.pk.encrypt(&Integer::from(i), &mut r).0)
            .collect();
        let shares = key.shares[1].decryption_shares(&key.pk, &cts);
        (key, cts, shares)
    }

    /// Mixer 1's proof of `shares` of `cts`, with randomness from `seed`.
    fn prove_as_mixer_1(
        key: &ThresholdKey,
        cts: &[Integer],
        shares: &[Integer],
        seed: u64,
    ) -> ShareProof {
        key.shares[1]
            .prove_shares(&key.pk, cts, shares, &mut rng(seed))
            .unwrap()
    }

    #[test]
    fn share_proof_completes() {
        let (key, cts, shares) = share_setup(8);
        let proof = prove_as_mixer_1(&key, &cts, &shares, 6);
        key.pk.verify_shares(1, &cts, &shares, &proof).unwrap();
        assert!(proof.z > 0);
        // The proof is for mixer 1's key only.
        assert!(key.pk.verify_shares(0, &cts, &shares, &proof).is_err());
        // Decryption with all honest shares works.
        let all: Vec<Vec<Integer>> = key
            .shares
            .iter()
            .map(|s| s.decryption_shares(&key.pk, &cts))
            .collect();
        let out = key.pk.combine_all(&all).unwrap();
        assert_eq!(out, (0..8).map(Integer::from).collect::<Vec<_>>());
    }

    #[test]
    fn share_batch_rejects_exactly_one_bad_share_including_index_0() {
        let (key, cts, shares) = share_setup(6);
        for bad_index in [0usize, 3, 5] {
            let mut bad = shares.clone();
            // A share with the wrong exponent (d_k + 1), still a valid residue.
            bad[bad_index] = mul_mod(
                &bad[bad_index],
                &pow_mod(&cts[bad_index], &Integer::from(4), &key.pk.n2).unwrap(),
                &key.pk.n2,
            );
            // The honest proof no longer fits the tampered batch ...
            let honest = prove_as_mixer_1(&key, &cts, &shares, 8);
            assert!(key.pk.verify_shares(1, &cts, &bad, &honest).is_err());
            // ... and a proof made over the tampered batch fails too.
            let forged = prove_as_mixer_1(&key, &cts, &bad, 9);
            assert!(
                key.pk.verify_shares(1, &cts, &bad, &forged).is_err(),
                "bad share at index {bad_index} accepted"
            );
        }
    }

    #[test]
    fn order_two_factor_in_a_share_changes_nothing() {
        let (key, cts, mut shares) = share_setup(3);
        // −s: the proof (on squares) and the combination (of squares) both ignore the sign.
        shares[0] = Integer::from(&key.pk.n2 - &shares[0]);
        let proof = prove_as_mixer_1(&key, &cts, &shares, 15);
        key.pk.verify_shares(1, &cts, &shares, &proof).unwrap();
        let col: Vec<Integer> = vec![
            key.shares[0].decryption_share(&key.pk, &cts[0]),
            shares[0].clone(),
            key.shares[2].decryption_share(&key.pk, &cts[0]),
        ];
        assert_eq!(key.pk.combine(&col).unwrap(), Integer::from(0));
    }

    /// The guards before the equation: every share a unit in (0, N²), the response
    /// non-negative and no longer than the mask allows. Each rejection names the guard.
    #[test]
    fn share_proof_rejects_out_of_range_shares_and_responses() {
        let (key, cts, shares) = share_setup(4);
        let pk = &key.pk;
        let proof = prove_as_mixer_1(&key, &cts, &shares, 17);
        pk.verify_shares(1, &cts, &shares, &proof).unwrap();
        let p_prime = from_hex(fixed::P_1024);
        for (what, bad) in [
            ("zero", Integer::new()),
            ("N²", pk.n2.clone()),
            ("above N²", Integer::from(&pk.n2 + 5u32)),
            ("negative", Integer::from(-3)),
            ("not a unit", p_prime.clone()),
        ] {
            let mut s = shares.clone();
            s[2] = bad;
            let err = pk.verify_shares(1, &cts, &s, &proof).unwrap_err();
            assert!(err.to_string().contains("out of range"), "{what}: {err}");
        }
        for (what, z) in [
            ("negative response", Integer::from(-&proof.z)),
            (
                "long response",
                Integer::from(1) << (pk.share_mask_bits() + 2),
            ),
        ] {
            let bad = ShareProof { z, ..proof.clone() };
            let err = pk.verify_shares(1, &cts, &shares, &bad).unwrap_err();
            assert!(err.to_string().contains("out of range"), "{what}: {err}");
        }
    }

    #[test]
    fn share_proof_rejects_tampered_response_challenge_and_statement() {
        let (key, cts, shares) = share_setup(4);
        let proof = prove_as_mixer_1(&key, &cts, &shares, 10);
        let mut bad = proof.clone();
        bad.z += 1;
        assert!(key.pk.verify_shares(1, &cts, &shares, &bad).is_err());
        let mut bad = proof.clone();
        bad.chal += 1;
        assert!(key.pk.verify_shares(1, &cts, &shares, &bad).is_err());
        let mut cts2 = cts.clone();
        cts2[0] = key.pk.reencrypt(&cts2[0], &mut rng(11)).0;
        assert!(key.pk.verify_shares(1, &cts2, &shares, &proof).is_err());
        let mut pk2 = key.pk.clone();
        pk2.vks[1] = mul_mod(&pk2.vks[1], &pk2.v, &pk2.n2);
        assert!(pk2.verify_shares(1, &cts, &shares, &proof).is_err());
        assert!(key
            .pk
            .verify_shares(1, &cts[..3], &shares[..3], &proof)
            .is_err());
    }

    /// The real-size (2050-bit N, like upstream) fixed key: one full round with every proof.
    #[test]
    fn paper_size_fixed_key_round() {
        let mut r = rng(12);
        let mut key = ThresholdKey::fixed_test_key(&mut r, 2);
        assert_eq!(key.pk.n.significant_bits(), 2050);
        assert_eq!(key.pk.n2.significant_bits(), 4099);
        assert_eq!(key.pk.pok_mask_bits(), 2258);
        // Upstream's lengths at paper security.
        key.pk.security = Security::PAPER;
        assert_eq!(key.pk.pok_mask_bits(), 2170);
        key.pk.build_table(8);
        let pk = &key.pk;
        let m = Integer::from(987654321u64);
        let (c, rr) = pk.encrypt(&m, &mut r);
        let proof = pk.prove_plaintext(b"test", &c, &m, &rr, &mut r);
        pk.verify_plaintext(b"test", &c, &proof).unwrap();
        let cts = vec![c.clone(), pk.reencrypt(&c, &mut r).0];
        let all: Vec<Vec<Integer>> = key
            .shares
            .iter()
            .map(|s| s.decryption_shares(pk, &cts))
            .collect();
        for (k, s) in key.shares.iter().enumerate() {
            let p = s.prove_shares(pk, &cts, &all[k], &mut r).unwrap();
            pk.verify_shares(k, &cts, &all[k], &p).unwrap();
        }
        assert_eq!(pk.combine_all(&all).unwrap(), vec![m.clone(), m]);
    }
}
