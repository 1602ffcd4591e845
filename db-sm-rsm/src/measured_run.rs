//! `db-sm-rsm N M ...`: one measured run, from the command line checked before any work to the
//! report: the run's configuration, faults, placement and calibration refused in one line if
//! bad ([`checked`]), the deadline of a `tls` run's waits, the checkpoint resumed from (or
//! refused, and the run started afresh once: [`attempts`]), and the outcome the suite's envelope
//! wraps: the text report on stdout, and the JSON body with the keys, posts, network figures and
//! the audit of the board's record ([`outcome`]).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use db_sm_rsm::measurement::cost::{self, Calibration};
use db_sm_rsm::measurement::probe;
use db_sm_rsm::measurement::report::Report;
use db_sm_rsm::protocol::config::Config;
use db_sm_rsm::protocol::distributed::{self, Deadline, Fault, NetworkFigures, TlsRun};
use db_sm_rsm::protocol::hold;
use db_sm_rsm::protocol::resume;
use db_sm_rsm::protocol::run::{run, RunInfo};
use db_sm_rsm::protocol::setup::Dealing;
use db_sm_rsm::protocol::sizes;
use db_sm_rsm::storage::checkpoint::DRIVER;
use db_sm_rsm::storage::{Checkpoint, Journal};
use db_sm_rsm::transport::placement::Placement;
use db_sm_rsm::transport::{Ctx, HoldAt, Posted, Resumed};
use db_sm_rsm::{Error, Result};
use measure::envelope::{Envelope, Inputs, Outcome};
use serde_json::{json, Value};

use crate::{config, thread_pool, Cli, Transport, TOOL};

/// The version of the body's schema (docs/report.schema.json).
const BODY_VERSION: u32 = 4;

/// `db-sm-rsm N M ...`: the run the command line `cli` asks for, checked before any work, its
/// report written (with `--out`) and its checkpoint removed once the run has ended.
pub(crate) fn main(cli: Cli) -> ExitCode {
    let (mut cfg, faults, calibration, placement) = match checked(&cli) {
        Ok(x) => x,
        Err(e) => return measure::cli::refuse(TOOL, e),
    };
    let (deadline, deadline_why) = deadline_of(&cli, &cfg);
    announce(&cli, &cfg);
    let envelope = Envelope::begin(
        TOOL,
        env!("CARGO_PKG_VERSION"),
        BODY_VERSION,
        parameters(&cli, &cfg, calibration.as_ref()),
        cfg.seed.as_ref(),
    );
    if cli.transport == Transport::Tls {
        eprintln!(
            "db-sm-rsm: deadline of every wait: {} s ({deadline_why}); a party process waits {} s",
            deadline.driver().as_secs_f64(),
            deadline.party().as_secs_f64()
        );
    }
    let (checkpoint, journal, earlier) = match open_checkpoint(&cli, &mut cfg) {
        Ok(Some((cp, j, earlier))) => (Some(cp), Some(j), earlier),
        Ok(None) => (None, None, false),
        Err(e) => return measure::cli::refuse(TOOL, e),
    };
    let resuming = journal.as_ref().is_some_and(Journal::resuming);
    let hold = cli
        .hold_at
        .as_deref()
        .map(|s| hold::decide(s, resuming, earlier));
    let held_before = journal.as_ref().and_then(Journal::held_before);
    let hold_json = hold::to_json(hold.as_ref(), resuming, held_before);
    let dir = checkpoint.as_ref().map(|cp| cp.dir().to_path_buf());
    // The board's record: --board-record, or a temporary file (in the checkpoint, where a
    // killed attempt's goes with it).
    let (record, temporary_record) = match (&cli.board_record, &dir) {
        (Some(r), _) => (r.clone(), false),
        (None, Some(d)) => (d.join("board.record"), true),
        (None, None) => (
            std::env::temp_dir().join(format!("db-sm-rsm-board-{}.log", std::process::id())),
            true,
        ),
    };
    let tls = TlsRun {
        threads: cli.run.threads,
        faults: &faults,
        network: &cli.network,
        deadline,
        record,
        temporary_record,
        checkpoint,
        hold: hold.clone(),
        placement,
    };
    let finished = std::cell::Cell::new(false);
    let work = || {
        let outcome = attempts(&cli, &mut cfg, &tls, journal, (hold, hold_json));
        // A run that ended (whatever its statuses) needs its checkpoint no more; one that
        // stopped keeps it for the next attempt.
        finished.set(matches!(&outcome, Ok(o) if o.body["failure"].is_null()));
        outcome
    };
    let status = run_and_report(&cli, envelope, work);
    if let (true, Some(dir)) = (finished.get(), dir) {
        if let Err(e) = std::fs::remove_dir_all(&dir) {
            eprintln!(
                "{TOOL}: the checkpoint {} could not be removed: {e}",
                dir.display()
            );
        }
    }
    status
}

