//! Threshold ElGamal over G1 with m-of-m additive key shares.
//!
//! `Enc(M; ρ) = (g1^ρ, M·Y^ρ)`, `Reenc(c; ρ) = c ⊙ Enc(1; ρ)`, `Exp(c, b) = (c0^b, c1^b)`,
//! decryption share `D_k = c0^{x_k}`, combination `M = c1 / ∏_k D_k`.
//!
//! The batched proof that a mixer's shares are correct uses Bellare-Garay-Rabin small-exponent
//! batching with n+1 κ_e-bit δ's: δ_0 weighs the verification key and δ_{i+1} ciphertext i, so
//! every ciphertext is covered (upstream's n deltas left ciphertext 0 unchecked, bug B5). The δ's
//! are Fiat-Shamir challenges over the key, the ciphertexts and the shares (fix S6/F1), not
//! chosen by the prover.
//!
//! Unlike upstream, the public key Y gets a fixed-base table: it is the base of one
//! exponentiation per encryption or re-encryption of every entry.

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::UniformRand;
use ark_serialize::{CanonicalSerialize, Compress, SerializationError};
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;

use crate::error::ensure;
use crate::primitives::group::{
    challenge_short_vec, msm_short, mul_var, mul_var_joint, FixedBaseTable, Generators,
};
use crate::primitives::transcript::Transcript;
use crate::{Error, Result};

/// An ElGamal ciphertext `(c0, c1) = (g1^ρ, M·Y^ρ)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ciphertext<E: Pairing> {
    /// g1^ρ.
    pub c0: E::G1Affine,
    /// M·Y^ρ.
    pub c1: E::G1Affine,
}

// Written out rather than derived: the derive would demand `E: CanonicalSerialize`.
impl<E: Pairing> CanonicalSerialize for Ciphertext<E> {
    fn serialize_with_mode<W: std::io::Write>(
        &self,
        mut writer: W,
        compress: Compress,
    ) -> std::result::Result<(), SerializationError> {
        self.c0.serialize_with_mode(&mut writer, compress)?;
        self.c1.serialize_with_mode(&mut writer, compress)
    }

    fn serialized_size(&self, compress: Compress) -> usize {
        self.c0.serialized_size(compress) + self.c1.serialized_size(compress)
    }
}

impl<E: Pairing> Ciphertext<E> {
    /// Compressed size in bytes (two G1 points).
    pub fn size_bytes(&self) -> usize {
        self.compressed_size()
    }
}

/// Normalises projective pairs into affine ciphertexts with one batched inversion.
pub fn normalize<E: Pairing>(pairs: &[(E::G1, E::G1)]) -> Vec<Ciphertext<E>> {
    let flat: Vec<E::G1> = pairs.iter().flat_map(|(a, b)| [*a, *b]).collect();
    E::G1::normalize_batch(&flat)
        .chunks(2)
        .map(|p| Ciphertext { c0: p[0], c1: p[1] })
        .collect()
}

/// The joint public key Y = g1^x and the verification keys Y_k = g1^{x_k}.
#[derive(Clone, Debug)]
pub struct PublicKey<E: Pairing> {
    /// The public key Y = g1^x.
    pub y: E::G1Affine,
    /// The verification keys Y_k = g1^{x_k}, one per mixer.
    pub vks: Vec<E::G1Affine>,
    y_table: FixedBaseTable<E::G1>,
}

impl<E: Pairing> PublicKey<E> {
    /// A public key from Y and the verification keys; builds Y's fixed-base table.
    pub fn new(y: E::G1Affine, vks: Vec<E::G1Affine>) -> Self {
        PublicKey {
            y,
            vks,
            y_table: FixedBaseTable::full(y.into_group()),
        }
    }

    /// Y^s from the table.
    pub fn y_mul(&self, s: &E::ScalarField) -> E::G1 {
        self.y_table.mul(s)
    }

    /// Number of key holders m.
    pub fn parties(&self) -> usize {
        self.vks.len()
    }

