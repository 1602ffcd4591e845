//! `preprocessing` (docs/protocol.md §2) and the parties of the protocol.
//!
//! A trusted dealer (upstream's shortcut S1 in docs/fixes.md, kept) makes, from the primes of
//! [`crate::protocol::keys`], the threshold-Paillier key and its shares and each mixer's own
//! Paillier key; then the threshold-ElGamal key shares and the Beaver triples; each mixer then
//! picks its secret permutation, commits to it and proves knowledge of the opening. What the
//! dealer hands out is moved into the party that owns it ([`Mixer`]); what is public goes to
//! [`Public`]. Nothing else carries secrets between steps.

use ark_ec::pairing::Pairing;
use ark_ec::CurveGroup;
use ark_ff::{One, UniformRand};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

use rug::Integer;

use crate::measurement::report::{Party, Totals};
use crate::primitives::elgamal::{self, Ciphertext};
use crate::primitives::fo;
use crate::primitives::group::Generators;
use crate::primitives::paillier;
use crate::primitives::pedersen::CommitmentKey;
use crate::primitives::security::Security;
use crate::primitives::sharing::{self, TripleShare};
use crate::primitives::thpaillier::{self, ThresholdPublicKey, ThresholdSecretShare};
use crate::primitives::wire::encode;
use crate::primitives::wire::Ark;
use crate::proofs::elgamal_shuffle;
use crate::proofs::paillier_shuffle::ShuffleStatement;
use crate::proofs::perm::{
    commit_perm, prove_perm, verify_perm, PermCommitment, PermProof, Permutation,
};
use crate::protocol::config::{Config, Mode};
use crate::protocol::journaled::{journaled_check, Stream};
use crate::protocol::keys::{self, KeyMaterial, MixerPrimes};
use crate::protocol::tamper::{Cheater, Tamper};
use crate::protocol::verdicts::recheck;
use crate::transport::Ctx;
use crate::{Error, Result};

/// Everything every party may read.
pub struct Public<E: Pairing> {
    /// Number of entries.
    pub n: usize,
    /// Number of mix-servers.
    pub m: usize,
    /// The global generators (with their fixed-base tables) and the security setting.
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

    /// [`Public::context`] of every entry 0..n, for one party and role.
    pub fn contexts(&self, party: &str, role: &str) -> Vec<Vec<u8>> {
        (0..self.n).map(|i| self.context(party, i, role)).collect()
    }

    /// The statement of mixer k's ElGamal shuffle proof from `input` to `output`.
    pub(crate) fn elgamal_shuffle<'a>(
        &'a self,
        k: usize,
        input: &'a [Ciphertext<E>],
        output: &'a [Ciphertext<E>],
    ) -> elgamal_shuffle::ShuffleStatement<'a, E> {
        elgamal_shuffle::ShuffleStatement {
            gens: &self.gens,
            ck: &self.ck,
            perm_commitment: &self.permcomms[k],
            pk: &self.eg,
            input,
            output,
        }
    }

    /// The statement of mixer k's Paillier shuffle proof from `input` to `output`.
    pub(crate) fn paillier_shuffle<'a>(
        &'a self,
        k: usize,
        input: &'a [Integer],
        output: &'a [Integer],
    ) -> ShuffleStatement<'a, E> {
        ShuffleStatement {
            gens: &self.gens,
            ck: &self.ck,
            perm_commitment: &self.permcomms[k],
            pk: &self.th,
            fo: &self.ck_fo,
            input,
            output,
        }
    }
}

