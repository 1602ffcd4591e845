//! A run with `--transport tls`: the driver (the dealer and the senders) creates the run's
//! network (crate `netem`, `--network`), starts the bulletin board, every mix-server and the
//! verifier as processes of their own in it ([`crate::transport::process`]), runs its own
//! parties, and at the end reads every party's timers from the board into its report, which
//! then reads as a one-process run's, with the network and each process's traffic beside it. A party that fails, a party or board process that dies, or a cut
//! link stops the run: the driver kills every process it started, waits for them, and the report
//! says FAILED, naming the party and the step.
//!
//! Every wait has a deadline ([`Deadline`]): `--timeout SECONDS`, or by default a generous
//! multiple of the longest step expected from n, m, the mode and this machine's speed
//! ([`Deadline::derive`]), printed at the start.
//!
//! Faults for the tests (`--fault KIND:<party>@<section>`, the party `mixer-K`, `verifier` or
//! `board`), each injected when the process concerned enters the section:
//!
//! | kind | what happens |
//! | --- | --- |
//! | `kill` | the driver kills the party's process (or the board's) |
//! | `stop` | the driver stops the party's process with SIGSTOP (or the board's) |
//! | `partition` | the driver drops every packet of the party inside its namespace (emulated networks) |
//! | `cut` | the party cuts its own link to the board |
//! | `silent` | the party stops working and posting, its link kept open |
//! | `forge` | the party posts a verdict under another party's tag |
//! | `lie` | the party posts the opposite of every verdict it reaches from then on |
//! | `shutdown` | the party asks the board to shut down |
//! | `exit` (section `end`) | the party does all its work, then exits with status 1 |
//! | `claim` (section `timers`, `bytes` or `digest`) | the party's records for the report lie: another party's step timers, 10^12 bytes more posted by the driver, or a changed digest of one of its posts |

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use netem::{Network, Profile};
use serde_json::{json, Value};

use crate::measurement::report::{NetStats, Report, TimerRecord};
use crate::protocol::audit::{self, Audit};
use crate::protocol::claims::{self, Claimed, SignedRecords};
use crate::protocol::config::Config;
use crate::protocol::run::{run, RunInfo};
use crate::protocol::setup::Dealing;
use crate::storage::{Checkpoint, Journal};
use crate::transport::board::BOARD;
use crate::transport::placement::Placement;
use crate::transport::process::{self, BoardSettings, Processes};
use crate::transport::roster::DRIVER;
pub use crate::transport::roster::{party_names, records_tag};
use crate::transport::{Ctx, HoldAt, Posted, Resumed, Roles};
use crate::{Error, Result};

/// What a fault does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The driver kills the party's process.
    Kill,
    /// The driver stops the party's process (SIGSTOP).
    Stop,
    /// The driver drops every packet of the party in its namespace.
    Partition,
    /// The party cuts its own link to the board.
    Cut,
    /// The party stops working and posting, its link open.
    Silent,
    /// The party posts a verdict under another party's tag.
    Forge,
    /// The party posts the opposite of every verdict it reaches.
    Lie,
    /// The party asks the board to shut down.
    ShutDown,
    /// The party exits with status 1 after its work.
    Exit,
    /// The party's records for the driver's report lie (the section names what).
    Claim,
}

impl FaultKind {
    const NAMES: [(&'static str, FaultKind); 10] = [
        ("kill", FaultKind::Kill),
        ("stop", FaultKind::Stop),
        ("partition", FaultKind::Partition),
        ("cut", FaultKind::Cut),
        ("silent", FaultKind::Silent),
        ("forge", FaultKind::Forge),
        ("lie", FaultKind::Lie),
        ("shutdown", FaultKind::ShutDown),
        ("exit", FaultKind::Exit),
        ("claim", FaultKind::Claim),
    ];

    /// True for the faults the driver injects (into another process).
    pub fn by_driver(self) -> bool {
        matches!(
            self,
            FaultKind::Kill | FaultKind::Stop | FaultKind::Partition
        )
    }

    /// The option of `db-sm-rsm party` that injects a fault of the party's own.
    fn party_option(self) -> Option<&'static str> {
        match self {
            FaultKind::Cut => Some("--cut-at"),
            FaultKind::Silent => Some("--silent-at"),
            FaultKind::Forge => Some("--forge-at"),
            FaultKind::Lie => Some("--lie-at"),
            FaultKind::ShutDown => Some("--shut-down-at"),
            FaultKind::Exit => Some("--exit-with-failure"),
            FaultKind::Claim => Some("--false-claim"),
            _ => None,
        }
    }
}

