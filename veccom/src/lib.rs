//! Vector commitments.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod arkworks;
pub mod curve;
pub mod measurement;
pub mod merkle;
pub mod pairing;

/// What can go wrong: inputs to the schemes, and a benchmark configuration refused before any
/// work (each variant names the setting at fault).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Parameters that cannot be used (a zero length, a length too large).
    #[error("invalid parameters: {0}")]
    InvalidParameters(String),
    /// A vector of the wrong length for the parameters.
    #[error("expected {expected} values, got {got}")]
    WrongLength {
        /// The parameters' n.
        expected: usize,
        /// The number given.
        got: usize,
    },
    /// A position outside the vector.
    #[error("position {index} is outside a vector of length {n}")]
    IndexOutOfRange {
        /// The position given (0-based).
        index: usize,
        /// The vector length.
        n: usize,
    },
    /// A batch naming one position twice.
    #[error("position {0} appears twice in a batch")]
    DuplicateIndex(usize),
    /// Bytes that do not decode.
    #[error("malformed encoding: {0}")]
    Malformed(&'static str),
    /// A list or seed the shared command-line pieces refuse.
    #[error(transparent)]
    Input(#[from] measure::Error),
    /// A benchmark without a scheme.
    #[error("no scheme selected")]
    NoScheme,
    /// A scheme name the benchmark does not know.
    #[error("unknown scheme {name:?} (known: {known})")]
    UnknownScheme {
        /// The name given.
        name: String,
        /// The names it may be.
        known: String,
    },
    /// An operation name the benchmark does not know.
    #[error("unknown operation {name:?} (known: {known})")]
    UnknownOperation {
        /// The name given.
        name: String,
        /// The names it may be.
        known: String,
    },
    /// A scheme selected without a vector length.
    #[error("no vector length given for the {0} scheme")]
    NoLength(&'static str),
    /// A vector length a scheme is not run at.
    #[error("n = {n} for the {scheme} scheme is outside 1..={max}")]
    LengthOutOfRange {
        /// The scheme.
        scheme: &'static str,
        /// The length given.
        n: usize,
        /// The largest length it is run at.
        max: usize,
    },
    /// An ablation length outside what the ablation runs at.
    #[error("ablation n = {0} is outside 2..=65536")]
    AblationLength(usize),
    /// A setting of the benchmark outside what a run can use.
    #[error("{setting} must be {allowed}, got {value}")]
    Setting {
        /// The setting.
        setting: &'static str,
        /// What it may be.
        allowed: &'static str,
        /// The value given.
        value: String,
    },
    /// A rayon pool that would not start.
    #[error("cannot start a pool of {threads} threads: {source}")]
    Pool {
        /// The threads asked for.
        threads: usize,
        /// Why not.
        source: rayon::ThreadPoolBuildError,
    },
}
