//! `db-sm-rsm N M` (or `--n N --m M`): one full run of the traceable-mixnet protocol with
//! distributed set-membership (DB-SM) and reverse set-membership (DB-RSM) proofs, printing the
//! paper-format report on stdout (docs/protocol.md §9), progress on stderr, and with `--out` the
//! same data as JSON inside the suite's report envelope (body: docs/report.schema.json).
//!
//! With `--transport tls` this process is the driver; it starts this same program as
//! `db-sm-rsm board` (the bulletin board) and `db-sm-rsm party --role mixer --id K ...` /
//! `--role verifier ...` (the other parties), which nobody needs to start by hand ([`subcommands`]);
//! `db-sm-rsm verify-board` is in [`verify_board`].

#![forbid(unsafe_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use db_sm_rsm::measurement::cost::{self, Calibration};
use db_sm_rsm::measurement::probe;
use db_sm_rsm::measurement::report::Report;
use db_sm_rsm::primitives::security::SecurityLevel;
use db_sm_rsm::protocol::config::{Config, Curve, Mode};
use db_sm_rsm::protocol::distributed::{self, Deadline, Fault, NetworkFigures, TlsRun};
use db_sm_rsm::protocol::hold;
use db_sm_rsm::protocol::resume;
use db_sm_rsm::protocol::run::{run, RunInfo};
use db_sm_rsm::protocol::setup::Dealing;
use db_sm_rsm::protocol::sizes;
use db_sm_rsm::protocol::tamper::Tamper;
use db_sm_rsm::storage::checkpoint::DRIVER;
use db_sm_rsm::storage::{Checkpoint, Journal};
use db_sm_rsm::transport::placement::{Launch, Placement};
use db_sm_rsm::transport::{Ctx, HoldAt, Posted, Resumed};
use db_sm_rsm::Error;
use measure::envelope::{Envelope, Inputs, Outcome};
use measure::seed::Seed;
use netem::Profile;
use serde_json::{json, Value};

mod subcommands;
mod verify_board;

const TOOL: &str = "db-sm-rsm";
/// The version of the body's schema (docs/report.schema.json).
const BODY_VERSION: u32 = 4;

/// Largest n and m accepted: far beyond what fits the 8 GiB budget is refused up front.
const MAX_N: u64 = 1_000_000;
const MAX_M: u64 = 64;

/// How the parties talk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Transport {
    /// Every party in this process (the paper's artifact's way).
    Local,
    /// Every mix-server, the verifier and the bulletin board in processes of their own, every
    /// message a post on the board over TLS 1.3 with pinned certificates.
    Tls,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Local => "local",
            Transport::Tls => "tls",
        }
    }
}

/// What every process of a run is told: the run's size and settings.
#[derive(clap::Args, Debug)]
struct RunArgs {
    /// Number of entries (senders, ciphertexts), 1..=1000000 (or --n).
    #[arg(value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_N))]
    n_pos: Option<u64>,
    /// Number of mix-servers, 2..=64 (or --m; with one mixer, "each mixer checks the others"
    /// checks nothing).
    #[arg(value_name = "M", value_parser = clap::value_parser!(u64).range(2..=MAX_M))]
    m_pos: Option<u64>,
    /// Number of entries, as the positional N.
    #[arg(long = "n", value_name = "N", conflicts_with = "n_pos",
          value_parser = clap::value_parser!(u64).range(1..=MAX_N))]
    n_opt: Option<u64>,
    /// Number of mix-servers, as the positional M.
    #[arg(long = "m", value_name = "M", conflicts_with = "m_pos",
          value_parser = clap::value_parser!(u64).range(2..=MAX_M))]
    m_opt: Option<u64>,
    /// Pairing curve: bn254 (the paper's size class) or bls12-381 (the secure choice).
    #[arg(long, value_enum, default_value_t = Curve::Bn254)]
    curve: Curve,
    /// fast: multi-exponentiations for every product of powers, fixed-base tables for every
    /// reused base, batch verification. paper: upstream's operation counts: every power
    /// computed separately, each proof checked on its own, upstream's table sizes; the same
    /// proofs and statuses, for a like-for-like comparison with the paper's figures.
    #[arg(long, value_enum, default_value_t = Mode::Fast)]
    mode: Mode,
    /// 128: 128-bit challenges and batching vectors, 80-bit statistical slack in every mask.
    /// paper: upstream's lengths (80-bit challenges and vectors, 20-bit slack), for a
    /// like-for-like comparison with the paper's figures. The report prints it.
    #[arg(long, value_enum, default_value_t = SecurityLevel::Bits128)]
    security: SecurityLevel,
    /// Public seed (64 hexadecimal digits) of every party's CSPRNG (ChaCha20, one stream per
    /// party), for reproducible runs: every key and secret of the run is then derived from the
    /// public seed (not secret), as the report says. Without it the generators are keyed by the
    /// operating system.
    #[arg(long, value_name = "HEX64")]
    seed: Option<String>,
    /// Worker threads for the rayon pool (of each party's process with --transport tls),
    /// 1..=1024.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: u64,
    /// Make one party corrupt one value at one step; the matching status prints False and the
    /// exit code is 1. See the list below.
    #[arg(long, value_enum)]
    tamper: Option<Tamper>,
    /// Use the checked-in test keys (public, insecure; up to 4 mixers) instead of generating the
    /// Paillier keys. The report says so.
    #[arg(long)]
    test_keys: bool,
}

