//! The coordinator: it owns the witness, acts as the dealer, launches (or awaits) the parties,
//! follows their online steps and checks the proof. The control protocol is in
//! [`crate::control`]; the party's side in [`crate::process`].
//!
//! **Where everything runs.** The run's emulated network ([`netem`]) has one slot per party and
//! one more, the last, for the coordinator: each party process is started in its own slot
//! (under profile `none`, on a loopback address of its own), and the coordinator listens in
//! its slot, so the dealer's material and the control messages cross the same links as the
//! parties' openings. The delay line of an emulated network is a thread of this process: its
//! CPU time is taken out of the dealer's.
//!
//! **Who is who.** The coordinator makes a fresh certificate for every run, and so does every
//! party process; they learn each other's over the pipes between the coordinator and the
//! processes it starts (or, with `--no-spawn`, the pipes of whoever starts them), and every
//! link is TLS 1.3 with both certificates pinned ([`crate::identity`], [`crate::net`]). A party's
//! id is the one its certificate was given for: a process that connects first, or claims an id,
//! gets nothing.
//!
//! One function per step of a run, named after its label in the report: `introduce` (the
//! certificates over the pipes), `join` (the parties connect and say hello), `plan`, `loaded`,
//! `dealer`, `go`, `online` (following each party's steps), `bye`, and the verdict.

use std::io::BufReader;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ark_bn254::{Bn254, Fr};
use ark_groth16::{Proof, ProvingKey};
use ark_serialize::CanonicalDeserialize;
use measure::seed::{stream, Seed};
use netem::Network;
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};

use zksnark_prover::{snark, R1cs};

use crate::codec::Writer;
use crate::control::{hex, recv_json, send_json, unhex, Done, Hello, Notice, Plan};
use crate::dealer::deal;
use crate::identity::{self, cert_to_hex, Certificate, Identity};
use crate::net::{accept_links, Awaited, Link};
use crate::party::STEP_LABELS;
use crate::qap::Qap;
use crate::report::{timed, DealerFigures, Failure, PartyFigures, Phase, RunReport};
use crate::tamper::Tamper;
use crate::{Error, Variant};

/// A fault test: the coordinator kills party `party`'s process (SIGKILL) as the party starts
/// the online step `step`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kill {
    /// The id of the party to kill.
    pub party: usize,
    /// The label of the online step ([`STEP_LABELS`]) at whose start it is killed.
    pub step: String,
}

impl Kill {
    /// `PARTY:STEP`, STEP one of the online steps' labels.
    pub fn parse(s: &str) -> Result<Kill, Error> {
        let bad = || {
            Error::Invalid(format!(
                "--kill-party {s:?}: expected PARTY:STEP, STEP one of {}",
                STEP_LABELS.join(", ")
            ))
        };
        let (party, step) = s.split_once(':').ok_or_else(bad)?;
        let party = party.parse().map_err(|_| bad())?;
        if !STEP_LABELS.contains(&step) {
            return Err(bad());
        }
        Ok(Kill {
            party,
            step: step.into(),
        })
    }
}

impl std::fmt::Display for Kill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.party, self.step)
    }
}

/// How the coordinator reaches its parties.
pub struct Launch {
    /// Start the party processes itself (this executable's `party` subcommand), or wait for
    /// parties started by hand on `listen` (profile `none` only).
    pub spawn: bool,
    /// Where the coordinator accepts its parties' control links.
    pub listen: SocketAddr,
    /// The run's network: a slot per party of the largest run, and the coordinator's, last.
    pub network: Network,
    /// The circuit's R1CS file (circom's `.r1cs`).
    pub r1cs: PathBuf,
    /// The Groth16 proving key file the parties prove with.
    pub pk: PathBuf,
    /// [`crate::control::file_sha256`] of the two files.
    pub r1cs_sha256: String,
    /// See `r1cs_sha256`.
    pub pk_sha256: String,
    /// Worker threads of each party process (its rayon pool).
    pub threads: usize,
    /// How long the coordinator and the parties wait for each other before giving up.
    pub timeout: Duration,
    /// A fault one party commits, for a negative test.
    pub tamper: Option<Tamper>,
    /// A party process to kill mid-run, for a fault test.
    pub kill: Option<Kill>,
    /// The run's public seed: the dealer's and the parties' randomness are drawn from it (and
    /// are then not secret). None: the OS's randomness.
    pub seed: Option<Seed>,
}

impl Launch {
    /// The coordinator's slot in the network.
    fn slot(&self) -> usize {
        self.network.parties() - 1
    }

