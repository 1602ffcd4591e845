//! What the protocol's steps share: every mixer doing its part of a step, each mixer checking
//! every other mixer's part, one mixer's turn in a chain, the verifier's and the driver's steps,
//! the sections that are one check and its status, and decrypted values that can only be taken
//! together with their status.
//!
//! Each helper runs the parts of the parties this process hosts ([`Ctx::roles`]), timed under
//! their party's tag, and gets the other parties' parts from the board (`tls` transport): a
//! party's own part is posted right after it is made, before the process waits for anybody
//! else's, so mixers that do not depend on each other work at the same time. A verdict (a
//! party's "every check I ran passed") is posted too: a status is the AND of every party's
//! verdicts. With every party in one process, nothing is posted: the values are at hand.
//!
//! Every step a process runs for one of its parties goes through [`journaled`] or, where a status
//! rests on it, [`journaled_check`] ([`crate::protocol::journaled`]).
//!
//! An auditor ([`crate::protocol::audit`]) hosts no party and reads every post from a board's
//! record: where the parties check, it runs every check itself on the public data (every
//! mixer's part, the verifier's proofs), compares what each party's verdict should have been with
//! the verdict it posted, and takes its own result as the status; a value every mixer computes
//! alike it computes too, and compares with the one posted. Only a check of secret data (a
//! mixer's decryption of its own share ciphertexts) leaves it the parties' verdicts.

use ark_ec::pairing::Pairing;
use ark_ff::PrimeField;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

use crate::measurement::report::Party;
use crate::primitives::wire::{encode, Wire};
use crate::protocol::journaled::{journaled, journaled_check, NoStream};
use crate::protocol::setup::{Mixer, Mixers, Verifier};
use crate::protocol::verdicts::{agree, audit_check};
use crate::transport::{AuditRow, Ctx};
use crate::Result;

/// The auditor's generator for the weights of batch checks: fresh from the operating system,
/// never from the run's public seed (the provers must not know them).
fn auditor_rng() -> ChaCha20Rng {
    measure::seed::stream("db-sm-rsm/auditor", None)
}

/// Every mixer runs `f` on itself, timed as its leaf `label` over `total` entries (0: too short
/// to show progress); the results of every mixer in mixer order.
pub(crate) fn each_mixer_entries<E, T>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    label: &str,
    total: usize,
    mut f: impl FnMut(&mut Mixer<E>) -> T,
) -> Result<Vec<T>>
where
    E: Pairing,
    T: Wire + Clone + Send + 'static,
{
    let m = mixers.m();
    let mut out: Vec<Option<T>> = (0..m).map(|_| None).collect();
    for (k, slot) in out.iter_mut().enumerate() {
        if let Some(mx) = mixers.get_mut(k) {
            let v = journaled(c, Some(mx.party()), label, mx, |c, mx| {
                Ok(c.time_entries(mx.party(), label, total, || f(mx)))
            })?;
            let tag = c.tag(Some(Party::Mixer(k)), label);
            c.post(&tag, &v)?;
            *slot = Some(v);
        }
    }
    for (k, slot) in out.iter_mut().enumerate() {
        if slot.is_none() {
            c.remote(Party::Mixer(k), label);
            let tag = c.tag(Some(Party::Mixer(k)), label);
            *slot = Some(c.fetch(&tag)?);
        }
    }
    Ok(out
        .into_iter()
        .map(|v| v.expect("every mixer's part"))
        .collect())
}

/// [`each_mixer_entries`] of a step too short to show progress.
pub(crate) fn each_mixer<E, T>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    label: &str,
    f: impl FnMut(&mut Mixer<E>) -> T,
) -> Result<Vec<T>>
where
    E: Pairing,
    T: Wire + Clone + Send + 'static,
{
    each_mixer_entries(c, mixers, label, 0, f)
}

