//! `zksnark-prover`: Groth16 (ark-groth16, BN254) setup, prove and verify for circom-format
//! R1CS and witness files. Exit codes: 0 PASSED (or success), 1 FAILED, 2 bad input.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ark_bn254::{Bn254, Fr};
use ark_groth16::{Proof, ProvingKey, VerifyingKey};
use ark_serialize::Compress;
use clap::{Parser, Subcommand};
use serde_json::json;

use zksnark_prover::measure::{peak_rss_mib, timed, PhaseTimes};
use zksnark_prover::{read_wtns, snark, versions, Error, R1cs};

#[derive(Parser)]
#[command(name = "zksnark-prover", version, about)]
struct Cli {
    /// Worker threads (default: RAYON_NUM_THREADS if set, else all logical CPUs).
    #[arg(long, global = true)]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Setup, prove and verify in one process; times each phase and writes a JSON report.
    Run {
        #[arg(long)]
        r1cs: PathBuf,
        #[arg(long)]
        wtns: PathBuf,
        #[arg(long)]
        json: PathBuf,
        /// Seed for reproducible keys and proofs (tests only); default: OS randomness.
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Circuit-specific Groth16 setup: writes the proving and verification keys.
    Setup {
        #[arg(long)]
        r1cs: PathBuf,
        #[arg(long)]
        pk: PathBuf,
        #[arg(long)]
        vk: PathBuf,
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Proves that the witness satisfies the R1CS.
    Prove {
        #[arg(long)]
        r1cs: PathBuf,
        #[arg(long)]
        wtns: PathBuf,
        #[arg(long)]
        pk: PathBuf,
        #[arg(long)]
        proof: PathBuf,
        /// Also write the public inputs (JSON array of decimal strings).
        #[arg(long)]
        public: Option<PathBuf>,
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Verifies a proof; public inputs come from a witness file or a public-inputs JSON.
    Verify {
        #[arg(long)]
        vk: PathBuf,
        #[arg(long)]
        proof: PathBuf,
        #[arg(long, required_unless_present = "public", conflicts_with = "public")]
        wtns: Option<PathBuf>,
        #[arg(long)]
        public: Option<PathBuf>,
    },
}

enum Outcome {
    Done,
    Passed,
    Failed,
}

fn main() -> ExitCode {
    let cli = Cli::parse(); // usage errors exit with 2, like other bad input
    match execute(cli) {
        Ok(Outcome::Done | Outcome::Passed) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(1),
        Err(e) => {
            eprintln!("zksnark-prover: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn execute(cli: Cli) -> Result<Outcome, Error> {
    let threads = configure_threads(cli.threads)?;
    match cli.command {
        Command::Run {
            r1cs,
            wtns,
            json,
            seed,
        } => run(&r1cs, &wtns, &json, seed, threads),
        Command::Setup { r1cs, pk, vk, seed } => {
            let r1cs = R1cs::<Fr>::read(&r1cs)?;
            let (key, t) = timed(|| snark::setup(&r1cs, &mut snark::rng(seed, 0)));
            let key = key?;
            snark::save(&pk, &key, Compress::No)?;
            snark::save(&vk, &key.vk, Compress::Yes)?;
            eprintln!(
                "setup: {} constraints, {}",
                r1cs.constraints.len(),
                show(&t)
            );
            Ok(Outcome::Done)
        }
        Command::Prove {
            r1cs,
            wtns,
            pk,
            proof,
            public,
            seed,
        } => {
            let r1cs = R1cs::<Fr>::read(&r1cs)?;
            let assignment = r1cs.assignment(read_wtns(&wtns)?, &wtns)?;
            let key: ProvingKey<Bn254> = snark::load(&pk, Compress::No, "Groth16 proving key")?;
            let (p, t) = timed(|| snark::prove(&r1cs, &assignment, &key, &mut snark::rng(seed, 1)));
            snark::save(&proof, &p?, Compress::Yes)?;
            if let Some(path) = public {
                let values = r1cs.public_inputs(&assignment);
                snark::write_atomic(&path, snark::public_json(&values).as_bytes())?;
            }
            eprintln!("prove: {threads} threads, {}", show(&t));
            Ok(Outcome::Done)
        }
        Command::Verify {
            vk,
            proof,
            wtns,
            public,
        } => verify(&vk, &proof, wtns.as_deref(), public.as_deref()),
    }
}

fn run(
    r1cs_path: &Path,
    wtns: &Path,
    json_path: &Path,
    seed: Option<u64>,
    threads: usize,
) -> Result<Outcome, Error> {
    let r1cs = R1cs::<Fr>::read(r1cs_path)?;
    let assignment = r1cs.assignment(read_wtns(wtns)?, wtns)?;
    println!("Number of constraints: {}", r1cs.constraints.len());

    let (pk, setup_t) = timed(|| snark::setup(&r1cs, &mut snark::rng(seed, 0)));
    let pk = pk?;
    println!("setup:  {}", show(&setup_t));
    let (proof, prove_t) =
        timed(|| snark::prove(&r1cs, &assignment, &pk, &mut snark::rng(seed, 1)));
    let proof = proof?;
    println!("prove:  {}", show(&prove_t));
    let public = r1cs.public_inputs(&assignment);
    let (ok, verify_t) = timed(|| snark::verify(&pk.vk, &proof, &public));
    let ok = ok?;
    println!("verify: {}", show(&verify_t));
    let status = if ok { "PASSED" } else { "FAILED" };
    println!("{status}");

    let report = json!({
        "constraints": r1cs.constraints.len(),
        "wires": r1cs.n_wires,
        "public_inputs": r1cs.num_public(),
        "threads": threads,
        "seed": seed,
        "phases": {"setup": setup_t, "prove": prove_t, "verify": verify_t},
        "status": status,
        "peak_rss_mib": peak_rss_mib(),
        "versions": versions().into_iter().collect::<std::collections::BTreeMap<_, _>>(),
    });
    let text = serde_json::to_string_pretty(&report).expect("report serialises");
    snark::write_atomic(json_path, text.as_bytes())?;
    Ok(if ok { Outcome::Passed } else { Outcome::Failed })
}

fn verify(
    vk: &Path,
    proof: &Path,
    wtns: Option<&Path>,
    public: Option<&Path>,
) -> Result<Outcome, Error> {
    let vk: VerifyingKey<Bn254> = snark::load(vk, Compress::Yes, "Groth16 verification key")?;
    let expected = vk.gamma_abc_g1.len() - 1;
    let public = match (wtns, public) {
        (Some(w), _) => {
            // ZoKrates and circom put wire 0 (the constant 1) first, then the public wires.
            let values = read_wtns::<Fr>(w)?;
            if values.len() <= expected {
                return Err(Error::format(
                    w,
                    format!(
                        "{} values, too few for {expected} public inputs",
                        values.len()
                    ),
                ));
            }
            values[1..=expected].to_vec()
        }
        (None, Some(p)) => snark::read_public_json(p)?,
        (None, None) => unreachable!("clap requires --wtns or --public"),
    };
    // A proof that does not even decode to valid curve points is a rejected proof (FAILED),
    // not bad input; an unreadable file is bad input.
    let proof: Proof<Bn254> = match snark::load(proof, Compress::Yes, "Groth16 proof") {
        Ok(p) => p,
        Err(e @ Error::Format { .. }) => {
            println!("FAILED ({e})");
            return Ok(Outcome::Failed);
        }
        Err(e) => return Err(e),
    };
    let (ok, t) = timed(|| snark::verify(&vk, &proof, &public));
    eprintln!("verify: {}", show(&t));
    if ok? {
        println!("PASSED");
        Ok(Outcome::Passed)
    } else {
        println!("FAILED");
        Ok(Outcome::Failed)
    }
}

/// Builds the global rayon pool, which ark-groth16's parallel code runs on.
fn configure_threads(requested: Option<usize>) -> Result<usize, Error> {
    let n = match requested {
        Some(n) => n,
        None => match std::env::var("RAYON_NUM_THREADS") {
            Ok(s) => s.trim().parse().map_err(|_| {
                Error::Invalid(format!("RAYON_NUM_THREADS={s:?} is not a thread count"))
            })?,
            Err(_) => std::thread::available_parallelism().map_or(1, |n| n.get()),
        },
    };
    if n == 0 {
        return Err(Error::Invalid("the thread count must be at least 1".into()));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
        .map_err(|e| Error::Invalid(format!("cannot start {n} worker threads: {e}")))?;
    Ok(n)
}

fn show(t: &PhaseTimes) -> String {
    format!("real {:.3}s user {:.3}s sys {:.3}s", t.real, t.user, t.sys)
}
