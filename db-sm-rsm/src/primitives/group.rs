//! The pairing groups and the global generators, with the exponentiation helpers
//! every other module uses.
//!
//! Upstream (charm/PBC) gives 17 global objects a fixed-base precomputation table (`initPP`) and
//! computes everything else by plain square-and-multiply. Here the same global objects
//! (`f1, g1, h1` in G1, `f2` in G2, `fT, e(f1,f2), e(g1,f2), e(h1,f2)` in GT) get a windowed
//! fixed-base table ([`FixedBaseTable`]); inverses need no table of their own because negating
//! the exponent is free. Products of many independent powers go through multi-scalar
//! multiplication ([`msm`], [`msm_short`]) rather than one exponentiation per term.
//!
//! GT is written additively in arkworks (`PairingOutput`): "multiply" is `+`, "exponentiate" is
//! scalar `*`, which arkworks computes as a cyclotomic exponentiation.
//!
//! Short exponents (80-bit challenge vectors e, batching δ, 180-bit masks) are ordinary scalars
//! whose value happens to be small: arkworks' double-and-add and cyclotomic exponentiation skip
//! leading zero bits, and [`FixedBaseTable::mul`] stops at the scalar's top window, so their cost
//! follows their length, as the cost model's classes do ([`crate::primitives::counters`]). Only [`msm_short`] needs to be told the length, because
//! arkworks' Pippenger always walks every bit of the field.

use ark_ec::pairing::{Pairing, PairingOutput};
use ark_ec::scalar_mul::variable_base::VariableBaseMSM;
use ark_ec::scalar_mul::wnaf::WnafContext;
use ark_ec::scalar_mul::ScalarMul;
use ark_ec::CurveGroup;
use ark_ff::{BigInteger, PrimeField, UniformRand};
use rand::{CryptoRng, RngCore};
use rand_chacha::rand_core::SeedableRng;
use rayon::prelude::*;

use crate::primitives::security::Security;
use crate::primitives::transcript::Transcript;
use crate::{Error, Result};

/// The target group GT of the pairing, written additively by arkworks.
pub type Gt<E> = PairingOutput<E>;

/// Window width of the fixed-base tables. 8 bits: 32 windows × 256 entries for a 254-bit
/// scalar, so a full fixed-base exponentiation is 32 mixed additions; a G1 table is about
/// 0.5 MB, a GT table 3-4.5 MB, which keeps all eight global tables far below the memory budget.
pub const FIXED_BASE_WINDOW: usize = 8;

/// A windowed fixed-base table: `rows[i][d] = (d · 2^{w·i}) · base` for every digit d < 2^w.
/// Exponentiation is one table look-up and one group addition per w-bit digit, with no
/// doublings; short scalars touch only their own windows.
#[derive(Clone)]
pub struct FixedBaseTable<G: ScalarMul> {
    base: G::MulBase,
    window: usize,
    rows: Vec<Vec<G::MulBase>>,
}

// Written out: `ScalarMul::MulBase` is not required to be `Debug`, and the rows are bulky.
impl<G: ScalarMul> std::fmt::Debug for FixedBaseTable<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FixedBaseTable")
            .field("base", &self.point())
            .field("window", &self.window)
            .field("rows", &self.rows.len())
            .finish()
    }
}

impl<G: ScalarMul> FixedBaseTable<G> {
    /// A table covering scalars of up to `bits` bits (the full field for ordinary use).
    pub fn new(base: G, bits: usize, window: usize) -> Self {
        assert!((1..=16).contains(&window), "window width out of range");
        let n_rows = bits.div_ceil(window);
        // The starting point of each row, base · 2^{w·i}, is sequential (w doublings apiece);
        // the rows themselves are independent and filled in parallel.
        let mut starts = Vec::with_capacity(n_rows);
        let mut cur = base;
        for _ in 0..n_rows {
            starts.push(cur);
            for _ in 0..window {
                cur.double_in_place();
            }
        }
        let rows = starts
            .into_par_iter()
            .map(|start| {
                let mut row = Vec::with_capacity(1 << window);
                let mut acc = G::zero();
                for _ in 0..(1usize << window) {
                    row.push(acc);
                    acc += start;
                }
                G::batch_convert_to_mul_base(&row)
            })
            .collect();
        let base = G::batch_convert_to_mul_base(&[base])[0];
        FixedBaseTable { base, window, rows }
    }

