//! TLS 1.3 over TCP on loopback, framed and counted.
//!
//! **Certificates.** Every process (each node, the driver) makes a self-signed ECDSA P-256
//! certificate with `rcgen` when it starts. There is no CA: a node announces its certificate
//! to the driver that started it (on its standard output, a channel only the parent reads),
//! the driver hands the nodes' certificates to every node, and every TLS peer accepts exactly
//! the certificates it was given (pinning, [`Pinned`]). Nodes and the driver authenticate
//! both ways; clients connect without a certificate (a client is who its registration key
//! says).
//!
//! **Framing.** A message is a 4-byte little-endian length and the body, at most
//! [`MAX_FRAME`] bytes.
//!
//! **Counting.** [`Counted`] wraps the TCP stream under TLS, so the counts are the bytes on
//! the socket: TLS records and handshakes included, TCP/IP headers not.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{
    ClientConfig, ClientConnection, ConnectionCommon, DigitallySignedStruct, DistinguishedName,
    ServerConfig, ServerConnection, SideData, SignatureScheme, StreamOwned,
};

/// The largest frame accepted (a batch of 2000 slots of 8 curve points in both ElGamal
/// components is 1 MiB; the bound leaves room for far larger batches).
pub const MAX_FRAME: usize = 1 << 28;

/// How long a peer may stay silent before a read fails.
pub const TIMEOUT: Duration = Duration::from_secs(1800);

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A certificate and its key, made at start.
pub struct Identity {
    pub cert: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
}

impl Identity {
    pub fn generate() -> io::Result<Identity> {
        let ck = rcgen::generate_simple_self_signed(vec!["localhost".to_string()])
            .map_err(io::Error::other)?;
        Ok(Identity {
            cert: ck.cert.der().clone(),
            key: PrivatePkcs8KeyDer::from(ck.key_pair.serialize_der()),
        })
    }

    fn key(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(self.key.clone_key())
    }
}

/// Accepts exactly the given certificates, with signatures checked by the ring provider.
#[derive(Debug)]
pub struct Pinned {
    certs: Vec<CertificateDer<'static>>,
    provider: Arc<CryptoProvider>,
}

impl Pinned {
    pub fn new(certs: Vec<CertificateDer<'static>>) -> Self {
        Pinned {
            certs,
            provider: provider(),
        }
    }
    fn check(&self, cert: &CertificateDer<'_>) -> Result<(), rustls::Error> {
        if self.certs.iter().any(|c| c.as_ref() == cert.as_ref()) {
            Ok(())
        } else {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::UnknownIssuer,
            ))
        }
    }
}

/// The handshake-signature methods, which both verifier traits declare alike: signatures are
/// checked with the ring provider's algorithms, whichever side presented the certificate.
macro_rules! handshake_signatures {
    () => {
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            verify_tls12_signature(
                message,
                cert,
                dss,
                &self.provider.signature_verification_algorithms,
            )
        }
        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            verify_tls13_signature(
                message,
                cert,
                dss,
                &self.provider.signature_verification_algorithms,
            )
        }
        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.provider
                .signature_verification_algorithms
                .supported_schemes()
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
        self.check(end_entity)
            .map(|_| ServerCertVerified::assertion())
    }
    handshake_signatures!();
}

impl ClientCertVerifier for Pinned {
    fn offer_client_auth(&self) -> bool {
        true
    }
    fn client_auth_mandatory(&self) -> bool {
        // Clients connect without certificates; nodes and the driver must present theirs
        // (checked by role after the handshake).
        false
    }
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }
    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.check(end_entity)
            .map(|_| ClientCertVerified::assertion())
    }
    handshake_signatures!();
}

/// A node's server side: its certificate, and the certificates of the peers that may
/// authenticate to it.
pub fn server_config(
    id: &Identity,
    peers: Vec<CertificateDer<'static>>,
) -> io::Result<Arc<ServerConfig>> {
    let c = ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(io::Error::other)?
        .with_client_cert_verifier(Arc::new(Pinned::new(peers)))
        .with_single_cert(vec![id.cert.clone()], id.key())
        .map_err(io::Error::other)?;
    Ok(Arc::new(c))
}

/// A client side that trusts `servers` and presents `id` if given.
pub fn client_config(
    id: Option<&Identity>,
    servers: Vec<CertificateDer<'static>>,
) -> io::Result<Arc<ClientConfig>> {
    let b = ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(io::Error::other)?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Pinned::new(servers)));
    let c = match id {
        Some(id) => b
            .with_client_auth_cert(vec![id.cert.clone()], id.key())
            .map_err(io::Error::other)?,
        None => b.with_no_client_auth(),
    };
    Ok(Arc::new(c))
}

/// A TCP stream that counts the bytes it moves.
pub struct Counted {
    pub stream: TcpStream,
    pub sent: u64,
    pub received: u64,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.stream.read(buf)?;
        self.received += n as u64;
        Ok(n)
    }
}

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.stream.write(buf)?;
        self.sent += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()
    }
}

enum Tls {
    Client(Box<StreamOwned<ClientConnection, Counted>>),
    Server(Box<StreamOwned<ServerConnection, Counted>>),
}

/// One TLS connection: framed messages, byte counts.
pub struct Link {
    tls: Tls,
}

fn configure(s: &TcpStream) -> io::Result<()> {
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(TIMEOUT))?;
    s.set_write_timeout(Some(TIMEOUT))
}

