//! Per-mixer Paillier in the Ma–Han–Lei variant (ACSAC'21 §3.2). Its proof of knowledge of
//! plaintext, shared with the threshold scheme, is [`crate::proofs::plaintext`].
//!
//! * `N = PQ` with `P = 2pp'+1`, `Q = 2qq'+1`; p, q are l/2-bit primes and p', q' primes of
//!   (n−l)/2 − 1 bits, all four distinct. `α = pq`, `β = p'q'`. Ma-Han-Lei only ask p', q' to
//!   be odd and coprime to p, q (upstream's fixed key has p' = 3²·5·11·…); then Z*_N has
//!   elements of small odd order, and a sender who multiplies its ciphertext by one of order 3
//!   passes the proof of knowledge once in three tries with a ciphertext that does not decrypt.
//!   With p', q' prime the only small orders are 1 and 2, which decryption (raising to 2α) and
//!   the batch verifier (which squares) both absorb.
//! * `h = −y^{2β} mod N` has order dividing α; `H = h^N mod N²`.
//! * `Enc(m; r) = (1+N)^m · H^r mod N²` with r of l bits (448: a short exponent).
//! * Decryption raises to 2α (≈ 442 bits) mod P² and mod Q² and recombines by CRT.
//!
//! Upstream's per-mixer key records `precomputing=None`, so its 448-bit fixed-base table is built
//! but never used (B4). Here [`PaillierPublicKey::build_table`] is optional: a caller mimicking
//! upstream's cost builds a table for the keygen timing and encrypts with [`PaillierPublicKey::encrypt_without_table`].

use crate::error::ensure;
use crate::primitives::bigint::{
    self, from_hex, invert, l_function, mul_mod, pow_mod, random_bits, random_unit, FixedBaseTable,
};
use crate::primitives::security::Security;
use crate::{Error, Result};
use rand::{CryptoRng, RngCore};
use rug::{Complete, Integer};
use std::sync::Arc;

/// Key-size parameters: modulus bits `n` and short-exponent bits `l` (upstream 2048 and 448).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MhlParams {
    /// Bits of N.
    pub n_bits: u32,
    /// Bits of the encryption randomness r.
    pub l_bits: u32,
}

impl MhlParams {
    /// The paper's sizes: 2048-bit N, 448-bit r.
    pub const PAPER: MhlParams = MhlParams {
        n_bits: 2048,
        l_bits: 448,
    };
    /// For fast tests only.
    pub const SMALL: MhlParams = MhlParams {
        n_bits: 1024,
        l_bits: 256,
    };
}

#[derive(Clone, Debug)]
/// A mixer's public key.
pub struct PaillierPublicKey {
    /// The modulus N = PQ.
    pub n: Integer,
    /// N².
    pub n2: Integer,
    /// `H = h^N mod N²`.
    pub hn: Integer,
    /// Bits of the encryption randomness r (l).
    pub l_bits: u32,
    table: Option<Arc<FixedBaseTable>>,
    /// Challenge, batching and slack lengths of this key's proofs.
    pub security: Security,
}

#[derive(Clone, Debug)]
/// A mixer's secret key: the factors and the CRT constants of decryption.
pub struct PaillierSecretKey {
    /// The prime p (of P = 2pp′ + 1).
    pub p: Integer,
    /// The prime q (of Q = 2qq′ + 1).
    pub q: Integer,
    /// P².
    pub p2: Integer,
    /// Q².
    pub q2: Integer,
    /// `2α = 2pq`, the decryption exponent.
    pub two_alpha: Integer,
    /// `L_P((1+N)^{2α} mod P²)⁻¹ mod P`, and the same for Q.
    pub hp: Integer,
    /// See `hp`, mod Q.
    pub hq: Integer,
    /// `P⁻¹ mod Q`, for the CRT recombination.
    pub p_inv_q: Integer,
}

#[derive(Clone, Debug)]
/// A mixer's key pair.
pub struct PaillierKey {
    /// The public key.
    pub pk: PaillierPublicKey,
    /// The secret key.
    pub sk: PaillierSecretKey,
}