/// How long every wait of a `tls` run may last: a fetch, the dealer's hand-over of a mixer's
/// keys. A party's process waits half as long again, so that the driver, which follows every
/// step, is first to give up and names the party it waited for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Deadline(pub Duration);

/// The least default deadline, whatever the run's size.
const MIN_DEADLINE: Duration = Duration::from_secs(60);
/// The default deadline is this many times the longest step expected.
const DEADLINE_MARGIN: f64 = 5.0;

impl Deadline {
    /// The driver's deadline.
    pub fn driver(self) -> Duration {
        self.0
    }

    /// A party process's deadline: 1.5 times the driver's.
    pub fn party(self) -> Duration {
        self.0 * 3 / 2
    }

    /// The default deadline of a run: [`DEADLINE_MARGIN`] times (at least [`MIN_DEADLINE`])
    /// the longest step expected, with `xn2_s` the seconds of one 4099-bit exponentiation
    /// modulo N² on this machine (the speed probe's `XN2(4099)`). The longest single wait of a
    /// run is for one step of one party over all n entries (the senders' inputs, a mixer's
    /// shuffle turn with its proofs), which costs less than 2 + m such exponentiations per entry
    /// in fast mode, five times that in paper mode; the first waits also cover the generation
    /// of the keys. Returns the deadline and the sentence that explains it.
    pub fn derive(cfg: &Config, xn2_s: f64) -> (Deadline, String) {
        let mode = match cfg.mode {
            crate::protocol::config::Mode::Fast => 1.0,
            crate::protocol::config::Mode::Paper => 5.0,
        };
        let keys = if cfg.test_keys {
            0.0
        } else {
            10.0 + 5.0 * cfg.m as f64
        };
        let step = xn2_s * cfg.n as f64 * (2.0 + cfg.m as f64) * mode + keys;
        let d = (DEADLINE_MARGIN * step)
            .max(MIN_DEADLINE.as_secs_f64())
            .ceil();
        let why = format!(
            "{DEADLINE_MARGIN}x the longest step expected ({step:.1} s at n = {}, m = {}, {} mode, \
             one XN2(4099) in {:.1} ms here{}), at least {} s",
            cfg.n,
            cfg.m,
            cfg.mode.name(),
            xn2_s * 1e3,
            if keys > 0.0 { ", keys generated" } else { "" },
            MIN_DEADLINE.as_secs()
        );
        (Deadline(Duration::from_secs_f64(d)), why)
    }
}

/// What a party's records may lie about (`--fault claim:<party>@WHAT`).
pub const CLAIMS: [&str; 3] = ["timers", "bytes", "digest"];

/// A fault injected into a `tls` run (for the tests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Kill or cut.
    pub kind: FaultKind,
    /// `mixer k`, `verifier` or `bulletin board`.
    pub party: String,
    /// The section at whose start it happens.
    pub section: String,
}

impl std::str::FromStr for Fault {
    type Err = Error;

