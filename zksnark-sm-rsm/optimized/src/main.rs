//! `zksnark-optimized`: builds the constraint-minimal SM/RSM circuit and its witness as circom
//! `.r1cs`/`.wtns` files, for `zksnark-prover` and `collab-groth16`.
//! Exit codes: 0 success; 2 bad input (including inputs that do not satisfy the statement, and
//! an output that cannot be written).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::json;

use measure::envelope::{Inputs, Outcome};
use zksnark_optimized::export::{compile, witness};
use zksnark_optimized::inputs;
use zksnark_optimized::statement::{Layout, Statement, TreeHash, Variant, MAX_DEPTH};
use zksnark_prover::cli::{Files, Program};
use zksnark_prover::measure::{peak_rss_mib, timed};
use zksnark_prover::writer::{r1cs_bytes, wtns_bytes};
use zksnark_prover::{snark, Error};

#[derive(Parser)]
#[command(name = PROGRAM.name, version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Circuit and witness for the driver's input file, each phase timed.
    Build {
        /// The statement's values (see the crate README for the format).
        #[arg(long)]
        inputs: PathBuf,
        /// The circuit and witness written, and the report (body: constraint counts per part,
        /// wires, phase times).
        #[command(flatten)]
        files: Files,
        /// sound (v < L enforced) or as-published (the paper's statement, v < p).
        #[arg(long, value_parser = ["sound", "as-published"], default_value = "sound")]
        variant: String,
    },
    /// The circuit alone (no values): its constraint count per part, optionally the .r1cs.
    Compile {
        #[arg(long, value_parser = ["sm", "rsm"])]
        statement: String,
        #[arg(long, value_parser = ["poseidon", "sha256"], default_value = "poseidon")]
        hash: String,
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
        depth: u32,
        #[arg(long, value_parser = ["sound", "as-published"], default_value = "sound")]
        variant: String,
        #[arg(long)]
        r1cs: Option<PathBuf>,
    },
}

/// The program, as its reports name it (body schema: docs/report.schema.json).
const PROGRAM: Program = zksnark_prover::program!("zksnark-optimized", 2);

fn main() -> ExitCode {
    let cli = Cli::parse(); // usage errors exit with 2, like other bad input
    match cli.command {
        Command::Build {
            inputs,
            files,
            variant,
        } => {
            let variant = Variant::parse(&variant).expect("clap checked the name");
            let parameters = json!({
                "inputs": inputs, "r1cs": files.r1cs, "wtns": files.wtns, "variant": variant.name(),
            });
            PROGRAM.run(
                &files.out,
                parameters,
                None,
                || build(&inputs, &files.r1cs, &files.wtns, variant),
                |r| format!(": {} constraints", r["body"]["constraints"]),
            )
        }
        command => match execute(command) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => PROGRAM.refuse(e),
        },
    }
}

fn components_json(layout: &Layout) -> serde_json::Value {
    layout
        .components
        .iter()
        .map(|(name, r)| json!({"name": name, "constraints": r.len()}))
        .collect()
}

fn synthesis_error(e: ark_relations::r1cs::SynthesisError) -> Error {
    Error::Invalid(format!("constraint synthesis failed: {e}"))
}

fn execute(command: Command) -> Result<(), Error> {
    match command {
        Command::Build { .. } => unreachable!("main runs build through finish_run"),
        Command::Compile {
            statement,
            hash,
            depth,
            variant,
            r1cs,
        } => {
            let statement = Statement::parse(&statement).expect("clap checked the name");
            let hash = TreeHash::parse(&hash).expect("clap checked the name");
            let variant = Variant::parse(&variant).expect("clap checked the name");
            let (circuit, layout) =
                compile(statement, hash, variant, depth as usize).map_err(synthesis_error)?;
            for (name, r) in &layout.components {
                println!("{:>6}  {name}", r.len());
            }
            println!("Number of constraints: {}", circuit.constraints.len());
            println!("wires: {}", circuit.n_wires);
            if let Some(path) = r1cs {
                snark::write_atomic(&path, &r1cs_bytes(&circuit))?;
            }
            Ok(())
        }
    }
}

/// The circuit and the witness of the input file; the run's outcome (it passes: inputs that do
/// not satisfy the statement are bad input, with no witness written).
fn build(
    inputs_path: &Path,
    r1cs_path: &Path,
    wtns_path: &Path,
    variant: Variant,
) -> Result<Outcome, Error> {
    let inputs = inputs::read(inputs_path, variant)?;
    let (statement, hash, depth) = (inputs.statement, inputs.hash, inputs.depth);

    let (compiled, compile_t) = timed(|| -> Result<_, Error> {
        let (circuit, layout) =
            compile(statement, hash, variant, depth).map_err(synthesis_error)?;
        snark::write_atomic(r1cs_path, &r1cs_bytes(&circuit))?;
        Ok((circuit, layout))
    });
    let (circuit, layout) = compiled?;
    println!("Number of constraints: {}", circuit.constraints.len());

    let (values, witness_t) = timed(|| -> Result<_, Error> {
        let values = witness(statement, hash, variant, depth, &inputs.assignment)
            .map_err(synthesis_error)?;
        if values.len() != circuit.n_wires {
            return Err(Error::Invalid(format!(
                "internal error: {} witness values for {} wires",
                values.len(),
                circuit.n_wires
            )));
        }
        if let Some(index) = circuit.first_unsatisfied(&values) {
            return Err(Error::format(
                inputs_path,
                format!(
                    "the inputs do not satisfy the {} statement: constraint {index} of {} \
                     fails, in \"{}\"; no witness written",
                    statement.name().to_uppercase(),
                    circuit.constraints.len(),
                    layout.component_of(index)
                ),
            ));
        }
        snark::write_atomic(wtns_path, &wtns_bytes(&values))?;
        Ok(values)
    });
    values?;

    let mut digest = Inputs::new();
    for x in inputs.assignment.public.inputs() {
        digest.add("public input", snark::decimal(&x).as_bytes());
    }
    let body = json!({
        "circuit": "optimized",
        "statement": statement.name(),
        "hash": hash.name(),
        "variant": variant.name(),
        "fixes": variant.fixes(),
        "depth": depth,
        "constraints": circuit.constraints.len(),
        "wires": circuit.n_wires,
        "public_inputs": circuit.num_public(),
        "components": components_json(&layout),
        "phases": {"compile": compile_t, "witness": witness_t},
        "peak_rss_mib": peak_rss_mib(),
    });
    Ok(Outcome {
        passed: true,
        inputs: digest,
        body,
    })
}
