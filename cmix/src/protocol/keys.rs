//! Keys: the nodes' ElGamal shares with their proofs of knowledge, the joint key, the nodes'
//! registration keys, and the shared keys between each client and each node with the
//! per-message keys derived from them.
//!
//! - Node `i` draws `x_i` and publishes `y_i = g^x_i` with a Schnorr proof of knowledge of
//!   `x_i` (Fiat-Shamir, 128-bit challenge, bound to the node's index). The joint key is
//!   `d = prod y_i`. Without the proofs, the last node to publish could choose
//!   `y_n = g^z / prod_{i<n} y_i` and decrypt alone (a rogue key).
//! - Node `i` also has a registration key `b_i` with `B_i = g^b_i`. A client draws `a_j`,
//!   sends `A_j = g^a_j` over its TLS connection to node `i`, and both derive the 32-byte key
//!   `K_ij = HKDF-SHA-256(salt, ikm = (g^(a_j b_i)), info = i || j || A_j || B_i)`.
//! - The per-message key for round `t` and element `e` of the client's slot is
//!   `k_ij = H2G(HKDF-Expand(K_ij, "message key" || t || e, 64 bytes))`, so every round and
//!   every element of a slot has a fresh key from one registration.

use hkdf::Hkdf;
use rand_core::{CryptoRng, RngCore};
use sha2::{Digest, Sha256};

use crate::group::{Group, Op};

/// A node's secret key share and registration key.
pub struct NodeSecret<G: Group> {
    /// The share `x_i` of the joint ElGamal key.
    pub x: G::Scalar,
    /// The registration key `b_i`, for the clients' Diffie-Hellman.
    pub b: G::Scalar,
}

/// What a node publishes: its key share with a proof, and its registration key.
pub struct NodePublic<G: Group> {
    /// The public key share `y_i = g^x_i`.
    pub y: G::Elem,
    /// Schnorr proof of knowledge of `x_i`: the commitment `g^k` ...
    pub proof_commit: G::Elem,
    /// ... and the response `k + c x_i`.
    pub proof_response: G::Scalar,
    /// The public registration key `g^b_i`.
    pub registration: G::Elem,
}

fn challenge<G: Group>(g: &G, node: usize, y: &G::Elem, commit: &G::Elem) -> [u8; 16] {
    let mut h = Sha256::new();
    h.update(b"cmix key share proof");
    h.update(g.name().as_bytes());
    h.update((node as u64).to_le_bytes());
    let mut w = vec![];
    g.write_wire(y, &mut w);
    g.write_wire(commit, &mut w);
    h.update(&w);
    let d = h.finalize();
    let mut c = [0u8; 16];
    c.copy_from_slice(&d[..16]);
    c
}

/// Node `node`'s keys.
pub fn node_keys<G: Group, R: RngCore + CryptoRng>(
    g: &G,
    node: usize,
    rng: &mut R,
) -> (NodeSecret<G>, NodePublic<G>) {
    let x = g.random_scalar(rng);
    let b = g.random_scalar(rng);
    let y = g.exp_g(&x);
    let k = g.random_scalar_full(rng);
    let commit = g.exp_g(&k);
    let c = g.challenge_scalar(&challenge(g, node, &y, &commit));
    let response = g.scalar_mul_add(&c, &x, &k);
    let registration = g.exp_g(&b);
    (
        NodeSecret { x, b },
        NodePublic {
            y,
            proof_commit: commit,
            proof_response: response,
            registration,
        },
    )
}

/// Checks node `node`'s proof of knowledge of its key share.
pub fn verify_key_share<G: Group>(g: &G, node: usize, p: &NodePublic<G>) -> bool {
    let c = g.challenge_scalar(&challenge(g, node, &p.y, &p.proof_commit));
    g.exp_g(&p.proof_response) == g.mul(&p.proof_commit, &g.exp(&p.y, &c))
}

/// The joint public key `prod y_i`.
pub fn joint_key<G: Group>(g: &G, publics: &[&G::Elem]) -> G::Elem {
    publics.iter().fold(g.identity(), |acc, y| g.mul(&acc, y))
}

/// A client's secret and the public value it sends every node.
pub fn client_keys<G: Group, R: RngCore + CryptoRng>(g: &G, rng: &mut R) -> (G::Scalar, G::Elem) {
    let a = g.random_scalar(rng);
    let pub_a = g.exp_g(&a);
    (a, pub_a)
}

/// `K_ij` from the Diffie-Hellman value `dh = g^(a_j b_i)`.
pub fn shared_key<G: Group>(
    g: &G,
    node: usize,
    client: u32,
    dh: &G::Elem,
    client_pub: &G::Elem,
    node_pub: &G::Elem,
) -> [u8; 32] {
    let mut ikm = vec![];
    g.write_wire(dh, &mut ikm);
    let mut info = b"cmix registration".to_vec();
    info.extend_from_slice(&(node as u64).to_le_bytes());
    info.extend_from_slice(&client.to_le_bytes());
    g.write_wire(client_pub, &mut info);
    g.write_wire(node_pub, &mut info);
    let hk = Hkdf::<Sha256>::new(Some(b"cmix shared key v1"), &ikm);
    let mut k = [0u8; 32];
    hk.expand(&info, &mut k)
        .expect("32 bytes is a valid HKDF length");
    k
}

/// The per-message key of round `round`, element `elem` of the slot, from `K_ij`.
pub fn message_key<G: Group>(g: &G, shared: &[u8; 32], round: u64, elem: u32) -> G::Elem {
    g.ops().add(Op::Kdf, 1);
    let hk = Hkdf::<Sha256>::from_prk(shared).expect("32 bytes is a valid PRK");
    let mut info = [0u8; 23];
    info[..11].copy_from_slice(b"message key");
    info[11..19].copy_from_slice(&round.to_le_bytes());
    info[19..].copy_from_slice(&elem.to_le_bytes());
    let mut wide = [0u8; 64];
    hk.expand(&info, &mut wide)
        .expect("64 bytes is a valid HKDF length");
    g.hash_to_elem(&wide)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::ristretto::Ristretto;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn proofs_verify_and_a_tampered_proof_or_index_is_rejected() {
        let g = Ristretto::new();
        let mut rng = ChaCha20Rng::from_seed([1; 32]);
        let (_, mut p) = node_keys(&g, 1, &mut rng);
        assert!(verify_key_share(&g, 1, &p));
        assert!(!verify_key_share(&g, 2, &p), "bound to the node index");
        p.proof_response = g.scalar_mul_add(
            &g.challenge_scalar(&[1; 16]),
            &g.challenge_scalar(&[1; 16]),
            &p.proof_response,
        );
        assert!(!verify_key_share(&g, 1, &p));
    }

    #[test]
    fn client_and_node_derive_the_same_keys() {
        let g = Ristretto::new();
        let mut rng = ChaCha20Rng::from_seed([2; 32]);
        let (secret, public) = node_keys(&g, 0, &mut rng);
        let (a, pub_a) = client_keys(&g, &mut rng);
        let at_client = shared_key(
            &g,
            0,
            7,
            &g.exp(&public.registration, &a),
            &pub_a,
            &public.registration,
        );
        let at_node = shared_key(
            &g,
            0,
            7,
            &g.exp(&pub_a, &secret.b),
            &pub_a,
            &public.registration,
        );
        assert_eq!(at_client, at_node);
        assert_ne!(
            message_key(&g, &at_client, 1, 0),
            message_key(&g, &at_client, 2, 0)
        );
        assert_ne!(
            message_key(&g, &at_client, 1, 0),
            message_key(&g, &at_client, 1, 1)
        );
    }
}
