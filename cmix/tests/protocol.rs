//! The protocol's correctness gates on an in-process batch (the same node steps and wire bytes
//! as the networked run): delivery exactly once, a permuted output, the precomputed product
//! cancelling, the same payloads through both groups, operation counts as the protocol
//! prescribes, and every check firing on its fault.

use cmix::group::modp::{ExpLen, Modp};
use cmix::group::ristretto::Ristretto;
use cmix::group::Group;
use cmix::protocol::client::{check_delivery, workload};
use cmix::protocol::local::{run_batch, run_batch_with};
use cmix::protocol::tamper::Tamper;
use cmix::Error;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const CLIENTS: usize = 24;

fn delivers<G: Group>(g: &G, width: usize) {
    let b = run_batch(g, CLIENTS, width, [3; 32], None).expect("an honest batch succeeds");
    let c = check_delivery(&b.sent, &b.output);
    assert!(c.exactly_once, "{:?}", c.problems);
    assert!(c.permuted, "{:?}", c.problems);
    // Every client is the recipient of exactly one output slot.
    let mut r: Vec<u32> = b.output.iter().map(|(r, _)| *r).collect();
    r.sort();
    assert_eq!(r, (0..CLIENTS as u32).collect::<Vec<_>>());
}

#[test]
fn every_message_reaches_its_recipient_once_in_permuted_order() {
    delivers(&Ristretto::new(), 8);
    delivers(&Ristretto::new(), 1);
    delivers(&Modp::new(ExpLen::Short), 1);
    delivers(&Modp::new(ExpLen::Full), 1);
}

#[test]
fn the_precomputed_product_cancels() {
    // m * prod D_i (the decrypted precomputation) times pi(R) S, rebuilt from the nodes'
    // secrets, is the identity in every output position.
    let g = Ristretto::new();
    let b = run_batch(&g, CLIENTS, 2, [4; 32], None).unwrap();
    let w = 2;
    let decrypted = cmix::protocol::local::decrypted_precomputation(&b);
    for slot in 0..CLIENTS {
        // Follow input slot `slot` through the three permutations.
        let mut pos = slot;
        let mut acc: Vec<_> = (0..w)
            .map(|e| {
                b.nodes
                    .iter()
                    .fold(g.identity(), |a, n| g.mul(&a, &n.r_at(slot * w + e)))
            })
            .collect();
        for n in &b.nodes {
            pos = n.pi_at(pos);
            for (e, a) in acc.iter_mut().enumerate() {
                *a = g.mul(a, &n.s_at(pos * w + e));
            }
        }
        for (e, a) in acc.iter().enumerate() {
            assert_eq!(
                g.mul(a, &decrypted[pos * w + e]),
                g.identity(),
                "slot {slot}"
            );
        }
    }
}

#[test]
fn ec_and_mg_deliver_the_same_payloads_for_the_same_inputs() {
    let ec = Ristretto::new();
    let mg = Modp::new(ExpLen::Short);
    let len = cmix::protocol::message::body_bytes(&ec, 8)
        .min(cmix::protocol::message::body_bytes(&mg, 1));
    let sent = workload(CLIENTS, len, &mut ChaCha20Rng::from_seed([9; 32]));
    let set = |out: &[(u32, Vec<u8>)]| {
        let mut v: Vec<(u32, Vec<u8>)> = out.iter().map(|(r, b)| (*r, b[..len].to_vec())).collect();
        v.sort();
        v
    };
    let a = run_batch_with(&ec, 8, sent.clone(), [1; 32], None).unwrap();
    let b = run_batch_with(&mg, 1, sent.clone(), [2; 32], None).unwrap();
    assert_eq!(set(&a.output), set(&b.output));
    let mut want: Vec<(u32, Vec<u8>)> =
        sent.iter().map(|m| (m.recipient, m.body.clone())).collect();
    want.sort();
    assert_eq!(set(&a.output), want);
}

#[test]
fn operation_counts_are_the_protocols() {
    // realmix is one multiplication per element and node, prepost one variable-base
    // exponentiation per element and node.
    let g = Ristretto::new();
    let before = g.ops().snapshot();
    let _ = run_batch(&g, CLIENTS, 2, [5; 32], None).unwrap();
    let after = g.ops().snapshot();
    let d = cmix::group::count_diff(&before, &after);
    let get = |op| d.iter().find(|(o, _)| *o == op).map(|x| x.1).unwrap_or(0);
    let n = (CLIENTS * 2) as u64;
    // Registration (3 nodes x clients, both sides) and the proofs add exponentiations.
    assert_eq!(
        get(cmix::group::Op::Exp),
        3 * n + 2 * 3 * CLIENTS as u64 + 3
    );
    // prepre and premix: two fixed-base exponentiations per element and node.
    assert!(get(cmix::group::Op::ExpFixed) >= 2 * 2 * 3 * n);
}

fn fails<G: Group>(g: &G, width: usize, t: &str) -> Error {
    match run_batch(g, CLIENTS, width, [6; 32], Some(Tamper::parse(t).unwrap())) {
        Ok(_) => panic!("{} tampered with {t} was not detected", g.name()),
        Err(e) => e,
    }
}

fn every_check_fires<G: Group>(g: &G, width: usize) {
    for node in 0..3 {
        assert!(matches!(fails(g, width, &format!("proof:{node}")), Error::Proof(n) if n == node));
        assert!(matches!(
            fails(g, width, &format!("element:{node}")),
            Error::Received { .. }
        ));
        match fails(g, width, &format!("tag:{node}:5")) {
            // The tagged input slot lands somewhere in the output; exactly that one is caught.
            Error::Tagged { slots } => assert_eq!(slots.len(), 1),
            e => panic!("tag at node {node}: {e}"),
        }
    }
    for node in 0..2 {
        assert!(
            matches!(fails(g, width, &format!("share:{node}:7")), Error::ShareTag { node: n, slot: 7 } if n == node)
        );
    }
    assert!(matches!(
        fails(g, width, "opening:3"),
        Error::Opening { slot: 3 }
    ));
}

#[test]
fn every_check_fires_on_its_fault_ec() {
    every_check_fires(&Ristretto::new(), 2);
}

#[test]
fn every_check_fires_on_its_fault_mg() {
    every_check_fires(&Modp::new(ExpLen::Short), 1);
}
