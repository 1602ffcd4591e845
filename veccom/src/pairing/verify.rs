//! Verify position i: e(C, g2^(a^(n+1−i)))·e(π, −g2) = T^(m_i), one two-pair Miller loop, one
//! final exponentiation and one table exponentiation in GT.

use super::commit::Commitment;
use super::params::VerifierParams;
use super::prove::Proof;
use crate::curve::hash_to_scalar::hash_value;
use crate::curve::pairing::{final_exponentiation, multi_miller_loop};
use crate::curve::{G1Affine, G2Affine, Gt, Scalar};

/// Whether `proof` shows that position `index` (0-based) of the vector committed in `c` holds
/// `value`. An index outside the vector is rejected.
pub fn verify(
    vp: &VerifierParams,
    c: &Commitment,
    index: usize,
    value: &[u8],
    proof: &Proof,
) -> bool {
    verify_scalar(vp, c, index, &hash_value(value), proof)
}

/// [`verify`] for an already hashed value.
pub fn verify_scalar(
    vp: &VerifierParams,
    c: &Commitment,
    index: usize,
    m: &Scalar,
    proof: &Proof,
) -> bool {
    let n = vp.n();
    if index >= n {
        return false;
    }
    let i = index + 1;
    let lhs = pairing_product(&[(c.0, vp.g2_power(n + 1 - i)), (proof.0, vp.g2_neg())]);
    lhs == vp.t_table().pow(m)
}

/// Π e(P_k, Q_k) with one Miller loop and one final exponentiation; pairs with the point at
/// infinity contribute 1 and are left out (blst's loop expects finite points).
pub(crate) fn pairing_product(pairs: &[(G1Affine, G2Affine)]) -> Gt {
    let finite: Vec<(G1Affine, G2Affine)> = pairs
        .iter()
        .copied()
        .filter(|(p, _)| !p.is_identity())
        .collect();
    if finite.is_empty() {
        return Gt::one();
    }
    final_exponentiation(&multi_miller_loop(&finite))
}
