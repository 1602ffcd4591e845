//! Vector commitments.
#![forbid(unsafe_code)]

pub mod arkworks;
pub mod curve;
pub mod measurement;
pub mod merkle;
pub mod pairing;

/// What can go wrong with inputs to the schemes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
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
}
