//! `zksnark-prover`: Groth16 (ark-groth16, BN254) setup, prove and verify for circom-format
//! R1CS and witness files. Exit codes: 0 PASSED (or success), 1 FAILED, 2 bad input (including
//! an output that cannot be written).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ark_bn254::{Bn254, Fr};
use ark_groth16::{Proof, ProvingKey, VerifyingKey};
use ark_serialize::{CanonicalSerialize, Compress};
use clap::{Parser, Subcommand};
use measure::envelope::{Inputs, Outcome};
use measure::seed::Seed;
use serde_json::json;

use zksnark_prover::cli::{configure_threads, Files, Program};
use zksnark_prover::measure::{peak_rss_mib, timed, PhaseTimes};
use zksnark_prover::{ptau, read_wtns, snark, snarkjs, versions, Error, R1cs};

#[derive(Parser)]
#[command(name = PROGRAM.name, version, about)]
struct Cli {
    /// Worker threads (default: RAYON_NUM_THREADS if set, else all logical CPUs).
    #[arg(long, global = true)]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Setup, prove and verify in one process; times each phase and writes the report (the
    /// suite's envelope; body schema: docs/report.schema.json).
    Run {
        #[command(flatten)]
        files: Files,
        /// Public seed (64 hex digits) of reproducible keys and proofs; the keys' trapdoor is
        /// then derived from it, not secret. Default: OS randomness.
        #[arg(long)]
        seed: Option<Seed>,
        /// Also write the proof and the verification key, in snarkjs's JSON form, for checking
        /// by another verifier.
        #[arg(long)]
        proof: Option<PathBuf>,
        #[arg(long)]
        vk: Option<PathBuf>,
        /// Also write the public inputs (JSON array of decimal strings, as snarkjs's).
        #[arg(long)]
        public: Option<PathBuf>,
        /// Verify against these public inputs (JSON array of decimal strings: the statement as
        /// the verifier knows it) instead of the witness's. A circuit whose public inputs
        /// nothing constrains (the paper's ZoKrates program takes the curve's parameters and H
        /// as inputs) proves whatever its prover put there: only the verifier's own values say
        /// what was proven. The report says whether the witness's were the same.
        #[arg(long)]
        expect_public: Option<PathBuf>,
    },
    /// Circuit-specific Groth16 setup: writes the proving and verification keys.
    Setup {
        #[arg(long)]
        r1cs: PathBuf,
        #[arg(long)]
        pk: PathBuf,
        #[arg(long)]
        vk: PathBuf,
        /// Public seed (64 hex digits); the trapdoor is then not secret.
        #[arg(long)]
        seed: Option<Seed>,
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
        /// Public seed (64 hex digits) of the proof's randomness.
        #[arg(long)]
        seed: Option<Seed>,
    },
    /// Powers of tau for snarkjs (its `.ptau` format, phase 2 prepared) of 2^power, from one
    /// participant's secrets: a benchmark's setup, not a trusted one. Prints a JSON summary
    /// (power, bytes, time, threads, hashes) on stdout.
    Ptau {
        /// The file holds powers up to 2^power (circuits of up to 2^power - 1 constraints and
        /// public inputs, as snarkjs counts).
        #[arg(long)]
        power: u32,
        #[arg(long)]
        out: PathBuf,
        /// Public seed (64 hex digits) of tau, alpha and beta; they are then derived from it,
        /// not secret. Default: OS randomness.
        #[arg(long)]
        seed: Option<Seed>,
        /// The contribution's name in the file (64 bytes at most are kept).
        #[arg(
            long,
            default_value = "zksnark-prover ptau: one participant, a benchmark's setup"
        )]
        name: String,
    },
    /// Verifies a proof; public inputs come from a witness file or a public-inputs JSON. The key
    /// and the proof may be ark-serialize files or snarkjs JSON files.
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

/// How a subcommand ended: files written, or a verification's verdict.
enum Ended {
    Written,
    Passed,
    Failed,
}

/// Where `run` also writes its proof and verification key.
#[derive(Clone, Copy)]
struct Written<'a> {
    proof: Option<&'a Path>,
    vk: Option<&'a Path>,
    public: Option<&'a Path>,
}

/// The program, as its reports name it (`run`'s body schema: docs/report.schema.json).
const PROGRAM: Program = zksnark_prover::program!("zksnark-prover", 3);

