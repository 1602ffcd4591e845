//! The Groth16 prover's group computations, shared by the parties and the single-party
//! reference prover ([`crate::plain`]).
//!
//! With proving key queries `a_i = [A_i(t)]_1`, `b_i = [B_i(t)]_1, [B_i(t)]_2`,
//! `l_i = [(beta A_i(t) + alpha B_i(t) + C_i(t)) / delta]_1` (private wires only) and
//! `h_j = [t^j Z(t) / delta]_1`, a proof for the full assignment `w` and randomisers `r`, `s` is
//!
//! ```text
//! A  = alpha_1 + sum_i w_i a_i + r delta_1
//! B  = beta_2  + sum_i w_i b_i + s delta_2        (and B_1 alike in G1, only used inside C)
//! C  = s A + r B_1 - r s delta_1 + sum_{i private} w_i l_i + sum_j h_j h_j
//! ```
//!
//! The three sums over `w` and the one over `h` are multi-scalar multiplications (MSMs), linear
//! in `w` and `h`: on shares they give shares of the sums. The terms that multiply two secret
//! values (`s A`, `r B_1`, `r s delta_1`) are where [`crate::party`] needs the other parties.

use ark_ec::pairing::Pairing;
use ark_ec::VariableBaseMSM;
use ark_ff::PrimeField;
use ark_groth16::ProvingKey;
use rayon::prelude::*;

use zksnark_prover::R1cs;

use crate::qap::Qap;
use crate::Error;

/// Scalars in the form ark's MSMs take (out of Montgomery form), converted once per vector.
pub fn bigints<F: PrimeField>(v: &[F]) -> Vec<F::BigInt> {
    v.par_iter().map(|x| x.into_bigint()).collect()
}

/// `sum_i w_i a_i`, `sum_i w_i b_i` in G1 and in G2, over every wire (the constant wire's
/// query entry included: its value is 1 in `w` and 0 in every other party's share).
pub fn query_msms<E: Pairing>(
    pk: &ProvingKey<E>,
    w: &[<E::ScalarField as PrimeField>::BigInt],
) -> (E::G1, E::G1, E::G2) {
    (
        E::G1::msm_bigint(&pk.a_query, w),
        E::G1::msm_bigint(&pk.b_g1_query, w),
        E::G2::msm_bigint(&pk.b_g2_query, w),
    )
}

/// `sum_{i private} w_i l_i + sum_j h_j h_j`: the part of C that is linear in the witness.
pub fn c_msm<E: Pairing>(
    pk: &ProvingKey<E>,
    w: &[<E::ScalarField as PrimeField>::BigInt],
    inputs: usize,
    h: &[E::ScalarField],
) -> E::G1 {
    // `h` has N coefficients; the key has N - 1 powers, since h's degree is at most N - 2.
    let h = bigints(&h[..pk.h_query.len()]);
    E::G1::msm_bigint(&pk.h_query, &h) + E::G1::msm_bigint(&pk.l_query, &w[inputs..])
}

/// Checks that `pk` was made for this constraint system; a key for another circuit would give
/// proofs that merely fail to verify.
pub fn check_key<E: Pairing>(
    r1cs: &R1cs<E::ScalarField>,
    pk: &ProvingKey<E>,
    qap: &Qap<E::ScalarField>,
) -> Result<(), Error> {
    let wires = r1cs.n_wires;
    let fits = pk.vk.gamma_abc_g1.len() == qap.inputs()
        && pk.a_query.len() == wires
        && pk.b_g1_query.len() == wires
        && pk.b_g2_query.len() == wires
        && pk.l_query.len() == wires - qap.inputs()
        && pk.h_query.len() == qap.size() - 1;
    if fits {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "the proving key does not belong to this R1CS: the key has {} public inputs and {} \
             variables, the R1CS {} and {}",
            pk.vk.gamma_abc_g1.len() - 1,
            pk.a_query.len(),
            qap.inputs() - 1,
            wires
        )))
    }
}
