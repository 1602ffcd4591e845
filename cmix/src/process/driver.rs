//! The driver: starts the three node processes (this executable's `node` subcommand), hands
//! them the plan, runs the clients as tasks on a few worker threads (each client has its own
//! TLS connection to every node), runs the batches and checks every delivery.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command as Proc, Stdio};
use std::sync::{mpsc, Arc};
use std::thread;

use measure::seed::{stream, Seed};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use rustls::pki_types::CertificateDer;

use crate::group::{Group, GroupSpec};
use crate::net::{
    cert_from_hex, cert_to_hex, client_config, client_config_without_cert, connect, hex, unhex,
    Identity, JsonFrames, Link,
};
use crate::process::node::{Command, Hello, Report};
use crate::process::{Keys, Plan, RoundFigures, Setup, Times};
use crate::protocol::client::{check_delivery, workload, Client, DeliveryCheck, Outgoing};
use crate::protocol::keys::client_keys;
use crate::protocol::message::body_bytes;
use crate::protocol::tamper::Tamper;
use crate::{Error, NODES};

/// One configuration's run: a group, a number of clients, threads per node, repetitions.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The group.
    pub group: GroupSpec,
    /// Elements per message slot.
    pub width: usize,
    /// Clients, one slot each.
    pub clients: usize,
    /// Worker threads of each node.
    pub threads: usize,
    /// Batches run one after the other.
    pub reps: usize,
    /// The fault injected, if any.
    pub tamper: Option<Tamper>,
    /// The public seed of reproducible inputs; none: the OS's randomness.
    pub seed: Option<Seed>,
    /// Worker threads of the driver that carry the clients.
    pub client_workers: usize,
    /// The executable with the `node` subcommand.
    pub exe: PathBuf,
}

