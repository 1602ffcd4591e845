//! Mutually authenticated TLS 1.3 links between the processes of one run, for the suite's
//! multi-process programs (a bulletin board and its parties, nodes and their driver).
//!
//! **Identities.** Every process makes a fresh self-signed ECDSA P-256 certificate when it
//! starts ([`Identity::generate`]); there is no certificate authority. A process learns its
//! peers' certificates from whoever started them (on a pipe only the parent reads and
//! writes) and accepts exactly those: a handshake with any other certificate fails
//! ([`Pinned`]). Both sides authenticate on every link, with the ring provider's algorithms.
//!
//! **Signatures.** A process may also sign what it says outside its links with its identity's
//! key ([`Identity::sign`]), which a peer checks against the pinned certificate ([`verify`]):
//! the same key vouches for both.
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
//!
//! **Liveness.** A handshake that does not complete within [`HANDSHAKE_PATIENCE`] fails (a
//! silent or stalled peer cannot hold a server's accepting thread). Every link's socket has TCP
//! keepalive ([`KEEPALIVE`]) and a bound on how long sent data may stay unacknowledged, so a
//! peer behind a partition (every packet dropped) is noticed as a broken link even while
//! nothing is being sent; a stopped peer whose kernel still answers is for the protocol's own
//! deadlines to notice. A server that accepts connections itself hands each socket to
//! [`Link::accept_socket`] on a thread of its own.

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
/// The configurations [`server_config`] and [`client_config`] make.
pub use rustls::{ClientConfig, ServerConfig};

use rustls::{
    ClientConnection, Connection, DigitallySignedStruct, DistinguishedName, ServerConnection,
    SignatureScheme,
};

#[cfg(any(test, feature = "testing"))]
pub mod testing;

/// The largest message accepted.
pub const MAX_FRAME: usize = 1 << 30;

/// How long a connection attempt keeps retrying while the peer starts listening.
pub const CONNECT_PATIENCE: Duration = Duration::from_secs(30);

/// How long a TLS handshake may take before it fails, on either side.
pub const HANDSHAKE_PATIENCE: Duration = Duration::from_secs(20);

/// TCP keepalive of every link: the first probe after this long without traffic, then one
/// probe every [`Keepalive::interval`], the link broken after [`Keepalive::probes`] unanswered
/// ones; data sent and not acknowledged for [`Keepalive::unacknowledged`] breaks it too.
pub const KEEPALIVE: Keepalive = Keepalive {
    idle: Duration::from_secs(10),
    interval: Duration::from_secs(5),
    probes: 3,
    unacknowledged: Duration::from_secs(30),
};

/// TCP keepalive settings ([`KEEPALIVE`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keepalive {
    /// Idle time before the first probe.
    pub idle: Duration,
    /// Time between probes.
    pub interval: Duration,
    /// Unanswered probes that break the link.
    pub probes: u32,
    /// How long sent data may stay unacknowledged (`TCP_USER_TIMEOUT`).
    pub unacknowledged: Duration,
}

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

impl Identity {
    /// A signature of `message` with this identity's key (ECDSA P-256 with SHA-256, DER), which
    /// [`verify`] checks against the certificate: for a party to sign what it says outside the
    /// TLS link (its admission to a board, its records), with the key its peers pinned.
    pub fn sign(&self, message: &[u8]) -> io::Result<Vec<u8>> {
        let key = provider()
            .key_provider
            .load_private_key(self.key())
            .map_err(io::Error::other)?;
        let signer = key
            .choose_scheme(&[SignatureScheme::ECDSA_NISTP256_SHA256])
            .ok_or_else(|| io::Error::other("the identity's key cannot sign ECDSA P-256"))?;
        signer.sign(message).map_err(io::Error::other)
    }
}

