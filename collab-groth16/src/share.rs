//! Additive secret sharing over the scalar field, and the pseudo-random expansion that lets the
//! dealer send most parties a 32-byte seed instead of a vector.
//!
//! A value `x` is shared among parties `0..m` as `x = x_0 + ... + x_{m-1}`; any `m - 1` shares
//! are uniformly random and independent of `x`. Linear maps commute with sharing: if each party
//! applies the same linear map `L` to its share, the results are shares of `L(x)`. A public
//! constant `c` is added by party 0 alone.
//!
//! The dealer does not send whole vectors of random shares. Every party gets a seed, and the
//! shares that may be uniformly random (a triple's `x` and `y`, the MAC key) are ChaCha20
//! expansions of it, one stream per kind of share. Only the shares that the others determine
//! (the witness, a triple's `z = x y`, the MACs) are sent in full, and only to party 0: parties
//! `1..m` expand theirs from the seed, and party 0 gets `value - sum of the others`.

use ark_ff::PrimeField;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

/// A ChaCha20 key: 32 bytes, the seed length every CSPRNG of the suite uses.
pub type Seed = [u8; 32];

/// The independent ChaCha20 streams of one party's seed: one per kind of share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// The party's share of the private wires.
    Witness = 1,
    /// Beaver triples `(x, y, z = x y)`: the `x` shares.
    TripleX = 2,
    /// The triples' `y` shares.
    TripleY = 3,
    /// The triples' `z` shares.
    TripleZ = 4,
    /// The party's share of the global MAC key `alpha` (malicious variant).
    MacKey = 5,
    /// MAC shares (`alpha * value`, shared) of the private wires.
    WitnessMac = 6,
    /// MAC shares of the triples' `x`.
    TripleXMac = 7,
    /// MAC shares of the triples' `y`.
    TripleYMac = 8,
    /// Shares of the input masks `rho` (two per party: for its part of `r` and of `s`).
    Mask = 9,
    /// The input masks' MAC shares.
    MaskMac = 10,
    /// The MAC check's challenges, from the seed the parties' coins make together.
    Challenge = 11,
}

/// Values of one ChaCha20 stream are drawn in blocks of this many, each block from its own
/// position in the stream, so that expansion runs in parallel and gives the same vector for
/// every thread count.
const BLOCK: usize = 4096;

/// The first `len` field elements of `stream` under `seed`.
pub fn expand<F: PrimeField>(seed: &Seed, stream: Stream, len: usize) -> Vec<F> {
    let mut out = vec![F::zero(); len];
    out.par_chunks_mut(BLOCK)
        .enumerate()
        .for_each(|(block, chunk)| {
            let mut rng = ChaCha20Rng::from_seed(*seed);
            rng.set_stream(stream as u64);
            // Rejection sampling consumes a variable number of words, so each block starts at
            // its own fixed word position, far enough apart (2^20 words per block; a field
            // element takes a few words) never to overlap.
            rng.set_word_pos((block as u128) << 20);
            for x in chunk.iter_mut() {
                *x = F::rand(&mut rng);
            }
        });
    out
}

/// The shares of party `id` for a value the others' pseudo-random shares determine: party 0's
/// comes from the dealer (`fixed`), everyone else's from its seed.
pub fn determined<F: PrimeField>(
    id: usize,
    seed: &Seed,
    stream: Stream,
    len: usize,
    fixed: Option<&[F]>,
) -> Vec<F> {
    match (id, fixed) {
        (0, Some(v)) => {
            assert_eq!(v.len(), len, "party 0's share has the length of the value");
            v.to_vec()
        }
        (0, None) => panic!("party 0 needs the dealer's explicit share"),
        _ => expand(seed, stream, len),
    }
}

/// `value - sum over parties 1..m of their expanded shares`: party 0's share of `value`.
pub fn remainder<F: PrimeField>(value: &[F], seeds: &[Seed], stream: Stream) -> Vec<F> {
    let mut out = value.to_vec();
    for seed in &seeds[1..] {
        let share: Vec<F> = expand(seed, stream, value.len());
        out.par_iter_mut()
            .zip(share.par_iter())
            .for_each(|(o, s)| *o -= s);
    }
    out
}

/// The sum of the expansions of `stream` under every seed: a value that all parties' shares
/// are pseudo-random for (a triple's `x` and `y`, the MAC key).
pub fn sum_of_expansions<F: PrimeField>(seeds: &[Seed], stream: Stream, len: usize) -> Vec<F> {
    let mut out = vec![F::zero(); len];
    for seed in seeds {
        let share: Vec<F> = expand(seed, stream, len);
        add_assign(&mut out, &share);
    }
    out
}

/// `a += b`, elementwise.
pub fn add_assign<F: PrimeField>(a: &mut [F], b: &[F]) {
    assert_eq!(a.len(), b.len());
    a.par_iter_mut()
        .zip(b.par_iter())
        .for_each(|(x, y)| *x += y);
}

/// `a - b`, elementwise.
pub fn sub<F: PrimeField>(a: &[F], b: &[F]) -> Vec<F> {
    assert_eq!(a.len(), b.len());
    a.par_iter()
        .zip(b.par_iter())
        .map(|(x, y)| *x - y)
        .collect()
}

/// `c * a`, elementwise.
pub fn scale<F: PrimeField>(c: F, a: &[F]) -> Vec<F> {
    a.par_iter().map(|x| c * x).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;

    #[test]
    fn streams_are_distinct_and_blocks_reproducible() {
        let seed = [7u8; 32];
        let a: Vec<Fr> = expand(&seed, Stream::TripleX, 3 * BLOCK + 5);
        let b: Vec<Fr> = expand(&seed, Stream::TripleX, 3 * BLOCK + 5);
        let c: Vec<Fr> = expand(&seed, Stream::TripleY, 3 * BLOCK + 5);
        assert_eq!(a, b);
        assert_ne!(a[0], c[0]);
        // A prefix is the same whatever the requested length.
        let short: Vec<Fr> = expand(&seed, Stream::TripleX, BLOCK + 1);
        assert_eq!(&a[..BLOCK + 1], &short[..]);
        // Blocks do not repeat each other.
        assert_ne!(a[0], a[BLOCK]);
    }

    #[test]
    fn remainder_and_expansions_reconstruct_the_value() {
        let seeds = [[1u8; 32], [2u8; 32], [3u8; 32]];
        let value: Vec<Fr> = (0..10u64).map(Fr::from).collect();
        let fixed = remainder(&value, &seeds, Stream::Witness);
        let mut sum = vec![Fr::from(0u64); value.len()];
        for (id, seed) in seeds.iter().enumerate() {
            let share = determined(id, seed, Stream::Witness, value.len(), Some(&fixed));
            add_assign(&mut sum, &share);
        }
        assert_eq!(sum, value);
    }
}
