//! Preprocessing (spec §2.1) and the parties of the protocol.
//!
//! A trusted dealer (upstream's shortcut S1, kept) makes, from the primes of [`crate::keys`],
//! the threshold-Paillier key and its shares and each mixer's own Paillier key; then the
//! threshold-ElGamal key shares and the Beaver triples; each mixer then picks its secret permutation, commits to it and proves knowledge of
//! the opening. What the dealer hands out is moved into the party that owns it ([`Mixer`]); what
//! is public goes to [`Public`]. Nothing else carries secrets between steps.

use ark_ec::pairing::Pairing;
use ark_ec::CurveGroup;
use ark_ff::{One, UniformRand};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

use crate::elgamal;
use crate::fo;
use crate::group::Generators;
use crate::keys::KeyMaterial;
use crate::paillier;
use crate::pedersen::CommitmentKey;
use crate::perm::{commit_perm, prove_perm, verify_perm, PermCommitment, Permutation};
use crate::report::{Party, Report, Totals};
use crate::run::Config;
use crate::sharing::{gen_beaver_triples, TripleShare};
use crate::tamper::Tamper;
use crate::thpaillier;
use crate::Result;

/// Everything every party may read.
pub struct Public<E: Pairing> {
    pub n: usize,
    pub m: usize,
    pub gens: Generators<E>,
    /// Threshold Paillier public key (with the fixed-base table for H).
    pub th: thpaillier::ThresholdPublicKey,
    /// Mixer k's own Paillier public key (senders encrypt shares to it).
    pub mixer_pks: Vec<paillier::PaillierPublicKey>,
    /// Threshold ElGamal public key Y and verification keys Y_k.
    pub eg: elgamal::PublicKey<E>,
    /// Vector commitment key for permutations (h1; G_0..G_{n'-1}).
    pub ck: CommitmentKey<E>,
    /// Fujisaki-Okamoto commitment key mod the threshold N (Paillier shuffle proofs).
    pub ck_fo: fo::FoKey,
    /// permcomm_k for every mixer.
    pub permcomms: Vec<PermCommitment<E>>,
    /// This run's identifier, fresh at setup: every proof of an input names it, so that a
    /// proof from another run cannot be replayed into this one.
    pub run_id: [u8; 32],
}

impl<E: Pairing> Public<E> {
    /// What a proof is for, absorbed by its Fiat-Shamir challenge: this run, the party that
    /// makes it (`"sender"`, `"mixer 2"`), the entry and the role of the proven value (`"cv"`).
    /// A proof copied to another sender, entry, role or run no longer verifies.
    pub fn context(&self, party: &str, entry: usize, role: &str) -> Vec<u8> {
        let mut c = Vec::with_capacity(64 + party.len() + role.len());
        c.extend_from_slice(b"db-sm-rsm/context/v1");
        c.extend_from_slice(&self.run_id);
        c.extend_from_slice(&(entry as u64).to_le_bytes());
        c.extend_from_slice(&(party.len() as u64).to_le_bytes());
        c.extend_from_slice(party.as_bytes());
        c.extend_from_slice(role.as_bytes());
        c
    }
}

/// Mixer k and its secrets. Only mixer k's own steps get `&mut Mixer`.
pub struct Mixer<E: Pairing> {
    pub k: usize,
    pub(crate) rng: ChaCha20Rng,
    /// Share d_k of the threshold-Paillier secret.
    pub(crate) th_share: thpaillier::ThresholdSecretShare,
    /// Its own Paillier key pair (CRT decryption needs the factors).
    pub(crate) sk: paillier::PaillierKey,
    /// Share x_k of the ElGamal secret.
    pub(crate) x: E::ScalarField,
    pub(crate) perm: Permutation,
    /// Randomness s of permcomm_k.
    pub(crate) s: Vec<E::ScalarField>,
    pub(crate) triples_d1: Vec<TripleShare<E::ScalarField>>,
    pub(crate) triples_d2: Vec<TripleShare<E::ScalarField>>,
    /// Shares v_{i,k}, r_{i,k} of the senders' messages and commitment randomness (input
    /// order), learnt by decrypting its share ciphertexts in mixing (§2.4.3).
    pub(crate) v: Vec<E::ScalarField>,
    pub(crate) r: Vec<E::ScalarField>,
    /// DB-SM: its shares b_{i,k} of the signature blinding factors (input order).
    pub(crate) b_sm: Vec<E::ScalarField>,
    /// DB-RSM: its shares of (bS, bc, br, δ0, δ1, δ2) per output.
    pub(crate) w_rsm: crate::dpkbbsplus::WitnessShares<E::ScalarField>,
}

