//! mithril-bench: times MSP natively on BLS12-381 and proves MSP.B in a halo2 circuit over
//! BN254, and writes report.json.
//!
//! Native steps are timed at each n and thread count beside their lower bounds; the circuit is
//! laid out at each size n (cells, columns), and proved at each proof n, each in a child process
//! of this program (its peak memory its own; a child killed for lack of memory is reported, the
//! run goes on). Progress goes to stderr; the report is written atomically at the end.
//! Exit status: 0 all checks passed, 1 a check failed or a circuit run failed (the report is
//! still written), 2 bad input.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use measure::cli::{finish_run, parse_counts, refuse};
use measure::envelope::Envelope;
use measure::seed::Seed;
use measure::timing::Plan;
use mithril::circuit::PairingCheck;
use mithril::measurement::run::{child_main, run, Config, BODY_VERSION};
use mithril::Error;

/// The program's name, which tags its reports (`tool`) and its refusals.
const TOOL: &str = "mithril-bench";

#[derive(Parser, Debug)]
#[command(
    name = TOOL,
    version,
    about = "Times Mithril's MSP natively (BLS12-381) and proves MSP.B in a halo2 circuit (BN254); writes report.json",
    after_help = "Lists are comma-separated and may hold power-of-two ranges: --native-n 2^2..2^12 \
                  is 4, 8, ..., 4096; \"none\" is the empty list."
)]
struct Args {
    /// Parts to run: native, circuit, stm (mithril-stm at the native signer counts), all
    /// (comma-separated).
    #[arg(long, default_value = "native,circuit,stm")]
    parts: String,
    /// Signer counts of the native runs.
    #[arg(long, default_value = "4,16,64,256,1024,4096")]
    native_n: String,
    /// Thread counts of the native runs (one-thread steps run at the first only).
    #[arg(long, default_value = "1,2")]
    threads: String,
    /// Aggregates per batch verification (4 signers each).
    #[arg(long, default_value = "1,4,16")]
    batch: String,
    /// Repetitions per native measurement (median, min, max reported).
    #[arg(long, default_value_t = 7)]
    reps: usize,
    /// Minimum seconds per repetition.
    #[arg(long, default_value_t = 0.05)]
    rep_seconds: f64,
    /// Signer counts proved in the circuit.
    #[arg(long, default_value = "1,2,4,8")]
    circuit_n: String,
    /// Signer counts whose circuit is laid out and counted (the proved ones are counted too).
    #[arg(long, default_value = "1,2,4,8,16,32")]
    size_n: String,
    /// log2 of the circuit's rows, or "auto" (the smallest k ≥ 17 with at most --max-columns
    /// advice columns).
    #[arg(long, default_value = "auto")]
    k: String,
    /// Column budget of the automatic k.
    #[arg(long, default_value_t = 24)]
    max_columns: usize,
    /// The BLS check's layout: residue (λ-th residue witness) or final-exp.
    #[arg(long, default_value = "residue")]
    pairing: String,
    /// Signer counts also counted with the other BLS-check layout.
    #[arg(long, default_value = "1")]
    ablation_n: String,
    /// Threads of the circuit prover (default: all logical CPUs).
    #[arg(long)]
    prover_threads: Option<usize>,
    /// Signer counts the fits are extrapolated to (labelled as such).
    #[arg(long, default_value = "64,128,256")]
    extrapolate: String,
    /// 64 hex digits: the public seed of a reproducible run (keys, signatures, parameters; keys
    /// are then derived from the public seed, not secret); without it, fresh OS randomness.
    #[arg(long)]
    seed: Option<String>,
    /// Output file.
    #[arg(long, short, default_value = "report.json")]
    out: PathBuf,
    /// Internal: run one circuit size or proof and print its JSON.
    #[arg(long, hide = true)]
    child: Option<String>,
    /// Internal: the child's n.
    #[arg(long, hide = true)]
    child_n: Option<usize>,
}

fn config(a: &Args) -> Result<Config, Error> {
    let mut native = false;
    let mut circuit = false;
    let mut stm = false;
    for p in a.parts.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match p {
            "native" => native = true,
            "circuit" => circuit = true,
            "stm" => stm = true,
            "all" => {
                native = true;
                circuit = true;
                stm = true;
            }
            other => return Err(Error::UnknownPart(other.into())),
        }
    }
    let k = match a.k.trim() {
        "auto" => None,
        s => Some(s.parse::<u32>().map_err(|_| Error::BadK(s.into()))?),
    };
    let pairing = PairingCheck::parse(a.pairing.trim())
        .ok_or_else(|| Error::BadPairing(a.pairing.clone()))?;
    Ok(Config {
        native,
        circuit,
        stm,
        native_n: parse_counts(&a.native_n, "--native-n")?,
        threads: parse_counts(&a.threads, "--threads")?,
        batch: parse_counts(&a.batch, "--batch")?,
        plan: Plan {
            repetitions: a.reps,
            rep_seconds: a.rep_seconds,
        },
        circuit_n: parse_counts(&a.circuit_n, "--circuit-n")?,
        size_n: parse_counts(&a.size_n, "--size-n")?,
        k,
        max_columns: a.max_columns,
        pairing,
        ablation_n: parse_counts(&a.ablation_n, "--ablation-n")?,
        prover_threads: a
            .prover_threads
            .unwrap_or_else(measure::machine::logical_cpus),
        extrapolate: parse_counts(&a.extrapolate, "--extrapolate")?,
        seed: a.seed.as_deref().map(str::parse::<Seed>).transpose()?,
        out: a.out.clone(),
    })
}

fn main() -> ExitCode {
    let args = Args::parse();
    let cfg = match config(&args).and_then(|c| c.validate().map(|_| c)) {
        Ok(c) => c,
        Err(e) => return refuse(TOOL, e),
    };
    if let Some(mode) = &args.child {
        let (Some(n), Some(seed)) = (args.child_n, cfg.seed) else {
            return refuse(TOOL, Error::ChildArguments);
        };
        return match child_main(mode, n, cfg.k, cfg.pairing, cfg.max_columns, *seed.bytes()) {
            Ok(v) => {
                println!("{v}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("mithril-bench: {e}");
                ExitCode::from(1)
            }
        };
    }
    let envelope = Envelope::begin(
        TOOL,
        env!("CARGO_PKG_VERSION"),
        BODY_VERSION,
        cfg.parameters(),
        cfg.seed.as_ref(),
    );
    finish_run(&cfg.out, envelope, || run(&cfg), |_| String::new())
}
