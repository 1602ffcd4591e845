//! `db-sm-rsm N M`: one full run of the traceable-mixnet protocol with distributed set-membership
//! (DB-SM) and reverse set-membership (DB-RSM) proofs, printing the paper-format report on stdout
//! (docs/protocol.md §9), progress on stderr, and optionally the same data as JSON
//! (docs/report.schema.json).

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
use db_sm_rsm::protocol::run::run;
use db_sm_rsm::protocol::tamper::Tamper;
use serde_json::json;

/// Largest n and m accepted: far beyond what fits the 8 GiB budget is refused up front.
const MAX_N: u64 = 1_000_000;
const MAX_M: u64 = 64;

#[derive(Parser, Debug)]
#[command(
    name = "db-sm-rsm",
    version,
    about = "Run the traceable mixnet with DB-SM and DB-RSM proofs among M mix-servers over N \
             entries, and print the timing report in the paper's format.",
    after_help = Tamper::help_text()
)]
struct Cli {
    /// Number of entries (senders, ciphertexts), 1..=1000000.
    #[arg(value_parser = clap::value_parser!(u64).range(1..=MAX_N))]
    n: u64,
    /// Number of mix-servers, 2..=64 (with one mixer, "each mixer checks the others" checks
    /// nothing).
    #[arg(value_parser = clap::value_parser!(u64).range(2..=MAX_M))]
    m: u64,
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
    /// Seed every party's CSPRNG (ChaCha20) from this public value, for reproducible runs: every
    /// key and secret of the run is then derived from the public seed (not secret), as the
    /// report says. Without it the generators are keyed by the operating system.
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads for the rayon pool, 1..=1024.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: u64,
    /// Also write the report's data as JSON to this file (written atomically).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Make one party corrupt one value at one step; the matching status prints False and the
    /// exit code is 1. See the list below.
    #[arg(long, value_enum)]
    tamper: Option<Tamper>,
    /// Use the checked-in test keys (public, insecure; up to 4 mixers) instead of generating the
    /// Paillier keys. The report says so.
    #[arg(long)]
    test_keys: bool,
    /// Keep the generated keys of runs with --seed in this directory (default: env
    /// DBSM_KEY_CACHE), one JSON file per key named by kind, bits and seed, and load them in
    /// later runs with the same seed instead of searching for primes again. Keys of runs without
    /// --seed are never stored.
    #[arg(long, value_name = "DIR")]
    key_cache: Option<PathBuf>,
    /// Unit costs from `cargo bench -p db-sm-rsm --bench ops` (default: env DBSM_CALIBRATION).
    /// With it, every JSON timer row gets `lower_bound_s` = Σ op count × unit cost; without
    /// it, the rows carry the op counts only.
    #[arg(long)]
    calibration: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let cfg = Config {
        n: cli.n as usize,
        m: cli.m as usize,
        curve: cli.curve,
        mode: cli.mode,
        security: cli.security,
        seed: cli.seed,
        tamper: cli.tamper,
        test_keys: cli.test_keys,
        key_cache: cli
            .key_cache
            .clone()
            .or_else(|| std::env::var_os("DBSM_KEY_CACHE").map(PathBuf::from)),
    };
    if let Err(e) = cfg.validate() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    if let Some(path) = &cli.json {
        if let Err(e) = measure::output::check_writable(path) {
            eprintln!("error: --json: {e}");
            return ExitCode::from(2);
        }
    }
    if let Err(e) = rayon::ThreadPoolBuilder::new()
        .num_threads(cli.threads as usize)
        .build_global()
    {
        eprintln!("error: cannot start {} worker threads: {e}", cli.threads);
        return ExitCode::from(2);
    }
    eprintln!(
        "db-sm-rsm: n = {}, m = {}, curve = {}, mode = {}, security = {}, threads = {}{}",
        cfg.n,
        cfg.m,
        cfg.curve.name(),
        cfg.mode.name(),
        cfg.security.name(),
        cli.threads,
        cfg.tamper
            .map(|t| format!(", tamper = {}", t.name()))
            .unwrap_or_default()
    );

    let calibration = cli
        .calibration
        .clone()
        .or_else(|| std::env::var_os("DBSM_CALIBRATION").map(PathBuf::from));
    if let Some(path) = &calibration {
        match Calibration::load(&path.to_string_lossy(), cfg.curve.name()) {
            Ok(c) => cost::set_calibration(c),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }

    let mut report = Report::new(cfg.m, true);
    let info = match run(&cfg, &mut report) {
        Ok(info) => info,
        Err(e) => {
            eprintln!("error: the run stopped: {e}");
            return ExitCode::from(1);
        }
    };
    print!("{}", report.render());
    let _ = std::io::stdout().flush();

    if let Some(path) = &cli.json {
        let doc = json!({
            "experiment": "db-sm-rsm",
            "params": {
                "n": cfg.n, "m": cfg.m, "curve": cfg.curve.name(), "mode": cfg.mode.name(),
                "security": cfg.security.name(),
                "threads": cli.threads, "seed": cfg.seed,
                "tamper": cfg.tamper.map(|t| t.name()),
                "test_keys": cfg.test_keys,
                "key_cache": cfg.key_cache.as_ref().map(|p| p.to_string_lossy().into_owned()),
            },
            "keys": info.keys,
            "security": cfg.security.params().to_json(),
            "timers": report.timer_rows(),
            "statuses": report.statuses_json(),
            "sizes": report.sizes_json(),
            "fixes": info.fixes,
            "machine": measure::machine::machine_json(),
            "version": env!("CARGO_PKG_VERSION"),
            "calibration": calibration.map(|p| p.to_string_lossy().into_owned()),
            "speed_probe": probe::recorded_json(),
        });
        if let Err(e) = measure::output::write_json_atomic(path, &doc) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }

    if report.all_ok() {
        ExitCode::SUCCESS
    } else {
        for (name, ok) in report.statuses() {
            if !ok {
                eprintln!("{name}: False");
            }
        }
        ExitCode::from(1)
    }
}
