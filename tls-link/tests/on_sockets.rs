//! Handshakes on sockets the caller accepted or connected itself: a server whose socket has a
//! read timeout gives up on a client that connects and says nothing, a pinned pair completes
//! and carries frames, and a stranger's certificate is refused.

use std::net::TcpStream;
use std::time::{Duration, Instant};

use tls_link::testing::Peers;
use tls_link::{client_config, Link};

#[test]
fn a_silent_client_times_out_and_a_pinned_one_gets_through() {
    let Peers {
        server,
        client,
        stranger,
        listener,
        addr,
    } = Peers::new();
    let sc = tls_link::server_config(&server, vec![client.cert.clone()]).unwrap();
    let silent = TcpStream::connect(addr).unwrap();
    let (socket, _) = listener.accept().unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let start = Instant::now();
    assert!(Link::accept_on(socket, sc.clone()).is_err());
    assert!(start.elapsed() < Duration::from_secs(5));
    drop(silent);

    let client_cert = client.cert.clone();
    let t = std::thread::spawn(move || {
        let (socket, _) = listener.accept().unwrap();
        let l = Link::accept_on(socket, sc.clone()).unwrap();
        assert_eq!(l.peer_cert(), Some(client_cert));
        let got = l.recv().unwrap();
        l.send(&got).unwrap();
        // A client presenting a certificate nobody pinned is refused.
        let (socket, _) = listener.accept().unwrap();
        assert!(Link::accept_on(socket, sc).is_err());
    });
    let cc = client_config(&client, vec![server.cert.clone()]).unwrap();
    let l = Link::connect_on(TcpStream::connect(addr).unwrap(), cc).unwrap();
    l.send(b"on my socket").unwrap();
    assert_eq!(l.recv().unwrap(), b"on my socket");
    // The stranger's side of the handshake ends first (TLS 1.3), but it receives nothing.
    let unknown = client_config(&stranger, vec![server.cert.clone()]).unwrap();
    let refused = Link::connect_on(TcpStream::connect(addr).unwrap(), unknown)
        .and_then(|l| l.recv().map(|_| ()));
    assert!(refused.is_err());
    t.join().unwrap();
}
