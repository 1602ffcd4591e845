//! The run's network: TLS 1.3 links with both ends authenticated by pinned certificates
//! ([`crate::identity`]), between the coordinator and each party and between every two parties
//! (a full mesh), with every byte and every round counted.
//!
//! **Why a mesh and not a star.** Every message of the protocol is an *opening*: each party
//! sends its share of some values to every other party, and each adds up what it receives. Over
//! a mesh that is one flight of messages (one round), the parties are symmetric (each sends and
//! receives `(m - 1) * |share|` bytes), and no party relays, or could alter, what another sent.
//! A star through a "king" party would halve the total traffic at large `m` but take two flights
//! per opening and put `m - 1` times the traffic, and a point of trust, on the king. For the
//! 2 to 8 parties here, one round per opening and equal load per party matter more.
//!
//! **Two links per pair of parties, one per direction.** Each party dials every other party and
//! sends its openings on that link, and reads the openings of each other party on the link that
//! party dialled. A TLS connection's state serves both its directions: while one thread writes a
//! large message into a full socket, the thread reading the same connection cannot decrypt what
//! arrives, so two parties that send each other megabytes at once over one connection stall each
//! other. With one direction per link nothing waits on anything but the network.
//!
//! **Accepting.** [`accept_pinned`] runs every handshake on a thread of its own, bounded by
//! [`HANDSHAKE_TIMEOUT`], so a connection that says nothing holds up nobody. A connection that
//! presents no certificate or one nobody pinned fails its handshake; one that presents a
//! certificate already connected is closed. Either way it is sent nothing, the accept loop goes
//! on waiting for the processes it expects, and the connection is recorded ([`Refused`]).
//!
//! **Framing.** A message is a frame of [`tls_link`]: a 4-byte little-endian length and the
//! body, at most [`tls_link::MAX_FRAME`] bytes, so that a corrupt length cannot make a party
//! allocate without bound.
//!
//! **What is counted.** [`Counters`] holds the bytes this process wrote to and read from its
//! sockets, TLS records and handshakes included (TCP/IP headers not), the protocol's frames
//! they carried (`payload_bytes_*`: lengths and bodies), the messages, and the rounds (one
//! [`Mesh::broadcast`] is one round). [`kernel_bytes_received`] asks the kernel (`TCP_INFO`)
//! how many bytes each connection received, an independent check of the count.

use std::collections::HashMap;
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustls::ServerConfig;
use serde::{Deserialize, Serialize};
use tls_link::{Certificate, Identity};

use crate::identity;
use crate::Error;

/// How long a party waits for a peer before giving up (a crashed peer is seen at once, as a
/// closed connection; this guards against a peer that hangs).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);

/// How long a TLS handshake may take, from the connection's acceptance (or its dialling) to its
/// end: several round trips of the slowest emulated network, with room for a loaded machine.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(20);

/// The most handshakes an accept loop runs at once; connections beyond them are closed at once.
const MAX_HANDSHAKES: usize = 64;

/// Bytes, messages and rounds of one process, cumulative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Bytes on the sockets: TLS records (and handshakes) included.
    pub bytes_sent: u64,
    /// Bytes read from the sockets, counted the same way.
    pub bytes_received: u64,
    /// The protocol's frames (4-byte length and body) those bytes carried.
    pub payload_bytes_sent: u64,
    /// The frames read, counted the same way.
    pub payload_bytes_received: u64,
    /// Messages (frames) sent.
    pub messages_sent: u64,
    /// Messages (frames) received.
    pub messages_received: u64,
    /// Rounds: [`Mesh::broadcast`]s, each one flight of messages between every two parties.
    pub rounds: u64,
}

impl Counters {
    /// The counts from (sent, received) pairs of socket bytes, frame bytes and frames.
    fn of(bytes: (u64, u64), payload: (u64, u64), messages: (u64, u64), rounds: u64) -> Counters {
        Counters {
            bytes_sent: bytes.0,
            bytes_received: bytes.1,
            payload_bytes_sent: payload.0,
            payload_bytes_received: payload.1,
            messages_sent: messages.0,
            messages_received: messages.1,
            rounds,
        }
    }
}