    /// `kill:mixer-1@mixing`, `kill:board@get_blsigs`, `cut:verifier@get_verfsigs`,
    /// `exit:mixer-0@end`.
    fn from_str(s: &str) -> Result<Fault> {
        let kinds: Vec<&str> = FaultKind::NAMES.iter().map(|(n, _)| *n).collect();
        let bad = || {
            Error::Parse(format!(
                "--fault {s:?}: expected KIND:<party>@<section>, KIND one of {}, the party \
                 mixer-K, verifier or board (kill and stop only), the section `end` for exit, \
                 {} for claim",
                kinds.join(", "),
                CLAIMS.join(", ")
            ))
        };
        let (kind, rest) = s.split_once(':').ok_or_else(bad)?;
        let (party, section) = rest.split_once('@').ok_or_else(bad)?;
        let kind = FaultKind::NAMES
            .iter()
            .find(|(n, _)| *n == kind)
            .map(|(_, k)| *k)
            .ok_or_else(bad)?;
        if (kind == FaultKind::Exit) != (section == "end") {
            return Err(bad());
        }
        if (kind == FaultKind::Claim) != CLAIMS.contains(&section) {
            return Err(bad());
        }
        let party = match party {
            "verifier" => "verifier".to_string(),
            "board" if matches!(kind, FaultKind::Kill | FaultKind::Stop) => BOARD.to_string(),
            p => {
                let k: usize = p
                    .strip_prefix("mixer-")
                    .and_then(|k| k.parse().ok())
                    .ok_or_else(bad)?;
                format!("mixer {k}")
            }
        };
        if section.is_empty() {
            return Err(bad());
        }
        Ok(Fault {
            kind,
            party,
            section: section.to_string(),
        })
    }
}

/// The command line of a party's process, after the executable.
pub fn party_args(
    cfg: &Config,
    threads: u64,
    name: &str,
    faults: &[Fault],
    deadline: Deadline,
) -> Vec<String> {
    let mut a: Vec<String> = vec!["party".into()];
    match name.strip_prefix("mixer ") {
        Some(k) => a.extend(["--role".into(), "mixer".into(), "--id".into(), k.into()]),
        None => a.extend(["--role".into(), "verifier".into()]),
    }
    let s = |x: &str| x.to_string();
    a.extend([
        s("--n"),
        cfg.n.to_string(),
        s("--m"),
        cfg.m.to_string(),
        s("--curve"),
        s(cfg.curve.name()),
        s("--mode"),
        s(cfg.mode.name()),
        s("--security"),
        s(cfg.security.name()),
        s("--threads"),
        threads.to_string(),
        s("--timeout"),
        deadline.0.as_secs_f64().to_string(),
    ]);
    if let Some(seed) = &cfg.seed {
        a.extend([s("--seed"), seed.hex()]);
    }
    if let Some(t) = cfg.tamper {
        a.extend([s("--tamper"), s(t.name())]);
    }
    for f in faults.iter().filter(|f| f.party == name) {
        match (f.kind.party_option(), f.kind) {
            (Some(opt), FaultKind::Exit) => a.push(s(opt)),
            (Some(opt), _) => a.extend([s(opt), f.section.clone()]),
            (None, _) => {}
        }
    }
    a
}

/// One process's name and timers.
pub type ProcessRecords = (String, Vec<TimerRecord>);

/// What a `tls` run adds to the report: the network, and each process's time, CPU and
/// traffic per section.
#[derive(Clone, Debug)]
pub struct NetworkFigures {
    /// The network as the report describes it (profile, placement, delay line).
    pub network: Value,
    /// Every process's timers: the driver's, then each party's.
    pub records: Vec<ProcessRecords>,
    /// The driver's link: bytes on the socket, TLS included.
    pub driver_socket: (u64, u64),
    /// Bytes of the posts the driver received, by author (every post but its own).
    pub posted_by: Vec<(String, u64)>,
    /// The round trip between two parties, in seconds (0 on the host's loopback).
    pub rtt_s: f64,
    /// The audit of the board's record once the run was over ([`audit::verify`]).
    pub audit: Option<Audit>,
    /// What every party posted, by scope, as the board's record shows it.
    pub posted: Vec<Posted>,
    /// The run's transcript: every public value on the board's record, by tag.
    pub transcript_sha256: [u8; 32],
    /// What every process said it posted, which the board's record must bear out.
    pub claimed: Vec<Claimed>,
    /// Each process that resumed from its journal, and what it made of it.
    pub resumed: Vec<(String, Resumed)>,
}

