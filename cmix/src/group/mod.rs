//! The two groups ElGamal runs in, behind one trait, written multiplicatively (on the curve the
//! group operation is point addition; "multiply" means add, "exponentiate" means scalar
//! multiplication, "invert" means negate).
//!
//! - [`ristretto::Ristretto`] ("ec"): ristretto255, the prime-order group built on Curve25519.
//!   A message element carries 30 payload bytes (a counter byte is searched until the 32 bytes
//!   decompress to a point; decoding is compression). Random elements come from Elligator;
//!   exponentiations with the generator and the joint key use fixed-base tables.
//! - [`modp::Modp`] ("mg"): the quadratic residues modulo the RFC 3526 2048-bit MODP prime
//!   `p = 2q + 1` (a group of prime order `q`, generator 2), on the system GMP. A message element
//!   carries 255 bytes. Exponents are full length (uniform modulo `q`) or 256-bit; both are
//!   measured, and 256-bit is the default (128-bit security, as for the curve).
//!
//! Every operation the protocol performs goes through this trait and is counted in an
//! [`OpCounts`], so the benchmark can set each phase's measured time beside the sum of its
//! counted operations times their costs measured in isolation (the phase's lower bound).

pub mod modp;
pub mod ristretto;

use std::sync::atomic::{AtomicU64, Ordering};

use rand_core::{CryptoRng, RngCore};
use serde::Serialize;

use crate::Error;

/// The operations counted, one counter each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Group multiplication (point addition).
    Mul,
    /// One inversion on its own (batch inversions count 3 multiplications per element and one
    /// inversion).
    Inv,
    /// Exponentiation of a variable base with a secret exponent.
    Exp,
    /// Exponentiation of the generator or the joint key, from a fixed-base table.
    ExpFixed,
    /// A uniformly random group element (Elligator on the curve, a squaring modulo p).
    RandomElem,
    /// A group element from 64 uniform bytes (the per-message keys).
    HashToElem,
    /// Serialising an element for the wire (compression on the curve).
    WriteWire,
    /// Reading an element from the wire with its validity check (decompression on the curve,
    /// range and quadratic-residue check modulo p).
    ReadWire,
    /// Payload bytes into an element.
    EncodePayload,
    /// An element back into payload bytes.
    DecodePayload,
    /// One 64-byte key derivation (HKDF-SHA-256 expand) for a per-message key.
    Kdf,
    /// One SHA-256 block of a tag hash (64 bytes hashed).
    HashBlock,
}

impl Op {
    /// Every operation, in counter order.
    pub const ALL: [Op; 12] = [
        Op::Mul,
        Op::Inv,
        Op::Exp,
        Op::ExpFixed,
        Op::RandomElem,
        Op::HashToElem,
        Op::WriteWire,
        Op::ReadWire,
        Op::EncodePayload,
        Op::DecodePayload,
        Op::Kdf,
        Op::HashBlock,
    ];

    /// The operation's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Op::Mul => "mul",
            Op::Inv => "inv",
            Op::Exp => "exp",
            Op::ExpFixed => "exp_fixed",
            Op::RandomElem => "random_elem",
            Op::HashToElem => "hash_to_elem",
            Op::WriteWire => "write_wire",
            Op::ReadWire => "read_wire",
            Op::EncodePayload => "encode_payload",
            Op::DecodePayload => "decode_payload",
            Op::Kdf => "kdf",
            Op::HashBlock => "hash_block",
        }
    }
}

/// Counters of every [`Op`], shared by all threads of a process.
#[derive(Default, Debug)]
pub struct OpCounts([AtomicU64; 12]);

impl OpCounts {
    /// Counts `k` more of `op`.
    pub fn add(&self, op: Op, k: u64) {
        self.0[op as usize].fetch_add(k, Ordering::Relaxed);
    }

    /// Every counter's value now, to subtract from a later snapshot.
    pub fn snapshot(&self) -> [u64; 12] {
        std::array::from_fn(|i| self.0[i].load(Ordering::Relaxed))
    }
}

/// Counts between two snapshots, by op name (zero counts left out).
pub fn count_diff(before: &[u64; 12], after: &[u64; 12]) -> Vec<(Op, u64)> {
    Op::ALL
        .iter()
        .enumerate()
        .map(|(i, &op)| (op, after[i] - before[i]))
        .filter(|&(_, k)| k > 0)
        .collect()
}