/// What the command line asked for: the envelope's `parameters`.
fn parameters(cli: &Cli, cfg: &Config, calibration: Option<&PathBuf>) -> Value {
    let path = |p: Option<&PathBuf>| p.map(|p| p.to_string_lossy().into_owned());
    json!({
        "n": cfg.n, "m": cfg.m, "curve": cfg.curve.name(), "mode": cfg.mode.name(),
        "security": cfg.security.name(), "threads": cli.run.threads,
        "tamper": cfg.tamper.map(|t| t.name()), "test_keys": cfg.test_keys,
        "key_cache": path(cfg.key_cache.as_ref()), "calibration": path(calibration),
        "transport": cli.transport.name(),
        "network": (cli.transport == Transport::Tls).then(|| cli.network.spec()),
    })
}

/// The run itself, with every party here or (`tls`) as the driver of the others' processes.
fn run_once(
    cfg: &Config,
    tls: Option<&TlsRun<'_>>,
    journal: Option<Journal>,
    hold: Option<HoldAt>,
) -> Ran {
    match tls {
        None => run_local(cfg, journal, hold),
        Some(tls) => {
            let (report, r) = distributed::run_driver(cfg, tls, journal);
            let (resumed, transcript) = match &r {
                Ok((_, net)) => (
                    resume::resumed_json(&report, &net.resumed, true),
                    json!(measure::hex::encode(&net.transcript_sha256)),
                ),
                Err(_) => (Value::Null, Value::Null),
            };
            (
                report,
                r.map(|(info, net)| (info, Ok(net))),
                resumed,
                transcript,
            )
        }
    }
}

/// The outcome for the envelope of a run that `ran` (over `tls` or not): the text report on
/// stdout. A run that stopped with an error is a failed outcome naming the party and step where
/// it stopped; a key cache found damaged is bad input.
fn outcome(cfg: &Config, tls: bool, ran: Ran, hold_json: Value) -> Result<Outcome> {
    let (report, result, resumed, transcript) = ran;
    let transport = if tls { "tls" } else { "local" };
    let mut body = json!({
        "transport": transport,
        "security": cfg.security.params().to_json(),
        "timers": report.timer_rows(),
        "statuses": report.statuses_json(),
        "sizes": report.sizes_json(),
        "fixes": db_sm_rsm::protocol::fixes::fixes(cfg.security),
        "speed_probe": probe::recorded_json(),
        "failure": null,
        "keys": null,
        "network": null,
        "resumed": resumed,
        "hold_at": hold_json,
        "transcript_sha256": transcript,
        "audit": null,
        "posted": [],
        "sizes_sent": {},
    });
    match result {
        Ok((info, net)) => Ok(finished_outcome(&report, info, net, body)),
        Err(Error::Input(e)) => Err(Error::Refused(e)),
        Err(e) => {
            let (party, step, why) = match e {
                Error::Stopped { party, step, why } => (party, step, why),
                other => {
                    let (party, step) = report.last_step().unwrap_or((None, "main".into()));
                    let party = party.map_or_else(|| "the run".to_string(), |p| p.to_string());
                    (party, step, other.to_string())
                }
            };
            eprintln!("{TOOL}: FAILED: {party} at {step}: {why}");
            body["failure"] = json!({"party": party, "step": step, "error": why});
            Ok(Outcome {
                passed: false,
                inputs: Inputs::new(),
                body,
            })
        }
    }
}

/// What a run brings back: its report, its outcome (with a `tls` run's network figures, or the
/// posts a local run counted), its `resumed` block and its transcript digest.
type Ran = (
    Report,
    Result<(RunInfo, std::result::Result<NetworkFigures, Vec<Posted>>)>,
    Value,
    Value,
);

/// A run with every party in this process, journaled in `journal` if it keeps a checkpoint.
fn run_local(cfg: &Config, journal: Option<Journal>, hold: Option<HoldAt>) -> Ran {
    let mut c = Ctx::local(Report::new(cfg.m, true));
    if let Some(j) = journal {
        c = c.with_journal(j);
    }
    if let Some(h) = hold {
        c = c.hold_at(h);
    }
    let r = run(cfg, &mut c, &Dealing::InProcess);
    let counts: Vec<(String, Resumed)> = c
        .resumed()
        .map(|r| (DRIVER.to_string(), r))
        .into_iter()
        .collect();
    let resumed = resume::resumed_json(&c, &counts, false);
    let transcript = json!(measure::hex::encode(&c.transcript_sha256()));
    let posted = c.posted();
    (
        c.into_report(),
        r.map(|info| (info, Err(posted))),
        resumed,
        transcript,
    )
}