impl<E: Pairing> Mixer<E> {
    pub fn party(&self) -> Party {
        Party::Mixer(self.k)
    }
}

/// The verifier (querier): its own randomness; its signing keys are made when it needs them.
pub struct Verifier {
    pub(crate) rng: ChaCha20Rng,
}

/// Largest window of the fast mode's fixed-base table for the threshold key's H, which covers
/// the proofs' long exponents (about 2400 bits): 241 rows of 1023 entries of 512 bytes, about
/// 126 MB, and about 241 multiplications per power (upstream: 13-bit windows over the 1025-bit
/// r only, 332 MB, 79 multiplications).
pub const TH_TABLE_WINDOW: u32 = 10;
/// Largest window of each mixer's table. Fast mode covers the PoK's long exponents (masks of
/// ~2260 bits, batch sums): about 300 rows of 255 entries of 512 bytes, about 39 MB per mixer,
/// so a sender's PoK of each share costs table look-ups instead of a long powmod mod N² (input
/// preparation per sender: 8 such powmods at m = 4). Unlike upstream (B4, table built but never
/// used), senders' encryptions to the mixers use it.
pub const MIXER_TABLE_WINDOW: u32 = 8;

/// The window, at most `max` bits, of a fixed-base table for `bits`-bit exponents that makes
/// building it and computing `uses` powers cheapest: ⌈bits/w⌉ rows of 2^w − 1 entries cost one
/// modular multiplication each to build, and each power one per row. Large runs get `max`
/// (n = 1000, m = 4 already does); a run with a handful of entries gets a small table instead of
/// spending seconds on one it barely uses.
pub fn table_window(bits: u32, uses: usize, max: u32) -> u32 {
    (1..=max)
        .min_by_key(|w| u64::from(bits.div_ceil(*w)) * ((1u64 << w) - 1 + uses as u64))
        .expect("max >= 1")
}

fn child_rng(master: &mut ChaCha20Rng) -> ChaCha20Rng {
    ChaCha20Rng::from_rng(master).expect("ChaCha20 never fails")
}

