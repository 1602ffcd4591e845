//! Big-integer helpers shared by the Paillier-side modules: uniform
//! random integers from a CSPRNG, multi-exponentiation, fixed-base tables, and prime searches.
//!
//! Upstream drew every big random number from gmpy2's `random_state` seeded with one of 100 001
//! values; here all randomness comes from the caller's `CryptoRng` (CSPRNG in docs/fixes.md).

use crate::{Error, Result};
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;
use rug::integer::{IsPrime, Order};
use rug::{Complete, Integer};

/// Uniform integer in `[0, 2^bits)`.
pub fn random_bits(rng: &mut (impl RngCore + CryptoRng), bits: u32) -> Integer {
    if bits == 0 {
        return Integer::new();
    }
    let mut bytes = vec![0u8; bits.div_ceil(8) as usize];
    rng.fill_bytes(&mut bytes);
    let mut x = Integer::from_digits(&bytes, Order::Lsf);
    x.keep_bits_mut(bits);
    x
}

/// Uniform integer in `[0, bound)`, by rejection (at most 2 draws expected).
pub fn random_below(rng: &mut (impl RngCore + CryptoRng), bound: &Integer) -> Integer {
    assert!(*bound > 0, "random_below needs a positive bound");
    let bits = bound.significant_bits();
    loop {
        let x = random_bits(rng, bits);
        if x < *bound {
            return x;
        }
    }
}

/// Uniform unit of `Z_n^*` (rejecting the negligible non-units, so it is exact).
pub fn random_unit(rng: &mut (impl RngCore + CryptoRng), n: &Integer) -> Integer {
    loop {
        let x = random_below(rng, n);
        if x != 0 && x.gcd_ref(n).complete() == 1 {
            return x;
        }
    }
}

/// `base^exp mod modulus`; a negative exponent inverts first (needed where a verifier divides).
pub fn pow_mod(base: &Integer, exp: &Integer, modulus: &Integer) -> Result<Integer> {
    crate::primitives::counters::powmod(exp.significant_bits(), modulus.significant_bits());
    base.pow_mod_ref(exp, modulus)
        .map(Integer::from)
        .ok_or_else(|| Error::Input("base not invertible for a negative exponent".into()))
}

/// `a * b mod modulus`, for operands already reduced.
pub fn mul_mod(a: &Integer, b: &Integer, modulus: &Integer) -> Integer {
    let mut r = Integer::from(a * b);
    r %= modulus;
    r
}

/// Inverse of `a` modulo `modulus`, as a verification error if there is none.
pub fn invert(a: &Integer, modulus: &Integer) -> Result<Integer> {
    a.invert_ref(modulus)
        .map(Integer::from)
        .ok_or_else(|| Error::Verify("element not invertible".into()))
}

/// `∏ bases[i]^exps[i] mod modulus` for non-negative exponents.
///
/// Products of many powers with short exponents (the 80-bit batching and challenge vectors, the
/// 180-bit shuffle masks) dominate the Paillier-side proofs. Separate powmods cost about one
/// modular multiplication per exponent bit per base; the bucket method below costs about
/// `(b/c)·(n + 2^{c+1})` multiplications in total for window `c`, several times less for n in the
/// hundreds. Upstream computes each power separately (paper mode, docs/protocol.md §10).
pub fn multi_pow_mod(bases: &[Integer], exps: &[Integer], modulus: &Integer) -> Integer {
    assert_eq!(bases.len(), exps.len(), "multi_pow_mod: length mismatch");
    assert!(
        exps.iter().all(|e| e.cmp0() != std::cmp::Ordering::Less),
        "multi_pow_mod: negative exponent"
    );
    if crate::primitives::counters::paper() {
        // Upstream's cost: every power separately, then the products.
        return bases
            .iter()
            .zip(exps)
            .fold(Integer::from(1), |acc, (b, e)| {
                mul_mod(&acc, &pow_mod(b, e, modulus).expect("exp >= 0"), modulus)
            });
    }
    crate::primitives::counters::multi_powmod(
        exps.iter().map(|e| e.significant_bits()).max().unwrap_or(0),
        exps.iter().map(|e| e.significant_bits()),
    );
    multi_pow_mod_buckets(bases, exps, modulus)
}

