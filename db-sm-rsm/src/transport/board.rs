//! The bulletin board: an append-only list of posts that every party reads, over TLS 1.3 links
//! with pinned certificates ([`tls_link`]), written to a record file as it grows
//! ([`crate::transport::record`]).
//!
//! A party posts a value under a tag (`"main/mixing/.../mixer 2"`); the board checks that the
//! sender owns the tag ([`roster::owner`]), appends the post to its record and pushes it to every
//! other party, which keeps it until it asks for that tag ([`BoardClient::fetch`]). A tag is
//! posted once. A post under another party's tag, a second post under a tag, a malformed frame,
//! a shut-down asked for by anyone but the driver, or a link that breaks without a goodbye makes
//! the sender *gone*: the board tells every other party, whose waiting fetches then fail with the
//! sender's name, so a misbehaving, killed or cut-off party stops the whole run at once instead
//! of leaving the others waiting or being blamed for it. When the board itself disappears, every
//! party's link breaks and its fetches fail with "bulletin board".
//!
//! **Who connects.** A connection is first admitted ([`super::admission`]): the party signs a
//! fresh nonce of the board's with the key of its roster certificate, before any TLS. Only an
//! admitted member gets a thread for its TLS handshake (at most
//! [`super::admission::MEMBER_HANDSHAKES`] at once per member), within a time limit, where only
//! the roster's certificates complete it. A connection that never speaks, speaks garbage, comes
//! and goes (a port scan) or floods the port costs the board a socket in a bounded list, no
//! thread, and never the place of a member: at most [`super::admission::PER_ADDRESS`] such
//! connections of one address wait at once, a newer one closing the oldest. A roster member
//! connects once; a second connection with its certificate is closed. A member that joins after
//! posts were made gets them from the record file, so the board keeps no post once it has been
//! passed on.
//!
//! **Deadlines.** A party's fetch waits at most its deadline, then fails naming the party that
//! owns the tag it waited for. The board's sends to a party that takes no data for that long
//! fail, which makes that party gone; TCP keepalive breaks the links of a party cut off from the
//! network ([`tls_link::KEEPALIVE`]).
//!
//! Frames on a link (little-endian counts, [`crate::primitives::wire`] strings):
//!
//! | direction | kind | fields |
//! | --- | --- | --- |
//! | party → board | 1 post | tag, body |
//! | party → board | 2 goodbye | |
//! | party → board | 3 shut down (the driver only, at the end) | |
//! | board → party | 1 post | author, tag, body |
//! | board → party | 4 gone | party, reason |
//!
//! **Hops.** Every post's body starts with a stamp the board passes on untouched: the author's
//! epoch (how many sections below `main` it has entered, [`BoardClient::new_epoch`]) and the
//! post's depth in that epoch, one more than the deepest post of the same epoch its author had
//! read when it posted. A post read at depth d ends a chain of d posts, each made after its
//! author read the one before and each crossing the network twice (to the board, from the
//! board), all inside one section: that section cannot end sooner than d round trips after it
//! began, whatever the parties computed meanwhile. The deepest post read in a section is its
//! `hops`; times the round trip, its network floor. The board flushes its record whenever a post
//! of a later epoch arrives: at the end of every section.

use std::collections::{HashMap, HashSet};
use std::io;
use std::net::TcpListener;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tls_link::{Identity, Link};

use crate::primitives::wire::Wire;
use crate::transport::admission::{self, Admissions};
use crate::transport::record;
use crate::transport::roster::{self, Roster, DRIVER};

const POST: u8 = 1;
const GOODBYE: u8 = 2;
const SHUT_DOWN: u8 = 3;
const GONE: u8 = 4;

/// The name the board goes by in failures.
pub const BOARD: &str = "bulletin board";

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn frame(kind: u8, strings: &[&str], body: &[u8]) -> Vec<u8> {
    let mut f = vec![kind];
    for s in strings {
        s.to_string().put(&mut f);
    }
    f.extend_from_slice(body);
    f
}

/// Bytes of a post's frame under `tag` with a body of `body` bytes: its kind, the tag (a count
/// and the text), the stamp and the body. What a party sends for each post, TLS records aside.
pub fn frame_bytes(tag: &str, body: usize) -> u64 {
    (1 + 8 + tag.len() + STAMP + body) as u64
}

/// Splits a frame into its kind, `n` strings and the body that follows.
fn parse(frame: &[u8], n: usize) -> io::Result<(u8, Vec<String>, &[u8])> {
    let bad = |why: &str| io::Error::new(io::ErrorKind::InvalidData, why.to_string());
    let (&kind, mut rest) = frame.split_first().ok_or_else(|| bad("an empty frame"))?;
    let mut strings = Vec::with_capacity(n);
    for _ in 0..n {
        strings.push(String::get(&mut rest).map_err(|e| bad(&e.to_string()))?);
    }
    Ok((kind, strings, rest))
}

/// Why a run stopped: the party that failed (or the board) and what happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// `mixer 2`, `verifier`, `driver`, `bulletin board`.
    pub party: String,
    /// What happened.
    pub why: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.party, self.why)
    }
}

