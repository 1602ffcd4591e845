//! Admission to the board: who may start a TLS handshake with it.
//!
//! A TLS handshake is the board's dearest resource: a thread of its own, for up to the
//! handshake's patience. Only the roster's members get one. Before TLS, on the fresh TCP
//! connection, the board sends a fresh 32-byte nonce; the party answers with its name and a
//! signature over the nonce, the run's attempt and its name, made with the key of the
//! certificate it is on the roster with ([`tls_link::Identity::sign`]); the board checks it
//! against that certificate and answers one byte ([`ADMITTED`] or [`REFUSED`]). Only then does
//! the connection get its thread and its TLS handshake, where the same certificate is pinned
//! again. The nonce is fresh for every connection, so an answer seen on the network cannot be
//! replayed; the attempt is the board's own (its driver's journal's), so a process of an earlier
//! attempt of a resumed run that wakes up is not admitted, whatever key it holds.
//!
//! **What a stranger can hold.** A connection that has not answered yet costs the board a socket
//! and a place in a list, no thread. At most [`PER_ADDRESS`] connections of one peer address
//! wait at once, and [`WAITING`] in all (file descriptors); a new connection beyond either bound
//! closes the oldest waiting one of its own address, or of the address with the most waiting
//! when all are full. So a flood from one address only ever pushes out its own connections, and
//! a member, whose answer comes one round trip after it connected, is never the oldest of a flood
//! for long: the board reads every waiting connection after each one it accepts. A connection
//! that does not answer within the handshake's patience, or answers wrongly, is closed. Each
//! member has at most [`MEMBER_HANDSHAKES`] handshakes at once (only it can sign its answers),
//! so no member can starve another either.
//!
//! **What this does not stop.** A flood faster than the board accepts connections fills the
//! kernel's queue of connections not yet accepted, where the board cannot tell a member from a
//! stranger: that is for the network's filtering (or SYN cookies) to bound. A stranger that can
//! send from a member's own address (the same host on the loopback, or a spoofer on its path)
//! can push out that member's waiting connections; the member tries again (its connection
//! closed before the answer is retried, [`super::board`]) until its deadline.

use std::collections::{HashMap, VecDeque};
use std::io::{self, Read, Write};
use std::net::{IpAddr, TcpStream};
use std::time::{Duration, Instant};

use tls_link::{Certificate, Identity};

use crate::transport::roster::Roster;

/// Connections of one peer address that may wait for their admission at once.
pub const PER_ADDRESS: usize = 16;
/// Connections that may wait for their admission at once, in all.
pub const WAITING: usize = 256;
/// TLS handshakes one member may have under way at once.
pub const MEMBER_HANDSHAKES: usize = 2;
/// The board's answer to a valid admission.
pub const ADMITTED: u8 = 1;
/// The board's answer to an admission of someone off the roster, or a wrong signature.
pub const REFUSED: u8 = 2;

const NONCE: usize = 32;
/// The longest answer: a name of at most 64 bytes and a signature of at most 512.
const MAX_NAME: usize = 64;
const MAX_SIGNATURE: usize = 512;

/// What a party signs: the context, the board's nonce, the run's attempt and its own name.
fn message(nonce: &[u8], attempt: u32, name: &str) -> Vec<u8> {
    let mut m = b"db-sm-rsm/board-admission/v2\0".to_vec();
    m.extend_from_slice(nonce);
    m.extend_from_slice(&attempt.to_le_bytes());
    m.extend_from_slice(name.as_bytes());
    m
}

// ---- a party's side -------------------------------------------------------------------------