impl NetworkFigures {
    /// The body's `network` block.
    pub fn to_json(&self) -> Value {
        let by: serde_json::Map<String, Value> = self
            .posted_by
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        let t0 = self
            .records
            .iter()
            .flat_map(|(_, r)| r.iter().map(|r| r.start_unix_s))
            .fold(f64::INFINITY, f64::min);
        let mut block = self.network.clone();
        block["parties"] = self
            .records
            .iter()
            .flat_map(|(party, r)| rows_of(party, r, t0))
            .collect();
        block["summary"] = self.records.iter().map(|(p, r)| summary_of(p, r)).collect();
        block["sections"] = sections_of(&self.records, self.rtt_s).into();
        block["driver_link"] = json!({"bytes_sent": self.driver_socket.0,
                                      "bytes_received": self.driver_socket.1});
        block["post_bytes_by_author"] = by.into();
        block
    }
}

/// One row per section of a process (and per step of its own that moved messages): its wall
/// time, CPU time, traffic, and when it began (seconds after the run's first timer).
fn rows_of(party: &str, records: &[TimerRecord], t0: f64) -> Vec<Value> {
    records
        .iter()
        .filter(|r| r.section || r.net.posts + r.net.reads > 0)
        .map(|r| {
            json!({
                "party": party,
                "path": r.path,
                "label": r.name,
                "start_s": r.start_unix_s - t0,
                "wall_s": r.seconds,
                "cpu_s": r.cpu_seconds,
                "net": r.net.to_json(),
            })
        })
        .collect()
}

/// A process's whole run: its `main` timer's wall and CPU time, and its traffic in all.
fn summary_of(party: &str, records: &[TimerRecord]) -> Value {
    let main = records
        .iter()
        .find(|r| r.path.is_empty() && r.name == "main");
    let mut net = NetStats::default();
    for r in records {
        net.add(&r.net);
    }
    json!({
        "party": party,
        "wall_s": main.map_or(0.0, |r| r.seconds),
        "cpu_s": main.map_or(0.0, |r| r.cpu_seconds),
        "net": net.to_json(),
    })
}

/// The sections below `main` as the whole run saw them: from the first process entering one to
/// the last leaving it, the deepest chain of posts read inside it, and the least time that
/// chain takes on the network (its hops times the round trip).
fn sections_of(records: &[ProcessRecords], rtt_s: f64) -> Vec<Value> {
    let top = |r: &TimerRecord| r.section && r.path.len() == 1 && r.path[0] == "main";
    let names: Vec<&str> = records
        .first()
        .map(|(_, r)| {
            r.iter()
                .filter(|r| top(r))
                .map(|r| r.name.as_str())
                .collect()
        })
        .unwrap_or_default();
    names
        .into_iter()
        .map(|name| {
            let (mut first, mut last, mut hops) = (f64::INFINITY, 0.0f64, 0u64);
            let mut walls = serde_json::Map::new();
            for (party, rs) in records {
                for r in rs
                    .iter()
                    .filter(|r| r.path.get(1).map(String::as_str) == Some(name))
                {
                    hops = hops.max(r.net.hops);
                }
                if let Some(r) = rs.iter().find(|r| top(r) && r.name == name) {
                    first = first.min(r.start_unix_s);
                    last = last.max(r.start_unix_s + r.seconds);
                    hops = hops.max(r.net.hops);
                    walls.insert(party.clone(), json!(r.seconds));
                }
            }
            json!({
                "section": name,
                "wall_s": (last - first).max(0.0),
                "hops": hops,
                "network_floor_s": hops as f64 * rtt_s,
                "party_wall_s": walls,
            })
        })
        .collect()
}

/// The emulated network (or SLURM's placement of the parties), as the report describes it.
fn network_json(net: &Network, placed: &Placement) -> Value {
    if let Some(sentence) = placed.sentence() {
        return netem::network_json(net, &sentence);
    }
    let placement = if net.is_emulated() {
        "the board, each mix-server, the verifier and the driver in a network namespace of \
             its own, each linked to one emulated switch (netem): the profile's rate on every \
             link in each direction, half its round trip added each way; every post crosses the \
             network to the board and from it"
    } else {
        "every process on the host's loopback, each on an address of its own"
    };
    netem::network_json(net, placement)
}

