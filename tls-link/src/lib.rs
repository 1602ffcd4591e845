//! Mutually authenticated TLS 1.3 links between the processes of one run, for the suite's
//! multi-process programs (a bulletin board and its parties, nodes and their driver).
//!
//! **Identities.** Every process makes a fresh self-signed ECDSA P-256 certificate when it
//! starts ([`Identity::generate`]); there is no certificate authority. A process learns its
//! peers' certificates from whoever started them (on a pipe only the parent reads and
//! writes) and accepts exactly those: a handshake with any other certificate fails
//! ([`Pinned`]). Both sides authenticate on every link, with the ring provider's algorithms.
//!
//! **Frames.** A message is a 4-byte little-endian length and its body, at most
//! [`MAX_FRAME`] bytes.
//!
//! **Both directions at once.** A [`Link`] can be shared between threads: one thread may
//! block in [`Link::recv`] while others [`Link::send`] (a bulletin board pushes posts to a
//! party while the party posts its own). The TLS state sits behind a lock that no thread
//! holds while it waits on the socket.
//!
//! **Counts.** [`Link::counts`] are the bytes on the socket, TLS records and handshake
//! included, TCP/IP headers not.

#![warn(missing_docs)]

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
pub use rustls::pki_types::CertificateDer as Certificate;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};

use rustls::{
    ClientConfig, ClientConnection, Connection, DigitallySignedStruct, DistinguishedName,
    ServerConfig, ServerConnection, SignatureScheme,
};

#[cfg(any(test, feature = "testing"))]
pub mod testing;

/// The largest message accepted.
pub const MAX_FRAME: usize = 1 << 30;

/// How long a connection attempt keeps retrying while the peer starts listening.
pub const CONNECT_PATIENCE: Duration = Duration::from_secs(30);

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A certificate and its private key, made when the process starts.
pub struct Identity {
    /// The certificate peers pin.
    pub cert: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
}

impl Identity {
    /// A fresh self-signed certificate for the name `localhost`.
    pub fn generate() -> io::Result<Identity> {
        let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string()])
            .map_err(io::Error::other)?;
        Ok(Identity {
            cert: made.cert.der().clone(),
            key: PrivatePkcs8KeyDer::from(made.key_pair.serialize_der()),
        })
    }

    fn key(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(self.key.clone_key())
    }
}

/// A certificate as hexadecimal text, for a bootstrap pipe.
pub fn cert_to_hex(cert: &CertificateDer<'_>) -> String {
    cert.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// A certificate from [`cert_to_hex`]'s text.
pub fn cert_from_hex(s: &str) -> Option<CertificateDer<'static>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect();
    bytes.map(CertificateDer::from)
}

/// Accepts exactly the given certificates; handshake signatures are checked with the ring
/// provider.
#[derive(Debug)]
pub struct Pinned {
    certs: Vec<CertificateDer<'static>>,
    provider: Arc<CryptoProvider>,
}

impl Pinned {
    /// Pins `certs`.
    pub fn new(certs: Vec<CertificateDer<'static>>) -> Self {
        Pinned {
            certs,
            provider: provider(),
        }
    }

    fn known(&self, cert: &CertificateDer<'_>) -> Result<(), rustls::Error> {
        if self.certs.iter().any(|c| c.as_ref() == cert.as_ref()) {
            Ok(())
        } else {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::UnknownIssuer,
            ))
        }
    }
}

/// The handshake-signature checks, the same for both verifier traits: the ring provider's
/// algorithms. Each check method calls rustls's function of the same name.
macro_rules! pinned_signatures {
    () => {
        pinned_signatures!(verify_tls12_signature);
        pinned_signatures!(verify_tls13_signature);
        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.provider
                .signature_verification_algorithms
                .supported_schemes()
        }
    };
    ($check:ident) => {
        fn $check(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            let algs = &self.provider.signature_verification_algorithms;
            $check(message, cert, dss, algs)
        }
    };
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.known(end_entity)
            .map(|()| ServerCertVerified::assertion())
    }
    pinned_signatures!();
}

impl ClientCertVerifier for Pinned {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }
    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.known(end_entity)
            .map(|()| ClientCertVerified::assertion())
    }
    pinned_signatures!();
}

/// The server side of `id`, accepting clients that present one of `clients` (mandatory).
pub fn server_config(
    id: &Identity,
    clients: Vec<CertificateDer<'static>>,
) -> io::Result<Arc<ServerConfig>> {
    server(id, Arc::new(Pinned::new(clients)))
}

