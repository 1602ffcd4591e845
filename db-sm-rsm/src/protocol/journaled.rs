//! The journaled steps of a process: what a resumed run reads back, and what it does again.
//!
//! Every step a process runs for one of its parties goes through [`journaled`]: with a journal
//! ([`crate::storage::journal`]), what the step made is kept when it ends, and a resumed run
//! reads it back instead of doing the step again. A step changes nothing but what it returns
//! and its party's random stream, so that reading back its value and setting the stream to
//! where it was is the same as running it.
//!
//! A journal is not taken at its word where a status rests on it: the journal's chain has no
//! key (whoever can write the checkpoint can write a chain), so a resumed run does every check
//! again on the data it read back, as an auditor does on a board's record, and compares its
//! verdict (and its stream's position) with the journaled one ([`journaled_check`]): a journal
//! that does not bear itself out is refused ([`crate::Error::Checkpoint`]) and the run starts
//! afresh. So are a combination whose failures a status counts and the permutation
//! commitments' check. What a resumed run reads back is thus data and the parties' own secrets,
//! which no status is taken from without a check.

use rand_chacha::ChaCha20Rng;

use crate::measurement::report::Party;
use crate::primitives::wire::{encode, Wire};
use crate::storage::as_digests;
use crate::transport::Ctx;
use crate::Result;

/// What a step may draw from: a party's random stream, which a resumed step sets to where the
/// first attempt left it.
pub(crate) trait Stream {
    /// The stream, if the step draws from one.
    fn stream(&mut self) -> Option<&mut ChaCha20Rng>;
}

impl Stream for ChaCha20Rng {
    fn stream(&mut self) -> Option<&mut ChaCha20Rng> {
        Some(self)
    }
}

/// A step that draws from no party's stream.
pub(crate) struct NoStream;

impl Stream for NoStream {
    fn stream(&mut self) -> Option<&mut ChaCha20Rng> {
        None
    }
}

/// The step `label` of `party` (None: the driver's), run here with `f` on `who`, or read back
/// from the journal of an earlier attempt: its value, its timers, and `who`'s stream where the
/// step left it. Journaled when it ends.
pub(crate) fn journaled<P, T>(
    c: &mut Ctx,
    party: Option<Party>,
    label: &str,
    who: &mut P,
    f: impl FnOnce(&mut Ctx, &mut P) -> Result<T>,
) -> Result<T>
where
    P: Stream + ?Sized,
    T: Wire,
{
    let key = c.step_key(party, label);
    if let Some((value, pos)) = c.read_back::<T>(&key)? {
        if let (Some(pos), Some(rng)) = (pos, who.stream()) {
            rng.set_word_pos(pos);
        }
        return Ok(value);
    }
    let first = c.timer_count();
    let value = f(c, who)?;
    let pos = who.stream().map(|r| r.get_word_pos());
    c.journal_step(&key, &value, pos, first)?;
    Ok(value)
}

/// [`journaled`] of a step a status rests on (a check's verdict, a combination whose failures a
/// status counts): on a resumed run it is done again, on the data read back, from its party's
/// stream where the steps before left it, and its value and the stream's position after it must
/// be the journaled ones, else the journal is refused ([`crate::Error::Checkpoint`]). Its timers
/// are this attempt's.
pub(crate) fn journaled_check<P, T>(
    c: &mut Ctx,
    party: Option<Party>,
    label: &str,
    who: &mut P,
    f: impl FnOnce(&mut Ctx, &mut P) -> Result<T>,
) -> Result<T>
where
    P: Stream + ?Sized,
    T: Wire,
{
    let key = c.step_key(party, label);
    let earlier = c.recheck::<T>(&key)?;
    let first = c.timer_count();
    let value = f(c, who)?;
    let pos = who.stream().map(|r| r.get_word_pos());
    match earlier {
        None => c.journal_step(&key, &value, pos, first)?,
        Some((journaled, journaled_pos)) => {
            let same = |x: &T| as_digests(|| encode(x));
            if same(&journaled) != same(&value) || journaled_pos != pos {
                return Err(crate::Error::Checkpoint(format!(
                    "its step {key:?} does not check again: the journal says otherwise than the \
                     data it holds"
                )));
            }
        }
    }
    Ok(value)
}