/// What a run produced.
#[derive(Clone, Debug, Default)]
pub struct RunFigures {
    /// `PASSED` (every batch delivered and checked), `DETECTED` (a check fired: the expected
    /// outcome of a tampered run), `FAILED` (a delivery check failed) or `ERROR`.
    pub status: String,
    /// The first error, where the status is `ERROR` or `DETECTED`.
    pub error: Option<String>,
    /// Each node's key set-up, by node.
    pub keys: Vec<Option<Keys>>,
    /// Each node's registration figures, by node.
    pub setup: Vec<Option<Setup>>,
    /// `rounds[rep][node]`.
    pub rounds: Vec<Vec<RoundFigures>>,
    /// The delivery checks, one per batch.
    pub checks: Vec<DeliveryCheck>,
    /// The driver's CPU for the clients' registration (all clients, all nodes) and for
    /// blinding each batch's messages.
    pub clients_registration: Times,
    /// One entry per batch.
    pub clients_blind: Vec<Times>,
    /// The driver process's peak memory.
    pub driver_peak_rss_mib: f64,
    /// The run's wall time.
    pub wall_s: f64,
    /// The run's generated inputs, labelled, in the order they were made: every node's key
    /// share and registration key, every batch's messages (sender, recipient, body).
    pub inputs: Vec<(&'static str, Vec<u8>)>,
}

enum Work {
    Register {
        addrs: Vec<SocketAddr>,
        certs: Vec<CertificateDer<'static>>,
        registration: Vec<Vec<u8>>,
    },
    Send {
        round: u64,
        messages: Vec<Outgoing>,
    },
    Receive,
}

type Delivered = Vec<(u32, u32, Vec<u8>)>;

/// A worker thread's clients.
struct Worker<G: Group> {
    ids: Vec<u32>,
    clients: Vec<(Client, Vec<Link>)>,
    width: usize,
    rng: ChaCha20Rng,
    _g: std::marker::PhantomData<G>,
}

fn worker_loop<G: Group>(
    g: Arc<G>,
    mut w: Worker<G>,
    rx: mpsc::Receiver<Work>,
    tx: mpsc::Sender<Result<Delivered, Error>>,
) {
    let g: &G = &g;
    for work in rx {
        let r = match work {
            Work::Register {
                addrs,
                certs,
                registration,
            } => (|| -> Result<Delivered, Error> {
                let configs: Vec<_> = certs
                    .iter()
                    .map(|c| client_config_without_cert(vec![c.clone()]))
                    .collect::<Result<_, _>>()?;
                let node_pubs: Vec<G::Elem> = registration
                    .iter()
                    .map(|b| g.read_wire(b))
                    .collect::<Result<_, _>>()?;
                for &id in &w.ids {
                    let (a, pub_a) = client_keys(g, &mut w.rng);
                    let mut pub_wire = vec![];
                    g.write_wire(&pub_a, &mut pub_wire);
                    let mut keys = vec![];
                    let mut links = vec![];
                    for i in 0..NODES {
                        let l = connect(addrs[i], configs[i].clone())
                            .map_err(|e| client_error(id, format!("to node {i}"), e))?;
                        l.send_json(&Hello::Client {
                            id,
                            public: hex(&pub_wire),
                        })
                        .and_then(|_| l.recv())
                        .map_err(|e| client_error(id, format!("registering with node {i}"), e))?;
                        keys.push(Client::derive(g, i, id, &a, &pub_a, &node_pubs[i]));
                        links.push(l);
                    }
                    w.clients.push((Client { id, keys }, links));
                }
                Ok(vec![])
            })(),
            Work::Send { round, messages } => (|| -> Result<Delivered, Error> {
                for (m, (c, links)) in messages.iter().zip(w.clients.iter_mut()) {
                    debug_assert_eq!(m.sender, c.id);
                    let wire = c.blind(g, w.width, round, m)?;
                    links[0]
                        .send(&wire)
                        .map_err(|e| client_error(c.id, "sending".into(), e))?;
                }
                Ok(vec![])
            })(),
            Work::Receive => (|| -> Result<Delivered, Error> {
                let mut got = vec![];
                for (c, links) in w.clients.iter_mut() {
                    let f = links[NODES - 1]
                        .recv()
                        .map_err(|e| client_error(c.id, "receiving".into(), e))?;
                    if f.len() < 4 {
                        return Err(Error::ShortFrame(c.id));
                    }
                    let slot = u32::from_le_bytes(f[..4].try_into().expect("4 bytes"));
                    got.push((c.id, slot, f[4..].to_vec()));
                }
                Ok(got)
            })(),
        };
        if tx.send(r).is_err() {
            return;
        }
    }
}

/// A client's failed link, with what the client was doing.
fn client_error(client: u32, doing: String, source: std::io::Error) -> Error {
    Error::Client {
        client,
        doing,
        source,
    }
}

/// Runs one configuration. Never panics on a node's failure: it becomes the status.
pub fn run(cfg: &RunConfig) -> RunFigures {
    let start = std::time::Instant::now();
    let mut figures = RunFigures {
        status: "ERROR".into(),
        keys: vec![None; NODES],
        setup: vec![None; NODES],
        ..Default::default()
    };
    let mut children: Vec<Child> = vec![];
    let r = crate::with_group!(cfg.group, g => drive(g, cfg, &mut children, &mut figures));
    match r {
        Ok(status) => figures.status = status.into(),
        Err(e) => {
            if figures.error.is_none() {
                figures.error = Some(e.to_string());
            }
            if figures.status != "DETECTED" {
                figures.status = "ERROR".into();
            }
        }
    }
    for c in children.iter_mut() {
        if figures.status != "PASSED" {
            let _ = c.kill();
        }
        let _ = c.wait();
    }
    figures.driver_peak_rss_mib = measure::clock::peak_rss_mib();
    figures.wall_s = start.elapsed().as_secs_f64();
    figures
}

/// Reads one report from every node. A node that reports a detected fault makes the run
/// `DETECTED`; the others then lose their connections, which is expected.
fn collect(links: &mut [Link], figures: &mut RunFigures, what: &str) -> Result<Vec<Report>, Error> {
    let mut reports = vec![];
    let mut failures = vec![];
    for (i, l) in links.iter_mut().enumerate() {
        match l.recv_json::<Report>() {
            Ok(Report::Failed(f)) => {
                failures.push(format!(
                    "node {i}: {}",
                    f.error.clone().unwrap_or_else(|| "failed".into())
                ));
                figures.status = "DETECTED".into();
                figures.error = Some(failures.join("; "));
            }
            Ok(r) => reports.push(r),
            Err(e) => failures.push(format!("node {i} ({what}): {e}")),
        }
    }
    if failures.is_empty() {
        Ok(reports)
    } else {
        Err(Error::Nodes(failures))
    }
}

/// One configuration: the nodes started and keyed, the clients registered, the batches run and
/// every delivery checked; returns the status.
fn drive<G: Group>(
    g: G,
    cfg: &RunConfig,
    children: &mut Vec<Child>,
    figures: &mut RunFigures,
) -> Result<&'static str, Error> {
    let me = Identity::generate()?;
    let announced = start_nodes(cfg, &me, children)?;
    let mut links: Vec<Link> = announced
        .iter()
        .map(|(addr, cert)| {
            connect(*addr, client_config(&me, vec![cert.clone()])?).map_err(Error::ConnectNode)
        })
        .collect::<Result<_, _>>()?;
    let registration = keys(cfg, &announced, &mut links, figures)?;
    // One group instance (and one set of MODP tables) for all the client threads.
    let g = Arc::new(g);
    let clients = Clients::start(&g, cfg);
    register(&clients, &announced, registration, &mut links, figures)?;
    let status = batches(g.as_ref(), cfg, &clients, &mut links, figures);
    for l in links.iter_mut() {
        let _ = l.send_json(&Command::Bye);
    }
    clients.stop();
    status
}

