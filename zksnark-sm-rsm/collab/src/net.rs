//! The parties' network: TCP, one connection per pair of parties (a full mesh), with every byte
//! and every round counted.
//!
//! **Why a mesh and not a star.** Every message of the protocol is an *opening*: each party
//! sends its share of some values to every other party, and each adds up what it receives. Over
//! a mesh that is one flight of messages (one round), the parties are symmetric (each sends and
//! receives `(m - 1) * |share|` bytes), and no party relays, or could alter, what another sent.
//! A star through a "king" party would halve the total traffic at large `m` but take two flights
//! per opening and put `m - 1` times the traffic, and a point of trust, on the king. For the
//! 2 to 8 parties here, one round per opening and equal load per party matter more.
//!
//! **Framing.** A message is an 8-byte little-endian length and the body. Received lengths are
//! capped ([`MAX_FRAME`]) so that a corrupt length cannot make a party allocate without bound.
//!
//! **What is counted.** [`Counters`] holds the bytes this party wrote to and read from its
//! sockets (frame headers included; TCP/IP headers not), the messages, and the rounds (one
//! [`Mesh::broadcast`] is one round). [`kernel_bytes_received`] asks the kernel (`TCP_INFO`)
//! how many bytes each connection received, an independent check of the count.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The largest message body accepted: the largest opening is two field vectors of the QAP
/// domain size (64 MiB at a domain of 2^20, 1 GiB at 2^24).
pub const MAX_FRAME: u64 = 1 << 30;

/// How long a party waits for a peer before giving up (a crashed peer is seen at once, as a
/// closed connection; this guards against a peer that hangs).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);

/// Bytes, messages and rounds of one party, cumulative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub messages_sent: u64,
    pub messages_received: u64,
    pub rounds: u64,
}

impl Counters {
    /// What happened between `earlier` and `self`.
    pub fn since(&self, earlier: &Counters) -> Counters {
        Counters {
            bytes_sent: self.bytes_sent - earlier.bytes_sent,
            bytes_received: self.bytes_received - earlier.bytes_received,
            messages_sent: self.messages_sent - earlier.messages_sent,
            messages_received: self.messages_received - earlier.messages_received,
            rounds: self.rounds - earlier.rounds,
        }
    }
}

/// Writes one frame; returns the bytes written.
pub fn write_frame(mut stream: &TcpStream, body: &[u8]) -> io::Result<u64> {
    stream.write_all(&(body.len() as u64).to_le_bytes())?;
    stream.write_all(body)?;
    Ok(8 + body.len() as u64)
}

/// Reads one frame.
pub fn read_frame(mut stream: &TcpStream) -> io::Result<Vec<u8>> {
    let mut len = [0u8; 8];
    stream.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    if len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a peer announced a {len}-byte message, more than the {MAX_FRAME} allowed"),
        ));
    }
    let mut body = vec![0u8; len as usize];
    stream.read_exact(&mut body)?;
    Ok(body)
}

fn configure(stream: &TcpStream, timeout: Duration) -> io::Result<()> {
    // Openings are sent whole and then waited for: Nagle's delay would only add latency.
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))
}

/// A counted point-to-point connection (between the coordinator and one party).
pub struct Link {
    stream: TcpStream,
    pub counters: Counters,
}

impl Link {
    pub fn new(stream: TcpStream, timeout: Duration) -> io::Result<Self> {
        configure(&stream, timeout)?;
        Ok(Link {
            stream,
            counters: Counters::default(),
        })
    }

    pub fn connect(addr: SocketAddr, timeout: Duration) -> io::Result<Self> {
        Link::new(connect_retrying(addr, timeout)?, timeout)
    }

    pub fn send(&mut self, body: &[u8]) -> io::Result<()> {
        self.counters.bytes_sent += write_frame(&self.stream, body)?;
        self.counters.messages_sent += 1;
        Ok(())
    }

    pub fn recv(&mut self) -> io::Result<Vec<u8>> {
        let body = read_frame(&self.stream)?;
        self.counters.bytes_received += 8 + body.len() as u64;
        self.counters.messages_received += 1;
        Ok(body)
    }

