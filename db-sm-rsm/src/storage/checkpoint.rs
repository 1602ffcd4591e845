//! A run's checkpoint: the directory from which the same command, run again after the run was
//! killed, resumes it. Every process of the run keeps its own journal there ([`super::journal`]),
//! `journal-<party>` (`driver`, `mixer-K`, `verifier`), whose identity names that process's party,
//! and its own store: the driver's (with `--transport local`, every party's) is the directory
//! itself, a party process's the subdirectory `<party>/`.
//!
//! **All or nothing.** The processes of a `tls` run depend on each other's values: a mixer's
//! shuffle takes the previous mixer's output, the dealer's keys reach every mixer. A run resumed
//! from some journals but started afresh in others could mix two attempts (without `--seed`,
//! each process draws its secrets from a seed only its own journal holds). So before any process
//! starts, the driver checks every process's journal ([`Checkpoint::vet`]): one of another
//! commit, other parameters or another party, a damaged one, or party journals without the
//! driver's, and the whole checkpoint is refused in one line and emptied, and every process
//! starts afresh. A party whose journal was never written (its process was killed before it
//! began) starts afresh alone: it made nothing another party could have used.
//!
//! **One run.** The driver's journal names the run (a random name drawn by its first attempt)
//! and counts its attempts; the driver tells each party process both ([`Checkpoint::bound`]). A
//! party journal of another run (left by another run of the same command, or put there) is
//! refused like a damaged one, and a process of an earlier attempt cannot start on the journal
//! of a later one ([`Journal::begin_attempt`]).

use std::path::{Path, PathBuf};

use super::journal::{Earlier, Identity, Journal};
use crate::{Error, Result};

/// The process that writes the report (with `--transport local`, the only one).
pub const DRIVER: &str = "driver";

/// A run's checkpoint directory and what its journals must belong to.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    dir: PathBuf,
    /// The code's commit (and whether its tree was dirty).
    commit: String,
    /// Every parameter that changes what the run computes, as one line.
    parameters: String,
    /// For a party process: the run's name and the attempt, as its driver told them.
    bound: Option<([u8; 32], u32)>,
}

/// `mixer 0` as a file name: `mixer-0`.
fn file_name(party: &str) -> String {
    party.replace(' ', "-")
}

impl Checkpoint {
    /// The checkpoint in `dir` of a run of this code with `parameters`.
    pub fn new(dir: &Path, parameters: String) -> Checkpoint {
        let p = measure::provenance::provenance();
        let dirty = if p.dirty == Some(true) { "+dirty" } else { "" };
        Checkpoint::of(dir, format!("{}{dirty}", p.commit), parameters)
    }

    /// The checkpoint in `dir` of a run of `commit` with `parameters` (as another process of
    /// the run was told them: [`Checkpoint::party_args`]).
    pub fn of(dir: &Path, commit: String, parameters: String) -> Checkpoint {
        Checkpoint {
            dir: dir.to_path_buf(),
            commit,
            parameters,
            bound: None,
        }
    }

