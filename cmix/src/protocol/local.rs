//! All three nodes and the clients in one process, passing the same wire bytes the networked
//! run sends: the protocol without sockets, for the correctness tests.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use crate::group::Group;
use crate::protocol::client::{workload, Client, Outgoing};
use crate::protocol::keys::{client_keys, joint_key, node_keys, verify_key_share, NodePublic};
use crate::protocol::message::body_bytes;
use crate::protocol::node::{Node, ProtocolError};
use crate::protocol::tamper::Tamper;
use crate::NODES;

/// A finished local batch.
pub struct LocalBatch<'g, G: Group> {
    pub nodes: Vec<Node<'g, G>>,
    /// The messages in input-slot order.
    pub sent: Vec<Outgoing>,
    /// The output slots in order: recipient and body.
    pub output: Vec<(u32, Vec<u8>)>,
}

/// The nodes and what they published.
pub type Nodes<'g, G> = (Vec<Node<'g, G>>, Vec<NodePublic<G>>);

/// Keys for the three nodes; a node told to tamper with its proof breaks it. Every proof is
/// checked, as each node checks the others'.
pub fn setup<'g, G: Group>(
    g: &'g G,
    rng: &mut ChaCha20Rng,
    tamper: Option<Tamper>,
) -> Result<Nodes<'g, G>, ProtocolError> {
    let mut secrets = vec![];
    let mut publics = vec![];
    for i in 0..NODES {
        let (s, mut p) = node_keys(g, i, rng);
        if let Some(Tamper::Proof { node }) = tamper {
            if node == i {
                p.proof_commit = g.mul(&p.proof_commit, &p.y);
            }
        }
        secrets.push(s);
        publics.push(p);
    }
    for (i, p) in publics.iter().enumerate() {
        if !verify_key_share(g, i, p) {
            return Err(ProtocolError::Proof(i));
        }
    }
    let joint = joint_key(g, &publics.iter().map(|p| &p.y).collect::<Vec<_>>());
    let nodes = secrets
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let mut seed = [0u8; 32];
            rng.fill_bytes(&mut seed);
            Node::new(g, i, NODES, s, &joint, seed, tamper)
        })
        .collect();
    Ok((nodes, publics))
}

/// Runs one batch of `clients` clients with `width` elements per slot and random messages.
pub fn run_batch<'g, G: Group>(
    g: &'g G,
    clients: usize,
    width: usize,
    seed: [u8; 32],
    tamper: Option<Tamper>,
) -> Result<LocalBatch<'g, G>, ProtocolError> {
    let mut rng = ChaCha20Rng::from_seed(seed);
    let sent = workload(clients, body_bytes(g, width), &mut rng);
    run_batch_with(g, width, sent, seed, tamper)
}

/// Runs one batch of the messages `sent` (client `j` is `sent[j].sender = j`); bodies shorter
/// than the slot's are padded with zeros.
pub fn run_batch_with<'g, G: Group>(
    g: &'g G,
    width: usize,
    mut sent: Vec<Outgoing>,
    seed: [u8; 32],
    tamper: Option<Tamper>,
) -> Result<LocalBatch<'g, G>, ProtocolError> {
    let clients = sent.len();
    for m in sent.iter_mut() {
        assert!(
            m.body.len() <= body_bytes(g, width),
            "body too long for the slot"
        );
        m.body.resize(body_bytes(g, width), 0);
    }
    let mut rng = ChaCha20Rng::from_seed(seed);
    let (mut nodes, publics) = setup(g, &mut rng, tamper)?;
    // Registration.
    let mut registered = vec![];
    for j in 0..clients as u32 {
        let (a, pub_a) = client_keys(g, &mut rng);
        let mut wire = vec![];
        g.write_wire(&pub_a, &mut wire);
        let mut keys = vec![];
        for (i, node) in nodes.iter_mut().enumerate() {
            node.register(j, &wire, &publics[i].registration)?;
            keys.push(Client::derive(
                g,
                i,
                j,
                &a,
                &pub_a,
                &publics[i].registration,
            ));
        }
        registered.push(Client { id: j, keys });
    }
    let round = 1;
    for n in nodes.iter_mut() {
        n.start_round(round, clients, width);
    }
    // Precomputation.
    let mut prod: Option<Vec<u8>> = None;
    for n in nodes.iter_mut() {
        prod = Some(n.prepre(prod.as_deref())?);
    }
    let mut mix = prod.expect("three nodes");
    for n in nodes.iter_mut() {
        mix = n.premix(&mix)?;
    }
    let c_wire = mix;
    for n in nodes.iter_mut() {
        let own = n.is_last().then_some(());
        n.prepost(if own.is_some() { None } else { Some(&c_wire) })?;
    }
    let tags: Vec<Vec<u8>> = nodes.iter().map(|n| n.prepost_tags()).collect();
    for (i, t) in tags.iter().enumerate() {
        nodes[NODES - 1].keep_share_tags(i, t)?;
    }
    // Real time: the clients' blinded messages, in the first node's slot order.
    let mut input = vec![];
    for m in &sent {
        input.extend_from_slice(&m.sender.to_le_bytes());
    }
    for m in &sent {
        input.extend(
            registered[m.sender as usize]
                .blind(g, width, round, m)
                .map_err(|source| ProtocolError::Element {
                    what: "a client's message",
                    source,
                })?,
        );
    }
    let mut pre = input;
    for n in nodes.iter() {
        pre = n.realpre(&pre)?;
    }
    let mut mixed = pre[4 * clients..].to_vec();
    for n in nodes.iter_mut() {
        mixed = n.realmix(&mixed)?;
    }
    let (last, others) = nodes.split_last_mut().expect("three nodes");
    let commitments = last.realpost_commit();
    let mut released = vec![];
    for (i, n) in others.iter_mut().enumerate() {
        n.keep_commitments(&commitments)?;
        let shares = n.release_shares();
        last.check_share_tags(i, &shares)?;
        released.push(shares);
    }
    // The last node opens its commitments once it holds the shares; the others check.
    for n in others.iter() {
        n.check_opening(last.opening())?;
    }
    let output = last.realpost(&released.iter().map(|s| s.as_slice()).collect::<Vec<_>>())?;
    Ok(LocalBatch {
        nodes,
        sent,
        output,
    })
}

/// The decrypted precomputation `m * prod D_i` per output element (for the tests: a batch
/// must never reveal it).
pub fn decrypted_precomputation<G: Group>(b: &LocalBatch<'_, G>) -> Vec<G::Elem> {
    let last = &b.nodes[NODES - 1];
    let g = last.g;
    (0..last.beta * last.width)
        .map(|k| {
            b.nodes
                .iter()
                .fold(last.m_comp[k].clone(), |a, n| g.mul(&a, &n.share_at(k)))
        })
        .collect()
}
