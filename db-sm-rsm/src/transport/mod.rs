//! How the parties of a run talk to each other: all in one process (`--transport local`), or
//! each mix-server, the verifier and the bulletin board in a process of its own, the dealer and
//! the senders in the driver, every message a post on the board over TLS 1.3
//! (`--transport tls`).
//!
//! The protocol's code is the same for both: every process runs every step of the run in order
//! ([`crate::protocol::run`]), but does only the work of the parties it hosts ([`Roles`]). What
//! a party of another process made, it reads from the board when it needs it; what its own
//! parties make, it posts. A [`Ctx`] is a process's view of the run: its report (the timers of
//! its own parties) and its link to the board. The driver also keeps a place in its report for
//! every other party's step and fills it at the end with the figures that party's process
//! recorded ([`crate::measurement::report::Report::fill`]), so both transports print the same
//! report.
//!
//! With one process, nothing is encoded or sent: a party's values are simply there. The few
//! values that one party hands to another inside a step (the colluding mixers' blinding shares
//! of the `zero-blinding` tamper) go through an in-process list of posts.
//!
//! An auditor ([`Ctx::auditing`]) is a process of no party that reads every post from a board's
//! record instead of the board ([`record`]): it runs every step as a process without parties
//! does, and the steps layer has it re-run every check itself ([`AuditRow`]).

pub mod admission;
pub mod board;
pub mod placement;
pub mod process;
pub mod record;
pub mod roster;

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::measurement::report::{NetStats, Party, Report, TimerRecord, Totals};
use crate::primitives::wire::{decode, encode, Wire};
use crate::storage::journal::{SECTION, STEP};
use crate::storage::{as_digests, as_references, encoded_len, Journal};
use crate::{Error, Result};

use board::{frame_bytes, BoardClient, Failure, STAMP};
use record::Record;

/// The parties a process hosts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Roles {
    /// Mix-servers in the run.
    pub m: usize,
    /// The mix-servers hosted here.
    pub mixers: Vec<usize>,
    /// The verifier is hosted here.
    pub verifier: bool,
    /// The dealer and the senders are hosted here, and this process writes the report.
    pub driver: bool,
    /// No party is hosted here: this process re-checks a finished run from its record.
    pub auditor: bool,
}

impl Roles {
    /// Every party, in one process.
    pub fn all(m: usize) -> Roles {
        Roles {
            m,
            mixers: (0..m).collect(),
            verifier: true,
            driver: true,
            auditor: false,
        }
    }

    /// No party: the auditor of a run with `m` mixers.
    pub fn auditor(m: usize) -> Roles {
        Roles {
            m,
            mixers: Vec::new(),
            verifier: false,
            driver: false,
            auditor: true,
        }
    }

    /// True iff mixer k is hosted here.
    pub fn mixer(&self, k: usize) -> bool {
        self.mixers.contains(&k)
    }

    /// True iff `party` is hosted here.
    pub fn hosts(&self, party: Party) -> bool {
        match party {
            Party::Mixer(k) => self.mixer(k),
            Party::Verifier => self.verifier,
        }
    }

    /// The name of this process's party on the board: `driver`, `verifier` or `mixer k`
    /// (`auditor` for the auditor, which posts nothing).
    pub fn name(&self) -> String {
        if self.auditor {
            "auditor".into()
        } else if self.driver {
            "driver".into()
        } else if self.verifier {
            "verifier".into()
        } else {
            format!("mixer {}", self.mixers.first().copied().unwrap_or(0))
        }
    }
}

/// Something to do when the process enters a section (a fault the tests inject).
pub type Hook = Box<dyn FnMut() + Send>;

/// What one party posted under one scope of tags ([`scope_of`]): bytes as sent (the frame: its
/// kind, tag, stamp and body, as [`board::frame_bytes`] counts them) and posts. With every party
/// in one process nothing is sent, and these are the bytes the same posts would take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posted {
    /// `driver`, `mixer k` or `verifier`: the owner of the tags.
    pub party: String,
    /// The tags' scope.
    pub scope: String,
    /// Bytes as sent.
    pub bytes: u64,
    /// Posts.
    pub posts: u64,
}

crate::wire_struct!(impl Posted { wire party, wire scope, wire bytes, wire posts });

