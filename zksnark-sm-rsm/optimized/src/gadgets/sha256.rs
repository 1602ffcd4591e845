//! SHA-256 (FIPS 180-4) as constraints, for the tree of the SHA-256 variant: one compression
//! function on bits, and the hash of a 64-byte message (two compressions, the second on the
//! constant padding block).
//!
//! A bit is a field variable that is 0 or 1; a word is 32 of them, least significant first.
//! Rotations and shifts only rename bits. Per bit: a two-way XOR is one product
//! (`t = a + b - 2ab`), so the three-way XORs of the Sigma functions cost 2; `Ch(e, f, g) =
//! g + e (f - g)` costs 1; `Maj(a, b, c) = ab + c (a + b - 2ab)` costs 2. A sum of k words mod 2^32
//! allocates the bits of the integer sum (32 plus the carry bits, each boolean) and one
//! constraint equates their packing with the words' packings, so a round's two sums (7 and 6
//! terms, 35 bits) cost 36 each. Anything on constants folds away: the first block's first
//! rounds start from the constant IV, and the padding block's message schedule is constant.
//!
//! The round constants and the IV are derived, as the standard defines them, from the
//! fractional parts of the cube roots of the first 64 primes and the square roots of the first
//! 8; the tests check the gadget against the `sha2` crate.

use ark_bn254::Fr;
use ark_ff::{Field, One, PrimeField, Zero};
use ark_r1cs_std::{
    alloc::AllocVar, boolean::Boolean, eq::EqGadget, fields::fp::FpVar, fields::FieldVar, R1CSVar,
};
use ark_relations::r1cs::{ConstraintSystemRef, SynthesisError};

/// A bit: a field variable constrained (where it is allocated) to 0 or 1, or a constant.
pub type Bit = FpVar<Fr>;

/// 32 bits, least significant first.
#[derive(Clone)]
pub struct Word(pub Vec<Bit>);

fn primes(n: usize) -> Vec<u128> {
    let mut out = Vec::with_capacity(n);
    let mut k = 2u128;
    while out.len() < n {
        if out.iter().all(|p| !k.is_multiple_of(*p)) {
            out.push(k);
        }
        k += 1;
    }
    out
}

/// The largest r with r^e <= x.
fn iroot(x: u128, e: u32) -> u128 {
    let (mut lo, mut hi) = (0u128, 1u128 << (128 / e + 1));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        match mid.checked_pow(e) {
            Some(m) if m <= x => lo = mid,
            _ => hi = mid - 1,
        }
    }
    lo
}

/// The first 32 bits of the fractional part of p^(1/e): `floor(root(p 2^(32 e))) mod 2^32`.
fn fractional_bits(p: u128, e: u32) -> u32 {
    iroot(p << (32 * e), e) as u32
}

/// The 64 round constants (cube roots of the first 64 primes).
pub fn round_constants() -> Vec<u32> {
    primes(64)
        .into_iter()
        .map(|p| fractional_bits(p, 3))
        .collect()
}

/// The initial hash value (square roots of the first 8 primes).
pub fn initial_state() -> Vec<u32> {
    primes(8)
        .into_iter()
        .map(|p| fractional_bits(p, 2))
        .collect()
}

fn constant_bit(b: bool) -> Bit {
    FpVar::Constant(if b { Fr::one() } else { Fr::zero() })
}

fn as_constant(b: &Bit) -> Option<bool> {
    match b {
        FpVar::Constant(c) => Some(!c.is_zero()),
        FpVar::Var(_) => None,
    }
}

fn cs_of(bits: &[&Bit]) -> ConstraintSystemRef<Fr> {
    bits.iter()
        .fold(ConstraintSystemRef::None, |cs, b| cs.or(b.cs()))
}

/// A new variable equal to `value` (computed from the operands' values when there are any).
fn fresh(
    like: &[&Bit],
    value: impl FnOnce() -> Result<Fr, SynthesisError>,
) -> Result<Bit, SynthesisError> {
    FpVar::new_witness(cs_of(like), value)
}

