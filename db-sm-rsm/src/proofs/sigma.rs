//! The small sigma proofs, made non-interactive with a transcript that hashes the
//! whole statement (fix F1: upstream skipped the ciphertexts of `pk_enc_bl`/`pk_enc_blrev_S`).
//!
//! * `pkcomm` (G1): knowledge of (v, r) with `C = g1^v·h1^r`.
//! * `pkcomm` (GT): knowledge of (v, r) with `C = genh2^v·genh3^r`, genh2 = e(g1,f2)⁻¹, genh3 = fT.
//! * `pk_enc_bl`: knowledge of (ρ, b) with `c̃ = (g1^ρ·c0^b, Y^ρ·c1^b)`, i.e. c̃ = Reenc(Exp(c, b); ρ).
//! * `pk_enc_blrev_S`: knowledge of (ρ, b) with `c = (g1^ρ, g1^b·Y^ρ)`, i.e. c = Enc(g1^b; ρ).
//!
//! All use upstream's compact form: the proof is (challenge, responses) with `z = x̂ − chal·x`,
//! and the verifier recomputes the commitments as `statement^chal · bases^z` and re-hashes.

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::UniformRand;
use ark_serialize::CanonicalSerialize;
use rand::{CryptoRng, RngCore};

use crate::error::ensure;
use crate::primitives::elgamal::{Ciphertext, PublicKey};
use crate::primitives::group::{mul_var, mul_var_joint, Generators, Gt};
use crate::primitives::pedersen::{commit_g1, commit_gt};
use crate::primitives::transcript::Transcript;

/// A proof of knowledge of two exponents: challenge and two responses (3 Zq).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TwoExpProof<E: Pairing> {
    /// The challenge.
    pub chal: E::ScalarField,
    /// Response for the first exponent.
    pub z1: E::ScalarField,
    /// Response for the second exponent.
    pub z2: E::ScalarField,
}

impl<E: Pairing> TwoExpProof<E> {
    /// Serialised size (compressed scalars).
    pub fn size_bytes(&self) -> usize {
        3 * self.chal.compressed_size()
    }
}

/// pkcomm in G1: (chal, z_v, z_r).
pub type PkcommProof<E> = TwoExpProof<E>;
/// pkcomm in GT: (chal, z_v, z_r).
pub type PkcommGtProof<E> = TwoExpProof<E>;
/// pk_enc_bl: (chal, z_ρ, z_b).
pub type EncBlProof<E> = TwoExpProof<E>;
/// pk_enc_blrev_S: (chal, z_ρ, z_b).
pub type EncBlRevProof<E> = TwoExpProof<E>;

fn respond<E: Pairing>(
    chal: E::ScalarField,
    hats: (E::ScalarField, E::ScalarField),
    wit: (&E::ScalarField, &E::ScalarField),
) -> TwoExpProof<E> {
    TwoExpProof {
        chal,
        z1: hats.0 - chal * wit.0,
        z2: hats.1 - chal * wit.1,
    }
}

fn pkcomm_transcript<E: Pairing>(
    gens: &Generators<E>,
    ctx: &[u8],
    comm: &E::G1Affine,
) -> Transcript {
    let mut t = Transcript::new(b"db-sm-rsm/pkcomm-g1/v1");
    t.append_bytes(b"context", ctx);
    gens.append_to(&mut t);
    t.append_ark(b"C", comm);
    t
}

/// Proves knowledge of the opening (v, r) of `comm = g1^v·h1^r` (prover: 2 fixed-base exps),
/// for the context `ctx` (the run and the sender: a proof cannot be replayed for another).
pub fn pkcomm_prove<E: Pairing>(
    gens: &Generators<E>,
    ctx: &[u8],
    comm: &E::G1Affine,
    v: &E::ScalarField,
    r: &E::ScalarField,
    rng: &mut (impl RngCore + CryptoRng),
) -> PkcommProof<E> {
    let (a, b) = (E::ScalarField::rand(rng), E::ScalarField::rand(rng));
    let mut t = pkcomm_transcript(gens, ctx, comm);
    t.append_ark(b"s", &commit_g1(gens, &a, &b).into_affine());
    respond(t.challenge_scalar(b"chal"), (a, b), (v, r))
}