/// The scope of a tag: its first path components, at most three and never its last (which
/// names the party or the label): `main/forward set membership/dpk_bbsig_nizkproofs` for every
/// post of that section, `main` for the senders' inputs, `preprocessing` for the dealer's keys.
pub fn scope_of(tag: &str) -> String {
    let parts: Vec<&str> = tag.split('/').collect();
    parts[..parts.len().saturating_sub(1).min(3)].join("/")
}

/// What a process of a resumed run made of its journal: records read back, records done again
/// and compared instead (the steps a status rests on), and records the earlier attempt left.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resumed {
    /// Records read back instead of doing their steps again.
    pub read_back: u64,
    /// Records whose steps were done again and compared with them.
    pub rechecked: u64,
    /// Records the earlier attempt left.
    pub found: u64,
}

crate::wire_struct!(impl Resumed { wire read_back, wire rechecked, wire found });

/// The digest of a transcript, `(tag, digest of its value)` in the order of the tags: SHA-256
/// over every tag's length, the tag and the digest.
pub fn transcript_digest<'a>(values: impl Iterator<Item = (&'a String, &'a [u8; 32])>) -> [u8; 32] {
    let mut h = Sha256::new();
    for (tag, digest) in values {
        h.update((tag.len() as u64).to_le_bytes());
        h.update(tag.as_bytes());
        h.update(digest);
    }
    h.finalize().into()
}

/// One check as an auditor saw it: where it is, whether the auditor's own computation passed
/// (`None`: a check of secret data it cannot redo, whose verdicts it takes), and each party's
/// posted verdict set beside the auditor's (true: they agree; with `recomputed` None, the
/// verdict itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditRow {
    /// The open sections, joined by " > ".
    pub step: String,
    /// The check's report label.
    pub label: String,
    /// The auditor's own result.
    pub recomputed: Option<bool>,
    /// Per party: agrees with the auditor (or, unchecked, its verdict).
    pub parties: Vec<(String, bool)>,
}

impl AuditRow {
    /// A row of the check `label` at `step`.
    pub fn new(
        step: String,
        label: &str,
        recomputed: Option<bool>,
        parties: Vec<(String, bool)>,
    ) -> AuditRow {
        AuditRow {
            step,
            label: label.to_string(),
            recomputed,
            parties,
        }
    }

    /// True iff the auditor redid the check and every party's verdict agrees with it.
    pub fn agrees(&self) -> bool {
        self.recomputed.is_none() || self.parties.iter().all(|(_, same)| *same)
    }
}

/// A process's view of the run: its report, the parties it hosts and its link to the board.
/// It derefs to its [`Report`].
pub struct Ctx {
    report: Report,
    /// The parties hosted here.
    pub roles: Roles,
    board: Option<Arc<BoardClient>>,
    /// The auditor's source of posts.
    record: Option<Arc<Record>>,
    local_posts: HashMap<String, Box<dyn Any + Send>>,
    hooks: Vec<(String, Hook)>,
    journal: Option<Journal>,
    /// How many steps and sections of each key this attempt has passed.
    seen: HashMap<String, usize>,
    /// The transcript: SHA-256 of every value this process's parties made public, by tag.
    transcript: BTreeMap<String, [u8; 32]>,
    audit: Vec<AuditRow>,
    /// Set by a fault: this process's parties post the opposite of their verdicts.
    lies: Arc<AtomicBool>,
    /// Bytes and posts of this process's parties, by (party, scope).
    posted: BTreeMap<(String, String), (u64, u64)>,
    /// `--hold-at`: the section, and whether this attempt holds there.
    hold: Option<HoldAt>,
}

/// `--hold-at SECTION` (a test option): the section, and whether this attempt holds at its start
/// until it is killed (a run that starts fresh) or goes on (a run that resumes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoldAt {
    /// The section's name, as the report's timers and the journal use it.
    pub section: String,
    /// This attempt holds there.
    pub holds: bool,
}

/// What a section returns: whether it finished (only a finished section is journaled).
pub trait Finished {
    /// True iff the section did all its work.
    fn finished(&self) -> bool;
}

/// A section with no outcome of its own (a test's) finishes when it returns.
impl Finished for () {
    fn finished(&self) -> bool {
        true
    }
}

impl<T> Finished for Result<T> {
    fn finished(&self) -> bool {
        self.is_ok()
    }
}