fn xor2(a: &Bit, b: &Bit) -> Result<Bit, SynthesisError> {
    match (as_constant(a), as_constant(b)) {
        (Some(x), _) => Ok(if x { FpVar::one() - b } else { b.clone() }),
        (_, Some(y)) => Ok(if y { FpVar::one() - a } else { a.clone() }),
        _ => {
            let t = fresh(&[a, b], || {
                let (x, y) = (a.value()?, b.value()?);
                Ok(x + y - x * y.double())
            })?;
            // 2a * b = a + b - t: t is a XOR b, a bit because a and b are.
            (a * Fr::from(2u8)).mul_equals(b, &(a + b - &t))?;
            Ok(t)
        }
    }
}

fn xor3(a: &Bit, b: &Bit, c: &Bit) -> Result<Bit, SynthesisError> {
    xor2(&xor2(a, b)?, c)
}

/// `f if e else g`, one constraint: `e (f - g) = ch - g`.
fn ch(e: &Bit, f: &Bit, g: &Bit) -> Result<Bit, SynthesisError> {
    if let Some(x) = as_constant(e) {
        return Ok(if x { f.clone() } else { g.clone() });
    }
    let diff = f - g;
    if let FpVar::Constant(d) = &diff {
        return Ok(g + e * *d);
    }
    let out = fresh(&[e, f, g], || {
        Ok(if e.value()?.is_zero() {
            g.value()?
        } else {
            f.value()?
        })
    })?;
    e.mul_equals(&diff, &(&out - g))?;
    Ok(out)
}

/// The majority of three bits: `ab + c (a + b - 2ab)`, two products.
fn maj(a: &Bit, b: &Bit, c: &Bit) -> Result<Bit, SynthesisError> {
    let ab = a * b;
    let rest = a + b - ab.double()?;
    if as_constant(c).is_some() || matches!(rest, FpVar::Constant(_)) {
        return Ok(&ab + c * rest);
    }
    let out = fresh(&[a, b, c], || {
        let ones = [a, b, c]
            .iter()
            .map(|x| x.value().map(|v| u8::from(!v.is_zero())))
            .sum::<Result<u8, _>>()?;
        Ok(Fr::from(u8::from(ones >= 2)))
    })?;
    c.mul_equals(&rest, &(&out - &ab))?;
    Ok(out)
}

impl Word {
    /// The word `x` as 32 constant bits (no variable, no constraint).
    pub fn constant(x: u32) -> Self {
        Word((0..32).map(|i| constant_bit((x >> i) & 1 == 1)).collect())
    }

