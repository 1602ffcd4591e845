//! The bulletin board: an append-only list of posts that every party reads, over TLS 1.3 links
//! with pinned certificates ([`tls_link`]).
//!
//! A party posts a value under a tag (`"main/mixing/.../mixer 2"`); the board appends it and
//! pushes it to every other party, which keeps it until it asks for that tag
//! ([`BoardClient::fetch`]). A tag is posted once: a second post under it is a protocol
//! violation of its author. A party that disconnects without saying goodbye is *gone*: the
//! board tells every other party, whose waiting fetches then fail with the party's name, so a
//! killed mixer or a cut link stops the whole run at once instead of leaving parties waiting.
//! When the board itself disappears, every party's link breaks and its fetches fail with
//! "bulletin board".
//!
//! Frames on a link (little-endian counts, [`crate::primitives::wire`] strings):
//!
//! | direction | kind | fields |
//! | --- | --- | --- |
//! | party → board | 1 post | tag, body |
//! | party → board | 2 goodbye | |
//! | party → board | 3 shut down (the driver, at the end) | |
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
//! `hops`; times the round trip, its network floor.

use std::collections::{HashMap, HashSet};
use std::io;
use std::net::TcpListener;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tls_link::{Identity, Link};

use crate::primitives::wire::Wire;

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

struct BoardState {
    /// Every post so far, as the frame pushed to readers, with its author.
    log: Vec<(String, Arc<Vec<u8>>)>,
    tags: HashSet<String>,
    /// Each connected party's outgoing queue.
    readers: HashMap<String, Sender<Arc<Vec<u8>>>>,
    /// Parties connected and not yet gone or left.
    present: usize,
}

impl BoardState {
    fn push_to_others(&self, author: &str, f: &Arc<Vec<u8>>) {
        for (name, q) in &self.readers {
            if name != author {
                let _ = q.send(f.clone());
            }
        }
    }
}

