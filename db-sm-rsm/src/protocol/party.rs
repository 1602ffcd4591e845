//! A party's process of a `tls` run (`db-sm-rsm party --role mixer --id K ...` or `--role
//! verifier`), started by the driver ([`super::distributed`]): it joins the run, does its
//! party's work (journaled in its own journal when the run keeps a checkpoint), posts its
//! timers, its posts and its transcript for the driver's report, and leaves. Its own faults
//! (for the tests) fire as their sections begin.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::measurement::report::{Report, TimerRecord};
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
}

/// What a party's process posts at its end for the driver's report: its timers, what its
/// party posted, its transcript, and what it read back from its journal (resumed runs).
#[derive(Clone, Debug)]
pub struct PartyRecords {
    /// Its timers.
    pub timers: Vec<TimerRecord>,
    /// Its party's posts, by scope.
    pub posted: Vec<Posted>,
    /// Every value its party made public: tag and digest.
    pub transcript: Vec<(String, [u8; 32])>,
    /// Records of an earlier attempt's journal read back, and found (None: it did every step).
    pub resumed: Option<(u64, u64)>,
}

crate::wire_struct!(impl PartyRecords { wire timers, wire posted, wire transcript, wire resumed });

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
        let mine = PartyRecords {
            timers: c.records(),
            posted: c.posted(),
            transcript: c
                .transcript()
                .iter()
                .map(|(t, d)| (t.clone(), *d))
                .collect(),
            resumed: c.resumed(),
        };
        c.publish(&records_tag(&name), &mine)
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
            eprintln!("db-sm-rsm {name}: {e}");
            1
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