    /// A full-length table for a field scalar, with the default window.
    pub fn full(base: G) -> Self {
        Self::new(
            base,
            G::ScalarField::MODULUS_BIT_SIZE as usize,
            FIXED_BASE_WINDOW,
        )
    }

    /// The base point in its storage form (affine for curve groups).
    pub fn base(&self) -> G::MulBase {
        self.base
    }

    /// The base as a group element.
    pub fn point(&self) -> G {
        G::from(self.base)
    }

    /// `scalar · base` for a little-endian limb vector; falls back to double-and-add for a
    /// scalar longer than the table (never the case for field elements).
    pub fn mul_bigint(&self, limbs: &[u64]) -> G {
        let bits = match limbs.iter().rposition(|l| *l != 0) {
            None => 0,
            Some(top) => top * 64 + (64 - limbs[top].leading_zeros() as usize),
        };
        crate::primitives::counters::group_exp::<G>(bits <= self.rows.len() * self.window, bits);
        if bits > self.rows.len() * self.window {
            return G::from(self.base).mul_bigint(limbs);
        }
        let mut acc = G::zero();
        for (i, row) in self
            .rows
            .iter()
            .enumerate()
            .take(bits.div_ceil(self.window))
        {
            let d = digit(limbs, i * self.window, self.window);
            if d != 0 {
                acc += &row[d];
            }
        }
        acc
    }

    /// `scalar · base`.
    pub fn mul(&self, scalar: &G::ScalarField) -> G {
        self.mul_bigint(scalar.into_bigint().as_ref())
    }

    /// `scalar_i · base` for every scalar, in parallel.
    pub fn mul_many(&self, scalars: &[G::ScalarField]) -> Vec<G> {
        scalars.par_iter().map(|s| self.mul(s)).collect()
    }
}

/// The `width`-bit digit of a little-endian limb vector starting at bit `start`.
fn digit(limbs: &[u64], start: usize, width: usize) -> usize {
    let (li, off) = (start / 64, start % 64);
    if li >= limbs.len() {
        return 0;
    }
    let mut v = limbs[li] >> off;
    if off + width > 64 && li + 1 < limbs.len() {
        v |= limbs[li + 1] << (64 - off);
    }
    (v & ((1u64 << width) - 1)) as usize
}

/// The global generators (g1, h1 in G1; f2 in G2; the GT bases), each with its fixed-base table.
///
/// Sampled uniformly with the caller's CSPRNG (no hash-to-curve: nothing needs their discrete
/// logarithms to be unknown to a party other than the dealer, as upstream). `fT` is a uniformly
/// random GT element, made like charm does as `e(P,Q)^z`.
#[derive(Clone, Debug)]
pub struct Generators<E: Pairing> {
    /// f1 in G1.
    pub f1: FixedBaseTable<E::G1>,
    /// g1 in G1.
    pub g1: FixedBaseTable<E::G1>,
    /// h1 in G1 (Pedersen's second base).
    pub h1: FixedBaseTable<E::G1>,
    /// f2 in G2.
    pub f2: FixedBaseTable<E::G2>,
    /// fT = e(f1, f2) in GT.
    pub ft: FixedBaseTable<Gt<E>>,
    /// e(f1, f2)
    pub ef1f2: FixedBaseTable<Gt<E>>,
    /// e(g1, f2)
    pub eg1f2: FixedBaseTable<Gt<E>>,
    /// e(h1, f2)
    pub eh1f2: FixedBaseTable<Gt<E>>,
    /// The lengths of the challenge and batching vectors of every proof over these generators.
    pub security: Security,
}

impl<E: Pairing> Generators<E> {
    /// Fresh generators at the default security level.
    pub fn new(rng: &mut (impl RngCore + CryptoRng)) -> Self {
        Self::with_security(rng, Security::default())
    }