/// Every mixer runs `f` on itself, timed as its leaf `label`, and keeps the result: what it
/// makes stays secret. The results of this process's mixers, by mixer index.
pub(crate) fn each_mixer_private<E, T>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    label: &str,
    total: usize,
    mut f: impl FnMut(&mut Mixer<E>) -> T,
) -> Result<Vec<Option<T>>>
where
    E: Pairing,
    T: Wire,
{
    try_each_mixer_private(c, mixers, label, total, |mx| Ok(f(mx)))
}

/// [`each_mixer_private`] of a step that can fail: the first failure of this process's mixers.
pub(crate) fn try_each_mixer_private<E, T>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    label: &str,
    total: usize,
    f: impl FnMut(&mut Mixer<E>) -> Result<T>,
) -> Result<Vec<Option<T>>>
where
    E: Pairing,
    T: Wire,
{
    each_mixer_journaled(c, mixers, label, total, false, f)
}

/// [`try_each_mixer_private`] of a step a status rests on (a check, the decryption of a mixer's
/// own shares): a resumed run does it again and compares ([`journaled_check`]).
pub(crate) fn try_each_mixer_checks_private<E, T>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    label: &str,
    total: usize,
    f: impl FnMut(&mut Mixer<E>) -> Result<T>,
) -> Result<Vec<Option<T>>>
where
    E: Pairing,
    T: Wire,
{
    each_mixer_journaled(c, mixers, label, total, true, f)
}

/// Every hosted mixer's step `label` ([`journaled`], or with `recheck` [`journaled_check`]);
/// the others' places kept for their processes' figures.
fn each_mixer_journaled<E, T>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    label: &str,
    total: usize,
    recheck: bool,
    mut f: impl FnMut(&mut Mixer<E>) -> Result<T>,
) -> Result<Vec<Option<T>>>
where
    E: Pairing,
    T: Wire,
{
    (0..mixers.m())
        .map(|k| match mixers.get_mut(k) {
            Some(mx) => {
                let party = Some(mx.party());
                let step = |c: &mut Ctx, mx: &mut Mixer<E>| {
                    c.time_entries(mx.party(), label, total, || f(mx))
                };
                if recheck {
                    journaled_check(c, party, label, mx, step).map(Some)
                } else {
                    journaled(c, party, label, mx, step).map(Some)
                }
            }
            None => {
                c.remote(Party::Mixer(k), label);
                Ok(None)
            }
        })
        .collect()
}

/// The homomorphic product of every mixer's factors, `multiply_in(k)` taking in mixer k's: with
/// one process each mixer's timer (leaf `label` over `total` entries) multiplies in its own factor
/// (as upstream); a mixer in its own process computes the whole product, and so does a process
/// without a mixer (untimed). `also` runs in each mixer's timer after the product; its results by
/// mixer index, `None` for the mixers of other processes.
pub(crate) fn each_mixer_multiplies_in<E, T>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    label: &str,
    total: usize,
    mut multiply_in: impl FnMut(usize),
    mut also: impl FnMut(&mut Mixer<E>) -> T,
) -> Result<Vec<Option<T>>>
where
    E: Pairing,
    T: Wire,
{
    let (networked, m) = (c.networked_run(), mixers.m());
    let mut hosted = Vec::with_capacity(m);
    for k in 0..m {
        let Some(mx) = mixers.get_mut(k) else {
            c.remote(Party::Mixer(k), label);
            hosted.push(None);
            continue;
        };
        let mut multiplied = false;
        let made = journaled(c, Some(mx.party()), label, mx, |c, mx| {
            multiplied = true;
            Ok(c.time_entries(mx.party(), label, total, || {
                if networked {
                    (0..m).for_each(&mut multiply_in);
                } else {
                    multiply_in(mx.k);
                }
                also(mx)
            }))
        })?;
        // The product lives in the caller's accumulators, not in the journal: a step read back
        // multiplies its factors in again (untimed).
        if !multiplied {
            if networked {
                (0..m).for_each(&mut multiply_in);
            } else {
                multiply_in(k);
            }
        }
        hosted.push(Some(made));
    }
    if hosted.iter().all(Option::is_none) {
        (0..m).for_each(&mut multiply_in);
    }
    Ok(hosted)
}

