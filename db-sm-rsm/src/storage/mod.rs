//! Where a run keeps what does not fit its memory budget: per-entry lists on disk
//! ([`column`]) and the journal of finished steps from which a killed run resumes
//! ([`journal`]), both in the run's store, a directory of its own.
//!
//! A run of n entries makes, per entry and mix-server, kilobytes of ciphertexts and proofs
//! (about 25 KB per entry at m = 4 for the senders' inputs alone). Kept in memory, n = 10^6 would
//! need tens of gigabytes; in the store, a run holds in memory the parties' own per-entry
//! secrets (a few field elements per entry and mixer) and the working set of the step at hand.
//!
//! The store is the process's: [`init`] sets it once, before the run (the program puts it in
//! the run's directory); without it, a temporary directory is used, whose files go when their
//! columns do.

pub mod checkpoint;
pub mod column;
pub mod journal;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::{Error, Result};

pub use checkpoint::Checkpoint;
pub use column::{as_digests, as_references, encoded_len, Column, ColumnWriter, CHUNK};
pub use journal::Journal;

/// The directory of a run's files.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    /// Files stay when their columns go: a journal may name them (a resumable run).
    keep: bool,
    next: AtomicU64,
    /// Files of live columns: a temporary store's directory goes with its last file.
    live: AtomicU64,
}

static STORE: OnceLock<Store> = OnceLock::new();

impl Store {
    /// A store in `dir` (made if missing), keeping its files if `keep`.
    pub fn open(dir: &Path, keep: bool) -> Result<Store> {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::Storage(format!(
                "cannot make the run's store {}: {e}",
                dir.display()
            ))
        })?;
        Ok(Store {
            dir: dir.to_path_buf(),
            keep,
            next: AtomicU64::new(0),
            live: AtomicU64::new(0),
        })
    }

    /// A store in a fresh directory under the system's temporary directory, made with its
    /// first file and removed with its last.
    fn temporary() -> Store {
        let dir = std::env::temp_dir().join(format!(
            "db-sm-rsm-store-{}-{:016x}",
            std::process::id(),
            rand::random::<u64>()
        ));
        Store {
            dir,
            keep: false,
            next: AtomicU64::new(0),
            live: AtomicU64::new(0),
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// True iff files outlive their columns.
    pub fn keeps_files(&self) -> bool {
        self.keep
    }

    /// A path for a new file named after `name`, unused in this store. A resumed run goes on
    /// numbering after the files its journal names, so that none is overwritten.
    pub(crate) fn fresh_path(&self, name: &str) -> Result<PathBuf> {
        if self.live.fetch_add(1, Ordering::SeqCst) == 0 {
            std::fs::create_dir_all(&self.dir).map_err(|e| {
                Error::Storage(format!("cannot make the store {}: {e}", self.dir.display()))
            })?;
        }
        let safe: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .take(48)
            .collect();
        loop {
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            let path = self.dir.join(format!("{k:06}-{safe}.col"));
            if !path.exists() {
                return Ok(path);
            }
        }
    }

    /// A file of this store was removed; a temporary store's directory goes with its last.
    pub(crate) fn released(&self) {
        if self.live.fetch_sub(1, Ordering::SeqCst) == 1 && !self.keep {
            let _ = std::fs::remove_dir(&self.dir);
        }
    }
}

/// Makes the entries of directory `dir` durable (the files made in it, their names): a file's
/// own sync does not cover its directory entry.
pub fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::Storage(format!("cannot sync the directory {}: {e}", dir.display())))
}

/// Sets this process's store to `dir` (files kept if `keep`). Refused once a column exists.
pub fn init(dir: &Path, keep: bool) -> Result<()> {
    let s = Store::open(dir, keep)?;
    STORE
        .set(s)
        .map_err(|_| Error::Storage("the run's store is already set".into()))
}

/// This process's store ([`init`], or a temporary directory).
pub fn store() -> &'static Store {
    STORE.get_or_init(Store::temporary)
}
