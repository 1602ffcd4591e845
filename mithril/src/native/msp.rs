//! MSP on BLS12-381: keys in G2, signatures in G1 (the "minimal signature" setting, as Mithril).
//!
//! * KeyGen: sk from the BLS key-generation KDF on 32 bytes of a CSPRNG, mvk = sk·g2.
//! * Sign: σ = sk·H(m), H the RFC 9380 hash to G1 under the domain tag of [`Params`].
//! * MSP.AKey / MSP.ASig (plain aggregation): ivk = Σ mvk_i, μ = Σ σ_i.
//! * MSP.BKey / MSP.BSig (randomised aggregation, Bellare–Garay–Rabin small exponents): weights
//!   e_i = BLAKE2b-128(σ_1 ‖ … ‖ σ_n ‖ i), i as 8 big-endian bytes and each σ_j compressed (48
//!   bytes), read as a little-endian 128-bit integer; ivk = Σ e_i·mvk_i, μ = Σ e_i·σ_i, each one
//!   multi-scalar multiplication on 128-bit scalars. The weights depend on every signature, so
//!   they cannot be computed before the signatures are fixed: an invalid σ_i survives the check
//!   below only if its error happens to cancel under weights the signer could not choose.
//! * MSP.Ver(m, ivk, μ): e(μ, g2) = e(H(m), ivk), checked as e(μ, −g2)·e(H(m), ivk) = 1 with
//!   one Miller loop over the two pairs and one final exponentiation; the identity is refused as
//!   a key and as a signature.
//!
//! The weights are Mithril's (`mithril-stm`'s `BlsSignature::aggregate`): the tests check that
//! both give the same aggregate key and signature on the same keys and signatures. Keys are
//! assumed registered (checked for subgroup membership and possession), as MSP.AKey and
//! MSP.BKey take "previously checked" keys.

use blake2::digest::consts::U16;
use blake2::{Blake2b, Digest};
use rand_core::{CryptoRng, RngCore};

use super::curve::{hash_to_g1, msm_g1, msm_g2, pairing_product_is_one};
use super::curve::{G1Affine, G2Affine, Scalar, G1, G2};

/// The domain separation tag of the IETF BLS proof-of-possession suite with signatures in G1.
pub const DST_POP: &[u8] = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_";

/// Bits of a weight e_i.
pub const WEIGHT_BITS: usize = 128;

/// A weight e_i: 16 bytes, a little-endian 128-bit integer.
pub type Weight = [u8; 16];

/// Scheme parameters: the message hash's domain separation tag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Domain separation tag of H.
    pub dst: Vec<u8>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            dst: DST_POP.to_vec(),
        }
    }
}

impl Params {
    /// The empty tag `mithril-stm` signs with (RFC 9380 asks for a non-empty one): only to
    /// compare signatures byte for byte with it.
    pub fn mithril_stm_compatible() -> Params {
        Params { dst: Vec::new() }
    }

    /// H(m).
    pub fn message_point(&self, msg: &[u8]) -> G1Affine {
        hash_to_g1(msg, &self.dst).to_affine()
    }
}

/// A signing key: a scalar in 1..r.
#[derive(Clone)]
pub struct SigningKey(Scalar);

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

/// A verification key mvk (or an aggregate key ivk) in G2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerificationKey(pub G2Affine);

/// A signature (or an aggregate μ) in G1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature(pub G1Affine);

impl SigningKey {
    /// A fresh key: the BLS KeyGen KDF (HKDF-SHA-256) on 32 bytes from `rng`, a CSPRNG.
    pub fn generate(rng: &mut (impl RngCore + CryptoRng)) -> SigningKey {
        let mut ikm = [0u8; 32];
        rng.fill_bytes(&mut ikm);
        let sk = SigningKey(Scalar::key_gen(&ikm));
        ikm.fill(0);
        sk
    }

    /// From the 32-byte big-endian encoding (the BLS standard's and Mithril's); refuses zero and
    /// values not below the group order.
    pub fn from_be_bytes(bytes: &[u8]) -> Option<SigningKey> {
        Scalar::from_be_bytes_checked(bytes).map(SigningKey)
    }

    /// The 32-byte big-endian encoding.
    pub fn to_be_bytes(&self) -> [u8; 32] {
        self.0.to_be_bytes()
    }

    /// mvk = sk·g2.
    pub fn verification_key(&self) -> VerificationKey {
        VerificationKey(G2::generator().mul(&self.0).to_affine())
    }

    /// σ = sk·H(m).
    pub fn sign(&self, params: &Params, msg: &[u8]) -> Signature {
        let h = hash_to_g1(msg, &params.dst);
        Signature(h.mul(&self.0).to_affine())
    }
}

/// A single signature's check: MSP.Ver on one key.
pub fn verify(params: &Params, msg: &[u8], mvk: &VerificationKey, sig: &Signature) -> bool {
    ver(params, msg, mvk, sig)
}

/// MSP.AKey: ivk = Σ mvk_i.
pub fn akey(keys: &[VerificationKey]) -> VerificationKey {
    let sum = keys
        .iter()
        .fold(G2::default(), |acc, k| acc.add(&k.0.to_projective()));
    VerificationKey(sum.to_affine())
}

/// MSP.ASig: μ = Σ σ_i.
pub fn asig(signatures: &[Signature]) -> Signature {
    let sum = signatures
        .iter()
        .fold(G1::default(), |acc, s| acc.add(&s.0.to_projective()));
    Signature(sum.to_affine())
}