    /// Fresh generators for proofs at the given security level.
    pub fn with_security(rng: &mut (impl RngCore + CryptoRng), security: Security) -> Self {
        let f1 = E::G1::rand(rng);
        let g1 = E::G1::rand(rng);
        let h1 = E::G1::rand(rng);
        let f2 = E::G2::rand(rng);
        let ft = E::pairing(E::G1::rand(rng), E::G2::rand(rng)) * E::ScalarField::rand(rng);
        Self::from_bases(f1, g1, h1, f2, ft, security)
    }

    /// The generators of these bases: the pairings of the G1 bases with f2, and every
    /// fixed-base table.
    pub fn from_bases(
        f1: E::G1,
        g1: E::G1,
        h1: E::G1,
        f2: E::G2,
        ft: Gt<E>,
        security: Security,
    ) -> Self {
        let pairs = E::G1::normalize_batch(&[f1, g1, h1]);
        let f2a = f2.into_affine();
        let ef1f2 = E::pairing(pairs[0], f2a);
        let eg1f2 = E::pairing(pairs[1], f2a);
        let eh1f2 = E::pairing(pairs[2], f2a);
        Generators {
            f1: FixedBaseTable::full(f1),
            g1: FixedBaseTable::full(g1),
            h1: FixedBaseTable::full(h1),
            f2: FixedBaseTable::full(f2),
            ft: FixedBaseTable::full(ft),
            ef1f2: FixedBaseTable::full(ef1f2),
            eg1f2: FixedBaseTable::full(eg1f2),
            eh1f2: FixedBaseTable::full(eh1f2),
            security,
        }
    }

    /// κ_e: the bit length of challenge and batching vectors.
    pub fn batch_bits(&self) -> u32 {
        self.security.batch_bits
    }

    /// Binds the generators and the security level into a transcript (every proof's statement
    /// includes them).
    pub fn append_to(&self, t: &mut Transcript) {
        t.append_bytes(b"security", self.security.level.name().as_bytes());
        t.append_ark(b"f1", &self.f1.base());
        t.append_ark(b"g1", &self.g1.base());
        t.append_ark(b"h1", &self.h1.base());
        t.append_ark(b"f2", &self.f2.base());
        t.append_ark(b"fT", &self.ft.base());
    }
}

/// Width of the wNAF used by [`mul_var`].
pub const WNAF_WINDOW: usize = 4;

/// Variable-base `scalar · base` in G1 or G2 by width-4 wNAF: arkworks' `*` is plain binary
/// double-and-add (one addition per set bit); wNAF needs one per ~5 bits after an 8-point table,
/// which saves about a quarter of the cost of a full-length exponent. Short scalars stay cheap
/// (the digit loop starts at the top nonzero digit).
pub fn mul_var<G: CurveGroup>(base: G, scalar: &G::ScalarField) -> G {
    crate::primitives::counters::group_exp::<G>(false, scalar.into_bigint().num_bits() as usize);
    WnafContext::new(WNAF_WINDOW).mul(base, scalar)
}

/// Width of the interleaved wNAF of [`mul_var_joint`]: odd multiples up to 15·P per base.
const JOINT_WINDOW: usize = 5;

/// `Σ scalar_i · base_i` for a handful of variable bases (the sigma-proof checks `X^{chal}·Y^{z}`)
/// by interleaved wNAF (Straus): one shared chain of doublings and about one addition per
/// `JOINT_WINDOW + 1` bits per base, instead of a doubling chain per base. A G1 term is counted
/// as `E1j` (its own unit cost: half a two-term joint exponentiation); paper mode and the other
/// groups compute term by term, as [`mul_var`].
pub fn mul_var_joint<G: CurveGroup>(terms: &[(G, G::ScalarField)]) -> G {
    if crate::primitives::counters::paper() || crate::primitives::counters::group_of::<G>() != 0 {
        return terms.iter().map(|(b, s)| mul_var(*b, s)).sum();
    }
    crate::primitives::counters::count("E1j", terms.len() as u64);
    let digits: Vec<Vec<i64>> = terms
        .iter()
        .map(|(_, s)| {
            s.into_bigint()
                .find_wnaf(JOINT_WINDOW)
                .expect("window within 2..64")
        })
        .collect();
    // tables[t][k] = (2k+1)·base_t
    let tables: Vec<Vec<G>> = terms
        .iter()
        .map(|(b, _)| {
            let twice = b.double();
            let mut row = Vec::with_capacity(1 << (JOINT_WINDOW - 2));
            row.push(*b);
            for k in 1..(1 << (JOINT_WINDOW - 2)) {
                let next = row[k - 1] + twice;
                row.push(next);
            }
            row
        })
        .collect();
    let len = digits.iter().map(Vec::len).max().unwrap_or(0);
    let mut acc = G::zero();
    for i in (0..len).rev() {
        acc.double_in_place();
        for (d, table) in digits.iter().zip(&tables) {
            match d.get(i).copied().unwrap_or(0) {
                0 => {}
                k if k > 0 => acc += table[(k as usize - 1) / 2],
                k => acc -= table[((-k) as usize - 1) / 2],
            }
        }
    }
    acc
}