// ---- the board ------------------------------------------------------------------------------

/// Why a party is gone (its link broke, or it broke the board's rules): what every other party
/// is told.
struct Gone(String);

/// How long the board waits for a connection's handshake, and for a party to take the posts
/// pushed to it.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The handshake of one connection.
    pub handshake: Duration,
    /// One send to a party (a party that takes no data for this long is gone).
    pub send: Duration,
}

struct BoardState {
    roster: Roster,
    tags: HashSet<String>,
    /// Each connected party's outgoing queue.
    readers: HashMap<String, Sender<Arc<Vec<u8>>>>,
    /// Members that have connected (once each).
    joined: HashSet<String>,
    /// The record of every post; `None` once closed.
    record: Option<record::Writer>,
    /// The latest epoch of any post: a later one means a section ended (flush the record).
    epoch: u32,
    /// Why the board ends, once it does.
    ending: Option<String>,
    /// The first party gone, for the record's close.
    first_gone: Option<String>,
    /// The first gone notice, for a party that joins after it was sent.
    first_notice: Option<Arc<Vec<u8>>>,
}

impl BoardState {
    fn push_to_others(&self, author: &str, f: &Arc<Vec<u8>>) {
        for (name, q) in &self.readers {
            if name != author {
                let _ = q.send(f.clone());
            }
        }
    }

    /// `name` leaves (Ok) or is gone (Err: every other party is told why). Only its first
    /// departure counts.
    fn depart(&mut self, name: &str, outcome: Result<(), Gone>) {
        if self.readers.remove(name).is_none() {
            return;
        }
        if let Err(Gone(why)) = outcome {
            let gone = Arc::new(frame(GONE, &[name, &why], &[]));
            self.push_to_others(name, &gone);
            self.first_notice.get_or_insert(gone);
            self.first_gone
                .get_or_insert(format!("{name} is gone: {why}"));
        }
        if self.readers.is_empty() && self.joined.len() == self.roster.len() {
            self.ending.get_or_insert("every party left".into());
        }
    }