/// Verifies a G1 pkcomm proof: `s′ = C^{chal}·g1^{z_v}·h1^{z_r}` must hash back to chal.
pub fn pkcomm_verify<E: Pairing>(
    gens: &Generators<E>,
    ctx: &[u8],
    comm: &E::G1Affine,
    proof: &PkcommProof<E>,
) -> crate::Result<()> {
    let s = mul_var(comm.into_group(), &proof.chal) + commit_g1(gens, &proof.z1, &proof.z2);
    let mut t = pkcomm_transcript(gens, ctx, comm);
    t.append_ark(b"s", &s.into_affine());
    let chal: E::ScalarField = t.challenge_scalar(b"chal");
    ensure(chal == proof.chal, "pkcomm (G1)")
}

fn pkcomm_gt_transcript<E: Pairing>(gens: &Generators<E>, comm: &Gt<E>) -> Transcript {
    let mut t = Transcript::new(b"db-sm-rsm/pkcomm-gt/v1");
    gens.append_to(&mut t);
    t.append_ark(b"C", comm);
    t
}

/// Proves knowledge of (v, r) with `comm = genh2^v·genh3^r` in GT (prover: 2 fixed-base ETf).
pub fn pkcomm_gt_prove<E: Pairing>(
    gens: &Generators<E>,
    comm: &Gt<E>,
    v: &E::ScalarField,
    r: &E::ScalarField,
    rng: &mut (impl RngCore + CryptoRng),
) -> PkcommGtProof<E> {
    let (a, b) = (E::ScalarField::rand(rng), E::ScalarField::rand(rng));
    let mut t = pkcomm_gt_transcript(gens, comm);
    t.append_ark(b"s", &commit_gt(gens, &a, &b));
    respond(t.challenge_scalar(b"chal"), (a, b), (v, r))
}

/// Verifies a GT pkcomm proof (1 ETv + 2 ETf).
pub fn pkcomm_gt_verify<E: Pairing>(
    gens: &Generators<E>,
    comm: &Gt<E>,
    proof: &PkcommGtProof<E>,
) -> crate::Result<()> {
    let s = crate::primitives::counters::vmul(*comm, &proof.chal)
        + commit_gt(gens, &proof.z1, &proof.z2);
    let mut t = pkcomm_gt_transcript(gens, comm);
    t.append_ark(b"s", &s);
    let chal: E::ScalarField = t.challenge_scalar(b"chal");
    ensure(chal == proof.chal, "pkcomm (GT)")
}

/// The transcript of a proof about the ElGamal ciphertext `c` under `pk`: the proof's domain,
/// the generators, Y and c.
fn elgamal_transcript<E: Pairing>(
    domain: &[u8],
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    c: &Ciphertext<E>,
) -> Transcript {
    let mut t = Transcript::new(domain);
    gens.append_to(&mut t);
    t.append_ark(b"Y", &pk.y);
    t.append_ark(b"c", c);
    t
}

fn enc_bl_transcript<E: Pairing>(
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    c: &Ciphertext<E>,
    blinded: &Ciphertext<E>,
) -> Transcript {
    let mut t = elgamal_transcript(b"db-sm-rsm/pk-enc-bl/v1", gens, pk, c);
    t.append_ark(b"c~", blinded);
    t
}

fn enc_blrev_transcript<E: Pairing>(
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    c: &Ciphertext<E>,
) -> Transcript {
    elgamal_transcript(b"db-sm-rsm/pk-enc-blrev-S/v1", gens, pk, c)
}

/// The challenge of a two-exponent proof: `t` with its commitments A1, A2.
fn pair_challenge<E: Pairing>(mut t: Transcript, a1: E::G1, a2: E::G1) -> E::ScalarField {
    let a = E::G1::normalize_batch(&[a1, a2]);
    t.append_ark(b"A1", &a[0]);
    t.append_ark(b"A2", &a[1]);
    t.challenge_scalar(b"chal")
}