fn main() -> ExitCode {
    let cli = Cli::parse(); // usage errors exit with 2, like other bad input
    if let Command::Run {
        files,
        seed,
        proof,
        vk,
        public,
        expect_public,
    } = &cli.command
    {
        let threads = match configure_threads(cli.threads) {
            Ok(t) => t,
            Err(e) => return PROGRAM.refuse(e),
        };
        let parameters = json!({
            "r1cs": files.r1cs, "wtns": files.wtns, "threads": threads, "proof": proof, "vk": vk,
            "expect_public": expect_public,
        });
        let written = Written {
            proof: proof.as_deref(),
            vk: vk.as_deref(),
            public: public.as_deref(),
        };
        return PROGRAM.run(
            &files.out,
            parameters,
            seed.as_ref(),
            || {
                run(
                    &files.r1cs,
                    &files.wtns,
                    seed.as_ref(),
                    threads,
                    written,
                    expect_public.as_deref(),
                )
            },
            |r| format!(": {}", r["body"]["status"].as_str().unwrap_or("?")),
        );
    }
    match execute(cli) {
        Ok(Ended::Written | Ended::Passed) => ExitCode::SUCCESS,
        Ok(Ended::Failed) => ExitCode::from(1),
        Err(e) => PROGRAM.refuse(e),
    }
}

fn execute(cli: Cli) -> Result<Ended, Error> {
    let threads = configure_threads(cli.threads)?;
    match cli.command {
        Command::Run { .. } => unreachable!("main runs `run` through finish_run"),
        Command::Setup { r1cs, pk, vk, seed } => {
            let r1cs = R1cs::<Fr>::read(&r1cs)?;
            let (key, t) = timed(|| snark::setup(&r1cs, &mut snark::rng(seed.as_ref(), "setup")));
            let key = key?;
            snark::save(&pk, &key, Compress::No)?;
            snark::save(&vk, &key.vk, Compress::Yes)?;
            eprintln!(
                "setup: {} constraints, {}",
                r1cs.constraints.len(),
                show(&t)
            );
            Ok(Ended::Written)
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
            let (p, t) = timed(|| {
                snark::prove(
                    &r1cs,
                    &assignment,
                    &key,
                    &mut snark::rng(seed.as_ref(), "prove"),
                )
            });
            snark::save(&proof, &p?, Compress::Yes)?;
            if let Some(path) = public {
                let values = r1cs.public_inputs(&assignment);
                snark::write_atomic(&path, snark::public_json(&values).as_bytes())?;
            }
            eprintln!("prove: {threads} threads, {}", show(&t));
            Ok(Ended::Written)
        }
        Command::Verify {
            vk,
            proof,
            wtns,
            public,
        } => verify(&vk, &proof, wtns.as_deref(), public.as_deref()),
        Command::Ptau {
            power,
            out,
            seed,
            name,
        } => powers_of_tau(power, &out, seed.as_ref(), &name, threads),
    }
}

/// `ptau`: the file, timed, and its summary on stdout.
fn powers_of_tau(
    power: u32,
    out: &Path,
    seed: Option<&Seed>,
    name: &str,
    threads: usize,
) -> Result<Ended, Error> {
    if !(1..=ptau::MAX_POWER).contains(&power) {
        return Err(Error::Invalid(format!(
            "--power must be between 1 and {}, got {power}",
            ptau::MAX_POWER
        )));
    }
    measure::output::check_writable(out)?;
    let (written, t) = timed(|| {
        let trapdoor = ptau::Trapdoor::sample(power, &mut snark::rng(seed, "ptau/trapdoor"));
        let mut key_rng = snark::rng(seed, "ptau/key");
        ptau::generate(power, &trapdoor, &mut key_rng, name, out, &mut |step| {
            eprintln!("ptau 2^{power}: {step}")
        })
    });
    let written = written?;
    eprintln!("ptau 2^{power}: {} bytes, {}", written.bytes, show(&t));
    let hex = |h: &[u8]| h.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let summary = json!({
        "power": power,
        "file": out,
        "bytes": written.bytes,
        "participants": 1,
        "seeded": seed.is_some(),
        "threads": threads,
        "time": t,
        "generator": format!("zksnark-prover {} (arkworks BN254)", env!("CARGO_PKG_VERSION")),
        "first_challenge": hex(&written.first_challenge),
        "response_hash": hex(&written.response),
        "next_challenge": hex(&written.next_challenge),
    });
    println!("{summary}");
    Ok(Ended::Written)
}

/// `run`'s statement: the public inputs its verifier checks the proof against, and whether the
/// witness's were the same (`None`: they are the witness's).
fn statement(
    r1cs: &R1cs<Fr>,
    witness: Vec<Fr>,
    expect_public: Option<&Path>,
) -> Result<(Vec<Fr>, Option<bool>), Error> {
    let Some(path) = expect_public else {
        return Ok((witness, None));
    };
    let expected = snark::read_public_json(path)?;
    if expected.len() != r1cs.num_public() {
        return Err(Error::format(
            path,
            format!(
                "{} public inputs, but the circuit has {}",
                expected.len(),
                r1cs.num_public()
            ),
        ));
    }
    let same = expected == witness;
    Ok((expected, Some(same)))
}

