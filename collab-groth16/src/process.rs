//! The party process (`collab-groth16 party`): makes its certificate and trades it for the
//! coordinator's over its pipes, joins the coordinator, loads the public inputs, receives its
//! preprocessing, connects to the other parties, proves, verifies, reports. One function per
//! phase, named after the phase's label in the report ([`PartyFigures`]).

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::time::Duration;

use ark_bn254::{Bn254, Fr};
use ark_groth16::ProvingKey;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use measure::seed::{stream, Seed};
use sha2::{Digest, Sha256};

use zksnark_prover::{snark, R1cs};

use crate::codec::Reader;
use crate::control::{hex, recv_json, send_json, Done, Hello, Notice, Plan};
use crate::dealer::{Material, Shares};
use crate::groth16::check_key;
use crate::identity::{self, cert_from_hex, Certificate, Identity};
use crate::net::{Link, Mesh};
use crate::party::{self, Public};
use crate::qap::Qap;
use crate::report::{timed, PartyFigures};
use crate::tamper::Tamper;
use crate::Error;

/// What the party process is told on its command line.
pub struct PartyArgs {
    /// Where the coordinator accepts the control link.
    pub coordinator: SocketAddr,
    /// This party's id.
    pub id: usize,
    /// The circuit's R1CS file; its SHA-256 must match the coordinator's.
    pub r1cs: PathBuf,
    /// The proving key file; its SHA-256 must match the coordinator's.
    pub pk: PathBuf,
    /// Worker threads (the rayon pool).
    pub threads: usize,
    /// Where this party's mesh listener binds.
    pub listen: SocketAddr,
    /// How long to wait for the coordinator and the other parties.
    pub timeout: Duration,
}

/// What a party reads before the protocol: public, the same for every party.
struct Loaded {
    r1cs: R1cs<Fr>,
    pk: ProvingKey<Bn254>,
    qap: Qap<Fr>,
    /// The public inputs (wires 1..=public), from the coordinator.
    inputs: Vec<Fr>,
}

/// The party process. Returns its figures; the proof (if any) has gone to the coordinator.
pub fn party_main(args: &PartyArgs) -> Result<PartyFigures, Error> {
    let mut figures = PartyFigures {
        id: args.id,
        threads: args.threads,
        outcome: "error".into(),
        ..Default::default()
    };
    let me = identity::generate()?;
    let listener = TcpListener::bind(args.listen)?;
    let coordinator = introduce(args.id, &me)?;
    let (mut link, plan) = join(args, &listener, &me, &coordinator)?;
    let certs = peer_certificates(args.id, &me, &plan)?;
    let (loaded, load) = timed(|| load(&args.r1cs, &args.pk, &plan, &mut link));
    let loaded = loaded?;
    figures.load = load;
    send_json(&mut link, &"loaded")?;
    let tamper = plan.tamper.as_deref().map(Tamper::parse).transpose()?;
    let shares = preprocessing(args.id, &plan, &mut link, tamper, &mut figures)?;
    let (mesh, connect) =
        timed(|| Mesh::establish(args.id, &me, &certs, &plan.peers, &listener, args.timeout));
    let mut mesh = mesh?;
    figures.connect = connect;
    figures.refused_connections = mesh.refused.clone();
    send_json(&mut link, &"ready")?;
    link.recv()?; // go
    let proof = online(
        &plan,
        &loaded,
        &shares,
        &mut mesh,
        &mut link,
        tamper,
        &mut figures,
    )?;
    figures.peak_rss_mib = measure::clock::peak_rss_mib();
    let done = Done {
        figures: figures.clone(),
        proof,
    };
    send_json(&mut link, &Notice::Done(Box::new(done)))?;
    link.recv()?; // bye
    drop(mesh);
    Ok(figures)
}

/// `introduce`: prints this party's line (its id and certificate) on standard output and reads
/// the coordinator's certificate on standard input: the launcher's pipes, the one channel this
/// process trusts before any link is made.
fn introduce(id: usize, me: &Identity) -> Result<Certificate<'static>, Error> {
    identity::write_line(std::io::stdout().lock(), &identity::party_line(id, me))?;
    let line = identity::read_line(
        std::io::stdin().lock(),
        "standard input (the coordinator's certificate)",
    )?;
    identity::parse_coordinator_line(&line)
}

/// Every party's certificate from the plan, by id; this party's must be its own.
fn peer_certificates(
    id: usize,
    me: &Identity,
    plan: &Plan,
) -> Result<Vec<Certificate<'static>>, Error> {
    let certs = plan
        .certs
        .iter()
        .map(|c| cert_from_hex(c))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::Decode("the plan's certificates are not hex".into()))?;
    if certs.len() != plan.parties || plan.peers.len() != plan.parties {
        return Err(Error::Decode(format!(
            "the plan names {} certificates and {} addresses for {} parties",
            certs.len(),
            plan.peers.len(),
            plan.parties
        )));
    }
    if certs.get(id) != Some(&me.cert) {
        return Err(Error::Invalid(format!(
            "the plan gives party {id} a certificate other than this process's"
        )));
    }
    Ok(certs)
}

