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

use collab_groth16::groth16::check_key;
use collab_groth16::launch::{
    file_sha256, local_prover, party_main, run_collaborative, single_prover, Launch, PartyArgs,
    Statement,
};
use collab_groth16::qap::Qap;
use collab_groth16::report::{operations, timed, Phase, SingleFigures};
use collab_groth16::tamper::Tamper;
use collab_groth16::{Error, Variant};
use measure::envelope::{Envelope, Inputs, Outcome};
use measure::seed::{stream, Seed};
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
    /// One party: joins the coordinator at --coordinator, gets its shares, proves with the
    /// others.
    Party(PartyCli),
}

#[derive(Args)]
struct RunArgs {
    /// circom-format R1CS (as zokrates-js or circom export it).
    #[arg(long)]
    r1cs: PathBuf,
    /// circom-format witness for it.
    #[arg(long)]
    wtns: PathBuf,
    /// Where to write the report (the suite's envelope; body schema: docs/report.schema.json).
    #[arg(long)]
    out: PathBuf,
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
    /// one variant).
    #[arg(long)]
    no_spawn: bool,
    /// Coordinator address.
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Negative test: one party commits a fault (KIND:PARTY[:INDEX]; KIND witness, triple-x,
    /// triple-z with an index, a-share, b-share, c-share). The report records it.
    #[arg(long)]
    tamper: Option<String>,
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
            if let Err(e) = configure_threads(p.threads) {
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
                "r1cs": args.r1cs, "wtns": args.wtns, "parties": args.parties,
                "variants": args.variants, "threads": args.threads, "pk": args.pk,
                "no_spawn": args.no_spawn, "tamper": args.tamper,
            });
            let envelope = Envelope::begin(
                "collab-groth16",
                env!("CARGO_PKG_VERSION"),
                BODY_VERSION,
                parameters,
                args.seed.as_ref(),
            );
            let out = args.out.clone();
            measure::cli::finish_run(
                &out,
                envelope,
                || run(args).map_err(|e| format!("error: {e}")),
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

/// The version of the body's schema (docs/report.schema.json).
const BODY_VERSION: u32 = 2;

/// Checks everything, then runs; the outcome (passed: every proof verified). Errors are bad
/// input, found before long work.
fn run(a: RunArgs) -> Result<Outcome, Error> {
    // Bad input first.
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
    if let Some(t) = tamper {
        if a.parties.iter().any(|&m| t.party >= m) {
            return Err(Error::Invalid(format!(
                "--tamper names party {}, but a run has fewer parties",
                t.party
            )));
        }
    }
    if a.no_spawn && (a.pk.is_none() || a.parties.len() != 1 || variants.len() != 1) {
        return Err(Error::Invalid(
            "--no-spawn needs --pk (the parties load the same key) and exactly one party count \
             and one variant"
                .into(),
        ));
    }
    let threads = configure_threads(a.threads)?;
    let r1cs = R1cs::<Fr>::read(&a.r1cs)?;
    let w = r1cs.assignment(read_wtns(&a.wtns)?, &a.wtns)?;
    if let Some(index) = r1cs.first_unsatisfied(&w) {
        return Err(zksnark_prover::Error::Unsatisfied {
            index,
            total: r1cs.constraints.len(),
        }
        .into());
    }
    let qap = Qap::new(&r1cs)?;

    // The proving key: given, or a fresh setup saved where the parties can read it.
    let mut temp = None;
    let (pk, pk_path, setup): (ProvingKey<Bn254>, PathBuf, Option<Phase>) = match &a.pk {
        Some(path) => {
            let pk = snark::load(path, Compress::No, "Groth16 proving key")?;
            (pk, path.clone(), None)
        }
        None => {
            let (pk, phase) =
                timed(|| snark::setup(&r1cs, &mut snark::rng(a.seed.as_ref(), "setup")));
            let pk = pk?;
            let dir = std::env::temp_dir().join(format!("collab-groth16-{}", std::process::id()));
            std::fs::create_dir_all(&dir).map_err(|e| zksnark_prover::Error::io(&dir, e))?;
            let path = dir.join("pk.bin");
            temp = Some(TempDir(dir));
            snark::save(&path, &pk, Compress::No)?;
            (pk, path, Some(phase))
        }
    };
    check_key(&r1cs, &pk, &qap)?;
    let st = Statement {
        r1cs: &r1cs,
        pk: &pk,
        qap: &qap,
        w: &w,
    };
    let launch = Launch {
        spawn: !a.no_spawn,
        listen: a.listen,
        r1cs_sha256: file_sha256(&a.r1cs)?,
        pk_sha256: file_sha256(&pk_path)?,
        r1cs: a.r1cs.clone(),
        pk: pk_path,
        threads,
        timeout: Duration::from_secs(a.timeout),
        tamper,
        seed: a.seed,
    };

    let jobs: Vec<(Variant, usize)> = variants
        .iter()
        .flat_map(|&v| a.parties.iter().map(move |&m| (v, m)))
        .collect();
    let progress =
        measure::progress::Progress::new("collab-groth16", None, 2 * jobs.len() as u64 + 1);
    // The single provers before the first collaborative run and after every run: each run is
    // compared with the mean of the two samples around it, so that a machine whose speed drifts
    // (other tenants come and go) bends the ratio as little as possible.
    let mut single = SingleFigures::new("zksnark-prover (ark-groth16 0.4 create_random_proof)");
    let mut local = SingleFigures::new("collab-groth16 plain (the parties' arithmetic, unshared)");
    let mut single_rng = stream("collab-groth16/single-prover", a.seed.as_ref());
    let mut local_rng = stream("collab-groth16/local-prover", a.seed.as_ref());
    let mut sample = |single: &mut SingleFigures, local: &mut SingleFigures| -> Result<(), Error> {
        let (phase, ok) = single_prover(&st, &mut single_rng)?;
        single.add(phase, ok);
        let (phase, ok) = local_prover(&st, &mut local_rng)?;
        local.add(phase, ok);
        Ok(())
    };
    sample(&mut single, &mut local)?;
    progress.inc(1);
    let mut runs = vec![];
    for &(variant, m) in &jobs {
        let mut run = run_collaborative(&launch, &st, m, variant);
        eprintln!(
            "collab-groth16: {} m={m}: {}{}",
            variant.name(),
            run.status,
            run.error
                .as_deref()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default()
        );
        progress.inc(1);
        sample(&mut single, &mut local)?;
        progress.inc(1);
        run.summarise(single.bracket(), local.bracket());
        runs.push(run);
    }
    progress.finish();

    let passed = single.status == "PASSED"
        && local.status == "PASSED"
        && runs.iter().all(|r| r.status == "PASSED");
    // The inputs: the circuit and witness files, the proving key (derived from the seed when
    // generated) and each run's dealt material.
    let mut inputs = Inputs::new();
    inputs
        .add("r1cs sha256", file_sha256(&a.r1cs)?.as_bytes())
        .add("wtns sha256", file_sha256(&a.wtns)?.as_bytes())
        .add("pk sha256", launch.pk_sha256.as_bytes());
    for r in &runs {
        inputs.add("dealt sha256", r.dealt_sha256.as_bytes());
    }
    drop(temp);
    let body = json!({
        "curve": "BN254",
        "inputs": {
            "r1cs": a.r1cs,
            "wtns": a.wtns,
            "constraints": r1cs.constraints.len(),
            "wires": r1cs.n_wires,
            "public_inputs": r1cs.num_public(),
            "private_wires": r1cs.n_wires - qap.inputs(),
            "domain_size": qap.size(),
        },
        "threads": threads,
        "tamper": tamper.map(|t| t.to_string()),
        "channels": "plain TCP on the given addresses (no encryption, no authentication)",
        "dealer": "trusted: deals honestly and does not collude with any party",
        "randomness": if a.seed.is_some() {
            "setup, dealer and parties: derived from the public seed (not secret)"
        } else {
            "setup, dealer and parties: the operating system's CSPRNG"
        },
        "setup": {
            "source": if a.pk.is_some() { "file" } else { "generated" },
            "pk": a.pk,
            "phase": setup,
        },
        "single_prover": single,
        "single_prover_operations": operations(
            r1cs.n_wires,
            r1cs.n_wires - qap.inputs(),
            qap.size(),
            None,
        ),
        "local_prover": local,
        "runs": runs,
        "peak_rss_mib": measure::clock::peak_rss_mib(),
        "versions": versions(),
        "command": std::env::args().collect::<Vec<_>>(),
    });
    Ok(Outcome {
        passed,
        inputs,
        body,
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

/// Builds the global rayon pool that ark's MSMs and FFTs and our loops run on.
fn configure_threads(n: usize) -> Result<usize, Error> {
    if n == 0 {
        return Err(Error::Invalid("--threads must be at least 1".into()));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
        .map_err(|e| Error::Invalid(format!("cannot start {n} worker threads: {e}")))?;
    Ok(n)
}
