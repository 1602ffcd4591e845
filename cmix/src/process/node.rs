//! The node process: one of the three cMix nodes, its own OS process, talking TLS to the
//! driver, the other two nodes and the clients. Its main thread does all network I/O; the
//! computation of each step runs on a rayon pool of `--threads` threads. Every step is timed
//! with `getrusage` (user and system CPU of the whole process) around its computation and,
//! separately, around its sends and receives.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener};

use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;
use rustls::pki_types::CertificateDer;
use serde::{Deserialize, Serialize};

use crate::group::{count_diff, Group, GroupSpec};
use crate::net::{
    accept, cert_to_hex, client_config, connect, hex, server_config,
    server_config_without_client_certs, unhex, Identity, JsonFrames, Link,
};
use crate::process::{Keys, Plan, RoundFigures, Setup, Step, Times};
use crate::protocol::keys::{joint_key, node_keys, verify_key_share, NodePublic};
use crate::protocol::node::Node;
use crate::protocol::tamper::Tamper;
use crate::{Error, NODES};

/// What the node process is told on its command line.
pub struct NodeArgs {
    /// The node's index: 0 first, 2 last.
    pub id: usize,
    /// Worker threads for the node's computation.
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
    fn new(g: &'g G) -> Self {
        Meter {
            g,
            steps: BTreeMap::new(),
        }
    }

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

fn cert_from_hex(s: &str) -> Result<CertificateDer<'static>, Error> {
    crate::net::cert_from_hex(s).ok_or(Error::NotHex("a certificate"))
}

/// The node process's main: announces its address and certificate on stdout, serves the
/// driver's plan, and returns when the driver says bye (or a check fired).
pub fn node_main(args: &NodeArgs) -> Result<(), Error> {
    let identity = Identity::generate()?;
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    {
        let mut out = io::stdout().lock();
        writeln!(out, "CMIX-NODE {addr} {}", cert_to_hex(&identity.cert))?;
        out.flush()?;
    }
    let driver_cert = cert_from_hex(&args.driver_cert)?;
    let mut driver = accept(
        &listener,
        server_config(&identity, vec![driver_cert.clone()])?,
    )?;
    if driver.peer_cert().as_ref() != Some(&driver_cert) {
        return Err(Error::NotTheDriver);
    }
    let plan: Plan = driver.recv_json()?;
    let spec = GroupSpec::parse(&plan.group)?;
    crate::with_group!(spec, g => run(&g, args, &plan, &identity, &listener, &mut driver))
}

/// The node's part of the run: the mesh, the keys, the clients' registration, then one batch
/// per round until the driver says bye.
fn run<G: Group>(
    g: &G,
    args: &NodeArgs,
    plan: &Plan,
    identity: &Identity,
    listener: &TcpListener,
    driver: &mut Link,
) -> Result<(), Error> {
    let id = args.id;
    let tamper = plan.tamper.as_deref().map(Tamper::parse).transpose()?;
    let seed = plan
        .seed
        .as_deref()
        .map(str::parse::<measure::seed::Seed>)
        .transpose()?;
    let mut rng = measure::seed::stream(&format!("cmix/node/{id}"), seed.as_ref());
    let peers = Peers::of(plan)?;
    let mut net = Net {
        mesh: (0..NODES).map(|_| None).collect(),
        clients: (0..plan.clients).map(|_| None).collect(),
    };
    let mut setup = Setup::default();
    mesh(id, identity, listener, &peers, &mut net, &mut setup)?;
    let (mut node, registration_key) = keys(g, id, tamper, &mut rng, &mut net, driver)?;
    match driver.recv_json::<Command>()? {
        Command::Register => {}
        _ => return Err(Error::OutOfSequence("expected the registration command")),
    }
    registration(
        &mut node,
        &registration_key,
        identity,
        listener,
        &mut net,
        &mut setup,
    )?;
    driver.send_json(&Report::Setup(Box::new(setup)))?;
    batches(&mut node, plan, &mut net, driver)
}

/// The other nodes' addresses and certificates, from the plan.
struct Peers {
    addrs: Vec<SocketAddr>,
    certs: Vec<CertificateDer<'static>>,
}

impl Peers {
    fn of(plan: &Plan) -> Result<Peers, Error> {
        let certs: Vec<CertificateDer<'static>> = plan
            .peers
            .iter()
            .map(|(_, c)| cert_from_hex(c))
            .collect::<Result<_, _>>()?;
        let addrs: Vec<SocketAddr> = plan
            .peers
            .iter()
            .map(|(a, _)| a.parse().map_err(|_| Error::PeerAddress(a.clone())))
            .collect::<Result<_, _>>()?;
        if certs.len() != NODES {
            return Err(Error::PeerCount(certs.len()));
        }
        Ok(Peers { addrs, certs })
    }
}

