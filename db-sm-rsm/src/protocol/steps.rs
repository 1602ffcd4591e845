//! What the protocol's steps share: every mixer doing its part of a step in turn, each mixer
//! checking every other mixer's proofs, the sections that are one check and its status, and
//! decrypted values that can only be taken together with their status.

use rayon::prelude::*;

use crate::measurement::report::{Party, Report, Totals};
use crate::protocol::setup::Mixer;

/// Every mixer in turn runs `f` on itself, timed as its leaf `label`; the results in mixer
/// order.
pub(crate) fn each_mixer<E, T>(
    r: &mut Report,
    mixers: &mut [Mixer<E>],
    label: &str,
    f: impl FnMut(&mut Mixer<E>) -> T,
) -> Vec<T>
where
    E: ark_ec::pairing::Pairing,
{
    each_mixer_entries(r, mixers, label, 0, f)
}

/// [`each_mixer`] for a step over `total` entries (0: too short to matter): its progress is
/// shown ([`Report::time_entries`]).
pub(crate) fn each_mixer_entries<E, T>(
    r: &mut Report,
    mixers: &mut [Mixer<E>],
    label: &str,
    total: usize,
    mut f: impl FnMut(&mut Mixer<E>) -> T,
) -> Vec<T>
where
    E: ark_ec::pairing::Pairing,
{
    mixers
        .iter_mut()
        .map(|mx| r.time_entries(mx.party(), label, total, || f(mx)))
        .collect()
}

/// Every mixer in turn computes the same public value itself (identical results, as upstream),
/// timed as its leaf `label`; the last mixer's is kept.
pub(crate) fn each_mixer_same<E, T>(
    r: &mut Report,
    mixers: &mut [Mixer<E>],
    label: &str,
    f: impl FnMut(&mut Mixer<E>) -> T,
) -> T
where
    E: ark_ec::pairing::Pairing,
{
    each_mixer(r, mixers, label, f)
        .pop()
        .expect("m >= 2 mixers")
}

/// Every mixer in turn makes its part of a step over `total` entries (leaf `labels[0]`), then
/// each mixer checks every other mixer's part (leaf `labels[1]`,
/// [`each_mixer_checks_the_others`]). Returns the parts in mixer order and whether every check
/// passed; the caller records the status.
pub(crate) fn each_mixer_then_checks_others<E, S>(
    r: &mut Report,
    mixers: &mut [Mixer<E>],
    labels: [&str; 2],
    total: usize,
    mut make: impl FnMut(&mut Mixer<E>) -> S,
    holds: impl Fn(usize, &S) -> bool + Sync,
) -> (Vec<S>, bool)
where
    E: ark_ec::pairing::Pairing,
    S: Sync,
{
    let make = |mx: &mut Mixer<E>| Ok::<_, std::convert::Infallible>(make(mx));
    let Ok(out) = try_each_mixer_then_checks_others(r, mixers, labels, total, make, holds);
    out
}

/// [`each_mixer_then_checks_others`] for parts whose making can fail: the first failure is
/// returned before any mixer checks.
pub(crate) fn try_each_mixer_then_checks_others<E, S, X>(
    r: &mut Report,
    mixers: &mut [Mixer<E>],
    [make_label, check_label]: [&str; 2],
    total: usize,
    make: impl FnMut(&mut Mixer<E>) -> Result<S, X>,
    holds: impl Fn(usize, &S) -> bool + Sync,
) -> Result<(Vec<S>, bool), X>
where
    E: ark_ec::pairing::Pairing,
    S: Sync,
{
    let parts = each_mixer_entries(r, mixers, make_label, total, make)
        .into_iter()
        .collect::<Result<Vec<S>, X>>()?;
    let ok = each_mixer_checks_the_others(r, mixers, check_label, |k| holds(k, &parts[k]));
    Ok((parts, ok))
}