/// Proves knowledge of (ρ, b) with `blinded = (g1^ρ·c0^b, Y^ρ·c1^b)` (DB-SM blinding).
pub fn pk_enc_bl_prove<E: Pairing>(
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    c: &Ciphertext<E>,
    blinded: &Ciphertext<E>,
    rho: &E::ScalarField,
    b: &E::ScalarField,
    rng: &mut (impl RngCore + CryptoRng),
) -> EncBlProof<E> {
    let (a_hat, b_hat) = (E::ScalarField::rand(rng), E::ScalarField::rand(rng));
    let a1 = gens.g1.mul(&a_hat) + mul_var(c.c0.into_group(), &b_hat);
    let a2 = pk.y_mul(&a_hat) + mul_var(c.c1.into_group(), &b_hat);
    let chal = pair_challenge::<E>(enc_bl_transcript(gens, pk, c, blinded), a1, a2);
    respond(chal, (a_hat, b_hat), (rho, b))
}

/// Verifies pk_enc_bl: `A1′ = c̃0^{chal}·g1^{z_ρ}·c0^{z_b}`, `A2′ = c̃1^{chal}·Y^{z_ρ}·c1^{z_b}`.
pub fn pk_enc_bl_verify<E: Pairing>(
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    c: &Ciphertext<E>,
    blinded: &Ciphertext<E>,
    proof: &EncBlProof<E>,
) -> crate::Result<()> {
    let a1 = mul_var_joint(&[
        (blinded.c0.into_group(), proof.chal),
        (c.c0.into_group(), proof.z2),
    ]) + gens.g1.mul(&proof.z1);
    let a2 = mul_var_joint(&[
        (blinded.c1.into_group(), proof.chal),
        (c.c1.into_group(), proof.z2),
    ]) + pk.y_mul(&proof.z1);
    let chal = pair_challenge::<E>(enc_bl_transcript(gens, pk, c, blinded), a1, a2);
    ensure(chal == proof.chal, "pk_enc_bl")
}

/// Proves knowledge of (ρ, b) with `c = (g1^ρ, g1^b·Y^ρ)` (DB-RSM blinding of S).
pub fn pk_enc_blrev_prove<E: Pairing>(
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    c: &Ciphertext<E>,
    rho: &E::ScalarField,
    b: &E::ScalarField,
    rng: &mut (impl RngCore + CryptoRng),
) -> EncBlRevProof<E> {
    let (a_hat, b_hat) = (E::ScalarField::rand(rng), E::ScalarField::rand(rng));
    let a1 = gens.g1.mul(&a_hat);
    let a2 = gens.g1.mul(&b_hat) + pk.y_mul(&a_hat);
    let chal = pair_challenge::<E>(enc_blrev_transcript(gens, pk, c), a1, a2);
    respond(chal, (a_hat, b_hat), (rho, b))
}

/// Verifies pk_enc_blrev_S: `A1′ = c0^{chal}·g1^{z_ρ}`, `A2′ = c1^{chal}·g1^{z_b}·Y^{z_ρ}`.
pub fn pk_enc_blrev_verify<E: Pairing>(
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    c: &Ciphertext<E>,
    proof: &EncBlRevProof<E>,
) -> crate::Result<()> {
    let a1 = mul_var(c.c0.into_group(), &proof.chal) + gens.g1.mul(&proof.z1);
    let a2 = mul_var(c.c1.into_group(), &proof.chal) + gens.g1.mul(&proof.z2) + pk.y_mul(&proof.z1);
    let chal = pair_challenge::<E>(enc_blrev_transcript(gens, pk, c), a1, a2);
    ensure(chal == proof.chal, "pk_enc_blrev_S")
}