/// mesh: dial the nodes before this one, accept the ones after it (each checked against its
/// certificate).
fn mesh(
    id: usize,
    identity: &Identity,
    listener: &TcpListener,
    peers: &Peers,
    net: &mut Net,
    setup: &mut Setup,
) -> Result<(), Error> {
    let certs = &peers.certs;
    let others: Vec<CertificateDer<'static>> = certs
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != id)
        .map(|(_, c)| c.clone())
        .collect();
    let (done, t) = measure::clock::timed(|| -> Result<(), Error> {
        for (j, (cert, addr)) in certs.iter().zip(&peers.addrs).enumerate().take(id) {
            let cc = client_config(identity, vec![cert.clone()])?;
            let l = connect(*addr, cc)?;
            l.send_json(&Hello::Node(id))?;
            net.mesh[j] = Some(l);
        }
        let sc = server_config(identity, others)?;
        for _ in id + 1..NODES {
            let l = accept(listener, sc.clone())?;
            let who = match l.recv_json::<Hello>()? {
                Hello::Node(j) if j > id && j < NODES && net.mesh[j].is_none() => j,
                _ => return Err(Error::UnexpectedMeshConnection),
            };
            if l.peer_cert().as_ref() != Some(&certs[who]) {
                return Err(Error::Impostor(who));
            }
            net.mesh[who] = Some(l);
        }
        Ok(())
    });
    done?;
    setup.mesh.net = t.into();
    (setup.mesh.bytes_sent, setup.mesh.bytes_received) = net.bytes();
    setup.mesh_handshakes = (NODES - 1) as u64;
    Ok(())
}

/// A node's public keys in wire form: key share, proof commitment, registration key, then the
/// proof's response.
fn public_wire<G: Group>(g: &G, p: &NodePublic<G>) -> Vec<u8> {
    let mut w = vec![];
    g.write_wire(&p.y, &mut w);
    g.write_wire(&p.proof_commit, &mut w);
    g.write_wire(&p.registration, &mut w);
    w.extend(g.scalar_to_bytes(&p.proof_response));
    w
}

/// The public keys another node sent, every element checked to be in the group.
fn read_public<G: Group>(g: &G, bytes: &[u8]) -> Result<NodePublic<G>, Error> {
    let wb = g.wire_bytes();
    let el = |k: usize| {
        bytes
            .get(k * wb..(k + 1) * wb)
            .ok_or(Error::Length {
                what: "a key share",
                got: bytes.len(),
                want: 3 * wb,
            })
            .and_then(|b| {
                g.read_wire(b).map_err(|source| Error::Received {
                    what: "a key share",
                    source: Box::new(source),
                })
            })
    };
    Ok(NodePublic {
        y: el(0)?,
        proof_commit: el(1)?,
        registration: el(2)?,
        proof_response: g.scalar_from_bytes(&bytes[3 * wb..]).map_err(|source| {
            Error::Received {
                what: "a proof",
                source: Box::new(source),
            }
        })?,
    })
}