/// True iff `signature` is [`Identity::sign`]'s of `message` by the key of `cert`.
pub fn verify(cert: &CertificateDer<'_>, message: &[u8], signature: &[u8]) -> bool {
    webpki::EndEntityCert::try_from(cert).is_ok_and(|ee| {
        ee.verify_signature(webpki::ring::ECDSA_P256_SHA256, message, signature)
            .is_ok()
    })
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
        Link::handshake(Connection::Client(conn), socket, HANDSHAKE_PATIENCE)
    }

    /// Accepts one connection on `listener` and completes the handshake.
    pub fn accept(listener: &TcpListener, config: Arc<ServerConfig>) -> io::Result<Link> {
        let (socket, _) = listener.accept()?;
        Link::accept_socket(socket, config, HANDSHAKE_PATIENCE)
    }

    /// The server side of the handshake on a connection the caller accepted itself, bounded by
    /// the socket's read timeout if the caller set one (else by the default patience): for a
    /// caller that runs several handshakes at once, or keeps a clone of the socket to ask the
    /// kernel about it. The socket's timeouts stay as the caller set them.
    pub fn accept_on(socket: TcpStream, config: Arc<ServerConfig>) -> io::Result<Link> {
        let patience = socket.read_timeout()?.unwrap_or(HANDSHAKE_PATIENCE);
        let conn = ServerConnection::new(config).map_err(io::Error::other)?;
        Link::handshake(Connection::Server(conn), socket, patience)
    }

    /// The client side of the handshake on a socket the caller connected (see
    /// [`Link::accept_on`]).
    pub fn connect_on(socket: TcpStream, config: Arc<ClientConfig>) -> io::Result<Link> {
        let patience = socket.read_timeout()?.unwrap_or(HANDSHAKE_PATIENCE);
        let conn = ClientConnection::new(
            config,
            ServerName::try_from("localhost").expect("a valid name"),
        )
        .map_err(io::Error::other)?;
        Link::handshake(Connection::Client(conn), socket, patience)
    }

    /// Completes the server side of the handshake on a socket already accepted, within
    /// `patience`: for servers that accept on one thread and shake hands on others, so that one
    /// silent client holds up nobody else.
    pub fn accept_socket(
        socket: TcpStream,
        config: Arc<ServerConfig>,
        patience: Duration,
    ) -> io::Result<Link> {
        socket.set_nonblocking(false)?;
        let conn = ServerConnection::new(config).map_err(io::Error::other)?;
        Link::handshake(Connection::Server(conn), socket, patience)
    }

    fn handshake(mut conn: Connection, socket: TcpStream, patience: Duration) -> io::Result<Link> {
        socket.set_nodelay(true)?;
        set_keepalive(&socket, &KEEPALIVE)?;
        // A peer that stops in the middle of the handshake, or trickles it, fails it within
        // `patience` instead of holding this thread; the link itself then waits as long as its
        // owner says ([`Link::set_timeout`]).
        let deadline = Instant::now() + patience;
        // The timeouts the caller set on the socket (none on a fresh one) are the link's after.
        let kept = (socket.read_timeout()?, socket.write_timeout()?);
        let sent = AtomicU64::new(0);
        let received = AtomicU64::new(0);
        {
            let mut io = Counted {
                socket: &socket,
                sent: &sent,
                received: &received,
            };
            while conn.is_handshaking() {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("the TLS handshake took more than {patience:?}"),
                    ));
                }
                socket.set_read_timeout(Some(left))?;
                socket.set_write_timeout(Some(left))?;
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
        socket.set_read_timeout(kept.0)?;
        socket.set_write_timeout(kept.1)?;
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

    /// How long a send may wait for the peer to take data before it fails (`None`: for ever);
    /// receives keep waiting (a peer may compute for long between messages).
    pub fn set_write_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.socket.set_write_timeout(timeout)
    }
}

/// Turns on TCP keepalive with `k`'s settings on `socket` (Linux socket options; elsewhere only
/// `SO_KEEPALIVE`).
fn set_keepalive(socket: &TcpStream, k: &Keepalive) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = socket.as_raw_fd();
    let secs = |d: Duration| d.as_secs().clamp(1, i32::MAX as u64) as libc::c_int;
    set_option(fd, libc::SOL_SOCKET, libc::SO_KEEPALIVE, 1)?;
    #[cfg(target_os = "linux")]
    {
        set_option(fd, libc::IPPROTO_TCP, libc::TCP_KEEPIDLE, secs(k.idle))?;
        set_option(fd, libc::IPPROTO_TCP, libc::TCP_KEEPINTVL, secs(k.interval))?;
        set_option(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_KEEPCNT,
            k.probes as libc::c_int,
        )?;
        let ms = k.unacknowledged.as_millis().min(i32::MAX as u128) as libc::c_int;
        set_option(fd, libc::IPPROTO_TCP, libc::TCP_USER_TIMEOUT, ms)?;
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (k, secs);
    Ok(())
}

/// `setsockopt(fd, level, name, &value)` for an integer option.
fn set_option(
    fd: libc::c_int,
    level: libc::c_int,
    name: libc::c_int,
    value: libc::c_int,
) -> io::Result<()> {
    // SAFETY: setsockopt reads `size_of::<c_int>()` bytes from a pointer to `value`, a local
    // that lives until the call returns; an invalid descriptor or option is reported as an
    // error return, which is checked.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
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
    fn a_silent_client_fails_its_handshake_within_the_patience_and_links_keep_alive() {
        let peers = Peers::new();
        let sc = peers.server_config();
        let silent = TcpStream::connect(peers.addr).unwrap();
        let (socket, _) = peers.listener.accept().unwrap();
        let start = Instant::now();
        let err = Link::accept_socket(socket, sc, Duration::from_millis(300)).err();
        assert!(
            err.is_some(),
            "a client that never speaks completed a handshake"
        );
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        drop(silent);
        // A completed link's socket has keepalive on.
        let (sc, cc, addr) = (peers.server_config(), peers.client_config(), peers.addr);
        let t = std::thread::spawn(move || Link::accept(&peers.listener, sc).unwrap());
        let l = Link::connect(addr, cc).unwrap();
        let server = t.join().unwrap();
        for link in [&l, &server] {
            let s = keepalive_option(&link.socket);
            assert_eq!(s, 1, "SO_KEEPALIVE");
        }
    }

    /// Reads SO_KEEPALIVE of `socket`.
    fn keepalive_option(socket: &TcpStream) -> libc::c_int {
        use std::os::fd::AsRawFd;
        let mut v: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: getsockopt writes at most `len` bytes into `v`, a local that outlives the call.
        let rc = unsafe {
            libc::getsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_KEEPALIVE,
                (&mut v as *mut libc::c_int).cast(),
                &mut len,
            )
        };
        assert_eq!(rc, 0);
        v
    }

    #[test]
    fn a_signature_holds_for_its_message_and_certificate_only() {
        let (a, b) = (Identity::generate().unwrap(), Identity::generate().unwrap());
        let sig = a.sign(b"what a says").unwrap();
        assert!(verify(&a.cert, b"what a says", &sig));
        assert!(!verify(&a.cert, b"what a did not say", &sig));
        assert!(!verify(&b.cert, b"what a says", &sig));
        let mut bad = sig.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(!verify(&a.cert, b"what a says", &bad));
        assert!(!verify(
            &CertificateDer::from(vec![1, 2, 3]),
            b"what a says",
            &sig
        ));
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