/// Fixed test key material (P = 2pp′+1, Q = 2qq′+1 with p, q, p′, q′ prime, each as
/// `[P, p, Q, q]` in hexadecimal), generated once by [`PaillierKey::search_primes`] from the
/// operating system's generator and checked in so that `--test-keys` runs and tests skip the
/// search. TEST KEYS ONLY: public, never secret.
pub mod fixed {
    /// Four keys with n = 2048, l = 448 (upstream's parameters), one per mixer of a run with up
    /// to four mixers and `--test-keys`.
    pub const MIXER_2048: [[&str; 4]; 4] = [
        [
            "ef281d15141449a3f40bafe02a46c56120c7e36015fc4144fd3f5358b292a936b5d99d314d89186beb8853c4edd2765fb25819019f75f16486fdf7fae9fe80c1dfd86a94d19edcc036084d26b78fee58e856fdbba1c6046f0b52a3d4225091319fd50e19f91653aa61e6413028643057a2c72628d41322f0a08487b14228322f",
            "fec0b32c5f503d409035cbfff5b6e94fba74dcdaf085bd5674da422f",
            "e54e605ff2157d85fda6d1b29bd4d89903fb255989957e3b6cf1181ba3c21ba6eac5f6ca730e470a1e70f108a4f939d5ff7ff5aeb30bbebfdfad6dfb0ae6a21893abcb5e1898ae8deeab2df02b3580296ae13170c56c580896d4df615baaa8aa7f685d04325a5a5a724ccd396a81987143e215795c5c24a6d490e9d4adf97217",
            "e8b006cada095b255b0466fb370eb485b77b1a3218c56dfd81cacc39",
        ],
        [
            "d9d539bad5e90cd182a523475881021c4d47c9321d2ee899401fafb1bc96c5e8c6f5bc76d288566554c0fc0f9a5e622a6b60dd370696329fc9a02c7b91b2e64e65dffc196104dfc17e6c54ab3d7eb18bdb6cd606aac3c73cda0e01b6103d6fcc6bc76fa5c9c8d03e2751692a8df6fcc2330c6ed39f42875b5b146ba827ce445b",
            "e70466ec73a63300a12912f9e9eaadfcc41d1fe380f76f1e550a869b",
            "f4cecfa5762940d27b0d52e82abb7428c6b0e6b3e98deea4ea101757816a78ae1818faaf022b38b3391977259a8155c059b1eef0ab9a74d4a027483e939d164149bc83a38592ed01054c8dd000ab748ba7dcba909c1a01640fd03aa6eb859bb3afc91a425f757d4aaffa84b7eb60fe3eb86d6cfbd00e4cbb8597a113dddc589b",
            "f82ede943e4f3a259080e35704448c8e1c70026b53a0fbd1a7ac2b89",
        ],
        [
            "dea61b2563a2cc2666eb2cdbff447a658828754328f1e02bd8f3bbb1f25356e12d7c382ae4b51f95e97059fc4ad8bbb4a00b38443b0a8d47592e0b59ac4934246743bd12b2e0bee6ab3044d1e4304302c16592ba5043b0d39ca9e916931abf6379d1f00099dd4ea7e7daf4048b01ac358c5e3f49731f9fc54732da524fdd5d67",
            "e8bef33442f949232c9726f5d6f3243e0ada33e1498463b9e99ec645",
            "cb9fe7bb68b1fd45f1ee0a95ed6b25bdeb92808bea339c1a9108eb65ea7c9bb8d5f8e237cc2bab7f0afb3b40d2e6f4a6facad17bb8b084397e9ff57a690d3d2dd45eedbbf5c50c67b5bb289f19236ebbce184da2a8fe6930db3084def79e854093e884d7a31ade2b73262f3764fa0bfa255275d9e1c46a7e60a3fc0570c3719f",
            "e2d8151c6691597b76a6bcf2ca9530a507a23c8321905d20d41565b9",
        ],
        [
            "dade503d88efba778e993433f79478d8b04aeab5c17a9aaab159187354da91437e9235573fea6eb41b50a62b1df5710677a35f9b0717ad8dd9eff296a81ab070717df0b5c6dea0a4ac156e3695e9970fdae57bbaa9adc520526057f3208f553a3d7d70205a8d107612d1c53776974d385b2123c70171bc58a36ab2ff2beb6a47",
            "f7e0c0ee82ba7cd5c33a95ac4798255fc69861fc91fa4db26673fb6f",
            "db9f97d2037208504ac26a02584fa7c21c0022ad766e7b8be3d6496eb2aa9cb2c1e5fe56a12e26ee7a7c4fa9ef30b87cde84a499451fd9f6c1dae6a12cb97dc3c67af985ef104e1cfccf7f6847f4b5e9c3fe8312e8ab7f44fca3d70302df0fcc60a0a3ad032b7d926b1c3318aa531fe6c3f13b255b08abc2f78fa5c11b99d663",
            "f8416575490f34d68c047b18486bc07f33e8c7e984d748adc6e3ee45",
        ],
    ];
    /// One key with n = 1024, l = 256, for fast tests.
    pub const SMALL_1024: [&str; 4] = [
        "da7fe708dc738c277fc8d3a9291fd8c234389fb3a258772f97d3f9cbff8bf5c59b8dbb8455158e35efbb0f85aff9610f2b21b59539429c23f79cac418d91799b",
        "e41876770a183da011e20c9b0868b831",
        "ea9c121a5627faa1603dab67769ae5a7efe589d23f04e582fd74f226f292434c7396c3581a73b3e78eaf2aff787030979723ccea325c16f2b5a4f4a0482bc327",
        "f74fda287449d35457a7977ce323fae9",
    ];
}

