//! A second, independent implementation of the pairing scheme's set-up, commit, prove and verify
//! on arkworks (`ark-bls12-381` 0.4): a differential check of the blst code. Its value hashing is
//! RFC 9380 hash_to_field written here over the `sha2` crate with arkworks' reduction mod r (the
//! blst side uses blst's expander and reduction), its MSM arkworks' `VariableBaseMSM`, its pairing
//! check `Bls12_381::multi_pairing`; nothing is shared with the blst implementation but the
//! definitions. (arkworks 0.4's own `DefaultFieldHasher` is not RFC 9380's hash_to_field: its
//! expand_message_xmd starts with Z_pad of 48 zero bytes, the field element's length, where the
//! RFC prescribes SHA-256's 64-byte block, so its scalars differ from the RFC's and are not used.) The tests require byte-identical parameters, commitments and proofs, and each
//! verifier to accept the other's proofs and reject tampered ones.
//!
//! It is also a point of comparison in the ablation (commit through arkworks' MSM).

use ark_bls12_381::{Bls12_381, Fr, G1Affine, G1Projective, G2Affine, G2Projective};
use ark_ec::pairing::{Pairing, PairingOutput};
use ark_ec::{AffineRepr, CurveGroup, Group, VariableBaseMSM};
use ark_ff::field_hashers::{DefaultFieldHasher, HashToField};
use ark_ff::{Field, PrimeField};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use sha2::{Digest, Sha256};

use crate::curve::hash_to_scalar::VALUE_DST;
use crate::pairing::{ProverParams, VerifierParams};
use crate::Error;

/// The scheme's parameters as arkworks values.
#[derive(Clone, Debug)]
pub struct ArkParams {
    /// n.
    pub n: usize,
    /// g1^(a^k) for k in [1, 2n]; entry n (k = n+1) is None, as in the scheme.
    pub g1: Vec<Option<G1Affine>>,
    /// g2^(a^k) for k in [1, n].
    pub g2: Vec<G2Affine>,
    /// T = e(g1, g2)^(a^(n+1)).
    pub t: PairingOutput<Bls12_381>,
}

impl ArkParams {
    fn g1_power(&self, k: usize) -> G1Affine {
        self.g1[k - 1].expect("g1^(a^(n+1)) is never used")
    }
}

/// Set-up from a known trapdoor, computed with arkworks alone (only the tests call it).
pub fn setup_with_trapdoor(n: usize, a: Fr) -> ArkParams {
    let g1 = G1Projective::generator();
    let g2 = G2Projective::generator();
    let mut powers = Vec::with_capacity(2 * n);
    let mut p = a;
    for _ in 0..2 * n {
        powers.push(p);
        p *= a;
    }
    let g1s: Vec<Option<G1Affine>> = powers
        .iter()
        .enumerate()
        .map(|(k, e)| (k != n).then(|| (g1 * e).into_affine()))
        .collect();
    let g2s: Vec<G2Affine> = powers[..n].iter().map(|e| (g2 * e).into_affine()).collect();
    let t = Bls12_381::pairing(g1, g2) * powers[n];
    ArkParams {
        n,
        g1: g1s,
        g2: g2s,
        t,
    }
}