    /// Files `body` of `author` under `tag` in the record and passes it on; the reason to refuse
    /// it otherwise.
    fn file(&mut self, author: &str, tag: &str, body: &[u8]) -> Result<(), Gone> {
        let owner = roster::owner(tag);
        if owner != author {
            return Err(Gone(format!("posted under {tag:?}, a tag of {owner}'s")));
        }
        if !self.tags.insert(tag.to_string()) {
            return Err(Gone(format!("posted {tag:?} a second time")));
        }
        let Some(rec) = self.record.as_mut() else {
            // The board is closing: nothing more goes on the record or to anybody.
            return Ok(());
        };
        // A post of a later epoch: every section before it has ended.
        let epoch = body
            .get(..4)
            .map_or(0, |b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
        let written = if epoch > self.epoch {
            self.epoch = epoch;
            rec.flush().and_then(|()| rec.post(author, tag, body))
        } else {
            rec.post(author, tag, body)
        };
        if let Err(e) = written {
            self.fail_board(format!("it could not write its record ({e})"));
            return Ok(());
        }
        let out = Arc::new(frame(POST, &[author, tag], body));
        self.push_to_others(author, &out);
        Ok(())
    }

    /// The board itself fails: every party is told, and the board ends.
    fn fail_board(&mut self, why: String) {
        let gone = Arc::new(frame(GONE, &[BOARD, &why], &[]));
        self.push_to_others(BOARD, &gone);
        self.first_notice.get_or_insert(gone);
        self.ending
            .get_or_insert(format!("the board failed: {why}"));
    }
}

type Done = (Mutex<bool>, Condvar);

fn finish(done: &Done) {
    *lock(&done.0) = true;
    done.1.notify_all();
}

/// Serves the board on `listener` for the members of `roster`, admitting them for the run's
/// attempt `attempt` ([`admission`]), writing every post to `record`, until every member has
/// joined and left, or the driver asks it to shut down. Returns the record's final path.
pub fn serve(
    listener: TcpListener,
    id: &Identity,
    (roster, attempt): (Roster, u32),
    record: record::Writer,
    limits: Limits,
) -> io::Result<std::path::PathBuf> {
    let config = tls_link::server_config(id, roster.certificates())?;
    listener.set_nonblocking(true)?;
    let state = Arc::new(Mutex::new(BoardState {
        roster,
        tags: HashSet::new(),
        readers: HashMap::new(),
        joined: HashSet::new(),
        record: Some(record),
        epoch: 0,
        ending: None,
        first_gone: None,
        first_notice: None,
    }));
    let done: Arc<Done> = Arc::new((Mutex::new(false), Condvar::new()));
    let shaking: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let mut admissions = Admissions::new(limits.handshake, attempt);
    let roster = lock(&state).roster.clone();
    loop {
        if lock(&state).ending.is_some() {
            break;
        }
        let accepted = listener.accept();
        match accepted {
            Ok((socket, peer)) => admissions.accept(socket, peer.ip()),
            Err(_) => {
                // Nothing to accept (or a connection reset before it was accepted): wait a
                // little (less while connections wait for their admission), or less if a
                // party's thread ends the board meanwhile.
                let pause = if admissions.is_empty() { 10 } else { 1 };
                let (flag, cv) = &*done;
                let g = lock(flag);
                if !*g {
                    let _ = cv.wait_timeout(g, Duration::from_millis(pause));
                }
            }
        }
        // After every connection accepted, so that a flood never pushes out an answer that came.
        for (socket, name) in admissions.sweep(&roster) {
            let handshake = Handshake {
                state: state.clone(),
                done: done.clone(),
                shaking: shaking.clone(),
                config: config.clone(),
                limits,
            };
            handshake.start(socket, name);
        }
    }
    if admissions.turned_away > 0 {
        eprintln!(
            "db-sm-rsm bulletin board: {} connections turned away before their admission (no \
             answer in time, a wrong one, or pushed out by newer ones of their address)",
            admissions.turned_away
        );
    }
    // Give the writers a moment to deliver what is queued (a goodbye, a gone notice).
    std::thread::sleep(Duration::from_millis(50));
    let (record, reason) = {
        let mut st = lock(&state);
        let mut reason = st.ending.clone().unwrap_or_default();
        if let Some(g) = &st.first_gone {
            reason = format!("{reason} ({g})");
        }
        (st.record.take(), reason)
    };
    finish(&done);
    let record = record.ok_or_else(|| io::Error::other("the record was closed twice"))?;
    record.close(&reason)
}

/// What an admitted member's TLS handshake needs: the board, the server's configuration, and
/// each member's handshakes under way.
struct Handshake {
    state: Arc<Mutex<BoardState>>,
    done: Arc<Done>,
    shaking: Arc<Mutex<HashMap<String, usize>>>,
    config: Arc<tls_link::ServerConfig>,
    limits: Limits,
}

impl Handshake {
    /// The TLS handshake of member `name`, admitted on `socket`, on a thread of its own; the
    /// member joins when it completes. A member with [`admission::MEMBER_HANDSHAKES`] under way
    /// already is closed (it only ever needs one).
    fn start(self, socket: std::net::TcpStream, name: String) {
        {
            let mut shaking = lock(&self.shaking);
            let under_way = shaking.entry(name.clone()).or_default();
            if *under_way >= admission::MEMBER_HANDSHAKES {
                return;
            }
            *under_way += 1;
        }
        std::thread::spawn(move || {
            let link = Link::accept_socket(socket, self.config, self.limits.handshake);
            *lock(&self.shaking).entry(name.clone()).or_default() -= 1;
            if let Ok(link) = link {
                join(&self.state, &self.done, link, &name, self.limits);
            }
        });
    }
}

/// A handshake completed: the member presenting the certificate (the one it was admitted as)
/// joins (once), gets every post made so far from the record, then every later one, and is
/// served until it leaves.
fn join(
    state: &Arc<Mutex<BoardState>>,
    done: &Arc<Done>,
    link: Link,
    admitted: &str,
    limits: Limits,
) {
    let Some(cert) = link.peer_cert() else {
        return;
    };
    let (tx, rx) = channel::<Arc<Vec<u8>>>();
    let name = {
        let mut st = lock(state);
        let Some(name) = st.roster.name_of(&cert).map(str::to_string) else {
            return;
        };
        if name != admitted {
            return;
        }
        if st.ending.is_some() {
            return;
        }
        if !st.joined.insert(name.clone()) {
            eprintln!("db-sm-rsm bulletin board: a second connection of {name} was closed");
            return;
        }
        if let Some(rec) = st.record.as_mut() {
            let upto = rec.entries();
            let backlog = rec
                .flush()
                .and_then(|()| record::posts_so_far(rec.partial(), upto));
            match backlog {
                Ok(posts) => {
                    for (author, tag, body) in posts {
                        if author != name {
                            let _ = tx.send(Arc::new(frame(POST, &[&author, &tag], &body)));
                        }
                    }
                }
                Err(e) => st.fail_board(format!("it could not read its record back ({e})")),
            }
        }
        // A party gone before this one joined: it learns of it at once.
        if let Some(notice) = &st.first_notice {
            let _ = tx.send(notice.clone());
        }
        st.readers.insert(name.clone(), tx);
        name
    };
    let _ = link.set_write_timeout(Some(limits.send));
    let link = Arc::new(link);
    {
        let (link, state, name) = (link.clone(), state.clone(), name.clone());
        std::thread::spawn(move || {
            for f in rx {
                if let Err(e) = link.send(&f) {
                    let why = format!(
                        "it took none of the board's posts for {:?} ({e})",
                        limits.send
                    );
                    lock(&state).depart(&name, Err(Gone(why)));
                    link.shutdown();
                    break;
                }
            }
        });
    }
    serve_party(state, &link, &name);
    if lock(state).ending.is_some() {
        finish(done);
    }
}

/// Reads one party's frames until it leaves, is gone, or (the driver) shuts the board down.
fn serve_party(state: &Mutex<BoardState>, link: &Link, name: &str) {
    let outcome: Result<bool, Gone> = loop {
        let f = match link.recv() {
            Ok(f) => f,
            Err(e) => break Err(Gone(format!("its link to the board broke ({e})"))),
        };
        let (kind, strings, body) = match parse(&f, if f.first() == Some(&POST) { 1 } else { 0 }) {
            Ok(p) => p,
            Err(e) => break Err(Gone(format!("sent a malformed frame ({e})"))),
        };
        match kind {
            POST => {
                if let Err(why) = lock(state).file(name, &strings[0], body) {
                    break Err(why);
                }
            }
            GOODBYE => break Ok(false),
            SHUT_DOWN if name == DRIVER => break Ok(true),
            SHUT_DOWN => {
                break Err(Gone(
                    "asked the board to shut down, which only the driver may".into(),
                ))
            }
            other => break Err(Gone(format!("sent a frame of unknown kind {other}"))),
        }
    };
    let mut st = lock(state);
    match outcome {
        Ok(true) => {
            st.depart(name, Ok(()));
            st.ending
                .get_or_insert("the driver shut the board down".into());
        }
        Ok(false) => st.depart(name, Ok(())),
        Err(why) => {
            st.depart(name, Err(why));
            drop(st);
            // Nothing more is read from a party that is gone.
            link.shutdown();
        }
    }
}

// ---- a party's side -------------------------------------------------------------------------

struct Inbox {
    posts: HashMap<String, Vec<u8>>,
    failure: Option<Failure>,
    /// The link has ended (the board closed it, or it broke).
    closed: bool,
    /// Bytes of the posts received, by author (frame bodies).
    received_by: HashMap<String, u64>,
}

/// One party's link to the board: posts out, and every other party's posts in (kept until
/// fetched).
pub struct BoardClient {
    name: String,
    link: Arc<Link>,
    inbox: Arc<(Mutex<Inbox>, Condvar)>,
    clock: Mutex<Clock>,
    /// How long one fetch waits.
    deadline: Duration,
}

/// What one fetch cost: the bytes of the frame and how long the party waited for it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fetched {
    /// Bytes of the post as it came off the link (frame header, stamp and body).
    pub bytes: u64,
    /// Seconds the party waited for it (0 when it had arrived already).
    pub waited_s: f64,
    /// The post's depth, if it was made in the reader's epoch (0 otherwise).
    pub depth: u64,
}