/// Connects to `addr`, retrying briefly while the peer starts listening.
pub fn connect_tcp(addr: SocketAddr) -> io::Result<TcpStream> {
    let start = Instant::now();
    loop {
        match TcpStream::connect(addr) {
            Ok(s) => return Ok(s),
            Err(_) if start.elapsed() < Duration::from_secs(30) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => return Err(e),
        }
    }
}

/// Runs TLS on the socket `s`, counted, and completes the handshake, on either side.
fn handshake<C, S>(conn: C, s: TcpStream) -> io::Result<Box<StreamOwned<C, Counted>>>
where
    C: DerefMut + Deref<Target = ConnectionCommon<S>>,
    S: SideData,
{
    let sock = Counted {
        stream: s,
        sent: 0,
        received: 0,
    };
    let mut stream = StreamOwned::new(conn, sock);
    while stream.conn.is_handshaking() {
        stream.conn.complete_io(&mut stream.sock)?;
    }
    Ok(Box::new(stream))
}

impl Link {
    /// Connects to a server and completes the handshake.
    pub fn connect(addr: SocketAddr, config: Arc<ClientConfig>) -> io::Result<Link> {
        let s = connect_tcp(addr)?;
        configure(&s)?;
        let conn = ClientConnection::new(
            config,
            ServerName::try_from("localhost").expect("a valid name"),
        )
        .map_err(io::Error::other)?;
        Ok(Link {
            tls: Tls::Client(handshake(conn, s)?),
        })
    }

    /// Accepts one connection on `listener` and completes the handshake.
    pub fn accept(listener: &TcpListener, config: Arc<ServerConfig>) -> io::Result<Link> {
        let (s, _) = listener.accept()?;
        configure(&s)?;
        let conn = ServerConnection::new(config).map_err(io::Error::other)?;
        Ok(Link {
            tls: Tls::Server(handshake(conn, s)?),
        })
    }

    /// The certificate the peer presented, if any.
    pub fn peer_cert(&self) -> Option<CertificateDer<'static>> {
        let certs = match &self.tls {
            Tls::Client(s) => s.conn.peer_certificates(),
            Tls::Server(s) => s.conn.peer_certificates(),
        };
        certs
            .and_then(|c| c.first())
            .map(|c| c.clone().into_owned())
    }

    /// Bytes written to and read from the socket so far.
    pub fn counts(&self) -> (u64, u64) {
        match &self.tls {
            Tls::Client(s) => (s.sock.sent, s.sock.received),
            Tls::Server(s) => (s.sock.sent, s.sock.received),
        }
    }

    fn io(&mut self) -> &mut dyn ReadWrite {
        match &mut self.tls {
            Tls::Client(s) => s.as_mut(),
            Tls::Server(s) => s.as_mut(),
        }
    }

    /// Sends one frame. Length and body go down in one write, so a small message is one TLS
    /// record, not two.
    pub fn send(&mut self, body: &[u8]) -> io::Result<()> {
        let mut frame = Vec::with_capacity(4 + body.len());
        frame.extend_from_slice(&(body.len() as u32).to_le_bytes());
        frame.extend_from_slice(body);
        let io = self.io();
        io.write_all(&frame)?;
        io.flush()
    }

    pub fn recv(&mut self) -> io::Result<Vec<u8>> {
        let io = self.io();
        let mut len = [0u8; 4];
        io.read_exact(&mut len)?;
        let len = u32::from_le_bytes(len) as usize;
        if len > MAX_FRAME {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a peer announced a {len}-byte message, above the {MAX_FRAME} allowed"),
            ));
        }
        let mut body = vec![0u8; len];
        io.read_exact(&mut body)?;
        Ok(body)
    }

    pub fn send_json<T: serde::Serialize>(&mut self, v: &T) -> io::Result<()> {
        self.send(&serde_json::to_vec(v).map_err(io::Error::other)?)
    }

    pub fn recv_json<T: serde::de::DeserializeOwned>(&mut self) -> io::Result<T> {
        let b = self.recv()?;
        serde_json::from_slice(&b).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_tls_carries_frames_and_refuses_an_unknown_certificate() {
        let server = Identity::generate().unwrap();
        let client = Identity::generate().unwrap();
        let stranger = Identity::generate().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let sc = server_config(&server, vec![client.cert.clone()]).unwrap();
        let t = std::thread::spawn(move || {
            let mut l = Link::accept(&listener, sc.clone()).unwrap();
            let got = l.recv().unwrap();
            l.send(&got).unwrap();
            assert!(l.peer_cert().is_some());
            // A client that pins another certificate fails its handshake.
            assert!(Link::accept(&listener, sc).is_err());
        });
        let cc = client_config(Some(&client), vec![server.cert.clone()]).unwrap();
        let mut l = Link::connect(addr, cc).unwrap();
        l.send(b"hello").unwrap();
        assert_eq!(l.recv().unwrap(), b"hello");
        let (sent, received) = l.counts();
        assert!(sent > 9 && received > 9);
        let bad = client_config(None, vec![stranger.cert.clone()]).unwrap();
        assert!(Link::connect(addr, bad).is_err());
        t.join().unwrap();
        assert_eq!(unhex(&hex(&[0, 255, 7])).unwrap(), vec![0, 255, 7]);
    }
}
