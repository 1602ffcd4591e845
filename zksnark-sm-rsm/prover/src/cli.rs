//! What the programs of the zkSNARK experiment (`zksnark-prover`, `zksnark-optimized`,
//! `collab-groth16`) share on their command lines: the circuit's files and the report's path,
//! the one enveloped run that ends in the report, and the worker threads.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use measure::envelope::{Envelope, Outcome};
use measure::seed::Seed;
use serde_json::Value;

use crate::Error;

/// The circuit's circom-format files and the report.
#[derive(clap::Args, Clone, Debug)]
pub struct Files {
    /// The circuit: a circom-format R1CS (as zokrates-js, circom or zksnark-optimized write it).
    #[arg(long)]
    pub r1cs: PathBuf,
    /// Its witness: a circom-format witness.
    #[arg(long)]
    pub wtns: PathBuf,
    /// The report: the suite's envelope around the body (whose schema is the crate's
    /// docs/report.schema.json).
    #[arg(long)]
    pub out: PathBuf,
}

/// A program of the family, as its reports name it.
pub struct Program {
    /// The program's name: its command's name, its reports' `tool`, its refusals' prefix.
    pub name: &'static str,
    /// The calling crate's version, which its reports carry.
    pub version: &'static str,
    /// The version of its report body's schema.
    pub body_version: u32,
}

/// The calling crate's [`Program`] named `$name`, at the crate's version, its report body's
/// schema at `$body_version`.
#[macro_export]
macro_rules! program {
    ($name:literal, $body_version:literal) => {
        $crate::cli::Program {
            name: $name,
            version: env!("CARGO_PKG_VERSION"),
            body_version: $body_version,
        }
    };
}

impl Program {
    /// Refuses bad input in one line prefixed by the program's name (exit status 2).
    pub fn refuse(&self, why: impl Display) -> ExitCode {
        measure::cli::refuse(self.name, format!("error: {why}"))
    }

    /// The program's one run that ends in a report at `out` (the suite's envelope around the
    /// outcome of `work`, with `parameters` and `seed`): `out` is checked before any work, an
    /// error of `work` is bad input (exit 2, no report), and the exit status is 0 when the
    /// outcome passed, 1 when not. `summary` says what the report holds.
    pub fn run<E: Display>(
        &self,
        out: &Path,
        parameters: Value,
        seed: Option<&Seed>,
        work: impl FnOnce() -> Result<Outcome, E>,
        summary: impl FnOnce(&Value) -> String,
    ) -> ExitCode {
        let envelope =
            Envelope::begin(self.name, self.version, self.body_version, parameters, seed);
        measure::cli::finish_run(
            out,
            envelope,
            || work().map_err(|e| format!("error: {e}")),
            summary,
        )
    }
}

/// Builds the global rayon pool, which ark's MSMs and FFTs run on, with `requested` threads;
/// without a request, `RAYON_NUM_THREADS` if set, else every logical CPU. Returns the count.
pub fn configure_threads(requested: Option<usize>) -> Result<usize, Error> {
    let n = match requested {
        Some(n) => n,
        None => match std::env::var("RAYON_NUM_THREADS") {
            Ok(s) => s.trim().parse().map_err(|_| {
                Error::Invalid(format!("RAYON_NUM_THREADS={s:?} is not a thread count"))
            })?,
            Err(_) => std::thread::available_parallelism().map_or(1, |n| n.get()),
        },
    };
    if n == 0 {
        return Err(Error::Invalid("--threads must be at least 1".into()));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
        .map_err(|e| Error::Invalid(format!("cannot start {n} worker threads: {e}")))?;
    Ok(n)
}