    /// The checkpoint as a party process of the run named `run`, in its attempt `attempt`,
    /// opens it: its journal must be of that run, and of no later attempt.
    pub fn bound(self, run: [u8; 32], attempt: u32) -> Checkpoint {
        Checkpoint {
            bound: Some((run, attempt)),
            ..self
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The journal of `party`'s process.
    pub fn journal_path(&self, party: &str) -> PathBuf {
        self.dir.join(format!("journal-{}", file_name(party)))
    }

    /// The store of `party`'s process: the directory itself for the driver, a subdirectory of
    /// its own for a party process, so that no two processes number files in one directory.
    pub fn store_dir(&self, party: &str) -> PathBuf {
        if party == DRIVER {
            self.dir.clone()
        } else {
            self.dir.join(file_name(party))
        }
    }

    /// What `party`'s journal must belong to; a fresh one gets `secret_seed`, and the run's name
    /// (the driver's first attempt draws it).
    fn identity(&self, party: &str, secret_seed: Option<[u8; 32]>) -> Identity {
        let run = match self.bound {
            Some((run, _)) => run,
            None => {
                let mut run = [0u8; 32];
                rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut run);
                run
            }
        };
        Identity {
            commit: self.commit.clone(),
            parameters: self.parameters.clone(),
            party: party.to_string(),
            secret_seed,
            run,
        }
    }

    /// The options that tell a party process of a `tls` run this checkpoint, the run's name and
    /// the attempt (its driver's journal's).
    pub fn party_args(&self, driver: &Journal) -> Vec<String> {
        let run: String = driver
            .identity()
            .run
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        vec![
            "--checkpoint".into(),
            self.dir.to_string_lossy().into_owned(),
            "--checkpoint-commit".into(),
            self.commit.clone(),
            "--checkpoint-parameters".into(),
            self.parameters.clone(),
            "--checkpoint-run".into(),
            run,
            "--checkpoint-attempt".into(),
            driver.attempt().to_string(),
        ]
    }

    /// Checks the journal of every process of the run (`parties`, the driver's among them)
    /// before any is opened: if one cannot be resumed from, or party journals are there without
    /// the driver's, says why in one line (`say`) and empties the directory, so that every
    /// process starts afresh. Returns true iff the run resumes.
    pub fn vet(&self, parties: &[String], say: &mut dyn FnMut(&str)) -> Result<bool> {
        let mut found = Vec::new();
        // Whatever it holds, a checkpoint others could have written is not resumed from, nor one
        // a process of an earlier attempt found untrue.
        let mut refusal = untrusted_tree(&self.dir).or_else(|| self.refused());
        let vetted = if refusal.is_none() {
            parties
        } else {
            &parties[..0]
        };
        // The party journals must be of the driver's journal's run.
        let run = super::journal::header(&self.journal_path(DRIVER)).map(|h| h.run);
        for party in vetted {
            let path = self.journal_path(party);
            let mut identity = self.identity(party, None);
            let any_run = party == DRIVER || run.is_none();
            identity.run = run.unwrap_or(identity.run);
            match super::journal::inspect(&path, &identity, any_run) {
                Earlier::None => {}
                Earlier::Resumable(..) => found.push(party.as_str()),
                Earlier::Refused(why) => {
                    refusal = Some(format!("{}: {why}", path.display()));
                    break;
                }
            }
        }
        if refusal.is_none() && !found.is_empty() && !found.contains(&DRIVER) {
            refusal = Some(format!(
                "the journal of {} is there without the driver's",
                found.join(", ")
            ));
        }
        let Some(why) = refusal else {
            return Ok(!found.is_empty());
        };
        say(&format!(
            "the checkpoint {} is not used: {why}; the run starts afresh",
            self.dir.display()
        ));
        self.empty().map(|()| false)
    }

    /// `party`'s journal, after [`Checkpoint::vet`]: an earlier attempt's to resume from, or a
    /// new one whose secret seed is `fresh_seed` (None: the run has a public seed). The process's
    /// store is set to [`Checkpoint::store_dir`]. A journal that cannot be resumed from is an
    /// error here: the driver vetted it, so it changed since, and starting this process afresh
    /// alone could mix two attempts.
    /// The journal notes its attempt ([`Journal::begin_attempt`]: a party process's is the one
    /// it was told), after which the store names its files.
    pub fn open(&self, party: &str, fresh_seed: Option<[u8; 32]>) -> Result<Journal> {
        let (path, identity) = (self.journal_path(party), self.identity(party, fresh_seed));
        let any_run = self.bound.is_none();
        if let Earlier::Refused(why) = super::journal::inspect(&path, &identity, any_run) {
            return Err(Error::Storage(format!(
                "the checkpoint {} is not used: {why}",
                path.display()
            )));
        }
        super::init(&self.store_dir(party), true)?;
        let mut journal = Journal::open(&path, identity, any_run, &mut |_| {})?;
        let attempt = journal.begin_attempt(self.bound.map(|(_, a)| a))?;
        super::set_attempt(attempt);
        Ok(journal)
    }
}

impl Checkpoint {
    /// Why a process of an earlier attempt refused this checkpoint, if one did
    /// ([`Journal::refuse`]).
    pub fn refused(&self) -> Option<String> {
        let why = std::fs::read_to_string(self.dir.join(super::journal::REFUSED)).ok()?;
        Some(why.trim().to_string())
    }

