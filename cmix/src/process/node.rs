//! The node process: one of the three cMix nodes, its own OS process, talking TLS to the
//! driver, the other two nodes and the clients. Its main thread does all network I/O; the
//! computation of each step runs on a rayon pool of `--threads` threads. Every step is timed
//! with `getrusage` (user and system CPU of the whole process) around its computation and,
//! separately, around its sends and receives.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener};

use rand_core::RngCore;
use rustls::pki_types::CertificateDer;
use serde::{Deserialize, Serialize};

use crate::group::{count_diff, Group, GroupSpec};
use crate::net::{client_config, hex, server_config, unhex, Identity, Link};
use crate::process::{Keys, Plan, RoundFigures, Setup, Step, Times};
use crate::protocol::keys::{joint_key, node_keys, verify_key_share, NodePublic};
use crate::protocol::node::{Node, ProtocolError};
use crate::protocol::tamper::Tamper;
use crate::NODES;

/// A node's failure.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error("{0}")]
    Protocol(#[from] ProtocolError),
    #[error("network: {0}")]
    Io(#[from] io::Error),
    #[error("{0}")]
    Plan(String),
}

/// What the node process is told on its command line.
pub struct NodeArgs {
    pub id: usize,
    pub threads: usize,
    /// The driver's certificate (hex): only it may connect as the driver.
    pub driver_cert: String,
}

#[derive(Serialize, Deserialize)]
pub(crate) enum Hello {
    Node(usize),
    Client { id: u32, public: String },
}

#[derive(Serialize, Deserialize)]
pub(crate) enum Command {
    Register,
    Round(u64),
    Bye,
}

#[derive(Serialize, Deserialize)]
pub(crate) enum Report {
    Keys(Box<Keys>),
    Setup(Box<Setup>),
    Precomputed,
    Done(Box<RoundFigures>),
    Failed(Box<RoundFigures>),
}

/// The node's connections: to the other nodes (by id) and to the clients (by client id).
struct Net {
    mesh: Vec<Option<Link>>,
    clients: Vec<Option<Link>>,
}

impl Net {
    fn bytes(&self) -> (u64, u64) {
        self.mesh
            .iter()
            .chain(self.clients.iter())
            .flatten()
            .map(|l| l.counts())
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }
    fn peer(&mut self, node: usize) -> &mut Link {
        self.mesh[node]
            .as_mut()
            .expect("a mesh link to every other node")
    }
    fn send(&mut self, node: usize, body: &[u8]) -> io::Result<()> {
        self.peer(node).send(body)
    }
    fn recv(&mut self, node: usize) -> io::Result<Vec<u8>> {
        self.peer(node).recv()
    }
}

/// Per-step figures of one batch.
struct Meter<'g, G: Group> {
    g: &'g G,
    steps: BTreeMap<String, Step>,
}

impl<'g, G: Group> Meter<'g, G> {
    fn compute<T>(&mut self, step: &str, f: impl FnOnce() -> T) -> T {
        let before = self.g.ops().snapshot();
        let (out, t) = measure::clock::timed(f);
        let after = self.g.ops().snapshot();
        let s = self.steps.entry(step.to_string()).or_default();
        s.compute.add(&Times::from(t));
        for (op, k) in count_diff(&before, &after) {
            *s.ops.entry(op.name().to_string()).or_default() += k;
        }
        out
    }

    fn net<T>(
        &mut self,
        step: &str,
        net: &mut Net,
        f: impl FnOnce(&mut Net) -> io::Result<T>,
    ) -> io::Result<T> {
        let b0 = net.bytes();
        let (out, t) = measure::clock::timed(|| f(net));
        let b1 = net.bytes();
        let s = self.steps.entry(step.to_string()).or_default();
        s.net.add(&Times::from(t));
        s.bytes_sent += b1.0 - b0.0;
        s.bytes_received += b1.1 - b0.1;
        out
    }
}

fn cert_from_hex(s: &str) -> Result<CertificateDer<'static>, NodeError> {
    unhex(s)
        .map(CertificateDer::from)
        .ok_or_else(|| NodeError::Plan("a certificate is not hex".into()))
}