crate::wire_struct!(impl[E: Pairing] TwoExpProof<E> { ark chal, ark z1, ark z2 });

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::elgamal::{encrypt, exp, keygen, random_message, reencrypt};
    use ark_ff::One;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn sigma<E: Pairing>() {
        let mut rng = ChaCha20Rng::seed_from_u64(80);
        let gens = Generators::<E>::new(&mut rng);
        let one = E::ScalarField::one();
        let (v, r) = (
            E::ScalarField::rand(&mut rng),
            E::ScalarField::rand(&mut rng),
        );

        // pkcomm in G1.
        let c = commit_g1(&gens, &v, &r).into_affine();
        let p = pkcomm_prove(&gens, b"sender 0", &c, &v, &r, &mut rng);
        pkcomm_verify(&gens, b"sender 0", &c, &p).unwrap();
        // Bound to its context: sender 1 cannot replay sender 0's proof.
        assert!(pkcomm_verify(&gens, b"sender 1", &c, &p).is_err());
        assert_eq!(p.size_bytes(), 96);
        let mut bad = p;
        bad.z1 += one;
        assert!(pkcomm_verify(&gens, b"sender 0", &c, &bad).is_err());
        let c_bad = (c + gens.g1.base()).into_affine();
        assert!(pkcomm_verify(&gens, b"sender 0", &c_bad, &p).is_err());
        // A wrong witness gives a rejected proof.
        let p_bad = pkcomm_prove(&gens, b"sender 0", &c, &(v + one), &r, &mut rng);
        assert!(pkcomm_verify(&gens, b"sender 0", &c, &p_bad).is_err());

        // pkcomm in GT.
        let ct = commit_gt(&gens, &v, &r);
        let p = pkcomm_gt_prove(&gens, &ct, &v, &r, &mut rng);
        pkcomm_gt_verify(&gens, &ct, &p).unwrap();
        let mut bad = p;
        bad.z2 += one;
        assert!(pkcomm_gt_verify(&gens, &ct, &bad).is_err());
        assert!(pkcomm_gt_verify(&gens, &(ct + gens.ft.point()), &p).is_err());

        // pk_enc_bl.
        let (pk, _) = keygen(&gens, 2, &mut rng).unwrap();
        let m = random_message::<E>(&mut rng);
        let c0 = encrypt(&gens, &pk, &m, &E::ScalarField::rand(&mut rng));
        let (rho, b) = (
            E::ScalarField::rand(&mut rng),
            E::ScalarField::rand(&mut rng),
        );
        let blinded = reencrypt(&gens, &pk, &exp(&c0, &b), &rho);
        let p = pk_enc_bl_prove(&gens, &pk, &c0, &blinded, &rho, &b, &mut rng);
        pk_enc_bl_verify(&gens, &pk, &c0, &blinded, &p).unwrap();
        let mut bad = p;
        bad.z2 += one;
        assert!(pk_enc_bl_verify(&gens, &pk, &c0, &blinded, &bad).is_err());
        let mut bad_c = blinded;
        bad_c.c1 = (bad_c.c1 + gens.g1.base()).into_affine();
        assert!(pk_enc_bl_verify(&gens, &pk, &c0, &bad_c, &p).is_err());
        let mut bad_c = c0;
        bad_c.c0 = (bad_c.c0 + gens.g1.base()).into_affine();
        assert!(pk_enc_bl_verify(&gens, &pk, &bad_c, &blinded, &p).is_err());

        // pk_enc_blrev_S.
        let c = encrypt(&gens, &pk, &gens.g1.mul(&b).into_affine(), &rho);
        assert_eq!(c.c0, gens.g1.mul(&rho).into_affine());
        let p = pk_enc_blrev_prove(&gens, &pk, &c, &rho, &b, &mut rng);
        pk_enc_blrev_verify(&gens, &pk, &c, &p).unwrap();
        let mut bad = p;
        bad.chal += one;
        assert!(pk_enc_blrev_verify(&gens, &pk, &c, &bad).is_err());
        let mut bad_c = c;
        bad_c.c1 = (bad_c.c1 + gens.g1.base()).into_affine();
        assert!(pk_enc_blrev_verify(&gens, &pk, &bad_c, &p).is_err());
        assert!(!c.c0.is_zero());
    }

    crate::curve_tests!(sigma);
}