/// The run's parameters as the board's record keeps them in its header: what an auditor needs to
/// re-run every check ([`crate::protocol::audit`]).
pub fn record_parameters(cfg: &Config, deadline: Deadline) -> Value {
    json!({
        "n": cfg.n, "m": cfg.m, "curve": cfg.curve.name(), "mode": cfg.mode.name(),
        "security": cfg.security.name(), "seed": cfg.seed.map(|s| s.hex()),
        "tamper": cfg.tamper.map(|t| t.name()), "test_keys": cfg.test_keys,
        "timeout_s": deadline.0.as_secs_f64(),
    })
}

/// How the processes of a `tls` run are set up: their threads, faults, network and deadline,
/// where the board's record goes, and the run's checkpoint, if it keeps one.
pub struct TlsRun<'a> {
    /// Worker threads of each process.
    pub threads: u64,
    /// Faults the tests inject.
    pub faults: &'a [Fault],
    /// The network between the processes.
    pub network: &'a Profile,
    /// The deadline of every wait.
    pub deadline: Deadline,
    /// The board's record.
    pub record: PathBuf,
    /// The record is a temporary file, removed after the run.
    pub temporary_record: bool,
    /// Where every process keeps its journal and store, to resume from after a kill.
    pub checkpoint: Option<Checkpoint>,
    /// `--hold-at` (a test option): every process of a fresh run holds at the section's start.
    pub hold: Option<HoldAt>,
    /// Where the parties' processes start: on this host, or on the nodes of a SLURM job.
    pub placement: Placement,
}

fn driver_stopped(step: &str, why: String) -> Error {
    Error::Stopped {
        party: DRIVER.into(),
        step: step.into(),
        why,
    }
}

/// The driver's side of a `tls` run: creates the network, starts the processes, runs the
/// dealer and the senders (journaled in `journal`, if the run keeps a checkpoint), and fills its
/// report with every party's timers. The report is returned whatever happened; the network and
/// every process are gone when it returns.
pub fn run_driver(
    cfg: &Config,
    tls: &TlsRun<'_>,
    journal: Option<Journal>,
) -> (Report, Result<(RunInfo, NetworkFigures)>) {
    let out = run_processes(cfg, tls, journal);
    settle_record(&tls.record, tls.temporary_record);
    out
}

/// [`run_driver`] but for its record's settling.
fn run_processes(
    cfg: &Config,
    tls: &TlsRun<'_>,
    journal: Option<Journal>,
) -> (Report, Result<(RunInfo, NetworkFigures)>) {
    let names = party_names(cfg.m);
    let mut report = Report::new(cfg.m, true);
    let net = match Network::create(tls.network, process::slots(names.len())) {
        Ok(n) => n,
        Err(e) => {
            return (
                report,
                Err(driver_stopped("making the network", e.to_string())),
            )
        }
    };
    // The delay line is a thread of this process: its CPU time is not the driver's.
    if let Some(meter) = net.delay_meter() {
        report.exclude_cpu(Arc::new(move || meter.cpu().as_secs_f64()));
    }
    let procs = match launch(cfg, tls, &names, &net, journal.as_ref()) {
        Ok(p) => p,
        Err(e) => return (report, Err(on_host(e, &tls.placement))),
    };
    let hosts = procs.hosts_json();
    let roles = Roles {
        m: cfg.m,
        mixers: Vec::new(),
        verifier: false,
        driver: true,
        auditor: false,
    };
    let mut c = Ctx::networked(report, roles, procs.board());
    if let Some(j) = journal {
        c = c.with_journal(j);
    }
    if let Some(h) = &tls.hold {
        c = c.hold_at(h.clone());
    }
    if let Err(e) = inject_faults(&mut c, tls.faults, &procs, &net, &names) {
        procs.abort();
        return (c.into_report(), Err(e));
    }
    let result = drive(cfg, &mut c, &procs, &names, tls.deadline)
        .map(|gathered| figures(&c, gathered, tls.network));
    let result = match result {
        Ok(r) => match procs.finish(Duration::from_secs(10)) {
            Ok(()) => Ok(r),
            Err(f) => Err(Error::Stopped {
                party: f.party,
                step: "the end of the run".into(),
                why: f.why,
            }),
        },
        Err(e) => {
            procs.abort();
            Err(on_host(e, &tls.placement))
        }
    };
    // Described once every process has ended: the delay line's figures are final.
    let mut network = network_json(&net, &tls.placement);
    if let Some(hosts) = hosts {
        network["hosts"] = hosts;
    }
    drop(net);
    let result = result.and_then(|(info, mut figures)| {
        figures.network = network;
        // Bytes posted and the transcript: the board's record's, once every process's word on
        // them was checked against it.
        let ledger = claims::settled(&tls.record, &figures.claimed)?;
        figures.transcript_sha256 = ledger.transcript_sha256();
        figures.posted = ledger.posted;
        figures.audit = Some(audit_record(&tls.record)?);
        Ok((info, figures))
    });
    (c.into_report(), result)
}

