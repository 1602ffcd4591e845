//! Links whose client presents no certificate: the server is still pinned (a client that
//! trusts another certificate fails its handshake), frames pass both ways, and a timeout ends
//! a receive that waits too long.

use std::time::Duration;

use tls_link::testing::Peers;
use tls_link::{client_config_without_cert, server_config_without_client_certs, Link};

#[test]
fn a_client_without_a_certificate_reaches_only_the_pinned_server() {
    let Peers {
        server,
        stranger,
        listener,
        addr,
        ..
    } = Peers::new();
    let sc = server_config_without_client_certs(&server).unwrap();
    let t = std::thread::spawn(move || {
        let l = Link::accept(&listener, sc.clone()).unwrap();
        assert!(l.peer_cert().is_none());
        let got = l.recv().unwrap();
        l.send(&got).unwrap();
        // A client that pins another certificate fails its handshake.
        assert!(Link::accept(&listener, sc).is_err());
    });
    let l = Link::connect(
        addr,
        client_config_without_cert(vec![server.cert.clone()]).unwrap(),
    )
    .unwrap();
    assert_eq!(l.peer_cert().as_ref(), Some(&server.cert));
    l.send(b"hello").unwrap();
    assert_eq!(l.recv().unwrap(), b"hello");
    let (sent, received) = l.counts();
    assert!(sent > 9 && received > 9, "{sent} {received}");
    let wrong = client_config_without_cert(vec![stranger.cert.clone()]).unwrap();
    assert!(Link::connect(addr, wrong).is_err());
    t.join().unwrap();
}

#[test]
fn a_timeout_ends_a_receive_from_a_silent_peer() {
    let Peers {
        server,
        listener,
        addr,
        ..
    } = Peers::new();
    let sc = server_config_without_client_certs(&server).unwrap();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let t = std::thread::spawn(move || {
        let _silent = Link::accept(&listener, sc).unwrap();
        done_rx.recv().unwrap();
    });
    let l = Link::connect(
        addr,
        client_config_without_cert(vec![server.cert.clone()]).unwrap(),
    )
    .unwrap();
    l.set_timeout(Some(Duration::from_millis(200))).unwrap();
    assert!(l.recv().is_err());
    done_tx.send(()).unwrap();
    t.join().unwrap();
}

/// A client that sends at once after its handshake: its first record may reach the server in
/// the same read as its last handshake message, and must still be received.
#[test]
fn a_frame_sent_right_after_the_handshake_is_received() {
    let peers = Peers::new();
    let (sc, cc, addr, listener) = (
        peers.server_config(),
        peers.client_config(),
        peers.addr,
        peers.listener,
    );
    let rounds = 40;
    let t = std::thread::spawn(move || {
        for _ in 0..rounds {
            let l = Link::accept(&listener, sc.clone()).unwrap();
            l.set_timeout(Some(Duration::from_secs(20))).unwrap();
            let got = l.recv().unwrap();
            l.send(&got).unwrap();
        }
    });
    for i in 0..rounds {
        let l = Link::connect(addr, cc.clone()).unwrap();
        l.set_timeout(Some(Duration::from_secs(20))).unwrap();
        l.send(&[i as u8; 5]).unwrap();
        assert_eq!(l.recv().unwrap(), [i as u8; 5]);
    }
    t.join().unwrap();
}