/// The outcome of a run that went to its end: the text report on stdout, and the body's keys,
/// posts, sizes as sent, network figures and audit.
fn finished_outcome(
    report: &Report,
    info: RunInfo,
    net: std::result::Result<NetworkFigures, Vec<Posted>>,
    mut body: Value,
) -> Outcome {
    print!("{}", report.render());
    let _ = std::io::stdout().flush();
    body["keys"] = info.keys;
    let mut audited = true;
    // The posts as sent over tls, or as one process would have sent them.
    let posted = match &net {
        Ok(net) => net.posted.clone(),
        Err(posted) => posted.clone(),
    };
    body["posted"] = posted
        .iter()
        .map(|p| json!({"party": p.party, "scope": p.scope, "bytes": p.bytes, "posts": p.posts}))
        .collect();
    body["sizes_sent"] = sizes::sent_lines(&posted)
        .into_iter()
        .map(|(k, v)| (k, json!(v)))
        .collect::<serde_json::Map<String, Value>>()
        .into();
    if let Ok(net) = net {
        body["network"] = net.to_json();
        if let Some(a) = &net.audit {
            body["audit"] = a.to_json();
            // A run whose record does not re-check is not verified, whatever its report.
            audited = a.equals_the_run() && a.disagreements().is_empty();
        }
    }
    for (name, ok) in report.statuses() {
        if !ok {
            eprintln!("{name}: False");
        }
    }
    resume::tell(&body["resumed"]);
    Outcome {
        passed: report.all_ok() && audited,
        inputs: info.inputs,
        body,
    }
}

/// The command line checked before any work: the run's configuration and faults, every option
/// that needs `--transport tls` or an emulated network, the network's rights, where the parties
/// start, the thread pool and the calibration. A refusal is one line.
fn checked(cli: &Cli) -> Result<(Config, Vec<Fault>, Option<PathBuf>, Placement)> {
    let key_cache = cli
        .key_cache
        .clone()
        .or_else(|| std::env::var_os("DBSM_KEY_CACHE").map(PathBuf::from));
    let cfg = config(&cli.run, key_cache).map_err(Error::Refused)?;
    let faults: Vec<Fault> = cli
        .fault
        .iter()
        .map(|f| f.parse())
        .collect::<Result<_>>()
        .map_err(|e| Error::Refused(e.to_string()))?;
    if cli.transport != Transport::Tls {
        for (given, option) in [
            (!faults.is_empty(), "--fault"),
            (cli.timeout.is_some(), "--timeout"),
            (cli.board_record.is_some(), "--board-record"),
        ] {
            if given {
                return Err(Error::Refused(format!("{option} needs --transport tls")));
            }
        }
    }
    if faults
        .iter()
        .any(|f| f.kind == distributed::FaultKind::Partition)
        && !cli.network.is_emulated()
    {
        return Err(Error::Refused(
            "--fault partition needs an emulated --network".into(),
        ));
    }
    if let Some(section) = &cli.hold_at {
        hold::parse_section(section).map_err(|e| Error::Refused(format!("--hold-at: {e}")))?;
    }
    if let Some(record) = &cli.board_record {
        measure::output::check_writable(record)
            .map_err(|e| Error::Refused(format!("--board-record: {e}")))?;
    }
    if cli.network.is_emulated() {
        if cli.transport != Transport::Tls {
            return Err(Error::Refused("--network needs --transport tls".into()));
        }
        // Refused in one line, before any work, where this process may not make the network.
        netem::check(&cli.network, &netem::Tools::discover())
            .map_err(|e| Error::Refused(format!("--network: {e}")))?;
    }
    let tls = (cli.transport == Transport::Tls, cli.network.is_emulated());
    let placement = Placement::of(cli.launch, tls, cfg.m, cli.run.threads)?;
    thread_pool(cli.run.threads)?;
    let calibration = cli
        .calibration
        .clone()
        .or_else(|| std::env::var_os("DBSM_CALIBRATION").map(PathBuf::from));
    if let Some(path) = &calibration {
        let c = Calibration::load(&path.to_string_lossy(), cfg.curve.name())
            .map_err(|e| Error::Refused(e.to_string()))?;
        cost::set_calibration(c);
    }
    Ok((cfg, faults, calibration, placement))
}

