//! MSP over BN254, outside the circuit: the keys, signatures and aggregate the circuit's statement
//! is about, computed the ordinary way.
//!
//! The circuit's field is BN254's scalar field, and the curve whose points it handles is BN254
//! itself (G1 over F_q, G2 over F_q^2, each coordinate of F_q held as three 88-bit limbs). So the
//! scheme proven is the MSP of the native layer with BN254 in place of BLS12-381: keys in G2,
//! signatures in G1, a signature sk·H(m), MSP.BKey / MSP.BSig with 128-bit weights, one 2-pair
//! pairing check. Two things differ, both because the weights must be cheap in the circuit:
//!
//! * the weights come from Poseidon over the signatures' limbs (see [`signature_seed`] and
//!   [`weight`]) instead of BLAKE2b over their encodings;
//! * the signer set is bound by a Poseidon commitment to the keys' limbs ([`key_commitment`]), the
//!   stand-in for Mithril's Merkle root of registered keys: a verifier computes it from the
//!   registered keys, and the proof shows the aggregate key was made from exactly those.
//!
//! Messages are hashed to G1 by `halo2curves`' Shallue–van de Woestijne map (the RFC 9380 map for
//! curves with a = 0 and no isogeny, on a BLAKE2b message expansion), as a random oracle: two
//! field elements, each mapped, the points added.

use halo2_base::halo2_proofs::halo2curves::bn256::{
    multi_miller_loop, Fq, Fr, G1Affine, G2Affine, G2Prepared, Gt, G1, G2,
};
use halo2_base::halo2_proofs::halo2curves::ff::{Field, PrimeField};
use halo2_base::halo2_proofs::halo2curves::group::prime::PrimeCurveAffine;
use halo2_base::halo2_proofs::halo2curves::group::{Curve, Group};
use halo2_base::halo2_proofs::halo2curves::pairing::MillerLoopResult;
use halo2_base::halo2_proofs::halo2curves::CurveExt;
use halo2_base::utils::{decompose_biguint, fe_to_biguint};
use rand_core::{CryptoRng, RngCore};

use super::poseidon;
use super::{LIMB_BITS, NUM_LIMBS};

/// The domain of the message hash.
pub const MESSAGE_DOMAIN: &str = "mithril-msp-bn254-msg";

/// Bits of a weight.
pub const WEIGHT_BITS: usize = 128;

/// A signer's key pair.
#[derive(Clone, Debug)]
pub struct KeyPair {
    /// The signing key.
    pub sk: Fr,
    /// The verification key sk·g2.
    pub vk: G2Affine,
}

impl KeyPair {
    /// A fresh key pair from `rng` (a CSPRNG).
    pub fn generate(rng: &mut (impl RngCore + CryptoRng)) -> KeyPair {
        let sk = loop {
            let s = Fr::random(&mut *rng);
            if !bool::from(s.is_zero()) {
                break s;
            }
        };
        KeyPair {
            sk,
            vk: (G2::generator() * sk).to_affine(),
        }
    }

    /// The signature sk·H(m) on the message point H(m).
    pub fn sign(&self, message_point: &G1Affine) -> G1Affine {
        (message_point * self.sk).to_affine()
    }
}

/// H(m), the message hashed to G1.
pub fn message_point(message: &[u8]) -> G1Affine {
    G1::hash_to_curve(MESSAGE_DOMAIN)(message).to_affine()
}

/// e(σ, g2) = e(H(m), vk), checked as e(σ, −g2)·e(H(m), vk) = 1 with one shared Miller loop.
/// The point at infinity is refused as a signature and as a key.
pub fn verify(message_point: &G1Affine, vk: &G2Affine, sig: &G1Affine) -> bool {
    if bool::from(sig.is_identity()) || bool::from(vk.is_identity()) {
        return false;
    }
    let neg_g2 = G2Prepared::from_affine(-G2Affine::generator());
    let vk = G2Prepared::from_affine(*vk);
    let f = multi_miller_loop(&[(sig, &neg_g2), (message_point, &vk)]);
    f.final_exponentiation() == Gt::identity()
}

