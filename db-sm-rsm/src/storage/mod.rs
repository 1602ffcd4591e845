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
//!
//! **Owner-only.** What a run keeps holds its parties' secrets (shares, permutations, and in a
//! run without `--seed` the seed of every generator): every directory it makes is 0700 and
//! every file 0600, whatever the umask ([`private_dir`], [`private_file`]), and a checkpoint that
//! anybody but its owner could have written is not resumed from ([`untrusted`]).

pub mod checkpoint;
pub mod column;
pub mod journal;

use std::fs::{File, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
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

/// The attempt of the run this process is of ([`set_attempt`]; 0: none noted), which the
/// store's new files are named after.
static ATTEMPT: AtomicU32 = AtomicU32::new(0);

/// Notes the attempt of the run this process is of (its journal's): the store's new files are
/// named after it, so that a process of an earlier attempt that wakes up never writes over
/// them.
pub fn set_attempt(attempt: u32) {
    ATTEMPT.store(attempt, Ordering::SeqCst);
}

impl Store {
    /// A store in `dir` (made if missing), keeping its files if `keep`.
    pub fn open(dir: &Path, keep: bool) -> Result<Store> {
        private_dir(dir).map_err(|e| {
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
            private_dir(&self.dir).map_err(|e| {
                Error::Storage(format!("cannot make the store {}: {e}", self.dir.display()))
            })?;
        }
        let safe: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .take(48)
            .collect();
        let attempt = match ATTEMPT.load(Ordering::SeqCst) {
            0 => String::new(),
            a => format!("a{a}-"),
        };
        loop {
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            let path = self.dir.join(format!("{attempt}{k:06}-{safe}.col"));
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

/// Makes `dir` a directory only its owner may enter, reading and writing in it: exactly 0700
/// whatever the umask (an existing one of this user too). Missing parents are made as the umask
/// says: they hold the run's reports, not its secrets.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => {}
        Err(e) => return Err(e),
    }
    std::fs::set_permissions(dir, Permissions::from_mode(0o700))
}

/// Creates the file `path` (an existing one is emptied), readable and writable by its owner
/// only: exactly 0600 whatever the umask or the mode it had.
pub fn private_file(path: &Path) -> io::Result<File> {
    let f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.set_permissions(Permissions::from_mode(0o600))?;
    Ok(f)
}

/// Why the file or directory `path` cannot be trusted with a run's data, if it cannot: it
/// belongs to another user, or its group or others may write it. `secret`: it holds a secret,
/// which its group or others must not read either.
pub fn untrusted(path: &Path, secret: bool) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let mode = meta.mode() & 0o777;
    // The process's own user, as the kernel shows it in /proc (Linux).
    let me = std::fs::metadata("/proc/self").ok().map(|m| m.uid());
    if me.is_some_and(|me| me != meta.uid()) {
        return Some(format!(
            "{} belongs to another user (uid {}), who can write it",
            path.display(),
            meta.uid()
        ));
    }
    if meta.file_type().is_symlink() {
        return Some(format!("{} is a symbolic link", path.display()));
    }
    if mode & 0o022 != 0 {
        return Some(format!(
            "others can write {} (mode {mode:o})",
            path.display()
        ));
    }
    if secret && mode & 0o044 != 0 {
        return Some(format!(
            "others can read the secrets in {} (mode {mode:o})",
            path.display()
        ));
    }
    None
}

/// Makes the entries of directory `dir` durable (the files made in it, their names): a file's
/// own sync does not cover its directory entry.
pub fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::Storage(format!("cannot sync the directory {}: {e}", dir.display())))
}

/// Sets this process's store to `dir` (files kept if `keep`). Refused once a column exists,
/// unless in the same directory: a run that starts afresh in its emptied checkpoint keeps its
/// store there (made again).
pub fn init(dir: &Path, keep: bool) -> Result<()> {
    if let Some(s) = STORE.get().filter(|s| s.dir == dir && s.keep == keep) {
        return private_dir(&s.dir).map_err(|e| {
            Error::Storage(format!(
                "cannot make the run's store {}: {e}",
                dir.display()
            ))
        });
    }
    let s = Store::open(dir, keep)?;
    STORE
        .set(s)
        .map_err(|_| Error::Storage("the run's store is already set".into()))
}

/// This process's store ([`init`], or a temporary directory).
pub fn store() -> &'static Store {
    STORE.get_or_init(Store::temporary)
}