/// Says hello (id, mesh address) on a link to the coordinator, which must present
/// `coordinator`, and receives the plan.
fn join(
    args: &PartyArgs,
    listener: &TcpListener,
    me: &Identity,
    coordinator: &Certificate<'static>,
) -> Result<(Link, Plan), Error> {
    let mut link = Link::connect(args.coordinator, me, coordinator, args.timeout)?;
    let hello = Hello {
        id: args.id,
        mesh: listener.local_addr()?,
    };
    send_json(&mut link, &hello)?;
    let plan: Plan = recv_json(&mut link, "the coordinator's plan")?;
    Ok((link, plan))
}

/// `load`: reads the R1CS and the proving key, which must be the files the coordinator checked
/// (same SHA-256), checks they belong together, and receives the public inputs. The key's
/// points were validated (on the curve, in the subgroup) by the coordinator; the hash stands
/// for that check here, which would otherwise cost each party seconds of G2 subgroup checks.
fn load(r1cs_path: &Path, pk_path: &Path, plan: &Plan, link: &mut Link) -> Result<Loaded, Error> {
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
    let body = link.recv()?;
    let mut r = Reader::new(&body, "the public inputs");
    let inputs: Vec<Fr> = r.get_vec(r1cs.num_public())?;
    r.finish()?;
    Ok(Loaded {
        r1cs,
        pk,
        qap,
        inputs,
    })
}

/// `preprocessing`: receives the dealer's material and expands it into this party's shares.
fn preprocessing(
    id: usize,
    plan: &Plan,
    link: &mut Link,
    tamper: Option<Tamper>,
    figures: &mut PartyFigures,
) -> Result<Shares<Fr>, Error> {
    let before = link.counters();
    let (shares, phase) = timed(|| -> Result<Shares<Fr>, Error> {
        let material = Material::<Fr>::decode(&link.recv()?)?;
        if material.id != id || material.parties != plan.parties || material.variant != plan.variant
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
    figures.preprocessing.phase = phase;
    figures.preprocessing.bytes_received = link.counters().since(&before).bytes_received;
    shares
}

/// `online`, then `verify`: the proof's steps with the other parties, each step announced to the
/// coordinator; then the ordinary verifier on the opened proof. Returns the proof (compressed,
/// hex) if one was opened; the outcome is in `figures`.
fn online(
    plan: &Plan,
    loaded: &Loaded,
    shares: &Shares<Fr>,
    mesh: &mut Mesh,
    link: &mut Link,
    tamper: Option<Tamper>,
    figures: &mut PartyFigures,
) -> Result<Option<String>, Error> {
    let public = Public {
        r1cs: &loaded.r1cs,
        pk: &loaded.pk,
        qap: &loaded.qap,
        inputs: &loaded.inputs,
    };
    let seed = plan
        .seed
        .as_deref()
        .map(str::parse::<Seed>)
        .transpose()
        .map_err(|e| Error::Invalid(e.to_string()))?;
    let domain = format!(
        "collab-groth16/party/{}/{}/{}",
        plan.variant.name(),
        plan.parties,
        shares.id
    );
    let mut rng = stream(&domain, seed.as_ref());
    let mut last_step = String::new();
    let mut notice_error = None;
    let mut on_step = |label: &str| {
        last_step = label.to_string();
        if let Err(e) = send_json(link, &Notice::Step(label.to_string())) {
            notice_error.get_or_insert(e);
        }
    };
    let (result, phase) =
        timed(|| party::prove(&public, shares, mesh, tamper, &mut rng, &mut on_step));
    if let Some(e) = notice_error {
        return Err(e);
    }
    figures.online.phase = phase;
    figures.online.connection_bytes_received = mesh.counters().bytes_received;
    figures.online.tcp_bytes_received = mesh.kernel_bytes_received();
    let online = match result {
        Ok(online) => online,
        Err(e) => {
            figures.online.net = mesh.counters();
            figures.outcome = match e {
                Error::Abort(_) => "abort",
                _ => "error",
            }
            .into();
            figures.error = Some(format!("in step {last_step}: {e}"));
            return Ok(None);
        }
    };
    figures.online.net = online.net;
    figures.online.steps = online.steps.0;
    let (ok, verify) = timed(|| snark::verify(&loaded.pk.vk, &online.proof, &loaded.inputs));
    figures.verify = verify;
    figures.outcome = if ok? { "proof" } else { "rejected" }.into();
    let mut bytes = Vec::new();
    online
        .proof
        .serialize_compressed(&mut bytes)
        .expect("a proof serialises");
    Ok(Some(hex(&bytes)))
}