impl Counters {
    /// What happened between `earlier` and `self`.
    pub fn since(&self, earlier: &Counters) -> Counters {
        Counters {
            bytes_sent: self.bytes_sent - earlier.bytes_sent,
            bytes_received: self.bytes_received - earlier.bytes_received,
            payload_bytes_sent: self.payload_bytes_sent - earlier.payload_bytes_sent,
            payload_bytes_received: self.payload_bytes_received - earlier.payload_bytes_received,
            messages_sent: self.messages_sent - earlier.messages_sent,
            messages_received: self.messages_received - earlier.messages_received,
            rounds: self.rounds - earlier.rounds,
        }
    }
}

/// The frame a body travels in: its 4-byte length and itself.
fn frame_len(body: usize) -> u64 {
    4 + body as u64
}

/// One authenticated connection and a clone of its socket (for the kernel's counts, and to
/// close it from another thread).
pub struct Peer {
    link: tls_link::Link,
    socket: TcpStream,
}

impl Peer {
    /// The certificate the other end presented.
    pub fn cert(&self) -> Option<Certificate<'static>> {
        self.link.peer_cert()
    }
}

/// A counted point-to-point connection (between the coordinator and one party).
pub struct Link {
    peer: Peer,
    payload: (u64, u64),
    messages: (u64, u64),
}

impl Link {
    fn new(peer: Peer) -> Self {
        Link {
            peer,
            payload: (0, 0),
            messages: (0, 0),
        }
    }

    /// Dials the coordinator at `addr`, which must present `server`, as `identity`.
    pub fn connect(
        addr: SocketAddr,
        identity: &Identity,
        server: &Certificate<'static>,
        timeout: Duration,
    ) -> Result<Self, Error> {
        let config = identity::client_config(identity, server)?;
        Ok(Link::new(dial(addr, config, timeout)?))
    }

    /// Sends `body` as one frame, and counts it.
    pub fn send(&mut self, body: &[u8]) -> io::Result<()> {
        self.peer.link.send(body)?;
        self.payload.0 += frame_len(body.len());
        self.messages.0 += 1;
        Ok(())
    }

    /// Receives one frame's body (waiting at most the link's timeout), and counts it.
    pub fn recv(&mut self) -> io::Result<Vec<u8>> {
        let body = self.peer.link.recv()?;
        self.payload.1 += frame_len(body.len());
        self.messages.1 += 1;
        Ok(body)
    }

    /// Everything this link carried so far, its handshake included.
    pub fn counters(&self) -> Counters {
        let (sent, received) = self.peer.link.counts();
        Counters::of((sent, received), self.payload, self.messages, 0)
    }
}

/// An error on the connection to party `j`, naming it (a peer that dies shows up as the end of
/// its connection, and the report says whose).
fn peer_error(j: usize, doing: &str, e: io::Error) -> io::Error {
    let what = match e.kind() {
        io::ErrorKind::UnexpectedEof => "the connection ended".to_string(),
        _ => e.to_string(),
    };
    io::Error::new(e.kind(), format!("{doing} party {j}: {what}"))
}

/// A listener's peer may not be listening yet when we start: retry for a while.
fn connect_retrying(addr: SocketAddr, timeout: Duration) -> io::Result<TcpStream> {
    let start = Instant::now();
    loop {
        match TcpStream::connect(addr) {
            Ok(s) => return Ok(s),
            Err(_) if start.elapsed() < timeout.min(Duration::from_secs(60)) => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Bounds a socket's reads and writes (a handshake's with [`HANDSHAKE_TIMEOUT`], then the
/// link's with the run's timeout).
fn bound(socket: &TcpStream, timeout: Duration) -> io::Result<()> {
    socket.set_read_timeout(Some(timeout))?;
    socket.set_write_timeout(Some(timeout))
}

/// Dials `addr` and completes the client side of the handshake within [`HANDSHAKE_TIMEOUT`].
fn dial(
    addr: SocketAddr,
    config: Arc<rustls::ClientConfig>,
    timeout: Duration,
) -> io::Result<Peer> {
    let socket = connect_retrying(addr, timeout)?;
    bound(&socket, HANDSHAKE_TIMEOUT.min(timeout))?;
    let clone = socket.try_clone()?;
    let link = tls_link::Link::connect_on(socket, config)?;
    bound(&clone, timeout)?;
    Ok(Peer {
        link,
        socket: clone,
    })
}

/// A connection an accept loop closed without sending it anything: where it came from and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refused {
    /// The connection's remote address.
    pub from: String,
    /// Why it was closed: a failed handshake, an unknown or repeated certificate, a full loop.
    pub why: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.from, self.why)
    }
}