#[derive(Parser, Debug)]
#[command(
    name = "db-sm-rsm",
    version,
    about = "Run the traceable mixnet with DB-SM and DB-RSM proofs among M mix-servers over N \
             entries, and print the timing report in the paper's format.",
    after_help = Tamper::help_text()
)]
struct Cli {
    #[command(flatten)]
    run: RunArgs,
    /// local: every party in this process. tls: every mix-server, the verifier and the bulletin
    /// board in processes of their own (this program), the dealer and the senders here, every
    /// message a post on the board over TLS 1.3 with pinned certificates; the report adds each
    /// process's wall time, CPU, bytes and rounds per step.
    #[arg(long, value_enum, default_value_t = Transport::Local)]
    transport: Transport,
    /// Write the JSON report (the suite's envelope around docs/report.schema.json) to this file,
    /// atomically; the paper-format text report stays on stdout.
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
    /// Keep the keys of runs with --seed in this directory (default: env DBSM_KEY_CACHE), one
    /// JSON file per key named by kind, bits and seed, and load them in later runs with the same
    /// seed instead of searching for primes again. Keys of runs without --seed are never stored.
    #[arg(long, value_name = "DIR")]
    key_cache: Option<PathBuf>,
    /// Unit costs from `cargo bench -p db-sm-rsm --bench ops` (default: env DBSM_CALIBRATION).
    /// With it, every JSON timer row gets `lower_bound_s` = Σ op count × unit cost; without
    /// it, the rows carry the op counts only.
    #[arg(long)]
    calibration: Option<PathBuf>,
    /// With --transport tls, the network between the processes: none (the host's loopback),
    /// lan (0.2 ms round trip, 10 Gbit/s per link), region (20 ms, 1 Gbit/s), wan (100 ms,
    /// 100 Mbit/s), or a spec such as rtt=50ms,rate=200mbit (netem's profiles, as
    /// collab-groth16's). Every profile but none puts each process in a network namespace of
    /// its own, made and removed by the run, and needs root.
    #[arg(long, value_name = "PROFILE", default_value = "none")]
    network: Profile,
    /// With --transport tls: the longest any one wait of the run may last, in seconds (a fetch
    /// from the board, the dealer's hand-over of a mixer's keys); a party process waits 1.5
    /// times as long. Default: five times the longest step expected from N, M, the mode and
    /// this machine's speed, at least 60 s (printed at the start).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<f64>,
    /// With --transport tls: the board's record of every post (a hash chain, checked by
    /// `db-sm-rsm verify-board FILE`) goes to FILE. Default: a temporary file, removed after
    /// the run's own audit of it.
    #[arg(long, value_name = "FILE")]
    board_record: Option<PathBuf>,
    /// A fault for the tests of --transport tls: KIND:<party>@<section>, KIND one of kill,
    /// stop, partition, cut, silent, forge, lie, shutdown, exit (section `end`), the party mixer-K,
    /// verifier or board (kill and stop only).
    #[arg(long, hide = true)]
    fault: Vec<String>,
    /// The run's checkpoint: a directory holding its per-entry data (so that memory does not
    /// grow with N) and the journal of every finished step (with --transport tls, one journal
    /// per process). Run the same command again after the run was killed and it resumes from
    /// there, saying so; a checkpoint of other parameters, another commit or a damaged one is
    /// refused in one line and the run starts afresh. It holds the parties' secrets, and goes
    /// when the run has ended. Default: the report's name with `.checkpoint` for its extension
    /// (`report.checkpoint/` beside `--out report.json`); without --out, a temporary directory
    /// (no resume).
    #[arg(long, value_name = "DIR")]
    checkpoint: Option<PathBuf>,
    /// A test option: a run that starts fresh stops at the start of SECTION (a section of the
    /// report, such as "forward set membership"), once what it journaled is on the disk, says
    /// so and sleeps until it is killed; a run that resumes from its checkpoint ignores it.
    #[arg(long, value_name = "SECTION")]
    hold_at: Option<String>,
    /// With --transport tls, where the parties start: here, or on a SLURM job's nodes by srun.
    #[arg(long, value_enum, default_value_t = Launch::Local)]
    launch: Launch,
}

/// A positive number of seconds, at most a week.
fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 7.0 * 86400.0 => Ok(x),
        _ => Err(format!(
            "{s:?} is not a number of seconds above 0 and at most a week"
        )),
    }
}

