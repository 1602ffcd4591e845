//! The malicious variant's checks: hash commitments, coin tossing, and the SPDZ MAC check.
//!
//! Every shared value `x` also carries MAC shares `gamma_j` with `sum_j gamma_j = alpha x`, for a
//! MAC key `alpha = sum_j alpha_j` no party knows. Linear maps keep this invariant (they are
//! applied to the MAC shares too, and to group elements: `alpha X` for a point `X`). When `x` is
//! opened, a party that sent `x_j + e` instead of `x_j` would have to shift its MAC share by
//! `alpha e`, which it cannot compute: the check below catches it except with probability
//! `1 / q` (`q` the group order, about 2^254).
//!
//! The check, after all openings it covers:
//!
//! 1. Challenges `chi_k`, one per opened value, come from a coin every party committed to
//!    before the values were opened (`commit(seed_j)` in the first round, seeds revealed after
//!    the openings), so no party can pick its errors knowing the challenges.
//! 2. Each party computes, for its view of the opened values `x_k`,
//!    `sigma_j = sum_k chi_k gamma_{k,j} - alpha_j sum_k chi_k x_k`: in the field for the field
//!    openings, in G1 for the points. Honest shares make `sum_j sigma_j = 0`.
//! 3. Each party commits to its `sigma_j` and a hash of its view of every opened value and
//!    broadcast, then reveals. Every commitment must open, every view hash must match (so no
//!    party told two parties different things), and the sigmas must sum to zero.
//!
//! Commitments are SHA-256 of a fresh 32-byte nonce and the value: binding by collision
//! resistance, hiding in the random-oracle model.

use ark_ec::pairing::Pairing;
use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ff::Zero;
use ark_serialize::CanonicalSerialize;
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::codec::{Reader, Writer};
use crate::net::Mesh;
use crate::share::{expand, Seed, Stream};
use crate::Error;

/// A SHA-256 digest: a commitment, or the hash of a party's view.
pub type Digest32 = [u8; 32];

/// A commitment and what opens it.
pub struct Committed {
    /// What is broadcast first: [`commitment`] of the data under `nonce`.
    pub commitment: Digest32,
    /// What is revealed later, with the data, to open it.
    pub nonce: Seed,
}

/// Commits to `data` under a fresh nonce drawn from `rng` (see the module docs).
pub fn commit<R: RngCore + CryptoRng>(data: &[u8], rng: &mut R) -> Committed {
    let mut nonce = [0u8; 32];
    rng.fill_bytes(&mut nonce);
    Committed {
        commitment: commitment(data, &nonce),
        nonce,
    }
}

/// SHA-256 of a domain tag, `nonce` and `data`: what a revealed `(data, nonce)` must hash to
/// for its commitment to open.
pub fn commitment(data: &[u8], nonce: &Seed) -> Digest32 {
    let mut h = Sha256::new();
    h.update(b"collab-groth16 commitment");
    h.update(nonce);
    h.update(data);
    h.finalize().into()
}

/// Incremental hash of a party's view of what was opened or broadcast.
pub struct Transcript(Sha256);

impl Default for Transcript {
    fn default() -> Self {
        let mut h = Sha256::new();
        h.update(b"collab-groth16 transcript");
        Transcript(h)
    }
}

impl Transcript {
    /// Adds `value`, in its uncompressed canonical encoding, to the view.
    pub fn absorb<T: CanonicalSerialize + ?Sized>(&mut self, value: &T) {
        let mut bytes = Vec::with_capacity(value.uncompressed_size());
        value
            .serialize_uncompressed(&mut bytes)
            .expect("serialising into a Vec cannot fail");
        self.0.update(&bytes);
    }

    /// The digest of everything absorbed so far (the transcript goes on).
    pub fn digest(&self) -> Digest32 {
        self.0.clone().finalize().into()
    }
}

/// This party's coin for the challenges, committed in the first round.
pub struct Coin {
    /// The party's 32 random bytes; the challenges come from every party's, hashed together.
    pub seed: Seed,
    /// The commitment to `seed` broadcast before any value is opened.
    pub committed: Committed,
}

impl Coin {
    /// A fresh coin from `rng`, and its commitment.
    pub fn new<R: RngCore + CryptoRng>(rng: &mut R) -> Self {
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let committed = commit(&seed, rng);
        Coin { seed, committed }
    }
}