/// The blst parameters read into arkworks through their compressed encodings (which also checks
/// that both libraries encode points the same way).
pub fn params_from_blst(pp: &ProverParams, vp: &VerifierParams) -> Result<ArkParams, Error> {
    let n = pp.n();
    let mut g1 = Vec::with_capacity(2 * n);
    for k in 1..=2 * n {
        g1.push(if k == n + 1 {
            None
        } else {
            Some(
                G1Affine::deserialize_compressed(&pp.g1_power(k).to_bytes()[..])
                    .map_err(|_| Error::Malformed("arkworks rejects a blst G1 encoding"))?,
            )
        });
    }
    let g2 = (1..=n)
        .map(|k| {
            G2Affine::deserialize_compressed(&vp.g2_power(k).to_bytes()[..])
                .map_err(|_| Error::Malformed("arkworks rejects a blst G2 encoding"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    // T = e(g1^a, g2^(a^n)) from the parameters, as the blst set-up computes it.
    let t = Bls12_381::pairing(g1[0].expect("k = 1 exists"), g2[n - 1]);
    Ok(ArkParams { n, g1, g2, t })
}

/// expand_message_xmd with SHA-256 (RFC 9380, section 5.3.1), for `len` ≤ 255·32 and a DST of
/// at most 255 bytes.
pub fn expand_message_xmd(msg: &[u8], dst: &[u8], len: usize) -> Vec<u8> {
    let ell = len.div_ceil(32);
    assert!(ell <= 255 && dst.len() <= 255 && len <= u16::MAX as usize);
    let dst_prime: Vec<u8> = dst.iter().copied().chain([dst.len() as u8]).collect();
    let b0 = Sha256::new()
        .chain_update([0u8; 64])
        .chain_update(msg)
        .chain_update((len as u16).to_be_bytes())
        .chain_update([0u8])
        .chain_update(&dst_prime)
        .finalize();
    let mut out = Vec::with_capacity(ell * 32);
    let mut prev = Sha256::new()
        .chain_update(b0)
        .chain_update([1u8])
        .chain_update(&dst_prime)
        .finalize();
    out.extend_from_slice(&prev);
    for i in 2..=ell {
        let mixed: Vec<u8> = b0.iter().zip(prev.iter()).map(|(a, b)| a ^ b).collect();
        prev = Sha256::new()
            .chain_update(mixed)
            .chain_update([i as u8])
            .chain_update(&dst_prime)
            .finalize();
        out.extend_from_slice(&prev);
    }
    out.truncate(len);
    out
}

/// m = hash_to_field(value) under the scheme's tag: 48 expanded bytes reduced mod r.
pub fn hash_value(value: &[u8]) -> Fr {
    Fr::from_be_bytes_mod_order(&expand_message_xmd(value, VALUE_DST, 48))
}

/// arkworks 0.4's own hash_to_field (kept only to show, in a test, that it differs from RFC 9380).
pub fn arkworks_default_hash_to_field(value: &[u8]) -> Fr {
    let hasher = <DefaultFieldHasher<Sha256, 128> as HashToField<Fr>>::new(VALUE_DST);
    hasher.hash_to_field(value, 1)[0]
}

/// The 48-byte compressed encoding of an arkworks G1 point.
pub fn g1_bytes(p: &G1Affine) -> [u8; 48] {
    let mut out = [0u8; 48];
    p.serialize_compressed(&mut out[..])
        .expect("48 bytes hold a compressed G1 point");
    out
}

/// C = Σ m_i·g1^(a^i) by arkworks' MSM.
pub fn commit<V: AsRef<[u8]>>(params: &ArkParams, values: &[V]) -> G1Affine {
    assert_eq!(values.len(), params.n, "one value per position");
    let bases: Vec<G1Affine> = (1..=params.n).map(|k| params.g1_power(k)).collect();
    let scalars: Vec<Fr> = values.iter().map(|v| hash_value(v.as_ref())).collect();
    G1Projective::msm(&bases, &scalars)
        .expect("as many bases as scalars")
        .into_affine()
}

/// π_i = Σ_(j≠i) m_j·g1^(a^(n+1−i+j)) for the 0-based position `index`.
pub fn prove<V: AsRef<[u8]>>(params: &ArkParams, values: &[V], index: usize) -> G1Affine {
    let n = params.n;
    let i = index + 1;
    let (bases, scalars): (Vec<G1Affine>, Vec<Fr>) = values
        .iter()
        .enumerate()
        .filter(|(j0, _)| j0 + 1 != i)
        .map(|(j0, v)| (params.g1_power(n + 1 - i + j0 + 1), hash_value(v.as_ref())))
        .unzip();
    G1Projective::msm(&bases, &scalars)
        .expect("as many bases as scalars")
        .into_affine()
}

/// e(C, g2^(a^(n+1−i)))·e(π, −g2) = T^(m_i), for the 0-based position `index`.
pub fn verify(
    params: &ArkParams,
    c: &G1Affine,
    index: usize,
    value: &[u8],
    proof: &G1Affine,
) -> bool {
    let n = params.n;
    if index >= n {
        return false;
    }
    let i = index + 1;
    let lhs = Bls12_381::multi_pairing([*c, *proof], [params.g2[n - i], -G2Affine::generator()]);
    lhs == params.t * hash_value(value)
}

/// Whether T is in the order-r subgroup and not 1 (a sanity check of a parameter set).
pub fn t_is_valid(params: &ArkParams) -> bool {
    let t = params.t.0;
    let one = <ark_bls12_381::Fq12 as Field>::ONE;
    t != one && t.pow(<Fr as ark_ff::PrimeField>::MODULUS) == one
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::hash_to_scalar;
    use crate::curve::Scalar;
    use crate::pairing::params::setup_with_trapdoor as blst_setup_with_trapdoor;
    use crate::pairing::{commit as blst_commit, prove as blst_prove, verify as blst_verify};
    use ark_ff::{BigInteger, UniformRand};
    use rand_chacha::rand_core::{RngCore, SeedableRng};

    fn values(n: usize, rng: &mut rand_chacha::ChaCha20Rng) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| {
                let mut v = vec![0u8; 1 + (i % 40)];
                rng.fill_bytes(&mut v);
                v
            })
            .collect()
    }

    #[test]
    fn expander_matches_rfc9380_and_arkworks_default_hasher_does_not() {
        let dst = b"QUUX-V01-CS02-with-expander-SHA256-128";
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        assert_eq!(
            hex(&expand_message_xmd(b"", dst, 0x20)),
            "68a985b87eb6b46952128911f2a4412bbc302a9d759667f87f7a21d803f07235"
        );
        assert_eq!(
            expand_message_xmd(b"abc", dst, 0x80),
            hash_to_scalar::expand_message_xmd(b"abc", dst, 0x80)
        );
        assert_ne!(arkworks_default_hash_to_field(b"abc"), hash_value(b"abc"));
    }

    #[test]
    fn value_hashes_agree() {
        for v in [&b""[..], b"abc", &[0xffu8; 100]] {
            let ours = hash_to_scalar::hash_value(v).to_be_bytes();
            let theirs = hash_value(v).into_bigint().to_bytes_be();
            assert_eq!(ours.to_vec(), theirs);
        }
    }

    #[test]
    fn same_trapdoor_gives_identical_parameters_commitments_and_proofs() {
        let mut rng = rand_chacha::ChaCha20Rng::from_seed([42; 32]);
        let n = 24;
        let a = Fr::rand(&mut rng);
        let a_ours = Scalar::from_be_bytes_mod_r(&a.into_bigint().to_bytes_be());
        let (pp, vp) = blst_setup_with_trapdoor(n, &a_ours).unwrap();
        let ark = setup_with_trapdoor(n, a);
        assert!(t_is_valid(&ark));
        for k in (1..=2 * n).filter(|&k| k != n + 1) {
            assert_eq!(
                pp.g1_power(k).to_bytes(),
                g1_bytes(&ark.g1_power(k)),
                "g1^(a^{k})"
            );
        }
        for k in 1..=n {
            let mut b = [0u8; 96];
            ark.g2[k - 1].serialize_compressed(&mut b[..]).unwrap();
            assert_eq!(vp.g2_power(k).to_bytes(), b, "g2^(a^{k})");
        }
        // The parameters read back from blst are the arkworks ones, T included.
        let from_blst = params_from_blst(&pp, &vp).unwrap();
        assert_eq!(from_blst.t, ark.t);
        for _ in 0..3 {
            let v = values(n, &mut rng);
            let c = blst_commit(&pp, &v).unwrap();
            let c_ark = commit(&ark, &v);
            assert_eq!(c.to_bytes(), g1_bytes(&c_ark), "commitment");
            for i in [0, 7, n - 1] {
                let p = blst_prove(&pp, &v, i).unwrap();
                let p_ark = prove(&ark, &v, i);
                assert_eq!(p.to_bytes(), g1_bytes(&p_ark), "proof {i}");
                assert!(verify(&ark, &c_ark, i, &v[i], &p_ark));
                assert!(blst_verify(&vp, &c, i, &v[i], &p));
                // Each rejects what the other rejects.
                assert!(!verify(&ark, &c_ark, i, b"wrong", &p_ark));
                assert!(!verify(&ark, &c_ark, (i + 1) % n, &v[i], &p_ark));
                let tampered = (p_ark + G1Affine::generator()).into_affine();
                assert!(!verify(&ark, &c_ark, i, &v[i], &tampered));
            }
        }
    }

    #[test]
    fn random_setup_commitments_are_byte_identical_under_both_libraries() {
        let mut rng = rand_chacha::ChaCha20Rng::from_seed([7; 32]);
        let n = 100;
        let (pp, vp) = crate::pairing::setup(n, &mut rng).unwrap();
        let ark = params_from_blst(&pp, &vp).unwrap();
        assert!(t_is_valid(&ark));
        let v = values(n, &mut rng);
        let c = blst_commit(&pp, &v).unwrap();
        assert_eq!(c.to_bytes(), g1_bytes(&commit(&ark, &v)));
        let p = blst_prove(&pp, &v, 55).unwrap();
        let c_ark = G1Affine::deserialize_compressed(&c.to_bytes()[..]).unwrap();
        let p_ark = G1Affine::deserialize_compressed(&p.to_bytes()[..]).unwrap();
        assert!(verify(&ark, &c_ark, 55, &v[55], &p_ark));
        assert!(!verify(&ark, &c_ark, 54, &v[55], &p_ark));
    }
}
