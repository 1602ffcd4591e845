//! Terelius-Wikström proof of an ElGamal shuffle (TW10 Protocol 3).
//!
//! Relation: `out_j = Reenc(in_{π(j)}; ρ_{π(j)})` (ρ indexed by input position), with π the
//! permutation committed to in `a` ([`crate::proofs::perm`]). The proof is the opening proof of
//! [`crate::proofs::perm`] (same B-chain, commitments and responses) extended by one commitment
//! `CC = (g1^{−û}·∏ out_j[0]^{ê′_j}, Y^{−û}·∏ out_j[1]^{ê′_j})` and one response
//! `z_u = û − c·u`, `u = Σ ρ_i e_i`, which together show
//! `∏ in_i^{e_i} = ∏ out_j^{e′_j} ⊙ Enc(1; −u)`.
//!
//! Fiat-Shamir binds the whole statement (fix F1): generators, commitment key, permutation
//! commitment, public key, both ciphertext vectors; e is derived from them (fix S6) and
//! absorbed, then the challenge covers every commitment.
//!
//! The reverse shuffles of DB-SM (docs/protocol.md §6.3) reuse the forward commitment by swapping
//! roles: with `new = π⁻¹(Reenc(old; ρ))`, `old_j = new_{π(j)} ⊙ Enc(1; −ρ_j)`, so prove with
//! input `new`, output `old`, the same π, and randomness `−ρ` rearranged to new's indices.

use ark_ec::pairing::Pairing;
use ark_ec::CurveGroup;
use ark_ff::UniformRand;
use ark_serialize::CanonicalSerialize;
use rand::{CryptoRng, RngCore};

use crate::error::ensure;
use crate::primitives::elgamal::{reencrypt_many, Ciphertext, PublicKey};
use crate::primitives::group::{msm, msm_short, mul_var, Generators};
use crate::primitives::pedersen::CommitmentKey;
use crate::primitives::transcript::Transcript;
use crate::proofs::perm::{
    append_commit, append_statement, derive_e, prove_commit, prove_respond, recompute_commit,
    Direction, PermCommitment, PermProof, Permutation,
};
use crate::{Error, Result};

/// Shuffled ciphertexts and the re-encryption randomness, indexed by input position.
pub type Shuffled<E> = (Vec<Ciphertext<E>>, Vec<<E as Pairing>::ScalarField>);

/// The shuffle proof: the opening proof of the permutation commitment plus z_u.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShuffleProof<E: Pairing> {
    /// The opening proof of the permutation commitment.
    pub perm: PermProof<E>,
    /// The response for the re-encryption randomness.
    pub z_u: E::ScalarField,
}

impl<E: Pairing> ShuffleProof<E> {
    /// Serialised size (compressed points and scalars).
    pub fn size_bytes(&self) -> usize {
        self.perm.size_bytes() + self.z_u.compressed_size()
    }
}

/// Re-encrypts every input with fresh randomness ρ and permutes in direction `dir`: forward,
/// `out_j = Reenc(in_{π(j)}; ρ_{π(j)})`; reverse, `out = π⁻¹(Reenc(in; ρ))`. Returns the outputs
/// and ρ indexed by input position (the witness; a reverse step proves with
/// [`reverse_witness`]).
pub fn shuffle<E: Pairing>(
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    perm: &Permutation,
    dir: Direction,
    inputs: &[Ciphertext<E>],
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<Shuffled<E>> {
    let rho: Vec<E::ScalarField> = inputs.iter().map(|_| E::ScalarField::rand(rng)).collect();
    let re = reencrypt_many(gens, pk, inputs, &rho)?;
    Ok((perm.arrange(dir, &re)?, rho))
}

const DOMAIN: &[u8] = b"db-sm-rsm/tw-elgamal-shuffle/v1";

/// What a shuffle proof is about: outputs that re-encrypt the inputs permuted by the π that
/// `perm_commitment` commits to, under the ElGamal key `pk`.
pub struct ShuffleStatement<'a, E: Pairing> {
    /// The global generators.
    pub gens: &'a Generators<E>,
    /// The Pedersen vector commitment key.
    pub ck: &'a CommitmentKey<E>,
    /// The mixer's permutation commitment.
    pub perm_commitment: &'a PermCommitment<E>,
    /// The ElGamal key.
    pub pk: &'a PublicKey<E>,
    /// The ciphertexts before the shuffle.
    pub input: &'a [Ciphertext<E>],
    /// The ciphertexts after it.
    pub output: &'a [Ciphertext<E>],
}