/// keys: this node's share with its proof broadcast over the mesh, every other node's proof
/// checked, the joint key; the driver gets the registration key and the key share. Returns the
/// node ready for batches and its registration key.
fn keys<'g, G: Group>(
    g: &'g G,
    id: usize,
    tamper: Option<Tamper>,
    rng: &mut ChaCha20Rng,
    net: &mut Net,
    driver: &mut Link,
) -> Result<(Node<'g, G>, G::Elem), Error> {
    let mut meter = Meter::new(g);
    let (secret, mut public) = meter.compute("keys", || node_keys(g, id, rng));
    if let Some(Tamper::Proof { node }) = tamper {
        if node == id {
            public.proof_commit = g.mul(&public.proof_commit, &public.y);
        }
    }
    let mine = public_wire(g, &public);
    let received = meter.net("keys", net, |net| {
        for j in (0..NODES).filter(|&j| j != id) {
            net.send(j, &mine)?;
        }
        (0..NODES)
            .map(|j| if j == id { Ok(vec![]) } else { net.recv(j) })
            .collect::<io::Result<Vec<_>>>()
    })?;
    let mut ys = vec![];
    for (j, bytes) in received.iter().enumerate() {
        if j == id {
            ys.push(public.y.clone());
            continue;
        }
        let p = meter.compute("keys", || read_public(g, bytes))?;
        if !meter.compute("keys", || verify_key_share(g, j, &p)) {
            let e = Error::Proof(j);
            report_failure(driver, id, 0, &meter, &e)?;
            return Err(e);
        }
        ys.push(p.y);
    }
    let joint = meter.compute("keys", || joint_key(g, &ys.iter().collect::<Vec<_>>()));
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    let node = meter.compute("keys", || {
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
    Ok((node, public.registration))
}

/// registration: every client's TLS handshake (timed apart) and its Diffie-Hellman key
/// exchange with this node.
fn registration<G: Group>(
    node: &mut Node<'_, G>,
    registration_key: &G::Elem,
    identity: &Identity,
    listener: &TcpListener,
    net: &mut Net,
    setup: &mut Setup,
) -> Result<(), Error> {
    let g = node.g;
    let clients = net.clients.len();
    let sc = server_config_without_client_certs(identity)?;
    for _ in 0..clients {
        let (link, t) = measure::clock::timed(|| accept(listener, sc.clone()));
        let link = link?;
        let (s, r) = link.counts();
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
                return Err(Error::OutOfSequence(
                    "a client connection did not say hello",
                ))
            }
        };
        if client as usize >= clients || net.clients[client as usize].is_some() {
            return Err(Error::ClientId(client));
        }
        let wire = unhex(&public_hex).ok_or(Error::NotHex("a client's key"))?;
        let before = g.ops().snapshot();
        let (r, t) = measure::clock::timed(|| node.register(client, &wire, registration_key));
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
    Ok(())
}

/// One batch per `round` command, its figures to the driver, until `bye` (or a check fired).
fn batches<G: Group>(
    node: &mut Node<'_, G>,
    plan: &Plan,
    net: &mut Net,
    driver: &mut Link,
) -> Result<(), Error> {
    let id = node.id;
    loop {
        let round = match driver.recv_json::<Command>()? {
            Command::Round(r) => r,
            Command::Bye => return Ok(()),
            Command::Register => return Err(Error::OutOfSequence("registered twice")),
        };
        let mut meter = Meter::new(node.g);
        node.start_round(round, plan.clients, plan.width);
        match batch(node, &mut meter, net, driver) {
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
            Err(e) if e.is_detection() => {
                report_failure(driver, id, round, &meter, &e)?;
                return Err(e);
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
    e: &Error,
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
fn batch<'g, G: Group>(
    node: &mut Node<'g, G>,
    m: &mut Meter<'g, G>,
    net: &mut Net,
    driver: &mut Link,
) -> Result<u64, Error> {
    let mut b = Batch { node, m, net };
    b.prepre()?;
    b.premix()?;
    b.prepost()?;
    b.prepost_tags()?;
    driver.send_json(&Report::Precomputed)?;
    b.realpre()?;
    b.realmix()?;
    if b.node.is_last() {
        b.realpost_last()
    } else {
        b.realpost_other()?;
        Ok(0)
    }
}

/// A batch at one node: its state, its meter and its links; one method per step, named after
/// its report label, each receiving, computing and sending what the step needs.
struct Batch<'a, 'g, G: Group> {
    node: &'a mut Node<'g, G>,
    m: &'a mut Meter<'g, G>,
    net: &'a mut Net,
}

const LAST: usize = NODES - 1;

impl<G: Group> Batch<'_, '_, G> {
    fn prev(&self) -> usize {
        (self.node.id + NODES - 1) % NODES
    }

    fn next(&self) -> usize {
        (self.node.id + 1) % NODES
    }

    /// Receives one frame from node `from` within `step`.
    fn recv(&mut self, step: &str, from: usize) -> io::Result<Vec<u8>> {
        self.m.net(step, self.net, |n| n.recv(from))
    }

    /// Sends one frame to each node of `to` within `step`.
    fn send(
        &mut self,
        step: &str,
        to: impl IntoIterator<Item = usize>,
        body: &[u8],
    ) -> io::Result<()> {
        self.m.net(step, self.net, |n| {
            to.into_iter().try_for_each(|j| n.send(j, body))
        })
    }

    /// prepre: 0 -> 1 -> 2, and the product back to the first node.
    fn prepre(&mut self) -> Result<(), Error> {
        let incoming = if self.node.id == 0 {
            None
        } else {
            Some(self.recv("prepre", self.prev())?)
        };
        let node = &mut *self.node;
        let out = self
            .m
            .compute("prepre", || node.prepre(incoming.as_deref()))?;
        self.send("prepre", [self.next()], &out)?;
        Ok(())
    }

    /// premix: 0 -> 1 -> 2; the last node sends the random components to the others.
    fn premix(&mut self) -> Result<(), Error> {
        let incoming = self.recv("premix", self.prev())?;
        let node = &mut *self.node;
        let out = self.m.compute("premix", || node.premix(&incoming))?;
        if self.node.is_last() {
            self.send("premix", 0..LAST, &out)?;
        } else {
            self.send("premix", [self.next()], &out)?;
        }
        Ok(())
    }

    /// prepost: the decryption shares of the random components.
    fn prepost(&mut self) -> Result<(), Error> {
        let c = if self.node.is_last() {
            None
        } else {
            Some(self.recv("prepost", LAST)?)
        };
        let node = &mut *self.node;
        self.m.compute("prepost", || node.prepost(c.as_deref()))?;
        Ok(())
    }

    /// prepost_tags: every node's share tag hashes to the last node, which keeps them.
    fn prepost_tags(&mut self) -> Result<(), Error> {
        let node = &mut *self.node;
        let tags = self.m.compute("prepost_tags", || node.prepost_tags());
        if !self.node.is_last() {
            self.send("prepost_tags", [LAST], &tags)?;
            return Ok(());
        }
        let theirs = self.m.net("prepost_tags", self.net, |n| {
            (0..LAST).map(|j| n.recv(j)).collect::<io::Result<Vec<_>>>()
        })?;
        let node = &mut *self.node;
        self.m.compute("prepost_tags", || -> Result<(), Error> {
            node.keep_share_tags(LAST, &tags)?;
            for (j, t) in theirs.iter().enumerate() {
                node.keep_share_tags(j, t)?;
            }
            Ok(())
        })?;
        Ok(())
    }

    /// realpre: the first node reads the clients' slots in client order, the others their
    /// predecessor's; the last node passes the slots without the sender ids to the first.
    fn realpre(&mut self) -> Result<(), Error> {
        let beta = self.node.beta;
        let incoming = if self.node.id == 0 {
            self.m.net("realpre", self.net, |n| {
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
            self.recv("realpre", self.prev())?
        };
        let node = &*self.node;
        let out = self.m.compute("realpre", || node.realpre(&incoming))?;
        let skip = if self.node.is_last() { 4 * beta } else { 0 };
        self.send("realpre", [self.next()], &out[skip..])?;
        Ok(())
    }

    /// realmix: 0 -> 1 -> 2.
    fn realmix(&mut self) -> Result<(), Error> {
        let incoming = self.recv("realmix", self.prev())?;
        let node = &mut *self.node;
        let out = self.m.compute("realmix", || node.realmix(&incoming))?;
        if !self.node.is_last() {
            self.send("realmix", [self.next()], &out)?;
        }
        Ok(())
    }

    /// realpost at the last node: commitments out, the shares in and checked against their
    /// tag hashes (realpost_tags), the opening out; the messages decrypted, checked and
    /// delivered. Returns how many were delivered.
    fn realpost_last(&mut self) -> Result<u64, Error> {
        let node = &mut *self.node;
        let commitments = self.m.compute("realpost_tags", || node.realpost_commit());
        self.send("realpost_tags", 0..LAST, &commitments)?;
        let shares = self.m.net("realpost", self.net, |n| {
            (0..LAST).map(|j| n.recv(j)).collect::<io::Result<Vec<_>>>()
        })?;
        let node = &*self.node;
        self.m.compute("realpost_tags", || -> Result<(), Error> {
            for (j, s) in shares.iter().enumerate() {
                node.check_share_tags(j, s)?;
            }
            Ok(())
        })?;
        let opening = node.opening().to_vec();
        self.send("realpost_tags", 0..LAST, &opening)?;
        let node = &*self.node;
        let output = self.m.compute("realpost", || {
            node.realpost(&shares.iter().map(|s| s.as_slice()).collect::<Vec<_>>())
        })?;
        self.m.net("realpost", self.net, |n| deliver(n, &output))?;
        Ok(output.len() as u64)
    }

    /// realpost at the first and middle nodes: the last node's commitments kept, this node's
    /// shares released, the opening checked (realpost_tags).
    fn realpost_other(&mut self) -> Result<(), Error> {
        let commitments = self.recv("realpost_tags", LAST)?;
        let node = &mut *self.node;
        self.m
            .compute("realpost_tags", || node.keep_commitments(&commitments))?;
        let shares = self.m.compute("realpost", || node.release_shares());
        self.send("realpost", [LAST], &shares)?;
        let opening = self.recv("realpost_tags", LAST)?;
        let node = &*self.node;
        self.m
            .compute("realpost_tags", || node.check_opening(&opening))?;
        Ok(())
    }
}

/// Each output slot to its recipient, with its slot number.
fn deliver(n: &mut Net, output: &[(u32, Vec<u8>)]) -> io::Result<()> {
    for (slot, (recipient, body)) in output.iter().enumerate() {
        let mut frame = (slot as u32).to_le_bytes().to_vec();
        frame.extend_from_slice(body);
        n.clients
            .get_mut(*recipient as usize)
            .and_then(|c| c.as_mut())
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("output slot {slot} names client {recipient}, who is not registered"),
                )
            })?
            .send(&frame)?;
    }
    Ok(())
}