/// A TLS 1.3 server side of `id` whose clients `clients` checks.
fn server(id: &Identity, clients: Arc<dyn ClientCertVerifier>) -> io::Result<Arc<ServerConfig>> {
    let c = ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(io::Error::other)?
        .with_client_cert_verifier(clients)
        .with_single_cert(vec![id.cert.clone()], id.key())
        .map_err(io::Error::other)?;
    Ok(Arc::new(c))
}

/// The client side of `id`, trusting servers that present one of `servers`.
pub fn client_config(
    id: &Identity,
    servers: Vec<CertificateDer<'static>>,
) -> io::Result<Arc<ClientConfig>> {
    let c = pinned_client(servers)?
        .with_client_auth_cert(vec![id.cert.clone()], id.key())
        .map_err(io::Error::other)?;
    Ok(Arc::new(c))
}

/// Connects to `addr`, retrying for [`CONNECT_PATIENCE`] while the peer starts listening.
pub fn connect_tcp(addr: SocketAddr) -> io::Result<TcpStream> {
    let start = Instant::now();
    loop {
        match TcpStream::connect(addr) {
            Ok(s) => return Ok(s),
            Err(_) if start.elapsed() < CONNECT_PATIENCE => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => return Err(e),
        }
    }
}

/// One TLS connection: framed messages in both directions, from any threads, and the bytes
/// moved on its socket.
pub struct Link {
    tls: Mutex<Tls>,
    /// The socket, for writes (under the TLS lock) and for shutting the link down.
    socket: TcpStream,
    /// Only the receiving thread uses it (one receiver at a time).
    receiving: Mutex<Receiver>,
    sent: AtomicU64,
    received: AtomicU64,
}

struct Tls {
    conn: Connection,
}

struct Receiver {
    socket: TcpStream,
    /// Plaintext received and not yet returned as frames.
    pending: Vec<u8>,
}

/// The socket, counting the bytes read from and written to it.
struct Counted<'a> {
    socket: &'a TcpStream,
    sent: &'a AtomicU64,
    received: &'a AtomicU64,
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (&mut &*self.socket).read(buf)?;
        self.received.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = (&mut &*self.socket).write(buf)?;
        self.sent.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        (&mut &*self.socket).flush()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A thread that panicked while holding the lock leaves a link in an unknown state; its
    // peer sees the failure when the process ends, so carrying on here is no worse.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn broken(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

impl Link {
    /// Connects to a server and completes the handshake.
    pub fn connect(addr: SocketAddr, config: Arc<ClientConfig>) -> io::Result<Link> {
        let socket = connect_tcp(addr)?;
        let conn = ClientConnection::new(
            config,
            ServerName::try_from("localhost").expect("a valid name"),
        )
        .map_err(io::Error::other)?;
        Link::handshake(Connection::Client(conn), socket)
    }

    /// Accepts one connection on `listener` and completes the handshake.
    pub fn accept(listener: &TcpListener, config: Arc<ServerConfig>) -> io::Result<Link> {
        let (socket, _) = listener.accept()?;
        let conn = ServerConnection::new(config).map_err(io::Error::other)?;
        Link::handshake(Connection::Server(conn), socket)
    }

    /// The server side of the handshake on a connection the caller accepted itself: a caller
    /// that bounds the handshake with the socket's timeouts (a peer that connects and stays
    /// silent), or runs several handshakes at once, or keeps a clone of the socket to ask the
    /// kernel about it. The socket's timeouts stay as the caller set them.
    pub fn accept_on(socket: TcpStream, config: Arc<ServerConfig>) -> io::Result<Link> {
        let conn = ServerConnection::new(config).map_err(io::Error::other)?;
        Link::handshake(Connection::Server(conn), socket)
    }

    /// The client side of the handshake on a socket the caller connected (see
    /// [`Link::accept_on`]).
    pub fn connect_on(socket: TcpStream, config: Arc<ClientConfig>) -> io::Result<Link> {
        let conn = ClientConnection::new(
            config,
            ServerName::try_from("localhost").expect("a valid name"),
        )
        .map_err(io::Error::other)?;
        Link::handshake(Connection::Client(conn), socket)
    }

