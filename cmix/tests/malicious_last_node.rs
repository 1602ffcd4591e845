//! The threat model's limit, shown: the protocol assumes honest-but-curious nodes, and one
//! malicious last node breaks unlinkability. Each test runs an attack through the protocol's
//! own node steps and wire bytes (`protocol::local`, the steps the node processes run), with
//! the last node deviating only where it alone acts, and asserts that the attack succeeds:
//! every check the other nodes and the clients make passes, and the attacker links senders to
//! their messages.
//!
//! 1. Tagging with a colluding first node: node 0 multiplies a sender's slot by a tag in
//!    realpre. The first two nodes check the last node's opening, but they never see the
//!    output, so the last node decrypts, finds the one slot that is no message (the tagged
//!    sender's), divides the tag out and delivers every message.
//! 2. The prepre product as random components: in prepost the first two nodes compute their
//!    decryption shares of whatever random components the last node sends. It sends those of
//!    `E(R^-1)` (its own prepre output) instead of its premix output's, and with the shares
//!    released in realpost decrypts `R^-1`, hence every slot of its realpre output, each beside
//!    its sender's id; it delivers the messages it read.

use cmix::group::modp::{ExpLen, Modp};
use cmix::group::ristretto::Ristretto;
use cmix::group::Group;
use cmix::protocol::client::{check_delivery, workload, Outgoing};
use cmix::protocol::local::{precompute, prepare, prepost, prepre_premix, realtime};
use cmix::protocol::message::{body_bytes, decode};
use cmix::protocol::node::{elems_read_wire, elems_write_wire};
use cmix::protocol::tamper::{tag, Tamper};
use cmix::Error;
use cmix::NODES;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const CLIENTS: usize = 24;

fn messages<G: Group>(g: &G, width: usize) -> Vec<Outgoing> {
    workload(
        CLIENTS,
        body_bytes(g, width),
        &mut ChaCha20Rng::from_seed([7; 32]),
    )
}

fn delivered_unnoticed(sent: &[Outgoing], output: &[(u32, Vec<u8>)]) {
    let c = check_delivery(sent, output);
    assert!(c.exactly_once && c.permuted, "{:?}", c.problems);
}

fn tagging_with_a_colluding_last_node<G: Group>(g: &G, width: usize) {
    let sender = 5;
    let fault = Tamper::Tag {
        node: 0,
        slot: sender,
    };
    let mut p = prepare(g, width, messages(g, width), [8; 32], Some(fault)).unwrap();
    precompute(&mut p.nodes).unwrap();
    // Commitments, share tags and opening: every check of the first two nodes passes.
    let rt = realtime(&mut p).expect("no check fires before the last node decrypts");
    let last = &p.nodes[NODES - 1];
    let released: Vec<&[u8]> = rt.released.iter().map(|s| s.as_slice()).collect();
    // An honest last node would refuse the batch ...
    assert!(matches!(
        last.realpost(&released),
        Err(Error::Tagged { ref slots }) if slots.len() == 1
    ));
    // ... a malicious one finds the one slot that is no message, and untags it.
    let mut out = last.decrypt(&released).unwrap();
    let failed: Vec<usize> = out
        .chunks(width)
        .enumerate()
        .filter(|(_, s)| decode(g, s).is_err())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(failed.len(), 1);
    let slot = failed[0];
    g.mul_assign(&mut out[slot * width], &g.invert(&tag(g)));
    let output: Vec<(u32, Vec<u8>)> = out
        .chunks(width)
        .map(|s| decode(g, s).expect("every slot a message once untagged"))
        .collect();
    // Linked: the tagged sender's message is the one in that output slot, to its recipient.
    let m = &p.sent[sender];
    assert_eq!(output[slot], (m.recipient, m.body.clone()));
    delivered_unnoticed(&p.sent, &output);
}

fn decrypting_realpre_with_the_prepre_product<G: Group>(g: &G, width: usize) {
    let n = CLIENTS * width;
    let mut p = prepare(g, width, messages(g, width), [9; 32], None).unwrap();
    let pre = prepre_premix(&mut p.nodes).unwrap();
    // E(R^-1) = (c, m): the last node sends c, keeps m.
    let product = elems_read_wire(g, &pre.prepre_product, 2 * n, "prepre product").unwrap();
    let (c_pre, m_pre) = product.split_at(n);
    let c_pre_wire = elems_write_wire(g, c_pre);
    prepost(&mut p.nodes, &c_pre_wire).unwrap();
    // The last node's own share of the same components, computed in private.
    p.nodes[NODES - 1].prepost(Some(&c_pre_wire)).unwrap();
    let rt = realtime(&mut p).expect("every check of the first two nodes passes");
    let last = &p.nodes[NODES - 1];
    let shares: Vec<Vec<G::Elem>> = rt
        .released
        .iter()
        .map(|w| elems_read_wire(g, w, n, "released shares").unwrap())
        .collect();
    // R^-1 = m * prod D_i, so the realpre output M R gives M, slot by slot, beside the sender.
    let (ids, slots) = rt.realpre_last.split_at(4 * CLIENTS);
    let blinded = elems_read_wire(g, slots, n, "realpre output").unwrap();
    let read: Vec<G::Elem> = (0..n)
        .map(|k| {
            let r_inv = shares
                .iter()
                .fold(g.mul(&m_pre[k], &last.share_at(k)), |a, d| g.mul(&a, &d[k]));
            g.mul(&blinded[k], &r_inv)
        })
        .collect();
    let mut output = vec![];
    for (j, id) in ids.chunks(4).enumerate() {
        let sender = u32::from_le_bytes(id.try_into().unwrap()) as usize;
        let got = decode(g, &read[j * width..(j + 1) * width]).expect("every slot read");
        // Linked: each sender's message and recipient.
        assert_eq!(got, (p.sent[sender].recipient, p.sent[sender].body.clone()));
        output.push(got);
    }
    // The honest decryption is now garbage, but only the last node sees it: it delivers the
    // messages it read, in an order of its choosing.
    let released: Vec<&[u8]> = rt.released.iter().map(|s| s.as_slice()).collect();
    assert!(last.realpost(&released).is_err());
    output.shuffle(&mut ChaCha20Rng::from_seed([10; 32]));
    delivered_unnoticed(&p.sent, &output);
}

#[test]
fn a_malicious_last_node_colluding_with_a_tagging_node_links_a_sender_unnoticed() {
    tagging_with_a_colluding_last_node(&Ristretto::new(), 2);
    tagging_with_a_colluding_last_node(&Modp::new(ExpLen::Short), 1);
}

#[test]
fn a_malicious_last_node_alone_decrypts_every_sender_s_message_unnoticed() {
    decrypting_realpre_with_the_prepre_product(&Ristretto::new(), 2);
    decrypting_realpre_with_the_prepre_product(&Modp::new(ExpLen::Short), 1);
}