    /// Checks that the verification keys multiply to Y (so the shares are of Y's secret).
    pub fn check(&self) -> Result<()> {
        let sum: E::G1 = self.vks.iter().map(|v| v.into_group()).sum();
        ensure(
            !self.vks.is_empty() && sum.into_affine() == self.y,
            "ElGamal verification keys do not combine to Y",
        )
    }

    /// Absorbs Y and every Y_k into a transcript.
    pub fn append_to(&self, t: &mut Transcript) {
        t.append_ark(b"Y", &self.y);
        t.append_ark_slice(b"Yk", &self.vks);
    }
}

/// Dealer key generation (S1 in docs/fixes.md): x uniform, additive shares x_k with Σ x_k = x.
pub fn keygen<E: Pairing>(
    gens: &Generators<E>,
    m: usize,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<(PublicKey<E>, Vec<E::ScalarField>)> {
    if m == 0 {
        return Err(Error::Input("ElGamal key needs at least one party".into()));
    }
    let shares: Vec<E::ScalarField> = (0..m).map(|_| E::ScalarField::rand(rng)).collect();
    let x: E::ScalarField = shares.iter().sum();
    let vks = E::G1::normalize_batch(&gens.g1.mul_many(&shares));
    Ok((PublicKey::new(gens.g1.mul(&x).into_affine(), vks), shares))
}

/// `Enc(1; ρ) = (g1^ρ, Y^ρ)` in projective form.
fn enc_one<E: Pairing>(
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    rho: &E::ScalarField,
) -> (E::G1, E::G1) {
    (gens.g1.mul(rho), pk.y_mul(rho))
}

/// `Enc(M; ρ) = (g1^ρ, M·Y^ρ)`.
pub fn encrypt<E: Pairing>(
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    msg: &E::G1Affine,
    rho: &E::ScalarField,
) -> Ciphertext<E> {
    let (a, b) = enc_one(gens, pk, rho);
    normalize(&[(a, b + msg)])[0]
}

/// Encrypts every message with fresh randomness; returns the ciphertexts and the randomness.
pub fn encrypt_many<E: Pairing>(
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    msgs: &[E::G1Affine],
    rng: &mut (impl RngCore + CryptoRng),
) -> (Vec<Ciphertext<E>>, Vec<E::ScalarField>) {
    let rho: Vec<E::ScalarField> = msgs.iter().map(|_| E::ScalarField::rand(rng)).collect();
    let pairs: Vec<_> = msgs
        .par_iter()
        .zip(&rho)
        .map(|(m, r)| {
            let (a, b) = enc_one(gens, pk, r);
            (a, b + m)
        })
        .collect();
    (normalize(&pairs), rho)
}

/// `Reenc(c; ρ) = c ⊙ Enc(1; ρ)`.
pub fn reencrypt<E: Pairing>(
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    c: &Ciphertext<E>,
    rho: &E::ScalarField,
) -> Ciphertext<E> {
    let (a, b) = enc_one(gens, pk, rho);
    normalize(&[(a + c.c0, b + c.c1)])[0]
}

/// Re-encrypts each ciphertext with the given randomness (in parallel).
pub fn reencrypt_many<E: Pairing>(
    gens: &Generators<E>,
    pk: &PublicKey<E>,
    cs: &[Ciphertext<E>],
    rho: &[E::ScalarField],
) -> Result<Vec<Ciphertext<E>>> {
    if cs.len() != rho.len() {
        return Err(Error::Input(
            "one re-encryption randomiser per ciphertext".into(),
        ));
    }
    let pairs: Vec<_> = cs
        .par_iter()
        .zip(rho)
        .map(|(c, r)| {
            crate::primitives::counters::tick(1);
            let (a, b) = enc_one(gens, pk, r);
            (a + c.c0, b + c.c1)
        })
        .collect();
    Ok(normalize(&pairs))
}

/// `Exp(c, b) = (c0^b, c1^b)`: encrypts M^b (homomorphic blinding).
pub fn exp<E: Pairing>(c: &Ciphertext<E>, b: &E::ScalarField) -> Ciphertext<E> {
    normalize(&[(mul_var(c.c0.into_group(), b), mul_var(c.c1.into_group(), b))])[0]
}

/// Mixer k's decryption share `D_k = c0^{x_k}`.
pub fn decryption_share<E: Pairing>(c: &Ciphertext<E>, x_k: &E::ScalarField) -> E::G1Affine {
    mul_var(c.c0.into_group(), x_k).into_affine()
}

/// Decryption shares for a list of ciphertexts (in parallel).
pub fn decryption_shares<E: Pairing>(
    cs: &[Ciphertext<E>],
    x_k: &E::ScalarField,
) -> Vec<E::G1Affine> {
    let d: Vec<E::G1> = cs
        .par_iter()
        .map(|c| {
            let d = mul_var(c.c0.into_group(), x_k);
            crate::primitives::counters::tick(1);
            d
        })
        .collect();
    E::G1::normalize_batch(&d)
}

/// `M = c1 / ∏_k D_k` from every party's share.
pub fn combine<E: Pairing>(c: &Ciphertext<E>, shares: &[E::G1Affine]) -> E::G1Affine {
    let d: E::G1 = shares.iter().map(|s| s.into_group()).sum();
    (c.c1.into_group() - d).into_affine()
}

/// Combines share lists `shares[k][i]` of all m parties for every ciphertext i.
pub fn combine_many<E: Pairing>(
    cs: &[Ciphertext<E>],
    shares: &[impl AsRef<[E::G1Affine]> + Sync],
) -> Result<Vec<E::G1Affine>> {
    if shares.iter().any(|s| s.as_ref().len() != cs.len()) {
        return Err(Error::Input(
            "a share list does not match the ciphertexts".into(),
        ));
    }
    let out: Vec<E::G1> = (0..cs.len())
        .into_par_iter()
        .map(|i| {
            let d: E::G1 = shares.iter().map(|s| s.as_ref()[i].into_group()).sum();
            cs[i].c1.into_group() - d
        })
        .collect();
    Ok(E::G1::normalize_batch(&out))
}

/// Batched proof that `D_i = c_i[0]^{x_k}` for all i and `Y_k = g1^{x_k}`:
/// a Chaum-Pedersen proof for `A = B^{x_k}` with `A = Y_k^{δ_0}·∏ D_i^{δ_{i+1}}` and
/// `B = g1^{δ_0}·∏ c_i[0]^{δ_{i+1}}`. Responses `z = ρ − chal·x_k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharesProof<E: Pairing> {
    /// The Fiat–Shamir challenge.
    pub chal: E::ScalarField,
    /// The response.
    pub z: E::ScalarField,
}

