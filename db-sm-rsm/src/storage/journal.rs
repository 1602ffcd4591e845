//! The journal of a run: every step a process finished, in order, with what the step made, so
//! that the same command run again after the process was killed resumes where it stopped.
//!
//! A run is a fixed sequence of steps (docs/protocol.md), each a function of the party's
//! secrets, its random stream and what other parties made before. A resumed process runs the
//! sequence again from the start; a step found in the journal is not computed again: its value
//! is read back, its party's random stream is set to where the first attempt left it, and its
//! timers are the first attempt's (the report marks them resumed). Values in the run's store
//! ([`super::Column`]) are journaled as references to their files, which the store then keeps.
//!
//! **File.** A header, then records, appended as steps finish and synced to the disk:
//!
//! | field | bytes |
//! | --- | --- |
//! | length of the rest | 4 (little-endian) |
//! | kind (0 header, 1 step, 2 section, 3 hold, 4 attempt) | 1 |
//! | key | [`Wire`] string |
//! | body | [`Wire`] bytes |
//! | chain: SHA-256 of the previous record's chain, the length and the above | 32 |
//!
//! The header's key is the format's name and its body the run's identity ([`Identity`]: the
//! commit, the parameters, the process's party, its secret seed and the run's own random name,
//! which binds every party process's journal to the driver's). A record whose chain does not
//! match, or a header of another identity, makes the journal unusable: it is refused in one line
//! and the run starts afresh, never mixing two runs. A record cut short by the kill is dropped:
//! its step runs again.
//!
//! **Attempts.** Each attempt of the run notes its number in the journal (the driver counts
//! them; a party process is told its driver's). A resumed journal is copied to a new file that
//! replaces the old one before the attempt writes to it, and the store names its files after the
//! attempt: a process of an earlier attempt that was stopped (SIGSTOP) and wakes up later writes
//! only to the replaced file and to names of its own, never over the new attempt's. A process
//! told an attempt older than one its journal already holds refuses to start.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::primitives::wire::{decode, encode, Wire};
use crate::{Error, Result};

/// The format's name, the header's key.
pub const FORMAT: &str = "db-sm-rsm journal v2";

const HEADER: u8 = 0;
/// A finished step.
pub const STEP: u8 = 1;
/// A finished section.
pub const SECTION: u8 = 2;
/// The file beside the journals that marks a checkpoint refused ([`Journal::refuse`]).
pub const REFUSED: &str = "refused";
/// The attempt stopped at the start of a section and waited to be killed (`--hold-at`, a test
/// option): the key is the section's name, so that a later attempt can say it held.
const HOLD: u8 = 3;
/// An attempt began: the key is its number.
const ATTEMPT: u8 = 4;

/// What a journal belongs to: a resumed run must have the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The code's commit (and whether its tree was dirty).
    pub commit: String,
    /// Every parameter that changes what the run computes, as one line.
    pub parameters: String,
    /// The party (or parties) of this process.
    pub party: String,
    /// The seed of this process's generators when the run has none in public (secret).
    pub secret_seed: Option<[u8; 32]>,
    /// The run's name, drawn at random by its driver's first attempt: every journal of the run
    /// has the same.
    pub run: [u8; 32],
}

crate::wire_struct!(impl Identity {
    wire commit, wire parameters, wire party, wire secret_seed, wire run
});

/// One record read back.
#[derive(Clone, Debug)]
pub(crate) struct Record {
    kind: u8,
    key: String,
    body: Vec<u8>,
}

/// A process's journal: the records of a first attempt (if any) to resume from, and the file
/// the new ones go to.
pub struct Journal {
    path: PathBuf,
    file: File,
    chain: [u8; 32],
    earlier: HashMap<(u8, String), Vec<u8>>,
    /// Records of an earlier attempt read back so far.
    resumed: usize,
    /// Records of an earlier attempt done again and compared instead ([`Journal::recheck`]).
    rechecked: usize,
    /// The section where an earlier attempt held (`--hold-at`).
    held: Option<String>,
    /// The latest attempt an earlier one noted (0: none), then this attempt's number.
    attempt: u32,
    identity: Identity,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("path", &self.path)
            .field("earlier", &self.earlier.len())
            .finish()
    }
}