/// The values opened so far, as this party sees them, with its MAC shares of them.
pub struct Opened<E: Pairing> {
    /// The opened field elements: the Beaver-masked coset values (`a - x`, `b - y`) and the
    /// masked `r` and `s` of the triple for `r s`.
    pub field: Vec<E::ScalarField>,
    /// This party's MAC shares of `field`, entry by entry.
    pub field_macs: Vec<E::ScalarField>,
    /// The opened G1 elements (`A`, and `B` in G1).
    pub g1: Vec<E::G1>,
    /// This party's MAC shares of `g1`: `alpha X` shared, for each opened point `X`.
    pub g1_macs: Vec<E::G1>,
}

/// Reveals the coins (one round), derives the challenges, and runs the commit-and-reveal MAC
/// check (two rounds). `coin_commitments[k]` is what party `k` committed to in the first round
/// (ours included); `view` is the digest of everything opened or broadcast so far.
#[allow(clippy::too_many_arguments)]
pub fn check<E: Pairing, R: RngCore + CryptoRng>(
    mesh: &mut Mesh,
    key_share: E::ScalarField,
    opened: &Opened<E>,
    coin: &Coin,
    coin_commitments: &[Digest32],
    view: Digest32,
    rng: &mut R,
) -> Result<(), Error> {
    let id = mesh.id();
    let m = mesh.parties();

    // Reveal the coins and derive the challenges from all of them.
    let mut w = Writer::new();
    w.put(&coin.seed).put(&coin.committed.nonce);
    let revealed = mesh.broadcast(&w.finish())?;
    let mut seeds = vec![[0u8; 32]; m];
    for (k, body) in revealed.iter().enumerate() {
        let (seed, nonce) = if k == id {
            (coin.seed, coin.committed.nonce)
        } else {
            let mut r = Reader::new(body, format!("party {k}'s coin"));
            let seed: Seed = r.get()?;
            let nonce: Seed = r.get()?;
            r.finish()?;
            (seed, nonce)
        };
        if commitment(&seed, &nonce) != coin_commitments[k] {
            return Err(Error::Abort(format!(
                "party {k}'s coin does not open its commitment"
            )));
        }
        seeds[k] = seed;
    }
    let mut h = Sha256::new();
    h.update(b"collab-groth16 challenges");
    for s in &seeds {
        h.update(s);
    }
    let challenge_seed: Seed = h.finalize().into();
    let n = opened.field.len() + opened.g1.len();
    let chi: Vec<E::ScalarField> = expand(&challenge_seed, Stream::Challenge, n);
    let (chi_field, chi_g1) = chi.split_at(opened.field.len());

    // sigma_j = sum chi_k gamma_k - alpha_j sum chi_k x_k, in each group.
    let dot = |a: &[E::ScalarField], b: &[E::ScalarField]| -> E::ScalarField {
        a.par_iter().zip(b.par_iter()).map(|(x, y)| *x * y).sum()
    };
    let sigma_field =
        dot(chi_field, &opened.field_macs) - key_share * dot(chi_field, &opened.field);
    let sigma_g1 = E::G1::msm_unchecked(&E::G1::normalize_batch(&opened.g1_macs), chi_g1)
        - E::G1::msm_unchecked(&E::G1::normalize_batch(&opened.g1), chi_g1) * key_share;

    // Commit to (sigmas, view), then reveal.
    let mut w = Writer::new();
    w.put(&sigma_field).put(&sigma_g1).put(&view);
    let mine = w.finish();
    let committed = commit(&mine, rng);
    let commitments = mesh.broadcast(&committed.commitment)?;
    let mut w = Writer::new();
    w.put(&mine).put(&committed.nonce);
    let reveals = mesh.broadcast(&w.finish())?;

    let (mut total_field, mut total_g1) = (sigma_field, sigma_g1);
    for k in (0..m).filter(|&k| k != id) {
        let mut r = Reader::new(&reveals[k], format!("party {k}'s MAC check"));
        let data: Vec<u8> = r.get()?;
        let nonce: Seed = r.get()?;
        r.finish()?;
        if commitments[k].len() != 32 || commitment(&data, &nonce)[..] != commitments[k][..] {
            return Err(Error::Abort(format!(
                "party {k}'s MAC check values do not open its commitment"
            )));
        }
        let mut r = Reader::new(&data, format!("party {k}'s MAC check"));
        total_field += r.get::<E::ScalarField>()?;
        total_g1 += r.get::<E::G1>()?;
        let their_view: Digest32 = r.get()?;
        r.finish()?;
        if their_view != view {
            return Err(Error::Abort(format!(
                "party {k} saw different opened values than party {id}"
            )));
        }
    }
    if !total_field.is_zero() || !total_g1.is_zero() {
        return Err(Error::Abort(
            "MAC check failed: an opened value is not what the shares and MACs say".into(),
        ));
    }
    Ok(())
}
