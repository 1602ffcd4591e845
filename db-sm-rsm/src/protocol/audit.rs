//! Universal verifiability, measured: re-checking a finished `tls` run from its board record
//! alone (`db-sm-rsm verify-board FILE`, docs/protocol.md §12).
//!
//! The record ([`crate::transport::record`]) is first checked as a file: its hash chain, its
//! header, that every post's author is on the roster and owns its tag, and its close. Then an
//! *auditor* runs the whole protocol ([`crate::protocol::run::run`]) as a process that hosts no
//! party and reads every post from the record ([`Ctx::auditing`]): wherever the parties check,
//! it runs the check itself on the public data, instead of trusting the verdicts posted — each
//! mixer's checks of the others' parts and of the verifier's signatures, the verifier's checks of
//! the distributed proofs, the dealer's check of the permutation commitments — and sets each
//! party's verdict beside the one it should have posted; a value every mixer computes alike
//! (combined decryptions, challenges) it computes too and compares with the one posted. Only the
//! mixers' decryption of their own share ciphertexts is a check of secret data: there it takes
//! the verdicts, and says so. Its statuses are then compared with the ones the driver posted at
//! the end (`records/driver`), the run's report.
//!
//! The audit passes when the chain is intact, every check's verdicts agree with the auditor's,
//! every recomputed status is True and equals the run's.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use clap::ValueEnum;
use serde_json::{json, Value};

use crate::measurement::report::Report;
use crate::protocol::config::Config;
use crate::protocol::run::run;
use crate::protocol::setup::Dealing;
use crate::transport::record::Record;
use crate::transport::roster::{records_tag, DRIVER};
use crate::transport::{AuditRow, Ctx};
use crate::{Error, Result};

/// What the run's statuses are posted as at its end, under `records/driver`.
pub type RunStatuses = Vec<(String, bool)>;

/// A finished audit.
#[derive(Clone, Debug)]
pub struct Audit {
    /// Entries of the record (header, posts, close).
    pub entries: u64,
    /// Bytes of the record.
    pub bytes: u64,
    /// The head of the chain, in hexadecimal.
    pub head: String,
    /// The run's n.
    pub n: usize,
    /// The statuses the auditor recomputed, in report order.
    pub statuses: Vec<(String, bool)>,
    /// The statuses the run reported.
    pub run_statuses: RunStatuses,
    /// Every check, as the auditor saw it.
    pub checks: Vec<AuditRow>,
    /// CPU seconds of the auditor's process during the audit (every thread).
    pub cpu_s: f64,
    /// Wall seconds of the audit.
    pub wall_s: f64,
}

impl Audit {
    /// The checks whose verdicts disagree with the auditor's own results.
    pub fn disagreements(&self) -> Vec<&AuditRow> {
        self.checks.iter().filter(|r| !r.agrees()).collect()
    }

    /// The checks the auditor could not redo (secret data): their verdicts were taken.
    pub fn taken(&self) -> Vec<&AuditRow> {
        self.checks
            .iter()
            .filter(|r| r.recomputed.is_none())
            .collect()
    }

    /// True iff the recomputed statuses are the run's, name for name.
    pub fn equals_the_run(&self) -> bool {
        self.statuses == self.run_statuses
    }

    /// True iff every verdict agrees with the auditor, every recomputed status is True and
    /// they equal the run's.
    pub fn passed(&self) -> bool {
        !self.statuses.is_empty()
            && self.statuses.iter().all(|(_, ok)| *ok)
            && self.equals_the_run()
            && self.disagreements().is_empty()
    }

    /// The report body's `audit` block.
    pub fn to_json(&self) -> Value {
        let statuses: serde_json::Map<String, Value> = self
            .statuses
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        let rows = |rows: Vec<&AuditRow>| -> Vec<Value> {
            rows.iter()
                .map(|r| {
                    json!({"step": r.step, "label": r.label, "recomputed": r.recomputed,
                           "parties": r.parties.iter().map(|(p, v)| json!([p, v]))
                               .collect::<Vec<_>>()})
                })
                .collect()
        };
        json!({
            "passed": self.passed(),
            "chain": "intact",
            "entries": self.entries,
            "bytes": self.bytes,
            "head_sha256": self.head,
            "checks": self.checks.len(),
            "checks_recomputed": self.checks.iter().filter(|r| r.recomputed.is_some()).count(),
            "verdicts_taken": rows(self.taken()),
            "disagreements": rows(self.disagreements()),
            "statuses": statuses,
            "equals_the_run": self.equals_the_run(),
            "cpu_s": self.cpu_s,
            "wall_s": self.wall_s,
            "cpu_per_entry_s": self.cpu_s / self.n.max(1) as f64,
        })
    }
}

/// A value of a clap enum by its command-line name.
fn named<T: ValueEnum>(v: &Value, key: &str) -> Result<T> {
    let s = v[key]
        .as_str()
        .ok_or_else(|| Error::Parse(format!("the record's parameters have no {key:?}")))?;
    T::from_str(s, false)
        .map_err(|_| Error::Parse(format!("the record's {key} {s:?} is not known")))
}