impl PaillierKey {
    /// Finds (P, p, Q, q) for the given sizes (about a second at 2048 bits).
    pub fn search_primes(
        rng: &mut (impl RngCore + CryptoRng),
        params: MhlParams,
    ) -> (Integer, Integer, Integer, Integer) {
        let half = params.l_bits / 2;
        let other = (params.n_bits - params.l_bits) / 2 - 1;
        loop {
            let (big_p, p, pp) = Self::one_prime(rng, half, other);
            let (big_q, q, qp) = Self::one_prime(rng, half, other);
            if p != q
                && pp != qp
                && Integer::from(&big_p * &big_q).significant_bits() == params.n_bits
            {
                return (big_p, p, big_q, q);
            }
        }
    }

    /// `P = 2·p·p' + 1` prime, with p a `half`-bit and p' an `other`-bit prime. The top three bits
    /// of p and p' are set, so that P has half + other + 1 bits and a product of two such P has
    /// twice that (`1.75² > 2`).
    fn one_prime(
        rng: &mut (impl RngCore + CryptoRng),
        half: u32,
        other: u32,
    ) -> (Integer, Integer, Integer) {
        let p = bigint::random_prime_with_top(rng, half, 0b111, 3);
        let (pp, big) = bigint::prime_pair(rng, &p, other, 0b111, 3);
        (big, p, pp)
    }

    /// Fresh key (upstream's non-debug path).
    pub fn generate(rng: &mut (impl RngCore + CryptoRng), params: MhlParams) -> Self {
        let (bp, p, bq, q) = Self::search_primes(rng, params);
        Self::from_primes(rng, &bp, &p, &bq, &q, params.l_bits).expect("fresh primes are valid")
    }

    /// TEST KEY k (0..4) from the checked-in 2048-bit material ([`fixed`]); fresh y.
    pub fn fixed_test_key(rng: &mut (impl RngCore + CryptoRng), k: usize) -> Self {
        let [bp, p, bq, q] = fixed::MIXER_2048[k].map(from_hex);
        Self::from_primes(rng, &bp, &p, &bq, &q, MhlParams::PAPER.l_bits)
            .expect("checked-in test key is valid")
    }

    /// TEST KEY from the checked-in 1024-bit material ([`fixed`]), for fast tests.
    pub fn fixed_small_test_key(rng: &mut (impl RngCore + CryptoRng)) -> Self {
        let [bp, p, bq, q] = fixed::SMALL_1024.map(from_hex);
        Self::from_primes(rng, &bp, &p, &bq, &q, MhlParams::SMALL.l_bits)
            .expect("checked-in test key is valid")
    }

    /// Checks the shape of a key's primes: `P = 2pp′+1`, `Q = 2qq′+1` with P, p, p′, Q, q, q′
    /// prime and P ≠ Q, p ≠ q, p′ ≠ q′.
    pub fn check_primes(big_p: &Integer, p: &Integer, big_q: &Integer, q: &Integer) -> Result<()> {
        Self::cofactors(big_p, p, big_q, q).map(|_| ())
    }