/// Starts the board and every party in the run's network, each party told the run's
/// checkpoint, and the run and attempt of the driver's journal `journal`.
fn launch(
    cfg: &Config,
    tls: &TlsRun<'_>,
    names: &[String],
    net: &Network,
    journal: Option<&Journal>,
) -> Result<Processes> {
    let args_of = |name: &str| {
        let mut a = party_args(cfg, tls.threads, name, tls.faults, tls.deadline);
        if let (Some(cp), Some(j)) = (&tls.checkpoint, journal) {
            a.extend(cp.party_args(j));
        }
        // Every process of a fresh run holds, so that none waits out its deadline meanwhile.
        if let Some(h) = tls.hold.as_ref().filter(|h| h.holds) {
            a.extend(["--hold-at".to_string(), h.section.clone()]);
        }
        a
    };
    let settings = BoardSettings {
        record: tls.record.clone(),
        deadline: tls.deadline.driver(),
        parameters: record_parameters(cfg, tls.deadline).to_string(),
        placement: tls.placement.clone(),
        attempt: journal.map_or(1, Journal::attempt),
    };
    if tls.placement.by_srun() {
        eprintln!("db-sm-rsm: {}", tls.placement.describe(names));
    }
    Processes::launch(names, args_of, net, &settings)
        .map_err(|e| driver_stopped("starting the parties", e.to_string()))
}

/// A run stopped by a party placed on a node of its own says which node: a lost node then
/// reads as one.
fn on_host(e: Error, placed: &Placement) -> Error {
    match e {
        Error::Stopped { party, step, why } if placed.by_srun() => {
            let why = match placed.node_of(&party) {
                Some(node) => format!("{why} ({party} ran on {node})"),
                None => why,
            };
            Error::Stopped { party, step, why }
        }
        other => other,
    }
}

/// Sets the faults the driver injects (kill, stop, partition) to fire as their sections begin.
fn inject_faults(
    c: &mut Ctx,
    faults: &[Fault],
    procs: &Processes,
    net: &Network,
    names: &[String],
) -> Result<()> {
    for f in faults.iter().filter(|f| f.kind.by_driver()) {
        let hook = match f.kind {
            FaultKind::Kill => procs.killer(&f.party),
            FaultKind::Stop => procs.stopper(&f.party),
            _ => {
                let slot = names
                    .iter()
                    .position(|n| *n == f.party)
                    .unwrap_or(names.len());
                let p = net
                    .partition(slot)
                    .map_err(|e| Error::Input(format!("--fault {:?}: {e}", f.section)))?;
                Box::new(move || {
                    if let Err(e) = p.apply() {
                        eprintln!("db-sm-rsm: the partition fault failed: {e}");
                    }
                })
            }
        };
        c.on_section(&f.section, hook);
    }
    Ok(())
}