/// The weights e_1..e_n of a signature list: BLAKE2b-128 of the signatures' encodings and the
/// index. The signatures are absorbed once; each index continues a copy of that state.
pub fn weights(signatures: &[Signature]) -> Vec<Weight> {
    let mut prefix = Blake2b::<U16>::new();
    for s in signatures {
        prefix.update(s.0.to_bytes());
    }
    (0..signatures.len() as u64)
        .map(|i| {
            let mut h = prefix.clone();
            h.update(i.to_be_bytes());
            h.finalize().into()
        })
        .collect()
}

/// MSP.BKey: ivk = Σ e_i·mvk_i (one G2 multi-scalar multiplication on 128-bit scalars).
pub fn bkey(keys: &[VerificationKey], weights: &[Weight]) -> VerificationKey {
    assert_eq!(keys.len(), weights.len(), "one weight per key");
    let points: Vec<G2Affine> = keys.iter().map(|k| k.0).collect();
    VerificationKey(msm_g2(&points, weights, WEIGHT_BITS).to_affine())
}

/// MSP.BSig: the weights of the signatures and μ = Σ e_i·σ_i (one G1 multi-scalar
/// multiplication on 128-bit scalars).
pub fn bsig(signatures: &[Signature]) -> (Signature, Vec<Weight>) {
    let e = weights(signatures);
    let points: Vec<G1Affine> = signatures.iter().map(|s| s.0).collect();
    (Signature(msm_g1(&points, &e, WEIGHT_BITS).to_affine()), e)
}

/// MSP.Ver(m, ivk, μ): e(μ, −g2)·e(H(m), ivk) = 1; the identity is refused as key and signature.
pub fn ver(params: &Params, msg: &[u8], ivk: &VerificationKey, mu: &Signature) -> bool {
    if ivk.0.is_identity() || mu.0.is_identity() {
        return false;
    }
    let h = params.message_point(msg);
    let neg_g2 = G2::generator().neg().to_affine();
    pairing_product_is_one(&[(mu.0, neg_g2), (h, ivk.0)])
}

/// One aggregate to check in a batch: a message, an aggregate key and an aggregate signature.
#[derive(Clone, Debug)]
pub struct Aggregate {
    /// The message.
    pub message: Vec<u8>,
    /// ivk.
    pub key: VerificationKey,
    /// μ.
    pub signature: Signature,
}

impl Aggregate {
    /// `n` fresh signers sign `message`, aggregated with BSig and BKey: a valid aggregate.
    pub fn signed(
        params: &Params,
        n: usize,
        message: Vec<u8>,
        rng: &mut (impl RngCore + CryptoRng),
    ) -> Aggregate {
        let s = Signing::new(params, n, &message, rng);
        let (signature, e) = bsig(&s.signatures);
        Aggregate {
            key: bkey(&s.keys, &e),
            signature,
            message,
        }
    }
}

/// Checks several aggregates at once: with fresh 128-bit r_j from `rng` (a CSPRNG),
/// e(Σ r_j·μ_j, −g2)·Π_j e(r_j·H(m_j), ivk_j) = 1, one Miller loop over k + 1 pairs and one
/// final exponentiation. Accepts every valid batch; a batch with an invalid aggregate passes
/// with probability at most 2^-128 over the r_j (the random weights stop errors in different
/// aggregates from cancelling, as MSP.BSig's do within one).
pub fn batch_verify(
    params: &Params,
    aggregates: &[Aggregate],
    rng: &mut (impl RngCore + CryptoRng),
) -> bool {
    if aggregates
        .iter()
        .any(|a| a.key.0.is_identity() || a.signature.0.is_identity())
    {
        return false;
    }
    let r: Vec<Weight> = aggregates
        .iter()
        .map(|_| {
            let mut w = [0u8; 16];
            rng.fill_bytes(&mut w);
            w
        })
        .collect();
    let mus: Vec<G1Affine> = aggregates.iter().map(|a| a.signature.0).collect();
    let mu = msm_g1(&mus, &r, WEIGHT_BITS).neg().to_affine();
    let mut pairs = Vec::with_capacity(aggregates.len() + 1);
    pairs.push((mu, G2Affine::generator()));
    for (a, rj) in aggregates.iter().zip(&r) {
        let h = hash_to_g1(&a.message, &params.dst).mul_bits(rj, WEIGHT_BITS);
        pairs.push((h.to_affine(), a.key.0));
    }
    pairing_product_is_one(&pairs)
}

/// n signers' keys and signatures on one message.
#[derive(Clone, Debug)]
pub struct Signing {
    /// The signing keys.
    pub signers: Vec<SigningKey>,
    /// Their verification keys.
    pub keys: Vec<VerificationKey>,
    /// Their signatures on the message.
    pub signatures: Vec<Signature>,
}

impl Signing {
    /// n fresh signers, each signing `msg`.
    pub fn new(
        params: &Params,
        n: usize,
        msg: &[u8],
        rng: &mut (impl RngCore + CryptoRng),
    ) -> Signing {
        let signers: Vec<SigningKey> = (0..n).map(|_| SigningKey::generate(rng)).collect();
        let keys = signers.iter().map(SigningKey::verification_key).collect();
        let signatures = signers.iter().map(|s| s.sign(params, msg)).collect();
        Signing {
            signers,
            keys,
            signatures,
        }
    }
}