impl Deref for Ctx {
    type Target = Report;
    fn deref(&self) -> &Report {
        &self.report
    }
}

impl DerefMut for Ctx {
    fn deref_mut(&mut self) -> &mut Report {
        &mut self.report
    }
}

impl Ctx {
    /// Every party in this process (`--transport local`).
    pub fn local(report: Report) -> Ctx {
        let m = report.mixers();
        Ctx::with_roles(report, Roles::all(m), None, None)
    }

    /// The auditor of the run recorded in `record`: no party here, every post read from the
    /// record.
    pub fn auditing(report: Report, record: Arc<Record>) -> Ctx {
        let m = report.mixers();
        Ctx::with_roles(report, Roles::auditor(m), None, Some(record))
    }

    fn with_roles(
        report: Report,
        roles: Roles,
        board: Option<Arc<BoardClient>>,
        record: Option<Arc<Record>>,
    ) -> Ctx {
        Ctx {
            report,
            roles,
            board,
            record,
            local_posts: HashMap::new(),
            hooks: Vec::new(),
            journal: None,
            seen: HashMap::new(),
            transcript: BTreeMap::new(),
            audit: Vec::new(),
            lies: Arc::new(AtomicBool::new(false)),
            posted: BTreeMap::new(),
            hold: None,
        }
    }

    /// Notes one check as the auditor saw it.
    pub fn audit(&mut self, row: AuditRow) {
        self.audit.push(row);
    }

    /// The auditor's rows, in run order.
    pub fn audit_rows(&self) -> &[AuditRow] {
        &self.audit
    }

    /// The parties `roles` in this process, the others reached through `board`.
    pub fn networked(report: Report, roles: Roles, board: Arc<BoardClient>) -> Ctx {
        Ctx::with_roles(report, roles, Some(board), None)
    }

    /// Journals every step and section this process finishes in `journal`, and reads back what
    /// an earlier attempt journaled there instead of doing it again.
    pub fn with_journal(mut self, journal: Journal) -> Ctx {
        self.journal = Some(journal);
        self
    }

    /// With `hold.holds`, holds at the start of the first section named `hold.section` until
    /// the process is killed (`--hold-at`, a test option: a run that cannot end before a time
    /// limit, whatever the machine's speed).
    pub fn hold_at(mut self, hold: HoldAt) -> Ctx {
        self.hold = Some(hold);
        self
    }

    /// The run's `--hold-at`, if given.
    pub fn hold_option(&self) -> Option<&HoldAt> {
        self.hold.as_ref()
    }

    /// The hold itself: what this process journaled made durable (the next attempt resumes
    /// from it), the hold noted in the journal, one line on stderr, then sleep until killed.
    fn hold_here(&mut self, section: &str) -> ! {
        let who = if self.roles.driver {
            String::new()
        } else {
            format!(" {}", self.roles.name())
        };
        let store = crate::storage::store();
        let durable = self
            .journal
            .as_mut()
            .map_or(Ok(()), |j| j.hold(section))
            .and_then(|()| match store.keeps_files() {
                true => crate::storage::sync_dir(store.dir()),
                false => Ok(()),
            });
        if let Err(e) = durable {
            eprintln!("db-sm-rsm{who}: the checkpoint may not survive the kill: {e}");
        }
        eprintln!("db-sm-rsm{who}: held at {section} until killed (--hold-at, a test option)");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }

    /// The journal, if the run keeps one.
    pub fn journal(&self) -> Option<&Journal> {
        self.journal.as_ref()
    }

    /// On a resumed run, how many records of the earlier attempt's journal this process read
    /// back, did again and compared, and found.
    pub fn resumed(&self) -> Option<Resumed> {
        let j = self.journal.as_ref().filter(|j| j.resuming())?;
        Some(Resumed {
            read_back: j.resumed() as u64,
            rechecked: j.rechecked() as u64,
            found: j.earlier_count() as u64,
        })
    }

    /// The journal's key of the next step or section of `tag`: the tag and how many of it came
    /// before in this attempt.
    fn next_key(&mut self, tag: String) -> String {
        let n = self.seen.entry(tag.clone()).or_default();
        let key = format!("{tag}#{n}");
        *n += 1;
        key
    }

