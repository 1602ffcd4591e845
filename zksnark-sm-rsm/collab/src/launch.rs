//! Processes: the coordinator (which owns the witness, acts as the dealer, launches or awaits the
//! parties, and checks the proof) and the party process.
//!
//! Control messages go over one TCP connection between the coordinator and each party, as
//! frames of [`crate::net`]:
//!
//! 1. party -> coordinator: `Hello` (JSON: its id and the address of its mesh listener);
//! 2. coordinator -> party: `Plan` (JSON: parties, variant, every party's mesh address, the
//!    fault to commit if any), then the public inputs (binary);
//! 3. coordinator -> party: the dealer's preprocessing material (binary, [`crate::dealer`]);
//! 4. the parties connect their mesh; party -> coordinator: `Ready`;
//! 5. coordinator -> every party: `Go`, so that online phases start together and no dealing
//!    overlaps them;
//! 6. party -> coordinator: `Done` (JSON: its figures and its proof);
//! 7. coordinator -> every party: `Bye`. Parties keep their mesh connections open until then,
//!    so that no party closes a connection (the kernel counts the FIN as a received byte)
//!    before every party has read its connections' counters.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ark_bn254::{Bn254, Fr};
use ark_groth16::{Proof, ProvingKey};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use measure::seed::{stream, Seed};
use rand_chacha::ChaCha20Rng;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sha2::{Digest, Sha256};

use zksnark_prover::{snark, R1cs};

use crate::codec::{Reader, Writer};
use crate::dealer::{deal, Material, Shares};
use crate::groth16::check_key;
use crate::net::{Link, Mesh};
use crate::party::{self, Public};
use crate::qap::Qap;
use crate::report::{timed, DealerFigures, PartyFigures, Phase, RunReport};
use crate::tamper::Tamper;
use crate::{Error, Variant};

#[derive(Serialize, Deserialize)]
struct Hello {
    id: usize,
    mesh: SocketAddr,
}

