//! `collab-groth16`: m parties, each its own process, jointly prove a circom-format R1CS and
//! witness with Groth16 over additive shares of the witness. `run` coordinates (and compares
//! with the single prover in the same invocation); `party` is one party.
//!
//! Exit codes: 0 every run's proof verified; 1 a run failed (the proof does not verify, or the
//! malicious variant aborted, or a party failed; the report is written); 2 bad input (nothing
//! was run, no report).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use ark_bn254::{Bn254, Fr};
use ark_groth16::ProvingKey;
use ark_serialize::Compress;
use clap::{Args, Parser, Subcommand};
use serde_json::json;

use collab_groth16::control::file_sha256;
use collab_groth16::groth16::check_key;
use collab_groth16::launch::{
    local_prover, run_collaborative, single_prover, Kill, Launch, Statement,
};
use collab_groth16::process::{party_main, PartyArgs};
use collab_groth16::qap::Qap;
use collab_groth16::report::{operations, timed, Phase, RunReport, SingleFigures};
use collab_groth16::tamper::Tamper;
use collab_groth16::{Error, Variant};
use measure::envelope::{Inputs, Outcome};
use measure::seed::{stream, Seed};
use netem::{Network, Profile};
use zksnark_prover::cli::{configure_threads, Files, Program};
use zksnark_prover::{read_wtns, snark, R1cs};

#[derive(Parser)]
#[command(name = "collab-groth16", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Coordinate collaborative proofs of one R1CS and witness: deal, launch the parties, check
    /// the proof, and measure the single prover on the same files for comparison.
    Run(RunArgs),
    /// One party: prints its certificate (`party J <hex>`) on standard output, reads the
    /// coordinator's (`coordinator <hex>`) on standard input, joins the coordinator at
    /// --coordinator, gets its shares, proves with the others.
    Party(PartyCli),
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    files: Files,
    /// Public seed (64 hex digits): the setup (when generated), the dealer's material and the
    /// parties' randomness are derived from it, so they are reproducible and not secret.
    /// Default: the OS's randomness.
    #[arg(long)]
    seed: Option<Seed>,
    /// Party counts to run, comma-separated, each 2 to 8.
    #[arg(long, default_value = "2", value_delimiter = ',')]
    parties: Vec<usize>,
    /// Variants to run, comma-separated: semi-honest, malicious.
    #[arg(long, default_value = "semi-honest", value_delimiter = ',')]
    variants: Vec<String>,
    /// Worker threads of every party and of the single provers.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Proving key (ark-serialize, uncompressed, as `zksnark-prover setup` writes it);
    /// default: a fresh setup (from --seed, or the OS's randomness).
    #[arg(long)]
    pk: Option<PathBuf>,
    /// Do not start the parties: wait for them on --listen (needs --pk, one party count and
    /// one variant). The certificates go through this program's pipes: it prints its
    /// `coordinator` line on standard output, for every party's standard input, and reads each
    /// party's `party J` line on standard input.
    #[arg(long)]
    no_spawn: bool,
    /// Coordinator address.
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Negative test: one party commits a fault (KIND:PARTY[:INDEX]; KIND witness, triple-x,
    /// triple-z with an index, a-share, b-share, c-share). The report records it.
    #[arg(long)]
    tamper: Option<String>,
    /// Fault test: the coordinator kills party PARTY's process (SIGKILL) as it starts the
    /// online step STEP (PARTY:STEP); the run must fail, naming both.
    #[arg(long)]
    kill_party: Option<String>,
    /// The network between the parties and the coordinator: none (the host's loopback), lan,
    /// region, wan, or a spec such as rtt=50ms,rate=200mbit (netem's profiles). Every profile
    /// but none runs each process in a network namespace of its own and needs root.
    #[arg(long, default_value = "none")]
    network: Profile,
    /// Seconds a party or the coordinator waits for a peer before giving up.
    #[arg(long, default_value_t = 1800)]
    timeout: u64,
}