/// The run's configuration from the command line, or why it is refused.
fn config(cli: &RunArgs, key_cache: Option<PathBuf>) -> Result<Config, String> {
    let n = cli
        .n_pos
        .or(cli.n_opt)
        .ok_or("the number of entries is missing: give N M or --n N --m M")?;
    let m = cli
        .m_pos
        .or(cli.m_opt)
        .ok_or("the number of mix-servers is missing: give N M or --n N --m M")?;
    let seed: Option<Seed> = cli.seed.as_deref().map(str::parse).transpose()?;
    let cfg = Config {
        n: n as usize,
        m: m as usize,
        curve: cli.curve,
        mode: cli.mode,
        security: cli.security,
        seed,
        tamper: cli.tamper,
        test_keys: cli.test_keys,
        key_cache,
        secret_seed: None,
    };
    cfg.validate().map_err(|e| e.to_string())?;
    Ok(cfg)
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
fn outcome(cfg: &Config, tls: bool, ran: Ran, hold_json: Value) -> Result<Outcome, String> {
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
        Err(Error::Input(e)) => Err(e),
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
    db_sm_rsm::Result<(RunInfo, Result<NetworkFigures, Vec<Posted>>)>,
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
    net: Result<NetworkFigures, Vec<Posted>>,
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

/// Starts the rayon pool of this process.
fn thread_pool(threads: u64) -> Result<(), String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads as usize)
        .build_global()
        .map_err(|e| format!("error: cannot start {threads} worker threads: {e}"))
}

/// The command line checked before any work: the run's configuration and faults, every option
/// that needs `--transport tls` or an emulated network, the network's rights, where the parties
/// start, the thread pool and the calibration. A refusal is one line.
fn checked(cli: &Cli) -> Result<(Config, Vec<Fault>, Option<PathBuf>, Placement), String> {
    let key_cache = cli
        .key_cache
        .clone()
        .or_else(|| std::env::var_os("DBSM_KEY_CACHE").map(PathBuf::from));
    let cfg = config(&cli.run, key_cache).map_err(|e| format!("error: {e}"))?;
    let faults: Vec<Fault> = cli
        .fault
        .iter()
        .map(|f| f.parse())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("error: {e}"))?;
    if cli.transport != Transport::Tls {
        for (given, option) in [
            (!faults.is_empty(), "--fault"),
            (cli.timeout.is_some(), "--timeout"),
            (cli.board_record.is_some(), "--board-record"),
        ] {
            if given {
                return Err(format!("error: {option} needs --transport tls"));
            }
        }
    }
    if faults
        .iter()
        .any(|f| f.kind == distributed::FaultKind::Partition)
        && !cli.network.is_emulated()
    {
        return Err("error: --fault partition needs an emulated --network".into());
    }
    if let Some(section) = &cli.hold_at {
        hold::parse_section(section).map_err(|e| format!("error: --hold-at: {e}"))?;
    }
    if let Some(record) = &cli.board_record {
        measure::output::check_writable(record)
            .map_err(|e| format!("error: --board-record: {e}"))?;
    }
    if cli.network.is_emulated() {
        if cli.transport != Transport::Tls {
            return Err("error: --network needs --transport tls".into());
        }
        // Refused in one line, before any work, where this process may not make the network.
        netem::check(&cli.network, &netem::Tools::discover())
            .map_err(|e| format!("error: --network: {e}"))?;
    }
    let tls = (cli.transport == Transport::Tls, cli.network.is_emulated());
    let placement =
        Placement::of(cli.launch, tls, cfg.m, cli.run.threads).map_err(|e| e.to_string())?;
    thread_pool(cli.run.threads)?;
    let calibration = cli
        .calibration
        .clone()
        .or_else(|| std::env::var_os("DBSM_CALIBRATION").map(PathBuf::from));
    if let Some(path) = &calibration {
        let c = Calibration::load(&path.to_string_lossy(), cfg.curve.name())
            .map_err(|e| format!("error: {e}"))?;
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
fn open_checkpoint(cli: &Cli, cfg: &mut Config) -> Result<Option<Opened>, String> {
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
    let journal =
        resume::open_driver(&cp, cfg, tls).map_err(|e| format!("error: --checkpoint: {e}"))?;
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
) -> Result<Outcome, String> {
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
        cp.empty().map_err(|e| e.to_string())?;
        probe::forget();
        let (_, journal, _) = open_checkpoint(cli, cfg)?.ok_or("the checkpoint went")?;
        ran = run_once(cfg, on_tls, Some(journal), hold.0);
    }
    outcome(cfg, on_tls.is_some(), ran, hold.1)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("board") => return subcommands::board_main(args[1..].to_vec()),
        Some("party") => return subcommands::party_main(args[1..].to_vec()),
        Some("verify-board") => return verify_board::verify_board_main(args[1..].to_vec()),
        _ => {}
    }
    let cli = Cli::parse();
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

/// Runs `work` and writes its report (with --out) or says how it went.
fn run_and_report(
    cli: &Cli,
    envelope: Envelope,
    work: impl FnOnce() -> Result<Outcome, String>,
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
            Err(e) => measure::cli::refuse(TOOL, format!("error: {e}")),
        },
    }
}