/// Mixer k and its secrets. Only mixer k's own steps get `&mut Mixer`.
pub struct Mixer<E: Pairing> {
    /// Its index, 0..m.
    pub k: usize,
    pub(crate) rng: ChaCha20Rng,
    /// Share d_k of the threshold-Paillier secret.
    pub(crate) th_share: thpaillier::ThresholdSecretShare,
    /// Its own Paillier key pair (CRT decryption needs the factors).
    pub(crate) sk: paillier::PaillierKey,
    /// Share x_k of the ElGamal secret.
    pub(crate) x: E::ScalarField,
    /// Its secret permutation π_k.
    pub(crate) perm: Permutation,
    /// Randomness s of permcomm_k.
    pub(crate) s: Vec<E::ScalarField>,
    /// Its shares of the Beaver triples for δ1 = bS·bc and δ2 = δ0·bc (DB-RSM).
    pub(crate) triples_d1: Vec<TripleShare<E::ScalarField>>,
    pub(crate) triples_d2: Vec<TripleShare<E::ScalarField>>,
    /// Shares v_{i,k}, r_{i,k} of the senders' messages and commitment randomness (input
    /// order), learnt by decrypting its share ciphertexts in mixing (docs/protocol.md §5).
    pub(crate) v: Vec<E::ScalarField>,
    pub(crate) r: Vec<E::ScalarField>,
    /// DB-SM: its shares b_{i,k} of the signature blinding factors (input order).
    pub(crate) b_sm: Vec<E::ScalarField>,
    /// DB-RSM: its shares of (bS, bc, br, δ0, δ1, δ2) per output.
    pub(crate) w_rsm: crate::proofs::dpk_bbsplus::WitnessShares<E::ScalarField>,
}

impl<E: Pairing> Mixer<E> {
    /// Its tag in the report.
    pub fn party(&self) -> Party {
        Party::Mixer(self.k)
    }

