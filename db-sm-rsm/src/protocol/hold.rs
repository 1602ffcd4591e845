//! `--hold-at SECTION`, a test option: a run that starts fresh stops at the start of the named
//! section, once everything it journaled before is on the disk, says so on stderr and sleeps
//! until it is killed; a run that resumes from a checkpoint goes on. A test of a time limit (a
//! cluster's) then has a run that cannot end before the limit by construction, not because the
//! machine is slow, and the same command run again resumes and ends.

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
pub fn parse_section(s: &str) -> Result<String, String> {
    if SECTIONS.contains(&s) {
        Ok(s.to_string())
    } else {
        Err(format!(
            "{s:?} is not a section of the run (one of: {})",
            SECTIONS.join(", ")
        ))
    }
}

/// What `--hold-at section` does in an attempt that resumes or not, said on stderr when it is
/// ignored.
pub fn decide(section: &str, resuming: bool) -> HoldAt {
    if resuming {
        eprintln!(
            "db-sm-rsm: --hold-at {section} is ignored: the run resumes from its checkpoint (a \
             test option)"
        );
    }
    HoldAt {
        section: section.to_string(),
        holds: !resuming,
    }
}

/// The paper-format report's line for `--hold-at` (a line the paper's report does not have).
pub fn text_line(hold: &HoldAt) -> String {
    let what = if hold.holds {
        "this attempt holds there until killed"
    } else {
        "not held, the run resumed from its checkpoint"
    };
    format!("hold-at: {} (a test option): {what}", hold.section)
}

/// The report body's `hold_at` block of a run that returned (one that held never does): the
/// section, whether it was skipped because the run resumed or not reached (a fresh run that
/// stopped before it), and whether an earlier attempt of the checkpoint held there.
pub fn to_json(hold: Option<&HoldAt>, earlier_attempt_held: Option<&str>) -> Value {
    let Some(h) = hold else {
        return Value::Null;
    };
    json!({
        "section": h.section,
        "outcome": if h.holds { "not_reached" } else { "skipped_resumed" },
        "earlier_attempt_held": earlier_attempt_held == Some(h.section.as_str()),
    })
}
