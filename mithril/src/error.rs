//! The one error type of the crate: a configuration the benchmark refuses before any work, and
//! a step of a run that could not be carried out (a thread pool, a child process, mithril-stm,
//! halo2's key generation or prover). A failed *check* is not an error: it is a result, written
//! into the report.

use std::io;

/// What went wrong, naming the option, the step or the part of the run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A list or seed the shared command-line pieces refuse.
    #[error(transparent)]
    Input(#[from] measure::Error),
    /// `--parts` names a part this program does not have.
    #[error("--parts: unknown part {0:?} (native, circuit, stm, all)")]
    UnknownPart(String),
    /// `--parts` selects nothing.
    #[error("--parts: nothing to run")]
    NothingToRun,
    /// `--k` is neither a number nor `auto`.
    #[error("--k: {0:?} is neither a number nor \"auto\"")]
    BadK(String),
    /// `--pairing` names no layout of the BLS check.
    #[error("--pairing: {0:?} is not residue or final-exp")]
    BadPairing(String),
    /// A value of an option outside what the run can use.
    #[error("{option}: {value} is outside {range}")]
    OutOfRange {
        /// The option.
        option: &'static str,
        /// The value given.
        value: String,
        /// What it may be.
        range: String,
    },
    /// The native or stm part without signer or thread counts.
    #[error("--native-n and --threads need at least one value")]
    NoCounts,
    /// A circuit with a number of rows the chips cannot use.
    #[error("k = {0} is outside 10..=26")]
    RowsOutOfRange(u32),
    /// A range-check table that does not fit the circuit.
    #[error("lookup bits {bits} must be in 8..k (k = {k})")]
    LookupBits {
        /// The table's bits.
        bits: usize,
        /// The circuit's k.
        k: u32,
    },
    /// A multi-scalar multiplication window the chips cannot use.
    #[error("window bits {0} outside 1..=8")]
    WindowBits(usize),
    /// A child run started without its n or seed.
    #[error("--child needs --child-n and --seed")]
    ChildArguments,
    /// A child run of a mode this program does not have.
    #[error("unknown child mode {0:?}")]
    ChildMode(String),
    /// The proving child started without its k.
    #[error("the prove run needs --k")]
    ProveNeedsK,
    /// A rayon pool that would not start.
    #[error("cannot start {threads} threads: {source}")]
    Pool {
        /// The threads asked for.
        threads: usize,
        /// Why not.
        source: rayon::ThreadPoolBuildError,
    },
    /// This program's own path, needed to start its children.
    #[error("cannot find this program: {0}")]
    OwnPath(io::Error),
    /// A child run that could not be started.
    #[error("cannot start the {mode} run: {source}")]
    ChildStart {
        /// `size` or `prove`.
        mode: String,
        /// Why not.
        source: io::Error,
    },
    /// A child run that ended with an error or a signal.
    #[error("the {mode} run at n = {n} failed: {why}")]
    ChildFailed {
        /// `size` or `prove`.
        mode: String,
        /// Its signer count.
        n: usize,
        /// Its exit status, or the signal.
        why: String,
    },
    /// A child run whose output is not the row it should print.
    #[error("the {mode} run's output: {source}")]
    ChildOutput {
        /// `size` or `prove`.
        mode: String,
        /// Why it does not parse.
        source: serde_json::Error,
    },
    /// A row that does not serialise (a child prints its row as JSON).
    #[error("a row as JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A generator that could not be seeded from the run's stream.
    #[error("seeding a generator: {0}")]
    Rng(#[from] rand_core::Error),
    /// A step of mithril-stm that failed (registration, a signer, the aggregation).
    #[error("mithril-stm {step}: {why}")]
    Stm {
        /// The step, with its n where it has one.
        step: String,
        /// mithril-stm's message.
        why: String,
    },
    /// halo2's key generation failed.
    #[error("key generation failed: {0}")]
    Keygen(String),
    /// halo2's prover failed.
    #[error("proving failed: {0}")]
    Proving(String),
}