/// Why an earlier journal cannot be resumed from (one line), or the records it holds.
pub(crate) enum Earlier {
    /// No journal there.
    None,
    /// A journal of this identity: its records, the chain of the last one and where it ends.
    Resumable(Vec<Record>, [u8; 32], u64),
    /// A journal that must not be used, and why.
    Refused(String),
}

fn chain_of(prev: &[u8; 32], head: &[u8], payload: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(prev);
    h.update(head);
    h.update(payload);
    h.finalize().into()
}

fn io_err(path: &Path, e: io::Error) -> Error {
    Error::Storage(format!("the journal {}: {e}", path.display()))
}

/// A journal read back: its records, the chain of the last, the offset where it ends, and the
/// damage found, if any.
type ReadBack = (Vec<Record>, [u8; 32], u64, Option<String>);

/// Reads the records of the journal at `path`, checking every chain; a record cut short at the
/// end is left out (the kill came while it was written).
fn read_records(path: &Path) -> io::Result<ReadBack> {
    let mut bytes = Vec::new();
    File::open(path)?.read_to_end(&mut bytes)?;
    let mut records = Vec::new();
    let (mut at, mut chain) = (0usize, [0u8; 32]);
    loop {
        let rest = &bytes[at..];
        if rest.len() < 4 {
            break;
        }
        let len = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes")) as usize;
        if rest.len() < 4 + len + 32 {
            break;
        }
        let (head, payload) = (&rest[..4], &rest[4..4 + len]);
        let want = chain_of(&chain, head, payload);
        if rest[4 + len..4 + len + 32] != want {
            let why = format!("record {} does not match the chain", records.len());
            return Ok((records, chain, at as u64, Some(why)));
        }
        let parsed = payload.split_first().and_then(|(kind, mut inp)| {
            let key = String::get(&mut inp).ok()?;
            let body = Vec::<u8>::get(&mut inp).ok()?;
            inp.is_empty().then_some(Record {
                kind: *kind,
                key,
                body,
            })
        });
        let Some(record) = parsed else {
            let why = format!("record {} is malformed", records.len());
            return Ok((records, chain, at as u64, Some(why)));
        };
        records.push(record);
        chain = want;
        at += 4 + len + 32;
    }
    Ok((records, chain, at as u64, None))
}

/// Every record of the journal at `path` as written, the header first: (kind, key, body), its
/// chain checked, a record cut short left out. For tools and tests that look inside a
/// checkpoint; a run opens its journal with [`Journal::open`].
pub fn read_all(path: &Path) -> Result<Vec<(u8, String, Vec<u8>)>> {
    let (records, _, _, damage) = read_records(path).map_err(|e| io_err(path, e))?;
    if let Some(why) = damage {
        return Err(Error::Storage(format!(
            "the journal {}: {why}",
            path.display()
        )));
    }
    Ok(records
        .into_iter()
        .map(|r| (r.kind, r.key, r.body))
        .collect())
}

/// The identity in the header of the journal at `path`, if it has a whole one.
pub(crate) fn header(path: &Path) -> Option<Identity> {
    let (records, ..) = read_records(path).ok()?;
    let first = records
        .first()
        .filter(|r| r.kind == HEADER && r.key == FORMAT)?;
    decode(&first.body).ok()
}

/// What the journal at `path` holds for a run of `identity` (of its run, `identity.run`, unless
/// `any_run`: the driver adopts its journal's).
pub(crate) fn inspect(path: &Path, identity: &Identity, any_run: bool) -> Earlier {
    if !path.exists() {
        return Earlier::None;
    }
    if let Some(why) = super::untrusted(path, false) {
        return Earlier::Refused(why);
    }
    let (records, chain, end, damage) = match read_records(path) {
        Ok(r) => r,
        Err(e) => return Earlier::Refused(format!("it cannot be read ({e})")),
    };
    if let Some(why) = damage {
        return Earlier::Refused(format!("it is damaged ({why})"));
    }
    let header = match records.first() {
        Some(r) if r.kind == HEADER && r.key == FORMAT => decode::<Identity>(&r.body).ok(),
        Some(_) => None,
        // Killed before the header was whole: nothing to resume.
        None => return Earlier::None,
    };
    let Some(theirs) = header else {
        return Earlier::Refused(format!("it is not a {FORMAT} file"));
    };
    // A secret others could read is no longer the run's alone: its run is not continued.
    if theirs.secret_seed.is_some() {
        if let Some(why) = super::untrusted(path, true) {
            return Earlier::Refused(why);
        }
    }
    if theirs.commit != identity.commit {
        return Earlier::Refused(format!("it was made by commit {}", theirs.commit));
    }
    if theirs.parameters != identity.parameters {
        return Earlier::Refused(format!(
            "it was made with other parameters ({})",
            theirs.parameters
        ));
    }
    if theirs.party != identity.party {
        return Earlier::Refused(format!("it is {}'s", theirs.party));
    }
    if !any_run && theirs.run != identity.run {
        return Earlier::Refused("it belongs to another run than the driver's journal".into());
    }
    Earlier::Resumable(records, chain, end)
}