    fn handshake(mut conn: Connection, socket: TcpStream) -> io::Result<Link> {
        socket.set_nodelay(true)?;
        let sent = AtomicU64::new(0);
        let received = AtomicU64::new(0);
        {
            let mut io = Counted {
                socket: &socket,
                sent: &sent,
                received: &received,
            };
            while conn.is_handshaking() {
                conn.complete_io(&mut io)?;
            }
            while conn.wants_write() {
                conn.write_tls(&mut io)?;
            }
        }
        // The peer's first records may have come in the same read as its last handshake
        // message: rustls has decrypted them already, and the socket will not show them again.
        // (No more data yet, or an end of the stream, is for `recv` to meet.)
        let mut pending = Vec::new();
        let _ = conn.reader().read_to_end(&mut pending);
        let reading = socket.try_clone()?;
        Ok(Link {
            tls: Mutex::new(Tls { conn }),
            socket,
            receiving: Mutex::new(Receiver {
                socket: reading,
                pending,
            }),
            sent,
            received,
        })
    }

    /// The socket, for writes that count towards this link's bytes sent.
    fn counted(&self) -> Counted<'_> {
        Counted {
            socket: &self.socket,
            sent: &self.sent,
            received: &self.received,
        }
    }

    /// The certificate the peer presented.
    pub fn peer_cert(&self) -> Option<CertificateDer<'static>> {
        let tls = lock(&self.tls);
        tls.conn
            .peer_certificates()
            .and_then(|c| c.first())
            .map(|c| c.clone().into_owned())
    }

    /// Bytes written to and read from the socket so far: (sent, received).
    pub fn counts(&self) -> (u64, u64) {
        (
            self.sent.load(Ordering::Relaxed),
            self.received.load(Ordering::Relaxed),
        )
    }

    /// Sends one frame (length and body in one go, so a small message is one TLS record).
    pub fn send(&self, body: &[u8]) -> io::Result<()> {
        if body.len() > MAX_FRAME {
            return Err(broken(format!(
                "a {}-byte message is above the {MAX_FRAME} allowed",
                body.len()
            )));
        }
        let mut frame = Vec::with_capacity(4 + body.len());
        frame.extend_from_slice(&(body.len() as u32).to_le_bytes());
        frame.extend_from_slice(body);
        let mut tls = lock(&self.tls);
        let mut out = self.counted();
        let mut done = 0;
        while done < frame.len() {
            let n = tls.conn.writer().write(&frame[done..])?;
            done += n;
            while tls.conn.wants_write() {
                tls.conn.write_tls(&mut out)?;
            }
            if n == 0 && done < frame.len() {
                return Err(broken("the TLS connection accepts no more data"));
            }
        }
        Ok(())
    }

    /// Receives one frame; blocks until it has arrived. An error when the peer closed the
    /// connection, the link was shut down, or the data is not a frame of a valid TLS stream.
    pub fn recv(&self) -> io::Result<Vec<u8>> {
        let mut rx = lock(&self.receiving);
        let mut buf = vec![0u8; 1 << 16];
        loop {
            if rx.pending.len() >= 4 {
                let len = u32::from_le_bytes(rx.pending[..4].try_into().expect("4 bytes")) as usize;
                if len > MAX_FRAME {
                    return Err(broken(format!(
                        "the peer announced a {len}-byte message, above the {MAX_FRAME} allowed"
                    )));
                }
                if rx.pending.len() >= 4 + len {
                    let body = rx.pending[4..4 + len].to_vec();
                    rx.pending.drain(..4 + len);
                    return Ok(body);
                }
            }
            let n = (&mut &rx.socket).read(&mut buf)?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the peer closed the connection",
                ));
            }
            self.received.fetch_add(n as u64, Ordering::Relaxed);
            let mut tls = lock(&self.tls);
            let mut data = &buf[..n];
            while !data.is_empty() {
                tls.conn.read_tls(&mut data)?;
                let state = tls.conn.process_new_packets();
                // Alerts and post-handshake messages go out whatever happened. A peer that has
                // gone cannot take them: that is no reason to lose what it sent before it went
                // (its last frames are in this very read), so a failed write is left to the
                // next read to notice as the connection's end.
                let mut out = self.counted();
                while tls.conn.wants_write() {
                    if tls.conn.write_tls(&mut out).is_err() {
                        break;
                    }
                }
                let state = state.map_err(|e| broken(format!("TLS: {e}")))?;
                if state.plaintext_bytes_to_read() > 0 {
                    let mut plain = vec![0u8; state.plaintext_bytes_to_read()];
                    tls.conn.reader().read_exact(&mut plain)?;
                    rx.pending.extend_from_slice(&plain);
                }
                if state.peer_has_closed() && rx.pending.len() < 4 {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the peer closed the connection",
                    ));
                }
            }
        }
    }

    /// Cuts the link: both directions of the socket are shut down (the peer sees the
    /// connection end; a thread blocked in [`Link::recv`] returns an error).
    pub fn shutdown(&self) {
        let _ = self.socket.shutdown(Shutdown::Both);
    }
}

