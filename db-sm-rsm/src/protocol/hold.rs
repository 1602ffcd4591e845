//! `--hold-at SECTION`, a test option: a run that starts fresh stops at the start of the named
//! section, once everything it journaled before is on the disk, says so on stderr and sleeps
//! until it is killed; a run that finds an earlier attempt's checkpoint (and resumes from it, or
//! refuses it and starts afresh) goes on. A test of a time limit (a cluster's) then has a run
//! that cannot end before the limit by construction, not because the machine is slow, and the
//! same command run again ends.

use serde_json::{json, Value};

use crate::transport::HoldAt;

/// Every section of a run, as the report's timers and the journal name them (a unit test of
/// `protocol::run` checks the list against a real run's).
pub const SECTIONS: [&str; 29] = [
    "main",
    "preprocessing",
    "pai_th_keygen",
    "pai_keygen",
    "checking inputs",
    "check_encs",
    "mixing",
    "re-encryption and permutation",
    "decryption of output messages",
    "decryption of individual message/randomness shares",
    "forward set membership",
    "get_verfsigs",
    "check_verfsigs",
    "get_blsigs",
    "re-encrypt and reverse-permute BB signatures",
    "generate encrypted blinded BB signatures",
    "decrypt blinded signatures",
    "dpk_bbsig_nizkproofs",
    "dpk_bbsig_nizkverifs",
    "reverse set membership",
    "pkcommverifs",
    "get_verfsigs_rev",
    "check_verfsigs_rev",
    "get_blsigs_rev",
    "re-encrypt and permute BBS+ signatures",
    "generate encrypted blinded BBS+ signatures",
    "decryption of blinded BBS+ signatures",
    "dpk_bbsplussig_nizkproofs",
    "dpk_bbsplussig_nizkverifs",
];

/// `--hold-at`'s value: a section of [`SECTIONS`], or why not (clap prints it in one line).
pub fn parse_section(s: &str) -> crate::Result<String> {
    if SECTIONS.contains(&s) {
        Ok(s.to_string())
    } else {
        Err(crate::Error::Parse(format!(
            "{s:?} is not a section of the run (one of: {})",
            SECTIONS.join(", ")
        )))
    }
}

/// What `--hold-at section` does in an attempt that resumes from its checkpoint or not, and
/// that found an earlier attempt's checkpoint (`earlier`, resumed or refused) or not; said on
/// stderr when it is ignored. Only an attempt that found none holds: one after it would hold
/// again, for ever, if its checkpoint were refused.
pub fn decide(section: &str, resuming: bool, earlier: bool) -> HoldAt {
    if resuming || earlier {
        let why = if resuming {
            "the run resumes from its checkpoint"
        } else {
            "an earlier attempt's checkpoint was there"
        };
        eprintln!("db-sm-rsm: --hold-at {section} is ignored: {why} (a test option)");
    }
    HoldAt {
        section: section.to_string(),
        holds: !(resuming || earlier),
    }
}

/// The paper-format report's line for `--hold-at` (a line the paper's report does not have).
pub fn text_line(hold: &HoldAt) -> String {
    let what = if hold.holds {
        "this attempt holds there until killed"
    } else {
        "not held, an earlier attempt left a checkpoint"
    };
    format!("hold-at: {} (a test option): {what}", hold.section)
}

/// The report body's `hold_at` block of a run that returned (one that held never does): the
/// section, whether it was skipped because the run resumed (or found an earlier attempt's
/// checkpoint, which it refused) or not reached (a fresh run that stopped before it), and
/// whether an earlier attempt of the checkpoint held there.
pub fn to_json(hold: Option<&HoldAt>, resumed: bool, earlier_attempt_held: Option<&str>) -> Value {
    let Some(h) = hold else {
        return Value::Null;
    };
    let outcome = match (h.holds, resumed) {
        (true, _) => "not_reached",
        (false, true) => "skipped_resumed",
        (false, false) => "skipped_earlier_attempt",
    };
    json!({
        "section": h.section,
        "outcome": outcome,
        "earlier_attempt_held": earlier_attempt_held == Some(h.section.as_str()),
    })
}