/// The node process's main: announces its address and certificate on stdout, serves the
/// driver's plan, and returns when the driver says bye (or a check fired).
pub fn node_main(args: &NodeArgs) -> Result<(), NodeError> {
    let identity = Identity::generate()?;
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    {
        let mut out = io::stdout().lock();
        writeln!(out, "CMIX-NODE {addr} {}", hex(identity.cert.as_ref()))?;
        out.flush()?;
    }
    let driver_cert = cert_from_hex(&args.driver_cert)?;
    let mut driver = Link::accept(
        &listener,
        server_config(&identity, vec![driver_cert.clone()])?,
    )?;
    if driver.peer_cert().as_ref() != Some(&driver_cert) {
        return Err(NodeError::Plan(
            "the first connection is not the driver".into(),
        ));
    }
    let plan: Plan = driver.recv_json()?;
    let spec = GroupSpec::parse(&plan.group).map_err(NodeError::Plan)?;
    crate::with_group!(spec, g => run(&g, args, &plan, &identity, &listener, &mut driver))
}

fn run<G: Group>(
    g: &G,
    args: &NodeArgs,
    plan: &Plan,
    identity: &Identity,
    listener: &TcpListener,
    driver: &mut Link,
) -> Result<(), NodeError> {
    let id = args.id;
    let tamper = plan
        .tamper
        .as_deref()
        .map(Tamper::parse)
        .transpose()
        .map_err(NodeError::Plan)?;
    let seed = plan
        .seed
        .as_deref()
        .map(str::parse::<measure::seed::Seed>)
        .transpose()
        .map_err(NodeError::Plan)?;
    let mut rng = measure::seed::stream(&format!("cmix/node/{id}"), seed.as_ref());
    let certs: Vec<CertificateDer<'static>> = plan
        .peers
        .iter()
        .map(|(_, c)| cert_from_hex(c))
        .collect::<Result<_, _>>()?;
    let addrs: Vec<SocketAddr> = plan
        .peers
        .iter()
        .map(|(a, _)| {
            a.parse()
                .map_err(|_| NodeError::Plan(format!("bad address {a}")))
        })
        .collect::<Result<_, _>>()?;
    if certs.len() != NODES {
        return Err(NodeError::Plan(format!(
            "{} peers, expected {NODES}",
            certs.len()
        )));
    }

    // The mesh: dial the nodes before us, accept the ones after us.
    let mut setup = Setup::default();
    let mut net = Net {
        mesh: (0..NODES).map(|_| None).collect(),
        clients: (0..plan.clients).map(|_| None).collect(),
    };
    let others: Vec<CertificateDer<'static>> = certs
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != id)
        .map(|(_, c)| c.clone())
        .collect();
    let (mesh, t) = measure::clock::timed(|| -> Result<(), NodeError> {
        for j in 0..id {
            let cc = client_config(Some(identity), vec![certs[j].clone()])?;
            let mut l = Link::connect(addrs[j], cc)?;
            l.send_json(&Hello::Node(id))?;
            net.mesh[j] = Some(l);
        }
        let sc = server_config(identity, others.clone())?;
        for _ in id + 1..NODES {
            let mut l = Link::accept(listener, sc.clone())?;
            let who = match l.recv_json::<Hello>()? {
                Hello::Node(j) if j > id && j < NODES && net.mesh[j].is_none() => j,
                _ => return Err(NodeError::Plan("an unexpected mesh connection".into())),
            };
            if l.peer_cert().as_ref() != Some(&certs[who]) {
                return Err(NodeError::Plan(format!(
                    "a peer claims to be node {who} without its certificate"
                )));
            }
            net.mesh[who] = Some(l);
        }
        Ok(())
    });
    mesh?;
    setup.mesh.net = t.into();
    let (s, r) = net.bytes();
    setup.mesh.bytes_sent = s;
    setup.mesh.bytes_received = r;
    setup.mesh_handshakes = (NODES - 1) as u64;

    // Keys: shares with proofs, broadcast over the mesh, every proof checked.
    let mut meter = Meter {
        g,
        steps: BTreeMap::new(),
    };
    let (secret, mut public) = meter.compute("keys", || node_keys(g, id, &mut rng));
    if let Some(Tamper::Proof { node }) = tamper {
        if node == id {
            public.proof_commit = g.mul(&public.proof_commit, &public.y);
        }
    }
    let encode = |p: &NodePublic<G>| {
        let mut w = vec![];
        g.write_wire(&p.y, &mut w);
        g.write_wire(&p.proof_commit, &mut w);
        g.write_wire(&p.registration, &mut w);
        w.extend(g.scalar_to_bytes(&p.proof_response));
        w
    };
    let mine = encode(&public);
    let received = meter.net("keys", &mut net, |net| {
        for j in (0..NODES).filter(|&j| j != id) {
            net.send(j, &mine)?;
        }
        (0..NODES)
            .map(|j| if j == id { Ok(vec![]) } else { net.recv(j) })
            .collect::<io::Result<Vec<_>>>()
    })?;
    let wb = g.wire_bytes();
    let mut ys = vec![];
    for (j, bytes) in received.iter().enumerate() {
        if j == id {
            ys.push(public.y.clone());
            continue;
        }
        let p = meter.compute("keys", || -> Result<NodePublic<G>, ProtocolError> {
            let el = |k: usize| {
                bytes
                    .get(k * wb..(k + 1) * wb)
                    .ok_or(ProtocolError::Length {
                        what: "a key share",
                        got: bytes.len(),
                        want: 3 * wb,
                    })
                    .and_then(|b| {
                        g.read_wire(b).map_err(|source| ProtocolError::Element {
                            what: "a key share",
                            source,
                        })
                    })
            };
            Ok(NodePublic {
                y: el(0)?,
                proof_commit: el(1)?,
                registration: el(2)?,
                proof_response: g.scalar_from_bytes(&bytes[3 * wb..]).map_err(|source| {
                    ProtocolError::Element {
                        what: "a proof",
                        source,
                    }
                })?,
            })
        })?;
        if !meter.compute("keys", || verify_key_share(g, j, &p)) {
            let e = ProtocolError::Proof(j);
            report_failure(driver, id, 0, &meter, &e)?;
            return Err(e.into());
        }
        ys.push(p.y);
    }
    let joint = meter.compute("keys", || joint_key(g, &ys.iter().collect::<Vec<_>>()));
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    let mut node = meter.compute("keys", || {
        Node::new(g, id, NODES, secret, &joint, seed, tamper)
    });
    let (mut reg_wire, mut share_wire) = (vec![], vec![]);
    g.write_wire(&public.registration, &mut reg_wire);
    g.write_wire(&public.y, &mut share_wire);
    driver.send_json(&Report::Keys(Box::new(Keys {
        registration: hex(&reg_wire),
        share: hex(&share_wire),
        step: meter.steps.remove("keys").unwrap_or_default(),
    })))?;

    // Registration of the clients.
    match driver.recv_json::<Command>()? {
        Command::Register => {}
        _ => return Err(NodeError::Plan("expected the registration command".into())),
    }
    let sc = server_config(identity, vec![])?;
    for _ in 0..plan.clients {
        let before = net.bytes();
        let (link, t) = measure::clock::timed(|| Link::accept(listener, sc.clone()));
        let mut link = link?;
        let (s, r) = link.counts();
        let _ = before;
        setup.handshakes.compute.add(&t.into());
        setup.handshakes.bytes_sent += s;
        setup.handshakes.bytes_received += r;
        setup.handshake_count += 1;
        let b0 = link.counts();
        let (hello, t) = measure::clock::timed(|| link.recv_json::<Hello>());
        setup.registration.net.add(&t.into());
        let (client, public_hex) = match hello? {
            Hello::Client { id, public } => (id, public),
            _ => {
                return Err(NodeError::Plan(
                    "a client connection did not say hello".into(),
                ))
            }
        };
        if client as usize >= plan.clients || net.clients[client as usize].is_some() {
            return Err(NodeError::Plan(format!(
                "client id {client} is out of range or taken"
            )));
        }
        let wire = unhex(&public_hex)
            .ok_or_else(|| NodeError::Plan("a client's key is not hex".into()))?;
        let before = g.ops().snapshot();
        let (r, t) = measure::clock::timed(|| node.register(client, &wire, &public.registration));
        r?;
        for (op, k) in count_diff(&before, &g.ops().snapshot()) {
            *setup
                .registration
                .ops
                .entry(op.name().to_string())
                .or_default() += k;
        }
        setup.registration.compute.add(&t.into());
        let (_, t) = measure::clock::timed(|| link.send(b"registered"));
        setup.registration.net.add(&t.into());
        let b1 = link.counts();
        setup.registration.bytes_sent += b1.0 - b0.0;
        setup.registration.bytes_received += b1.1 - b0.1;
        net.clients[client as usize] = Some(link);
    }
    driver.send_json(&Report::Setup(Box::new(setup)))?;

    // Batches.
    loop {
        let round = match driver.recv_json::<Command>()? {
            Command::Round(r) => r,
            Command::Bye => return Ok(()),
            Command::Register => return Err(NodeError::Plan("registered twice".into())),
        };
        let mut meter = Meter {
            g,
            steps: BTreeMap::new(),
        };
        node.start_round(round, plan.clients, plan.width);
        match batch(&mut node, &mut meter, &mut net, driver) {
            Ok(delivered) => {
                let f = RoundFigures {
                    node: id,
                    round,
                    steps: meter.steps,
                    outcome: "ok".into(),
                    error: None,
                    peak_rss_mib: peak_rss_mib(),
                    delivered,
                };
                driver.send_json(&Report::Done(Box::new(f)))?;
            }
            Err(NodeError::Protocol(e)) => {
                report_failure(driver, id, round, &meter, &e)?;
                return Err(e.into());
            }
            Err(e) => return Err(e),
        }
    }
}