    /// The journal key of the step `label` of `party` (None: the driver's) here.
    pub fn step_key(&mut self, party: Option<Party>, label: &str) -> String {
        let tag = self.tag(party, label);
        self.next_key(tag)
    }

    /// On a resumed run, what the first attempt journaled for the step `key`: its value and
    /// the position of its party's random stream after it, its timers put back in the report.
    pub fn read_back<T: Wire>(&mut self, key: &str) -> Result<Option<(T, Option<u128>)>> {
        let Some(body) = self.journal.as_mut().and_then(|j| j.earlier(STEP, key)) else {
            return Ok(None);
        };
        // A journal that does not bear itself out is refused (the run starts afresh).
        let untrue =
            |e: Error| Error::Checkpoint(format!("its step {key:?} cannot be read back ({e})"));
        let (value, rng, timers): (Vec<u8>, Option<u128>, Vec<TimerRecord>) =
            decode(&body).map_err(untrue)?;
        let (_, here) = self.report.open_path();
        for t in &timers {
            if t.section || t.path != here {
                return Err(Error::Checkpoint(format!(
                    "its step {key:?} does not fit this run's sections"
                )));
            }
            self.report.restore_leaf(t).map_err(untrue)?;
        }
        Ok(Some((
            as_references(|| decode(&value)).map_err(untrue)?,
            rng,
        )))
    }

    /// On a resumed run, what the first attempt journaled for the step `key`, which this attempt
    /// does again and compares ([`crate::protocol::steps::journaled_check`]): its value (its
    /// columns' files checked) and its party's stream position after it.
    pub fn recheck<T: Wire>(&mut self, key: &str) -> Result<Option<(T, Option<u128>)>> {
        let Some(body) = self.journal.as_mut().and_then(|j| j.recheck(key)) else {
            return Ok(None);
        };
        let untrue =
            |e: Error| Error::Checkpoint(format!("its step {key:?} cannot be read back ({e})"));
        let (value, rng, _): (Vec<u8>, Option<u128>, Vec<TimerRecord>) =
            decode(&body).map_err(untrue)?;
        Ok(Some((
            as_references(|| decode(&value)).map_err(untrue)?,
            rng,
        )))
    }

    /// Marks the run's checkpoint refused for `why` (a process of a `tls` run that found its
    /// journal untrue tells the driver so).
    pub fn refuse_checkpoint(&self, why: &str) {
        if let Some(j) = &self.journal {
            if let Err(e) = j.refuse(why) {
                eprintln!("db-sm-rsm: {e}");
            }
        }
    }

    /// After the step `key` ran (its timers are those made since the tree held `first`
    /// timers): journals its value and its party's stream position.
    pub fn journal_step<T: Wire>(
        &mut self,
        key: &str,
        value: &T,
        rng: Option<u128>,
        first: usize,
    ) -> Result<()> {
        let timers = self.report.records_since(first);
        let Some(journal) = self.journal.as_mut() else {
            return Ok(());
        };
        let value = as_references(|| encode(value));
        journal.append(STEP, key, &encode(&(value, rng, timers)))
    }

    /// A switch that, once on, makes this process's parties post the opposite of every verdict
    /// (a fault the tests inject: what only an auditor catches).
    pub fn liar(&self) -> Arc<AtomicBool> {
        self.lies.clone()
    }

    /// True once this process's parties post the opposite of their verdicts.
    pub(crate) fn lies(&self) -> bool {
        self.lies.load(Ordering::SeqCst)
    }

    /// Runs `hook` when the process first enters a section named `section`.
    pub fn on_section(&mut self, section: &str, hook: Hook) {
        self.hooks.push((section.to_string(), hook));
    }

    /// The report, taken out at the end of the run.
    pub fn into_report(self) -> Report {
        self.report
    }

    /// True with the `tls` transport (and for its auditor): other processes' parts are posts.
    pub fn networked_run(&self) -> bool {
        self.board.is_some() || self.record.is_some()
    }

    /// True in the process that writes the report while other processes do some of the work:
    /// it keeps a place for every step of another process's party.
    pub fn assembles(&self) -> bool {
        self.board.is_some() && self.roles.driver
    }

    /// The link to the board, with the `tls` transport.
    pub fn board(&self) -> Option<&Arc<BoardClient>> {
        self.board.as_ref()
    }