/// Every mixer computes the same public value itself (identical results, as upstream), timed
/// as its leaf `label`; a failure (a store that cannot be read) ends the run. A process without
/// a mixer reads the last mixer's, which it posts.
pub(crate) fn try_each_mixer_same<E, T>(
    c: &mut Ctx,
    mixers: &Mixers<E>,
    label: &str,
    f: impl Fn() -> Result<T>,
) -> Result<T>
where
    E: Pairing,
    T: Wire + Clone + Send + 'static,
{
    let m = mixers.m();
    let tag = c.tag(Some(Party::Mixer(m - 1)), label);
    if c.roles.auditor {
        // Computed here too, and compared with the value the last mixer posted for the
        // processes without a mixer.
        let mine = c.time_plain(label, &f)?;
        let posted: T = c.fetch(&tag)?;
        let same = encode(&mine) == encode(&posted);
        let who = Party::Mixer(m - 1).to_string();
        c.audit(AuditRow::new(
            c.step(),
            label,
            Some(same),
            vec![(who, same)],
        ));
        return Ok(mine);
    }
    let mut got = None;
    for k in 0..m {
        if mixers.get(k).is_some() {
            let party = Party::Mixer(k);
            // Its result a status may count the failures of: done again on a resumed run.
            got = Some(journaled_check(
                c,
                Some(party),
                label,
                &mut NoStream,
                |c, _| c.time(party, label, &f),
            )?);
        } else {
            c.remote(Party::Mixer(k), label);
        }
    }
    match got {
        Some(v) => {
            if mixers.get(m - 1).is_some() {
                c.post(&tag, &v)?;
            }
            Ok(v)
        }
        None => c.fetch(&tag),
    }
}

/// Every mixer runs `f` on itself, timed as its leaf `label` over `total` entries, making a
/// public part (posted; every mixer's returned in mixer order) and a secret one (kept; this
/// process's returned by mixer index).
pub(crate) fn each_mixer_split<E, P, S>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    label: &str,
    total: usize,
    f: impl FnMut(&mut Mixer<E>) -> Result<(P, S)>,
) -> Result<(Vec<P>, Vec<Option<S>>)>
where
    E: Pairing,
    P: Wire + Clone + Send + 'static,
    S: Wire,
{
    let (public, secret) = try_each_mixer_private(c, mixers, label, total, f)?
        .into_iter()
        .map(|x| match x {
            Some((p, s)) => (Some(p), Some(s)),
            None => (None, None),
        })
        .unzip();
    Ok((post_and_gather(c, label, public)?, secret))
}

/// This process's parts of step `label` (by mixer index, `None` for the other processes'
/// mixers) posted, and the others' read from the board: every mixer's part in mixer order.
fn post_and_gather<T>(c: &mut Ctx, label: &str, parts: Vec<Option<T>>) -> Result<Vec<T>>
where
    T: Wire + Clone + Send + 'static,
{
    for (k, part) in parts.iter().enumerate() {
        if let Some(p) = part {
            let tag = c.tag(Some(Party::Mixer(k)), label);
            c.post(&tag, p)?;
        }
    }
    parts
        .into_iter()
        .enumerate()
        .map(|(k, part)| match part {
            Some(p) => Ok(p),
            None => c.fetch(&c.tag(Some(Party::Mixer(k)), label)),
        })
        .collect()
}

/// Mixer k's index.
fn mixer_index(p: Party) -> usize {
    match p {
        Party::Mixer(k) => k,
        Party::Verifier => usize::MAX,
    }
}