/// Runs preprocessing inside the `preprocessing` section of `r`.
pub fn preprocess<E: Pairing>(
    cfg: &Config,
    r: &mut Report,
    master: &mut ChaCha20Rng,
    keys: &KeyMaterial,
) -> Result<(Public<E>, Vec<Mixer<E>>, Verifier)> {
    if keys.mixers.len() != cfg.m {
        return Err(crate::Error::Input(format!(
            "{} mixer keys for {} mixers",
            keys.mixers.len(),
            cfg.m
        )));
    }
    let (n, m) = (cfg.n, cfg.m);
    let mut dealer = child_rng(master);
    // Upstream made the global generators and their tables at import time, untimed.
    let security = cfg.security.params();
    let gens = Generators::<E>::with_security(&mut dealer, security);

    let (th, th_shares) = r.section("pai_th_keygen", Totals::None, |r| {
        let t = &keys.threshold;
        let mut key = thpaillier::ThresholdKey::from_safe_primes(&mut dealer, &t.p, &t.q, m)
            .expect("the key material was validated when it was obtained");
        key.pk.security = security;
        r.line("precomputing...");
        // Paper mode: upstream's 13-bit table over r's length only (spec §1.4, §8).
        let paper = cfg.mode == crate::run::Mode::Paper;
        if paper {
            key.pk.build_table(13);
        } else {
            // Fast mode: the table also covers the proofs' long exponents (PoK masks and
            // responses, the shuffle's H^{t2+r}), so they cost table look-ups, not long
            // powmods. About 6 + 9m powers of H per entry: the senders' 2 encryptions and 2
            // PoK masks, m re-encryptions in mixing, and in DB-RSM the verifier's 2 encryptions
            // and per mixer 2 re-checked, 2 re-encrypted and 2 fresh ciphertexts with 2 masks.
            let bits = key.pk.long_exponent_bits();
            let window = table_window(bits, (6 + 9 * m) * n, TH_TABLE_WINDOW);
            key.pk.build_table_bits(window, bits);
        }
        (key.pk, key.shares)
    });
    let mut mixer_keys = Vec::with_capacity(m);
    for primes in &keys.mixers {
        mixer_keys.push(r.section("pai_keygen", Totals::None, |r| {
            let k = primes;
            let mut key = paillier::PaillierKey::from_primes(
                &mut dealer,
                &k.big_p,
                &k.p,
                &k.big_q,
                &k.q,
                crate::keys::MIXER_PARAMS.l_bits,
            )
            .expect("the key material was validated when it was obtained");
            key.pk.security = security;
            r.line("precomputing...");
            // Paper mode: upstream's per-mixer encryptions never used their table (B4 kept),
            // so the senders pay a 448-bit powmod per share encryption.
            if cfg.mode != crate::run::Mode::Paper {
                // Per sender: 2 share encryptions and 2 PoK masks.
                let bits = key.pk.long_exponent_bits();
                key.pk
                    .build_table_bits(table_window(bits, 4 * n, MIXER_TABLE_WINDOW), bits);
            }
            (key.pk.clone(), key)
        }));
    }
    let (mut eg, mut eg_shares) = elgamal::keygen(&gens, m, &mut dealer)?;
    if cfg.tampers(Tamper::ElgamalKey) {
        // Mixer 0's share moves off the key, and its verification key with it.
        eg_shares[0] += E::ScalarField::one();
        let mut vks = eg.vks.clone();
        vks[0] = gens.g1.mul(&eg_shares[0]).into_affine();
        eg = elgamal::PublicKey::new(eg.y, vks);
    }
    let (mut t1, mut t2) = r.time_plain("gen_beaver_triples", || {
        (
            gen_beaver_triples::<E::ScalarField>(n, m, &mut dealer),
            gen_beaver_triples::<E::ScalarField>(n, m, &mut dealer),
        )
    });

    let mut mixers: Vec<Mixer<E>> = Vec::with_capacity(m);
    let mut mixer_pks = Vec::with_capacity(m);
    let keys = th_shares.into_iter().zip(mixer_keys).zip(eg_shares);
    for (k, ((th_share, (pk, sk)), x)) in keys.enumerate() {
        mixer_pks.push(pk);
        mixers.push(Mixer {
            k,
            rng: child_rng(master),
            th_share,
            sk,
            x,
            perm: Permutation::identity(0),
            s: Vec::new(),
            triples_d1: std::mem::take(&mut t1[k]),
            triples_d2: std::mem::take(&mut t2[k]),
            v: Vec::new(),
            r: Vec::new(),
            b_sm: Vec::new(),
            w_rsm: Default::default(),
        });
    }

    let label = "creating proof of knowledge of permutation commitment opening";
    let (ck, ck_fo, permcomms, ok) = r.time_plain(label, || -> Result<_> {
        let ck = CommitmentKey::new(&gens, n, &mut dealer);
        let ck_fo = fo::FoKey::new(&mut dealer, &th.n, n, security.slack_bits);
        let mut permcomms = Vec::with_capacity(m);
        let mut proofs = Vec::with_capacity(m);
        for mx in mixers.iter_mut() {
            mx.perm = Permutation::random(n, &mut mx.rng);
            mx.s = (0..n).map(|_| E::ScalarField::rand(&mut mx.rng)).collect();
            let a = commit_perm(&gens, &ck, &mx.perm, &mx.s)?;
            let mut proof = prove_perm(&gens, &ck, &a, &mx.perm, &mx.s, &mut mx.rng)?;
            if mx.k == 0 && cfg.tampers(Tamper::PermComm) {
                proof.z_t += E::ScalarField::one();
            }
            permcomms.push(a);
            proofs.push(proof);
        }
        // Each proof is checked once, as upstream (S5); all checks run (no short-circuit, B3).
        let ok = permcomms
            .par_iter()
            .zip(&proofs)
            .map(|(a, p)| verify_perm(&gens, &ck, a, p).is_ok())
            .collect::<Vec<_>>()
            .into_iter()
            .all(|b| b);
        Ok((ck, ck_fo, permcomms, ok))
    })?;
    r.status("status_permcomm", ok);

    let mut run_id = [0u8; 32];
    rand::RngCore::fill_bytes(&mut dealer, &mut run_id);
    let public = Public {
        n,
        m,
        gens,
        th,
        mixer_pks,
        eg,
        ck,
        ck_fo,
        permcomms,
        run_id,
    };
    let verifier = Verifier {
        rng: child_rng(master),
    };
    Ok((public, mixers, verifier))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_window_grows_with_the_number_of_powers() {
        assert_eq!(table_window(2411, 42_000, TH_TABLE_WINDOW), TH_TABLE_WINDOW);
        assert!(table_window(2411, 72, TH_TABLE_WINDOW) <= 5);
        assert_eq!(
            table_window(2300, 4_000, MIXER_TABLE_WINDOW),
            MIXER_TABLE_WINDOW
        );
        assert!(table_window(100, 0, 8) == 1);
    }
}
