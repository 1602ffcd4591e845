//! TLS 1.3 over TCP on loopback: the suite's `tls-link` links, with what cMix adds to them.
//!
//! **Certificates.** Every process (each node, the driver) makes a self-signed certificate when
//! it starts ([`Identity::generate`]). There is no CA: a node announces its certificate to the
//! driver that started it (on its standard output, a channel only the parent reads), the driver
//! hands the nodes' certificates to every node, and every TLS peer accepts exactly the
//! certificates it was given (pinning). Nodes and the driver authenticate both ways; clients
//! connect without a certificate ([`client_config_without_cert`],
//! [`server_config_without_client_certs`]): a client is who its registration key says.
//!
//! **Framing and counting.** A message is one `tls-link` frame; the counts are the bytes on the
//! socket, TLS records and handshakes included, TCP/IP headers not. Commands and reports
//! between the driver and the nodes are JSON in one frame ([`JsonFrames`]).

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use rustls::{ClientConfig, ServerConfig};
pub use tls_link::{
    cert_from_hex, cert_to_hex, client_config, client_config_without_cert, server_config,
    server_config_without_client_certs, Identity, Link,
};

/// How long a peer may stay silent before a send or a receive fails.
pub const TIMEOUT: Duration = Duration::from_secs(1800);

/// Connects to a server, completes the handshake and sets [`TIMEOUT`].
pub fn connect(addr: SocketAddr, config: Arc<ClientConfig>) -> io::Result<Link> {
    let l = Link::connect(addr, config)?;
    l.set_timeout(Some(TIMEOUT))?;
    Ok(l)
}

/// Accepts one connection, completes the handshake and sets [`TIMEOUT`].
pub fn accept(listener: &TcpListener, config: Arc<ServerConfig>) -> io::Result<Link> {
    let l = Link::accept(listener, config)?;
    l.set_timeout(Some(TIMEOUT))?;
    Ok(l)
}

/// JSON messages, one a frame.
pub trait JsonFrames {
    /// Sends `v` as one JSON frame.
    fn send_json<T: serde::Serialize>(&self, v: &T) -> io::Result<()>;
    /// Reads one frame and parses it as JSON of type `T`.
    fn recv_json<T: serde::de::DeserializeOwned>(&self) -> io::Result<T>;
}

impl JsonFrames for Link {
    fn send_json<T: serde::Serialize>(&self, v: &T) -> io::Result<()> {
        self.send(&serde_json::to_vec(v).map_err(io::Error::other)?)
    }

    fn recv_json<T: serde::de::DeserializeOwned>(&self) -> io::Result<T> {
        let b = self.recv()?;
        serde_json::from_slice(&b).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

/// Keys on the driver's JSON messages are hexadecimal text.
pub use measure::hex::{decode as unhex, encode as hex};

#[cfg(test)]
mod tests {
    use super::*;
    use tls_link::testing::Peers;

    #[test]
    fn json_frames_pass_over_pinned_links_and_an_unknown_certificate_is_refused() {
        let peers = Peers::new();
        let (sc, cc, addr) = (peers.server_config(), peers.client_config(), peers.addr);
        let stranger = peers.stranger.cert.clone();
        let t = std::thread::spawn(move || {
            let l = accept(&peers.listener, sc.clone()).unwrap();
            let got: Vec<String> = l.recv_json().unwrap();
            l.send_json(&got).unwrap();
            assert!(l.peer_cert().is_some());
            // A client that pins another certificate fails its handshake.
            assert!(accept(&peers.listener, sc).is_err());
        });
        let l = connect(addr, cc).unwrap();
        let keys = vec![hex(&[0xab, 0x01]), hex(&[])];
        l.send_json(&keys).unwrap();
        assert_eq!(l.recv_json::<Vec<String>>().unwrap(), keys);
        assert_eq!(unhex(&keys[0]).unwrap(), [0xab, 0x01]);
        let (sent, received) = l.counts();
        assert!(sent > 9 && received > 9);
        let bad = client_config_without_cert(vec![stranger]).unwrap();
        assert!(connect(addr, bad).is_err());
        t.join().unwrap();
    }
}