pub(crate) fn all_mixers(m: usize) -> Vec<Party> {
    (0..m).map(Party::Mixer).collect()
}

/// Whether a check that every mixer runs depends on the mixer (its own share ciphertexts) or is
/// the same for all (the verifier's signatures): an auditor runs the latter once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Checked {
    /// `check(k, ..)` differs with k.
    PerMixer,
    /// `check(k, ..)` is the same for every k.
    Alike,
}

/// Every mixer runs the same check, `check(k, its generator)`, timed as its leaf `label`: true
/// iff every mixer's check passed. All mixers check, whatever the others found.
pub(crate) fn each_mixer_checks<E>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    label: &str,
    checked: Checked,
    mut check: impl FnMut(usize, &mut ChaCha20Rng) -> bool,
) -> Result<bool>
where
    E: Pairing,
{
    let m = mixers.m();
    if c.roles.auditor {
        let mut rng = auditor_rng();
        let results: Vec<bool> = c.time_plain(label, || match checked {
            Checked::PerMixer => (0..m).map(|k| check(k, &mut rng)).collect(),
            Checked::Alike => vec![check(0, &mut rng); m],
        });
        return audit_check(c, label, &all_mixers(m), |p| results[mixer_index(p)]);
    }
    let mine: Vec<(Party, bool)> = try_each_mixer_checks_private(c, mixers, label, 0, |mx| {
        let k = mx.k;
        Ok(check(k, &mut mx.rng))
    })?
    .into_iter()
    .enumerate()
    .filter_map(|(k, ok)| ok.map(|ok| (Party::Mixer(k), ok)))
    .collect();
    agree(c, label, &all_mixers(m), mine)
}

/// Each mixer checks what every other mixer published: for mixer j, `check(k)` for every
/// k ≠ j (in parallel), timed as j's leaf `label` (its progress counts the mixers checked).
/// True iff every check of every mixer passed. With one mixer this would check nothing, which
/// is why a run needs m ≥ 2.
pub(crate) fn each_mixer_checks_the_others<E>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    label: &str,
    check: impl Fn(usize) -> bool + Sync,
) -> Result<bool>
where
    E: Pairing,
{
    let m = mixers.m();
    if c.roles.auditor {
        // Every mixer's part checked once; mixer j's verdict covers every part but its own.
        let results: Vec<bool> = c.time_plain_entries(label, m, || {
            (0..m)
                .into_par_iter()
                .map(|k| {
                    let ok = check(k);
                    crate::primitives::counters::tick(1);
                    ok
                })
                .collect()
        });
        return audit_check(c, label, &all_mixers(m), |p| {
            let j = mixer_index(p);
            (0..m).filter(|k| *k != j).all(|k| results[k])
        });
    }
    let mine: Vec<(Party, bool)> = try_each_mixer_checks_private(c, mixers, label, m - 1, |mx| {
        let j = mx.k;
        Ok((0..m).into_par_iter().filter(|k| *k != j).all(|k| {
            let ok = check(k);
            crate::primitives::counters::tick(1);
            ok
        }))
    })?
    .into_iter()
    .enumerate()
    .filter_map(|(k, ok)| ok.map(|ok| (Party::Mixer(k), ok)))
    .collect();
    agree(c, label, &all_mixers(m), mine)
}

/// Every mixer makes its part of a step over `total` entries (leaf `labels[0]`), then each mixer
/// checks every other mixer's part (leaf `labels[1]`, [`each_mixer_checks_the_others`]).
/// Returns the parts in mixer order and whether every check passed; the caller records the
/// status. A part that cannot be made stops this process before the checks.
pub(crate) fn try_each_mixer_then_checks_others<E, S>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    [make_label, check_label]: [&str; 2],
    total: usize,
    mut make: impl FnMut(&mut Mixer<E>) -> Result<S>,
    holds: impl Fn(usize, &S) -> bool + Sync,
) -> Result<(Vec<S>, bool)>
where
    E: Pairing,
    S: Wire + Clone + Send + Sync + 'static,
{
    // A part that cannot be made stops this process before it posts anything of this step.
    let made = try_each_mixer_private(c, mixers, make_label, total, |mx| make(mx))?;
    let parts = post_and_gather(c, make_label, made)?;
    let ok = each_mixer_checks_the_others(c, mixers, check_label, |k| holds(k, &parts[k]))?;
    Ok((parts, ok))
}

