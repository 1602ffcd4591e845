//! A party's process of a `tls` run (`db-sm-rsm party --role mixer --id K ...` or `--role
//! verifier`), started by the driver ([`super::distributed`]): it joins the run, does its
//! party's work (journaled in its own journal when the run keeps a checkpoint), posts its
//! timers, its posts and its transcript for the driver's report, and leaves. Its own faults
//! (for the tests) fire as their sections begin.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::measurement::report::Report;
use crate::protocol::claims::{self, PartyRecords};
use crate::protocol::config::{Config, Curve};
use crate::protocol::distributed::Deadline;
use crate::protocol::run::run;
use crate::protocol::setup::{Dealing, MixerKeys};
use crate::storage::Journal;
use crate::transport::board::BoardClient;
use crate::transport::process;
use crate::transport::roster::records_tag;
use crate::transport::{Ctx, HoldAt, Posted, Roles};
use crate::{Error, Result};

/// A party's own faults (`db-sm-rsm party --cut-at ...`): the sections where it cuts its link,
/// falls silent, forges a verdict or asks the board to shut down, and whether it exits with a
/// failure after its work.
#[derive(Clone, Debug, Default)]
pub struct PartyFaults {
    /// Sections where it cuts its link to the board.
    pub cut_at: Vec<String>,
    /// Sections where it stops working and posting.
    pub silent_at: Vec<String>,
    /// Sections where it posts a verdict under another party's tag.
    pub forge_at: Vec<String>,
    /// Sections where it asks the board to shut down.
    pub shut_down_at: Vec<String>,
    /// Sections from which it posts the opposite of its verdicts.
    pub lie_at: Vec<String>,
    /// It exits with status 1 after its work.
    pub exit_with_failure: bool,
    /// What its records for the report lie about: `timers`, `bytes` or `digest`.
    pub false_claim: Option<String>,
}

/// A party's process (`db-sm-rsm party --role mixer --id K ...` or `--role verifier`): joins
/// the run, does its parties' work, posts its timers; with `hold` (`--hold-at`) it may hold at
/// a section's start until it is killed. Its exit status: 0 when its part ran to
/// the end, [`process::STOPPED_BY_ANOTHER`] when the run stopped because of another party, 1
/// when it failed itself.
pub fn run_party(
    cfg: &Config,
    mixer: Option<usize>,
    faults: &PartyFaults,
    deadline: Deadline,
    journal: Option<Journal>,
    hold: Option<HoldAt>,
) -> i32 {
    let name = mixer.map_or_else(|| "verifier".to_string(), |k| format!("mixer {k}"));
    let joined = match process::join(&name, deadline.party()) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("db-sm-rsm {name}: cannot join the run: {e}");
            return 1;
        }
    };
    let roles = Roles {
        m: cfg.m,
        mixers: mixer.into_iter().collect(),
        verifier: mixer.is_none(),
        driver: false,
        auditor: false,
    };
    let board = joined.board.clone();
    let mut c = Ctx::networked(Report::new(cfg.m, false), roles, board.clone());
    if let Some(j) = journal {
        c = c.with_journal(j);
    }
    if let Some(h) = hold {
        c = c.hold_at(h);
    }
    set_faults(&mut c, faults, &board, mixer, cfg.m);
    let receive_bn = || -> Result<MixerKeys<ark_bn254::Bn254>> { joined.from_driver() };
    let receive_bls = || -> Result<MixerKeys<ark_bls12_381::Bls12_381>> { joined.from_driver() };
    let dealing = match (mixer, cfg.curve) {
        (None, _) => Dealing::Nothing,
        (Some(_), Curve::Bn254) => Dealing::Receive(&receive_bn),
        (Some(_), Curve::Bls12_381) => Dealing::ReceiveBls(&receive_bls),
    };
    let outcome = run(cfg, &mut c, &dealing).and_then(|_| {
        // Its timers, what its party posted and its transcript, for the driver's report.
        let mut mine = PartyRecords {
            timers: c.records(),
            posted: c.posted(),
            transcript: c
                .transcript()
                .iter()
                .map(|(t, d)| (t.clone(), *d))
                .collect(),
            resumed: c.resumed(),
        };
        if let Some(what) = &faults.false_claim {
            false_claim(&mut mine, what, &name);
        }
        // Signed with its roster key: the driver keeps them as this party's claims.
        let signed = claims::sign(&joined.identity, &name, &mine)?;
        c.publish(&records_tag(&name), &signed)
    });
    match outcome {
        Ok(()) => {
            process::done();
            board.leave(Duration::from_secs(30));
            if faults.exit_with_failure {
                eprintln!("db-sm-rsm {name}: exits with a failure after its work (a fault)");
                return 1;
            }
            0
        }
        Err(Error::Stopped { party, step, why }) if party != name => {
            // Another party failed (or fell silent): this one leaves without being blamed, so
            // that the driver, which follows every step, names the party that failed.
            eprintln!("db-sm-rsm {name}: {party} stopped the run at {step}: {why}");
            board.leave(Duration::from_secs(5));
            process::STOPPED_BY_ANOTHER
        }
        Err(e) => {
            if let Error::Checkpoint(why) = &e {
                // The driver, told so, starts the whole run afresh.
                c.refuse_checkpoint(&format!("{name}'s journal: {why}"));
            }
            eprintln!("db-sm-rsm {name}: {e}");
            1
        }
    }
}

