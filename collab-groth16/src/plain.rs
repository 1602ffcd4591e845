//! The single-party prover built from the same pieces as the parties ([`crate::qap`],
//! [`crate::groth16`]): the arithmetic each party repeats on its share, with no sharing and no
//! network. Its time is the floor for a party's online time in the same run; the gap between
//! the two is what the protocol itself costs. Given the same `r` and `s` it outputs exactly
//! ark-groth16's proof (tested).

use ark_ec::pairing::Pairing;
use ark_ec::CurveGroup;
use ark_groth16::{Proof, ProvingKey};
use rayon::prelude::*;

use zksnark_prover::R1cs;

use crate::groth16::{bigints, c_msm, check_key, query_msms};
use crate::qap::Qap;
use crate::Error;

/// A Groth16 proof for the full assignment `w` (wire order) with randomisers `r` and `s`.
pub fn prove<E: Pairing>(
    r1cs: &R1cs<E::ScalarField>,
    w: &[E::ScalarField],
    pk: &ProvingKey<E>,
    r: E::ScalarField,
    s: E::ScalarField,
) -> Result<Proof<E>, Error> {
    let qap = Qap::new(r1cs)?;
    check_key(r1cs, pk, &qap)?;
    let mut a = qap.a_rows(r1cs, w);
    let mut b = qap.b_rows(r1cs, w);
    let mut c = qap.c_rows(r1cs, w);
    for v in [&mut a, &mut b, &mut c] {
        qap.to_coset(v);
    }
    a.par_iter_mut()
        .zip(b.par_iter())
        .for_each(|(a, b)| *a *= b);
    let h = qap.quotient(a, &c);

    let w = bigints(w);
    let (a_w, b1_w, b2_w) = query_msms(pk, &w);
    let a = a_w + pk.vk.alpha_g1 + pk.delta_g1 * r;
    let b1 = b1_w + pk.beta_g1 + pk.delta_g1 * s;
    let b2 = b2_w + pk.vk.beta_g2 + pk.vk.delta_g2 * s;
    let c = a * s + b1 * r - pk.delta_g1 * (r * s) + c_msm(pk, &w, qap.inputs(), &h);
    Ok(Proof {
        a: a.into_affine(),
        b: b2.into_affine(),
        c: c.into_affine(),
    })
}