/// A threshold decryption: every mixer makes its decryption shares with their proofs (leaf
/// `labels[0]` over `total` entries), each mixer checks every other mixer's shares with `holds`
/// (leaf `labels[1]`, [`try_each_mixer_then_checks_others`]), then every mixer combines all the
/// shares itself (leaf `labels[2]`, identical results, as upstream). Returns the combination and
/// whether every check passed; the caller records the status.
pub(crate) fn threshold_decryption<E, S, T>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    [make_label, check_label, combine_label]: [&str; 3],
    total: usize,
    make: impl FnMut(&mut Mixer<E>) -> Result<S>,
    holds: impl Fn(usize, &S) -> bool + Sync,
    combine: impl Fn(&[S]) -> Result<T>,
) -> Result<(T, bool)>
where
    E: Pairing,
    S: Wire + Clone + Send + Sync + 'static,
    T: Wire + Clone + Send + 'static,
{
    let labels = [make_label, check_label];
    let (shares, ok) = try_each_mixer_then_checks_others(c, mixers, labels, total, make, holds)?;
    let combined = try_each_mixer_same(c, mixers, combine_label, || combine(&shares))?;
    Ok((combined, ok))
}

/// Mixer k's turn in a chain (each mixer's input is another mixer's output): `f` runs it (and
/// times its leaves, `labels` in order) where mixer k is hosted, and its result is posted;
/// elsewhere the result is read from the board.
pub(crate) fn mixer_turn<E, S>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    k: usize,
    labels: &[&str],
    f: impl FnOnce(&mut Ctx, &mut Mixer<E>) -> Result<S>,
) -> Result<S>
where
    E: Pairing,
    S: Wire + Clone + Send + 'static,
{
    let tag = c.tag(Some(Party::Mixer(k)), labels[0]);
    match mixers.get_mut(k) {
        Some(mx) => {
            let s = journaled(c, Some(Party::Mixer(k)), labels[0], mx, f)?;
            c.post(&tag, &s)?;
            Ok(s)
        }
        None => {
            for label in labels {
                c.remote(Party::Mixer(k), label);
            }
            c.fetch(&tag)
        }
    }
}

/// The verifier's step `label` over `total` entries: run (and posted) where the verifier is
/// hosted, read from the board elsewhere.
pub(crate) fn verifier_turn<T>(
    c: &mut Ctx,
    verifier: &mut Option<Verifier>,
    label: &str,
    total: usize,
    f: impl FnOnce(&mut Verifier) -> Result<T>,
) -> Result<T>
where
    T: Wire + Clone + Send + 'static,
{
    let tag = c.tag(Some(Party::Verifier), label);
    match verifier.as_mut() {
        Some(v) => {
            let out = journaled(c, Some(Party::Verifier), label, v, |c, v| {
                c.time_entries(Party::Verifier, label, total, || f(v))
            })?;
            c.post(&tag, &out)?;
            Ok(out)
        }
        None => {
            c.remote(Party::Verifier, label);
            c.fetch(&tag)
        }
    }
}

/// The driver's step (the dealer's or the senders'): run (and posted under `label`) in the
/// driver, read from the board elsewhere. `f` times its own timers.
pub(crate) fn driver_turn<T>(
    c: &mut Ctx,
    label: &str,
    f: impl FnOnce(&mut Ctx) -> Result<T>,
) -> Result<T>
where
    T: Wire + Clone + Send + 'static,
{
    let tag = c.tag(None, label);
    if c.roles.driver {
        let out = journaled(c, None, label, &mut NoStream, |c, _| f(c))?;
        c.post(&tag, &out)?;
        Ok(out)
    } else {
        c.fetch(&tag)
    }
}