/// The three node processes (this executable's `node` subcommand), each announcing its
/// address and certificate on its standard output.
fn start_nodes(
    cfg: &RunConfig,
    me: &Identity,
    children: &mut Vec<Child>,
) -> Result<Vec<(SocketAddr, CertificateDer<'static>)>, Error> {
    let mut announced = vec![];
    for id in 0..NODES {
        let mut child = Proc::new(&cfg.exe)
            .arg("node")
            .args(["--id", &id.to_string()])
            .args(["--threads", &cfg.threads.to_string()])
            .args(["--driver-cert", &cert_to_hex(&me.cert)])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|source| Error::StartNode {
                node: id,
                exe: cfg.exe.clone(),
                source,
            })?;
        let out = child.stdout.take().expect("piped");
        children.push(child);
        let mut line = String::new();
        BufReader::new(out)
            .read_line(&mut line)
            .map_err(|source| Error::Announcement { node: id, source })?;
        let parts: Vec<&str> = line.split_whitespace().collect();
        match parts.as_slice() {
            ["CMIX-NODE", addr, cert] => {
                let addr: SocketAddr = addr.parse().map_err(|_| Error::AnnouncedAddress {
                    node: id,
                    addr: addr.to_string(),
                })?;
                let cert = cert_from_hex(cert).ok_or(Error::AnnouncedCertificate(id))?;
                announced.push((addr, cert));
            }
            _ => return Err(Error::NoAnnouncement { node: id, line }),
        }
    }
    Ok(announced)
}