/// The prover's secrets: π, the commitment's randomness and the re-encryption randomness
/// (indexed by input position).
pub struct ShuffleWitness<'a, E: Pairing> {
    /// π.
    pub perm: &'a Permutation,
    /// The commitment's randomness s⃗.
    pub s: &'a [E::ScalarField],
    /// ρ⃗.
    pub rho: &'a [E::ScalarField],
}

fn statement_transcript<E: Pairing>(
    st: &ShuffleStatement<'_, E>,
) -> Result<(Transcript, Vec<E::ScalarField>)> {
    let (gens, ck, a, pk) = (st.gens, st.ck, st.perm_commitment, st.pk);
    let (inputs, outputs) = (st.input, st.output);
    let n = a.a.len();
    if inputs.len() != n || outputs.len() != n || n == 0 {
        return Err(Error::Input(format!(
            "shuffle of {} inputs and {} outputs under a commitment of {n}",
            inputs.len(),
            outputs.len()
        )));
    }
    let mut t = Transcript::new(DOMAIN);
    append_statement(&mut t, gens, ck, a);
    pk.append_to(&mut t);
    t.append_ark_slice(b"inputs", inputs);
    t.append_ark_slice(b"outputs", outputs);
    let e = derive_e(gens, &mut t, n);
    t.append_ark_slice(b"e", &e);
    Ok((t, e))
}

fn append_cc<E: Pairing>(t: &mut Transcript, cc: (E::G1, E::G1)) {
    let cc = E::G1::normalize_batch(&[cc.0, cc.1]);
    t.append_ark(b"CC0", &cc[0]);
    t.append_ark(b"CC1", &cc[1]);
}

/// Proves that the statement's outputs re-encrypt its inputs permuted by the committed π.
pub fn prove_shuffle<E: Pairing>(
    st: &ShuffleStatement<'_, E>,
    w: &ShuffleWitness<'_, E>,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<ShuffleProof<E>> {
    let (mut t, e) = statement_transcript(st)?;
    let (gens, ck, pk, inputs, outputs) = (st.gens, st.ck, st.pk, st.input, st.output);
    let (perm, s, rho) = (w.perm, w.s, w.rho);
    if rho.len() != inputs.len() || perm.len() != inputs.len() {
        return Err(Error::Input("shuffle witness lengths differ".into()));
    }
    let (pc, state) = prove_commit(gens, ck, perm, s, &e, rng)?;
    let u: E::ScalarField = rho.iter().zip(&e).map(|(r, e)| *r * e).sum();
    let u_hat = E::ScalarField::rand(rng);
    let out0: Vec<E::G1Affine> = outputs.iter().map(|c| c.c0).collect();
    let out1: Vec<E::G1Affine> = outputs.iter().map(|c| c.c1).collect();
    let cc0 = msm::<E::G1>(&out0, &state.e_hat)? - gens.g1.mul(&u_hat);
    let cc1 = msm::<E::G1>(&out1, &state.e_hat)? - pk.y_mul(&u_hat);
    append_commit(&mut t, &pc);
    append_cc::<E>(&mut t, (cc0, cc1));
    let c: E::ScalarField = t.challenge_scalar(b"c");
    Ok(ShuffleProof {
        perm: prove_respond(pc, state, c),
        z_u: u_hat - c * u,
    })
}

