//! veccom-bench: times the vector commitment schemes at chosen lengths and thread counts,
//! beside their counted-operation lower bounds, and writes report.json.
//!
//! Each (scheme, n) is set up once; every operation is checked, then timed in repetitions of at
//! least --rep-seconds, alternating with its lower bound. Progress goes to stderr, one line per
//! measurement plus `[progress]` lines; the report is written atomically at the end.
//! The report is the suite's envelope (measure::envelope) around the body described by
//! docs/report.schema.json. Exit status: 0 all checks passed, 1 a check failed (the report is
//! still written), 2 bad input.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use measure::cli::{finish_run, parse_counts, refuse};
use measure::envelope::Envelope;
use measure::seed::Seed;
use veccom::measurement::report::{MERKLE_BLAKE3, MERKLE_SHA256, PAIRING, SCHEMES};
use veccom::measurement::run::{parameters, run, Config, BODY_VERSION};
use veccom::Error;

/// The program's name, which tags its reports (`tool`) and its refusals.
const TOOL: &str = "veccom-bench";

#[derive(Parser, Debug)]
#[command(
    name = TOOL,
    version,
    about = "Times the pairing-based and Merkle vector commitments and writes report.json",
    after_help = "Lists are comma-separated; a length list may hold power-of-two ranges: \
                  --n 100,1000,2^10..2^16 is 100, 1000, 1024, 2048, ..., 65536.\n\
                  Schemes: pairing-bls12-381 (alias pairing), merkle-sha256 (sha256), \
                  merkle-blake3 (blake3); merkle = both Merkle columns; all."
)]
struct Args {
    /// Schemes to run.
    #[arg(long, default_value = "all")]
    schemes: String,
    /// Vector lengths (all schemes unless --merkle-n is given).
    #[arg(long = "n", default_value = "100,1000")]
    n: String,
    /// Vector lengths for the Merkle schemes (default: those of --n).
    #[arg(long)]
    merkle_n: Option<String>,
    /// Thread counts; operations that use one thread only are measured at the first count of 1.
    #[arg(long, default_value = "1,2")]
    threads: String,
    /// Operations to run (default: all of each scheme).
    #[arg(long, default_value = "all")]
    ops: String,
    /// Repetitions per measurement (median, min and max are reported).
    #[arg(long, default_value_t = 7)]
    reps: usize,
    /// Minimum seconds per repetition (fast operations are repeated within one).
    #[arg(long, default_value_t = 0.05)]
    rep_seconds: f64,
    /// Positions per batch for prove_batch, aggregate and verify_batch.
    #[arg(long, default_value_t = 16)]
    batch: usize,
    /// Bytes per random value.
    #[arg(long, default_value_t = 32)]
    value_bytes: usize,
    /// Lengths for the ablation, on one thread ("none" to skip).
    #[arg(long, default_value = "1000")]
    ablation_n: String,
    /// 64 hex digits: the public seed of a reproducible run (values, and the pairing trapdoor,
    /// then derived from the seed and not secret); without it, fresh randomness from the OS.
    #[arg(long)]
    seed: Option<String>,
    /// Output file (the enveloped report, written atomically).
    #[arg(long, short, default_value = "report.json")]
    out: PathBuf,
}

fn parse_schemes(s: &str) -> Result<Vec<String>, Error> {
    let mut out: Vec<String> = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let names: Vec<&str> = match part {
            "all" => SCHEMES.to_vec(),
            "pairing" => vec![PAIRING],
            "merkle" => vec![MERKLE_SHA256, MERKLE_BLAKE3],
            "sha256" => vec![MERKLE_SHA256],
            "blake3" => vec![MERKLE_BLAKE3],
            other if SCHEMES.contains(&other) => vec![other],
            other => {
                return Err(Error::UnknownScheme {
                    name: other.into(),
                    known: format!(
                        "{}, pairing, merkle, sha256, blake3, all",
                        SCHEMES.join(", ")
                    ),
                })
            }
        };
        for n in names {
            if !out.iter().any(|o| o == n) {
                out.push(n.to_string());
            }
        }
    }
    Ok(out)
}

fn config(a: &Args) -> Result<Config, Error> {
    let n = parse_counts(&a.n, "--n")?;
    let merkle_n = match &a.merkle_n {
        Some(m) => parse_counts(m, "--merkle-n")?,
        None => n.clone(),
    };
    let threads = a
        .threads
        .split(',')
        .map(|t| {
            t.trim()
                .parse::<usize>()
                .map_err(|_| measure::Error::NotACount {
                    option: "--threads".into(),
                    token: t.into(),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let ops = if a.ops.trim() == "all" {
        vec![]
    } else {
        a.ops.split(',').map(|o| o.trim().to_string()).collect()
    };
    Ok(Config {
        schemes: parse_schemes(&a.schemes)?,
        pairing_n: n,
        merkle_n,
        threads,
        ops,
        repetitions: a.reps,
        rep_seconds: a.rep_seconds,
        batch: a.batch,
        value_bytes: a.value_bytes,
        ablation_n: parse_counts(&a.ablation_n, "--ablation-n")?,
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
    let envelope = Envelope::begin(
        TOOL,
        env!("CARGO_PKG_VERSION"),
        BODY_VERSION,
        parameters(&cfg),
        cfg.seed.as_ref(),
    );
    finish_run(
        &cfg.out,
        envelope,
        || run(&cfg),
        |report| {
            format!(
                " ({} rows, {} ablation rows)",
                report["body"]["rows"].as_array().map_or(0, Vec::len),
                report["body"]["ablation"].as_array().map_or(0, Vec::len)
            )
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheme_aliases() {
        assert_eq!(parse_schemes("pairing,merkle").unwrap().len(), 3);
        assert_eq!(
            parse_schemes("blake3").unwrap(),
            vec![MERKLE_BLAKE3.to_string()]
        );
        assert!(parse_schemes("rsa").is_err());
    }
}