    /// The one-way delay a message pays on the network, in seconds.
    pub fn one_way_delay_s(&self) -> f64 {
        self.network
            .profile()
            .link
            .map_or(0.0, |l| l.one_way_delay().as_secs_f64())
    }
}

/// The coordinator's inputs for one collaborative run.
pub struct Statement<'a> {
    /// The circuit.
    pub r1cs: &'a R1cs<Fr>,
    /// Its proving key (and verifying key, to check the joint proof).
    pub pk: &'a ProvingKey<Bn254>,
    /// The circuit's QAP: where the private wires begin, and the domain size (one Beaver
    /// triple per domain point, and one for `r s`).
    pub qap: &'a Qap<Fr>,
    /// The full assignment, wire order.
    pub w: &'a [Fr],
}

/// Runs `parties` parties in `variant` and reports; never fails: a failure becomes the run's
/// status, with the error. Every party process has ended when it returns.
pub fn run_collaborative(
    launch: &Launch,
    statement: &Statement,
    parties: usize,
    variant: Variant,
) -> RunReport {
    let mut report = RunReport::new(
        variant,
        parties,
        crate::report::operations(
            statement.r1cs.n_wires,
            statement.r1cs.n_wires - statement.qap.inputs(),
            statement.qap.size(),
            Some(variant),
        ),
    );
    let mut children: Vec<Child> = vec![];
    let outcome = coordinate(
        launch,
        statement,
        parties,
        variant,
        &mut children,
        &mut report,
    );
    for c in &mut children {
        if outcome.is_err() {
            let _ = c.kill();
        }
        let _ = c.wait();
    }
    match outcome {
        Ok(status) => report.status = status.into(),
        Err(e) => report.error = Some(e.to_string()),
    }
    report
}

fn coordinate(
    launch: &Launch,
    st: &Statement,
    m: usize,
    variant: Variant,
    children: &mut Vec<Child>,
    report: &mut RunReport,
) -> Result<&'static str, Error> {
    let me = identity::generate()?;
    let listener = listen(launch)?;
    let addr = listener.local_addr()?;
    start_parties(launch, m, variant, addr, children)?;
    let certs = introduce(launch, m, &me, children)?;
    let (mut links, peers) = join(launch, &listener, &me, &certs, children, report)?;
    let inputs = st.r1cs.public_inputs(st.w);
    plan(launch, &mut links, variant, &peers, &certs, &inputs)?;
    loaded(&mut links)?;
    dealer(launch, st, variant, &mut links, report)?;
    go(&mut links)?;
    let (mut links, ends) = online(links, children, launch.kill.as_ref());
    let mut proofs = vec![];
    let mut lost = vec![];
    for (j, end) in ends.into_iter().enumerate() {
        match end {
            End::Done(done) => {
                report.per_party.push(done.figures);
                proofs.push(done.proof);
            }
            End::Lost(failure) => {
                report.per_party.push(PartyFigures {
                    id: j,
                    threads: launch.threads,
                    outcome: "lost".into(),
                    error: Some(failure.to_string()),
                    ..Default::default()
                });
                lost.push(failure);
            }
        }
    }
    bye(&mut links, &report.per_party)?;
    verdict(st, &inputs, &proofs, lost, report)
}

/// Where the coordinator listens: in its slot of the network (port chosen by the system), or on
/// `--listen` for parties started by hand.
fn listen(launch: &Launch) -> Result<TcpListener, Error> {
    if !launch.spawn {
        return Ok(TcpListener::bind(launch.listen)?);
    }
    let ip = launch.network.ip(launch.slot());
    Ok(launch
        .network
        .run_in(launch.slot(), move || TcpListener::bind((ip, 0)))??)
}

