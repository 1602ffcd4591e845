//! All three nodes and the clients in one process, passing the same wire bytes the networked
//! run sends: the protocol without sockets, for the correctness tests. A batch is run as its
//! steps ([`prepare`], [`precompute`], [`realtime`], and the last node's [`Node::realpost`]), so
//! that a test can also run them with one node deviating (the attacks of a malicious last
//! node in `tests/malicious_last_node.rs`).

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use crate::group::Group;
use crate::protocol::client::{workload, Client, Outgoing};
use crate::protocol::keys::{client_keys, joint_key, node_keys, verify_key_share, NodePublic};
use crate::protocol::message::body_bytes;
use crate::protocol::node::Node;
use crate::protocol::tamper::Tamper;
use crate::Error;
use crate::NODES;

/// The batch's round number.
pub const ROUND: u64 = 1;

/// A finished local batch.
pub struct LocalBatch<'g, G: Group> {
    /// The three nodes after the batch.
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
) -> Result<Nodes<'g, G>, Error> {
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
            return Err(Error::Proof(i));
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

/// A batch ready to run: the nodes keyed, the clients registered with every node, the round
/// started.
pub struct Prepared<'g, G: Group> {
    /// The group.
    pub g: &'g G,
    /// Elements per message slot.
    pub width: usize,
    /// The three nodes, keyed and started on the round.
    pub nodes: Vec<Node<'g, G>>,
    /// The clients, registered with every node.
    pub clients: Vec<Client>,
    /// The messages in input-slot order (client `j` sends slot `j`), bodies padded.
    pub sent: Vec<Outgoing>,
}

/// Keys, registration and the start of round [`ROUND`] for the messages `sent` (client `j` is
/// `sent[j].sender = j`); bodies shorter than the slot's are padded with zeros.
pub fn prepare<'g, G: Group>(
    g: &'g G,
    width: usize,
    mut sent: Vec<Outgoing>,
    seed: [u8; 32],
    tamper: Option<Tamper>,
) -> Result<Prepared<'g, G>, Error> {
    for m in sent.iter_mut() {
        assert!(
            m.body.len() <= body_bytes(g, width),
            "body too long for the slot"
        );
        m.body.resize(body_bytes(g, width), 0);
    }
    let mut rng = ChaCha20Rng::from_seed(seed);
    let (mut nodes, publics) = setup(g, &mut rng, tamper)?;
    let mut clients = vec![];
    for j in 0..sent.len() as u32 {
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
        clients.push(Client { id: j, keys });
    }
    for n in nodes.iter_mut() {
        n.start_round(ROUND, sent.len(), width);
    }
    Ok(Prepared {
        g,
        width,
        nodes,
        clients,
        sent,
    })
}

/// What the precomputation passed around that a deviating node may use: the last node's
/// prepre output `E(R^-1)` (wire form `c || m`) and its premix output, the random components
/// it sends the others for their decryption shares.
pub struct Precomputed {
    /// The last node's prepre output.
    pub prepre_product: Vec<u8>,
    /// The random components the last node sent after premix.
    pub random_components: Vec<u8>,
}

/// prepre and premix through the three nodes.
pub fn prepre_premix<G: Group>(nodes: &mut [Node<'_, G>]) -> Result<Precomputed, Error> {
    let mut prod: Option<Vec<u8>> = None;
    for n in nodes.iter_mut() {
        prod = Some(n.prepre(prod.as_deref())?);
    }
    let prepre_product = prod.expect("three nodes");
    let mut mix = prepre_product.clone();
    for n in nodes.iter_mut() {
        mix = n.premix(&mix)?;
    }
    Ok(Precomputed {
        prepre_product,
        random_components: mix,
    })
}

/// prepost and prepost_tags: the first two nodes' decryption shares of `c_wire` (what the last
/// node sent them), the last node's of its own random components; every node's tag hashes
/// kept by the last node.
pub fn prepost<G: Group>(nodes: &mut [Node<'_, G>], c_wire: &[u8]) -> Result<(), Error> {
    for n in nodes.iter_mut() {
        let sent = (!n.is_last()).then_some(c_wire);
        n.prepost(sent)?;
    }
    let tags: Vec<Vec<u8>> = nodes.iter().map(|n| n.prepost_tags()).collect();
    for (i, t) in tags.iter().enumerate() {
        nodes[NODES - 1].keep_share_tags(i, t)?;
    }
    Ok(())
}

/// The whole precomputation, every node honest.
pub fn precompute<G: Group>(nodes: &mut [Node<'_, G>]) -> Result<Precomputed, Error> {
    let pre = prepre_premix(nodes)?;
    prepost(nodes, &pre.random_components)?;
    Ok(pre)
}

/// What the real time passed around up to the last node's decryption: the last node's realpre
/// output (sender ids, then the slots times `R`, in input order) and the decryption shares the
/// first two nodes released to it.
pub struct RealTime {
    /// The last node's realpre output.
    pub realpre_last: Vec<u8>,
    /// The first two nodes' released decryption shares.
    pub released: Vec<Vec<u8>>,
}

/// realpre, realmix and realpost_tags: the clients' blinded messages through the nodes, the
/// last node's commitments, the shares released and checked against their tag hashes, the
/// opening checked by the first two nodes.
pub fn realtime<G: Group>(p: &mut Prepared<'_, G>) -> Result<RealTime, Error> {
    let (g, width) = (p.g, p.width);
    let mut input = vec![];
    for m in &p.sent {
        input.extend_from_slice(&m.sender.to_le_bytes());
    }
    for m in &p.sent {
        input.extend(
            p.clients[m.sender as usize]
                .blind(g, width, ROUND, m)
                .map_err(|source| Error::Received {
                    what: "a client's message",
                    source: Box::new(source),
                })?,
        );
    }
    let mut pre = input;
    for n in p.nodes.iter() {
        pre = n.realpre(&pre)?;
    }
    let mut mixed = pre[4 * p.sent.len()..].to_vec();
    for n in p.nodes.iter_mut() {
        mixed = n.realmix(&mixed)?;
    }
    let (last, others) = p.nodes.split_last_mut().expect("three nodes");
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
    Ok(RealTime {
        realpre_last: pre,
        released,
    })
}

/// Runs one batch of `clients` clients with `width` elements per slot and random messages.
pub fn run_batch<'g, G: Group>(
    g: &'g G,
    clients: usize,
    width: usize,
    seed: [u8; 32],
    tamper: Option<Tamper>,
) -> Result<LocalBatch<'g, G>, Error> {
    let mut rng = ChaCha20Rng::from_seed(seed);
    let sent = workload(clients, body_bytes(g, width), &mut rng);
    run_batch_with(g, width, sent, seed, tamper)
}

/// Runs one batch of the messages `sent` (see [`prepare`]), every node following the protocol
/// (but for the fault `tamper`).
pub fn run_batch_with<'g, G: Group>(
    g: &'g G,
    width: usize,
    sent: Vec<Outgoing>,
    seed: [u8; 32],
    tamper: Option<Tamper>,
) -> Result<LocalBatch<'g, G>, Error> {
    let mut p = prepare(g, width, sent, seed, tamper)?;
    precompute(&mut p.nodes)?;
    let rt = realtime(&mut p)?;
    let released: Vec<&[u8]> = rt.released.iter().map(|s| s.as_slice()).collect();
    let output = p.nodes[NODES - 1].realpost(&released)?;
    Ok(LocalBatch {
        nodes: p.nodes,
        sent: p.sent,
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