    /// Runs `f` inside a section timer (party-less) that prints the given per-party totals.
    pub fn section<T: Finished>(
        &mut self,
        name: &str,
        totals: Totals,
        f: impl FnOnce(&mut Ctx) -> T,
    ) -> T {
        if matches!(&self.hold, Some(h) if h.holds && h.section == name) {
            self.hold_here(name);
        }
        for (at, hook) in &mut self.hooks {
            if at == name {
                hook();
                at.clear();
            }
        }
        // Chains of posts count from the start of each section below `main` (the board's hops).
        if self.report.open_path().1.len() == 1 {
            if let Some(board) = &self.board {
                board.new_epoch();
            }
        }
        let first = self.report.timer_count();
        self.report.open_section(name, totals);
        let (_, path) = self.report.open_path();
        let key = self.next_key(path.join("/"));
        let out = f(self);
        let earlier = self.journal.as_mut().and_then(|j| j.earlier(SECTION, &key));
        match earlier.map(|b| decode::<TimerRecord>(&b)) {
            Some(Ok(rec)) if out.finished() => self.report.close_resumed_section(&rec),
            _ => {
                self.report.close_section();
                if out.finished() {
                    let rec = self.report.last_closed_record(first);
                    if let Some(j) = self.journal.as_mut() {
                        // A section journaled or not changes no value: a failure to write it
                        // only means a later resume redoes less than it could.
                        let _ = j.append(SECTION, &key, &encode(&rec));
                    }
                }
            }
        }
        out
    }

    /// The tag of a post about the step `label` of `party` (None: the driver's) at the current
    /// place of the run: the open sections, the label and the party.
    pub fn tag(&self, party: Option<Party>, label: &str) -> String {
        let (_, mut path) = self.report.open_path();
        path.push(label.to_string());
        if let Some(p) = party {
            path.push(p.to_string());
        }
        path.join("/")
    }

    /// Where the run is in this process: the open sections, joined by " > ".
    pub fn step(&self) -> String {
        self.report.open_path().1.join(" > ")
    }

    fn stopped(&self, f: Failure) -> Error {
        Error::Stopped {
            party: f.party,
            step: self.step(),
            why: f.why,
        }
    }

    /// Counts a post of `bytes` (as sent) under `tag` in this process's ledger ([`Posted`]); the
    /// timers and statuses posted at the end are the transport's, not the protocol's, and are
    /// left out.
    fn note_post(&mut self, tag: &str, bytes: u64) {
        if tag.starts_with("records/") {
            return;
        }
        let key = (roster::owner(tag).to_string(), scope_of(tag));
        let e = self.posted.entry(key).or_default();
        e.0 += bytes;
        e.1 += 1;
    }

    /// What this process's parties posted, by party and scope.
    pub fn posted(&self) -> Vec<Posted> {
        self.posted
            .iter()
            .map(|((party, scope), (bytes, posts))| Posted {
                party: party.clone(),
                scope: scope.clone(),
                bytes: *bytes,
                posts: *posts,
            })
            .collect()
    }