/// keys: the plan to every node; their key figures, registration keys and key shares back
/// (the keys also go into the run's inputs). Returns the registration keys.
fn keys(
    cfg: &RunConfig,
    announced: &[(SocketAddr, CertificateDer<'static>)],
    links: &mut [Link],
    figures: &mut RunFigures,
) -> Result<Vec<Vec<u8>>, Error> {
    let plan = Plan {
        group: cfg.group.label().into(),
        width: cfg.width,
        clients: cfg.clients,
        peers: announced
            .iter()
            .map(|(a, c)| (a.to_string(), cert_to_hex(c)))
            .collect(),
        tamper: cfg.tamper.map(|t| t.to_string()),
        seed: cfg.seed.map(|s| s.hex()),
    };
    for l in links.iter_mut() {
        l.send_json(&plan)?;
    }
    let mut registration = vec![];
    for (i, r) in collect(links, figures, "keys")?.into_iter().enumerate() {
        match r {
            Report::Keys(k) => {
                let reg = unhex(&k.registration).ok_or(Error::NotHex("a registration key"))?;
                let share = unhex(&k.share).ok_or(Error::NotHex("a key share"))?;
                figures.inputs.push(("node key share", share));
                figures.inputs.push(("node registration key", reg.clone()));
                registration.push(reg);
                figures.keys[i] = Some(*k);
            }
            _ => return Err(unexpected(i, "its keys")),
        }
    }
    Ok(registration)
}

/// The clients, on worker threads of the driver: each worker carries every `workers`-th client.
struct Clients {
    workers: usize,
    to_workers: Vec<mpsc::Sender<Work>>,
    from_workers: mpsc::Receiver<Result<Delivered, Error>>,
    handles: Vec<thread::JoinHandle<()>>,
}

impl Clients {
    fn start<G: Group>(g: &Arc<G>, cfg: &RunConfig) -> Clients {
        let workers = cfg.client_workers.clamp(1, cfg.clients);
        let (tx, from_workers) = mpsc::channel();
        let mut seeder = stream("cmix/clients", cfg.seed.as_ref());
        let mut to_workers = vec![];
        let mut handles = vec![];
        for w in 0..workers {
            let (wtx, wrx) = mpsc::channel();
            to_workers.push(wtx);
            let mut s = [0u8; 32];
            seeder.fill_bytes(&mut s);
            let worker = Worker::<G> {
                ids: (0..cfg.clients as u32)
                    .filter(|j| *j as usize % workers == w)
                    .collect(),
                clients: vec![],
                width: cfg.width,
                rng: ChaCha20Rng::from_seed(s),
                _g: std::marker::PhantomData,
            };
            let tx = tx.clone();
            let gw = Arc::clone(g);
            handles.push(thread::spawn(move || worker_loop(gw, worker, wrx, tx)));
        }
        Clients {
            workers,
            to_workers,
            from_workers,
            handles,
        }
    }

    /// Gives every worker its work (`work(worker)`) and waits for all of them.
    fn ask(&self, work: &dyn Fn(usize) -> Work) -> Result<Vec<Delivered>, Error> {
        for (w, t) in self.to_workers.iter().enumerate() {
            t.send(work(w)).map_err(|_| Error::WorkerStopped)?;
        }
        let mut out = vec![];
        for _ in 0..self.to_workers.len() {
            out.push(
                self.from_workers
                    .recv()
                    .map_err(|_| Error::WorkerStopped)??,
            );
        }
        Ok(out)
    }

    fn stop(self) {
        drop(self.to_workers);
        for h in self.handles {
            let _ = h.join();
        }
    }
}

/// registration: every client connects to every node and registers its key.
fn register(
    clients: &Clients,
    announced: &[(SocketAddr, CertificateDer<'static>)],
    registration: Vec<Vec<u8>>,
    links: &mut [Link],
    figures: &mut RunFigures,
) -> Result<(), Error> {
    for l in links.iter_mut() {
        l.send_json(&Command::Register)?;
    }
    let addrs: Vec<SocketAddr> = announced.iter().map(|a| a.0).collect();
    let certs: Vec<CertificateDer<'static>> = announced.iter().map(|a| a.1.clone()).collect();
    let (reg, t) = measure::clock::timed(|| {
        clients.ask(&|_| Work::Register {
            addrs: addrs.clone(),
            certs: certs.clone(),
            registration: registration.clone(),
        })
    });
    figures.clients_registration = t.into();
    reg?;
    for (i, r) in collect(links, figures, "registration")?
        .into_iter()
        .enumerate()
    {
        match r {
            Report::Setup(s) => figures.setup[i] = Some(*s),
            _ => return Err(unexpected(i, "its registration figures")),
        }
    }
    Ok(())
}

/// `cfg.reps` batches, each with fresh messages; stops at the first whose delivery failed.
fn batches<G: Group>(
    g: &G,
    cfg: &RunConfig,
    clients: &Clients,
    links: &mut [Link],
    figures: &mut RunFigures,
) -> Result<&'static str, Error> {
    let progress = measure::progress::Progress::new(
        &format!(
            "cmix {} clients={} threads={}",
            cfg.group.label(),
            cfg.clients,
            cfg.threads
        ),
        Some("batches"),
        cfg.reps as u64,
    );
    let mut rng = stream("cmix/messages", cfg.seed.as_ref());
    let mut status = "PASSED";
    for rep in 0..cfg.reps {
        let sent = workload(cfg.clients, body_bytes(g, cfg.width), &mut rng);
        for m in &sent {
            let mut item = [m.sender.to_le_bytes(), m.recipient.to_le_bytes()].concat();
            item.extend_from_slice(&m.body);
            figures.inputs.push(("message", item));
        }
        let check = batch(rep as u64 + 1, &sent, cfg, clients, links, figures)?;
        if !(check.exactly_once && check.permuted) {
            status = "FAILED";
            figures.error = Some(check.problems.join("; "));
        }
        figures.checks.push(check);
        progress.inc(1);
        if status != "PASSED" {
            break;
        }
    }
    progress.finish();
    Ok(status)
}

/// One batch: the precomputation at the nodes, the clients' messages sent, the nodes'
/// figures, and what the recipients got, checked against what was sent.
fn batch(
    round: u64,
    sent: &[Outgoing],
    cfg: &RunConfig,
    clients: &Clients,
    links: &mut [Link],
    figures: &mut RunFigures,
) -> Result<DeliveryCheck, Error> {
    for l in links.iter_mut() {
        l.send_json(&Command::Round(round))?;
    }
    for (i, r) in collect(links, figures, "precomputation")?
        .into_iter()
        .enumerate()
    {
        if !matches!(r, Report::Precomputed) {
            return Err(unexpected(i, "the end of its precomputation"));
        }
    }
    let workers = clients.workers;
    let (sentr, t) = measure::clock::timed(|| {
        clients.ask(&|w| Work::Send {
            round,
            messages: sent
                .iter()
                .filter(|m| m.sender as usize % workers == w)
                .cloned()
                .collect(),
        })
    });
    sentr?;
    figures.clients_blind.push(t.into());
    let mut per_node = vec![];
    for (i, r) in collect(links, figures, "real time")?
        .into_iter()
        .enumerate()
    {
        match r {
            Report::Done(f) => per_node.push(*f),
            _ => return Err(unexpected(i, "its batch figures")),
        }
    }
    figures.rounds.push(per_node);
    let got = clients.ask(&|_| Work::Receive)?;
    Ok(received(sent, cfg.clients, got))
}

/// A node's report that is not the one the step expects.
fn unexpected(node: usize, expected: &'static str) -> Error {
    Error::UnexpectedReport { node, expected }
}

/// What the recipients got (client, output slot, body), in output-slot order, checked
/// against what was sent.
fn received(sent: &[Outgoing], slots: usize, got: Vec<Delivered>) -> DeliveryCheck {
    let mut output: Vec<Option<(u32, Vec<u8>)>> = vec![None; slots];
    let mut extra = vec![];
    for (client, slot, body) in got.into_iter().flatten() {
        match output.get_mut(slot as usize) {
            Some(o @ None) => *o = Some((client, body)),
            _ => extra.push(format!(
                "output slot {slot} delivered again (to client {client})"
            )),
        }
    }
    let out: Vec<(u32, Vec<u8>)> = output
        .into_iter()
        .map(|o| o.unwrap_or((u32::MAX, vec![])))
        .collect();
    let mut check = check_delivery(sent, &out);
    if !extra.is_empty() {
        check.exactly_once = false;
        check.problems.extend(extra);
    }
    check
}