    /// (p′, q′) of valid primes, else an error naming the problem.
    fn cofactors(
        big_p: &Integer,
        p: &Integer,
        big_q: &Integer,
        q: &Integer,
    ) -> Result<(Integer, Integer)> {
        let (pp, rp) = Integer::from(big_p - 1u32).div_rem(Integer::from(p * 2u32));
        let (qp, rq) = Integer::from(big_q - 1u32).div_rem(Integer::from(q * 2u32));
        if rp != 0 || rq != 0 || big_p == big_q || p == q || pp == qp {
            return Err(Error::Input(
                "P - 1 must be 2p·p' and Q - 1 must be 2q·q', with P ≠ Q, p ≠ q and p' ≠ q'".into(),
            ));
        }
        for x in [big_p, p, &pp, big_q, q, &qp] {
            if !bigint::is_prime(x) {
                return Err(Error::Input(
                    "P, p, p', Q, q, q' must be prime (a composite p' or q' leaves elements of \
                     small odd order in Z*_N)"
                        .into(),
                ));
            }
        }
        Ok((pp, qp))
    }

    /// Key from `P = 2pp'+1`, `Q = 2qq'+1` and the small primes p, q.
    pub fn from_primes(
        rng: &mut (impl RngCore + CryptoRng),
        big_p: &Integer,
        p: &Integer,
        big_q: &Integer,
        q: &Integer,
        l_bits: u32,
    ) -> Result<Self> {
        let (pp, qp) = Self::cofactors(big_p, p, big_q, q)?;
        let n = Integer::from(big_p * big_q);
        let n2 = Integer::from(&n * &n);
        let beta = Integer::from(&pp * &qp);
        let y = random_unit(rng, &n);
        let y2b = pow_mod(&y, &Integer::from(&beta * 2u32), &n)?;
        let h = &n - y2b;
        let hn = pow_mod(&h, &n, &n2)?;
        let two_alpha = Integer::from(p * q) * 2u32;
        let p2 = Integer::from(big_p * big_p);
        let q2 = Integer::from(big_q * big_q);
        let one_plus_n = Integer::from(&n + 1u32);
        let hp_of = |m: &Integer, m2: &Integer| -> Result<Integer> {
            let u = pow_mod(&one_plus_n, &two_alpha, m2)?;
            invert(&l_function(&u, m), m)
        };
        let hp = hp_of(big_p, &p2)?;
        let hq = hp_of(big_q, &q2)?;
        let p_inv_q = invert(big_p, big_q)?;
        Ok(PaillierKey {
            pk: PaillierPublicKey {
                n,
                n2,
                hn,
                l_bits,
                table: None,
                security: Security::default(),
            },
            sk: PaillierSecretKey {
                p: big_p.clone(),
                q: big_q.clone(),
                p2,
                q2,
                two_alpha,
                hp,
                hq,
                p_inv_q,
            },
        })
    }

    /// CRT decryption: `m_P = L_P(c^{2α} mod P²)·hp mod P`, same mod Q, recombined mod N.
    pub fn decrypt(&self, c: &Integer) -> Result<Integer> {
        crate::primitives::counters::composite("CRT_dec", || self.decrypt_uncounted(c))
    }

    fn decrypt_uncounted(&self, c: &Integer) -> Result<Integer> {
        self.pk.check_ciphertext(c)?;
        let sk = &self.sk;
        let half = |m: &Integer, m2: &Integer, hm: &Integer| -> Result<Integer> {
            let u = pow_mod(&Integer::from(c % m2), &sk.two_alpha, m2)?;
            ensure(Integer::from(&u % m) == 1, "not a valid ciphertext")?;
            Ok(mul_mod(&l_function(&u, m), hm, m))
        };
        let mp = half(&sk.p, &sk.p2, &sk.hp)?;
        let mq = half(&sk.q, &sk.q2, &sk.hq)?;
        let t = mul_mod(
            &bigint::rem_euc(&Integer::from(&mq - &mp), &sk.q),
            &sk.p_inv_q,
            &sk.q,
        );
        Ok(mp + t * &sk.p)
    }
}

