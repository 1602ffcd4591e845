//! What the two set-membership protocols share (docs/protocol.md §6–§7). DB-SM and DB-RSM run
//! the same query: the verifier signs a list and encrypts the signatures, revealing the
//! randomness (`get_verfsigs`); every mixer checks the signatures and the encryptions
//! (`check_verfsigs`); the mixers blind, decrypt and prove in three rounds that each blinded
//! signature unblinds to a signature on the right value (the distributed proof of knowledge);
//! the verifier checks the proof (`..._nizkverifs`). They differ in the signature scheme: BB
//! signatures on the outputs for DB-SM ([`crate::protocol::dbsm::Bb`]), BBS+ quasi-signatures on
//! the commitments γ_i for DB-RSM ([`crate::protocol::dbrsm::BbsPlus`]), which come in as a
//! [`Scheme`] with the report labels of its steps.

use ark_ec::pairing::Pairing;
use rand_chacha::ChaCha20Rng;

use crate::measurement::report::{Party, Totals};
use crate::primitives::wire::{Ark, Wire};
use crate::proofs::CommitmentFactors;
use crate::protocol::config::Config;
use crate::protocol::journaled::journaled;
use crate::protocol::setup::{Mixer, Mixers, Public, Verifier};
use crate::protocol::steps::{
    each_mixer, mixers_check_section, try_each_mixer_same, verifier_check_section, verifier_turn,
    Checked,
};
use crate::transport::Ctx;
use crate::{Error, Result};