/// Asks the board on `socket` to admit party `name` of the run's attempt `attempt` (signing with
/// `id`), within `patience`.
/// A refusal is a `PermissionDenied` error (not worth trying again); a connection closed before
/// the answer is an error of the kind a board under a flood gives, which the caller retries.
pub fn present(
    socket: &TcpStream,
    name: &str,
    id: &Identity,
    attempt: u32,
    patience: Duration,
) -> io::Result<()> {
    socket.set_read_timeout(Some(patience))?;
    socket.set_write_timeout(Some(patience))?;
    let mut nonce = [0u8; NONCE];
    (&mut &*socket)
        .read_exact(&mut nonce)
        .map_err(closed_early)?;
    let signature = id.sign(&message(&nonce, attempt, name))?;
    let mut answer = Vec::with_capacity(4 + name.len() + signature.len());
    answer.extend_from_slice(&(name.len() as u16).to_le_bytes());
    answer.extend_from_slice(name.as_bytes());
    answer.extend_from_slice(&(signature.len() as u16).to_le_bytes());
    answer.extend_from_slice(&signature);
    (&mut &*socket).write_all(&answer).map_err(closed_early)?;
    let mut verdict = [0u8; 1];
    (&mut &*socket)
        .read_exact(&mut verdict)
        .map_err(closed_early)?;
    // The link's own timeouts are its owner's to set.
    socket.set_read_timeout(None)?;
    socket.set_write_timeout(None)?;
    match verdict[0] {
        ADMITTED => Ok(()),
        _ => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "the board refused to admit {name}: it is not on the roster as this \
                 certificate, or not of attempt {attempt}"
            ),
        )),
    }
}

/// A connection that ended before its admission was answered: the board closed it to make
/// room (a flood), which is worth another try.
fn closed_early(e: io::Error) -> io::Error {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => io::Error::new(io::ErrorKind::ConnectionAborted, e),
        _ => e,
    }
}

// ---- the board's side -----------------------------------------------------------------------

/// A connection waiting for its admission.
struct Waiting {
    socket: TcpStream,
    address: IpAddr,
    since: Instant,
    nonce: [u8; NONCE],
    /// The answer read so far.
    got: Vec<u8>,
}

/// How far a waiting connection's answer has come.
enum Answer {
    /// More to read.
    Partial,
    /// Complete: the name and the signature.
    Complete(String, Vec<u8>),
    /// Malformed, or the connection ended.
    Bad,
}

impl Waiting {
    /// Reads what has arrived of the answer, never past its end (the TLS handshake follows it on
    /// the same connection).
    fn read(&mut self) -> Answer {
        loop {
            let want = match self.expected() {
                Ok(Some(total)) if self.got.len() == total => return self.parse(),
                Ok(Some(total)) => total,
                Ok(None) => return Answer::Bad,
                Err(()) => return Answer::Bad,
            };
            let mut buf = vec![0u8; want - self.got.len()];
            match (&mut &self.socket).read(&mut buf) {
                Ok(0) => return Answer::Bad,
                Ok(k) => self.got.extend_from_slice(&buf[..k]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Answer::Partial,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Answer::Bad,
            }
        }
    }

    /// The answer's length as far as its length fields have arrived: the bytes to read next
    /// (`Ok(Some)`), or `Ok(None)` for a length out of bounds.
    fn expected(&self) -> Result<Option<usize>, ()> {
        let len_at = |at: usize| -> Option<usize> {
            let b = self.got.get(at..at + 2)?;
            Some(u16::from_le_bytes([b[0], b[1]]) as usize)
        };
        let Some(name) = len_at(0) else {
            return Ok(Some(2));
        };
        if name > MAX_NAME {
            return Ok(None);
        }
        let Some(sig) = len_at(2 + name) else {
            return Ok(Some(2 + name + 2));
        };
        if sig > MAX_SIGNATURE {
            return Ok(None);
        }
        Ok(Some(2 + name + 2 + sig))
    }

    fn parse(&self) -> Answer {
        let name_len = u16::from_le_bytes([self.got[0], self.got[1]]) as usize;
        let Ok(name) = std::str::from_utf8(&self.got[2..2 + name_len]) else {
            return Answer::Bad;
        };
        Answer::Complete(name.to_string(), self.got[2 + name_len + 2..].to_vec())
    }

    /// Tells the party the verdict (a lost answer is the party's to retry).
    fn answer(&self, verdict: u8) {
        let _ = (&mut &self.socket).write_all(&[verdict]);
    }
}

/// The board's connections waiting for their admission.
pub struct Admissions {
    waiting: VecDeque<Waiting>,
    /// How long a connection may wait.
    patience: Duration,
    /// The run's attempt, which every admission must be signed for.
    attempt: u32,
    /// Connections closed to make room, or for want of an answer.
    pub turned_away: u64,
}

impl Admissions {
    /// No connection waiting yet; each may wait `patience`; admissions are of `attempt`.
    pub fn new(patience: Duration, attempt: u32) -> Admissions {
        Admissions {
            waiting: VecDeque::new(),
            patience,
            attempt,
            turned_away: 0,
        }
    }