impl PaillierPublicKey {
    /// Builds the optional fixed-base table for H with l-bit exponents (2048-bit N², l = 448:
    /// window 13 is 35·8191·512 B ≈ 147 MB, window 8 ≈ 7.3 MB).
    pub fn build_table(&mut self, window: u32) {
        self.build_table_bits(window, self.l_bits);
    }

    /// A table for H covering `exp_bits`-bit exponents; covering
    /// `pok_mask_bits() + 1 + κ_e + 24` makes the PoK of plaintext table-driven as well.
    pub fn build_table_bits(&mut self, window: u32, exp_bits: u32) {
        self.table = Some(Arc::new(FixedBaseTable::new(
            &self.hn, &self.n2, exp_bits, window,
        )));
    }

    /// The fixed-base table for H, if built.
    pub fn table(&self) -> Option<&FixedBaseTable> {
        self.table.as_deref()
    }

    /// Mask length of the PoK of plaintext: bitlen(N) + κ_c + the PoK slack (2256 at 2048 bits
    /// and 128-bit security; upstream's 2168 = 2048 + 80 + 2·20 at paper security). chal·m has
    /// at most bitlen(N) + κ_c bits.
    pub fn pok_mask_bits(&self) -> u32 {
        self.n.significant_bits() + self.security.challenge_bits + self.security.pok_slack_bits
    }

    /// Longest H-exponent the PoK of plaintext raises: a batch verifier's `Σ δ_i·z_r,i` (mask + 1
    /// + κ_e bits plus log2 of the batch, 24 bits of headroom: batches up to 2^24 proofs).
    pub fn long_exponent_bits(&self) -> u32 {
        self.pok_mask_bits() + 1 + self.security.batch_bits + 24
    }

    /// Fresh encryption randomness (l bits).
    pub fn random_r(&self, rng: &mut (impl RngCore + CryptoRng)) -> Integer {
        random_bits(rng, self.l_bits)
    }

    fn one_plus_n_pow(&self, m: &Integer) -> Integer {
        (bigint::rem_euc(m, &self.n) * &self.n + 1u32) % &self.n2
    }

    /// `(1+N)^m · H^r mod N²`, using the table if one is built.
    pub fn encrypt_with(&self, m: &Integer, r: &Integer) -> Integer {
        let hr = match &self.table {
            Some(t) => t.pow(r),
            None => pow_mod(&self.hn, r, &self.n2).expect("non-negative exponent"),
        };
        mul_mod(&self.one_plus_n_pow(m), &hr, &self.n2)
    }

    /// `(1+N)^m · H^r mod N²` with a plain l-bit powmod (upstream's cost, B4).
    pub fn encrypt_without_table(&self, m: &Integer, r: &Integer) -> Integer {
        let hr = pow_mod(&self.hn, r, &self.n2).expect("non-negative exponent");
        mul_mod(&self.one_plus_n_pow(m), &hr, &self.n2)
    }

    /// `Enc(m; r)` with fresh r; returns the ciphertext and r.
    pub fn encrypt(&self, m: &Integer, rng: &mut (impl RngCore + CryptoRng)) -> (Integer, Integer) {
        let r = self.random_r(rng);
        (self.encrypt_with(m, &r), r)
    }

    /// A ciphertext is a unit in (0, N²).
    pub fn check_ciphertext(&self, c: &Integer) -> Result<()> {
        ensure(
            *c > 0 && *c < self.n2 && c.gcd_ref(&self.n).complete() == 1,
            "ciphertext out of range or not a unit",
        )
    }
}

/// The public key without its table (a receiver builds the table it needs itself, see
/// [`PaillierPublicKey::table_shape`]).
impl crate::primitives::wire::Wire for PaillierPublicKey {
    fn put(&self, out: &mut Vec<u8>) {
        self.n.put(out);
        self.hn.put(out);
        self.l_bits.put(out);
        self.security.put(out);
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        let n = Integer::get(inp)?;
        let hn = Integer::get(inp)?;
        let l_bits = u32::get(inp)?;
        let security = Security::get(inp)?;
        if n <= 1 {
            return Err(Error::Input(
                "malformed message: a Paillier key with N <= 1".into(),
            ));
        }
        let n2 = Integer::from(n.square_ref());
        Ok(PaillierPublicKey {
            n,
            n2,
            hn,
            l_bits,
            table: None,
            security,
        })
    }
}