/// The figures of a run the driver saw through: every process's timers and posts, the driver's
/// link, the run's transcript and which processes resumed (the network and the audit come
/// once every process has ended).
fn figures(c: &Ctx, g: Gathered, profile: &Profile) -> (RunInfo, NetworkFigures) {
    let board = c.board().expect("a networked run").clone();
    let mut posted_by: Vec<(String, u64)> = board.received_by().into_iter().collect();
    posted_by.sort();
    let figures = NetworkFigures {
        network: Value::Null,
        records: g.records,
        driver_socket: board.counts(),
        posted_by,
        rtt_s: profile.link.map_or(0.0, |l| l.rtt.as_secs_f64()),
        audit: None,
        posted: Vec::new(),
        transcript_sha256: [0; 32],
        claimed: g.claimed,
        resumed: g.resumed,
    };
    (g.info, figures)
}

/// After a `tls` run: a temporary record is removed; a record the board could not close (the
/// run stopped) keeps its partial file under the final name, for `verify-board` to say where it
/// ends.
fn settle_record(record: &Path, temporary: bool) {
    let partial = crate::transport::record::partial_path(record);
    if temporary {
        let _ = std::fs::remove_file(record);
        let _ = std::fs::remove_file(&partial);
    } else if partial.exists() {
        let _ = std::fs::rename(&partial, record);
    }
}

/// The audit of a finished run's record, in this process once every other has ended (so its CPU
/// time is its own): universal verifiability, measured.
fn audit_record(record: &Path) -> Result<Audit> {
    eprintln!(
        "db-sm-rsm: auditing the board's record {} ...",
        record.display()
    );
    let a = audit::verify(record).map_err(|e| Error::Stopped {
        party: BOARD.into(),
        step: "auditing the board's record".into(),
        why: e.to_string(),
    })?;
    eprintln!(
        "db-sm-rsm: audit {}: {} checks re-run on the record's {} entries ({} taken from the \
         verdicts: secret data), statuses {} the run's; {:.2} s CPU, {:.4} s per entry",
        if a.passed() { "passed" } else { "FAILED" },
        a.checks.len() - a.taken().len(),
        a.entries,
        a.taken().len(),
        if a.equals_the_run() {
            "equal to"
        } else {
            "DIFFERENT from"
        },
        a.cpu_s,
        a.cpu_s / a.n.max(1) as f64
    );
    for line in audit::summary(&a)
        .iter()
        .filter(|l| l.starts_with("DISAGREES"))
    {
        eprintln!("db-sm-rsm: audit: {line}");
    }
    Ok(a)
}

/// What the driver gathers from a run: the outcome, every process's timers (the driver's
/// first), what every process said it posted (checked against the board's record at the end),
/// and each process that resumed with its records read back and found.
struct Gathered {
    info: RunInfo,
    records: Vec<ProcessRecords>,
    claimed: Vec<Claimed>,
    resumed: Vec<(String, Resumed)>,
}

