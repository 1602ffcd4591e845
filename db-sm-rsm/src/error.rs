//! One error type for the library: a proof that does not verify, input that is malformed, a
//! value that does not parse, a board's record that is not intact, a run that stopped.

/// Why an operation or a verification failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// A proof or a check was rejected; the text names the failing equation or item.
    #[error("verification failed: {0}")]
    Verify(String),
    /// An argument was malformed (wrong length, out of range, not invertible, ...).
    #[error("invalid input: {0}")]
    Input(String),
    /// A value that does not parse (a command-line value, a party's or a section's name, a
    /// record's parameters): the text names it and what is accepted.
    #[error("{0}")]
    Parse(String),
    /// Where `--launch` would start the parties cannot be had (SLURM's placement refused): the
    /// text says why, in one line.
    #[error("error: {0}")]
    Placement(String),
    /// What the command line asks for cannot be done: an option without what it needs, an
    /// output that cannot be written, a checkpoint that cannot be opened, a key cache found
    /// damaged, worker threads that cannot start. One line, said before any long work.
    #[error("error: {0}")]
    Refused(String),
    /// A bulletin board's record that is not an intact record: the entry at fault named.
    #[error("{0}")]
    Record(#[from] RecordError),
    /// A record that is intact but cannot be re-checked as a run: it stops short of the run's
    /// end, or a post is missing or malformed.
    #[error("{0}")]
    Unfinished(String),
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

/// Why a board's record was refused: the entry at fault (its position in the file) and what is
/// wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// The position of the entry at fault (`None`: the file as a whole).
    pub entry: Option<u64>,
    /// What is wrong.
    pub why: String,
}

impl RecordError {
    /// What is wrong with the record as a whole, or with an entry not yet placed ([`Self::at`]).
    pub fn new(why: impl Into<String>) -> RecordError {
        RecordError {
            entry: None,
            why: why.into(),
        }
    }

    /// This error, of the entry at `position`.
    pub fn at(self, position: u64) -> RecordError {
        RecordError {
            entry: Some(position),
            ..self
        }
    }
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.entry {
            Some(i) => write!(f, "entry {i}: {}", self.why),
            None => f.write_str(&self.why),
        }
    }
}

impl std::error::Error for RecordError {}

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