/// A section `section` in which every mixer runs the same check, timed as its leaf `label`
/// ([`each_mixer_checks`]); records `status` after it. True iff every mixer's check passed.
pub(crate) fn mixers_check_section<E>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    [section, label, status]: [&str; 3],
    checked: Checked,
    check: impl FnMut(usize, &mut ChaCha20Rng) -> bool,
) -> Result<bool>
where
    E: Pairing,
{
    let ok = c.section(section, crate::measurement::report::Totals::Mixers, |c| {
        each_mixer_checks(c, mixers, label, checked, check)
    })?;
    c.status(status, ok);
    Ok(ok)
}

/// A section `section` in which the verifier runs one check over `total` entries, timed as its
/// leaf `label`; records `status` after it. The check's result.
pub(crate) fn verifier_check_section(
    c: &mut Ctx,
    [section, label, status]: [&str; 3],
    total: usize,
    check: impl FnOnce() -> bool,
) -> Result<bool> {
    let ok = c.section(section, crate::measurement::report::Totals::Verifier, |c| {
        if c.roles.auditor {
            let ok = c.time_plain_entries(label, total, check);
            return audit_check(c, label, &[Party::Verifier], |_| ok);
        }
        let mine = if c.roles.verifier {
            let ok = journaled_check(c, Some(Party::Verifier), label, &mut NoStream, |c, _| {
                Ok(c.time_entries(Party::Verifier, label, total, check))
            })?;
            vec![(Party::Verifier, ok)]
        } else {
            c.remote(Party::Verifier, label);
            vec![]
        };
        agree(c, label, &[Party::Verifier], mine)
    })?;
    c.status(status, ok);
    Ok(ok)
}

/// Decrypted values of a list, and the positions whose decryption failed. The values can only
/// be taken out by [`Decrypted::with_status`], which records the step's status, False whenever a
/// position failed: a failed decryption reads as a False status by construction. A failed
/// position holds zero only so that the lists keep their length for the steps that follow.
#[derive(Clone, Debug)]
pub(crate) struct Decrypted<F> {
    values: Vec<F>,
    failed: Vec<usize>,
}

crate::wire_struct!(impl[F: PrimeField] Decrypted<F> { ark values, wire failed });

impl<F: Default> FromIterator<Option<F>> for Decrypted<F> {
    fn from_iter<I: IntoIterator<Item = Option<F>>>(it: I) -> Self {
        let mut d = Decrypted {
            values: Vec::new(),
            failed: Vec::new(),
        };
        for (i, x) in it.into_iter().enumerate() {
            match x {
                Some(v) => d.values.push(v),
                None => {
                    d.failed.push(i);
                    d.values.push(F::default());
                }
            }
        }
        d
    }
}

impl<F> Decrypted<F> {
    /// True iff every position decrypted.
    pub(crate) fn complete(&self) -> bool {
        self.failed.is_empty()
    }

    /// The values, whatever decrypted (for a party's own use of its own decryptions, whose
    /// completeness its verdict reports).
    pub(crate) fn into_values(self) -> Vec<F> {
        self.values
    }

    /// Records `status` as `checks_ok` and-ed with every position of every list having
    /// decrypted, and returns the lists' values in order with that status: the only way to take
    /// the values out.
    pub(crate) fn with_status<const N: usize>(
        c: &mut Ctx,
        status: &str,
        checks_ok: bool,
        lists: [Decrypted<F>; N],
    ) -> ([Vec<F>; N], bool) {
        let ok = checks_ok && lists.iter().all(|d| d.failed.is_empty());
        c.status(status, ok);
        (lists.map(|d| d.values), ok)
    }
}