/// What [`accept_pinned`] awaits: one connection from each process whose certificate is given.
pub struct Awaited<'a> {
    /// The listening socket the connections arrive on.
    pub listener: &'a TcpListener,
    /// The server side, pinning exactly the certificates in `certs`.
    pub config: Arc<ServerConfig>,
    /// By id; `None` where no connection is awaited.
    pub certs: &'a [Option<Certificate<'static>>],
    /// Who the ids are, for messages ("party").
    pub who: &'a str,
    /// How long to wait for all of them.
    pub timeout: Duration,
}

/// A handshake's outcome, sent by its thread: the connection's key, where it came from, and the
/// authenticated peer or the handshake's error.
type Handshake = (u64, SocketAddr, io::Result<Peer>);

/// The server side of one handshake, on the thread of its own that [`Accepting::hand_off`]
/// starts.
fn handshake(socket: TcpStream, config: Arc<ServerConfig>) -> io::Result<Peer> {
    let clone = socket.try_clone()?;
    let link = tls_link::Link::accept_on(socket, config)?;
    Ok(Peer {
        link,
        socket: clone,
    })
}

/// The state of one accept loop: the peers admitted so far by id, the connections refused, and
/// the handshakes still running.
struct Accepting<'a> {
    certs: &'a [Option<Certificate<'static>>],
    who: &'a str,
    config: Arc<ServerConfig>,
    timeout: Duration,
    peers: Vec<Option<Peer>>,
    refused: Vec<Refused>,
    /// Clones of the sockets whose handshakes are running, by key, to close them when the wait
    /// ends.
    pending: HashMap<u64, (TcpStream, SocketAddr)>,
    next: u64,
    /// Where the handshake threads send their outcomes.
    done: mpsc::Sender<Handshake>,
}

impl<'a> Accepting<'a> {
    fn new(awaited: Awaited<'a>, done: mpsc::Sender<Handshake>) -> Self {
        Accepting {
            certs: awaited.certs,
            who: awaited.who,
            config: awaited.config,
            timeout: awaited.timeout,
            peers: awaited.certs.iter().map(|_| None).collect(),
            refused: vec![],
            pending: HashMap::new(),
            next: 0,
            done,
        }
    }

    fn all_connected(&self) -> bool {
        self.peers.iter().flatten().count() == self.certs.iter().flatten().count()
    }

    fn refuse(&mut self, from: SocketAddr, why: String) {
        self.refused.push(Refused {
            from: from.to_string(),
            why,
        });
    }

    /// Hands a connection just accepted to a handshake thread of its own, or closes it when
    /// [`MAX_HANDSHAKES`] are already running, so that a flood of connections can neither
    /// exhaust the process nor hold up the loop.
    fn hand_off(&mut self, socket: TcpStream, from: SocketAddr) {
        if self.pending.len() >= MAX_HANDSHAKES {
            drop(socket);
            self.refuse(
                from,
                format!("{MAX_HANDSHAKES} handshakes were already running"),
            );
            return;
        }
        let clone = socket
            .set_nonblocking(false)
            .and_then(|()| bound(&socket, HANDSHAKE_TIMEOUT.min(self.timeout)))
            .and_then(|()| socket.try_clone());
        match clone {
            Ok(clone) => {
                self.pending.insert(self.next, (clone, from));
                let (done, config, key) = (self.done.clone(), self.config.clone(), self.next);
                std::thread::spawn(move || {
                    let _ = done.send((key, from, handshake(socket, config)));
                });
                self.next += 1;
            }
            Err(e) => self.refuse(from, e.to_string()),
        }
    }