/// The bucket method, parallel over windows: each window's bucket sum is independent of the
/// others, and only the final pass (one squaring per exponent bit, as in a single powmod) runs
/// on one thread. Splitting the terms into one chunk per thread instead would make each chunk
/// pay its own bucket aggregation (`2^{c+1}` per window) at a smaller best window: 2 threads
/// then spend 14-23 % more CPU than 1 on the input-PoK batches (n = 1000, m = 4;
/// `examples/multipow_threads.rs` compares both).
fn multi_pow_mod_buckets(bases: &[Integer], exps: &[Integer], modulus: &Integer) -> Integer {
    let n = bases.len();
    let bits = exps.iter().map(|e| e.significant_bits()).max().unwrap_or(0);
    if n == 0 || bits == 0 {
        return Integer::from(1) % modulus;
    }
    // Cost model in modular multiplications: separate powmods (GMP's sliding window) versus
    // buckets with the best window.
    let separate = n as f64 * bits as f64 * 1.2;
    let (window, bucket_cost) = (1..=16u32)
        .map(|c| {
            let cost = bits.div_ceil(c) as f64 * (n as f64 + 2f64.powi(c as i32 + 1)) + bits as f64;
            (c, cost)
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("non-empty range");
    if separate <= bucket_cost {
        return bases
            .par_iter()
            .zip(exps)
            .map(|(b, e)| Integer::from(b.pow_mod_ref(e, modulus).expect("non-negative exponent")))
            .reduce(|| Integer::from(1), |x, y| mul_mod(&x, &y, modulus));
    }
    let limbs: Vec<Vec<u64>> = exps
        .iter()
        .map(|e| e.to_digits::<u64>(Order::Lsf))
        .collect();
    let windows = bits.div_ceil(window);
    // One window per task: windows differ in cost (short exponents leave the top windows
    // nearly empty), and rayon's default split (one half per thread, split further only when
    // a thread steals) left one thread idle for 40 % of a 160/80-bit batch.
    let sums: Vec<Option<Integer>> = (0..windows)
        .into_par_iter()
        .with_max_len(1)
        .map(|w| window_sum(bases, &limbs, w * window, window, modulus))
        .collect();
    let mut acc = Integer::from(1);
    for (w, sum) in sums.iter().enumerate().rev() {
        if w != windows as usize - 1 {
            for _ in 0..window {
                acc.square_mut();
                acc %= modulus;
            }
        }
        if let Some(s) = sum {
            acc = mul_mod(&acc, s, modulus);
        }
    }
    acc
}

/// `∏_d (∏ of the bases whose digit at bit `start` is d)^d` for one `width`-bit window; None
/// if every digit is 0.
fn window_sum(
    bases: &[Integer],
    limbs: &[Vec<u64>],
    start: u32,
    width: u32,
    modulus: &Integer,
) -> Option<Integer> {
    // buckets[d - 1] collects the bases whose digit in this window is d.
    let mut buckets: Vec<Option<Integer>> = vec![None; (1usize << width) - 1];
    for (b, l) in bases.iter().zip(limbs) {
        let d = digit(l, start, width);
        if d != 0 {
            let slot = &mut buckets[d - 1];
            *slot = Some(match slot.take() {
                None => b.clone(),
                Some(x) => mul_mod(&x, b, modulus),
            });
        }
    }
    // Σ d·bucket_d as a running product from the top digit down.
    let mut running: Option<Integer> = None;
    let mut sum: Option<Integer> = None;
    for slot in buckets.into_iter().rev() {
        if let Some(x) = slot {
            running = Some(match running {
                None => x,
                Some(r) => mul_mod(&r, &x, modulus),
            });
        }
        if let Some(r) = &running {
            sum = Some(match sum {
                None => r.clone(),
                Some(s) => mul_mod(&s, r, modulus),
            });
        }
    }
    sum
}

/// The `width`-bit digit of a little-endian limb vector starting at bit `start`.
fn digit(limbs: &[u64], start: u32, width: u32) -> usize {
    let mut d: u64 = 0;
    let limb = (start / 64) as usize;
    let off = start % 64;
    if limb < limbs.len() {
        d = limbs[limb] >> off;
        if off + width > 64 && limb + 1 < limbs.len() {
            d |= limbs[limb + 1] << (64 - off);
        }
    }
    (d & ((1u64 << width) - 1)) as usize
}

/// Fixed-base table for `base^e mod modulus` with `e < 2^exp_bits`: the exponent is cut into
/// `window`-bit digits and `entries[b][d-1] = base^{d·2^{window·b}}`, so one exponentiation costs at
/// most `ceil(exp_bits/window)` modular multiplications and no squarings.
///
/// Memory is `ceil(exp_bits/window) · (2^window − 1)` residues of `bitlen(modulus)` bits. For the
/// threshold-Paillier H (4099-bit N², 1025-bit exponents): window 13 (upstream's choice) is
/// 79 · 8191 · 513 B ≈ 332 MB and 79 multiplications; window 10 is ≈ 53 MB and 103; window 8 is
/// ≈ 17 MB and 129. Building costs one multiplication per entry (upstream: one powmod each).
#[derive(Clone, Debug)]
pub struct FixedBaseTable {
    /// The modulus the powers are reduced by.
    pub modulus: Integer,
    /// Bits per window (digit).
    pub window: u32,
    /// The longest exponent the table covers.
    pub exp_bits: u32,
    entries: Vec<Vec<Integer>>,
}

impl FixedBaseTable {
    /// The table of `base` mod `modulus` for exponents of up to `exp_bits` bits.
    pub fn new(base: &Integer, modulus: &Integer, exp_bits: u32, window: u32) -> Self {
        assert!((1..=20).contains(&window), "window must be 1..=20 bits");
        let blocks = exp_bits.div_ceil(window).max(1);
        // Block bases base^{2^{window·b}} by repeated squaring (cheap and sequential).
        let mut block_bases = Vec::with_capacity(blocks as usize);
        let mut cur = Integer::from(base % modulus);
        for _ in 0..blocks {
            block_bases.push(cur.clone());
            for _ in 0..window {
                cur.square_mut();
                cur %= modulus;
            }
        }
        let entries = block_bases
            .par_iter()
            .map(|g| {
                let mut row = Vec::with_capacity((1usize << window) - 1);
                let mut x = g.clone();
                row.push(x.clone());
                for _ in 2..(1usize << window) {
                    x = mul_mod(&x, g, modulus);
                    row.push(x.clone());
                }
                row
            })
            .collect();
        FixedBaseTable {
            modulus: modulus.clone(),
            window,
            exp_bits,
            entries,
        }
    }

    /// `base^exp mod modulus` for `0 <= exp`. Exponents longer than the table fall back to a powmod
    /// (correct, just not faster); callers keep them within `exp_bits`.
    pub fn pow(&self, exp: &Integer) -> Integer {
        assert!(exp.cmp0() != std::cmp::Ordering::Less, "negative exponent");
        if exp.significant_bits() > self.exp_bits {
            crate::primitives::counters::powmod(
                exp.significant_bits(),
                self.modulus.significant_bits(),
            );
            let base = &self.entries[0][0];
            return Integer::from(base.pow_mod_ref(exp, &self.modulus).expect("exp >= 0"));
        }
        crate::primitives::counters::table_pow(exp.significant_bits());
        let limbs = exp.to_digits::<u64>(Order::Lsf);
        // In place, so one Integer is reused: this loop is upstream's `Enc_pp`.
        let mut acc: Option<Integer> = None;
        for (b, row) in self.entries.iter().enumerate() {
            let d = digit(&limbs, b as u32 * self.window, self.window);
            if d != 0 {
                match acc.as_mut() {
                    None => acc = Some(row[d - 1].clone()),
                    Some(a) => {
                        *a *= &row[d - 1];
                        *a %= &self.modulus;
                    }
                }
            }
        }
        acc.unwrap_or_else(|| Integer::from(1) % &self.modulus)
    }
}

/// `x mod m` in `[0, m)`, also for negative x.
pub fn rem_euc(x: &Integer, m: &Integer) -> Integer {
    let mut r = Integer::from(x % m);
    if r.cmp0() == std::cmp::Ordering::Less {
        r += m;
    }
    r
}

/// `L(u) = (u − 1) / n`, exact for `u ≡ 1 (mod n)`.
pub fn l_function(u: &Integer, n: &Integer) -> Integer {
    let mut x = Integer::from(u - 1);
    x /= n;
    x
}

/// Miller-Rabin with enough rounds for a 2^-100 error on adversarial inputs.
pub fn is_prime(x: &Integer) -> bool {
    x.is_probably_prime(50) != IsPrime::No
}

/// A random prime of exactly `bits` bits whose top `top_len` bits are the pattern `top` (the
/// pattern's top bit is 1), by rejection sampling.
pub fn random_prime_with_top(
    rng: &mut (impl RngCore + CryptoRng),
    bits: u32,
    top: u32,
    top_len: u32,
) -> Integer {
    assert!(bits > top_len + 1 && top_len >= 1 && top >> (top_len - 1) == 1);
    loop {
        let mut x = random_bits(rng, bits);
        set_top(&mut x, bits, top, top_len);
        x.set_bit(0, true);
        if is_prime(&x) {
            return x;
        }
    }
}

/// Sets the top `top_len` bits of a `bits`-bit number to the pattern `top`.
fn set_top(x: &mut Integer, bits: u32, top: u32, top_len: u32) {
    for i in 0..top_len {
        x.set_bit(bits - top_len + i, (top >> i) & 1 == 1);
    }
}

/// True iff the top `top_len` bits of the `bits`-bit number x are `top`.
fn has_top(x: &Integer, bits: u32, top: u32, top_len: u32) -> bool {
    x.significant_bits() == bits
        && (0..top_len).all(|i| x.get_bit(bits - top_len + i) == ((top >> i) & 1 == 1))
}

/// Small odd primes 3 ≤ s < 2^16 for sieving candidates.
fn sieve_primes() -> Vec<u32> {
    const LIMIT: usize = 1 << 16;
    let mut composite = vec![false; LIMIT];
    let mut primes = Vec::new();
    for i in 2..LIMIT {
        if !composite[i] {
            if i >= 3 {
                primes.push(i as u32);
            }
            let mut j = i * i;
            while j < LIMIT {
                composite[j] = true;
                j += i;
            }
        }
    }
    primes
}

/// A prime x of exactly `bits` bits, its top `top_len` bits the pattern `top`, such that
/// `P = 2·a·x + 1` is prime too; returns (x, P). With a = 1, P is a safe prime; with a a prime
/// p, P is a prime whose P − 1 = 2·p·x has no factor below min(p, x) other than 2 (the shape of
/// a per-mixer Paillier prime, so that Z*_P has no small subgroup of odd order).
///
/// Search: a random odd start, then a window of candidates start + 2k sieved at once against
/// every prime below 2^16, both for x and for P (a prime s kills the k with start + 2k ≡ 0 and,
/// unless s | 2a, those with 2a·(start + 2k) + 1 ≡ 0 mod s); survivors get a base-2 Fermat test
/// on x, then on P, then Miller-Rabin on both. Well under a second for 1025 bits on one core.
pub fn prime_pair(
    rng: &mut (impl RngCore + CryptoRng),
    a: &Integer,
    bits: u32,
    top: u32,
    top_len: u32,
) -> (Integer, Integer) {
    assert!(bits >= 16 && *a > 0, "prime_pair: too few bits or a <= 0");
    const WINDOW: usize = 1 << 15;
    let primes = sieve_primes();
    let two = Integer::from(2);
    let two_a = Integer::from(a * 2u32);
    loop {
        let mut start = random_bits(rng, bits);
        set_top(&mut start, bits, top, top_len);
        start.set_bit(0, true);
        let mut dead = vec![false; WINDOW];
        for &s in &primes {
            let s64 = u64::from(s);
            let inv2 = s64 / 2 + 1; // 2⁻¹ mod s, s odd
            let r = u64::from(start.mod_u(s));
            // start + 2k ≡ t (mod s)  <=>  k ≡ (t − start)·2⁻¹.
            let mut kill = |t: u64| {
                let mut k = (((t + s64 - r) % s64) * inv2 % s64) as usize;
                while k < WINDOW {
                    dead[k] = true;
                    k += s as usize;
                }
            };
            kill(0);
            let ta = u64::from(two_a.mod_u(s));
            if ta != 0 {
                // 2a·x + 1 ≡ 0  <=>  x ≡ −(2a)⁻¹ (mod s).
                kill(s64 - pow_u64(ta, s64 - 2, s64));
            }
        }
        for (k, &d) in dead.iter().enumerate() {
            if d {
                continue;
            }
            let x = Integer::from(&start + 2 * k as u64);
            let xm1 = Integer::from(&x - 1u32);
            if Integer::from(two.pow_mod_ref(&xm1, &x).expect("positive")) != 1 {
                continue;
            }
            let big = Integer::from(&two_a * &x) + 1u32;
            let bm1 = Integer::from(&big - 1u32);
            if Integer::from(two.pow_mod_ref(&bm1, &big).expect("positive")) != 1 {
                continue;
            }
            if has_top(&x, bits, top, top_len) && is_prime(&x) && is_prime(&big) {
                return (x, big);
            }
        }
    }
}

/// A safe prime `P = 2p' + 1` (p' prime) of exactly `bits` bits, just above a power of two:
/// `2^{bits-1} ≤ P < 1.125·2^{bits-1}`. Then the product N of an a-bit and a b-bit one has exactly
/// a+b−1 bits and N² has 2·bitlen(N)−1, the shape of upstream's debug key (2^1024+x)(2^1025+y):
/// 2050-bit N, 4099-bit N².
pub fn safe_prime(rng: &mut (impl RngCore + CryptoRng), bits: u32) -> Integer {
    assert!(bits >= 17, "safe_prime: too few bits");
    // p' has bits−1 bits with top bits 1000; then P = 2p' + 1 has them too.
    prime_pair(rng, &Integer::from(1), bits - 1, 0b1000, 4).1
}

fn pow_u64(mut b: u64, mut e: u64, m: u64) -> u64 {
    let mut r = 1u64;
    b %= m;
    while e > 0 {
        if e & 1 == 1 {
            r = (r as u128 * b as u128 % m as u128) as u64;
        }
        b = (b as u128 * b as u128 % m as u128) as u64;
        e >>= 1;
    }
    r
}

/// Parses a hex constant of the checked-in test keys.
pub fn from_hex(s: &str) -> Integer {
    Integer::from_str_radix(s, 16).expect("valid hex constant")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn naive(bases: &[Integer], exps: &[Integer], m: &Integer) -> Integer {
        bases
            .iter()
            .zip(exps)
            .fold(Integer::from(1), |acc, (b, e)| {
                mul_mod(&acc, &pow_mod(b, e, m).unwrap(), m)
            })
    }

    #[test]
    fn multi_pow_matches_naive() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let m = random_bits(&mut rng, 1024) | Integer::from(1);
        for (n, bits) in [(0, 80), (1, 80), (3, 2170), (17, 80), (100, 80), (70, 180)] {
            let bases: Vec<_> = (0..n).map(|_| random_below(&mut rng, &m)).collect();
            let exps: Vec<_> = (0..n).map(|_| random_bits(&mut rng, bits)).collect();
            assert_eq!(multi_pow_mod(&bases, &exps, &m), naive(&bases, &exps, &m));
        }
        // zero exponents and a digit pattern that crosses limb boundaries
        let bases: Vec<_> = (0..40).map(|_| random_below(&mut rng, &m)).collect();
        let mut exps: Vec<_> = (0..40).map(|_| random_bits(&mut rng, 130)).collect();
        exps[3] = Integer::new();
        exps[7] = Integer::from(1) << 129;
        assert_eq!(
            multi_pow_mod_buckets(&bases, &exps, &m),
            naive(&bases, &exps, &m)
        );
        // The windows run on several threads: the same product.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        for (n, bits) in [(5, 2170), (100, 80), (300, 180)] {
            let bases: Vec<_> = (0..n).map(|_| random_below(&mut rng, &m)).collect();
            let exps: Vec<_> = (0..n).map(|_| random_bits(&mut rng, bits)).collect();
            let got = pool.install(|| multi_pow_mod(&bases, &exps, &m));
            assert_eq!(got, naive(&bases, &exps, &m), "n = {n}, {bits} bits");
        }
    }

    #[test]
    fn fixed_base_table_matches_powmod() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let m = random_bits(&mut rng, 512) | Integer::from(1);
        let g = random_below(&mut rng, &m);
        for window in [1, 5, 8, 13] {
            let t = FixedBaseTable::new(&g, &m, 200, window);
            for e in [
                Integer::new(),
                Integer::from(1),
                random_bits(&mut rng, 200),
                random_bits(&mut rng, 64),
                random_bits(&mut rng, 300), // beyond the table: fallback
            ] {
                assert_eq!(t.pow(&e), pow_mod(&g, &e, &m).unwrap());
            }
        }
    }

    #[test]
    fn safe_prime_is_safe() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let p = safe_prime(&mut rng, 128);
        assert_eq!(p.significant_bits(), 128);
        assert!(!p.get_bit(126) && !p.get_bit(125) && !p.get_bit(124));
        assert!(is_prime(&p));
        assert!(is_prime(&(Integer::from(&p - 1) / 2)));
    }

    #[test]
    fn random_below_stays_below() {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let b = Integer::from(1000);
        for _ in 0..200 {
            let x = random_below(&mut rng, &b);
            assert!(x >= 0 && x < b);
        }
    }
}

/// Generates the safe primes checked in as fixed test keys (`thpaillier::fixed`). Run with
/// `cargo test -p db-sm-rsm --lib -- --ignored --nocapture generate_fixed_safe_primes`.
#[cfg(test)]
mod keygen_tool {
    use super::*;

    #[test]
    #[ignore = "generates the checked-in test safe primes (minutes)"]
    fn generate_fixed_safe_primes() {
        let mut rng = rand::rngs::OsRng;
        let bits: u32 = std::env::var("SAFE_PRIME_BITS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(512);
        let p = safe_prime(&mut rng, bits);
        println!("SAFE_PRIME_{bits} = \"{}\"", p.to_string_radix(16));
    }
}