/// The report labels of the steps a [`Scheme`] shares.
pub(crate) struct Labels {
    /// `get_verfsigs`: its section and the verifier's leaf.
    pub get_verfsigs: [&'static str; 2],
    /// `check_verfsigs`: its section, the mixers' leaf and its status.
    pub check_verfsigs: [&'static str; 3],
    /// The distributed proof's three rounds: the commitments, the challenges, the responses.
    pub dpk_rounds: [&'static str; 3],
    /// `..._nizkverifs`: its section, the verifier's leaf and its status.
    pub dpk_verifs: [&'static str; 3],
}

/// The signature scheme of a set-membership protocol: the per-scheme parts of the shared steps.
pub(crate) trait Scheme<E: Pairing> {
    /// The verifier's signatures and their encryptions, with the encryption randomness revealed
    /// (B17 in docs/fixes.md).
    type VerfSigs: Wire + Clone + Send + 'static;

    /// The labels of the scheme's steps.
    const LABELS: Labels;

    /// The verifier's part of `get_verfsigs`: a fresh signing key, a signature on every entry of
    /// the signed list, and their encryptions (with the verifier's tampers).
    fn sign(
        &self,
        cfg: &Config,
        public: &Public<E>,
        rng: &mut ChaCha20Rng,
    ) -> Result<Self::VerfSigs>;

    /// A mixer's check in `check_verfsigs`: every signature verifies (batched, weighted from
    /// `rng`) and every encryption is what the revealed randomness gives.
    fn verfsigs_hold(&self, public: &Public<E>, vs: &Self::VerfSigs, rng: &mut ChaCha20Rng)
        -> bool;
}

/// `get_verfsigs` (DB-SM) and `get_verfsigs_rev` (DB-RSM): the verifier signs every entry and
/// encrypts the signatures, revealing the randomness so that the mixers can check the
/// encryptions.
pub(crate) fn get_verfsigs<E: Pairing, S: Scheme<E>>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    verifier: &mut Option<Verifier>,
    scheme: &S,
) -> Result<S::VerfSigs> {
    let [section, label] = S::LABELS.get_verfsigs;
    c.section(section, Totals::Verifier, |c| {
        verifier_turn(c, verifier, label, 0, |v| {
            scheme.sign(cfg, public, &mut v.rng)
        })
    })
}

/// `check_verfsigs` (DB-SM) and `check_verfsigs_rev` (DB-RSM): every mixer batch-verifies the
/// signatures and recomputes the encryptions. Records the step's status.
pub(crate) fn check_verfsigs<E: Pairing, S: Scheme<E>>(
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    scheme: &S,
    vs: &S::VerfSigs,
) -> Result<bool> {
    mixers_check_section(
        c,
        mixers,
        S::LABELS.check_verfsigs,
        Checked::Alike,
        |_, rng| scheme.verfsigs_hold(public, vs, rng),
    )
}

/// The three rounds of a distributed proof of knowledge over `n` entries (DPK_BB, DPK_BBS+),
/// each timed as the mixers' leaf of `S::LABELS.dpk_rounds`: every mixer's commitment factors
/// (posted) with its nonces (kept); the challenges, which every mixer derives itself from the
/// product of the factors; every mixer's response shares from its nonces, its witness shares and
/// the challenges. Returns the challenges and the responses in mixer order.
pub(crate) fn dpk_rounds<E, S, T, N, R>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    n: usize,
    mut commit: impl FnMut(&mut Mixer<E>) -> Result<(T, N)>,
    challenges: impl Fn(&T) -> Result<Vec<E::ScalarField>>,
    mut respond: impl FnMut(&mut Mixer<E>, &N, &[E::ScalarField]) -> R,
) -> Result<(Vec<E::ScalarField>, Vec<R>)>
where
    E: Pairing,
    S: Scheme<E>,
    T: CommitmentFactors + Wire + Clone + Send + 'static,
    N: Wire,
    R: Wire + Clone + Send + 'static,
{
    let [commit_label, challenge_label, response_label] = S::LABELS.dpk_rounds;
    // Every factor is multiplied into the running product as it comes, never all kept: first
    // this process's mixers' (each posted as soon as it is made), then the others'.
    let m = mixers.m();
    let mut acc: Option<T> = None;
    // A factor of other entries than the run's is refused (the first one too).
    let multiply_in = |acc: &mut Option<T>, factor: T| -> Result<()> {
        crate::proofs::same_entries(commit_label, n, factor.entries())?;
        crate::proofs::multiply_into(acc, factor)
    };
    let mut nonces: Vec<Option<N>> = (0..m).map(|_| None).collect();
    for (k, nonce) in nonces.iter_mut().enumerate() {
        let Some(mx) = mixers.get_mut(k) else {
            c.remote(Party::Mixer(k), commit_label);
            continue;
        };
        let (factor, own) = journaled(c, Some(mx.party()), commit_label, mx, |c, mx| {
            c.time_entries(mx.party(), commit_label, n, || commit(mx))
        })?;
        let tag = c.tag(Some(Party::Mixer(k)), commit_label);
        c.post(&tag, &factor)?;
        multiply_in(&mut acc, factor)?;
        *nonce = Some(own);
    }
    for k in (0..m).filter(|k| mixers.get(*k).is_none()) {
        let factor: T = c.fetch(&c.tag(Some(Party::Mixer(k)), commit_label))?;
        multiply_in(&mut acc, factor)?;
    }
    let acc = acc.ok_or_else(|| Error::Input(format!("{commit_label}: no mixer")))?;
    let ch = try_each_mixer_same(c, mixers, challenge_label, || Ok(Ark(challenges(&acc)?)))?.0;
    let responses = each_mixer(c, mixers, response_label, |mx| {
        let nonces = nonces[mx.k].as_ref().expect("a hosted mixer's nonces");
        respond(mx, nonces, &ch)
    })?;
    Ok((ch, responses))
}

/// `dpk_bbsig_nizkverifs` (DB-SM) and `dpk_bbsplussig_nizkverifs` (DB-RSM): the verifier checks
/// every entry's proof (`verify` lists the entries that fail), timed over `total` entries.
/// Records the step's status.
pub(crate) fn dpk_nizkverifs<E: Pairing, S: Scheme<E>>(
    c: &mut Ctx,
    total: usize,
    verify: impl FnOnce() -> Result<Vec<usize>>,
) -> Result<bool> {
    verifier_check_section(
        c,
        S::LABELS.dpk_verifs,
        total,
        || matches!(verify(), Ok(bad) if bad.is_empty()),
    )
}
