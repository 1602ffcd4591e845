//! One error type for the crate. Every error about a file names the file, so that a user who
//! passed the wrong path (or a truncated export) sees which input is at fault.

use std::path::{Path, PathBuf};

use ark_relations::r1cs::SynthesisError;

/// Why a command failed, naming the file or the input at fault.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file that could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The file exists but is not what was expected (bad magic, truncated, inconsistent sizes).
    #[error("{}: {msg}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong in it, and where.
        msg: String,
    },
    /// The witness does not satisfy the constraint system, so no proof is produced.
    #[error(
        "witness does not satisfy the R1CS: constraint {index} (0-based) of {total} fails \
         (<A,w>*<B,w> != <C,w>); no proof produced"
    )]
    Unsatisfied {
        /// The first failing constraint (0-based).
        index: usize,
        /// The constraints of the system.
        total: usize,
    },
    /// Bad input that is not a file format problem: keys or inputs that do not belong
    /// together, a bad thread count.
    #[error("{0}")]
    Invalid(String),
    /// ark-groth16 refused the constraint system or the keys.
    #[error("Groth16: {0}")]
    Synthesis(#[from] SynthesisError),
    /// An output path the shared checks refuse (a directory, an unwritable place).
    #[error(transparent)]
    Output(#[from] measure::Error),
}

impl Error {
    /// A failed read or write of `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A file `path` that is not what was expected, `msg` saying how.
    pub fn format(path: &Path, msg: impl Into<String>) -> Self {
        Error::Format {
            path: path.to_path_buf(),
            msg: msg.into(),
        }
    }

    /// Appends where in the file a format error happened (kept out of the hot parsing path).
    pub(crate) fn within(self, place: impl FnOnce() -> String) -> Self {
        match self {
            Error::Format { path, msg } => Error::Format {
                path,
                msg: format!("{msg} (in {})", place()),
            },
            other => other,
        }
    }
}