/// A section `section` in which every mixer runs the same check, timed as its leaf `label`
/// ([`each_mixer_checks`]); records `status` after it. True iff every mixer's check passed.
pub(crate) fn mixers_check_section<E>(
    r: &mut Report,
    mixers: &mut [Mixer<E>],
    [section, label, status]: [&str; 3],
    check: impl FnMut(&mut Mixer<E>) -> bool,
) -> bool
where
    E: ark_ec::pairing::Pairing,
{
    let ok = r.section(section, Totals::Mixers, |r| {
        each_mixer_checks(r, mixers, label, check)
    });
    r.status(status, ok);
    ok
}

/// A section `section` in which the verifier runs one check over `total` entries, timed as its
/// leaf `label`; records `status` after it. The check's result.
pub(crate) fn verifier_check_section(
    r: &mut Report,
    [section, label, status]: [&str; 3],
    total: usize,
    check: impl FnOnce() -> bool,
) -> bool {
    let ok = r.section(section, Totals::Verifier, |r| {
        r.time_entries(Party::Verifier, label, total, check)
    });
    r.status(status, ok);
    ok
}

/// Every mixer in turn runs the same check, timed as its leaf `label`: true iff every mixer's
/// check passed. All mixers check, whatever the others found.
pub(crate) fn each_mixer_checks<E>(
    r: &mut Report,
    mixers: &mut [Mixer<E>],
    label: &str,
    check: impl FnMut(&mut Mixer<E>) -> bool,
) -> bool
where
    E: ark_ec::pairing::Pairing,
{
    each_mixer(r, mixers, label, check).into_iter().all(|ok| ok)
}

/// Each mixer checks what every other mixer published: for mixer j, `check(k)` for every
/// k ≠ j (in parallel), timed as j's leaf `label` (its progress counts the mixers checked).
/// True iff every check of every mixer passed.
/// With one mixer this would check nothing, which is why a run needs m ≥ 2.
pub(crate) fn each_mixer_checks_the_others<E>(
    r: &mut Report,
    mixers: &[Mixer<E>],
    label: &str,
    check: impl Fn(usize) -> bool + Sync,
) -> bool
where
    E: ark_ec::pairing::Pairing,
{
    let m = mixers.len();
    let mut all = true;
    for mx in mixers {
        all &= r.time_entries(mx.party(), label, m - 1, || {
            (0..m).into_par_iter().filter(|k| *k != mx.k).all(|k| {
                let ok = check(k);
                crate::primitives::counters::tick(1);
                ok
            })
        });
    }
    all
}

/// Decrypted values of a list, and the positions whose decryption failed. The values can only
/// be taken out by [`Decrypted::with_status`], which records the step's status, False whenever a
/// position failed: a failed decryption reads as a False status by construction. A failed
/// position holds zero only so that the lists keep their length for the steps that follow.
pub(crate) struct Decrypted<F> {
    values: Vec<F>,
    failed: Vec<usize>,
}

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
    /// Records `status` as `checks_ok` and-ed with every position of every list having
    /// decrypted, and returns the lists' values in order with that status: the only way to take
    /// the values out.
    pub(crate) fn with_status<const N: usize>(
        r: &mut Report,
        status: &str,
        checks_ok: bool,
        lists: [Decrypted<F>; N],
    ) -> ([Vec<F>; N], bool) {
        let ok = checks_ok && lists.iter().all(|d| d.failed.is_empty());
        r.status(status, ok);
        (lists.map(|d| d.values), ok)
    }

    /// [`Decrypted::with_status`] for one group of lists per party: one status for all.
    pub(crate) fn each_with_status<const N: usize>(
        r: &mut Report,
        status: &str,
        groups: Vec<[Decrypted<F>; N]>,
    ) -> Vec<[Vec<F>; N]> {
        let ok = groups.iter().flatten().all(|d| d.failed.is_empty());
        r.status(status, ok);
        groups.into_iter().map(|g| g.map(|d| d.values)).collect()
    }
}
