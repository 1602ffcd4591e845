//! The processes a `tls` run's driver starts (`db-sm-rsm board`, `db-sm-rsm party`), which
//! nobody needs to start by hand.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use db_sm_rsm::protocol::distributed::Deadline;
use db_sm_rsm::protocol::hold;
use db_sm_rsm::protocol::party::{self, PartyFaults};
use db_sm_rsm::protocol::resume;
use db_sm_rsm::storage::Journal;
use db_sm_rsm::transport::HoldAt;

use crate::{config, parse_seconds, thread_pool, RunArgs};

/// `db-sm-rsm party ...`: one party's process of a `tls` run, started by the driver.
#[derive(Parser, Debug)]
#[command(name = "db-sm-rsm party")]
struct PartyCli {
    /// mixer or verifier.
    #[arg(long)]
    role: String,
    /// The mixer's index.
    #[arg(long)]
    id: Option<usize>,
    #[command(flatten)]
    run: RunArgs,
    /// The driver's deadline of every wait, in seconds (this process waits 1.5 times as long).
    #[arg(long, value_parser = parse_seconds)]
    timeout: f64,
    /// Cut the link to the board when entering this section (a fault for the tests).
    #[arg(long)]
    cut_at: Vec<String>,
    /// Stop working and posting when entering this section (a fault for the tests).
    #[arg(long)]
    silent_at: Vec<String>,
    /// Post a verdict under another party's tag when entering this section (a fault for the
    /// tests).
    #[arg(long)]
    forge_at: Vec<String>,
    /// Ask the board to shut down when entering this section (a fault for the tests).
    #[arg(long)]
    shut_down_at: Vec<String>,
    /// Post the opposite of every verdict from this section on (a fault for the tests).
    #[arg(long)]
    lie_at: Vec<String>,
    /// Exit with status 1 after all the work (a fault for the tests).
    #[arg(long)]
    exit_with_failure: bool,
    /// Lie in the records for the driver's report: timers, bytes or digest (a fault for the
    /// tests).
    #[arg(long)]
    false_claim: Option<String>,
    /// The run's checkpoint, where this process keeps its journal and store.
    #[arg(long, requires_all = [
        "checkpoint_commit", "checkpoint_parameters", "checkpoint_run", "checkpoint_attempt"
    ])]
    checkpoint: Option<PathBuf>,
    /// The commit the checkpoint's journals must be of.
    #[arg(long)]
    checkpoint_commit: Option<String>,
    /// The parameters the checkpoint's journals must be of, as the driver wrote them.
    #[arg(long)]
    checkpoint_parameters: Option<String>,
    /// The run's name (the driver's journal's), which this process's journal must bear.
    #[arg(long)]
    checkpoint_run: Option<String>,
    /// The driver's attempt: a journal already of this attempt or a later one is refused.
    #[arg(long)]
    checkpoint_attempt: Option<u32>,
    /// Hold at the start of this section until killed, unless this process resumes.
    #[arg(long, value_parser = hold::parse_section)]
    hold_at: Option<String>,
}

/// `db-sm-rsm board --listen ADDR --record FILE --timeout SECONDS`: the bulletin board's process
/// of a `tls` run.
#[derive(Parser, Debug)]
#[command(name = "db-sm-rsm board")]
struct BoardCli {
    /// Where to listen (port 0: any free port, which the board prints).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: std::net::SocketAddr,
    /// The record of every post (written as FILE.partial until the board closes it).
    #[arg(long)]
    record: PathBuf,
    /// The run's deadline: how long a party may take no posts before it is gone.
    #[arg(long, value_parser = parse_seconds)]
    timeout: f64,
}

/// `db-sm-rsm board ...`: the bulletin board's process of a `tls` run.
pub(crate) fn board_main(args: Vec<String>) -> ExitCode {
    let cli = BoardCli::parse_from(args);
    let deadline = std::time::Duration::from_secs_f64(cli.timeout);
    match db_sm_rsm::transport::process::serve_board(cli.listen, &cli.record, deadline) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("db-sm-rsm bulletin board: {e}");
            ExitCode::from(1)
        }
    }
}

/// `db-sm-rsm party ...`: a mix-server's or the verifier's process of a `tls` run.
pub(crate) fn party_main(args: Vec<String>) -> ExitCode {
    let cli = PartyCli::parse_from(args);
    let mut cfg = match config(&cli.run, None) {
        Ok(c) => c,
        Err(e) => return measure::cli::refuse("db-sm-rsm party", format!("error: {e}")),
    };
    let mixer = match (cli.role.as_str(), cli.id) {
        ("mixer", Some(k)) if k < cfg.m => Some(k),
        ("verifier", None) => None,
        _ => {
            let why = "error: --role mixer --id K (K < M) or --role verifier";
            return measure::cli::refuse("db-sm-rsm party", why);
        }
    };
    if let Err(e) = thread_pool(cli.run.threads) {
        return measure::cli::refuse("db-sm-rsm party", e);
    }
    let faults = PartyFaults {
        cut_at: cli.cut_at,
        silent_at: cli.silent_at,
        forge_at: cli.forge_at,
        shut_down_at: cli.shut_down_at,
        lie_at: cli.lie_at,
        exit_with_failure: cli.exit_with_failure,
        false_claim: cli.false_claim,
    };
    let deadline = Deadline(std::time::Duration::from_secs_f64(cli.timeout));
    let name = mixer.map_or_else(|| "verifier".to_string(), |k| format!("mixer {k}"));
    let given = match (
        cli.checkpoint,
        cli.checkpoint_commit,
        cli.checkpoint_parameters,
        cli.checkpoint_run,
        cli.checkpoint_attempt,
    ) {
        (Some(dir), Some(commit), Some(parameters), Some(run), Some(attempt)) => {
            Some(resume::Told {
                dir,
                commit,
                parameters,
                run,
                attempt,
            })
        }
        _ => None,
    };
    let journal = match resume::open_party(given, &name, &mut cfg) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("db-sm-rsm {name}: {e}");
            return ExitCode::from(1);
        }
    };
    // The driver asks only a fresh run to hold; a party that resumes anyway goes on.
    let hold = cli.hold_at.map(|section| HoldAt {
        section,
        holds: !journal.as_ref().is_some_and(Journal::resuming),
    });
    let code = party::run_party(&cfg, mixer, &faults, deadline, journal, hold);
    ExitCode::from(code.clamp(0, 255) as u8)
}