/// A prime-order group for ElGamal, written multiplicatively, with counted operations.
pub trait Group: Send + Sync + 'static {
    /// A group element.
    type Elem: Clone + Send + Sync + PartialEq + std::fmt::Debug;
    /// An exponent.
    type Scalar: Clone + Send + Sync;
    /// A fixed-base table for exponentiations of one base.
    type Table: Send + Sync;

    /// `ec` or `mg`.
    fn name(&self) -> &'static str;
    /// The group and its settings, for the report.
    fn describe(&self) -> String;
    /// Bits of the secret exponents this instance draws (keys and ElGamal randomness).
    fn exponent_bits(&self) -> u32;
    /// The counters of this instance.
    fn ops(&self) -> &OpCounts;

    /// Bytes of an element on the wire.
    fn wire_bytes(&self) -> usize;
    /// Payload bytes one element carries.
    fn payload_bytes(&self) -> usize;

    /// The neutral element.
    fn identity(&self) -> Self::Elem;
    /// The group operation `a * b`.
    fn mul(&self, a: &Self::Elem, b: &Self::Elem) -> Self::Elem;
    /// `a <- a * b`.
    fn mul_assign(&self, a: &mut Self::Elem, b: &Self::Elem) {
        *a = self.mul(a, b);
    }
    /// `a^-1`.
    fn invert(&self, a: &Self::Elem) -> Self::Elem;
    /// Inverts every element, with one inversion for the whole slice (Montgomery's trick:
    /// prefix products, one inversion, and a backward pass; 3 multiplications per element).
    /// The curve overrides this: negation is free there.
    fn batch_invert(&self, xs: &mut [Self::Elem]) {
        if xs.is_empty() {
            return;
        }
        let mut prefix = Vec::with_capacity(xs.len());
        let mut acc = xs[0].clone();
        prefix.push(acc.clone());
        for x in &xs[1..] {
            acc = self.mul(&acc, x);
            prefix.push(acc.clone());
        }
        let mut inv = self.invert(&acc);
        for i in (1..xs.len()).rev() {
            let xi = self.mul(&inv, &prefix[i - 1]);
            inv = self.mul(&inv, &xs[i]);
            xs[i] = xi;
        }
        xs[0] = inv;
    }
    /// `base^e` for a variable base.
    fn exp(&self, base: &Self::Elem, e: &Self::Scalar) -> Self::Elem;
    /// `g^e` from the generator's table.
    fn exp_g(&self, e: &Self::Scalar) -> Self::Elem;
    /// A fixed-base table of `base` (made once per batch for the joint key).
    fn table(&self, base: &Self::Elem) -> Self::Table;
    /// `base^e` from `base`'s fixed-base table.
    fn exp_table(&self, table: &Self::Table, e: &Self::Scalar) -> Self::Elem;

    /// A secret exponent of [`Group::exponent_bits`] bits.
    fn random_scalar<R: RngCore + CryptoRng>(&self, rng: &mut R) -> Self::Scalar;
    /// A uniformly random exponent modulo the group order (Schnorr nonces).
    fn random_scalar_full<R: RngCore + CryptoRng>(&self, rng: &mut R) -> Self::Scalar;
    /// A 128-bit challenge as an exponent.
    fn challenge_scalar(&self, c: &[u8; 16]) -> Self::Scalar;
    /// `k + c * x` modulo the group order.
    fn scalar_mul_add(&self, c: &Self::Scalar, x: &Self::Scalar, k: &Self::Scalar) -> Self::Scalar;
    /// An exponent's fixed-length wire form.
    fn scalar_to_bytes(&self, s: &Self::Scalar) -> Vec<u8>;
    /// Reads an exponent's wire form, refusing one that is not reduced.
    fn scalar_from_bytes(&self, b: &[u8]) -> Result<Self::Scalar, Error>;

    /// A uniformly random element.
    fn random_elem<R: RngCore + CryptoRng>(&self, rng: &mut R) -> Self::Elem;
    /// An element from 64 uniform bytes.
    fn hash_to_elem(&self, bytes: &[u8; 64]) -> Self::Elem;

    /// Appends the element's wire form ([`Group::wire_bytes`] bytes).
    fn write_wire(&self, e: &Self::Elem, out: &mut Vec<u8>);
    /// Reads an element, checking it belongs to the group.
    fn read_wire(&self, bytes: &[u8]) -> Result<Self::Elem, Error>;

    /// Up to [`Group::payload_bytes`] bytes into an element (shorter input is zero-padded).
    fn encode_payload(&self, bytes: &[u8]) -> Result<Self::Elem, Error>;
    /// The [`Group::payload_bytes`] bytes an element carries.
    fn decode_payload(&self, e: &Self::Elem) -> Result<Vec<u8>, Error>;
}

/// Which group a run uses, with its setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum GroupSpec {
    /// ristretto255.
    Ec,
    /// The 2048-bit MODP group with exponents of the given length.
    Mg(modp::ExpLen),
}

