//! Test helpers (feature `testing`): the peers of a test link.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use rustls::{ClientConfig, ServerConfig};

use crate::{client_config, server_config, Identity};

/// Fresh identities and a listener on a free loopback port: `server` listens, `client` is the
/// one it pins (and that pins it), `stranger` is pinned by nobody.
pub struct Peers {
    /// The listening side's identity.
    pub server: Identity,
    /// The one identity the server accepts.
    pub client: Identity,
    /// An identity neither side pins, for the refusals.
    pub stranger: Identity,
    /// The server's socket, bound before any test connects.
    pub listener: TcpListener,
    /// The listener's address.
    pub addr: SocketAddr,
}

impl Peers {
    /// Three fresh identities and a listener on a free loopback port.
    pub fn new() -> Peers {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
        let addr = listener.local_addr().expect("the listener's address");
        let id = || Identity::generate().expect("a fresh identity");
        Peers {
            server: id(),
            client: id(),
            stranger: id(),
            listener,
            addr,
        }
    }

    /// The server's side, accepting only `client`.
    pub fn server_config(&self) -> Arc<ServerConfig> {
        server_config(&self.server, vec![self.client.cert.clone()]).expect("a server config")
    }

    /// The client's side, trusting only `server`.
    pub fn client_config(&self) -> Arc<ClientConfig> {
        client_config(&self.client, vec![self.server.cert.clone()]).expect("a client config")
    }
}

impl Default for Peers {
    fn default() -> Self {
        Peers::new()
    }
}