fn run(
    r1cs_path: &Path,
    wtns: &Path,
    seed: Option<&Seed>,
    threads: usize,
    files: Written,
    expect_public: Option<&Path>,
) -> Result<Outcome, Error> {
    let r1cs = R1cs::<Fr>::read(r1cs_path)?;
    let assignment = r1cs.assignment(read_wtns(wtns)?, wtns)?;
    let witness_public = r1cs.public_inputs(&assignment);
    let (checked, as_expected) = statement(&r1cs, witness_public.clone(), expect_public)?;
    eprintln!("Number of constraints: {}", r1cs.constraints.len());

    let (pk, setup_t) = timed(|| snark::setup(&r1cs, &mut snark::rng(seed, "setup")));
    let pk = pk?;
    eprintln!("setup:  {}", show(&setup_t));
    let (proof, prove_t) =
        timed(|| snark::prove(&r1cs, &assignment, &pk, &mut snark::rng(seed, "prove")));
    let proof = proof?;
    eprintln!("prove:  {}", show(&prove_t));
    let public = witness_public;
    let (ok, verify_t) = timed(|| snark::verify(&pk.vk, &proof, &checked));
    let ok = ok?;
    eprintln!("verify: {}", show(&verify_t));
    let status = if ok { "PASSED" } else { "FAILED" };
    eprintln!("{status}");
    let json_file = |path: &Path, v: serde_json::Value| {
        snark::write_atomic(path, serde_json::to_string_pretty(&v).unwrap().as_bytes())
    };
    if let Some(path) = files.proof {
        json_file(path, snarkjs::proof_json(&proof))?;
    }
    if let Some(path) = files.vk {
        json_file(path, snarkjs::vk_json(&pk.vk))?;
    }
    if let Some(path) = files.public {
        snark::write_atomic(path, snark::public_json(&public).as_bytes())?;
    }

    // The inputs: the statement's public values and, when seeded, the keys derived from it.
    let mut inputs = Inputs::new();
    for x in &public {
        inputs.add("public input", snark::decimal(x).as_bytes());
    }
    let mut vk_bytes = Vec::new();
    pk.vk
        .serialize_compressed(&mut vk_bytes)
        .expect("serialising into a Vec cannot fail");
    inputs.add("verification key", &vk_bytes);
    let body = json!({
        "constraints": r1cs.constraints.len(),
        "wires": r1cs.n_wires,
        "public_inputs": r1cs.num_public(),
        "threads": threads,
        "phases": {"setup": setup_t, "prove": prove_t, "verify": verify_t},
        "status": status,
        "verified_against": if as_expected.is_some() { "expected" } else { "witness" },
        "witness_public_inputs_as_expected": as_expected,
        "peak_rss_mib": peak_rss_mib(),
        "versions": versions().into_iter().collect::<std::collections::BTreeMap<_, _>>(),
    });
    Ok(Outcome {
        passed: ok,
        inputs,
        body,
    })
}

fn verify(
    vk: &Path,
    proof: &Path,
    wtns: Option<&Path>,
    public: Option<&Path>,
) -> Result<Ended, Error> {
    let vk_bytes = std::fs::read(vk).map_err(|e| Error::io(vk, e))?;
    let vk: VerifyingKey<Bn254> = if snarkjs::is_json(&vk_bytes) {
        snarkjs::read_vk(vk, &vk_bytes)?
    } else {
        snark::load(vk, Compress::Yes, "Groth16 verification key")?
    };
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
    let proof_bytes = std::fs::read(proof).map_err(|e| Error::io(proof, e))?;
    let loaded = if snarkjs::is_json(&proof_bytes) {
        snarkjs::read_proof(proof, &proof_bytes)
    } else {
        snark::load(proof, Compress::Yes, "Groth16 proof")
    };
    let proof: Proof<Bn254> = match loaded {
        Ok(p) => p,
        Err(e @ Error::Format { .. }) => {
            println!("FAILED ({e})");
            return Ok(Ended::Failed);
        }
        Err(e) => return Err(e),
    };
    let (ok, t) = timed(|| snark::verify(&vk, &proof, &public));
    eprintln!("verify: {}", show(&t));
    if ok? {
        println!("PASSED");
        Ok(Ended::Passed)
    } else {
        println!("FAILED");
        Ok(Ended::Failed)
    }
}

fn show(t: &PhaseTimes) -> String {
    format!("real {:.3}s user {:.3}s sys {:.3}s", t.real, t.user, t.sys)
}