#[derive(Serialize, Deserialize)]
struct Plan {
    /// SHA-256 of the R1CS and proving key files the coordinator checked: a party whose files
    /// differ stops, and one whose files match need not re-validate every key point.
    r1cs_sha256: String,
    pk_sha256: String,
    parties: usize,
    variant: Variant,
    peers: Vec<SocketAddr>,
    tamper: Option<String>,
    /// The run's public seed (64 hex digits): the party draws its randomness from it, which is
    /// then not secret. None: the OS's randomness.
    seed: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct Done {
    figures: PartyFigures,
    /// The proof, compressed, in hex.
    proof: Option<String>,
}

fn send_json<T: Serialize>(link: &mut Link, value: &T) -> Result<(), Error> {
    Ok(link.send(&serde_json::to_vec(value).expect("control messages serialise"))?)
}

fn recv_json<T: DeserializeOwned>(link: &mut Link, what: &str) -> Result<T, Error> {
    let body = link.recv()?;
    serde_json::from_slice(&body).map_err(|e| Error::Decode(format!("{what}: {e}")))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    s.len()
        .is_multiple_of(2)
        .then(|| {
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
                .collect()
        })
        .flatten()
}

/// SHA-256 of a file, in hex.
pub fn file_sha256(path: &Path) -> Result<String, Error> {
    let bytes = std::fs::read(path).map_err(|e| zksnark_prover::Error::io(path, e))?;
    Ok(hex(&Sha256::digest(&bytes)))
}

/// Reads the R1CS and the proving key, which must be the files the coordinator checked (same
/// SHA-256), and checks they belong together. The key's points were validated (on the curve,
/// in the subgroup) by the coordinator; the hash stands for that check here, which would
/// otherwise cost each party seconds of G2 subgroup checks.
fn load_inputs(r1cs_path: &Path, pk_path: &Path, plan: &Plan) -> Result<Loaded, Error> {
    let read = |path: &Path, want: &str| -> Result<Vec<u8>, Error> {
        let bytes = std::fs::read(path).map_err(|e| zksnark_prover::Error::io(path, e))?;
        if hex(&Sha256::digest(&bytes)) != want {
            return Err(Error::Invalid(format!(
                "{}: not the file the coordinator uses (SHA-256 differs)",
                path.display()
            )));
        }
        Ok(bytes)
    };
    let r1cs = R1cs::<Fr>::parse(r1cs_path, &read(r1cs_path, &plan.r1cs_sha256)?)?;
    let bytes = read(pk_path, &plan.pk_sha256)?;
    let pk =
        ProvingKey::<Bn254>::deserialize_with_mode(bytes.as_slice(), Compress::No, Validate::No)
            .map_err(|e| {
                zksnark_prover::Error::format(pk_path, format!("not a Groth16 proving key: {e}"))
            })?;
    let qap = Qap::new(&r1cs)?;
    check_key(&r1cs, &pk, &qap)?;
    Ok(Loaded { r1cs, pk, qap })
}

/// What a party reads before the protocol: public, the same for every party.
struct Loaded {
    r1cs: R1cs<Fr>,
    pk: ProvingKey<Bn254>,
    qap: Qap<Fr>,
}

/// What the party process is told on its command line.
pub struct PartyArgs {
    pub coordinator: SocketAddr,
    pub id: usize,
    pub r1cs: PathBuf,
    pub pk: PathBuf,
    pub threads: usize,
    pub listen: SocketAddr,
    pub timeout: Duration,
}

/// The party process. Returns its figures; the proof (if any) has gone to the coordinator.
pub fn party_main(args: &PartyArgs) -> Result<PartyFigures, Error> {
    let mut figures = PartyFigures {
        id: args.id,
        threads: args.threads,
        outcome: "error".into(),
        ..Default::default()
    };
    let listener = TcpListener::bind(args.listen)?;
    let mut link = Link::connect(args.coordinator, args.timeout)?;
    send_json(
        &mut link,
        &Hello {
            id: args.id,
            mesh: listener.local_addr()?,
        },
    )?;
    let plan: Plan = recv_json(&mut link, "the coordinator's plan")?;
    let (loaded, load) = timed(|| load_inputs(&args.r1cs, &args.pk, &plan));
    let Loaded { r1cs, pk, qap } = loaded?;
    figures.load = load;
    let body = link.recv()?;
    let mut r = Reader::new(&body, "the public inputs");
    let inputs: Vec<Fr> = r.get_vec(r1cs.num_public())?;
    r.finish()?;
    let tamper = plan.tamper.as_deref().map(Tamper::parse).transpose()?;

    // Preprocessing: receive the dealer's material and expand it.
    let before = link.counters;
    let (shares, preprocessing) = timed(|| -> Result<Shares<Fr>, Error> {
        let material = Material::<Fr>::decode(&link.recv()?)?;
        if material.id != args.id
            || material.parties != plan.parties
            || material.variant != plan.variant
        {
            return Err(Error::Decode(
                "the dealer's material is for another party or run".into(),
            ));
        }
        let mut shares = Shares::expand(&material);
        if let Some(t) = tamper {
            t.apply_to_shares(&mut shares)?;
        }
        Ok(shares)
    });
    let shares = shares?;
    figures.preprocessing.phase = preprocessing;
    figures.preprocessing.bytes_received = link.counters.since(&before).bytes_received;

    let (mesh, connect) = timed(|| Mesh::establish(args.id, &plan.peers, &listener, args.timeout));
    let mut mesh = mesh?;
    figures.connect = connect;
    send_json(&mut link, &"ready")?;
    link.recv()?; // Go

    let public = Public {
        r1cs: &r1cs,
        pk: &pk,
        qap: &qap,
        inputs: &inputs,
    };
    let seed = plan
        .seed
        .as_deref()
        .map(str::parse::<Seed>)
        .transpose()
        .map_err(Error::Invalid)?;
    let mut rng = stream(
        &format!(
            "collab-groth16/party/{}/{}/{}",
            plan.variant.name(),
            plan.parties,
            args.id
        ),
        seed.as_ref(),
    );
    let (online, phase) = timed(|| party::prove(&public, &shares, &mut mesh, tamper, &mut rng));
    figures.online.phase = phase;
    figures.online.connection_bytes_received = mesh.counters.bytes_received;
    figures.online.tcp_bytes_received = mesh.kernel_bytes_received();
    let mut proof_hex = None;
    match online {
        Ok(online) => {
            figures.online.net = online.net;
            figures.online.steps = online.steps.0;
            let (ok, verify) = timed(|| snark::verify(&pk.vk, &online.proof, &inputs));
            figures.verify = verify;
            figures.outcome = if ok? { "proof" } else { "rejected" }.into();
            let mut bytes = Vec::new();
            online
                .proof
                .serialize_compressed(&mut bytes)
                .expect("a proof serialises");
            proof_hex = Some(hex(&bytes));
        }
        Err(e) => {
            figures.online.net = mesh.counters;
            figures.outcome = match e {
                Error::Abort(_) => "abort",
                _ => "error",
            }
            .into();
            figures.error = Some(e.to_string());
        }
    }
    figures.peak_rss_mib = measure::clock::peak_rss_mib();
    send_json(
        &mut link,
        &Done {
            figures: figures.clone(),
            proof: proof_hex,
        },
    )?;
    link.recv()?; // Bye
    drop(mesh);
    Ok(figures)
}

/// How the coordinator reaches its parties.
pub struct Launch {
    /// Start the party processes itself (this executable's `party` subcommand), or wait for
    /// parties started by hand.
    pub spawn: bool,
    /// Where the coordinator listens (port 0: any free port).
    pub listen: SocketAddr,
    pub r1cs: PathBuf,
    pub pk: PathBuf,
    /// [`file_sha256`] of the two files.
    pub r1cs_sha256: String,
    pub pk_sha256: String,
    pub threads: usize,
    pub timeout: Duration,
    pub tamper: Option<Tamper>,
    /// The run's public seed: the dealer's and the parties' randomness are drawn from it (and
    /// are then not secret). None: the OS's randomness.
    pub seed: Option<Seed>,
}

/// The coordinator's inputs for one collaborative run.
pub struct Statement<'a> {
    pub r1cs: &'a R1cs<Fr>,
    pub pk: &'a ProvingKey<Bn254>,
    pub qap: &'a Qap<Fr>,
    /// The full assignment, wire order.
    pub w: &'a [Fr],
}