/// Σ scalar_i · base_i over full-length scalars (arkworks Pippenger, parallel).
pub fn msm<G: VariableBaseMSM>(bases: &[G::MulBase], scalars: &[G::ScalarField]) -> Result<G> {
    if bases.len() != scalars.len() {
        return Err(Error::Input(format!(
            "msm: {} bases but {} scalars",
            bases.len(),
            scalars.len()
        )));
    }
    if crate::primitives::counters::paper() {
        return Ok(crate::primitives::counters::term_by_term(bases, scalars));
    }
    crate::primitives::counters::group_msm::<G>(
        bases.len(),
        G::ScalarField::MODULUS_BIT_SIZE as usize,
    );
    Ok(G::msm_unchecked(bases, scalars))
}

/// Σ scalar_i · base_i where every scalar is below 2^bits (80-bit batching exponents, 180-bit
/// masks). A Pippenger bucket method over only `bits` bits, so that short exponents cost what
/// their length says; parallel over windows.
pub fn msm_short<G: VariableBaseMSM>(
    bases: &[G::MulBase],
    scalars: &[G::ScalarField],
    bits: usize,
) -> Result<G> {
    if bases.len() != scalars.len() {
        return Err(Error::Input(format!(
            "msm_short: {} bases but {} scalars",
            bases.len(),
            scalars.len()
        )));
    }
    let ints: Vec<_> = scalars.par_iter().map(|s| s.into_bigint()).collect();
    if ints.iter().any(|b| b.num_bits() as usize > bits) {
        return Err(Error::Input(format!(
            "msm_short: a scalar exceeds {bits} bits"
        )));
    }
    let n = bases.len();
    if n == 0 {
        return Ok(G::zero());
    }
    if crate::primitives::counters::paper() {
        return Ok(crate::primitives::counters::term_by_term(bases, scalars));
    }
    crate::primitives::counters::group_msm::<G>(n, bits);
    // Window width about ln(n) as in arkworks, at least 2.
    let c = if n < 32 {
        3
    } else {
        ((n as f64).ln().ceil() as usize).max(2)
    };
    let starts: Vec<usize> = (0..bits).step_by(c).collect();
    let sums: Vec<G> = starts
        .par_iter()
        .with_max_len(1) // one window per task, as in `bigint::multi_pow_mod`
        .map(|&start| {
            let mut buckets = vec![G::zero(); (1 << c) - 1];
            for (b, s) in bases.iter().zip(&ints) {
                let d = digit(s.as_ref(), start, c);
                if d != 0 {
                    buckets[d - 1] += b;
                }
            }
            // Σ d·bucket_d by running sums from the top bucket down.
            let mut running = G::zero();
            let mut total = G::zero();
            for b in buckets.into_iter().rev() {
                running += b;
                total += running;
            }
            total
        })
        .collect();
    let mut acc = G::zero();
    for (i, s) in sums.into_iter().enumerate().rev() {
        if i + 1 < starts.len() {
            for _ in 0..c {
                acc.double_in_place();
            }
        }
        acc += s;
    }
    Ok(acc)
}