/// The run as the driver does it: the protocol (the dealer's keys handed to each mixer through
/// its pipe), then every party's timers, posts and transcript read from the board into the
/// report.
fn drive(
    cfg: &Config,
    c: &mut Ctx,
    procs: &Processes,
    names: &[String],
    deadline: Deadline,
) -> Result<Gathered> {
    let deliver = |k: usize, bytes: &[u8]| -> Result<()> {
        procs
            .deliver(&format!("mixer {k}"), bytes, deadline.driver())
            .map_err(|f| Error::Stopped {
                party: f.party,
                step: "main > preprocessing".into(),
                why: f.why,
            })
    };
    let info = run(cfg, c, &Dealing::Deliver(&deliver))?;
    let own: Vec<(String, [u8; 32])> = c
        .transcript()
        .iter()
        .map(|(t, d)| (t.clone(), *d))
        .collect();
    let mut g = Gathered {
        info,
        records: vec![(DRIVER.to_string(), c.records())],
        claimed: vec![(DRIVER.to_string(), c.posted(), own)],
        resumed: c
            .resumed()
            .map(|r| (DRIVER.to_string(), r))
            .into_iter()
            .collect(),
    };
    for name in names {
        let signed: SignedRecords = c.fetch(&records_tag(name)).map_err(|e| match e {
            Error::Stopped { party, why, .. } => Error::Stopped {
                party,
                step: "collecting the parties' timers".into(),
                why,
            },
            other => other,
        })?;
        // A party's timers are its signed claims, of its own steps only.
        let theirs = claims::open(procs.certificate(name).as_ref(), name, &signed)?;
        claims::check_timers(name, &theirs.timers)?;
        c.fill(&theirs.timers, name);
        g.records.push((name.clone(), theirs.timers));
        g.claimed
            .push((name.clone(), theirs.posted, theirs.transcript));
        if let Some(r) = theirs.resumed {
            g.resumed.push((name.clone(), r));
        }
    }
    let unfilled = c.unfilled();
    if !unfilled.is_empty() {
        return Err(driver_stopped(
            "collecting the parties' timers",
            format!("no figures for {}", unfilled.join("; ")),
        ));
    }
    // The run's statuses go on the record last, for an auditor to compare its own with.
    let statuses = c.statuses().to_vec();
    c.publish(&records_tag(DRIVER), &statuses)?;
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_and_bad_ones_are_refused() {
        let f: Fault = "kill:mixer-1@mixing".parse().unwrap();
        assert_eq!(
            (f.kind, f.party.as_str(), f.section.as_str()),
            (FaultKind::Kill, "mixer 1", "mixing")
        );
        let f: Fault = "kill:board@get_blsigs".parse().unwrap();
        assert_eq!(f.party, BOARD);
        let f: Fault = "cut:verifier@get_verfsigs".parse().unwrap();
        assert_eq!(f.kind, FaultKind::Cut);
        let f: Fault = "stop:board@mixing".parse().unwrap();
        assert_eq!((f.kind, f.party.as_str()), (FaultKind::Stop, BOARD));
        let f: Fault = "exit:mixer-0@end".parse().unwrap();
        assert_eq!(f.kind, FaultKind::Exit);
        for ok in [
            "partition:mixer-1@x",
            "silent:verifier@x",
            "forge:mixer-0@x",
            "claim:mixer-0@digest",
        ] {
            assert!(ok.parse::<Fault>().is_ok(), "{ok}");
        }
        for bad in [
            "kill:mixer@x",
            "cut:board@x",
            "forge:board@x",
            "drop:mixer-1@x",
            "kill:mixer-1",
            "kill:mixer-1@",
            "exit:mixer-0@mixing",
            "kill:mixer-0@end",
            "claim:mixer-0@mixing",
            "kill:mixer-0@bytes",
        ] {
            assert!(bad.parse::<Fault>().is_err(), "{bad}");
        }
    }

    #[test]
    fn party_faults_reach_the_party_command_line() {
        let cfg = Config {
            n: 3,
            m: 2,
            curve: crate::protocol::config::Curve::Bn254,
            mode: crate::protocol::config::Mode::Fast,
            security: crate::primitives::security::SecurityLevel::Bits128,
            seed: None,
            tamper: None,
            test_keys: true,
            key_cache: None,
            secret_seed: None,
        };
        let faults: Vec<Fault> = ["cut:mixer-1@a", "exit:mixer-1@end", "kill:mixer-1@b"]
            .iter()
            .map(|f| f.parse().unwrap())
            .collect();
        let d = Deadline(Duration::from_secs(7));
        let a = party_args(&cfg, 1, "mixer 1", &faults, d).join(" ");
        assert!(
            a.contains("--cut-at a") && a.contains("--exit-with-failure"),
            "{a}"
        );
        assert!(a.contains("--timeout 7"), "{a}");
        // The kill is the driver's: its section reaches no party.
        assert!(!party_args(&cfg, 1, "mixer 1", &faults, d).contains(&"b".to_string()));
        let a = party_args(&cfg, 1, "mixer 0", &faults, d).join(" ");
        assert!(!a.contains("--cut-at"), "{a}");
        assert_eq!(d.party(), Duration::from_millis(10_500));
        // The default deadline grows with n and m and never falls below a minute.
        let small = Deadline::derive(&cfg, 0.02).0;
        assert_eq!(small.0, MIN_DEADLINE);
        let big = Deadline::derive(
            &Config {
                n: 10_000,
                m: 4,
                ..cfg.clone()
            },
            0.02,
        )
        .0;
        assert!(big.0 > Duration::from_secs(1000), "{:?}", big.0);
    }
}