/// Verifies a [`ShuffleProof`].
pub fn verify_shuffle<E: Pairing>(
    st: &ShuffleStatement<'_, E>,
    proof: &ShuffleProof<E>,
) -> Result<()> {
    let (mut t, e) = statement_transcript(st)?;
    let (gens, ck, a, pk) = (st.gens, st.ck, st.perm_commitment, st.pk);
    let (inputs, outputs) = (st.input, st.output);
    let pc = recompute_commit(gens, ck, a, &e, &proof.perm)?;
    let c = proof.perm.c;
    let in0: Vec<E::G1Affine> = inputs.iter().map(|x| x.c0).collect();
    let in1: Vec<E::G1Affine> = inputs.iter().map(|x| x.c1).collect();
    let out0: Vec<E::G1Affine> = outputs.iter().map(|x| x.c0).collect();
    let out1: Vec<E::G1Affine> = outputs.iter().map(|x| x.c1).collect();
    // LCC = ∏ in_i^{e_i} (80-bit), ZCC = Enc(1; −z_u) ⊙ ∏ out_j^{z_e′_j}; CC = LCC^c ⊙ ZCC.
    let kappa_e = gens.batch_bits() as usize;
    let lcc0 = msm_short::<E::G1>(&in0, &e, kappa_e)?;
    let lcc1 = msm_short::<E::G1>(&in1, &e, kappa_e)?;
    let cc0 = mul_var(lcc0, &c) + msm::<E::G1>(&out0, &proof.perm.z_e)? - gens.g1.mul(&proof.z_u);
    let cc1 = mul_var(lcc1, &c) + msm::<E::G1>(&out1, &proof.perm.z_e)? - pk.y_mul(&proof.z_u);
    append_commit(&mut t, &pc);
    append_cc::<E>(&mut t, (cc0, cc1));
    let c2: E::ScalarField = t.challenge_scalar(b"c");
    ensure(c2 == c, "ElGamal shuffle proof: challenge mismatch")
}

/// The reverse-shuffle witness: given ρ used as `new = π⁻¹(Reenc(old; ρ))`,
/// the randomness that proves `old_j = new_{π(j)} ⊙ Enc(1; ·)` indexed by new's positions.
pub fn reverse_witness<E: Pairing>(
    perm: &Permutation,
    rho: &[E::ScalarField],
) -> Result<Vec<E::ScalarField>> {
    let neg: Vec<E::ScalarField> = rho.iter().map(|r| -*r).collect();
    perm.apply_inverse(&neg)
}