/// The deadline of every wait of a `tls` run, and why: `--timeout`, or derived from the run's
/// size and this machine's speed.
fn deadline_of(cli: &Cli, cfg: &Config) -> (Deadline, String) {
    match cli.timeout {
        Some(t) => (
            Deadline(std::time::Duration::from_secs_f64(t)),
            "--timeout".to_string(),
        ),
        None if cli.transport == Transport::Tls => {
            let xn2 = probe::measure::<ark_bn254::Bn254>()
                .get("XN2(4099)")
                .copied()
                .unwrap_or(0.02);
            Deadline::derive(cfg, xn2)
        }
        None => (Deadline(std::time::Duration::ZERO), String::new()),
    }
}

/// The run's settings on stderr, before it starts.
fn announce(cli: &Cli, cfg: &Config) {
    eprintln!(
        "db-sm-rsm: n = {}, m = {}, curve = {}, mode = {}, security = {}, threads = {}, \
         transport = {}{}{}",
        cfg.n,
        cfg.m,
        cfg.curve.name(),
        cfg.mode.name(),
        cfg.security.name(),
        cli.run.threads,
        match cli.transport {
            Transport::Local => "local".to_string(),
            Transport::Tls => format!("tls, network = {}", cli.network),
        },
        cfg.seed
            .map(|s| format!(", seed = {s} (public: keys derived from it are not secret)"))
            .unwrap_or_default(),
        cfg.tamper
            .map(|t| format!(", tamper = {}", t.name()))
            .unwrap_or_default()
    );
}

/// The run's checkpoint (`--checkpoint`, or beside `--out`; none without either), the driver's
/// journal in it, every process's journal vetted first, and whether an earlier attempt had left
/// a checkpoint there (resumed from or refused); the secret seed of a run without `--seed` is
/// the journal's.
fn open_checkpoint(cli: &Cli, cfg: &mut Config) -> Result<Option<Opened>> {
    // Named after the report, so that runs writing reports into one directory keep apart.
    let Some(dir) = cli
        .checkpoint
        .clone()
        .or_else(|| Some(cli.out.as_ref()?.with_extension("checkpoint")))
    else {
        return Ok(None);
    };
    let tls = cli.transport == Transport::Tls;
    let parameters = resume::journal_parameters(cfg, cli.transport.name(), &cli.network.spec());
    let cp = Checkpoint::new(&dir, parameters);
    let earlier = cp.journal_path(DRIVER).exists();
    let journal = resume::open_driver(&cp, cfg, tls)
        .map_err(|e| Error::Refused(format!("--checkpoint: {e}")))?;
    Ok(Some((cp, journal, earlier)))
}

/// A checkpoint opened: its driver's journal, and whether an earlier attempt's was there.
type Opened = (Checkpoint, Journal, bool);

/// Runs the protocol. A run whose checkpoint turns out untrue on the way (a journaled verdict
/// that does not check again, a column that is not the one journaled, a party process of a `tls`
/// run that refused its journal) says so in one line and starts afresh, once, in the emptied
/// checkpoint.
fn attempts(
    cli: &Cli,
    cfg: &mut Config,
    tls: &TlsRun<'_>,
    journal: Option<Journal>,
    hold: (Option<HoldAt>, Value),
) -> Result<Outcome> {
    let on_tls = (cli.transport == Transport::Tls).then_some(tls);
    let mut ran = run_once(cfg, on_tls, journal, hold.0.clone());
    let refused = match (&ran.1, &tls.checkpoint) {
        (Err(Error::Checkpoint(why)), Some(_)) => Some(why.clone()),
        (Err(_), Some(cp)) => cp.refused(),
        _ => None,
    };
    if let (Some(why), Some(cp)) = (refused, &tls.checkpoint) {
        eprintln!(
            "{TOOL}: the checkpoint {} is not used: {why}; the run starts afresh",
            cp.dir().display()
        );
        cp.empty().map_err(|e| Error::Refused(e.to_string()))?;
        probe::forget();
        let (_, journal, _) = open_checkpoint(cli, cfg)?
            .ok_or_else(|| Error::Refused("the checkpoint went".into()))?;
        ran = run_once(cfg, on_tls, Some(journal), hold.0);
    }
    outcome(cfg, on_tls.is_some(), ran, hold.1)
}

/// Runs `work` and writes its report (with --out) or says how it went.
fn run_and_report(
    cli: &Cli,
    envelope: Envelope,
    work: impl FnOnce() -> Result<Outcome>,
) -> ExitCode {
    match &cli.out {
        Some(out) => measure::cli::finish_run(out, envelope, work, |r| {
            let failed = &r["body"]["failure"];
            if failed.is_null() {
                String::new()
            } else {
                format!(" (FAILED: {} at {})", failed["party"], failed["step"])
            }
        }),
        None => match work() {
            Ok(o) if o.passed => ExitCode::SUCCESS,
            Ok(_) => ExitCode::from(1),
            Err(e) => measure::cli::refuse(TOOL, e),
        },
    }
}