#[derive(Args)]
struct PartyCli {
    /// The coordinator's address (`run --no-spawn --listen`).
    #[arg(long)]
    coordinator: SocketAddr,
    /// This party's id, 0 to m-1, each once.
    #[arg(long)]
    id: usize,
    /// The same R1CS file as the coordinator's (checked by SHA-256).
    #[arg(long)]
    r1cs: PathBuf,
    /// The same proving key file as the coordinator's (checked by SHA-256).
    #[arg(long)]
    pk: PathBuf,
    /// Worker threads of this party.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Address of this party's listener for the other parties (port 0: any free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Seconds to wait for the coordinator or a peer before giving up.
    #[arg(long, default_value_t = 1800)]
    timeout: u64,
}

fn main() -> ExitCode {
    let cli = Cli::parse(); // usage errors exit with 2
    match cli.command {
        Command::Party(p) => {
            let id = p.id;
            if let Err(e) = configure_threads(Some(p.threads)) {
                eprintln!("collab-groth16 party {id}: error: {e}");
                return ExitCode::from(2);
            }
            let args = PartyArgs {
                coordinator: p.coordinator,
                id,
                r1cs: p.r1cs,
                pk: p.pk,
                threads: p.threads,
                listen: p.listen,
                timeout: Duration::from_secs(p.timeout),
            };
            match party_main(&args) {
                Ok(f) if f.outcome == "proof" => ExitCode::SUCCESS,
                Ok(f) => {
                    eprintln!(
                        "collab-groth16 party {id}: {}{}",
                        f.outcome,
                        f.error.map(|e| format!(": {e}")).unwrap_or_default()
                    );
                    ExitCode::from(1)
                }
                Err(e) => {
                    eprintln!("collab-groth16 party {id}: error: {e}");
                    ExitCode::from(match e {
                        Error::Input(_) | Error::Invalid(_) => 2,
                        _ => 1,
                    })
                }
            }
        }
        Command::Run(args) => {
            let parameters = json!({
                "r1cs": args.files.r1cs, "wtns": args.files.wtns, "parties": args.parties,
                "variants": args.variants, "threads": args.threads, "pk": args.pk,
                "no_spawn": args.no_spawn, "tamper": args.tamper, "kill_party": args.kill_party,
                "network": args.network.spec(),
            });
            let (out, seed) = (args.files.out.clone(), args.seed);
            PROGRAM.run(
                &out,
                parameters,
                seed.as_ref(),
                || run(args),
                |r| {
                    print_table(&r["body"]);
                    String::new()
                },
            )
        }
    }
}

/// A directory removed when dropped: where a generated proving key waits for the parties.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The program, as its reports name it (body schema: docs/report.schema.json).
const PROGRAM: Program = zksnark_prover::program!("collab-groth16", 4);

/// How the processes talk, as the report says it.
const CHANNELS: &str = "TLS 1.3, mutually authenticated, pinned: every process (the \
    coordinator and each party) makes a fresh self-signed certificate, the processes learn each \
    other's over the pipes between the coordinator and the parties it starts, and every link \
    accepts exactly the certificate of the process it is for; a party's id is the one its \
    certificate was given for. Byte counts are the bytes on the sockets, TLS records and \
    handshakes included";

/// The command line, checked: what `run` needs beyond the raw arguments.
struct Checked {
    variants: Vec<Variant>,
    tamper: Option<Tamper>,
    kill: Option<Kill>,
}

