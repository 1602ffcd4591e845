//! The one error type of the crate: what the programs' shared command-line pieces and output
//! checks refuse, each variant naming the option or file at fault, so that the program can
//! print it as its one-line refusal.

use std::io;
use std::path::PathBuf;

/// Bad input found by the shared pieces: a seed, a list of counts, an output path.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A `--seed` that is not 64 hexadecimal digits.
    #[error(
        "--seed must be 64 hexadecimal digits (32 bytes), got {got:?} ({} characters)",
        got.len()
    )]
    Seed {
        /// The text given (trimmed).
        got: String,
    },
    /// A `2^e` whose exponent is not a number.
    #[error("{option}: bad exponent in {token:?}")]
    Exponent {
        /// The option whose list it is.
        option: String,
        /// The item of the list.
        token: String,
    },
    /// A `2^e` beyond what any run can use.
    #[error("{option}: 2^{exponent} is too large")]
    TooLarge {
        /// The option whose list it is.
        option: String,
        /// The exponent given.
        exponent: u32,
    },
    /// An item that is neither a count nor a power of two.
    #[error("{option}: {token:?} is not a count")]
    NotACount {
        /// The option whose list it is.
        option: String,
        /// The item of the list.
        token: String,
    },
    /// A range `a..b` whose ends are not powers of two in order.
    #[error("{option}: a range must run between powers of two, got {part:?}")]
    Range {
        /// The option whose list it is.
        option: String,
        /// The range as given.
        part: String,
    },
    /// An output path that is a directory.
    #[error("{} is a directory, not a file", .0.display())]
    IsADirectory(PathBuf),
    /// An output's directory that cannot be made.
    #[error("cannot create directory {}: {source}", dir.display())]
    CreateDirectory {
        /// The directory.
        dir: PathBuf,
        /// Why not.
        source: io::Error,
    },
    /// An output file that cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Unwritable {
        /// The file.
        path: PathBuf,
        /// Why not.
        source: io::Error,
    },
}

/// Callers whose own errors are still text (a program's one-line refusal) take the message.
impl From<Error> for String {
    fn from(e: Error) -> String {
        e.to_string()
    }
}