/// Makes `records` of party `name` lie (a fault for the tests): `timers`, one of its step timers
/// passed off as another party's, 1234.5 s long; `bytes`, 10^12 bytes more posted by the
/// driver; `digest`, another digest for one of its posts.
fn false_claim(records: &mut PartyRecords, what: &str, name: &str) {
    let other = if name == "mixer 0" {
        "mixer 1"
    } else {
        "mixer 0"
    };
    match what {
        "timers" => {
            if let Some(t) = records.timers.iter().find(|t| t.party.is_some()) {
                let mut t = t.clone();
                t.party = Some(other.to_string());
                t.seconds = 1234.5;
                records.timers.insert(0, t);
            }
        }
        "bytes" => records.posted.push(Posted {
            party: "driver".into(),
            scope: "main".into(),
            bytes: 1_000_000_000_000,
            posts: 1,
        }),
        _ => {
            if let Some((_, digest)) = records.transcript.first_mut() {
                digest[0] ^= 1;
            }
        }
    }
}

/// Sets a party's own faults to fire as their sections begin: a cut link, silence, lies, a
/// request to shut the board down, a verdict forged under another party's tag.
fn set_faults(
    c: &mut Ctx,
    faults: &PartyFaults,
    board: &Arc<BoardClient>,
    mixer: Option<usize>,
    m: usize,
) {
    for section in &faults.cut_at {
        let b = Arc::clone(board);
        c.on_section(section, Box::new(move || b.cut()));
    }
    for section in &faults.silent_at {
        // Works and posts no more, its link open: only deadlines can tell.
        c.on_section(
            section,
            Box::new(|| loop {
                std::thread::sleep(Duration::from_secs(3600))
            }),
        );
    }
    for section in &faults.lie_at {
        let lies = c.liar();
        c.on_section(
            section,
            Box::new(move || lies.store(true, Ordering::SeqCst)),
        );
    }
    for section in &faults.shut_down_at {
        let b = Arc::clone(board);
        c.on_section(section, Box::new(move || b.shut_down_board()));
    }
    for section in &faults.forge_at {
        // A verdict "all passed" under another party's tag (the next mixer's, or the verifier's
        // for the last mixer and the verifier's own... mixer 0's).
        let victim = match mixer {
            Some(k) if k + 1 < m => format!("mixer {}", k + 1),
            Some(_) => "verifier".to_string(),
            None => "mixer 0".to_string(),
        };
        let tag = format!("forged/{section}/verdict/{victim}");
        let b = Arc::clone(board);
        c.on_section(
            section,
            Box::new(move || {
                let _ = b.post(&tag, &crate::primitives::wire::encode(&true));
            }),
        );
    }
}
