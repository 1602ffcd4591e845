//! One proof for several positions of one commitment (the reference's "batching"): with 128-bit
//! challenges t_i = H(n, C, S, m_S, i),
//!
//! ```text
//! π_S = Σ_(i∈S) t_i·π_i = Σ_(i∈S) Σ_(j≠i) t_i·m_j·g1^(a^(n+1−i+j))
//! e(C, Σ_(i∈S) t_i·g2^(a^(n+1−i))) = e(π_S, g2)·T^(Σ_(i∈S) t_i·m_i)
//! ```
//!
//! The challenges come after C, the positions and their values are fixed, so a prover cannot
//! pick proofs whose errors cancel (except with probability about 2^-128). [`prove_batch`]
//! builds π_S from the values in one MSM over at most 2n−1 parameters (grouping the terms by
//! parameter); [`aggregate`] combines single proofs; [`verify_batch`] costs one G2 MSM of |S|
//! short scalars on top of a single verification.

use sha2::{Digest, Sha256};

use super::commit::{check_len, hash_values, Commitment};
use super::params::{ProverParams, VerifierParams};
use super::prove::{check_index, Proof};
use super::verify::pairing_product;
use crate::curve::hash_to_scalar::hash_value;
use crate::curve::msm::pippenger_msm_bits;
use crate::curve::Scalar;
use crate::Error;

/// Domain-separation tag of the batch challenges.
pub const BATCH_DST: &[u8] = b"VECCOM-V01-BLS12381-BATCH-CHALLENGE";

/// Bits of each challenge t_i.
pub const CHALLENGE_BITS: usize = 128;

/// The positions sorted, checked to be distinct and in range.
fn sorted_positions(n: usize, indices: impl Iterator<Item = usize>) -> Result<Vec<usize>, Error> {
    let mut s: Vec<usize> = indices.collect();
    if s.is_empty() {
        return Err(Error::InvalidParameters(
            "a batch needs at least one position".into(),
        ));
    }
    s.sort_unstable();
    for w in s.windows(2) {
        if w[0] == w[1] {
            return Err(Error::DuplicateIndex(w[0]));
        }
    }
    check_index(n, *s.last().expect("non-empty"))?;
    Ok(s)
}

/// t_i for the (sorted, distinct) positions `s` with scalars `m_s`.
fn challenges(n: usize, c: &Commitment, s: &[usize], m_s: &[Scalar]) -> Vec<Scalar> {
    let mut h = Sha256::new();
    h.update(BATCH_DST);
    h.update((n as u64).to_be_bytes());
    h.update(c.to_bytes());
    h.update((s.len() as u64).to_be_bytes());
    for (i, m) in s.iter().zip(m_s) {
        h.update((*i as u64).to_be_bytes());
        h.update(m.to_be_bytes());
    }
    let seed = h.finalize();
    s.iter()
        .map(|i| {
            let d = Sha256::new()
                .chain_update(seed)
                .chain_update((*i as u64).to_be_bytes())
                .finalize();
            let mut t = [0u8; 16];
            t.copy_from_slice(&d[..16]);
            Scalar::from_u128(u128::from_be_bytes(t))
        })
        .collect()
}

/// The combined proof for positions `indices` (0-based) of `values`, committed in `c`.
pub fn prove_batch<V: AsRef<[u8]> + Sync>(
    pp: &ProverParams,
    c: &Commitment,
    values: &[V],
    indices: &[usize],
) -> Result<Proof, Error> {
    check_len(pp.n(), values.len())?;
    prove_batch_scalars(pp, c, &hash_values(values), indices)
}

/// [`prove_batch`] for hashed values.
pub fn prove_batch_scalars(
    pp: &ProverParams,
    c: &Commitment,
    m: &[Scalar],
    indices: &[usize],
) -> Result<Proof, Error> {
    let n = pp.n();
    check_len(n, m.len())?;
    let s = sorted_positions(n, indices.iter().copied())?;
    let m_s: Vec<Scalar> = s.iter().map(|&i| m[i]).collect();
    let t = challenges(n, c, &s, &m_s);
    // Coefficient of g1^(a^k), k = n+1−i+j, at slot(k); slots run over [1, 2n] \ {n+1}.
    let mut coeff = vec![Scalar::ZERO; 2 * n - 1];
    for (&i0, ti) in s.iter().zip(&t) {
        let i = i0 + 1;
        for (j0, mj) in m.iter().enumerate() {
            let j = j0 + 1;
            if j != i {
                let slot = pp.slot(n + 1 - i + j) as usize;
                coeff[slot] = coeff[slot].add(&ti.mul(mj));
            }
        }
    }
    let (slots, scalars): (Vec<u32>, Vec<Scalar>) = coeff
        .into_iter()
        .enumerate()
        .filter(|(_, x)| !x.is_zero())
        .map(|(k, x)| (k as u32, x))
        .unzip();
    Ok(Proof(pp.table().msm(&slots, &scalars).to_affine()))
}

/// Combines single proofs `(index, value, proof)` of one commitment into one proof.
pub fn aggregate<V: AsRef<[u8]>>(
    n: usize,
    c: &Commitment,
    items: &[(usize, V, Proof)],
) -> Result<Proof, Error> {
    let s = sorted_positions(n, items.iter().map(|x| x.0))?;
    let mut sorted: Vec<&(usize, V, Proof)> = items.iter().collect();
    sorted.sort_unstable_by_key(|x| x.0);
    let m_s: Vec<Scalar> = sorted.iter().map(|x| hash_value(x.1.as_ref())).collect();
    let t = challenges(n, c, &s, &m_s);
    let points: Vec<_> = sorted.iter().map(|x| x.2 .0).collect();
    let scalars: Vec<[u8; 32]> = t.iter().map(Scalar::to_le_bytes).collect();
    Ok(Proof(
        pippenger_msm_bits(&points, &scalars, CHALLENGE_BITS).to_affine(),
    ))
}

/// Whether `proof` shows that the positions of `items` (0-based index, value) hold those values
/// in the vector committed in `c`. Duplicate or out-of-range positions are rejected.
pub fn verify_batch<V: AsRef<[u8]>>(
    vp: &VerifierParams,
    c: &Commitment,
    items: &[(usize, V)],
    proof: &Proof,
) -> bool {
    let n = vp.n();
    let Ok(s) = sorted_positions(n, items.iter().map(|x| x.0)) else {
        return false;
    };
    let mut sorted: Vec<&(usize, V)> = items.iter().collect();
    sorted.sort_unstable_by_key(|x| x.0);
    let m_s: Vec<Scalar> = sorted.iter().map(|x| hash_value(x.1.as_ref())).collect();
    let t = challenges(n, c, &s, &m_s);
    let g2s: Vec<_> = s.iter().map(|&i0| vp.g2_power(n - i0)).collect();
    let t_bytes: Vec<[u8; 32]> = t.iter().map(Scalar::to_le_bytes).collect();
    let h = bls12381::msm::g2(&g2s, &t_bytes, CHALLENGE_BITS).to_affine();
    let exponent = t
        .iter()
        .zip(&m_s)
        .fold(Scalar::ZERO, |acc, (ti, mi)| acc.add(&ti.mul(mi)));
    pairing_product(&[(c.0, h), (proof.0, vp.g2_neg())]) == vp.t_table().pow(&exponent)
}