impl PaillierPublicKey {
    /// The shape of this key's fixed-base table for H, if it has one: (window, exponent bits),
    /// what [`PaillierPublicKey::build_table_bits`] takes.
    pub fn table_shape(&self) -> Option<(u32, u32)> {
        self.table.as_ref().map(|t| (t.window, t.exp_bits))
    }
}

crate::wire_struct!(impl PaillierSecretKey {
    wire p, wire q, wire p2, wire q2, wire two_alpha, wire hp, wire hq, wire p_inv_q
});
crate::wire_struct!(impl PaillierKey { wire pk, wire sk });

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proofs::plaintext::PlaintextPok;

    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn rng(seed: u64) -> ChaCha20Rng {
        ChaCha20Rng::seed_from_u64(seed)
    }

    #[test]
    fn fresh_keygen_round_trip() {
        let mut r = rng(1);
        let params = MhlParams {
            n_bits: 512,
            l_bits: 128,
        };
        let key = PaillierKey::generate(&mut r, params);
        assert_eq!(key.pk.n.significant_bits(), 512);
        let m = Integer::from(31337);
        let (c, _) = key.pk.encrypt(&m, &mut r);
        assert_eq!(key.decrypt(&c).unwrap(), m);
    }

    #[test]
    fn round_trip_homomorphism_and_table() {
        let mut r = rng(2);
        let mut key = PaillierKey::fixed_small_test_key(&mut r);
        let m1 = bigint::random_below(&mut r, &key.pk.n);
        let m2 = bigint::random_below(&mut r, &key.pk.n);
        let (c1, r1) = key.pk.encrypt(&m1, &mut r);
        let (c2, _) = key.pk.encrypt(&m2, &mut r);
        assert_eq!(key.decrypt(&c1).unwrap(), m1);
        let sum = mul_mod(&c1, &c2, &key.pk.n2);
        assert_eq!(
            key.decrypt(&sum).unwrap(),
            Integer::from(&m1 + &m2) % &key.pk.n
        );
        key.pk.build_table(6);
        assert_eq!(key.pk.encrypt_with(&m1, &r1), c1);
        assert_eq!(key.pk.encrypt_without_table(&m1, &r1), c1);
        assert!(key.decrypt(&Integer::from(0)).is_err());
    }

    #[test]
    fn paper_size_fixed_key() {
        let mut r = rng(4);
        let mut key = PaillierKey::fixed_test_key(&mut r, 0);
        assert_eq!(key.pk.n.significant_bits(), 2048);
        assert_eq!(key.pk.pok_mask_bits(), 2256);
        // Upstream's lengths at paper security.
        key.pk.security = Security::PAPER;
        assert_eq!(key.pk.pok_mask_bits(), 2168);
        assert!(key.sk.two_alpha.significant_bits() <= 450);
        let m = bigint::random_below(&mut r, &key.pk.n);
        let (c, rr) = key.pk.encrypt(&m, &mut r);
        assert_eq!(key.decrypt(&c).unwrap(), m);
        let proof = key.pk.prove_plaintext(b"test", &c, &m, &rr, &mut r);
        key.pk.verify_plaintext(b"test", &c, &proof).unwrap();
    }

    /// Prints fresh key material in the format of [`fixed`]. Run with
    /// `cargo test -p db-sm-rsm --lib -- --ignored --nocapture generate_fixed_mhl_keys`.
    #[test]
    #[ignore = "generates the checked-in test keys"]
    fn generate_fixed_mhl_keys() {
        let mut r = rand::rngs::OsRng;
        let hex = |(bp, p, bq, q): (Integer, Integer, Integer, Integer)| {
            [bp, p, bq, q].map(|x| format!("\"{}\"", x.to_string_radix(16)))
        };
        println!("KEYS_2048");
        for _ in 0..4 {
            let k = hex(PaillierKey::search_primes(&mut r, MhlParams::PAPER));
            println!(
                "        [\n            {},\n        ],",
                k.join(",\n            ")
            );
        }
        println!("KEY_1024");
        let k = hex(PaillierKey::search_primes(&mut r, MhlParams::SMALL));
        println!("        {},", k.join(",\n        "));
    }
}