/// A uniform scalar below 2^bits (bits ≤ the field size minus one, so no reduction happens).
pub fn random_short<F: PrimeField>(rng: &mut (impl RngCore + CryptoRng), bits: u32) -> F {
    assert!(bits < F::MODULUS_BIT_SIZE, "short scalar must be below q");
    let mut bytes = vec![0u8; (bits as usize).div_ceil(8)];
    rng.fill_bytes(&mut bytes);
    let extra = bytes.len() * 8 - bits as usize;
    bytes[0] &= 0xffu8 >> extra;
    F::from_be_bytes_mod_order(&bytes)
}

/// n short scalars of `bits` bits derived from everything absorbed in the transcript so far
/// (Fiat-Shamir e-vectors and batching δ's, fix S6): a 256-bit challenge seeds ChaCha20, which
/// expands it.
pub fn challenge_short_vec<F: PrimeField>(
    t: &mut Transcript,
    label: &[u8],
    n: usize,
    bits: u32,
) -> Vec<F> {
    let mut rng = rand_chacha::ChaCha20Rng::from_seed(t.challenge_seed(label));
    (0..n).map(|_| random_short(&mut rng, bits)).collect()
}

/// n uniform scalars (nonces).
pub fn random_scalars<F: PrimeField>(rng: &mut (impl RngCore + CryptoRng), n: usize) -> Vec<F> {
    (0..n).map(|_| F::rand(rng)).collect()
}

/// A uniform nonzero scalar (for exponents that must be invertible).
pub fn random_nonzero<F: PrimeField>(rng: &mut (impl RngCore + CryptoRng)) -> F {
    loop {
        let x = F::rand(rng);
        if !x.is_zero() {
            return x;
        }
    }
}

/// Converts a field element to a big integer in [0, q).
pub fn scalar_to_integer<F: PrimeField>(x: &F) -> rug::Integer {
    rug::Integer::from_digits(&x.into_bigint().to_bytes_le(), rug::integer::Order::LsfLe)
}

/// Reduces a big integer (of either sign) into the field.
pub fn integer_to_scalar<F: PrimeField>(x: &rug::Integer) -> F {
    let q = rug::Integer::from_digits(&F::MODULUS.to_bytes_le(), rug::integer::Order::LsfLe);
    let r = rug::ops::RemRounding::rem_euc(x.clone(), &q);
    F::from_le_bytes_mod_order(&r.to_digits::<u8>(rug::integer::Order::LsfLe))
}

/// The bases and the security setting; the receiver computes the pairings and builds the
/// fixed-base tables itself.
impl<E: Pairing> crate::primitives::wire::Wire for Generators<E> {
    fn put(&self, out: &mut Vec<u8>) {
        use crate::primitives::wire::ark_put;
        ark_put(&self.f1.point(), out);
        ark_put(&self.g1.point(), out);
        ark_put(&self.h1.point(), out);
        ark_put(&self.f2.point(), out);
        ark_put(&self.ft.point(), out);
        self.security.put(out);
    }
    fn get(inp: &mut &[u8]) -> crate::Result<Self> {
        use crate::primitives::wire::ark_get;
        let f1: E::G1 = ark_get(inp)?;
        let g1: E::G1 = ark_get(inp)?;
        let h1: E::G1 = ark_get(inp)?;
        let f2: E::G2 = ark_get(inp)?;
        let ft: Gt<E> = ark_get(inp)?;
        let security = Security::get(inp)?;
        Ok(Self::from_bases(f1, g1, h1, f2, ft, security))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ec::pairing::Pairing;
    use ark_ec::Group;
    use ark_ff::Zero;
    use rand_chacha::ChaCha20Rng;

    fn fixed_base_matches<E: Pairing>() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let gens = Generators::<E>::new(&mut rng);
        for bits in [1u32, 80, 180] {
            let x: E::ScalarField = random_short(&mut rng, bits);
            assert_eq!(gens.g1.mul(&x), gens.g1.point() * x);
            assert_eq!(gens.f2.mul(&x), gens.f2.point() * x);
            assert_eq!(gens.ft.mul(&x), gens.ft.point() * x);
        }
        let x = E::ScalarField::rand(&mut rng);
        assert_eq!(gens.h1.mul(&x), gens.h1.point() * x);
        for bits in [1u32, 80, 180] {
            let s: E::ScalarField = random_short(&mut rng, bits);
            assert_eq!(mul_var(gens.g1.point(), &s), gens.g1.point() * s);
        }
        assert_eq!(mul_var(gens.f1.point(), &x), gens.f1.point() * x);
        // Joint exponentiation: full, short, zero and negated scalars, one to three bases.
        let y = E::ScalarField::rand(&mut rng);
        let s80: E::ScalarField = random_short(&mut rng, 80);
        let (p, q, r) = (gens.f1.point(), gens.g1.point() * y, gens.h1.point());
        for terms in [
            vec![(p, x), (q, y)],
            vec![(p, s80), (q, -y), (r, E::ScalarField::zero())],
            vec![(q, x)],
            vec![],
        ] {
            let naive: E::G1 = terms.iter().map(|(b, s)| *b * s).sum();
            assert_eq!(mul_var_joint(&terms), naive);
        }
        assert_eq!(mul_var(gens.f2.point(), &x), gens.f2.point() * x);
        assert!(mul_var(gens.f1.point(), &E::ScalarField::zero()).is_zero());
        assert_eq!(gens.eg1f2.mul(&x), gens.eg1f2.point() * x);
        assert_eq!(gens.f1.mul(&E::ScalarField::zero()), E::G1::zero());
        // The pairing constants are what they claim to be.
        assert_eq!(
            gens.eh1f2.point(),
            E::pairing(gens.h1.base(), gens.f2.base())
        );
        assert_eq!(
            gens.ef1f2.mul(&x),
            E::pairing(gens.f1.point() * x, gens.f2.point())
        );
    }