/// Bytes of the stamp in front of every post's body: epoch and depth, 32 bits each.
pub const STAMP: usize = 8;

/// A party's place in the chains of posts: its epoch and the deepest post of that epoch it has
/// read.
#[derive(Clone, Copy, Debug, Default)]
struct Clock {
    epoch: u32,
    depth: u32,
}

/// A link to the board, tried again while the board drops the connection before its handshake
/// ends (reset, aborted, cut short): a board under a flood of connections closes those beyond
/// its pending handshakes, and a member caught in the flood gets in once it drains. Anything
/// else (a refused certificate, a board that is not there) is returned at once; the tries stop
/// after `deadline`.
fn connect_patiently(
    deadline: Duration,
    connect: impl Fn() -> io::Result<Link>,
) -> io::Result<Link> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(20);
    loop {
        match connect() {
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionReset
                        | io::ErrorKind::ConnectionAborted
                        | io::ErrorKind::UnexpectedEof
                        | io::ErrorKind::BrokenPipe
                ) && start.elapsed() + pause < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(500));
            }
            done => return done,
        }
    }
}

impl BoardClient {
    /// Connects party `name` of the run's attempt `attempt` to the board at `addr` that presents
    /// `board_cert`. Each fetch waits at most `deadline`, and so does each post for the board to
    /// take it.
    pub fn connect(
        (name, attempt): (&str, u32),
        id: &Identity,
        addr: std::net::SocketAddr,
        board_cert: tls_link::Certificate<'static>,
        deadline: Duration,
    ) -> io::Result<BoardClient> {
        let config = tls_link::client_config(id, vec![board_cert])?;
        let link = connect_patiently(deadline, || {
            let socket = tls_link::connect_tcp(addr)?;
            admission::present(&socket, name, id, attempt, tls_link::HANDSHAKE_PATIENCE)?;
            Link::connect_on(socket, config.clone())
        })?;
        link.set_write_timeout(Some(deadline))?;
        let link = Arc::new(link);
        let inbox = Arc::new((
            Mutex::new(Inbox {
                posts: HashMap::new(),
                failure: None,
                closed: false,
                received_by: HashMap::new(),
            }),
            Condvar::new(),
        ));
        {
            let (link, inbox) = (link.clone(), inbox.clone());
            std::thread::spawn(move || receive(&link, &inbox));
        }
        Ok(BoardClient {
            name: name.to_string(),
            link,
            inbox,
            clock: Mutex::new(Clock::default()),
            deadline,
        })
    }

    /// This party's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How long one fetch waits.
    pub fn deadline(&self) -> Duration {
        self.deadline
    }

    /// Starts a new epoch: the party enters a section below `main`, where chains of posts
    /// count from zero again.
    pub fn new_epoch(&self) {
        let mut clock = lock(&self.clock);
        clock.epoch += 1;
        clock.depth = 0;
    }