/// Runs `parties` parties in `variant` and reports; never fails: a failure becomes the run's
/// status, with the error.
pub fn run_collaborative(
    launch: &Launch,
    statement: &Statement,
    parties: usize,
    variant: Variant,
) -> RunReport {
    let mut report = RunReport {
        variant,
        security_model: variant.security_model().into(),
        parties,
        topology: "mesh".into(),
        status: "ERROR".into(),
        error: None,
        dealer: DealerFigures::default(),
        per_party: vec![],
        summary: serde_json::Value::Null,
        dealt_sha256: String::new(),
        operations: crate::report::operations(
            statement.r1cs.n_wires,
            statement.r1cs.n_wires - statement.qap.inputs(),
            statement.qap.size(),
            Some(variant),
        ),
    };
    let mut children: Vec<Child> = vec![];
    let outcome = coordinate(
        launch,
        statement,
        parties,
        variant,
        &mut children,
        &mut report,
    );
    if outcome.is_err() {
        for c in &mut children {
            let _ = c.kill();
        }
    }
    for c in &mut children {
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
    let listener = TcpListener::bind(launch.listen)?;
    let addr = listener.local_addr()?;
    if launch.spawn {
        let exe = std::env::current_exe()?;
        for id in 0..m {
            let child = Command::new(&exe)
                .arg("party")
                .args(["--coordinator", &addr.to_string()])
                .args(["--id", &id.to_string()])
                .arg("--r1cs")
                .arg(&launch.r1cs)
                .arg("--pk")
                .arg(&launch.pk)
                .args(["--threads", &launch.threads.to_string()])
                .args(["--timeout", &launch.timeout.as_secs().to_string()])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()?;
            children.push(child);
        }
    } else {
        eprintln!(
            "collab-groth16: waiting for {m} parties ({}) on {addr}: start each with \
             `collab-groth16 party --coordinator {addr} --id J --r1cs {} --pk {} --threads {}`",
            variant.name(),
            launch.r1cs.display(),
            launch.pk.display(),
            launch.threads
        );
    }
    let streams = accept_parties(&listener, m, children, launch.timeout)?;
    let mut links: Vec<Option<Link>> = (0..m).map(|_| None).collect();
    let mut peers = vec![addr; m];
    for stream in streams {
        let mut link = Link::new(stream, launch.timeout)?;
        let hello: Hello = recv_json(&mut link, "a party's hello")?;
        if hello.id >= m || links[hello.id].is_some() {
            return Err(Error::Invalid(format!(
                "a party claims id {}, but the ids are 0..{m}, each once",
                hello.id
            )));
        }
        peers[hello.id] = hello.mesh;
        links[hello.id] = Some(link);
    }
    let mut links: Vec<Link> = links
        .into_iter()
        .map(|l| l.expect("all ids seen"))
        .collect();
    let inputs = st.r1cs.public_inputs(st.w);
    let mut w = Writer::new();
    w.put(&inputs);
    let inputs_body = w.finish();
    for link in &mut links {
        send_json(
            link,
            &Plan {
                r1cs_sha256: launch.r1cs_sha256.clone(),
                pk_sha256: launch.pk_sha256.clone(),
                parties: m,
                variant,
                peers: peers.clone(),
                tamper: launch.tamper.map(|t| t.to_string()),
                seed: launch.seed.map(|s| s.hex()),
            },
        )?;
        link.send(&inputs_body)?;
    }

    // Preprocessing, on the dealer's side: deal, encode, send.
    let before: Vec<_> = links.iter().map(|l| l.counters).collect();
    let (dealt, dealer) = timed(|| -> Result<Vec<u8>, Error> {
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
    report.dealer.phase = dealer;
    report.dealer.bytes_sent_per_party = links
        .iter()
        .zip(&before)
        .map(|(l, b)| l.counters.since(b).bytes_sent)
        .collect();
    report.dealer.bytes_sent = report.dealer.bytes_sent_per_party.iter().sum();

    for link in &mut links {
        let _: String = recv_json(link, "a party's ready")?;
    }
    for link in &mut links {
        link.send(b"go")?;
    }
    let mut proofs = vec![];
    for link in &mut links {
        let done: Done = recv_json(link, "a party's result")?;
        report.per_party.push(done.figures);
        proofs.push(done.proof);
    }
    for link in &mut links {
        link.send(b"bye")?;
    }

    let outcomes: Vec<&str> = report
        .per_party
        .iter()
        .map(|p| p.outcome.as_str())
        .collect();
    if let Some(p) = report.per_party.iter().find(|p| p.outcome == "error") {
        return Err(Error::Invalid(format!(
            "party {}: {}",
            p.id,
            p.error.as_deref().unwrap_or("failed")
        )));
    }
    if outcomes.contains(&"abort") {
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
    Ok(if snark::verify(&st.pk.vk, &proof, &inputs)? {
        "PASSED"
    } else {
        "FAILED"
    })
}

/// Accepts `m` connections, watching the spawned children: one that exits early is an error
/// at once, not a wait until the timeout.
fn accept_parties(
    listener: &TcpListener,
    m: usize,
    children: &mut [Child],
    timeout: Duration,
) -> Result<Vec<TcpStream>, Error> {
    listener.set_nonblocking(true)?;
    let start = Instant::now();
    let mut streams = vec![];
    while streams.len() < m {
        match listener.accept() {
            Ok((s, _)) => {
                s.set_nonblocking(false)?;
                streams.push(s);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                for (id, c) in children.iter_mut().enumerate() {
                    if let Some(status) = c.try_wait()? {
                        return Err(Error::Invalid(format!(
                            "party {id} exited ({status}) before joining"
                        )));
                    }
                }
                if start.elapsed() > timeout {
                    return Err(Error::Invalid(format!(
                        "only {} of {m} parties joined within {} s",
                        streams.len(),
                        timeout.as_secs()
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(streams)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        let b = vec![0u8, 1, 171, 255];
        assert_eq!(unhex(&hex(&b)).unwrap(), b);
        assert!(unhex("abc").is_none());
        assert!(unhex("zz").is_none());
    }
}