/// Peak resident memory of this process since it started, in MiB (the process's own, not a
/// parent's from before `exec`).
pub fn peak_rss_mib() -> f64 {
    measure::clock::peak_rss_mib()
}

fn report_failure<G: Group>(
    driver: &mut Link,
    id: usize,
    round: u64,
    meter: &Meter<'_, G>,
    e: &ProtocolError,
) -> io::Result<()> {
    let f = RoundFigures {
        node: id,
        round,
        steps: meter.steps.clone(),
        outcome: "detected".into(),
        error: Some(e.to_string()),
        peak_rss_mib: peak_rss_mib(),
        delivered: 0,
    };
    driver.send_json(&Report::Failed(Box::new(f)))
}

/// One batch at this node: the six phases and the tag steps; returns the messages delivered
/// (the last node) or 0.
fn batch<G: Group>(
    node: &mut Node<'_, G>,
    m: &mut Meter<'_, G>,
    net: &mut Net,
    driver: &mut Link,
) -> Result<u64, NodeError> {
    let id = node.id;
    let last = NODES - 1;
    let (prev, next) = ((id + NODES - 1) % NODES, (id + 1) % NODES);

    // prepre: 0 -> 1 -> 2, and the product back to the first node.
    let incoming = if id == 0 {
        None
    } else {
        Some(m.net("prepre", net, |n| n.recv(prev))?)
    };
    let out = m.compute("prepre", || node.prepre(incoming.as_deref()))?;
    m.net("prepre", net, |n| n.send(next, &out))?;

    // premix: 0 -> 1 -> 2; the last node sends the random components to the others.
    let incoming = m.net("premix", net, |n| n.recv(prev))?;
    let out = m.compute("premix", || node.premix(&incoming))?;
    if id == last {
        m.net("premix", net, |n| {
            (0..last).try_for_each(|j| n.send(j, &out))
        })?;
    } else {
        m.net("premix", net, |n| n.send(next, &out))?;
    }

    // prepost: decryption shares, then their tag hashes to the last node.
    if id == last {
        m.compute("prepost", || node.prepost(None))?;
    } else {
        let c = m.net("prepost", net, |n| n.recv(last))?;
        m.compute("prepost", || node.prepost(Some(&c)))?;
    }
    let tags = m.compute("prepost_tags", || node.prepost_tags());
    if id == last {
        let theirs = m.net("prepost_tags", net, |n| {
            (0..last).map(|j| n.recv(j)).collect::<io::Result<Vec<_>>>()
        })?;
        m.compute("prepost_tags", || -> Result<(), ProtocolError> {
            node.keep_share_tags(last, &tags)?;
            for (j, t) in theirs.iter().enumerate() {
                node.keep_share_tags(j, t)?;
            }
            Ok(())
        })?;
    } else {
        m.net("prepost_tags", net, |n| n.send(last, &tags))?;
    }
    driver.send_json(&Report::Precomputed)?;

    // realpre: the first node reads the clients' slots in client order.
    let beta = node.beta;
    let incoming = if id == 0 {
        m.net("realpre", net, |n| {
            let mut ids = Vec::with_capacity(4 * beta);
            let mut elems = vec![];
            for (j, c) in n.clients.iter_mut().enumerate() {
                let body = c.as_mut().expect("every client registered").recv()?;
                ids.extend_from_slice(&(j as u32).to_le_bytes());
                elems.extend(body);
            }
            ids.extend(elems);
            Ok(ids)
        })?
    } else {
        m.net("realpre", net, |n| n.recv(prev))?
    };
    let out = m.compute("realpre", || node.realpre(&incoming))?;
    if id == last {
        // The mix starts at the first node; the sender ids stay behind.
        m.net("realpre", net, |n| n.send(next, &out[4 * beta..]))?;
    } else {
        m.net("realpre", net, |n| n.send(next, &out))?;
    }

    // realmix: 0 -> 1 -> 2.
    let incoming = m.net("realmix", net, |n| n.recv(prev))?;
    let out = m.compute("realmix", || node.realmix(&incoming))?;
    if id != last {
        m.net("realmix", net, |n| n.send(next, &out))?;
    }

    // realpost: commitments, shares checked against their tags, the opening, the messages.
    if id == last {
        let commitments = m.compute("realpost_tags", || node.realpost_commit());
        m.net("realpost_tags", net, |n| {
            (0..last).try_for_each(|j| n.send(j, &commitments))
        })?;
        let shares = m.net("realpost", net, |n| {
            (0..last).map(|j| n.recv(j)).collect::<io::Result<Vec<_>>>()
        })?;
        m.compute("realpost_tags", || -> Result<(), ProtocolError> {
            for (j, s) in shares.iter().enumerate() {
                node.check_share_tags(j, s)?;
            }
            Ok(())
        })?;
        let opening = node.opening().to_vec();
        m.net("realpost_tags", net, |n| {
            (0..last).try_for_each(|j| n.send(j, &opening))
        })?;
        let output = m.compute("realpost", || {
            node.realpost(&shares.iter().map(|s| s.as_slice()).collect::<Vec<_>>())
        })?;
        m.net("realpost", net, |n| {
            for (slot, (recipient, body)) in output.iter().enumerate() {
                let mut frame = (slot as u32).to_le_bytes().to_vec();
                frame.extend_from_slice(body);
                n.clients
                    .get_mut(*recipient as usize)
                    .and_then(|c| c.as_mut())
                    .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, format!("output slot {slot} names client {recipient}, who is not registered")))?
                    .send(&frame)?;
            }
            Ok(())
        })?;
        Ok(output.len() as u64)
    } else {
        let commitments = m.net("realpost_tags", net, |n| n.recv(last))?;
        m.compute("realpost_tags", || node.keep_commitments(&commitments))?;
        let shares = m.compute("realpost", || node.release_shares());
        m.net("realpost", net, |n| n.send(last, &shares))?;
        let opening = m.net("realpost_tags", net, |n| n.recv(last))?;
        m.compute("realpost_tags", || node.check_opening(&opening))?;
        Ok(0)
    }
}