    /// Connections waiting now.
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// True iff none is waiting.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// A connection just accepted from `address`: it gets its nonce and waits for its answer,
    /// after room was made for it (the oldest waiting connection of its own address, or of the
    /// address with the most, closed).
    pub fn accept(&mut self, socket: TcpStream, address: IpAddr) {
        let mut nonce = [0u8; NONCE];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut nonce);
        if socket.set_nonblocking(true).is_err() || (&mut &socket).write_all(&nonce).is_err() {
            self.turned_away += 1;
            return;
        }
        let of_address = self.waiting.iter().filter(|w| w.address == address).count();
        if of_address >= PER_ADDRESS {
            self.close_oldest_of(address);
        } else if self.waiting.len() >= WAITING {
            let mut counts: HashMap<IpAddr, usize> = HashMap::new();
            for w in &self.waiting {
                *counts.entry(w.address).or_default() += 1;
            }
            let crowded = counts.into_iter().max_by_key(|(_, n)| *n).map(|(a, _)| a);
            if let Some(a) = crowded {
                self.close_oldest_of(a);
            }
        }
        self.waiting.push_back(Waiting {
            socket,
            address,
            since: Instant::now(),
            nonce,
            got: Vec::new(),
        });
    }

    fn close_oldest_of(&mut self, address: IpAddr) {
        if let Some(i) = self.waiting.iter().position(|w| w.address == address) {
            self.waiting.remove(i);
            self.turned_away += 1;
        }
    }

    /// Reads every waiting connection's answer: those whose signature the roster's certificate
    /// of the name they gave bears out are admitted (returned, blocking again, with the member's
    /// name, told [`ADMITTED`]); a wrong answer is told [`REFUSED`] and closed, and so is a
    /// connection that waited longer than the patience or that ended.
    pub fn sweep(&mut self, roster: &Roster) -> Vec<(TcpStream, String)> {
        let mut admitted = Vec::new();
        let now = Instant::now();
        let mut still = VecDeque::with_capacity(self.waiting.len());
        while let Some(mut w) = self.waiting.pop_front() {
            match w.read() {
                Answer::Partial if now.duration_since(w.since) < self.patience => {
                    still.push_back(w)
                }
                Answer::Complete(name, signature) => match certified(roster, &name) {
                    Some(cert)
                        if tls_link::verify(
                            &cert,
                            &message(&w.nonce, self.attempt, &name),
                            &signature,
                        ) =>
                    {
                        w.answer(ADMITTED);
                        if w.socket.set_nonblocking(false).is_ok() {
                            admitted.push((w.socket, name));
                        }
                    }
                    _ => {
                        w.answer(REFUSED);
                        self.turned_away += 1;
                    }
                },
                _ => self.turned_away += 1,
            }
        }
        self.waiting = still;
        admitted
    }
}

/// The roster's certificate of `name`, if it is a member.
fn certified(roster: &Roster, name: &str) -> Option<Certificate<'static>> {
    roster
        .members()
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, c)| c.clone())
}