/// Serves the board on `listener` for the parties named with their certificates, until every
/// one of them has left or is gone, or the driver asks it to shut down.
pub fn serve(
    listener: TcpListener,
    id: &Identity,
    parties: Vec<(String, tls_link::Certificate<'static>)>,
) -> io::Result<()> {
    let config = tls_link::server_config(id, parties.iter().map(|(_, c)| c.clone()).collect())?;
    let state = Arc::new(Mutex::new(BoardState {
        log: Vec::new(),
        tags: HashSet::new(),
        readers: HashMap::new(),
        present: 0,
    }));
    let done = Arc::new((Mutex::new(false), Condvar::new()));
    let mut handles = Vec::new();
    for _ in 0..parties.len() {
        let link = Arc::new(Link::accept(&listener, config.clone())?);
        let cert = link
            .peer_cert()
            .ok_or_else(|| io::Error::other("a party connected without a certificate"))?;
        let name = parties
            .iter()
            .find(|(_, c)| *c == cert)
            .map(|(n, _)| n.clone())
            .ok_or_else(|| io::Error::other("a certificate of no party"))?;
        let (tx, rx) = channel::<Arc<Vec<u8>>>();
        {
            let mut st = lock(&state);
            // Everything posted before the party joined, then whatever follows.
            for (author, f) in &st.log {
                if *author != name {
                    let _ = tx.send(f.clone());
                }
            }
            st.readers.insert(name.clone(), tx);
            st.present += 1;
        }
        let writer = {
            let link = link.clone();
            std::thread::spawn(move || {
                for f in rx {
                    if link.send(&f).is_err() {
                        break;
                    }
                }
            })
        };
        let reader = {
            let (state, done, link, name) = (state.clone(), done.clone(), link, name);
            std::thread::spawn(move || serve_party(&state, &done, &link, &name))
        };
        handles.push((writer, reader));
    }
    let (flag, cv) = &*done;
    let mut finished = lock(flag);
    while !*finished {
        finished = cv.wait(finished).unwrap_or_else(|e| e.into_inner());
    }
    Ok(())
}

/// Reads one party's frames until it leaves, is gone, or asks the board to shut down.
fn serve_party(state: &Mutex<BoardState>, done: &(Mutex<bool>, Condvar), link: &Link, name: &str) {
    let outcome: Result<bool, String> = loop {
        let f = match link.recv() {
            Ok(f) => f,
            Err(e) => break Err(format!("its link to the board broke ({e})")),
        };
        let (kind, strings, body) = match parse(&f, if f.first() == Some(&POST) { 1 } else { 0 }) {
            Ok(p) => p,
            Err(e) => break Err(format!("sent a malformed frame ({e})")),
        };
        match kind {
            POST => {
                let tag = &strings[0];
                let mut st = lock(state);
                if !st.tags.insert(tag.clone()) {
                    break Err(format!("posted {tag:?} a second time"));
                }
                let out = Arc::new(frame(POST, &[name, tag], body));
                st.push_to_others(name, &out);
                st.log.push((name.to_string(), out));
            }
            GOODBYE => break Ok(false),
            SHUT_DOWN => break Ok(true),
            other => break Err(format!("sent a frame of unknown kind {other}")),
        }
    };
    let mut st = lock(state);
    st.readers.remove(name);
    st.present -= 1;
    let shut_down = match outcome {
        Ok(shut) => shut,
        Err(why) => {
            let gone = Arc::new(frame(GONE, &[name, &why], &[]));
            st.push_to_others(name, &gone);
            false
        }
    };
    if shut_down || st.present == 0 {
        // Give the writers a moment to deliver what is queued (a goodbye, a gone notice).
        drop(st);
        std::thread::sleep(Duration::from_millis(50));
        let (flag, cv) = done;
        *lock(flag) = true;
        cv.notify_all();
    }
}

// ---- a party's side -------------------------------------------------------------------------

struct Inbox {
    posts: HashMap<String, Vec<u8>>,
    failure: Option<Failure>,
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
const STAMP: usize = 8;

/// A party's place in the chains of posts: its epoch and the deepest post of that epoch it has
/// read.
#[derive(Clone, Copy, Debug, Default)]
struct Clock {
    epoch: u32,
    depth: u32,
}

impl BoardClient {
    /// Connects party `name` to the board at `addr` that presents `board_cert`.
    pub fn connect(
        name: &str,
        id: &Identity,
        addr: std::net::SocketAddr,
        board_cert: tls_link::Certificate<'static>,
    ) -> io::Result<BoardClient> {
        let link = Arc::new(Link::connect(
            addr,
            tls_link::client_config(id, vec![board_cert])?,
        )?);
        let inbox = Arc::new((
            Mutex::new(Inbox {
                posts: HashMap::new(),
                failure: None,
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
        })
    }

    /// This party's name.
    pub fn name(&self) -> &str {
        &self.name
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
        self.link.send(&f).map_err(|e| Failure {
            party: BOARD.into(),
            why: format!("{} could not post {tag:?}: {e}", self.name),
        })?;
        Ok(f.len() as u64)
    }

    /// The post under `tag`, waiting for it; fails as soon as a party is gone or the board is.
    pub fn fetch(&self, tag: &str) -> Result<(Vec<u8>, Fetched), Failure> {
        let (m, cv) = &*self.inbox;
        let start = Instant::now();
        let mut waited = false;
        let mut inbox = lock(m);
        loop {
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
            if let Some(f) = &inbox.failure {
                return Err(f.clone());
            }
            waited = true;
            inbox = cv.wait(inbox).unwrap_or_else(|e| e.into_inner());
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
        while inbox.failure.is_none() {
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

    /// Asks the board to shut down (the driver, once it has every party's report).
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

    type Server = std::thread::JoinHandle<io::Result<()>>;

    /// A board serving the driver and two mixers, and their connected clients.
    fn start() -> (Vec<BoardClient>, Server) {
        let names = ["driver", "mixer 0", "mixer 1"];
        let board = Identity::generate().unwrap();
        let ids: Vec<Identity> = names
            .iter()
            .map(|_| Identity::generate().unwrap())
            .collect();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let parties = names
            .iter()
            .zip(&ids)
            .map(|(n, id)| (n.to_string(), id.cert.clone()))
            .collect();
        let cert = board.cert.clone();
        let server = std::thread::spawn(move || serve(listener, &board, parties));
        let clients = names
            .iter()
            .zip(&ids)
            .map(|(n, id)| BoardClient::connect(n, id, addr, cert.clone()).unwrap())
            .collect();
        (clients, server)
    }

    /// Every party says goodbye; the board then ends without an error.
    fn finish(c: &[BoardClient], server: Server) {
        for x in c {
            x.goodbye();
        }
        server.join().unwrap().unwrap();
    }

    #[test]
    fn posts_reach_every_other_party_once_per_tag() {
        let (c, server) = start();
        c[1].post("a", b"from mixer 0").unwrap();
        assert_eq!(c[0].fetch("a").unwrap().0, b"from mixer 0");
        assert_eq!(c[2].fetch("a").unwrap().0, b"from mixer 0");
        // A fetch waits for a later post.
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| c[2].fetch("b"));
            std::thread::sleep(Duration::from_millis(50));
            c[0].post("b", b"late").unwrap();
            let (body, cost) = waiter.join().unwrap().unwrap();
            assert_eq!(body, b"late");
            assert!(cost.waited_s > 0.0 && cost.bytes > 4);
        });
        finish(&c, server);
    }

    #[test]
    fn depths_count_the_chain_of_posts_within_an_epoch() {
        let (c, server) = start();
        // driver -> mixer 0 -> mixer 1: depths 1, 2, 3; a post of an older epoch counts 0.
        c[0].post("a", b"x").unwrap();
        assert_eq!(c[1].fetch("a").unwrap().1.depth, 1);
        c[1].post("b", b"y").unwrap();
        assert_eq!(c[2].fetch("b").unwrap().1.depth, 2);
        c[2].post("c", b"z").unwrap();
        assert_eq!(c[0].fetch("c").unwrap().1.depth, 3);
        for x in &c {
            x.new_epoch();
        }
        c[0].post("d", b"w").unwrap();
        assert_eq!(c[2].fetch("d").unwrap().1.depth, 1);
        c[1].post("e", b"v").unwrap();
        assert_eq!(c[2].fetch("e").unwrap().1.depth, 1);
        c[0].post("f", b"u").unwrap();
        c[1].new_epoch();
        assert_eq!(c[1].fetch("f").unwrap().1.depth, 0);
        finish(&c, server);
    }

    #[test]
    fn a_party_gone_or_a_tag_posted_twice_fails_every_fetch_by_name() {
        let (c, server) = start();
        c[1].cut();
        let f = c[0].fetch("never").unwrap_err();
        assert_eq!(f.party, "mixer 0");
        assert!(c[2].fetch("never").is_err());
        c[2].post("x", b"1").unwrap();
        c[2].post("x", b"2").unwrap();
        c[0].goodbye();
        server.join().unwrap().unwrap();
        assert!(c[1].fetch("x").is_err());
    }
}