impl Journal {
    /// The journal at `path` for a run of `identity`: an earlier attempt's, to resume from, if
    /// it is one of this run (of any run if `any_run`; its secret seed and run then replace
    /// `identity`'s); else a new one, after `refused` is told in one line why an existing file
    /// was not used. Then [`Journal::begin_attempt`].
    pub fn open(
        path: &Path,
        identity: Identity,
        any_run: bool,
        refused: &mut dyn FnMut(&str),
    ) -> Result<Journal> {
        match inspect(path, &identity, any_run) {
            Earlier::Resumable(records, chain, end) => {
                // A record cut short by the kill goes; the rest goes to a new file that
                // replaces this one, so that a process of the earlier attempt still holding it
                // open writes where nobody reads.
                let file = replace_with_copy(path, end)?;
                let first: Identity = decode(&records[0].body)?;
                let held = records
                    .iter()
                    .find(|r| r.kind == HOLD)
                    .map(|r| r.key.clone());
                let attempt = records
                    .iter()
                    .filter(|r| r.kind == ATTEMPT)
                    .filter_map(|r| r.key.parse::<u32>().ok())
                    .max()
                    .unwrap_or(0);
                let earlier = records
                    .into_iter()
                    .skip(1)
                    .filter(|r| r.kind != HOLD && r.kind != ATTEMPT)
                    .map(|r| ((r.kind, r.key), r.body))
                    .collect();
                Ok(Journal {
                    path: path.to_path_buf(),
                    file,
                    chain,
                    earlier,
                    resumed: 0,
                    rechecked: 0,
                    held,
                    attempt,
                    identity: Identity {
                        secret_seed: first.secret_seed,
                        run: first.run,
                        ..identity
                    },
                })
            }
            other => {
                if let Earlier::Refused(why) = other {
                    refused(&format!(
                        "the checkpoint {} is not used: {why}; the run starts afresh",
                        path.display()
                    ));
                }
                Self::create(path, identity)
            }
        }
    }

    /// A new journal at `path` (an existing file is replaced) with its header.
    pub fn create(path: &Path, identity: Identity) -> Result<Journal> {
        let file = super::private_file(path).map_err(|e| io_err(path, e))?;
        let mut j = Journal {
            path: path.to_path_buf(),
            file,
            chain: [0; 32],
            earlier: HashMap::new(),
            resumed: 0,
            rechecked: 0,
            held: None,
            attempt: 0,
            identity,
        };
        let header = encode(&j.identity);
        j.append(HEADER, FORMAT, &header)?;
        Ok(j)
    }

    /// The identity the journal was made for (with the first attempt's secret seed and run).
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// Notes the attempt this process is of: `told` (a party process, told by its driver), or
    /// the one after the latest the journal holds (the driver). A process told an attempt no
    /// later than one the journal holds is of an earlier attempt that woke up late: refused.
    pub fn begin_attempt(&mut self, told: Option<u32>) -> Result<u32> {
        let attempt = match told {
            Some(k) if k <= self.attempt => {
                return Err(Error::Storage(format!(
                    "the journal {} was written by attempt {}: this process, of attempt {k},                      is too late",
                    self.path.display(),
                    self.attempt
                )))
            }
            Some(k) => k,
            None => self.attempt + 1,
        };
        self.append(ATTEMPT, &attempt.to_string(), &[])?;
        self.attempt = attempt;
        Ok(attempt)
    }