impl<E: Pairing> SharesProof<E> {
    /// Serialised size (compressed scalars).
    pub fn size_bytes(&self) -> usize {
        self.chal.compressed_size() + self.z.compressed_size()
    }
}

const SHARES_DOMAIN: &[u8] = b"db-sm-rsm/elgamal-decryption-shares/v1";

/// The transcript over the statement, and (A, B) computed with the FS deltas.
fn shares_statement<E: Pairing>(
    gens: &Generators<E>,
    vk: &E::G1Affine,
    cs: &[Ciphertext<E>],
    shares: &[E::G1Affine],
) -> Result<(Transcript, E::G1Affine, E::G1Affine)> {
    if cs.len() != shares.len() {
        return Err(Error::Input("one decryption share per ciphertext".into()));
    }
    let mut t = Transcript::new(SHARES_DOMAIN);
    gens.append_to(&mut t);
    t.append_ark(b"Yk", vk);
    t.append_ark_slice(b"ciphertexts", cs);
    t.append_ark_slice(b"shares", shares);
    let kappa_e = gens.batch_bits();
    let delta: Vec<E::ScalarField> = challenge_short_vec(&mut t, b"delta", cs.len() + 1, kappa_e);
    // MSM over [vk, D_0..] and [g1, c_0[0]..] with 80-bit exponents.
    let mut a_bases = Vec::with_capacity(cs.len() + 1);
    a_bases.push(*vk);
    a_bases.extend_from_slice(shares);
    let mut b_bases = Vec::with_capacity(cs.len() + 1);
    b_bases.push(gens.g1.base());
    b_bases.extend(cs.iter().map(|c| c.c0));
    let a = msm_short::<E::G1>(&a_bases, &delta, kappa_e as usize)?;
    let b = msm_short::<E::G1>(&b_bases, &delta, kappa_e as usize)?;
    let ab = E::G1::normalize_batch(&[a, b]);
    t.append_ark(b"A", &ab[0]);
    t.append_ark(b"B", &ab[1]);
    Ok((t, ab[0], ab[1]))
}