    /// Empties the checkpoint (an earlier attempt's, refused), so that the run starts afresh.
    pub fn empty(&self) -> Result<()> {
        match std::fs::remove_dir_all(&self.dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::Storage(format!(
                "the checkpoint {} cannot be emptied: {e}",
                self.dir.display()
            ))),
        }
    }
}

/// Why the checkpoint directory `dir` cannot be trusted, if it cannot: it, an entry of it or an
/// entry of one of its subdirectories (the party processes' stores) belongs to another user or
/// is writable by others ([`super::untrusted`]).
fn untrusted_tree(dir: &Path) -> Option<String> {
    if !dir.exists() {
        return None;
    }
    let mut look = vec![(dir.to_path_buf(), 0)];
    while let Some((path, depth)) = look.pop() {
        if let Some(why) = super::untrusted(&path, false) {
            return Some(why);
        }
        if depth < 2 && path.is_dir() {
            let entries = std::fs::read_dir(&path).ok()?;
            look.extend(entries.flatten().map(|e| (e.path(), depth + 1)));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::journal::STEP;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "db-sm-rsm-checkpoint-test-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn write(cp: &Checkpoint, party: &str) {
        std::fs::create_dir_all(cp.dir()).unwrap();
        let path = cp.journal_path(party);
        let bound = cp.clone().bound([5; 32], 1);
        let mut j = Journal::create(&path, bound.identity(party, None)).unwrap();
        j.append(STEP, "a", b"one").unwrap();
    }

    #[test]
    fn every_journal_is_vetted_and_one_bad_one_empties_the_checkpoint() {
        let dir = scratch("vet");
        let cp = Checkpoint::of(&dir, "abc".into(), "n=3".into());
        let parties: Vec<String> = ["driver", "mixer 0", "mixer 1", "verifier"]
            .map(String::from)
            .to_vec();
        let mut told = Vec::new();
        assert!(!cp.vet(&parties, &mut |s| told.push(s.to_string())).unwrap());
        write(&cp, "driver");
        write(&cp, "mixer 0");
        // Mixer 1 and the verifier never began: the others resume.
        assert!(cp.vet(&parties, &mut |s| told.push(s.to_string())).unwrap());
        assert!(told.is_empty(), "{told:?}");
        assert_eq!(cp.journal_path("mixer 0"), dir.join("journal-mixer-0"));
        assert_eq!(cp.store_dir("mixer 0"), dir.join("mixer-0"));
        // One changed byte in mixer 0's journal: refused in one line, every journal gone.
        let path = cp.journal_path("mixer 0");
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() - 40;
        bytes[at] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        assert!(!cp.vet(&parties, &mut |s| told.push(s.to_string())).unwrap());
        assert_eq!(told.len(), 1, "{told:?}");
        assert!(
            told[0].contains("journal-mixer-0") && told[0].contains("damaged"),
            "{}",
            told[0]
        );
        assert!(!cp.journal_path("driver").exists());
        // A party's journal without the driver's: refused too.
        write(&cp, "verifier");
        told.clear();
        assert!(!cp.vet(&parties, &mut |s| told.push(s.to_string())).unwrap());
        assert!(told[0].contains("without the driver's"), "{}", told[0]);
        // Another run's parameters: refused.
        let other = Checkpoint::of(&dir, "abc".into(), "n=4".into());
        write(&cp, "driver");
        told.clear();
        assert!(!other
            .vet(&parties, &mut |s| told.push(s.to_string()))
            .unwrap());
        assert!(told[0].contains("other parameters"), "{}", told[0]);
        // A party journal of another run beside the driver's: refused.
        write(&cp, "driver");
        let foreign = cp.clone().bound([6; 32], 1);
        let path = foreign.journal_path("mixer 1");
        Journal::create(&path, foreign.identity("mixer 1", None)).unwrap();
        told.clear();
        assert!(!cp.vet(&parties, &mut |s| told.push(s.to_string())).unwrap());
        assert_eq!(told.len(), 1, "{told:?}");
        assert!(
            told[0].contains("journal-mixer-1") && told[0].contains("another run"),
            "{}",
            told[0]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