    /// Admits the peer of a finished handshake under the id its certificate is pinned for, or
    /// closes its connection (a failed handshake, a certificate nobody awaits, or one that
    /// already connected). An error only where the admitted socket cannot be bounded.
    fn admit(&mut self, (key, from, result): Handshake) -> Result<(), Error> {
        self.pending.remove(&key);
        let peer = match result {
            Ok(peer) => peer,
            Err(e) => {
                self.refuse(from, format!("TLS handshake: {e}"));
                return Ok(());
            }
        };
        let certs = self.certs;
        let j = peer
            .cert()
            .and_then(|c| certs.iter().position(|p| p.as_ref() == Some(&c)));
        match j {
            Some(j) if self.peers[j].is_none() => {
                bound(&peer.socket, self.timeout)?;
                self.peers[j] = Some(peer);
            }
            Some(j) => {
                let _ = peer.socket.shutdown(Shutdown::Both);
                let who = self.who;
                self.refuse(
                    from,
                    format!("{who} {j}'s certificate, which had already connected"),
                );
            }
            None => {
                let _ = peer.socket.shutdown(Shutdown::Both);
                self.refuse(from, "a certificate not awaited".into());
            }
        }
        Ok(())
    }

    /// The error of a wait that timed out: the ids missing and the connections refused.
    fn timed_out(&self) -> Error {
        let missing: Vec<String> = (0..self.certs.len())
            .filter(|&j| self.certs[j].is_some() && self.peers[j].is_none())
            .map(|j| j.to_string())
            .collect();
        let refused: Vec<String> = self.refused.iter().map(|r| r.to_string()).collect();
        Error::Invalid(format!(
            "{} {} did not connect within {} s{}",
            self.who,
            missing.join(", "),
            self.timeout.as_secs(),
            if refused.is_empty() {
                String::new()
            } else {
                format!("; connections refused: {}", refused.join("; "))
            }
        ))
    }

    /// Closes the connections whose handshakes are still running when the wait ends: nobody
    /// awaits them any more.
    fn close_unfinished(&mut self) {
        let mut unfinished: Vec<_> = self.pending.drain().collect();
        unfinished.sort_by_key(|(key, _)| *key);
        for (_, (socket, from)) in unfinished {
            let _ = socket.shutdown(Shutdown::Both);
            self.refuse(
                from,
                "its handshake had not ended when every awaited process had connected".into(),
            );
        }
    }
}