    /// Its name when it applies a tamper.
    pub fn cheater(&self) -> Cheater {
        Cheater::Mixer(self.k)
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

/// The generator of party `party` (`dealer`, `mixer/2`, `verifier`, `senders`): the stream
/// `db-sm-rsm/<party>` of the run's public seed, or of the process's secret seed, or the
/// operating system's without either. Every
/// party draws from its own stream, so a party's values do not depend on the order in which the
/// parties run (one process or many).
pub fn party_rng(cfg: &Config, party: &str) -> ChaCha20Rng {
    let seed = cfg.seed.as_ref().or(cfg.secret_seed.as_ref());
    measure::seed::stream(&format!("db-sm-rsm/{party}"), seed)
}

/// The mix-servers of a run that this process hosts (all of them with one process), by index.
pub struct Mixers<E: Pairing> {
    m: usize,
    local: Vec<Mixer<E>>,
}

impl<E: Pairing> Mixers<E> {
    /// The mixers `local` of a run with `m` mixers.
    pub fn new(m: usize, local: Vec<Mixer<E>>) -> Self {
        Mixers { m, local }
    }

    /// Mix-servers in the run.
    pub fn m(&self) -> usize {
        self.m
    }

    /// Mixer k, if hosted here.
    pub fn get(&self, k: usize) -> Option<&Mixer<E>> {
        self.local.iter().find(|mx| mx.k == k)
    }

    /// Mixer k, if hosted here.
    pub fn get_mut(&mut self, k: usize) -> Option<&mut Mixer<E>> {
        self.local.iter_mut().find(|mx| mx.k == k)
    }

    /// The mixers hosted here, in order.
    pub fn hosted_mut(&mut self) -> impl Iterator<Item = &mut Mixer<E>> {
        self.local.iter_mut()
    }
}

/// Every party after preprocessing (those this process hosts).
pub struct Parties<E: Pairing> {
    /// What everyone may read.
    pub public: Public<E>,
    /// The mix-servers hosted here.
    pub mixers: Mixers<E>,
    /// The verifier, if hosted here.
    pub verifier: Option<Verifier>,
}

/// What the dealer hands to one mixer, over a private channel.
#[derive(Clone)]
pub struct MixerKeys<E: Pairing> {
    th_share: ThresholdSecretShare,
    paillier: paillier::PaillierKey,
    x: E::ScalarField,
    triples_d1: Vec<TripleShare<E::ScalarField>>,
    triples_d2: Vec<TripleShare<E::ScalarField>>,
}

crate::wire_struct!(impl[E: Pairing] MixerKeys<E> {
    wire th_share, wire paillier, ark x, wire triples_d1, wire triples_d2
});

/// The dealer's public keys, as posted: the generators, the threshold-Paillier key, every
/// mixer's Paillier key, the ElGamal key, and the shapes of the fixed-base tables each receiver
/// builds for the keys it uses.
#[derive(Clone)]
struct DealtKeys<E: Pairing> {
    gens: Generators<E>,
    th: ThresholdPublicKey,
    th_table: Option<(u32, u32)>,
    mixer_pks: Vec<paillier::PaillierPublicKey>,
    mixer_tables: Vec<Option<(u32, u32)>>,
    eg: elgamal::PublicKey<E>,
}

crate::wire_struct!(impl[E: Pairing] DealtKeys<E> {
    wire gens, wire th, wire th_table, wire mixer_pks, wire mixer_tables, wire eg
});

/// How the trusted dealer's secrets reach the mixers.
pub enum Dealing<'a> {
    /// Every party in this process: the dealer hands them over in memory.
    InProcess,
    /// The driver: `deliver(k, bytes)` sends mixer k its keys over a private channel.
    Deliver(&'a dyn Fn(usize, &[u8]) -> Result<()>),
    /// A mixer's process: `receive()` returns its keys from the private channel.
    Receive(&'a dyn Fn() -> Result<MixerKeys<ark_bn254::Bn254>>),
    /// A mixer's process on BLS12-381.
    ReceiveBls(&'a dyn Fn() -> Result<MixerKeys<ark_bls12_381::Bls12_381>>),
    /// A process with no mixer (the verifier's).
    Nothing,
}

/// `preprocessing`: the dealer's keys and triples, then each mixer's permutation commitment.
/// The dealer's work runs in the driver; the other processes read its public keys from the
/// board and, for a mixer, its secrets from the dealer's private channel.
pub fn preprocessing<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    keys: Option<&KeyMaterial>,
    dealing: &Dealing<'_>,
) -> Result<Parties<E>> {
    if let Some(keys) = keys {
        if keys.mixers.len() != cfg.m {
            return Err(Error::Input(format!(
                "{} mixer keys for {} mixers",
                keys.mixers.len(),
                cfg.m
            )));
        }
    }
    c.section("preprocessing", Totals::None, |c| {
        let (dealt, mut dealer, secrets) = if c.roles.driver {
            let keys = keys.ok_or_else(|| Error::Input("the dealer has no keys".into()))?;
            let mut dealer = party_rng(cfg, "dealer");
            let (dealt, secrets) = deal::<E>(cfg, c, keys, &mut dealer)?;
            c.post("preprocessing/keys", &dealt)?;
            (dealt, Some(dealer), secrets)
        } else {
            let mut dealt: DealtKeys<E> = c.fetch("preprocessing/keys")?;
            // Each process builds the tables of the keys it computes with, as the dealer did.
            if let Some((w, bits)) = dealt.th_table {
                dealt.th.build_table_bits(w, bits);
            }
            for &k in &c.roles.mixers {
                if let Some((w, bits)) = dealt.mixer_tables[k] {
                    dealt.mixer_pks[k].build_table_bits(w, bits);
                }
            }
            (dealt, None, Vec::new())
        };
        let mut hosted: Vec<Mixer<E>> = Vec::new();
        match dealing {
            Dealing::InProcess => {
                for (k, keys) in secrets.into_iter().enumerate() {
                    hosted.push(Mixer::new(k, party_rng(cfg, &format!("mixer/{k}")), keys));
                }
            }
            Dealing::Deliver(deliver) => {
                for (k, keys) in secrets.iter().enumerate() {
                    deliver(k, &crate::primitives::wire::encode(keys))?;
                }
            }
            Dealing::Receive(_) | Dealing::ReceiveBls(_) => {
                let k = c.roles.mixers[0];
                let keys = receive_keys::<E>(dealing)?;
                hosted.push(Mixer::new(k, party_rng(cfg, &format!("mixer/{k}")), keys));
            }
            Dealing::Nothing => {}
        }
        let mut mixers = Mixers::new(cfg.m, hosted);
        let ((ck, ck_fo, permcomms), run_id) = if c.networked_run() {
            networked_permutation_commitments(cfg, c, &dealt, dealer.as_mut(), &mut mixers)?
        } else {
            let dealer = dealer.as_mut().expect("one process hosts the dealer");
            let (ck, ck_fo, permcomms) =
                permutation_commitments(cfg, c, &dealt.gens, &dealt.th, dealer, &mut mixers)?;
            let mut run_id = [0u8; 32];
            rand::RngCore::fill_bytes(dealer, &mut run_id);
            // What a tls run posts here (the status beside the identifier).
            c.account("preprocessing/run id", encode(&(true, run_id)).len());
            ((ck, ck_fo, permcomms), run_id)
        };
        let public = Public {
            n: cfg.n,
            m: cfg.m,
            gens: dealt.gens,
            th: dealt.th,
            mixer_pks: dealt.mixer_pks,
            eg: dealt.eg,
            ck,
            ck_fo,
            permcomms,
            run_id,
        };
        let verifier = c.roles.verifier.then(|| Verifier {
            rng: party_rng(cfg, "verifier"),
        });
        Ok(Parties {
            public,
            mixers,
            verifier,
        })
    })
}

/// A mixer's keys from the dealer's private channel, on the run's curve.
fn receive_keys<E: Pairing>(dealing: &Dealing<'_>) -> Result<MixerKeys<E>> {
    let any: Box<dyn std::any::Any> = match dealing {
        Dealing::Receive(f) => Box::new(f()?),
        Dealing::ReceiveBls(f) => Box::new(f()?),
        _ => return Err(Error::Input("no private channel from the dealer".into())),
    };
    any.downcast::<MixerKeys<E>>()
        .map(|b| *b)
        .map_err(|_| Error::Input("the dealer's keys are for another curve".into()))
}

/// The dealer's work: generators, the threshold-Paillier key, each mixer's Paillier key, the
/// ElGamal key shares and the Beaver triples (the report's timers of preprocessing up to the
/// permutation commitments).
fn deal<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    keys: &KeyMaterial,
    dealer: &mut ChaCha20Rng,
) -> Result<(DealtKeys<E>, Vec<MixerKeys<E>>)> {
    // Upstream made the global generators and their tables at import time, untimed.
    let security = cfg.security.params();
    let gens = Generators::<E>::with_security(dealer, security);
    let (th, th_shares) = pai_th_keygen(cfg, c, dealer, keys, security)?;
    let mixer_keys: Vec<paillier::PaillierKey> = keys
        .mixers
        .iter()
        .map(|primes| pai_keygen(cfg, c, dealer, primes, security))
        .collect::<Result<_>>()?;
    let (eg, eg_shares) = elgamal_keys(cfg, &gens, dealer)?;
    let (t1, t2) = gen_beaver_triples::<E>(cfg, c, dealer);
    let dealt = DealtKeys {
        th_table: th.table_shape(),
        mixer_tables: mixer_keys.iter().map(|k| k.pk.table_shape()).collect(),
        mixer_pks: mixer_keys.iter().map(|k| k.pk.clone()).collect(),
        gens,
        th,
        eg,
    };
    let secrets = th_shares
        .into_iter()
        .zip(mixer_keys)
        .zip(eg_shares)
        .zip(t1.into_iter().zip(t2))
        .map(
            |(((th_share, paillier), x), (triples_d1, triples_d2))| MixerKeys {
                th_share,
                paillier,
                x,
                triples_d1,
                triples_d2,
            },
        )
        .collect();
    Ok((dealt, secrets))
}

impl<E: Pairing> Mixer<E> {
    fn new(k: usize, rng: ChaCha20Rng, keys: MixerKeys<E>) -> Self {
        Mixer {
            k,
            rng,
            th_share: keys.th_share,
            sk: keys.paillier,
            x: keys.x,
            perm: Permutation::identity(0),
            s: Vec::new(),
            triples_d1: keys.triples_d1,
            triples_d2: keys.triples_d2,
            v: Vec::new(),
            r: Vec::new(),
            b_sm: Vec::new(),
            w_rsm: Default::default(),
        }
    }
}

/// `pai_th_keygen`: the threshold-Paillier key and its shares from the safe primes, with the
/// fixed-base table for H.
fn pai_th_keygen(
    cfg: &Config,
    r: &mut Ctx,
    dealer: &mut ChaCha20Rng,
    keys: &KeyMaterial,
    security: Security,
) -> Result<(ThresholdPublicKey, Vec<ThresholdSecretShare>)> {
    r.section("pai_th_keygen", Totals::None, |r| {
        let t = &keys.threshold;
        let mut key = thpaillier::ThresholdKey::from_safe_primes(dealer, &t.p, &t.q, cfg.m)
            .expect("the key material was validated when it was obtained");
        key.pk.security = security;
        r.line("precomputing...");
        if cfg.mode == Mode::Paper {
            // Upstream's 13-bit table over r's length only.
            key.pk.build_table(13);
        } else {
            // Fast mode: the table also covers the proofs' long exponents (PoK masks and
            // responses, the shuffle's H^{t2+r}), so they cost table look-ups, not long
            // powmods. About 6 + 9m powers of H per entry: the senders' 2 encryptions and 2
            // PoK masks, m re-encryptions in mixing, and in DB-RSM the verifier's 2 encryptions
            // and per mixer 2 re-checked, 2 re-encrypted and 2 fresh ciphertexts with 2 masks.
            let bits = key.pk.long_exponent_bits();
            let window = table_window(bits, (6 + 9 * cfg.m) * cfg.n, TH_TABLE_WINDOW);
            key.pk.build_table_bits(window, bits);
        }
        Ok((key.pk, key.shares))
    })
}

/// `pai_keygen`: one mixer's own Paillier key from its primes.
fn pai_keygen(
    cfg: &Config,
    r: &mut Ctx,
    dealer: &mut ChaCha20Rng,
    primes: &MixerPrimes,
    security: Security,
) -> Result<paillier::PaillierKey> {
    r.section("pai_keygen", Totals::None, |r| {
        let p = primes;
        let mut key = paillier::PaillierKey::from_primes(
            dealer,
            &p.big_p,
            &p.p,
            &p.big_q,
            &p.q,
            keys::MIXER_PARAMS.l_bits,
        )
        .expect("the key material was validated when it was obtained");
        key.pk.security = security;
        r.line("precomputing...");
        // Paper mode: upstream's per-mixer encryptions never used their table (B4 kept), so the
        // senders pay a 448-bit powmod per share encryption.
        if cfg.mode != Mode::Paper {
            // Per sender: 2 share encryptions and 2 PoK masks.
            let bits = key.pk.long_exponent_bits();
            key.pk
                .build_table_bits(table_window(bits, 4 * cfg.n, MIXER_TABLE_WINDOW), bits);
        }
        Ok(key)
    })
}

/// The threshold-ElGamal key Y, the verification keys Y_k and the shares x_k (untimed, as
/// upstream).
fn elgamal_keys<E: Pairing>(
    cfg: &Config,
    gens: &Generators<E>,
    dealer: &mut ChaCha20Rng,
) -> Result<(elgamal::PublicKey<E>, Vec<E::ScalarField>)> {
    let (mut eg, mut shares) = elgamal::keygen(gens, cfg.m, dealer)?;
    if cfg.cheats(Tamper::ElgamalKey, Cheater::Dealer) {
        // Mixer 0's share moves off the key, and its verification key with it.
        shares[0] += E::ScalarField::one();
        let mut vks = eg.vks.clone();
        vks[0] = gens.g1.mul(&shares[0]).into_affine();
        eg = elgamal::PublicKey::new(eg.y, vks);
    }
    Ok((eg, shares))
}

/// Each mixer's shares of the Beaver triples for δ1 and δ2, as two lists indexed by mixer.
type TripleShares<F> = Vec<Vec<TripleShare<F>>>;

/// `gen_beaver_triples`: the dealer's two triples per entry, shared among the mixers.
fn gen_beaver_triples<E: Pairing>(
    cfg: &Config,
    r: &mut Ctx,
    dealer: &mut ChaCha20Rng,
) -> (TripleShares<E::ScalarField>, TripleShares<E::ScalarField>) {
    r.time_plain("gen_beaver_triples", || {
        (
            sharing::gen_beaver_triples::<E::ScalarField>(cfg.n, cfg.m, dealer),
            sharing::gen_beaver_triples::<E::ScalarField>(cfg.n, cfg.m, dealer),
        )
    })
}

/// The commitment keys (Pedersen vector key, FO key) and every mixer's permutation commitment.
type CommitmentKeys<E> = (CommitmentKey<E>, fo::FoKey, Vec<PermCommitment<E>>);

/// `creating proof of knowledge of permutation commitment opening`: the dealer's commitment
/// keys, then each mixer picks π_k, commits to it and proves knowledge of the opening; each
/// proof is checked once, as upstream (S5), and all checks run (no short-circuit, B3). Records
/// `status_permcomm`.
fn permutation_commitments<E: Pairing>(
    cfg: &Config,
    r: &mut Ctx,
    gens: &Generators<E>,
    th: &ThresholdPublicKey,
    dealer: &mut ChaCha20Rng,
    mixers: &mut Mixers<E>,
) -> Result<CommitmentKeys<E>> {
    let label = "creating proof of knowledge of permutation commitment opening";
    // One step of the dealer and every mixer (as upstream, one timer): journaled with each
    // mixer's secrets and the position of its stream, which a resumed run puts back.
    // Its check is `status_permcomm`'s: a resumed run does the step again and compares.
    let (keys, ok, (secrets, proof_lens)) =
        journaled_check(r, None, label, dealer, |r, dealer| {
            let (keys, ok, secrets, proofs) = r.time_plain(label, || -> Result<_> {
                let ck = CommitmentKey::new(gens, cfg.n, dealer);
                let ck_fo = fo::FoKey::new(dealer, &th.n, cfg.n, gens.security.slack_bits);
                let mut permcomms = Vec::with_capacity(mixers.m());
                let mut proofs = Vec::with_capacity(mixers.m());
                let mut secrets = Vec::with_capacity(mixers.m());
                for mx in mixers.hosted_mut() {
                    let (a, proof) = commit_permutation(cfg, gens, &ck, mx)?;
                    permcomms.push(a);
                    proofs.push(proof);
                    secrets.push((mx.perm.clone(), Ark(mx.s.clone()), mx.rng.get_word_pos()));
                }
                let oks: Vec<bool> = permcomms
                    .par_iter()
                    .zip(&proofs)
                    .map(|(a, p)| verify_perm(gens, &ck, a, p).is_ok())
                    .collect();
                let ok = oks.into_iter().all(|b| b);
                Ok(((ck, ck_fo, permcomms), ok, secrets, proofs))
            })?;
            // What a tls run posts of each mixer's proof, measured outside the timer.
            let proof_lens: Vec<u64> = proofs.iter().map(|p| encode(p).len() as u64).collect();
            Ok((keys, ok, (secrets, proof_lens)))
        })?;
    for (mx, (perm, s, pos)) in mixers.hosted_mut().zip(secrets) {
        mx.perm = perm;
        mx.s = s.0;
        mx.rng.set_word_pos(pos);
    }
    // What a tls run posts of this step: the dealer's keys, each mixer's commitment and proof.
    let keys_len = encode(&keys.0).len() + encode(&keys.1).len();
    r.account("preprocessing/commitment keys", keys_len);
    for (k, (a, p)) in keys.2.iter().zip(&proof_lens).enumerate() {
        let len = encode(a).len() + *p as usize;
        r.account(&format!("preprocessing/permcomm/mixer {k}"), len);
    }
    r.status("status_permcomm", ok);
    Ok(keys)
}

/// A mixer's permutation π_k, its commitment randomness, its commitment and the proof of
/// knowledge of the opening (the `permcomm` tamper changes one response).
fn commit_permutation<E: Pairing>(
    cfg: &Config,
    gens: &Generators<E>,
    ck: &CommitmentKey<E>,
    mx: &mut Mixer<E>,
) -> Result<(PermCommitment<E>, PermProof<E>)> {
    mx.perm = Permutation::random(cfg.n, &mut mx.rng);
    mx.s = (0..cfg.n)
        .map(|_| E::ScalarField::rand(&mut mx.rng))
        .collect();
    let a = commit_perm(gens, ck, &mx.perm, &mx.s)?;
    let mut proof = prove_perm(gens, ck, &a, &mx.perm, &mx.s, &mut mx.rng)?;
    if cfg.cheats(Tamper::PermComm, mx.cheater()) {
        proof.z_t += E::ScalarField::one();
    }
    Ok((a, proof))
}

/// A run's identifier ([`Public::run_id`]).
type RunId = [u8; 32];

/// [`permutation_commitments`] over the board: the dealer (the driver) draws and posts the
/// commitment keys, each mixer posts its commitment and proof, the dealer checks every proof
/// once (its timer is the step's) and posts the status and the run's identifier.
fn networked_permutation_commitments<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    dealt: &DealtKeys<E>,
    dealer: Option<&mut ChaCha20Rng>,
    mixers: &mut Mixers<E>,
) -> Result<(CommitmentKeys<E>, RunId)> {
    let label = "creating proof of knowledge of permutation commitment opening";
    let gens = &dealt.gens;
    let driver = dealer.is_some();
    if driver {
        c.open_section(label, Totals::None);
    }
    let result = (|| -> Result<_> {
        let mut dealer = dealer;
        let keys: (CommitmentKey<E>, fo::FoKey) = match dealer.as_deref_mut() {
            Some(d) => {
                let ck = CommitmentKey::new(gens, cfg.n, d);
                let ck_fo = fo::FoKey::new(d, &dealt.th.n, cfg.n, gens.security.slack_bits);
                let keys = (ck, ck_fo);
                c.publish("preprocessing/commitment keys", &keys)?;
                keys
            }
            None => c.fetch("preprocessing/commitment keys")?,
        };
        let mut own: Vec<Option<(PermCommitment<E>, PermProof<E>)>> = vec![None; cfg.m];
        for (k, slot) in own.iter_mut().enumerate() {
            if let Some(mx) = mixers.get_mut(k) {
                let made = commit_permutation(cfg, gens, &keys.0, mx)?;
                c.publish(&format!("preprocessing/permcomm/mixer {k}"), &made)?;
                *slot = Some(made);
            }
        }
        let mut made = Vec::with_capacity(cfg.m);
        for (k, slot) in own.into_iter().enumerate() {
            made.push(match slot {
                Some(mine) => mine,
                None => c.fetch(&format!("preprocessing/permcomm/mixer {k}"))?,
            });
        }
        let (ok, run_id) = match dealer {
            Some(d) => {
                let ok = made
                    .par_iter()
                    .all(|(a, p)| verify_perm(gens, &keys.0, a, p).is_ok());
                let mut run_id = [0u8; 32];
                rand::RngCore::fill_bytes(d, &mut run_id);
                c.publish("preprocessing/run id", &(ok, run_id))?;
                (ok, run_id)
            }
            None => {
                let (ok, run_id): (bool, RunId) = c.fetch("preprocessing/run id")?;
                // An auditor checks every proof itself rather than take the dealer's word.
                let ok = recheck(c, label, ok, || {
                    made.par_iter()
                        .all(|(a, p)| verify_perm(gens, &keys.0, a, p).is_ok())
                });
                (ok, run_id)
            }
        };
        let permcomms = made.into_iter().map(|(a, _)| a).collect();
        Ok((keys.0, keys.1, permcomms, run_id, ok))
    })();
    if driver {
        c.close_section();
    }
    let (ck, ck_fo, permcomms, run_id, ok) = result?;
    c.status("status_permcomm", ok);
    Ok(((ck, ck_fo, permcomms), run_id))
}

impl<E: Pairing> Stream for Mixer<E> {
    fn stream(&mut self) -> Option<&mut ChaCha20Rng> {
        Some(&mut self.rng)
    }
}

impl Stream for Verifier {
    fn stream(&mut self) -> Option<&mut ChaCha20Rng> {
        Some(&mut self.rng)
    }
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