    /// This attempt's number ([`Journal::begin_attempt`]; 0 before it).
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// True iff an earlier attempt left records to resume from (or held before it made any).
    pub fn resuming(&self) -> bool {
        self.earlier_count() > 0 || self.held.is_some()
    }

    /// The section at whose start an earlier attempt held (`--hold-at`), if one did.
    pub fn held_before(&self) -> Option<&str> {
        self.held.as_deref()
    }

    /// Notes that this attempt holds at the start of `section` (`--hold-at`), and makes the
    /// journal and its directory durable: the attempt will be killed, and everything it
    /// journaled must survive for the next one to resume from.
    pub fn hold(&mut self, section: &str) -> Result<()> {
        self.append(HOLD, section, &[])?;
        self.file.sync_all().map_err(|e| io_err(&self.path, e))?;
        match self.path.parent() {
            Some(dir) => super::sync_dir(dir),
            None => Ok(()),
        }
    }

    /// How many records (steps and sections) an earlier attempt left.
    pub fn earlier_count(&self) -> usize {
        self.earlier.len() + self.resumed + self.rechecked
    }

    /// How many of the earlier attempt's records were done again and compared rather than
    /// read back.
    pub fn rechecked(&self) -> usize {
        self.rechecked
    }

    /// The body an earlier attempt journaled for the step `key`, taken to be compared with the
    /// step done again (not read back): the steps a status rests on.
    pub fn recheck(&mut self, key: &str) -> Option<Vec<u8>> {
        let body = self.earlier.remove(&(STEP, key.to_string()))?;
        self.rechecked += 1;
        Some(body)
    }

    /// Marks the whole checkpoint refused, saying why in the file [`REFUSED`] beside the journal:
    /// a process that found its journal untrue ([`crate::Error::Checkpoint`]) tells the driver,
    /// which then starts the run afresh.
    pub fn refuse(&self, why: &str) -> Result<()> {
        let path = self.path.with_file_name(REFUSED);
        let mut f = super::private_file(&path).map_err(|e| io_err(&path, e))?;
        f.write_all(why.as_bytes())
            .and_then(|()| f.sync_all())
            .map_err(|e| io_err(&path, e))
    }

    /// How many of the earlier attempt's records have been read back.
    pub fn resumed(&self) -> usize {
        self.resumed
    }

    /// The body an earlier attempt journaled under `kind` and `key`, if any.
    pub fn earlier(&mut self, kind: u8, key: &str) -> Option<Vec<u8>> {
        let body = self.earlier.remove(&(kind, key.to_string()))?;
        self.resumed += 1;
        Some(body)
    }

    /// Appends a record and syncs it to the disk.
    pub fn append(&mut self, kind: u8, key: &str, body: &[u8]) -> Result<()> {
        let mut payload = vec![kind];
        key.to_string().put(&mut payload);
        body.to_vec().put(&mut payload);
        let len = u32::try_from(payload.len())
            .map_err(|_| Error::Storage("a journal record of more than 4 GiB".into()))?;
        let head = len.to_le_bytes();
        self.chain = chain_of(&self.chain, &head, &payload);
        let mut rec = Vec::with_capacity(4 + payload.len() + 32);
        rec.extend_from_slice(&head);
        rec.extend_from_slice(&payload);
        rec.extend_from_slice(&self.chain);
        self.file
            .write_all(&rec)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| io_err(&self.path, e))
    }
}