    /// 32 new bits, each constrained boolean.
    pub fn witness(
        cs: ConstraintSystemRef<Fr>,
        value: Option<u32>,
    ) -> Result<Self, SynthesisError> {
        let bits = (0..32)
            .map(|i| {
                Boolean::new_witness(cs.clone(), || {
                    value
                        .map(|x| (x >> i) & 1 == 1)
                        .ok_or(SynthesisError::AssignmentMissing)
                })
                .map(FpVar::from)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Word(bits))
    }

    fn rotr(&self, n: usize) -> Word {
        Word((0..32).map(|i| self.0[(i + n) % 32].clone()).collect())
    }

    fn shr(&self, n: usize) -> Word {
        Word(
            (0..32)
                .map(|i| self.0.get(i + n).cloned().unwrap_or(constant_bit(false)))
                .collect(),
        )
    }

    /// The word as a field element `sum 2^i bit_i` (a linear combination).
    pub fn packed(&self) -> FpVar<Fr> {
        let mut weight = Fr::one();
        self.0.iter().fold(FpVar::zero(), |acc, b| {
            let term = b * weight;
            weight.double_in_place();
            acc + term
        })
    }

    fn value(&self) -> Result<u64, SynthesisError> {
        self.0.iter().rev().try_fold(0u64, |acc, b| {
            Ok::<_, SynthesisError>(2 * acc + u64::from(!b.value()?.is_zero()))
        })
    }
}

fn bitwise3(
    x: &Word,
    y: &Word,
    z: &Word,
    f: fn(&Bit, &Bit, &Bit) -> Result<Bit, SynthesisError>,
) -> Result<Word, SynthesisError> {
    Ok(Word(
        (0..32)
            .map(|i| f(&x.0[i], &y.0[i], &z.0[i]))
            .collect::<Result<_, _>>()?,
    ))
}

fn big_sigma0(a: &Word) -> Result<Word, SynthesisError> {
    bitwise3(&a.rotr(2), &a.rotr(13), &a.rotr(22), xor3)
}

fn big_sigma1(e: &Word) -> Result<Word, SynthesisError> {
    bitwise3(&e.rotr(6), &e.rotr(11), &e.rotr(25), xor3)
}

fn small_sigma0(w: &Word) -> Result<Word, SynthesisError> {
    bitwise3(&w.rotr(7), &w.rotr(18), &w.shr(3), xor3)
}

fn small_sigma1(w: &Word) -> Result<Word, SynthesisError> {
    bitwise3(&w.rotr(17), &w.rotr(19), &w.shr(10), xor3)
}

/// The sum of `words` and `constant` mod 2^32: the bits of the integer sum are allocated (each
/// boolean) and one constraint equates their packing with the sum of the packings.
fn add(words: &[&Word], constant: u32) -> Result<Word, SynthesisError> {
    let (consts, vars): (Vec<&Word>, Vec<&Word>) = words
        .iter()
        .copied()
        .partition(|w| w.0.iter().all(|b| as_constant(b).is_some()));
    let constant = consts.iter().fold(u64::from(constant), |acc, w| {
        acc + w.value().expect("a constant word has a value")
    });
    if vars.is_empty() {
        return Ok(Word::constant(constant as u32));
    }
    let max = vars.len() as u64 * u64::from(u32::MAX) + constant;
    let n_bits = (64 - max.leading_zeros()) as usize;
    let total = vars
        .iter()
        .fold(FpVar::Constant(Fr::from(constant)), |acc, w| {
            acc + w.packed()
        });
    let cs = cs_of(&vars.iter().map(|w| &w.0[0]).collect::<Vec<_>>());
    let sum = total.value().ok().map(|v| {
        let limbs = v.into_bigint();
        limbs.0[0]
    });
    let bits = (0..n_bits)
        .map(|i| {
            Boolean::new_witness(cs.clone(), || {
                sum.map(|s| (s >> i) & 1 == 1)
                    .ok_or(SynthesisError::AssignmentMissing)
            })
            .map(FpVar::from)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let all = Word(bits);
    all.packed().enforce_equal(&total)?;
    Ok(Word(all.0[..32].to_vec()))
}

/// One compression: the new state from `state` (8 words) and a 16-word block.
pub fn compress(state: &[Word], block: &[Word]) -> Result<Vec<Word>, SynthesisError> {
    assert_eq!((state.len(), block.len()), (8, 16));
    let k = round_constants();
    let mut w: Vec<Word> = block.to_vec();
    for t in 16..64 {
        let s0 = small_sigma0(&w[t - 15])?;
        let s1 = small_sigma1(&w[t - 2])?;
        let next = add(&[&s1, &w[t - 7], &s0, &w[t - 16]], 0)?;
        w.push(next);
    }
    let mut h: Vec<Word> = state.to_vec();
    for t in 0..64 {
        let s1 = big_sigma1(&h[4])?;
        let c = bitwise3(&h[4], &h[5], &h[6], ch)?;
        let s0 = big_sigma0(&h[0])?;
        let m = bitwise3(&h[0], &h[1], &h[2], maj)?;
        // T1 = h + S1 + Ch + K + W enters both sums, which are taken in one step each.
        let new_e = add(&[&h[3], &h[7], &s1, &c, &w[t]], k[t])?;
        let new_a = add(&[&h[7], &s1, &c, &w[t], &s0, &m], k[t])?;
        h.rotate_right(1);
        h[0] = new_a;
        h[4] = new_e;
    }
    state.iter().zip(&h).map(|(s, x)| add(&[s, x], 0)).collect()
}

/// SHA-256 of a 64-byte message given as 16 big-endian words: the message block, then the
/// padding block (0x80, zeros, the bit length 512).
pub fn hash64(message: &[Word]) -> Result<Vec<Word>, SynthesisError> {
    let iv: Vec<Word> = initial_state().into_iter().map(Word::constant).collect();
    let state = compress(&iv, message)?;
    let mut padding = vec![0u32; 16];
    padding[0] = 0x8000_0000;
    padding[15] = 512;
    let padding: Vec<Word> = padding.into_iter().map(Word::constant).collect();
    compress(&state, &padding)
}

/// Big-endian words of 32 bytes.
pub fn words_of(bytes: &[u8; 32]) -> [u32; 8] {
    std::array::from_fn(|j| u32::from_be_bytes(bytes[4 * j..4 * j + 4].try_into().unwrap()))
}

/// The 8 big-endian words of a 254-bit scalar's 32-byte big-endian encoding, from its
/// little-endian bits (the two top bits of the encoding are 0).
pub fn words_of_bits(bits_le: &[Bit]) -> Vec<Word> {
    assert!(bits_le.len() <= 256);
    let bit = |k: usize| bits_le.get(k).cloned().unwrap_or(constant_bit(false));
    (0..8)
        .map(|j| Word((0..32).map(|i| bit(32 * (7 - j) + i)).collect()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_relations::r1cs::ConstraintSystem;
    use rand::{Rng, SeedableRng};
    use sha2::{Digest, Sha256};

    /// The gadget's digest of `message` (the first `constant_words` words as constants), the
    /// number of constraints it took, and whether they are satisfied.
    fn digest(message: &[u8; 64], constant_words: usize) -> ([u8; 32], usize, bool) {
        let cs = ConstraintSystem::<Fr>::new_ref();
        let words: Vec<Word> = (0..16)
            .map(|j| {
                let x = u32::from_be_bytes(message[4 * j..4 * j + 4].try_into().unwrap());
                if j < constant_words {
                    Word::constant(x)
                } else {
                    Word::witness(cs.clone(), Some(x)).unwrap()
                }
            })
            .collect();
        let before = cs.num_constraints();
        let out = hash64(&words).unwrap();
        let mut bytes = [0u8; 32];
        for (j, w) in out.iter().enumerate() {
            bytes[4 * j..4 * j + 4].copy_from_slice(&(w.value().unwrap() as u32).to_be_bytes());
        }
        (
            bytes,
            cs.num_constraints() - before,
            cs.is_satisfied().unwrap(),
        )
    }

    #[test]
    fn hash64_is_sha256_of_64_bytes() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for constant_words in [0, 8] {
            let mut message = [0u8; 64];
            rng.fill(&mut message[..]);
            message[..4 * constant_words].fill(0);
            let (ours, constraints, satisfied) = digest(&message, constant_words);
            assert!(satisfied);
            assert_eq!(ours[..], Sha256::digest(message)[..]);
            assert!(constraints < 47_000, "{constraints} constraints");
        }
        assert_eq!(
            digest(&[0xff; 64], 0).0[..],
            Sha256::digest([0xffu8; 64])[..]
        );
    }

    #[test]
    fn derived_constants_are_the_standards() {
        let k = round_constants();
        assert_eq!((k[0], k[1], k[63]), (0x428a2f98, 0x71374491, 0xc67178f2));
        assert_eq!(
            initial_state(),
            vec![
                0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
                0x5be0cd19
            ]
        );
    }
}