/// Proves that `shares` are `c_i[0]^{x_k}` for the key share behind `vk = g1^{x_k}`.
pub fn prove_shares<E: Pairing>(
    gens: &Generators<E>,
    vk: &E::G1Affine,
    x_k: &E::ScalarField,
    cs: &[Ciphertext<E>],
    shares: &[E::G1Affine],
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<SharesProof<E>> {
    let (mut t, _a, b) = shares_statement(gens, vk, cs, shares)?;
    let rho = E::ScalarField::rand(rng);
    t.append_ark(b"T", &mul_var(b.into_group(), &rho).into_affine());
    let chal: E::ScalarField = t.challenge_scalar(b"chal");
    Ok(SharesProof {
        chal,
        z: rho - chal * x_k,
    })
}

/// Verifies a [`SharesProof`]: `T' = A^{chal}·B^{z}` must hash back to chal.
pub fn verify_shares<E: Pairing>(
    gens: &Generators<E>,
    vk: &E::G1Affine,
    cs: &[Ciphertext<E>],
    shares: &[E::G1Affine],
    proof: &SharesProof<E>,
) -> Result<()> {
    let (mut t, a, b) = shares_statement(gens, vk, cs, shares)?;
    let t_val = mul_var_joint(&[(a.into_group(), proof.chal), (b.into_group(), proof.z)]);
    t.append_ark(b"T", &t_val.into_affine());
    let chal: E::ScalarField = t.challenge_scalar(b"chal");
    ensure(
        chal == proof.chal,
        "ElGamal decryption shares: challenge mismatch",
    )
}

/// A uniformly random G1 message (tests, and upstream's random messages).
pub fn random_message<E: Pairing>(rng: &mut (impl RngCore + CryptoRng)) -> E::G1Affine {
    E::G1::rand(rng).into_affine()
}

/// Decrypts with the whole secret x (tests and dealer checks).
pub fn decrypt_with_secret<E: Pairing>(c: &Ciphertext<E>, x: &E::ScalarField) -> E::G1Affine {
    (c.c1.into_group() - mul_var(c.c0.into_group(), x)).into_affine()
}

crate::wire_struct!(impl[E: Pairing] Ciphertext<E> { ark c0, ark c1 });
crate::wire_struct!(impl[E: Pairing] SharesProof<E> { ark chal, ark z });

impl<E: Pairing> crate::primitives::wire::Wire for PublicKey<E> {
    fn put(&self, out: &mut Vec<u8>) {
        crate::primitives::wire::ark_put(&self.y, out);
        crate::primitives::wire::ark_put(&self.vks, out);
    }
    fn get(inp: &mut &[u8]) -> crate::Result<Self> {
        let y = crate::primitives::wire::ark_get(inp)?;
        let vks = crate::primitives::wire::ark_get(inp)?;
        // The receiver builds Y's fixed-base table itself.
        Ok(PublicKey::new(y, vks))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::One;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// True if the ciphertext is (1, 1), i.e. the trivial encryption of the identity.
    fn is_trivial<E: Pairing>(c: &Ciphertext<E>) -> bool {
        c.c0.is_zero() && c.c1.is_zero()
    }

    fn elgamal<E: Pairing>() {
        let mut rng = ChaCha20Rng::seed_from_u64(30);
        let gens = Generators::<E>::new(&mut rng);
        let m = 3;
        let (pk, xs) = keygen(&gens, m, &mut rng).unwrap();
        pk.check().unwrap();
        let x: E::ScalarField = xs.iter().sum();
        let n = 6;
        let msgs: Vec<E::G1Affine> = (0..n).map(|_| random_message::<E>(&mut rng)).collect();
        let (cs, rho) = encrypt_many(&gens, &pk, &msgs, &mut rng);
        assert_eq!(cs[0], encrypt(&gens, &pk, &msgs[0], &rho[0]));
        // Round trip through re-encryption, shares and combination.
        let rho2: Vec<E::ScalarField> = (0..n).map(|_| E::ScalarField::rand(&mut rng)).collect();
        let cs2 = reencrypt_many(&gens, &pk, &cs, &rho2).unwrap();
        assert_eq!(cs2[1], reencrypt(&gens, &pk, &cs[1], &rho2[1]));
        assert_ne!(cs2[1], cs[1]);
        let shares: Vec<Vec<E::G1Affine>> =
            xs.iter().map(|xk| decryption_shares(&cs2, xk)).collect();
        assert_eq!(shares[0][2], decryption_share(&cs2[2], &xs[0]));
        let out = combine_many(&cs2, &shares).unwrap();
        assert_eq!(out, msgs);
        let one: Vec<E::G1Affine> = shares.iter().map(|s| s[3]).collect();
        assert_eq!(combine(&cs2[3], &one), msgs[3]);
        assert_eq!(decrypt_with_secret(&cs2[4], &x), msgs[4]);
        // Exp raises the plaintext.
        let b = E::ScalarField::rand(&mut rng);
        assert_eq!(
            decrypt_with_secret(&exp(&cs[0], &b), &x),
            (msgs[0] * b).into_affine()
        );
        assert!(!is_trivial(&cs[0]));

        // Batched share proofs: complete, and reject a wrong share at every position,
        // including 0 (B5), a wrong key, a tampered response.
        for k in 0..m {
            let p = prove_shares(&gens, &pk.vks[k], &xs[k], &cs2, &shares[k], &mut rng).unwrap();
            verify_shares(&gens, &pk.vks[k], &cs2, &shares[k], &p).unwrap();
            assert!(p.size_bytes() > 0);
        }
        let p0 = prove_shares(&gens, &pk.vks[0], &xs[0], &cs2, &shares[0], &mut rng).unwrap();
        for i in [0, n - 1] {
            let mut bad = shares[0].clone();
            bad[i] = (bad[i] + gens.g1.base()).into_affine();
            assert!(verify_shares(&gens, &pk.vks[0], &cs2, &bad, &p0).is_err());
            // Even an honest-looking proof made over the bad shares fails.
            let p_bad = prove_shares(&gens, &pk.vks[0], &xs[0], &cs2, &bad, &mut rng).unwrap();
            assert!(verify_shares(&gens, &pk.vks[0], &cs2, &bad, &p_bad).is_err());
        }
        assert!(verify_shares(&gens, &pk.vks[1], &cs2, &shares[0], &p0).is_err());
        let mut bad = p0.clone();
        bad.z += E::ScalarField::one();
        assert!(verify_shares(&gens, &pk.vks[0], &cs2, &shares[0], &bad).is_err());
        let mut cs_bad = cs2.clone();
        cs_bad[0] = cs[0];
        assert!(verify_shares(&gens, &pk.vks[0], &cs_bad, &shares[0], &p0).is_err());
        assert!(verify_shares(&gens, &pk.vks[0], &cs2, &shares[0][1..], &p0).is_err());
        assert!(keygen(&gens, 0, &mut rng).is_err());
        // Verification keys that do not combine to Y: a key share changed behind the key.
        let mut vks = pk.vks.clone();
        vks[1] = (vks[1] + gens.g1.base()).into_affine();
        assert!(PublicKey::<E>::new(pk.y, vks).check().is_err());
        assert!(PublicKey::<E>::new(pk.y, vec![]).check().is_err());
    }

    crate::curve_tests!(elgamal);
}