crate::wire_struct!(impl[E: Pairing] ShuffleProof<E> { wire perm, ark z_u });

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::elgamal::{decrypt_with_secret, encrypt_many, keygen, random_message};
    use crate::proofs::perm::commit_perm_random;
    use ark_ec::AffineRepr;
    use ark_ff::One;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// True when both ciphertext lists have a nonzero first component (a sanity check for callers).
    fn nontrivial<E: Pairing>(cs: &[Ciphertext<E>]) -> bool {
        cs.iter().all(|c| !c.c0.is_zero())
    }

    /// The statement of a shuffle from `input` to `output` under commitment `a`.
    fn stmt<'a, E: Pairing>(
        gens: &'a Generators<E>,
        ck: &'a CommitmentKey<E>,
        a: &'a PermCommitment<E>,
        pk: &'a PublicKey<E>,
        input: &'a [Ciphertext<E>],
        output: &'a [Ciphertext<E>],
    ) -> ShuffleStatement<'a, E> {
        ShuffleStatement {
            gens,
            ck,
            perm_commitment: a,
            pk,
            input,
            output,
        }
    }

    fn shuffle_proof<E: Pairing>() {
        let mut rng = ChaCha20Rng::seed_from_u64(40);
        let gens = Generators::<E>::new(&mut rng);
        let (pk, xs) = keygen(&gens, 2, &mut rng).unwrap();
        let x: E::ScalarField = xs.iter().sum();
        for n in [1usize, 2, 6] {
            let ck = CommitmentKey::<E>::new(&gens, n, &mut rng);
            let perm = Permutation::random(n, &mut rng);
            let (a, s) = commit_perm_random(&gens, &ck, &perm, &mut rng).unwrap();
            let msgs: Vec<E::G1Affine> = (0..n).map(|_| random_message::<E>(&mut rng)).collect();
            let (inputs, _) = encrypt_many(&gens, &pk, &msgs, &mut rng);
            let (outputs, rho) =
                shuffle(&gens, &pk, &perm, Direction::Forward, &inputs, &mut rng).unwrap();
            for j in 0..n {
                assert_eq!(decrypt_with_secret(&outputs[j], &x), msgs[perm.pi[j]]);
            }
            let proof = prove_shuffle(
                &stmt(&gens, &ck, &a, &pk, &inputs, &outputs),
                &ShuffleWitness {
                    perm: &perm,
                    s: &s,
                    rho: &rho,
                },
                &mut rng,
            )
            .unwrap();
            verify_shuffle(&stmt(&gens, &ck, &a, &pk, &inputs, &outputs), &proof).unwrap();
            assert!(proof.size_bytes() > 0);

            // Tampers: an output ciphertext, an input, a response, the permutation commitment.
            let mut bad = outputs.clone();
            bad[n - 1].c1 = (bad[n - 1].c1 + gens.g1.base()).into_affine();
            assert!(verify_shuffle(&stmt(&gens, &ck, &a, &pk, &inputs, &bad), &proof).is_err());
            let mut bad = inputs.clone();
            bad[0].c0 = (bad[0].c0 + gens.g1.base()).into_affine();
            assert!(verify_shuffle(&stmt(&gens, &ck, &a, &pk, &bad, &outputs), &proof).is_err());
            let mut badp = proof.clone();
            badp.z_u += E::ScalarField::one();
            assert!(verify_shuffle(&stmt(&gens, &ck, &a, &pk, &inputs, &outputs), &badp).is_err());
            let mut badp = proof.clone();
            badp.perm.z_e[0] += E::ScalarField::one();
            assert!(verify_shuffle(&stmt(&gens, &ck, &a, &pk, &inputs, &outputs), &badp).is_err());
            let (a2, _) = commit_perm_random(&gens, &ck, &perm, &mut rng).unwrap();
            assert!(
                verify_shuffle(&stmt(&gens, &ck, &a2, &pk, &inputs, &outputs), &proof).is_err()
            );

            // The reverse shuffle reuses the forward commitment with roles swapped.
            let (new, rho_r) =
                shuffle(&gens, &pk, &perm, Direction::Reverse, &outputs, &mut rng).unwrap();
            for i in 0..n {
                assert_eq!(decrypt_with_secret(&new[i], &x), msgs[i]);
            }
            let w = reverse_witness::<E>(&perm, &rho_r).unwrap();
            let proof = prove_shuffle(
                &stmt(&gens, &ck, &a, &pk, &new, &outputs),
                &ShuffleWitness {
                    perm: &perm,
                    s: &s,
                    rho: &w,
                },
                &mut rng,
            )
            .unwrap();
            verify_shuffle(&stmt(&gens, &ck, &a, &pk, &new, &outputs), &proof).unwrap();
            assert!(nontrivial(&new));

            // A cheating mixer that replaces one ciphertext cannot produce a valid proof.
            let mut forged = outputs.clone();
            forged[0] = encrypt_many(&gens, &pk, &[random_message::<E>(&mut rng)], &mut rng).0[0];
            let w = ShuffleWitness {
                perm: &perm,
                s: &s,
                rho: &rho,
            };
            let st = stmt(&gens, &ck, &a, &pk, &inputs, &forged);
            let proof = prove_shuffle(&st, &w, &mut rng).unwrap();
            assert!(verify_shuffle(&st, &proof).is_err());
        }
    }

    crate::curve_tests!(shuffle_proof);
}
