//! A check's status from the parties' verdicts. Each party that checks a step posts its verdict
//! ("every check I ran passed"); the status is the AND of them all.
//!
//! An auditor ([`crate::protocol::audit`]) does not take a verdict at its word where the data is
//! public: it runs the check itself and sets every party's posted verdict beside the one it
//! should have been ([`audit_check`]; for the dealer's check of the permutation commitments,
//! [`recheck`]), and its own result is the status. Only a check of secret data leaves it the
//! verdicts, which it records as taken ([`agree`]). The steps ([`crate::protocol::steps`]) and
//! the preprocessing ([`crate::protocol::setup`]) use these; they use nothing of the protocol.

use crate::measurement::report::Party;
use crate::transport::roster::DRIVER;
use crate::transport::{AuditRow, Ctx};
use crate::Result;

/// Every party's verdict on the step `label`, in `parties` order: this process's are given (and
/// posted), the others' read from the board.
fn verdicts(
    c: &mut Ctx,
    label: &str,
    parties: &[Party],
    mine: Vec<(Party, bool)>,
) -> Result<Vec<(Party, bool)>> {
    let verdict = format!("{label}/verdict");
    for (p, ok) in &mine {
        let tag = c.tag(Some(*p), &verdict);
        let posted = *ok != c.lies();
        c.post(&tag, &posted)?;
    }
    parties
        .iter()
        .map(|p| match mine.iter().find(|(q, _)| q == p) {
            Some(&(_, ok)) => Ok((*p, ok)),
            None => {
                let tag = c.tag(Some(*p), &verdict);
                Ok((*p, c.fetch::<bool>(&tag)?))
            }
        })
        .collect()
}

/// The AND of every party's verdict on the step `label`: this process's are given (and posted),
/// the others' read from the board. An auditor, which cannot recheck what this step checked
/// (secret data), records the verdicts it takes.
pub(crate) fn agree(
    c: &mut Ctx,
    label: &str,
    parties: &[Party],
    mine: Vec<(Party, bool)>,
) -> Result<bool> {
    let all = verdicts(c, label, parties, mine)?;
    let ok = all.iter().all(|(_, ok)| *ok);
    if c.roles.auditor {
        let posted = all.iter().map(|(p, ok)| (p.to_string(), *ok)).collect();
        c.audit(AuditRow::new(c.step(), label, None, posted));
    }
    Ok(ok)
}

/// The auditor's side of the check `label`: every party's verdict read from the record and set
/// beside the verdict it should have posted (`expected`, recomputed here); the AND of the
/// recomputed verdicts is the status.
pub(crate) fn audit_check(
    c: &mut Ctx,
    label: &str,
    parties: &[Party],
    expected: impl Fn(Party) -> bool,
) -> Result<bool> {
    let posted = verdicts(c, label, parties, Vec::new())?;
    let ok = parties.iter().all(|p| expected(*p));
    let rows = posted
        .iter()
        .map(|(p, v)| (p.to_string(), *v == expected(*p)))
        .collect();
    c.audit(AuditRow::new(c.step(), label, Some(ok), rows));
    Ok(ok)
}

/// A check of the step `label` whose result `posted` a party (the dealer) posted: an auditor
/// recomputes it (`recompute`, timed as its own leaf) and notes whether the two agree, and the
/// result is its own; any other process takes `posted`.
pub(crate) fn recheck(
    c: &mut Ctx,
    label: &str,
    posted: bool,
    recompute: impl FnOnce() -> bool,
) -> bool {
    if !c.roles.auditor {
        return posted;
    }
    let ok = c.time_plain(label, recompute);
    let row = AuditRow::new(
        c.step(),
        label,
        Some(ok),
        vec![(DRIVER.into(), ok == posted)],
    );
    c.audit(row);
    ok
}