    /// Makes `value` public under `tag`: with the `tls` transport on the board (where the other
    /// processes read it); with every party in this process in the transcript, and counted as
    /// the bytes its post would take ([`Posted`]), measured outside every leaf timer without
    /// reading a column's values.
    pub fn post<T: Wire + Clone + Send + 'static>(&mut self, tag: &str, value: &T) -> Result<()> {
        if self.networked_run() {
            return self.publish(tag, value);
        }
        self.transcribe(tag, value);
        self.account(tag, encoded_len(value));
        Ok(())
    }

    /// Counts, with every party in this process, a post under `tag` whose body would be
    /// `body_len` bytes: for values a `tls` run posts that one process hands over in memory.
    pub fn account(&mut self, tag: &str, body_len: usize) {
        if !self.networked_run() {
            self.note_post(tag, frame_bytes(tag, body_len));
        }
    }

    /// Adds `value`, public under `tag`, to the transcript.
    fn transcribe<T: Wire>(&mut self, tag: &str, value: &T) {
        let digest = Sha256::digest(as_digests(|| encode(value))).into();
        self.transcript.insert(tag.to_string(), digest);
    }

    /// Every public value of this process's parties: tag and SHA-256 of its encoding (with the
    /// `tls` transport of its bytes as posted; in one process, columns as their length and
    /// content's digest, so that nothing is read again).
    pub fn transcript(&self) -> &BTreeMap<String, [u8; 32]> {
        &self.transcript
    }

    /// The transcript's digest: SHA-256 over every public value's tag and digest, in the order
    /// of the tags. Two runs with one seed have the same, whatever the order of their steps,
    /// and whether a run did its steps or read them back from its journal.
    pub fn transcript_sha256(&self) -> [u8; 32] {
        transcript_digest(self.transcript.iter())
    }

    /// Posts `value` under `tag`: on the board with the `tls` transport (its bytes counted in
    /// the open timer, and the value in the transcript), in the in-process list otherwise.
    pub fn publish<T: Wire + Clone + Send + 'static>(
        &mut self,
        tag: &str,
        value: &T,
    ) -> Result<()> {
        if self.record.is_some() {
            return Err(Error::Input(format!(
                "the auditor hosts no party and posts nothing, not {tag:?}"
            )));
        }
        match self.board.clone() {
            Some(board) => {
                let body = encode(value);
                // The timers and statuses a process posts at the end are the transport's. A
                // value's digest is of its bytes as posted, the board's record's too
                // ([`crate::protocol::claims`]).
                if !tag.starts_with("records/") {
                    let digest = Sha256::digest(&body).into();
                    self.transcript.insert(tag.to_string(), digest);
                }
                let bytes = board.post(tag, &body).map_err(|f| self.stopped(f))?;
                self.note_post(tag, bytes);
                self.report.add_net(&NetStats {
                    bytes_sent: bytes,
                    posts: 1,
                    ..Default::default()
                });
            }
            None => {
                self.account(tag, encode(value).len());
                self.local_posts
                    .insert(tag.to_string(), Box::new(value.clone()));
            }
        }
        Ok(())
    }

    /// The value posted under `tag`, waiting for it with the `tls` transport (the bytes, the
    /// wait and whether it was a round counted in the open timer).
    pub fn fetch<T: Wire + Send + 'static>(&mut self, tag: &str) -> Result<T> {
        if let Some(record) = self.record.clone() {
            return self.fetch_recorded(&record, tag);
        }
        match self.board.clone() {
            Some(board) => {
                let (bytes, cost) = board.fetch(tag).map_err(|f| self.stopped(f))?;
                self.report.add_net(&NetStats {
                    bytes_received: cost.bytes,
                    reads: 1,
                    rounds: u64::from(cost.waited_s > 0.0),
                    waited_s: cost.waited_s,
                    hops: cost.depth,
                    ..Default::default()
                });
                decode(&bytes).map_err(|e| Error::Stopped {
                    party: "the run".into(),
                    step: self.step(),
                    why: format!("the post {tag:?} does not decode: {e}"),
                })
            }
            None => {
                let v = self.local_posts.remove(tag).ok_or_else(|| {
                    Error::Input(format!("nothing was posted under {tag:?} in this process"))
                })?;
                v.downcast::<T>()
                    .map(|b| *b)
                    .map_err(|_| Error::Input(format!("the post {tag:?} is of another type")))
            }
        }
    }

    /// The value posted under `tag`, read from a record (the auditor).
    fn fetch_recorded<T: Wire>(&mut self, record: &Record, tag: &str) -> Result<T> {
        let step = self.step();
        let stopped = |why: String| Error::Stopped {
            party: roster::owner(tag).to_string(),
            step: step.clone(),
            why,
        };
        let post = record
            .post(tag)
            .ok_or_else(|| stopped(format!("the record has no post under {tag:?}")))?;
        let stamped = record
            .body(post)
            .map_err(|e| stopped(format!("the record's post {tag:?} cannot be read: {e}")))?;
        if stamped.len() < STAMP {
            return Err(stopped(format!("the post {tag:?} has no stamp")));
        }
        self.report.add_net(&NetStats {
            bytes_received: stamped.len() as u64,
            reads: 1,
            ..Default::default()
        });
        decode(&stamped[STAMP..])
            .map_err(|e| stopped(format!("the post {tag:?} does not decode: {e}")))
    }

    /// A place for `party`'s step `label`, done by another process (only the process that
    /// writes the report keeps one).
    pub fn remote(&mut self, party: Party, label: &str) {
        if self.assembles() {
            self.report.remote_leaf(party, label);
        }
    }
}