impl GroupSpec {
    /// `ec`, `mg` (256-bit exponents), `mg-full` (full-length exponents), `mg-short` (= `mg`).
    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "ec" => Ok(GroupSpec::Ec),
            "mg" | "mg-short" => Ok(GroupSpec::Mg(modp::ExpLen::Short)),
            "mg-full" => Ok(GroupSpec::Mg(modp::ExpLen::Full)),
            other => Err(Error::UnknownGroup(other.into())),
        }
    }

    /// The name reports and the command line give the group (`ec`, `mg`, `mg-full`).
    pub fn label(self) -> &'static str {
        match self {
            GroupSpec::Ec => "ec",
            GroupSpec::Mg(modp::ExpLen::Short) => "mg",
            GroupSpec::Mg(modp::ExpLen::Full) => "mg-full",
        }
    }

    /// The group family, `ec` or `mg`.
    pub fn family(self) -> &'static str {
        match self {
            GroupSpec::Ec => "ec",
            GroupSpec::Mg(_) => "mg",
        }
    }
}

/// Calls `$body` with `$g` bound to a fresh instance of the group `$spec` names.
#[macro_export]
macro_rules! with_group {
    ($spec:expr, $g:ident => $body:expr) => {
        match $spec {
            $crate::group::GroupSpec::Ec => {
                let $g = $crate::group::ristretto::Ristretto::new();
                $body
            }
            $crate::group::GroupSpec::Mg(len) => {
                let $g = $crate::group::modp::Modp::new(len);
                $body
            }
        }
    };
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// The laws every implementation must satisfy.
    pub fn group_laws<G: Group>(g: &G) {
        let mut rng = ChaCha20Rng::from_seed([7; 32]);
        let a = g.random_elem(&mut rng);
        let b = g.random_elem(&mut rng);
        assert_ne!(a, b);
        let one = g.identity();
        assert_eq!(g.mul(&a, &one), a);
        assert_eq!(g.mul(&a, &g.invert(&a)), one);
        assert_eq!(g.mul(&a, &b), g.mul(&b, &a));
        // Batch inversion agrees with one-by-one inversion.
        let mut xs: Vec<_> = (0..7).map(|_| g.random_elem(&mut rng)).collect();
        let want: Vec<_> = xs.iter().map(|x| g.invert(x)).collect();
        g.batch_invert(&mut xs);
        assert_eq!(xs, want);
        // Fixed-base tables agree with plain exponentiation.
        let e = g.random_scalar(&mut rng);
        let gen = g.exp_g(&g.challenge_scalar(&[0; 16]));
        assert_eq!(gen, one);
        let table = g.table(&a);
        assert_eq!(g.exp_table(&table, &e), g.exp(&a, &e));
        let gt = g.exp_g(&e);
        assert_ne!(gt, one);
        // Schnorr-style algebra: g^(k + c x) = g^k (g^x)^c.
        let (x, k) = (g.random_scalar(&mut rng), g.random_scalar_full(&mut rng));
        let c = g.challenge_scalar(&[0xab; 16]);
        let z = g.scalar_mul_add(&c, &x, &k);
        assert_eq!(g.exp_g(&z), g.mul(&g.exp_g(&k), &g.exp(&g.exp_g(&x), &c)));
        let zb = g.scalar_to_bytes(&z);
        assert_eq!(g.exp_g(&g.scalar_from_bytes(&zb).unwrap()), g.exp_g(&z));
        // Wire round trip, and garbage refused.
        let mut w = vec![];
        g.write_wire(&a, &mut w);
        assert_eq!(w.len(), g.wire_bytes());
        assert_eq!(g.read_wire(&w).unwrap(), a);
        assert!(g.read_wire(&w[1..]).is_err());
        let ff = vec![0xff; g.wire_bytes()];
        assert!(g.read_wire(&ff).is_err());
        // Payload round trip, full length and short.
        let payload: Vec<u8> = (0..g.payload_bytes())
            .map(|i| (i * 37 + 11) as u8)
            .collect();
        let m = g.encode_payload(&payload).unwrap();
        assert_eq!(g.decode_payload(&m).unwrap(), payload);
        let mut w = vec![];
        g.write_wire(&m, &mut w);
        assert_eq!(
            g.decode_payload(&g.read_wire(&w).unwrap()).unwrap(),
            payload
        );
        let short = g.decode_payload(&g.encode_payload(b"hi").unwrap()).unwrap();
        assert_eq!(&short[..2], b"hi");
        assert!(short[2..].iter().all(|&b| b == 0));
        assert!(g.encode_payload(&vec![1; g.payload_bytes() + 1]).is_err());
        // A random element almost never decodes as a payload of the padded form; a blinded
        // payload does not decode to the payload.
        let blinded = g.mul(&m, &a);
        assert_ne!(g.decode_payload(&blinded).ok(), Some(payload.clone()));
        // Hash to element is deterministic and spreads.
        assert_eq!(g.hash_to_elem(&[1; 64]), g.hash_to_elem(&[1; 64]));
        assert_ne!(g.hash_to_elem(&[1; 64]), g.hash_to_elem(&[2; 64]));
        assert!(g.ops().snapshot().iter().any(|&k| k > 0));
    }
}