/// Checks everything, then runs; the outcome (passed: every proof verified). Errors are bad
/// input (a network this process may not create included), found before long work.
fn run(a: RunArgs) -> Result<Outcome, Error> {
    let checked = check_arguments(&a)?;
    let network = create_network(&a)?;
    let threads = configure_threads(Some(a.threads))?;
    let circuit = load_statement(&a)?;
    let key = proving_key(&a, &circuit.r1cs)?;
    check_key(&circuit.r1cs, &key.pk, &circuit.qap)?;
    let st = Statement {
        r1cs: &circuit.r1cs,
        pk: &key.pk,
        qap: &circuit.qap,
        w: &circuit.w,
    };
    let launch = Launch {
        spawn: !a.no_spawn,
        listen: a.listen,
        network,
        r1cs_sha256: file_sha256(&a.files.r1cs)?,
        pk_sha256: file_sha256(&key.path)?,
        r1cs: a.files.r1cs.clone(),
        pk: key.path.clone(),
        threads,
        timeout: Duration::from_secs(a.timeout),
        tamper: checked.tamper,
        kill: checked.kill.clone(),
        seed: a.seed,
    };
    let (single, local, runs) = measure_runs(&a, &checked, &launch, &st)?;
    let passed = single.status == "PASSED"
        && local.status == "PASSED"
        && runs.iter().all(|r| r.status == "PASSED");
    // The inputs: the circuit and witness files, the proving key (derived from the seed when
    // generated) and each run's dealt material.
    let mut inputs = Inputs::new();
    inputs
        .add("r1cs sha256", file_sha256(&a.files.r1cs)?.as_bytes())
        .add("wtns sha256", file_sha256(&a.files.wtns)?.as_bytes())
        .add("pk sha256", launch.pk_sha256.as_bytes());
    for r in &runs {
        inputs.add("dealt sha256", r.dealt_sha256.as_bytes());
    }
    drop(key.temp);
    let figures = Figures {
        single,
        local,
        runs,
        setup: key.setup,
    };
    let body = body(&a, &checked, &launch, &st, figures);
    Ok(Outcome {
        passed,
        inputs,
        body,
    })
}

/// The party counts, variants, faults and their combinations.
fn check_arguments(a: &RunArgs) -> Result<Checked, Error> {
    if a.parties.is_empty() || a.parties.iter().any(|&m| !(2..=8).contains(&m)) {
        return Err(Error::Invalid(format!(
            "--parties {:?}: each party count must be 2 to 8",
            a.parties
        )));
    }
    let variants = a
        .variants
        .iter()
        .map(|v| Variant::parse(v))
        .collect::<Result<Vec<_>, _>>()?;
    let tamper = a.tamper.as_deref().map(Tamper::parse).transpose()?;
    let kill = a.kill_party.as_deref().map(Kill::parse).transpose()?;
    let named = tamper
        .map(|t| ("--tamper", t.party))
        .into_iter()
        .chain(kill.as_ref().map(|k| ("--kill-party", k.party)));
    for (option, party) in named {
        if a.parties.iter().any(|&m| party >= m) {
            return Err(Error::Invalid(format!(
                "{option} names party {party}, but a run has fewer parties"
            )));
        }
    }
    if kill.as_ref().is_some_and(|k| k.step == "mac_check")
        && variants.contains(&Variant::SemiHonest)
    {
        return Err(Error::Invalid(
            "--kill-party: the semi-honest variant has no mac_check step".into(),
        ));
    }
    if a.no_spawn && (a.pk.is_none() || a.parties.len() != 1 || variants.len() != 1) {
        return Err(Error::Invalid(
            "--no-spawn needs --pk (the parties load the same key) and exactly one party count \
             and one variant"
                .into(),
        ));
    }
    if a.no_spawn && (a.network.is_emulated() || kill.is_some()) {
        return Err(Error::Invalid(
            "--no-spawn: parties started by hand run outside the emulated network and cannot be \
             killed by the coordinator: it needs --network none and no --kill-party"
                .into(),
        ));
    }
    Ok(Checked {
        variants,
        tamper,
        kill,
    })
}

/// The run's network: a slot for each party of the largest run and one for the coordinator.
/// A refusal (no rights, a missing program) is bad input, in one line.
fn create_network(a: &RunArgs) -> Result<Network, Error> {
    let slots = a.parties.iter().max().copied().unwrap_or(2) + 1;
    Network::create(&a.network, slots).map_err(|e| Error::Invalid(e.to_string()))
}

/// The statement's files, read and checked.
struct Circuit {
    r1cs: R1cs<Fr>,
    /// The full assignment, wire order.
    w: Vec<Fr>,
    qap: Qap<Fr>,
}