    /// Posts `body` under `tag`, stamped with this party's epoch and depth; the bytes of the
    /// frame.
    pub fn post(&self, tag: &str, body: &[u8]) -> Result<u64, Failure> {
        let clock = *lock(&self.clock);
        let mut stamped = Vec::with_capacity(STAMP + body.len());
        stamped.extend_from_slice(&clock.epoch.to_le_bytes());
        stamped.extend_from_slice(&(clock.depth + 1).to_le_bytes());
        stamped.extend_from_slice(body);
        let f = frame(POST, &[tag], &stamped);
        debug_assert_eq!(f.len() as u64, frame_bytes(tag, body.len()));
        self.link.send(&f).map_err(|e| Failure {
            party: BOARD.into(),
            why: format!("{} could not post {tag:?}: {e}", self.name),
        })?;
        Ok(f.len() as u64)
    }

    /// The post under `tag`, waiting for it at most the deadline. Fails at once when a failure
    /// has been seen (a party gone, the board gone), even if the post has arrived: the run has
    /// stopped. When the deadline passes, fails naming the party that owns the tag.
    pub fn fetch(&self, tag: &str) -> Result<(Vec<u8>, Fetched), Failure> {
        let (m, cv) = &*self.inbox;
        let start = Instant::now();
        let mut waited = false;
        let mut inbox = lock(m);
        loop {
            if let Some(f) = &inbox.failure {
                return Err(f.clone());
            }
            if let Some(stamped) = inbox.posts.remove(tag) {
                let bytes = (1 + 8 + tag.len() + stamped.len()) as u64;
                let waited_s = if waited {
                    start.elapsed().as_secs_f64()
                } else {
                    0.0
                };
                let (depth, body) = self.read_stamp(tag, stamped)?;
                return Ok((
                    body,
                    Fetched {
                        bytes,
                        waited_s,
                        depth,
                    },
                ));
            }
            let left = self.deadline.saturating_sub(start.elapsed());
            if left.is_zero() {
                return Err(Failure {
                    party: roster::owner(tag).to_string(),
                    why: format!(
                        "posted nothing under {tag:?} within the deadline of {} s (waited for by \
                         {})",
                        self.deadline.as_secs_f64(),
                        self.name
                    ),
                });
            }
            waited = true;
            inbox = cv
                .wait_timeout(inbox, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Takes the stamp off a post's body: the post's depth if it is of this party's epoch (which
    /// then reaches at least that depth), 0 otherwise.
    fn read_stamp(&self, tag: &str, mut stamped: Vec<u8>) -> Result<(u64, Vec<u8>), Failure> {
        if stamped.len() < STAMP {
            return Err(Failure {
                party: BOARD.into(),
                why: format!("the post {tag:?} has no stamp"),
            });
        }
        let word = |i: usize| u32::from_le_bytes(stamped[i..i + 4].try_into().expect("4 bytes"));
        let (epoch, depth) = (word(0), word(4));
        stamped.drain(..STAMP);
        let mut clock = lock(&self.clock);
        if epoch != clock.epoch {
            return Ok((0, stamped));
        }
        clock.depth = clock.depth.max(depth);
        Ok((u64::from(depth), stamped))
    }

    /// Records a failure seen outside the board (a party process that exited): every waiting
    /// and later fetch fails with it.
    pub fn fail(&self, failure: Failure) {
        let (m, cv) = &*self.inbox;
        let mut inbox = lock(m);
        if inbox.failure.is_none() {
            inbox.failure = Some(failure);
        }
        cv.notify_all();
    }

    /// The first failure seen, if any.
    pub fn failure(&self) -> Option<Failure> {
        lock(&self.inbox.0).failure.clone()
    }

    /// Bytes on the link so far (TLS included): (sent, received).
    pub fn counts(&self) -> (u64, u64) {
        self.link.counts()
    }

    /// Bytes of the posts received so far, by author.
    pub fn received_by(&self) -> HashMap<String, u64> {
        lock(&self.inbox.0).received_by.clone()
    }

    /// Says goodbye: the board forgets this party without telling the others it is gone.
    pub fn goodbye(&self) {
        let _ = self.link.send(&frame(GOODBYE, &[], &[]));
    }

    /// Says goodbye and reads on until the board closes the link (at most `patience`), so that
    /// the process can exit without unread posts in its socket: closing a socket with unread
    /// data resets the connection, and a reset that overtakes the goodbye on a slow link would
    /// tell the board this party is gone.
    pub fn leave(&self, patience: Duration) {
        self.goodbye();
        let (m, cv) = &*self.inbox;
        let deadline = Instant::now() + patience;
        let mut inbox = lock(m);
        while !inbox.closed {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            inbox = cv
                .wait_timeout(inbox, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Asks the board to shut down (the driver, once it has every party's report; from anyone
    /// else the board refuses it and names the sender gone).
    pub fn shut_down_board(&self) {
        let _ = self.link.send(&frame(SHUT_DOWN, &[], &[]));
    }

    /// Cuts this party's link (a fault for the tests: the board sees the party gone).
    pub fn cut(&self) {
        self.link.shutdown();
    }
}

/// The receiving thread: posts into the inbox; a gone notice or a broken link is a failure.
fn receive(link: &Link, inbox: &(Mutex<Inbox>, Condvar)) {
    let (m, cv) = inbox;
    loop {
        let got = link.recv().and_then(|f| {
            let n = match f.first() {
                Some(&POST) | Some(&GONE) => 2,
                _ => 0,
            };
            parse(&f, n).map(|(kind, s, body)| (kind, s, body.to_vec()))
        });
        let mut ib = lock(m);
        match got {
            Ok((POST, s, body)) => {
                *ib.received_by.entry(s[0].clone()).or_default() += body.len() as u64;
                ib.posts.insert(s[1].clone(), body);
            }
            Ok((GONE, s, _)) => {
                if ib.failure.is_none() {
                    ib.failure = Some(Failure {
                        party: s[0].clone(),
                        why: s[1].clone(),
                    });
                }
            }
            Ok((kind, _, _)) => {
                ib.failure.get_or_insert(Failure {
                    party: BOARD.into(),
                    why: format!("it sent a frame of unknown kind {kind}"),
                });
            }
            Err(e) => {
                ib.failure.get_or_insert(Failure {
                    party: BOARD.into(),
                    why: format!("the link to the board broke ({e})"),
                });
                ib.closed = true;
                cv.notify_all();
                return;
            }
        }
        cv.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpStream;
    use std::sync::atomic::{AtomicUsize, Ordering};

    type Server = std::thread::JoinHandle<io::Result<std::path::PathBuf>>;

    /// A board serving the driver and two mixers (the driver first), its address, and its
    /// record's path.
    struct Board {
        server: Server,
        addr: std::net::SocketAddr,
        record: std::path::PathBuf,
        cert: tls_link::Certificate<'static>,
        ids: Vec<Identity>,
    }

    const NAMES: [&str; 3] = ["driver", "mixer 0", "mixer 1"];
    const DEADLINE: Duration = Duration::from_secs(20);
    /// The attempt of the tests' runs.
    const ATTEMPT: u32 = 3;

    fn board(test: &str, handshake: Duration) -> Board {
        static BOARDS: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "dbsm-board-{test}-{}-{}",
            std::process::id(),
            BOARDS.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let record = dir.join("board.log");
        let id = Identity::generate().unwrap();
        let ids: Vec<Identity> = NAMES
            .iter()
            .map(|_| Identity::generate().unwrap())
            .collect();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let members = NAMES
            .iter()
            .zip(&ids)
            .map(|(n, id)| (n.to_string(), id.cert.clone()))
            .collect();
        let roster = Roster::new(members).unwrap();
        let header = record::Header {
            parameters: "{}".into(),
            roster: NAMES
                .iter()
                .map(|n| (n.to_string(), String::new()))
                .collect(),
        };
        let writer = record::Writer::create(&record, &header).unwrap();
        let cert = id.cert.clone();
        let limits = Limits {
            handshake,
            send: DEADLINE,
        };
        let server =
            std::thread::spawn(move || serve(listener, &id, (roster, ATTEMPT), writer, limits));
        Board {
            server,
            addr,
            record,
            cert,
            ids,
        }
    }

    impl Board {
        fn clients(&self, deadline: Duration) -> Vec<BoardClient> {
            NAMES
                .iter()
                .zip(&self.ids)
                .map(|(n, id)| {
                    BoardClient::connect((n, ATTEMPT), id, self.addr, self.cert.clone(), deadline)
                        .unwrap()
                })
                .collect()
        }
    }

    fn start() -> (Vec<BoardClient>, Board) {
        let b = board("start", Duration::from_secs(5));
        (b.clients(DEADLINE), b)
    }

    /// Every party says goodbye; the board then ends without an error and closes its record.
    fn finish(c: &[BoardClient], b: Board) -> record::Record {
        for x in c {
            x.goodbye();
        }
        let path = b.server.join().unwrap().unwrap();
        assert_eq!(path, b.record);
        let r = record::Record::open(&path).unwrap();
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
        r
    }

    #[test]
    fn posts_reach_every_other_party_once_per_tag_and_go_on_the_record() {
        let (c, b) = start();
        c[1].post("a/mixer 0", b"from mixer 0").unwrap();
        assert_eq!(c[0].fetch("a/mixer 0").unwrap().0, b"from mixer 0");
        assert_eq!(c[2].fetch("a/mixer 0").unwrap().0, b"from mixer 0");
        // A fetch waits for a later post.
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| c[2].fetch("b"));
            std::thread::sleep(Duration::from_millis(50));
            c[0].post("b", b"late").unwrap();
            let (body, cost) = waiter.join().unwrap().unwrap();
            assert_eq!(body, b"late");
            assert!(cost.waited_s > 0.0 && cost.bytes > 4);
        });
        let r = finish(&c, b);
        let got: Vec<(&str, &str)> = r
            .posts
            .iter()
            .map(|p| (p.author.as_str(), p.tag.as_str()))
            .collect();
        assert_eq!(got, [("mixer 0", "a/mixer 0"), ("driver", "b")]);
        assert_eq!(r.closed_because, "every party left");
    }

    #[test]
    fn depths_count_the_chain_of_posts_within_an_epoch() {
        let (c, b) = start();
        // driver -> mixer 0 -> mixer 1: depths 1, 2, 3; a post of an older epoch counts 0.
        c[0].post("a", b"x").unwrap();
        assert_eq!(c[1].fetch("a").unwrap().1.depth, 1);
        c[1].post("b/mixer 0", b"y").unwrap();
        assert_eq!(c[2].fetch("b/mixer 0").unwrap().1.depth, 2);
        c[2].post("c/mixer 1", b"z").unwrap();
        assert_eq!(c[0].fetch("c/mixer 1").unwrap().1.depth, 3);
        for x in &c {
            x.new_epoch();
        }
        c[0].post("d", b"w").unwrap();
        assert_eq!(c[2].fetch("d").unwrap().1.depth, 1);
        c[1].post("e/mixer 0", b"v").unwrap();
        assert_eq!(c[2].fetch("e/mixer 0").unwrap().1.depth, 1);
        c[0].post("f", b"u").unwrap();
        c[1].new_epoch();
        assert_eq!(c[1].fetch("f").unwrap().1.depth, 0);
        finish(&c, b);
    }

    #[test]
    fn a_party_gone_or_a_tag_posted_twice_fails_every_fetch_by_name() {
        let (c, b) = start();
        c[1].cut();
        let f = c[0].fetch("never").unwrap_err();
        assert_eq!(f.party, "mixer 0");
        assert!(c[2].fetch("never").is_err());
        c[2].post("x/mixer 1", b"1").unwrap();
        c[2].post("x/mixer 1", b"2").unwrap();
        c[0].goodbye();
        b.server.join().unwrap().unwrap();
        assert!(c[1].fetch("x/mixer 1").is_err());
    }

    /// A mixer posting under another mixer's tag, the driver's or a verdict of another party is
    /// refused, the board names it gone, and the real owner is not blamed.
    #[test]
    fn a_post_under_another_partys_tag_is_refused_naming_the_sender() {
        for forged in [
            "main/mixing/verifying others' proofs of shuffle/verdict/mixer 1",
            "main/input preparation",
            "records/driver",
        ] {
            let (c, b) = start();
            c[1].post(forged, b"\x01").unwrap();
            let f = c[0].fetch(forged).unwrap_err();
            assert_eq!(f.party, "mixer 0", "{forged}: {f}");
            assert!(f.why.contains(forged), "{f}");
            let f = c[2].fetch("anything").unwrap_err();
            assert_eq!(f.party, "mixer 0", "{forged}: {f}");
            for x in &c {
                x.goodbye();
            }
            let path = b.server.join().unwrap().unwrap();
            // The forged post is not on the record.
            let r = record::Record::open(&path).unwrap();
            assert!(r.posts.is_empty(), "{forged}");
            assert!(
                r.closed_because.contains("mixer 0 is gone"),
                "{}",
                r.closed_because
            );
            let _ = std::fs::remove_dir_all(path.parent().unwrap());
        }
    }

    /// Only the driver may shut the board down: a mixer asking is named gone, and the board
    /// serves on until the driver does.
    #[test]
    fn only_the_driver_shuts_the_board_down() {
        let (c, b) = start();
        c[1].shut_down_board();
        let f = c[0].fetch("never").unwrap_err();
        assert_eq!(f.party, "mixer 0", "{f}");
        assert!(f.why.contains("shut down"), "{f}");
        // The board still serves: mixer 1's post reaches the driver (whose fetches report the
        // failure first), and the driver's shut-down ends the board.
        assert!(!b.server.is_finished());
        c[2].post("y/mixer 1", b"still here").unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !lock(&c[0].inbox.0).posts.contains_key("y/mixer 1") {
            assert!(Instant::now() < deadline, "the post never arrived");
            std::thread::sleep(Duration::from_millis(5));
        }
        c[0].shut_down_board();
        let path = b.server.join().unwrap().unwrap();
        let r = record::Record::open(&path).unwrap();
        assert_eq!(r.posts.len(), 1);
        assert!(r
            .closed_because
            .starts_with("the driver shut the board down"));
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// A failure seen is reported before a post that has arrived: the run has stopped.
    #[test]
    fn a_recorded_failure_comes_before_an_arrived_post() {
        let (c, b) = start();
        c[1].post("p/mixer 0", b"arrived").unwrap();
        // Wait until the post is in the driver's inbox, then record a failure.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !lock(&c[0].inbox.0).posts.contains_key("p/mixer 0") {
            assert!(Instant::now() < deadline, "the post never arrived");
            std::thread::sleep(Duration::from_millis(5));
        }
        c[0].fail(Failure {
            party: "verifier".into(),
            why: "its process exited".into(),
        });
        let f = c[0].fetch("p/mixer 0").unwrap_err();
        assert_eq!(f.party, "verifier");
        finish(&c, b);
    }

    /// A fetch waits at most its deadline, then fails naming the party that owns the tag.
    #[test]
    fn a_fetch_fails_at_its_deadline_naming_the_party_waited_for() {
        let b = board("deadline", Duration::from_secs(5));
        let c = b.clients(Duration::from_millis(300));
        let start = Instant::now();
        let f = c[0].fetch("main/mixing/re-encryption/mixer 1").unwrap_err();
        assert_eq!(f.party, "mixer 1", "{f}");
        assert!(f.why.contains("deadline"), "{f}");
        assert!(start.elapsed() < Duration::from_secs(5));
        let f = c[1].fetch("main/input preparation").unwrap_err();
        assert_eq!(f.party, "driver", "{f}");
        finish(&c, b);
    }

    /// Connections that never speak, as many as the board once let wait for a handshake (64),
    /// renewed as soon as the board closes one, from the members' own address: the members
    /// still get in, and the run's posts go through.
    #[test]
    fn a_flood_of_silent_connections_does_not_keep_the_members_out() {
        use std::sync::atomic::AtomicBool;
        let b = board("flood", tls_link::HANDSHAKE_PATIENCE);
        let (stop, addr) = (Arc::new(AtomicBool::new(false)), b.addr);
        let flooding = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut held: Vec<TcpStream> = Vec::new();
                let mut opened = 0usize;
                while !stop.load(Ordering::SeqCst) {
                    // Any connection the board closed is opened again.
                    held.retain(|s| {
                        let mut b = [0u8; 64];
                        s.set_nonblocking(true).is_ok()
                            && match std::io::Read::read(&mut &*s, &mut b) {
                                Ok(0) => false,
                                Ok(_) => true,
                                Err(e) => e.kind() == io::ErrorKind::WouldBlock,
                            }
                    });
                    while held.len() < 64 {
                        match TcpStream::connect(addr) {
                            Ok(s) => held.push(s),
                            Err(_) => break,
                        }
                        opened += 1;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                opened
            })
        };
        // The flood is under way before the members come. The members try for less than the
        // handshake's patience: where silent connections held the handshakes' places, none
        // would free before the patience ran out, and the members would stay out.
        std::thread::sleep(Duration::from_millis(500));
        let c = b.clients(tls_link::HANDSHAKE_PATIENCE * 3 / 4);
        c[1].post("f/mixer 0", b"through the flood").unwrap();
        assert_eq!(c[2].fetch("f/mixer 0").unwrap().0, b"through the flood");
        c[0].post("g", b"and back").unwrap();
        assert_eq!(c[1].fetch("g").unwrap().0, b"and back");
        stop.store(true, Ordering::SeqCst);
        let opened = flooding.join().unwrap();
        assert!(opened >= 64, "{opened} connections");
        finish(&c, b);
    }

    /// Before the parties connect: a connection that never speaks, one that sends garbage, a
    /// certificate off the roster and a bounded loop of connect-and-close on the board's port
    /// (loopback). None of them blocks the parties or ends the board.
    #[test]
    fn strangers_silent_or_garbage_connections_and_a_port_scan_neither_block_nor_end_the_board() {
        let b = board("strangers", Duration::from_secs(2));
        let silent = TcpStream::connect(b.addr).unwrap();
        let mut garbage = TcpStream::connect(b.addr).unwrap();
        std::io::Write::write_all(&mut garbage, b"GET / HTTP/1.0\r\n\r\n").unwrap();
        let stranger = Identity::generate().unwrap();
        let refused = BoardClient::connect(
            ("mixer 0", ATTEMPT),
            &stranger,
            b.addr,
            b.cert.clone(),
            DEADLINE,
        )
        .and_then(|x| x.fetch("z").map_err(|f| io::Error::other(f.to_string())));
        assert!(refused.is_err(), "a certificate off the roster got in");
        // A member's own key, but signing for an earlier attempt of the run: refused.
        let stale = BoardClient::connect(
            ("mixer 0", ATTEMPT - 1),
            &b.ids[1],
            b.addr,
            b.cert.clone(),
            DEADLINE,
        );
        let why = stale.err().expect("an earlier attempt's process got in");
        assert_eq!(why.kind(), io::ErrorKind::PermissionDenied, "{why}");
        for _ in 0..200 {
            drop(TcpStream::connect(b.addr).unwrap());
        }
        let start = Instant::now();
        let c = b.clients(DEADLINE);
        c[1].post("q/mixer 0", b"through").unwrap();
        assert_eq!(c[2].fetch("q/mixer 0").unwrap().0, b"through");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            start.elapsed()
        );
        // A second connection with a member's certificate is closed; the member stays.
        let again = BoardClient::connect(
            ("mixer 1", ATTEMPT),
            &b.ids[2],
            b.addr,
            b.cert.clone(),
            DEADLINE,
        )
        .unwrap();
        assert!(again.fetch("never").is_err());
        c[0].post("r", b"still").unwrap();
        assert_eq!(c[2].fetch("r").unwrap().0, b"still");
        drop((silent, garbage));
        finish(&c, b);
    }
}
