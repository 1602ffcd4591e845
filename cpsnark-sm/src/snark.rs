//! CP_HashToPrime: a LegoGroth16 proof (BLS12-381) of the hash-to-prime circuit with the CP_link
//! commitment.
//!
//! LegoGroth16 (docknetwork's `legogroth16`) commits the first witness of the circuit, the prime,
//! in the proof element D, and proves with a subspace QA-NIZK that the Pedersen commitment
//! link_d = g·p + h·link_v opens to the same value. With the protocol's Pedersen bases (g, h) and
//! link_v = r_q, link_d *is* the statement's c_e_q, so the verifier just compares them.

use ark_ec::{pairing::Pairing, CurveGroup};
use ark_ff::UniformRand;
use legogroth16::{
    create_random_proof_incl_cp_link, generate_random_parameters_incl_cp_link,
    prepare_verifying_key, verify_proof_incl_cp_link, LinkPublicGenerators, PreparedVerifyingKey,
    ProofWithLink, ProvingKeyWithLink, VerifyingKeyWithLink,
};
use rand::{CryptoRng, RngCore};
use rug::Integer;

use crate::{commitments::Pedersen, hash_to_prime::HashToPrimeCircuit, params::Parameters, Error};

/// The SNARK's share of the CRS. The verifying key is prepared once here (upstream re-prepared
/// it, one pairing, on every verification, and cloned the proving key per call).
pub struct SnarkCrs<E: Pairing> {
    /// The proving key, linked to the Pedersen commitment's bases.
    pub pk: ProvingKeyWithLink<E>,
    /// The verifying key.
    pub vk: VerifyingKeyWithLink<E>,
    /// The verifying key with its pairings prepared, once.
    pub pvk: PreparedVerifyingKey<E>,
}

/// Number of witnesses committed in D: the prime alone.
const COMMITTED_WITNESSES: u32 = 1;

/// Trusted setup for the circuit with the link bases [g, h] of the protocol's Pedersen scheme.
pub fn setup<E: Pairing, R: RngCore + CryptoRng>(
    params: &Parameters,
    ped: &Pedersen<E>,
    rng: &mut R,
) -> Result<SnarkCrs<E>, Error> {
    let gens = LinkPublicGenerators::<E> {
        pedersen_gens: vec![ped.g, ped.h],
        g1: E::G1::rand(rng).into_affine(),
        g2: E::G2::rand(rng).into_affine(),
    };
    let pk = generate_random_parameters_incl_cp_link(
        HashToPrimeCircuit::<E::ScalarField>::blank(*params),
        gens,
        COMMITTED_WITNESSES,
        rng,
    )
    .map_err(|e| Error::Snark(format!("setup: {e:?}")))?;
    let vk = pk.vk.clone();
    let pvk = prepare_verifying_key(&vk.groth16_vk);
    Ok(SnarkCrs { pk, vk, pvk })
}

/// Prove that `prime` = H2P(value) at nonce `index`, with link_d = g·prime + h·r_q.
pub fn prove<E: Pairing, R: RngCore + CryptoRng>(
    crs: &SnarkCrs<E>,
    params: &Parameters,
    value: &Integer,
    index: u32,
    prime: &Integer,
    r_q: &E::ScalarField,
    rng: &mut R,
) -> Result<ProofWithLink<E>, Error> {
    let circuit = HashToPrimeCircuit::<E::ScalarField>::new(*params, value, index, prime);
    // v hides the prime inside D; it is independent of r_q.
    let v = E::ScalarField::rand(rng);
    create_random_proof_incl_cp_link(circuit, v, *r_q, &crs.pk, rng)
        .map_err(|e| Error::Snark(format!("prove: {e:?}")))
}

/// Verify the SNARK and its link, and that the link commitment is the statement's c_e_q.
pub fn verify<E: Pairing>(
    crs: &SnarkCrs<E>,
    proof: &ProofWithLink<E>,
    c_e_q: &E::G1Affine,
) -> Result<(), Error> {
    if proof.link_d != *c_e_q {
        return Err(Error::SnarkRejected("link commitment is not c_e_q".into()));
    }
    verify_proof_incl_cp_link(&crs.pvk, &crs.vk, proof, &[])
        .map_err(|e| Error::SnarkRejected(format!("{e:?}")))
}