/// Accepts TLS connections until each awaited certificate has connected once, every handshake
/// on its own thread (see the module docs). `watch` runs while it waits: an error from it (a
/// process that exited) ends the wait. Returns the peers by id and the connections refused. On
/// a timeout the error names the ids missing and the connections refused.
pub fn accept_pinned(
    awaited: Awaited,
    watch: &mut dyn FnMut() -> Result<(), Error>,
) -> Result<(Vec<Option<Peer>>, Vec<Refused>), Error> {
    let (listener, timeout) = (awaited.listener, awaited.timeout);
    let (done, outcomes) = mpsc::channel();
    let mut state = Accepting::new(awaited, done);
    let start = Instant::now();
    listener.set_nonblocking(true)?;
    let outcome = loop {
        if state.all_connected() {
            break Ok(());
        }
        // A connection accepted now is handed to its own thread; the checks below run whatever
        // comes in, so that a flood of connections cannot starve them.
        let quiet = match listener.accept() {
            Ok((socket, from)) => {
                state.hand_off(socket, from);
                false
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => true,
            Err(e) => break Err(e.into()),
        };
        if let Err(e) = watch() {
            break Err(e);
        }
        if start.elapsed() > timeout {
            break Err(state.timed_out());
        }
        // Waits a little only when nobody is connecting.
        let wait = Duration::from_millis(if quiet { 10 } else { 0 });
        if let Ok(handshake) = outcomes.recv_timeout(wait) {
            if let Err(e) = state.admit(handshake) {
                break Err(e);
            }
        }
    };
    state.close_unfinished();
    listener.set_nonblocking(false)?;
    outcome.map(|()| (state.peers, state.refused))
}

/// The coordinator's side: accepts one link from each of `certs`' parties (see
/// [`accept_pinned`]).
pub fn accept_links(
    awaited: Awaited,
    watch: &mut dyn FnMut() -> Result<(), Error>,
) -> Result<(Vec<Link>, Vec<Refused>), Error> {
    let (peers, refused) = accept_pinned(awaited, watch)?;
    let links = peers
        .into_iter()
        .map(|p| Link::new(p.expect("every party connected")))
        .collect();
    Ok((links, refused))
}

/// One party's links to all the others.
pub struct Mesh {
    id: usize,
    /// `to[j]`: the link this party dialled to party `j`, on which it sends; `None` at its own
    /// index.
    to: Vec<Option<Peer>>,
    /// `from[j]`: the link party `j` dialled to this party, on which this party receives.
    from: Vec<Option<Peer>>,
    payload: (u64, u64),
    messages: (u64, u64),
    rounds: u64,
    /// The connections this party's listener refused while it set up the mesh.
    pub refused: Vec<Refused>,
}

impl Mesh {
    /// Connects party `id`, as `identity`, to every other party: it dials each party `j` at
    /// `addrs[j]`, which must present `certs[j]`, and accepts on `listener` one connection
    /// from each of the others, which it knows by their certificates. The dials and the
    /// accepts run at once; a dial that fails ends the accepts.
    pub fn establish(
        id: usize,
        identity: &Identity,
        certs: &[Certificate<'static>],
        addrs: &[SocketAddr],
        listener: &TcpListener,
        timeout: Duration,
    ) -> Result<Mesh, Error> {
        let m = addrs.len();
        assert!(id < m, "party id {id} out of range for {m} parties");
        assert_eq!(certs.len(), m, "a certificate per party");
        let others: Vec<Option<Certificate<'static>>> = (0..m)
            .map(|j| (j != id).then(|| certs[j].clone()))
            .collect();
        let config = identity::server_config(identity, others.iter().flatten().cloned().collect())?;
        let failed: Mutex<Option<String>> = Mutex::new(None);
        let (to, accepted) = std::thread::scope(|scope| {
            let dials: Vec<_> = (0..m)
                .map(|j| {
                    let (failed, cert) = (&failed, &certs[j]);
                    (j != id).then(|| {
                        scope.spawn(move || {
                            let peer = identity::client_config(identity, cert)
                                .and_then(|c| Ok(dial(addrs[j], c, timeout)?))
                                .map_err(|e| format!("dialling party {j}: {e}"));
                            if let Err(e) = &peer {
                                failed
                                    .lock()
                                    .unwrap_or_else(|p| p.into_inner())
                                    .get_or_insert(e.clone());
                            }
                            peer
                        })
                    })
                })
                .collect();
            let accepted = accept_pinned(
                Awaited {
                    listener,
                    config,
                    certs: &others,
                    who: "party",
                    timeout,
                },
                &mut || match failed.lock().unwrap_or_else(|p| p.into_inner()).clone() {
                    Some(e) => Err(Error::Invalid(format!("party {id}: {e}"))),
                    None => Ok(()),
                },
            );
            let to: Vec<Option<Result<Peer, String>>> = dials
                .into_iter()
                .map(|d| d.map(|h| h.join().expect("a dialling thread does not panic")))
                .collect();
            (to, accepted)
        });
        let (from, refused) = accepted?;
        let to = to
            .into_iter()
            .map(|d| {
                d.transpose()
                    .map_err(|e| Error::Invalid(format!("party {id}: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Mesh {
            id,
            to,
            from,
            payload: (0, 0),
            messages: (0, 0),
            rounds: 0,
            refused,
        })
    }

    /// This party's id.
    pub fn id(&self) -> usize {
        self.id
    }

    /// The number of parties in the mesh, this one included.
    pub fn parties(&self) -> usize {
        self.to.len()
    }

    /// Everything the mesh's links carried so far, their handshakes included.
    pub fn counters(&self) -> Counters {
        let (sent, received) = self
            .to
            .iter()
            .chain(&self.from)
            .flatten()
            .map(|p| p.link.counts())
            .fold((0, 0), |(s, r), (a, b)| (s + a, r + b));
        Counters::of((sent, received), self.payload, self.messages, self.rounds)
    }

    /// One round: sends `msg` to every other party and receives one message from each. Returns
    /// the received messages by sender id (our own slot is empty). The writes run on their own
    /// threads while this one reads, each on its own link, so that large messages flow in every
    /// direction at once.
    pub fn broadcast(&mut self, msg: &[u8]) -> io::Result<Vec<Vec<u8>>> {
        let m = self.parties();
        let to: Vec<(usize, &tls_link::Link)> = self
            .to
            .iter()
            .enumerate()
            .filter_map(|(j, p)| p.as_ref().map(|p| (j, &p.link)))
            .collect();
        let from: Vec<(usize, &tls_link::Link)> = self
            .from
            .iter()
            .enumerate()
            .filter_map(|(j, p)| p.as_ref().map(|p| (j, &p.link)))
            .collect();
        let received = std::thread::scope(|scope| {
            let writers: Vec<_> = to
                .iter()
                .map(|&(_, link)| scope.spawn(move || link.send(msg)))
                .collect();
            let mut received = vec![Vec::new(); m];
            let mut read_error = None;
            for &(j, link) in &from {
                match link.recv() {
                    Ok(body) => received[j] = body,
                    Err(e) => {
                        read_error = Some(peer_error(j, "reading from", e));
                        break;
                    }
                }
            }
            let mut write_error = None;
            for (w, &(j, _)) in writers.into_iter().zip(&to) {
                if let Err(e) = w.join().expect("a writer thread does not panic") {
                    write_error = Some(peer_error(j, "writing to", e));
                }
            }
            match (read_error, write_error) {
                (Some(e), _) | (None, Some(e)) => Err(e),
                (None, None) => Ok(received),
            }
        })?;
        let n = to.len() as u64;
        self.payload.0 += n * frame_len(msg.len());
        self.messages.0 += n;
        self.payload.1 += from
            .iter()
            .map(|&(j, _)| frame_len(received[j].len()))
            .sum::<u64>();
        self.messages.1 += from.len() as u64;
        self.rounds += 1;
        Ok(received)
    }

    /// Bytes the kernel says the mesh's connections received so far, summed (see
    /// [`kernel_bytes_received`]).
    pub fn kernel_bytes_received(&self) -> Option<u64> {
        self.to
            .iter()
            .chain(&self.from)
            .flatten()
            .map(|p| kernel_bytes_received(&p.socket))
            .sum::<Option<u64>>()
    }
}

/// The kernel's count of bytes received on a TCP connection (`tcpi_bytes_received` of
/// `TCP_INFO`, Linux 4.1 and later); `None` where the kernel does not say.
#[cfg(target_os = "linux")]
pub fn kernel_bytes_received(stream: &TcpStream) -> Option<u64> {
    use std::os::fd::AsRawFd;
    // SAFETY: an all-zero tcp_info is a valid value; getsockopt writes at most `len` bytes into
    // it and reports how many in `len`.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: the fd is an open TCP socket owned by `stream`; the pointers are valid for `len`.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            &mut info as *mut libc::tcp_info as *mut libc::c_void,
            &mut len,
        )
    };
    // Older kernels return a shorter struct without the byte counters.
    let needed = std::mem::offset_of!(libc::tcp_info, tcpi_bytes_received) + 8;
    (rc == 0 && len as usize >= needed).then_some(info.tcpi_bytes_received)
}

/// The kernel's count of bytes received on a TCP connection: not known off Linux.
#[cfg(not(target_os = "linux"))]
pub fn kernel_bytes_received(_stream: &TcpStream) -> Option<u64> {
    None
}
