//! Strangers that connect before the parties, to the coordinator and to a party's mesh
//! listener: one that says nothing, one that speaks the protocol's messages in the clear
//! claiming a party's id, and one that speaks TLS with a certificate of its own. None of them is
//! sent anything of the run (no plan, no dealt material, no opening), none holds up the
//! parties, the proof verifies, and the report names each refused connection.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;

use common::cli::{
    circuit, free_addr, introduce_and_finish, saved_key, scratch, separate_party,
    waiting_coordinator,
};

/// What a stranger got: the bytes it read until its connection ended (raw strangers), or
/// whether a frame reached it (the TLS stranger).
enum Got {
    Bytes(Vec<u8>),
    Frame(Result<Vec<u8>, String>),
}

/// A stranger's connection, made now, and the thread that reads what it is sent.
struct Stranger {
    kind: &'static str,
    local: String,
    reading: JoinHandle<Got>,
}

/// Reads everything until the connection ends (a minute at most).
fn drain(mut socket: TcpStream) -> Got {
    socket
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut got = vec![];
    let _ = socket.read_to_end(&mut got);
    Got::Bytes(got)
}

/// Three strangers at `addr`: silent; one that sends `claim` in the clear; one that completes
/// its side of a TLS handshake with a fresh certificate of its own, pinning `server`.
fn strangers(addr: &str, claim: Vec<u8>, server: tls_link::Certificate<'static>) -> Vec<Stranger> {
    let connect = || TcpStream::connect(addr).unwrap();
    let local = |s: &TcpStream| s.local_addr().unwrap().to_string();
    let silent = connect();
    let claimant = connect();
    let tls = connect();
    vec![
        Stranger {
            kind: "silent",
            local: local(&silent),
            reading: std::thread::spawn(move || drain(silent)),
        },
        Stranger {
            kind: "claims a party's id in the clear",
            local: local(&claimant),
            reading: std::thread::spawn(move || {
                let mut s = claimant;
                s.write_all(&claim).unwrap();
                drain(s)
            }),
        },
        Stranger {
            kind: "TLS with its own certificate",
            local: local(&tls),
            reading: std::thread::spawn(move || {
                let me = tls_link::Identity::generate().unwrap();
                let config = tls_link::client_config(&me, vec![server]).unwrap();
                tls.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
                let got = tls_link::Link::connect_on(tls, config)
                    .and_then(|l| l.recv())
                    .map_err(|e| e.to_string());
                Got::Frame(got)
            }),
        },
    ]
}

/// Every stranger got nothing of the run, and `refused` (a report's list) names each one.
fn assert_nothing_given(where_: &str, strangers: Vec<Stranger>, refused: &Value) {
    let refused = refused.as_array().unwrap();
    println!("{where_}: refused {refused:?}");
    for s in strangers {
        match s.reading.join().unwrap() {
            // At most a TLS alert: no frame, no JSON, no material.
            Got::Bytes(b) => assert!(
                b.len() <= 64 && !b.windows(4).any(|w| w == b"sha2"),
                "{where_}: the {} stranger received {} bytes",
                s.kind,
                b.len()
            ),
            Got::Frame(f) => assert!(
                f.is_err(),
                "{where_}: the {} stranger received a frame",
                s.kind
            ),
        }
        assert!(
            refused.iter().any(|r| r["from"] == s.local.as_str()),
            "{where_}: the {} stranger ({}) is not among the refused: {refused:?}",
            s.kind,
            s.local
        );
    }
}

/// The hello a party sent the coordinator in the clear: a frame (8-byte length) of JSON.
fn clear_hello(id: usize) -> Vec<u8> {
    let body = format!("{{\"id\":{id},\"mesh\":\"127.0.0.1:9\"}}");
    let mut v = (body.len() as u64).to_le_bytes().to_vec();
    v.extend_from_slice(body.as_bytes());
    v
}

#[test]
fn strangers_that_connect_first_get_nothing_and_the_proof_verifies() {
    let dir = scratch("strangers");
    circuit(&dir);
    let pk = saved_key(&dir);
    let (addr, mesh0, json) = (free_addr(), free_addr(), dir.path("r.json"));
    let coordinator = waiting_coordinator(&dir, &json, &pk, &addr, 2);
    // Before any party exists, three strangers wait at the coordinator; the one in the clear
    // claims party 1 (the dealer sends party 1 its seed, which with party 0's shares is the
    // witness).
    let at_coordinator = strangers(&addr, clear_hello(1), coordinator.cert());
    let mut parties = vec![separate_party(&dir, &pk, &addr, 0, &mesh0)];
    // Party 0's mesh listener is bound once it has printed its line: three strangers wait
    // there too, before any other party; the one in the clear claims party 1 as a mesh peer.
    let at_party0 = strangers(&mesh0, 1u64.to_le_bytes().to_vec(), parties[0].cert());
    parties.push(separate_party(&dir, &pk, &addr, 1, "127.0.0.1:0"));
    let enveloped = introduce_and_finish(coordinator, &mut parties, &json);
    let run = &enveloped["body"]["runs"][0];
    assert_eq!(run["status"], "PASSED", "{run}");
    assert_nothing_given("coordinator", at_coordinator, &run["refused_connections"]);
    assert_nothing_given(
        "party 0's mesh",
        at_party0,
        &run["per_party"][0]["refused_connections"],
    );
}