/// The server side of `id` for clients that present no certificate (who they are is for the
/// protocol to say, e.g. by a registration key): the server authenticates, the client does not.
pub fn server_config_without_client_certs(id: &Identity) -> io::Result<Arc<ServerConfig>> {
    server(id, Arc::new(rustls::server::NoClientAuth))
}

/// A client side without a certificate, trusting servers that present one of `servers`.
pub fn client_config_without_cert(
    servers: Vec<CertificateDer<'static>>,
) -> io::Result<Arc<ClientConfig>> {
    Ok(Arc::new(pinned_client(servers)?.with_no_client_auth()))
}

/// A TLS 1.3 client side that trusts servers presenting one of `servers`, before its own
/// certificate (or none) is chosen.
fn pinned_client(
    servers: Vec<CertificateDer<'static>>,
) -> io::Result<rustls::ConfigBuilder<ClientConfig, rustls::client::WantsClientCert>> {
    Ok(ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(io::Error::other)?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Pinned::new(servers))))
}

impl Link {
    /// How long a send or a receive may wait on the socket before it fails (`None`: for ever).
    pub fn set_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.socket.set_read_timeout(timeout)?;
        self.socket.set_write_timeout(timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Peers;

    #[test]
    fn pinned_links_carry_frames_both_ways_and_refuse_strangers() {
        let Peers {
            server,
            client,
            stranger,
            listener,
            addr,
        } = Peers::new();
        let sc = server_config(&server, vec![client.cert.clone()]).unwrap();
        let server_cert = server.cert.clone();
        let client_cert = client.cert.clone();
        let t = std::thread::spawn(move || {
            let l = Arc::new(Link::accept(&listener, sc.clone()).unwrap());
            assert_eq!(l.peer_cert().unwrap(), client_cert);
            // The server pushes while it receives.
            let pusher = {
                let l = l.clone();
                std::thread::spawn(move || {
                    for i in 0..50u32 {
                        l.send(&i.to_le_bytes()).unwrap();
                    }
                })
            };
            let big = l.recv().unwrap();
            assert_eq!(big.len(), 3 << 20);
            assert!(big.iter().enumerate().all(|(i, b)| *b == (i % 251) as u8));
            pusher.join().unwrap();
            l.send(b"bye").unwrap();
            // A client that pins another certificate, or presents an unknown one, fails.
            assert!(Link::accept(&listener, sc.clone()).is_err());
            assert!(Link::accept(&listener, sc).is_err());
        });
        let cc = client_config(&client, vec![server_cert.clone()]).unwrap();
        let l = Arc::new(Link::connect(addr, cc).unwrap());
        let receiver = {
            let l = l.clone();
            std::thread::spawn(move || {
                for i in 0..50u32 {
                    assert_eq!(l.recv().unwrap(), i.to_le_bytes());
                }
                assert_eq!(l.recv().unwrap(), b"bye");
            })
        };
        let big: Vec<u8> = (0..3 << 20).map(|i| (i % 251) as u8).collect();
        l.send(&big).unwrap();
        receiver.join().unwrap();
        let (sent, received) = l.counts();
        assert!(sent > 3 << 20 && received > 50 * 4, "{sent} {received}");
        let wrong = client_config(&client, vec![stranger.cert.clone()]).unwrap();
        assert!(Link::connect(addr, wrong).is_err());
        let unknown = client_config(&stranger, vec![server_cert]).unwrap();
        let refused = Link::connect(addr, unknown).and_then(|l| l.recv().map(|_| ()));
        assert!(refused.is_err());
        t.join().unwrap();
        assert_eq!(
            cert_from_hex(&cert_to_hex(&client.cert)).unwrap(),
            client.cert
        );
        assert!(cert_from_hex("abc").is_none());
    }

    #[test]
    fn a_cut_link_ends_the_peers_receive() {
        let peers = Peers::new();
        let (sc, cc, addr) = (peers.server_config(), peers.client_config(), peers.addr);
        let t = std::thread::spawn(move || {
            let l = Link::accept(&peers.listener, sc).unwrap();
            l.recv()
        });
        let l = Link::connect(addr, cc).unwrap();
        l.shutdown();
        assert!(t.join().unwrap().is_err());
        assert!(l.recv().is_err());
    }
}