/// Replaces the journal at `path` with a new file holding its first `end` bytes, and returns
/// the new file, open for appending after them.
fn replace_with_copy(path: &Path, end: u64) -> Result<File> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| io_err(path, e))?;
    let end = usize::try_from(end).unwrap_or(usize::MAX).min(bytes.len());
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".next");
    let next = path.with_file_name(name);
    let mut file = super::private_file(&next).map_err(|e| io_err(&next, e))?;
    file.write_all(&bytes[..end])
        .and_then(|()| file.sync_all())
        .map_err(|e| io_err(&next, e))?;
    std::fs::rename(&next, path).map_err(|e| io_err(path, e))?;
    if let Some(dir) = path.parent() {
        super::sync_dir(dir)?;
    }
    file.seek(SeekFrom::End(0)).map_err(|e| io_err(path, e))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;

    fn identity(parameters: &str) -> Identity {
        Identity {
            commit: "abc".into(),
            parameters: parameters.into(),
            party: "all".into(),
            secret_seed: Some([7; 32]),
            run: [9; 32],
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "db-sm-rsm-journal-test-{}-{name}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("journal")
    }

    #[test]
    fn a_journal_resumes_its_own_run_and_refuses_another_or_a_damaged_one() {
        let path = scratch("resume");
        let mut j = Journal::create(&path, identity("n=3")).unwrap();
        j.append(STEP, "a", b"one").unwrap();
        j.append(STEP, "b", b"two").unwrap();
        drop(j);
        // Cut the last record short, as a kill while writing it would.
        let len = std::fs::metadata(&path).unwrap().len();
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(len - 5).unwrap();
        let mut told = Vec::new();
        let mut j = Journal::open(&path, identity("n=3"), false, &mut |s| {
            told.push(s.to_string())
        })
        .unwrap();
        assert!(told.is_empty() && j.resuming());
        assert_eq!(j.earlier(STEP, "a").unwrap(), b"one");
        assert!(
            j.earlier(STEP, "b").is_none(),
            "the record cut short is dropped"
        );
        j.append(STEP, "b", b"again").unwrap();
        drop(j);
        // Another run's parameters: refused in one line, a fresh journal.
        let mut j = Journal::open(&path, identity("n=4"), false, &mut |s| {
            told.push(s.to_string())
        })
        .unwrap();
        assert!(!j.resuming() && j.earlier(STEP, "a").is_none());
        assert_eq!(told.len(), 1);
        assert!(told[0].contains("other parameters"), "{}", told[0]);
        j.append(STEP, "a", b"x").unwrap();
        drop(j);
        // One byte changed: damaged.
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 40;
        bytes[last] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        told.clear();
        let j = Journal::open(&path, identity("n=4"), false, &mut |s| {
            told.push(s.to_string())
        })
        .unwrap();
        assert!(!j.resuming());
        assert!(told[0].contains("damaged"), "{}", told[0]);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// A journal of another run (another run name, all else equal) is refused; a resumed journal
    /// is a new file, so that a process of the earlier attempt still holding the old one writes
    /// where nobody reads; attempts count up, and a process told an attempt the journal already
    /// passed is refused.
    #[test]
    fn a_journal_is_bound_to_its_run_and_its_attempts() {
        let path = scratch("attempts");
        let mut first = Journal::create(&path, identity("n=3")).unwrap();
        assert_eq!(first.begin_attempt(None).unwrap(), 1);
        first.append(STEP, "a", b"one").unwrap();
        let mut told = Vec::new();
        let mut other_run = identity("n=3");
        other_run.run = [8; 32];
        let j = Journal::open(&path, other_run.clone(), false, &mut |s| {
            told.push(s.to_string())
        });
        drop(j);
        assert_eq!(told.len(), 1);
        assert!(told[0].contains("another run"), "{}", told[0]);
        // Written again by the first attempt, then resumed by a second.
        let mut first = Journal::create(&path, identity("n=3")).unwrap();
        first.begin_attempt(None).unwrap();
        first.append(STEP, "a", b"one").unwrap();
        let mut second = Journal::open(&path, other_run, true, &mut |s| panic!("{s}")).unwrap();
        assert_eq!(
            second.identity().run,
            [9; 32],
            "the run's name is the journal's"
        );
        assert_eq!(second.begin_attempt(None).unwrap(), 2);
        // The first attempt wakes up and goes on writing: not into the second's journal.
        first.append(STEP, "b", b"stale").unwrap();
        second.append(STEP, "b", b"two").unwrap();
        drop((first, second));
        let mut third =
            Journal::open(&path, identity("n=3"), false, &mut |s| panic!("{s}")).unwrap();
        assert_eq!(third.earlier(STEP, "b").unwrap(), b"two");
        let late = third.begin_attempt(Some(2)).unwrap_err().to_string();
        assert!(late.contains("too late"), "{late}");
        assert_eq!(third.begin_attempt(Some(3)).unwrap(), 3);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}
