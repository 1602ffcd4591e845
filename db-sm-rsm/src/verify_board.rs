//! `db-sm-rsm verify-board FILE`: the subcommand that re-checks a finished `tls` run from its
//! board record alone (the auditor of [`db_sm_rsm::protocol::audit`]).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use db_sm_rsm::protocol::audit;

use crate::thread_pool;

/// `db-sm-rsm verify-board FILE`: re-checks a finished `tls` run from its board record alone.
#[derive(Parser, Debug)]
#[command(
    name = "db-sm-rsm verify-board",
    about = "Re-check a finished --transport tls run from its board record: the hash chain and \
             roster, then every proof of every party, as an auditor who trusts no verdict. Prints \
             the statuses it recomputed beside the run's; exit 0 only if the chain is intact and \
             every status is True and equal to the run's, 1 otherwise, 2 for a file that cannot \
             be read."
)]
struct VerifyCli {
    /// The record (`--board-record FILE` of the run).
    file: PathBuf,
    /// Worker threads for the checks, 1..=1024.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: u64,
}

/// `db-sm-rsm verify-board ...`.
pub fn verify_board_main(args: Vec<String>) -> ExitCode {
    const NAME: &str = "db-sm-rsm verify-board";
    let cli = VerifyCli::parse_from(args);
    if let Err(e) = std::fs::File::open(&cli.file) {
        return measure::cli::refuse(NAME, format!("error: {}: {e}", cli.file.display()));
    }
    if let Err(e) = thread_pool(cli.threads) {
        return measure::cli::refuse(NAME, e);
    }
    let file = cli.file.display();
    match audit::verify_board(&cli.file, true) {
        Err(e) => {
            eprintln!("{NAME}: {file}: FAILED: {e}");
            ExitCode::from(1)
        }
        Ok(a) => {
            for line in audit::verdict_lines(&a, &file.to_string(), cli.threads) {
                println!("{line}");
            }
            if a.passed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
    }
}
