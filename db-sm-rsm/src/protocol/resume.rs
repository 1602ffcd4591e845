//! Resuming a run from its checkpoint ([`crate::storage::checkpoint`]): the identity every
//! journal of a run must carry, the opening of the driver's and each party process's journal
//! (with the secret seed a run without `--seed` keeps in it), and what the report says of a run
//! that resumed.
//!
//! Over `--transport tls` the board starts afresh with every attempt (a new roster, new
//! certificates, a new record): each process runs the protocol from the start, reads back the
//! steps its journal holds instead of doing them again, and posts their values as the first
//! attempt did, so that the new record holds the same posts. The steps no journal keeps (the
//! dealer's hand-over of the keys, preprocessing over the board) are functions of the parties'
//! streams and are done again, with the same results.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::measurement::report::Report;
use crate::protocol::config::Config;
use crate::storage::checkpoint::DRIVER;
use crate::storage::{Checkpoint, Journal};
use crate::transport::roster::party_names;
use crate::transport::Resumed;
use crate::Result;
use measure::seed::Seed;

/// Every parameter that changes what a run computes, as every journal's identity holds it.
pub fn journal_parameters(cfg: &Config, transport: &str, network: &str) -> String {
    format!(
        "n={} m={} curve={} mode={} security={} seed={} tamper={} test_keys={} transport={} \
         network={}",
        cfg.n,
        cfg.m,
        cfg.curve.name(),
        cfg.mode.name(),
        cfg.security.name(),
        cfg.seed.map_or("none".into(), |s| s.hex()),
        cfg.tamper.map_or("none", |t| t.name()),
        cfg.test_keys,
        transport,
        network,
    )
}

/// `party`'s journal in `cp`, its secret seed (a run without `--seed`) put in `cfg`; says on
/// stderr when it resumes an earlier attempt.
fn open(cp: &Checkpoint, party: &str, cfg: &mut Config) -> Result<Journal> {
    let fresh = cfg.seed.is_none().then(|| *Seed::fresh().bytes());
    let journal = cp.open(party, fresh)?;
    cfg.secret_seed = journal.identity().secret_seed.map(Seed::from_bytes);
    if journal.resuming() {
        let who = if party == DRIVER {
            String::new()
        } else {
            format!(" {party}")
        };
        eprintln!(
            "db-sm-rsm{who}: resuming from the checkpoint {} ({} finished steps and sections of \
             an earlier attempt)",
            cp.dir().display(),
            journal.earlier_count()
        );
    }
    Ok(journal)
}

/// The driver's journal in the checkpoint `cp`, after every process's journal was vetted (all
/// of a `tls` run's if `tls`): one that cannot be resumed from is refused in one line and the
/// whole run starts afresh.
pub fn open_driver(cp: &Checkpoint, cfg: &mut Config, tls: bool) -> Result<Journal> {
    let mut parties = vec![DRIVER.to_string()];
    if tls {
        parties.extend(party_names(cfg.m));
    }
    cp.vet(&parties, &mut |why| eprintln!("db-sm-rsm: {why}"))?;
    open(cp, DRIVER, cfg)
}

/// The checkpoint a party process of a `tls` run is told by its driver (`db-sm-rsm party
/// --checkpoint DIR --checkpoint-commit C --checkpoint-parameters P --checkpoint-run R
/// --checkpoint-attempt K`): [`crate::storage::Checkpoint::party_args`].
#[derive(Clone, Debug)]
pub struct Told {
    /// The checkpoint's directory.
    pub dir: PathBuf,
    /// The commit its journals must be of.
    pub commit: String,
    /// The parameters its journals must be of.
    pub parameters: String,
    /// The run's name (64 hexadecimal digits), the driver's journal's.
    pub run: String,
    /// The driver's attempt.
    pub attempt: u32,
}

/// A party process's journal in the checkpoint the driver named (and vetted), bound to the
/// driver's run and attempt; None without a checkpoint.
pub fn open_party(told: Option<Told>, name: &str, cfg: &mut Config) -> Result<Option<Journal>> {
    let Some(t) = told else {
        return Ok(None);
    };
    let run = hex32(&t.run).ok_or_else(|| {
        crate::Error::Storage(format!(
            "--checkpoint-run {:?}: not 64 hexadecimal digits",
            t.run
        ))
    })?;
    let cp = Checkpoint::of(&t.dir, t.commit, t.parameters).bound(run, t.attempt);
    open(&cp, name, cfg).map(Some)
}

/// 32 bytes from 64 hexadecimal digits.
fn hex32(s: &str) -> Option<[u8; 32]> {
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// Says on stderr that the run resumed (its `resumed` block, if not null): how many records
/// were read back and in which sections.
pub fn tell(resumed: &Value) {
    if resumed.is_null() {
        return;
    }
    let sections: Vec<&str> = resumed["sections"]
        .as_array()
        .map(|s| s.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    eprintln!(
        "db-sm-rsm: the run resumed: {} of the earlier attempt's {} journal records read back, \
         {} checked again (sections: {})",
        resumed["records_read_back"],
        resumed["records_of_earlier_attempt"],
        resumed["records_rechecked"],
        sections.join(", ")
    );
}

/// The report's `resumed` block: null unless a process read back records of an earlier
/// attempt; else how many, out of how many found, the sections below `main` with steps read
/// back (from `report`'s timers), and with `tls` each process's counts.
pub fn resumed_json(report: &Report, processes: &[(String, Resumed)], tls: bool) -> Value {
    if processes.is_empty() {
        return Value::Null;
    }
    let mut sections: Vec<String> = Vec::new();
    for row in report.timer_rows() {
        if row["resumed"] != true {
            continue;
        }
        let path = row["path"].as_array().cloned().unwrap_or_default();
        let section = match path.get(1) {
            Some(s) => s.as_str().unwrap_or_default().to_string(),
            None if path.len() == 1 => row["label"].as_str().unwrap_or_default().to_string(),
            None => continue,
        };
        if !sections.contains(&section) {
            sections.push(section);
        }
    }
    let mut block = json!({
        "records_read_back": processes.iter().map(|p| p.1.read_back).sum::<u64>(),
        "records_rechecked": processes.iter().map(|p| p.1.rechecked).sum::<u64>(),
        "records_of_earlier_attempt": processes.iter().map(|p| p.1.found).sum::<u64>(),
        "sections": sections,
    });
    if tls {
        block["processes"] = processes
            .iter()
            .map(|(party, r)| {
                json!({"party": party, "records_read_back": r.read_back,
                       "records_rechecked": r.rechecked, "records_of_earlier_attempt": r.found})
            })
            .collect();
    }
    block
}