    pub fn stream(&self) -> &TcpStream {
        &self.stream
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

/// One party's connections to all the others.
pub struct Mesh {
    id: usize,
    /// `peers[j]` is the connection to party `j`; `None` at our own index.
    peers: Vec<Option<TcpStream>>,
    pub counters: Counters,
}

impl Mesh {
    /// Connects party `id` to every other party: it dials each party with a smaller id (at
    /// `addrs[j]`) and accepts one connection from each party with a larger id on `listener`.
    /// Each connection starts with the dialler's id (8 bytes), so accepts may come in any order.
    pub fn establish(
        id: usize,
        addrs: &[SocketAddr],
        listener: &TcpListener,
        timeout: Duration,
    ) -> io::Result<Mesh> {
        let m = addrs.len();
        assert!(id < m, "party id {id} out of range for {m} parties");
        let mut mesh = Mesh {
            id,
            peers: (0..m).map(|_| None).collect(),
            counters: Counters::default(),
        };
        for (j, addr) in addrs.iter().enumerate().take(id) {
            let stream = connect_retrying(*addr, timeout)?;
            configure(&stream, timeout)?;
            (&stream).write_all(&(id as u64).to_le_bytes())?;
            mesh.counters.bytes_sent += 8;
            mesh.peers[j] = Some(stream);
        }
        for _ in id + 1..m {
            let (stream, _) = listener.accept()?;
            configure(&stream, timeout)?;
            let mut who = [0u8; 8];
            (&stream).read_exact(&mut who)?;
            mesh.counters.bytes_received += 8;
            let j = u64::from_le_bytes(who) as usize;
            if j <= id || j >= m || mesh.peers[j].is_some() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("party {id}: unexpected connection claiming to be party {j}"),
                ));
            }
            mesh.peers[j] = Some(stream);
        }
        Ok(mesh)
    }

    pub fn id(&self) -> usize {
        self.id
    }

    pub fn parties(&self) -> usize {
        self.peers.len()
    }

    /// One round: sends `msg` to every other party and receives one message from each. Returns
    /// the received messages by sender id (our own slot is empty). Writes run on their own
    /// threads while this one reads, so that large messages never deadlock on full socket
    /// buffers.
    pub fn broadcast(&mut self, msg: &[u8]) -> io::Result<Vec<Vec<u8>>> {
        let peers: Vec<(usize, &TcpStream)> = self
            .peers
            .iter()
            .enumerate()
            .filter_map(|(j, s)| s.as_ref().map(|s| (j, s)))
            .collect();
        let (sent, received) = std::thread::scope(|scope| {
            let writers: Vec<_> = peers
                .iter()
                .map(|&(_, s)| scope.spawn(move || write_frame(s, msg)))
                .collect();
            let mut received = vec![Vec::new(); self.peers.len()];
            let mut read_error = None;
            for &(j, s) in &peers {
                match read_frame(s) {
                    Ok(body) => received[j] = body,
                    Err(e) => {
                        read_error = Some(peer_error(j, "reading from", e));
                        break;
                    }
                }
            }
            let mut sent = 0;
            let mut write_error = None;
            for (w, &(j, _)) in writers.into_iter().zip(&peers) {
                match w.join().expect("a writer thread does not panic") {
                    Ok(n) => sent += n,
                    Err(e) => write_error = Some(peer_error(j, "writing to", e)),
                }
            }
            match (read_error, write_error) {
                (Some(e), _) | (None, Some(e)) => Err(e),
                (None, None) => Ok((sent, received)),
            }
        })?;
        let n = peers.len() as u64;
        self.counters.bytes_sent += sent;
        self.counters.messages_sent += n;
        self.counters.bytes_received += peers
            .iter()
            .map(|&(j, _)| 8 + received[j].len() as u64)
            .sum::<u64>();
        self.counters.messages_received += n;
        self.counters.rounds += 1;
        Ok(received)
    }

    /// Bytes the kernel says each connection received so far, summed (see [`kernel_bytes_received`]).
    pub fn kernel_bytes_received(&self) -> Option<u64> {
        self.peers
            .iter()
            .flatten()
            .map(kernel_bytes_received)
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

#[cfg(not(target_os = "linux"))]
pub fn kernel_bytes_received(_stream: &TcpStream) -> Option<u64> {
    None
}