    fn msm_matches<E: Pairing>() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        for n in [0usize, 1, 5, 40] {
            let bases: Vec<E::G1Affine> = (0..n)
                .map(|_| E::G1::rand(&mut rng).into_affine())
                .collect();
            let short: Vec<E::ScalarField> = (0..n).map(|_| random_short(&mut rng, 80)).collect();
            let naive: E::G1 = bases.iter().zip(&short).map(|(b, s)| *b * s).sum();
            assert_eq!(msm_short::<E::G1>(&bases, &short, 80).unwrap(), naive);
            assert_eq!(msm::<E::G1>(&bases, &short).unwrap(), naive);
            let gts: Vec<Gt<E>> = (0..n)
                .map(|_| Gt::<E>::generator() * E::ScalarField::rand(&mut rng))
                .collect();
            let full: Vec<E::ScalarField> =
                (0..n).map(|_| E::ScalarField::rand(&mut rng)).collect();
            let naive_t: Gt<E> = gts.iter().zip(&full).map(|(b, s)| *b * s).sum();
            assert_eq!(msm::<Gt<E>>(&gts, &full).unwrap(), naive_t);
            let naive_ts: Gt<E> = gts.iter().zip(&short).map(|(b, s)| *b * s).sum();
            assert_eq!(msm_short::<Gt<E>>(&gts, &short, 80).unwrap(), naive_ts);
        }
        let b = vec![E::G1::rand(&mut rng).into_affine()];
        assert!(msm::<E::G1>(&b, &[]).is_err());
        assert!(msm_short::<E::G1>(&b, &[E::ScalarField::rand(&mut rng)], 80).is_err());
    }

    fn conversions<E: Pairing>() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let x = E::ScalarField::rand(&mut rng);
        assert_eq!(
            integer_to_scalar::<E::ScalarField>(&scalar_to_integer(&x)),
            x
        );
        let minus_one = integer_to_scalar::<E::ScalarField>(&rug::Integer::from(-1));
        assert_eq!(minus_one, -E::ScalarField::from(1u64));
        let mut t = Transcript::new(b"test");
        let v: Vec<E::ScalarField> = challenge_short_vec(&mut t, b"e", 50, 80);
        assert!(v.iter().all(|e| e.into_bigint().num_bits() <= 80));
        assert!(v.iter().any(|e| e.into_bigint().num_bits() > 70));
    }

    crate::curve_tests!(fixed_base_matches, conversions, msm_matches);
}