/// The run's configuration from the record's header.
pub fn config_of(parameters: &str) -> Result<Config> {
    let v: Value = serde_json::from_str(parameters)
        .map_err(|e| Error::Parse(format!("the record's parameters are not JSON: {e}")))?;
    let count = |key: &str| {
        v[key]
            .as_u64()
            .map(|x| x as usize)
            .ok_or_else(|| Error::Parse(format!("the record's parameters have no count {key:?}")))
    };
    let seed = match v["seed"].as_str() {
        Some(s) => Some(
            s.parse()
                .map_err(|e| Error::Parse(format!("the record's seed: {e}")))?,
        ),
        None => None,
    };
    let tamper = match &v["tamper"] {
        Value::Null => None,
        _ => Some(named(&v, "tamper")?),
    };
    let cfg = Config {
        n: count("n")?,
        m: count("m")?,
        curve: named(&v, "curve")?,
        mode: named(&v, "mode")?,
        security: named(&v, "security")?,
        seed,
        tamper,
        test_keys: v["test_keys"].as_bool().unwrap_or(false),
        key_cache: None,
        secret_seed: None,
    };
    cfg.validate()?;
    Ok(cfg)
}

/// Re-checks the run recorded in `path`: the record as a file, then every check of the run
/// ([`crate::protocol::audit`]). With `progress`, the auditor's steps go to stderr.
///
/// An error is [`Error::Record`] when the file is not an intact record, else the reason the run
/// cannot be re-checked from it (a post missing or malformed, the run's statuses missing).
pub fn verify_board(path: &Path, progress: bool) -> Result<Audit> {
    let started = Instant::now();
    let cpu0 = measure::clock::process_cpu_seconds();
    let record = Arc::new(Record::open(path)?);
    let cfg = config_of(&record.header.parameters)?;
    let mut c = Ctx::auditing(Report::new(cfg.m, progress), record.clone());
    run(&cfg, &mut c, &Dealing::Nothing)?;
    let run_statuses: RunStatuses = c.fetch(&records_tag(DRIVER)).map_err(|e| match e {
        Error::Stopped { .. } => Error::Unfinished(format!(
            "the record holds no statuses of the run ({}): the run did not finish",
            records_tag(DRIVER)
        )),
        other => other,
    })?;
    let statuses = c.statuses().to_vec();
    Ok(Audit {
        entries: record.entries(),
        bytes: record.bytes,
        head: record.head.iter().map(|b| format!("{b:02x}")).collect(),
        n: cfg.n,
        statuses,
        run_statuses,
        checks: c.audit_rows().to_vec(),
        cpu_s: measure::clock::process_cpu_seconds() - cpu0,
        wall_s: started.elapsed().as_secs_f64(),
    })
}

/// Everything `verify-board` prints of the audit `a` of the record `file` (checked with
/// `threads` threads): the chain, the statuses ([`summary`]) and the verdict with its CPU time.
pub fn verdict_lines(a: &Audit, file: &str, threads: u64) -> Vec<String> {
    let mut out = vec![format!(
        "{file}: chain intact: {} entries, {} bytes, head {}",
        a.entries, a.bytes, a.head
    )];
    out.extend(summary(a));
    let verdict = if a.passed() { "PASSED" } else { "FAILED" };
    let equal = if a.equals_the_run() {
        "equal to"
    } else {
        "NOT equal to"
    };
    out.push(format!(
        "{verdict}: {} checks re-run, {} taken from the verdicts (secret data), {} disagreeing; \
         statuses {equal} the run's; {:.3} s CPU ({:.5} s per entry, n = {}), {:.3} s wall, {} \
         thread(s)",
        a.checks.len() - a.taken().len(),
        a.taken().len(),
        a.disagreements().len(),
        a.cpu_s,
        a.cpu_s / a.n.max(1) as f64,
        a.n,
        a.wall_s,
        threads
    ));
    out
}

/// The lines `verify-board` prints: every recomputed status beside the run's, the checks whose
/// verdicts it took, and every disagreement.
pub fn summary(audit: &Audit) -> Vec<String> {
    let mut out = Vec::new();
    for (name, ok) in &audit.statuses {
        let theirs = audit
            .run_statuses
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| if *v { "True" } else { "False" })
            .unwrap_or("not reported");
        let mine = if *ok { "True" } else { "False" };
        out.push(format!("{name}: {mine} (the run: {theirs})"));
    }
    for (name, _) in &audit.run_statuses {
        if !audit.statuses.iter().any(|(n, _)| n == name) {
            out.push(format!("{name}: not recomputed (the run reported it)"));
        }
    }
    for r in audit.taken() {
        let who: Vec<String> = r
            .parties
            .iter()
            .map(|(p, v)| format!("{p} {}", if *v { "True" } else { "False" }))
            .collect();
        out.push(format!(
            "taken from the verdicts (a check of secret data): {} > {}: {}",
            r.step,
            r.label,
            who.join(", ")
        ));
    }
    for r in audit.disagreements() {
        let who: Vec<&str> = r
            .parties
            .iter()
            .filter(|(_, same)| !same)
            .map(|(p, _)| p.as_str())
            .collect();
        out.push(format!(
            "DISAGREES: {} > {}: the auditor found {}, the post of {} says otherwise",
            r.step,
            r.label,
            if r.recomputed == Some(true) {
                "True"
            } else {
                "False"
            },
            who.join(", ")
        ));
    }
    out
}

/// `verify-board` as a library call, for the driver: the audit, or why there is none (a
/// [`Result`] of the crate's error type).
pub fn verify(path: &Path) -> Result<Audit> {
    verify_board(path, false).map_err(|e| Error::Verify(format!("{}: {e}", path.display())))
}
