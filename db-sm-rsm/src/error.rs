//! One error type for the library: a proof that does not verify, or input that is malformed.

/// Why an operation or a verification failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// A proof or a check was rejected; the text names the failing equation or item.
    #[error("verification failed: {0}")]
    Verify(String),
    /// An argument was malformed (wrong length, out of range, not invertible, ...).
    #[error("invalid input: {0}")]
    Input(String),
    /// The run's store (its directory of columns and journal) cannot be written or read, or
    /// holds a file that is not what it should be.
    #[error("the run's store: {0}")]
    Storage(String),
    /// The checkpoint the run resumed from does not bear itself out (a journaled verdict that
    /// does not check again, a column file that is not the one journaled): it is refused, and
    /// the run starts afresh.
    #[error("{0}")]
    Checkpoint(String),
    /// The run stopped: a party failed or disappeared, or the bulletin board did (the `tls`
    /// transport).
    #[error("{party} stopped the run at {step}: {why}")]
    Stopped {
        /// `mixer 2`, `verifier`, `driver` or `bulletin board`.
        party: String,
        /// Where the party that noticed was: the report's sections and label.
        step: String,
        /// What happened.
        why: String,
    },
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// Returns `Err(Error::Verify(what))` unless `ok`.
pub fn ensure(ok: bool, what: impl Into<String>) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::Verify(what.into()))
    }
}
