//! `db-sm-rsm N M` (or `--n N --m M`): one full run of the traceable-mixnet protocol with
//! distributed set-membership (DB-SM) and reverse set-membership (DB-RSM) proofs, printing the
//! paper-format report on stdout (docs/protocol.md §9), progress on stderr, and with `--out` the
//! same data as JSON inside the suite's report envelope (body: docs/report.schema.json).
//!
//! With `--transport tls` this process is the driver; it starts this same program as
//! `db-sm-rsm board` (the bulletin board) and `db-sm-rsm party --role mixer --id K ...` /
//! `--role verifier ...` (the other parties), which nobody needs to start by hand ([`subcommands`]);
//! `db-sm-rsm verify-board` is in [`verify_board`]; the measured run itself, from the checked
//! command line to the written report, is in [`measured_run`]. This file parses the command line
//! and dispatches.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use db_sm_rsm::primitives::security::SecurityLevel;
use db_sm_rsm::protocol::config::{Config, Curve, Mode};
use db_sm_rsm::protocol::tamper::Tamper;
use db_sm_rsm::transport::placement::Launch;
use db_sm_rsm::Error;
use measure::seed::Seed;
use netem::Profile;

mod measured_run;
mod subcommands;
mod verify_board;

const TOOL: &str = "db-sm-rsm";

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

/// Starts the rayon pool of this process.
fn thread_pool(threads: u64) -> db_sm_rsm::Result<()> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads as usize)
        .build_global()
        .map_err(|e| Error::Refused(format!("cannot start {threads} worker threads: {e}")))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("board") => subcommands::board_main(args[1..].to_vec()),
        Some("party") => subcommands::party_main(args[1..].to_vec()),
        Some("verify-board") => verify_board::verify_board_main(args[1..].to_vec()),
        _ => measured_run::main(Cli::parse()),
    }
}