/// The R1CS, the witness (which must satisfy it) and the QAP.
fn load_statement(a: &RunArgs) -> Result<Circuit, Error> {
    let r1cs = R1cs::<Fr>::read(&a.files.r1cs)?;
    let w = r1cs.assignment(read_wtns(&a.files.wtns)?, &a.files.wtns)?;
    if let Some(index) = r1cs.first_unsatisfied(&w) {
        return Err(zksnark_prover::Error::Unsatisfied {
            index,
            total: r1cs.constraints.len(),
        }
        .into());
    }
    let qap = Qap::new(&r1cs)?;
    Ok(Circuit { r1cs, w, qap })
}

/// The proving key and the file the parties read it from.
struct Key {
    pk: ProvingKey<Bn254>,
    path: PathBuf,
    /// The setup's time, when this run made the key.
    setup: Option<Phase>,
    /// Where a generated key waits for the parties (removed when dropped).
    temp: Option<TempDir>,
}

/// The proving key: given, or a fresh setup saved where the parties can read it.
fn proving_key(a: &RunArgs, r1cs: &R1cs<Fr>) -> Result<Key, Error> {
    if let Some(path) = &a.pk {
        let pk = snark::load(path, Compress::No, "Groth16 proving key")?;
        return Ok(Key {
            pk,
            path: path.clone(),
            setup: None,
            temp: None,
        });
    }
    let (pk, phase) = timed(|| snark::setup(r1cs, &mut snark::rng(a.seed.as_ref(), "setup")));
    let pk = pk?;
    let dir = std::env::temp_dir().join(format!("collab-groth16-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| zksnark_prover::Error::io(&dir, e))?;
    let temp = TempDir(dir.clone());
    let path = dir.join("pk.bin");
    snark::save(&path, &pk, Compress::No)?;
    Ok(Key {
        pk,
        path,
        setup: Some(phase),
        temp: Some(temp),
    })
}

/// Every collaborative run, with the single and local provers sampled before the first run and
/// after every run: each run is compared with the mean of the two samples around it, so that a
/// machine whose speed drifts (other tenants come and go) bends the ratio as little as possible.
fn measure_runs(
    a: &RunArgs,
    checked: &Checked,
    launch: &Launch,
    st: &Statement,
) -> Result<(SingleFigures, SingleFigures, Vec<RunReport>), Error> {
    let jobs: Vec<(Variant, usize)> = checked
        .variants
        .iter()
        .flat_map(|&v| a.parties.iter().map(move |&m| (v, m)))
        .collect();
    let progress =
        measure::progress::Progress::new("collab-groth16", None, 2 * jobs.len() as u64 + 1);
    let mut single = SingleFigures::new("zksnark-prover (ark-groth16 0.4 create_random_proof)");
    let mut local = SingleFigures::new("collab-groth16 plain (the parties' arithmetic, unshared)");
    let mut single_rng = stream("collab-groth16/single-prover", a.seed.as_ref());
    let mut local_rng = stream("collab-groth16/local-prover", a.seed.as_ref());
    let mut sample = |single: &mut SingleFigures, local: &mut SingleFigures| -> Result<(), Error> {
        let (phase, ok) = single_prover(st, &mut single_rng)?;
        single.add(phase, ok);
        let (phase, ok) = local_prover(st, &mut local_rng)?;
        local.add(phase, ok);
        progress.inc(1);
        Ok(())
    };
    sample(&mut single, &mut local)?;
    let mut runs = vec![];
    for &(variant, m) in &jobs {
        let mut run = run_collaborative(launch, st, m, variant);
        eprintln!(
            "collab-groth16: {} m={m} ({}): {}{}",
            variant.name(),
            launch.network.profile(),
            run.status,
            run.error
                .as_deref()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default()
        );
        progress.inc(1);
        sample(&mut single, &mut local)?;
        run.summarise(single.bracket(), local.bracket(), launch.one_way_delay_s());
        runs.push(run);
    }
    progress.finish();
    Ok((single, local, runs))
}

/// What the runs measured, for the report's body.
struct Figures {
    single: SingleFigures,
    local: SingleFigures,
    runs: Vec<RunReport>,
    setup: Option<Phase>,
}

/// The emulated network, as the report describes it.
fn network_json(network: &Network) -> serde_json::Value {
    let placement = if network.is_emulated() {
        "each party and the coordinator in a network namespace of its own, each linked to one \
             emulated switch (netem): the profile's rate on every link in each direction, half \
             its round trip added each way"
    } else {
        "every process on the host's loopback, each party on an address of its own"
    };
    netem::network_json(network, placement)
}

/// The report's body.
fn body(
    a: &RunArgs,
    checked: &Checked,
    launch: &Launch,
    st: &Statement,
    figures: Figures,
) -> serde_json::Value {
    let (r1cs, qap) = (st.r1cs, st.qap);
    json!({
        "curve": "BN254",
        "inputs": {
            "r1cs": a.files.r1cs,
            "wtns": a.files.wtns,
            "constraints": r1cs.constraints.len(),
            "wires": r1cs.n_wires,
            "public_inputs": r1cs.num_public(),
            "private_wires": r1cs.n_wires - qap.inputs(),
            "domain_size": qap.size(),
        },
        "threads": launch.threads,
        "tamper": checked.tamper.map(|t| t.to_string()),
        "kill_party": checked.kill.as_ref().map(|k| k.to_string()),
        "network": network_json(&launch.network),
        "channels": CHANNELS,
        "dealer": "trusted: deals honestly and does not collude with any party",
        "randomness": if a.seed.is_some() {
            "setup, dealer and parties: derived from the public seed (not secret)"
        } else {
            "setup, dealer and parties: the operating system's CSPRNG"
        },
        "setup": {
            "source": if a.pk.is_some() { "file" } else { "generated" },
            "pk": a.pk,
            "phase": figures.setup,
        },
        "single_prover": figures.single,
        "single_prover_operations": operations(
            r1cs.n_wires,
            r1cs.n_wires - qap.inputs(),
            qap.size(),
            None,
        ),
        "local_prover": figures.local,
        "runs": figures.runs,
        "peak_rss_mib": measure::clock::peak_rss_mib(),
        "versions": versions(),
        "command": std::env::args().collect::<Vec<_>>(),
    })
}

fn versions() -> serde_json::Value {
    let mut v: serde_json::Map<String, serde_json::Value> = zksnark_prover::versions()
        .into_iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    v.insert("collab-groth16".into(), json!(env!("CARGO_PKG_VERSION")));
    v.into()
}

/// One line per run on stdout: what the report's summaries say.
fn print_table(report: &serde_json::Value) {
    let single = &report["single_prover"];
    println!(
        "single prover: {:.3} s CPU (samples {}), local: {:.3} s CPU, {} thread(s)",
        single["cpu_s"].as_f64().unwrap_or(f64::NAN),
        single["samples"]
            .as_array()
            .map(|s| s
                .iter()
                .map(|p| format!("{:.3}", p["cpu_s"].as_f64().unwrap_or(f64::NAN)))
                .collect::<Vec<_>>()
                .join(", "))
            .unwrap_or_default(),
        report["local_prover"]["cpu_s"].as_f64().unwrap_or(f64::NAN),
        report["threads"]
    );
    println!(
        "network: {}",
        report["network"]["spec"].as_str().unwrap_or("?")
    );
    for run in report["runs"].as_array().into_iter().flatten() {
        let s = &run["summary"];
        println!(
            "{} m={}: {} online CPU max {:.3} s ({:.2}x single), wall max {:.3} s, sent max {} B, \
             rounds {}, dealer {:.3} s",
            run["variant"].as_str().unwrap_or("?"),
            run["parties"],
            run["status"].as_str().unwrap_or("?"),
            s["online_cpu_s_max"].as_f64().unwrap_or(f64::NAN),
            s["ratio_to_single_max"].as_f64().unwrap_or(f64::NAN),
            s["online_wall_s_max"].as_f64().unwrap_or(f64::NAN),
            s["bytes_sent_max"],
            s["rounds"],
            s["dealer_cpu_s"].as_f64().unwrap_or(f64::NAN),
        );
    }
}