/// The circuit's limbs of an F_q element: little-endian, [`NUM_LIMBS`] of [`LIMB_BITS`] bits.
pub fn fq_limbs(x: &Fq) -> Vec<Fr> {
    decompose_biguint::<Fr>(&fe_to_biguint(x), NUM_LIMBS, LIMB_BITS)
}

/// x then y, each as limbs.
pub fn g1_limbs(p: &G1Affine) -> Vec<Fr> {
    let mut v = fq_limbs(&p.x);
    v.extend(fq_limbs(&p.y));
    v
}

/// x.c0, x.c1, y.c0, y.c1, each as limbs.
pub fn g2_limbs(p: &G2Affine) -> Vec<Fr> {
    [p.x.c0, p.x.c1, p.y.c0, p.y.c1]
        .iter()
        .flat_map(fq_limbs)
        .collect()
}

/// e_σ: Poseidon over the limbs of every signature, in order.
pub fn signature_seed(signatures: &[G1Affine]) -> Fr {
    let limbs: Vec<Fr> = signatures.iter().flat_map(g1_limbs).collect();
    poseidon::hash(&limbs)
}

/// Poseidon(e_σ, i), whose low 128 bits are the weight e_i.
pub fn weight_digest(seed: &Fr, index: usize) -> Fr {
    poseidon::hash(&[*seed, Fr::from(index as u64)])
}

/// The low [`WEIGHT_BITS`] bits of a field element's canonical integer.
pub fn low_bits(x: &Fr) -> u128 {
    let repr = x.to_repr();
    let mut lo = [0u8; 16];
    lo.copy_from_slice(&repr.as_ref()[..16]);
    u128::from_le_bytes(lo)
}

/// The canonical integer of `x` shifted right by [`WEIGHT_BITS`] bits (below 2^126).
pub fn high_bits(x: &Fr) -> u128 {
    let repr = x.to_repr();
    let mut hi = [0u8; 16];
    hi.copy_from_slice(&repr.as_ref()[16..]);
    u128::from_le_bytes(hi)
}

/// The weights e_1..e_n of MSP.BKey / MSP.BSig for these signatures.
pub fn weights(signatures: &[G1Affine]) -> Vec<u128> {
    let seed = signature_seed(signatures);
    (0..signatures.len())
        .map(|i| low_bits(&weight_digest(&seed, i)))
        .collect()
}

/// The commitment to the signer set: Poseidon over the limbs of every key, in order.
pub fn key_commitment(keys: &[G2Affine]) -> Fr {
    let limbs: Vec<Fr> = keys.iter().flat_map(g2_limbs).collect();
    poseidon::hash(&limbs)
}

/// MSP.BKey: Σ e_i·vk_i.
pub fn aggregate_keys(keys: &[G2Affine], weights: &[u128]) -> G2Affine {
    keys.iter()
        .zip(weights)
        .fold(G2::identity(), |acc, (k, &e)| acc + k * Fr::from_u128(e))
        .to_affine()
}

/// MSP.BSig: Σ e_i·σ_i.
pub fn aggregate_signatures(signatures: &[G1Affine], weights: &[u128]) -> G1Affine {
    signatures
        .iter()
        .zip(weights)
        .fold(G1::identity(), |acc, (s, &e)| acc + s * Fr::from_u128(e))
        .to_affine()
}

/// A signed message: n signers' keys and their signatures on one message.
#[derive(Clone, Debug)]
pub struct Signing {
    /// The message.
    pub message: Vec<u8>,
    /// H(message).
    pub message_point: G1Affine,
    /// The signers' key pairs.
    pub signers: Vec<KeyPair>,
    /// Their signatures, in the same order.
    pub signatures: Vec<G1Affine>,
}

impl Signing {
    /// n fresh signers, each signing `message`.
    pub fn new(n: usize, message: &[u8], rng: &mut (impl RngCore + CryptoRng)) -> Signing {
        let message_point = message_point(message);
        let signers: Vec<KeyPair> = (0..n).map(|_| KeyPair::generate(rng)).collect();
        let signatures = signers.iter().map(|k| k.sign(&message_point)).collect();
        Signing {
            message: message.to_vec(),
            message_point,
            signers,
            signatures,
        }
    }

    /// The verification keys, in order.
    pub fn keys(&self) -> Vec<G2Affine> {
        self.signers.iter().map(|k| k.vk).collect()
    }
}