/// Starts the `m` party processes, each in its slot of the network; or says how to start them.
fn start_parties(
    launch: &Launch,
    m: usize,
    variant: Variant,
    addr: SocketAddr,
    children: &mut Vec<Child>,
) -> Result<(), Error> {
    if !launch.spawn {
        eprintln!(
            "collab-groth16: waiting for {m} parties ({}) on {addr}: start each with \
             `collab-groth16 party --coordinator {addr} --id J --r1cs {} --pk {} --threads {}`; \
             give each party the `coordinator` line this program prints on its standard output, \
             and give this program each party's `party J` line on its standard input",
            variant.name(),
            launch.r1cs.display(),
            launch.pk.display(),
            launch.threads
        );
        return Ok(());
    }
    let exe = std::env::current_exe()?;
    for id in 0..m {
        let child = launch
            .network
            .command(id, &exe)?
            .arg("party")
            .args(["--coordinator", &addr.to_string()])
            .args(["--id", &id.to_string()])
            .args([
                "--listen",
                &SocketAddr::new(launch.network.ip(id), 0).to_string(),
            ])
            .arg("--r1cs")
            .arg(&launch.r1cs)
            .arg("--pk")
            .arg(&launch.pk)
            .args(["--threads", &launch.threads.to_string()])
            .args(["--timeout", &launch.timeout.as_secs().to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        children.push(child);
    }
    Ok(())
}

/// `introduce`: every party's certificate, by id, and the coordinator's to every party, over
/// the pipes: the children's (party `j`'s line must come out of process `j`'s own standard
/// output) or, with `--no-spawn`, this program's own standard input and output.
fn introduce(
    launch: &Launch,
    m: usize,
    me: &Identity,
    children: &mut [Child],
) -> Result<Vec<Certificate<'static>>, Error> {
    let line = identity::coordinator_line(me);
    if !launch.spawn {
        identity::write_line(std::io::stdout().lock(), &line)?;
        let mut stdin = std::io::stdin().lock();
        let mut certs: Vec<Option<Certificate<'static>>> = vec![None; m];
        for _ in 0..m {
            let what = "standard input (the parties' `party J` lines)";
            let (j, cert) =
                identity::parse_party_line(&identity::read_line(&mut stdin, what)?, what)?;
            if j >= m || certs[j].is_some() {
                return Err(Error::Invalid(format!(
                    "{what}: party {j}'s line, but the ids are 0..{m}, each once"
                )));
            }
            certs[j] = Some(cert);
        }
        return Ok(certs
            .into_iter()
            .map(|c| c.expect("every id seen"))
            .collect());
    }
    let mut certs = vec![];
    for (id, child) in children.iter_mut().enumerate() {
        let what = format!("party {id}'s standard output");
        let out = child
            .stdout
            .take()
            .expect("the parties' standard output is piped");
        let (j, cert) =
            identity::parse_party_line(&identity::read_line(BufReader::new(out), &what)?, &what)?;
        if j != id {
            return Err(Error::Invalid(format!("{what}: the line of party {j}")));
        }
        certs.push(cert);
    }
    for child in children.iter_mut() {
        let stdin = child
            .stdin
            .take()
            .expect("the parties' standard input is piped");
        identity::write_line(stdin, &line)?;
    }
    Ok(certs)
}

/// `join`: accepts one link from each of the `m` parties, each known by its certificate (a
/// connection with any other is refused and recorded in the report), watching the spawned
/// children: one that exits early is an error at once, not a wait until the timeout. Reads
/// their hellos; returns their links and mesh addresses, by id.
fn join(
    launch: &Launch,
    listener: &TcpListener,
    me: &Identity,
    certs: &[Certificate<'static>],
    children: &mut [Child],
    report: &mut RunReport,
) -> Result<(Vec<Link>, Vec<SocketAddr>), Error> {
    let awaited: Vec<Option<Certificate<'static>>> = certs.iter().cloned().map(Some).collect();
    let mut watch = || -> Result<(), Error> {
        for (id, c) in children.iter_mut().enumerate() {
            if let Some(status) = c.try_wait()? {
                return Err(Error::Invalid(format!(
                    "party {id} exited ({status}) before joining"
                )));
            }
        }
        Ok(())
    };
    let (mut links, refused) = accept_links(
        Awaited {
            listener,
            config: identity::server_config(me, certs.to_vec())?,
            certs: &awaited,
            who: "party",
            timeout: launch.timeout,
        },
        &mut watch,
    )?;
    report.refused_connections = refused;
    let mut peers = vec![];
    for (j, link) in links.iter_mut().enumerate() {
        let hello: Hello = recv_json(link, "a party's hello")?;
        if hello.id != j {
            return Err(Error::Invalid(format!(
                "the process with party {j}'s certificate says it is party {}",
                hello.id
            )));
        }
        peers.push(hello.mesh);
    }
    Ok((links, peers))
}

/// `plan`: every party learns the run (parties, variant, peers, fault, seed) and the public
/// inputs.
fn plan(
    launch: &Launch,
    links: &mut [Link],
    variant: Variant,
    peers: &[SocketAddr],
    certs: &[Certificate<'static>],
    inputs: &[Fr],
) -> Result<(), Error> {
    let mut w = Writer::new();
    w.put(inputs);
    let inputs_body = w.finish();
    for link in links.iter_mut() {
        send_json(
            link,
            &Plan {
                r1cs_sha256: launch.r1cs_sha256.clone(),
                pk_sha256: launch.pk_sha256.clone(),
                parties: peers.len(),
                variant,
                peers: peers.to_vec(),
                certs: certs.iter().map(|c| cert_to_hex(c)).collect(),
                tamper: launch.tamper.map(|t| t.to_string()),
                seed: launch.seed.map(|s| s.hex()),
            },
        )?;
        link.send(&inputs_body)?;
    }
    Ok(())
}

/// `loaded`: waits until every party has read its plan and inputs and loaded its files, so that
/// nothing the dealer sends is in flight while a party reads what came before it: a TLS link
/// reads ahead, and each phase's bytes would otherwise blur into the phase before it.
fn loaded(links: &mut [Link]) -> Result<(), Error> {
    for (j, link) in links.iter_mut().enumerate() {
        let _: String = recv_json(link, "a party's loaded")
            .map_err(|e| Error::Invalid(format!("party {j} before its preprocessing: {e}")))?;
    }
    Ok(())
}

/// `dealer`: deals every party's preprocessing material, encodes and sends it. Its CPU time
/// excludes the delay line's (a thread of this process).
fn dealer(
    launch: &Launch,
    st: &Statement,
    variant: Variant,
    links: &mut [Link],
    report: &mut RunReport,
) -> Result<(), Error> {
    let m = links.len();
    let before: Vec<_> = links.iter().map(|l| l.counters()).collect();
    let delay_cpu = || {
        launch
            .network
            .delay_stats()
            .map_or(0.0, |d| d.cpu.as_secs_f64())
    };
    let delay_before = delay_cpu();
    let (dealt, phase) = timed(|| -> Result<Vec<u8>, Error> {
        let mut rng = stream(
            &format!("collab-groth16/dealer/{}/{m}", variant.name()),
            launch.seed.as_ref(),
        );
        let materials = deal(
            &st.w[st.qap.inputs()..],
            st.qap.size() + 1,
            m,
            variant,
            &mut rng,
        );
        let mut digest = Sha256::new();
        for (link, material) in links.iter_mut().zip(&materials) {
            let bytes = material.encode();
            digest.update(&bytes);
            link.send(&bytes)?;
        }
        Ok(digest.finalize().to_vec())
    });
    report.dealt_sha256 = hex(&dealt?);
    report.dealer = DealerFigures::new(phase, delay_cpu() - delay_before);
    report.dealer.bytes_sent_per_party = links
        .iter()
        .zip(&before)
        .map(|(l, b)| l.counters().since(b).bytes_sent)
        .collect();
    report.dealer.bytes_sent = report.dealer.bytes_sent_per_party.iter().sum();
    Ok(())
}

/// `go`: waits until every party has its shares and its mesh, then starts them together.
fn go(links: &mut [Link]) -> Result<(), Error> {
    for (j, link) in links.iter_mut().enumerate() {
        let _: String = recv_json(link, "a party's ready")
            .map_err(|e| Error::Invalid(format!("party {j} before its online phase: {e}")))?;
    }
    for link in links.iter_mut() {
        link.send(b"go")?;
    }
    Ok(())
}

/// How a party's online phase ended, as the coordinator saw it.
enum End {
    Done(Box<Done>),
    Lost(Failure),
}

enum Event {
    Step(String),
    Done(Box<Done>),
    Lost(String),
}

/// `online`: follows every party's step notices until its figures arrive, or its connection
/// ends (a party that dies; killed here as `kill` says). Returns the links and how each ended.
fn online(links: Vec<Link>, children: &mut [Child], kill: Option<&Kill>) -> (Vec<Link>, Vec<End>) {
    let (tx, rx) = mpsc::channel();
    let readers: Vec<_> = links
        .into_iter()
        .enumerate()
        .map(|(j, mut link)| {
            let tx = tx.clone();
            std::thread::spawn(move || loop {
                let event = match recv_json::<Notice>(&mut link, "a party's notice") {
                    Ok(Notice::Step(label)) => Event::Step(label),
                    Ok(Notice::Done(done)) => Event::Done(done),
                    Err(e) => Event::Lost(e.to_string()),
                };
                let last = !matches!(event, Event::Step(_));
                let _ = tx.send((j, event));
                if last {
                    return link;
                }
            })
        })
        .collect();
    drop(tx);
    let m = readers.len();
    let mut steps: Vec<Option<String>> = vec![None; m];
    let mut ends: Vec<Option<End>> = (0..m).map(|_| None).collect();
    for (j, event) in rx {
        match event {
            Event::Step(label) => {
                if kill.is_some_and(|k| k.party == j && k.step == label) {
                    if let Some(child) = children.get_mut(j) {
                        let _ = child.kill();
                    }
                }
                steps[j] = Some(label);
            }
            Event::Done(done) => ends[j] = Some(End::Done(done)),
            Event::Lost(error) => {
                ends[j] = Some(End::Lost(Failure {
                    party: j,
                    step: steps[j].clone(),
                    cause: exit_cause(children.get_mut(j), &error),
                }))
            }
        }
    }
    let links = readers
        .into_iter()
        .map(|r| r.join().expect("a reader thread does not panic"))
        .collect();
    let ends = ends
        .into_iter()
        .map(|e| e.expect("every reader ends with the party's figures or its loss"))
        .collect();
    (links, ends)
}

/// Why a party's connection ended: how its process ended, if it was ours and has ended within
/// two seconds; otherwise the connection's error.
fn exit_cause(child: Option<&mut Child>, error: &str) -> String {
    let Some(child) = child else {
        return format!("its connection ended ({error})");
    };
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline {
        match child.try_wait() {
            Ok(Some(status)) => {
                use std::os::unix::process::ExitStatusExt;
                return match status.signal() {
                    Some(sig) => format!("its process was killed (signal {sig})"),
                    None => format!("its process exited ({status})"),
                };
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break,
        }
    }
    format!("its connection ended ({error})")
}

/// `bye`: releases the parties that reported (they hold their mesh open until then).
fn bye(links: &mut [Link], parties: &[PartyFigures]) -> Result<(), Error> {
    for (link, p) in links.iter_mut().zip(parties) {
        if p.outcome != "lost" {
            link.send(b"bye")?;
        }
    }
    Ok(())
}

/// The run's status: FAILED if a party was lost, aborted, or the parties' proofs differ or do
/// not verify; an error if a party failed otherwise.
fn verdict(
    st: &Statement,
    inputs: &[Fr],
    proofs: &[Option<String>],
    lost: Vec<Failure>,
    report: &mut RunReport,
) -> Result<&'static str, Error> {
    if let Some(first) = lost.into_iter().next() {
        report.error = Some(first.to_string());
        report.failure = Some(first);
        return Ok("FAILED");
    }
    if let Some(p) = report.per_party.iter().find(|p| p.outcome == "error") {
        return Err(Error::Invalid(format!(
            "party {}: {}",
            p.id,
            p.error.as_deref().unwrap_or("failed")
        )));
    }
    if report.per_party.iter().any(|p| p.outcome == "abort") {
        report.error = report.per_party.iter().find_map(|p| p.error.clone());
        return Ok("FAILED");
    }
    // Every party must output the same proof, and the ordinary verifier must accept it.
    let first = proofs[0].clone();
    if proofs.iter().any(|p| *p != first) {
        report.error = Some("the parties output different proofs".into());
        return Ok("FAILED");
    }
    let bytes = first
        .as_deref()
        .and_then(unhex)
        .ok_or_else(|| Error::Decode("a party's proof is not hex".into()))?;
    let proof = Proof::<Bn254>::deserialize_compressed(bytes.as_slice())
        .map_err(|e| Error::Decode(format!("the parties' proof: {e}")))?;
    Ok(if snark::verify(&st.pk.vk, &proof, inputs)? {
        "PASSED"
    } else {
        "FAILED"
    })
}

/// The single prover the comparison is against: `zksnark_prover`'s Groth16 prove on the same
/// files, with the same thread pool, its randomness from `rng`. Returns its phase and whether
/// its proof verifies.
pub fn single_prover(st: &Statement, rng: &mut ChaCha20Rng) -> Result<(Phase, bool), Error> {
    let (proof, phase) = timed(|| snark::prove(st.r1cs, st.w, st.pk, rng));
    let ok = snark::verify(&st.pk.vk, &proof?, &st.r1cs.public_inputs(st.w))?;
    Ok((phase, ok))
}

/// The single-party prover built from the parties' own pieces ([`crate::plain`]).
pub fn local_prover(st: &Statement, rng: &mut ChaCha20Rng) -> Result<(Phase, bool), Error> {
    use ark_ff::UniformRand;
    let (r, s) = (Fr::rand(rng), Fr::rand(rng));
    let (proof, phase) = timed(|| crate::plain::prove(st.r1cs, st.w, st.pk, r, s));
    let ok = snark::verify(&st.pk.vk, &proof?, &st.r1cs.public_inputs(st.w))?;
    Ok((phase, ok))
}
