//! `cmix-bench`: runs cMix batches with three node processes and the clients over TLS on
//! loopback, for each group, number of clients and thread count asked for, and writes the
//! report (the suite's envelope around its body). `cmix-bench node` is the node process the
//! driver starts.
//!
//! Exit codes: 0 every run passed its checks (with `--tamper`: every run detected the fault);
//! 1 a run failed (the report is written); 2 bad input (nothing was run).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use serde_json::{json, Value};

use measure::envelope::{Envelope, Inputs, Outcome};
use measure::seed::Seed;

use cmix::group::{Group, GroupSpec};
use cmix::measurement::report::{passed, report, GroupInfo, BODY_VERSION};
use cmix::measurement::units::unit_costs;
use cmix::process::driver::{run, RunConfig};
use cmix::process::node::{node_main, NodeArgs};
use cmix::protocol::message::body_bytes;
use cmix::protocol::tamper::Tamper;
use cmix::Error;

/// The client counts of the full sweep.
const SWEEP: [usize; 7] = [100, 200, 300, 400, 500, 1000, 2000];

/// The program's name, which tags its reports (`tool`) and its refusals.
const TOOL: &str = "cmix-bench";

#[derive(Parser)]
#[command(
    name = TOOL,
    version,
    about = "cMix batches over TLS: three node processes, clients as tasks; per node and phase CPU, wall, bytes, lower bounds; one JSON report"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
    #[command(flatten)]
    bench: Bench,
}

#[derive(Subcommand)]
enum Sub {
    /// One node process (started by the driver).
    #[command(hide = true)]
    Node {
        #[arg(long)]
        id: usize,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        #[arg(long)]
        driver_cert: String,
    },
}

#[derive(Args)]
struct Bench {
    /// Numbers of clients (= slots of the batch), comma-separated, each 16 to 100000.
    #[arg(long, value_delimiter = ',', default_value = "500")]
    clients: Vec<usize>,
    /// The full sweep: clients 100, 200, 300, 400, 500, 1000, 2000 (overrides --clients).
    #[arg(long)]
    full_sweep: bool,
    /// Groups, comma-separated: ec (ristretto255), mg (2048-bit MODP, 256-bit exponents),
    /// mg-full (2048-bit MODP, full-length exponents).
    #[arg(long, value_delimiter = ',', default_value = "ec,mg,mg-full")]
    groups: Vec<String>,
    /// Worker threads of every node, comma-separated (each 1 to 64).
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    threads: Vec<usize>,
    /// Batches per configuration (1 to 10000).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Curve points per ec slot (1 to 64); 8 points carry 240 bytes, like the thesis's 8 mixes
    /// of 31 bytes.
    #[arg(long, default_value_t = 8)]
    ec_width: usize,
    /// Driver threads that carry the clients.
    #[arg(long, default_value_t = 4)]
    client_workers: usize,
    /// Negative run: a node commits a fault (proof:N, element:N, tag:N:S, share:N:S,
    /// opening:S; nodes 0 to 2). The run must detect it.
    #[arg(long)]
    tamper: Option<String>,
    /// 64 hex digits: the public seed of a reproducible run (keys, permutations, messages: the
    /// keys are then derived from the public seed, not secret); default OS randomness.
    #[arg(long)]
    seed: Option<String>,
    /// Minimum CPU seconds spent timing each operation alone (the lower bound's unit costs).
    #[arg(long, default_value_t = 0.05)]
    unit_seconds: f64,
    /// Where to write the report.
    #[arg(long, default_value = "report.json")]
    out: PathBuf,
}

/// The checked settings: groups, client counts, the fault, the seed.
type Checked = (Vec<GroupSpec>, Vec<usize>, Option<Tamper>, Option<Seed>);

fn validate(b: &Bench) -> Result<Checked, Error> {
    let clients: Vec<usize> = if b.full_sweep {
        SWEEP.to_vec()
    } else {
        b.clients.clone()
    };
    if clients.is_empty() {
        return Err(empty("--clients", "number"));
    }
    for &c in &clients {
        within(
            "--clients",
            c,
            16..=100_000,
            "16 to 100000 (below 16 the output order equals the input order too often for the \
             permutation check)",
        )?;
    }
    let groups: Vec<GroupSpec> = b
        .groups
        .iter()
        .map(|g| GroupSpec::parse(g))
        .collect::<Result<_, _>>()?;
    if groups.is_empty() {
        return Err(empty("--groups", "group"));
    }
    for &t in &b.threads {
        within("--threads", t, 1..=64, "1 to 64")?;
    }
    if b.threads.is_empty() {
        return Err(empty("--threads", "count"));
    }
    within("--reps", b.reps, 1..=10_000, "1 to 10000")?;
    within("--ec-width", b.ec_width, 1..=64, "1 to 64")?;
    within("--client-workers", b.client_workers, 1..=256, "1 to 256")?;
    if !(b.unit_seconds > 0.0 && b.unit_seconds <= 10.0) {
        return Err(Error::OutOfRange {
            option: "--unit-seconds",
            value: b.unit_seconds.to_string(),
            allowed: "above 0 and at most 10",
        });
    }
    let tamper = b.tamper.as_deref().map(Tamper::parse).transpose()?;
    if let Some(t) = tamper {
        for &c in &clients {
            t.check(c)?;
        }
    }
    let seed = b.seed.as_deref().map(str::parse::<Seed>).transpose()?;
    Ok((groups, clients, tamper, seed))
}

/// An option given no value.
fn empty(option: &'static str, what: &'static str) -> Error {
    Error::Empty { option, what }
}

/// Refuses `value` of `option` outside `range` (`allowed` in words).
fn within(
    option: &'static str,
    value: usize,
    range: std::ops::RangeInclusive<usize>,
    allowed: &'static str,
) -> Result<(), Error> {
    if range.contains(&value) {
        return Ok(());
    }
    Err(Error::OutOfRange {
        option,
        value: value.to_string(),
        allowed,
    })
}

fn group_info(spec: GroupSpec, ec_width: usize, unit_seconds: f64) -> GroupInfo {
    cmix::with_group!(spec, g => {
        let width = if spec == GroupSpec::Ec { ec_width } else { 1 };
        GroupInfo {
            label: spec.label().into(),
            family: spec.family().into(),
            description: g.describe(),
            exponent_bits: g.exponent_bits(),
            wire_bytes: g.wire_bytes(),
            payload_bytes_per_element: g.payload_bytes(),
            elements_per_slot: width,
            slot_payload_bytes: body_bytes(&g, width),
            unit_costs: unit_costs(&g, unit_seconds),
        }
    })
}

/// What the command line asked for (the envelope's parameters).
fn parameters(b: &Bench, groups: &[GroupSpec], clients: &[usize], tamper: Option<Tamper>) -> Value {
    json!({
        "clients": clients,
        "full_sweep": b.full_sweep,
        "groups": groups.iter().map(|g| g.label()).collect::<Vec<_>>(),
        "threads": b.threads,
        "reps": b.reps,
        "ec_width": b.ec_width,
        "client_workers": b.client_workers,
        "tamper": tamper.map(|t| t.to_string()),
        "unit_seconds": b.unit_seconds,
    })
}

/// How the runs were made: what the body says beside the measurements.
fn protocol(seeded: bool) -> Value {
    json!({
        "nodes": cmix::NODES,
        "default_mg_exponents": "256-bit (mg); full length is mg-full",
        "transport": "TLS 1.3 (rustls, ring provider) over TCP on 127.0.0.1, self-signed certificates made at start, pinned",
        "timer": "getrusage(RUSAGE_SELF) user and system time of each node process around each step",
        "threat_model": cmix::protocol::THREAT_MODEL,
        "keys": if seeded {
            "the nodes' and clients' keys are derived from the public seed (not secret)"
        } else {
            "the nodes' and clients' keys are drawn from the operating system's randomness"
        },
    })
}

/// Every configuration's runs: the outcome the envelope closes over.
fn bench(
    b: &Bench,
    groups: &[GroupSpec],
    clients: &[usize],
    tamper: Option<Tamper>,
    seed: Option<Seed>,
) -> Result<Outcome, Error> {
    let exe = std::env::current_exe().map_err(Error::OwnPath)?;
    let mut infos = vec![];
    for &g in groups {
        eprintln!("cmix-bench: timing the operations of {} alone", g.label());
        infos.push(group_info(g, b.ec_width, b.unit_seconds));
    }
    let mut runs = vec![];
    let mut inputs = Inputs::new();
    for (gi, &g) in groups.iter().enumerate() {
        for &c in clients {
            for &t in &b.threads {
                let cfg = RunConfig {
                    group: g,
                    width: infos[gi].elements_per_slot,
                    clients: c,
                    threads: t,
                    reps: b.reps,
                    tamper,
                    seed,
                    client_workers: b.client_workers,
                    exe: exe.clone(),
                };
                let fig = run(&cfg);
                eprintln!(
                    "cmix-bench: {} clients={c} threads={t}: {}{} ({:.1} s)",
                    g.label(),
                    fig.status,
                    fig.error
                        .as_deref()
                        .map(|e| format!(": {e}"))
                        .unwrap_or_default(),
                    fig.wall_s
                );
                inputs.add(
                    "run",
                    format!("{} clients={c} threads={t}", g.label()).as_bytes(),
                );
                for (label, bytes) in &fig.inputs {
                    inputs.add(label, bytes);
                }
                runs.push((cfg, fig, g.label().to_string()));
            }
        }
    }
    let body = report(protocol(seed.is_some()), &infos, &runs);
    print_summary(&body);
    Ok(Outcome {
        passed: passed(&runs),
        inputs,
        body,
    })
}

fn print_summary(rep: &serde_json::Value) {
    println!(
        "{:<8} {:>7} {:>3} {:>4} {:<14} {:>10} {:>10} {:>10} {:>9} {:>10}",
        "group",
        "clients",
        "thr",
        "node",
        "step",
        "user_s",
        "sys_s",
        "bound_s",
        "overhead",
        "net_cpu_s"
    );
    for r in rep["runs"].as_array().into_iter().flatten() {
        for s in r["steps"].as_array().into_iter().flatten() {
            println!(
                "{:<8} {:>7} {:>3} {:>4} {:<14} {:>10.4} {:>10.4} {:>10.4} {:>9.2} {:>10.4}",
                r["group"].as_str().unwrap_or(""),
                r["clients"],
                r["threads"],
                s["node"],
                s["step"].as_str().unwrap_or(""),
                s["user_s"]["mean"].as_f64().unwrap_or(f64::NAN),
                s["sys_s"]["mean"].as_f64().unwrap_or(f64::NAN),
                s["lower_bound_s"].as_f64().unwrap_or(f64::NAN),
                s["overhead"].as_f64().unwrap_or(f64::NAN),
                s["net"]["cpu_s"]["mean"].as_f64().unwrap_or(f64::NAN),
            );
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse(); // usage errors exit with 2
    match cli.command {
        Some(Sub::Node {
            id,
            threads,
            driver_cert,
        }) => {
            if id >= cmix::NODES || threads == 0 {
                eprintln!("cmix-bench node: bad input: --id must be 0 to 2, --threads at least 1");
                return ExitCode::from(2);
            }
            if let Err(e) = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build_global()
            {
                eprintln!("cmix-bench node {id}: {e}");
                return ExitCode::from(2);
            }
            match node_main(&NodeArgs {
                id,
                threads,
                driver_cert,
            }) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("cmix-bench node {id}: {e}");
                    ExitCode::from(1)
                }
            }
        }
        None => {
            let b = cli.bench;
            let (groups, clients, tamper, seed) = match validate(&b) {
                Ok(v) => v,
                Err(e) => return measure::cli::refuse(TOOL, format!("bad input: {e}")),
            };
            let envelope = Envelope::begin(
                TOOL,
                env!("CARGO_PKG_VERSION"),
                BODY_VERSION,
                parameters(&b, &groups, &clients, tamper),
                seed.as_ref(),
            );
            measure::cli::finish_run(
                &b.out,
                envelope,
                || bench(&b, &groups, &clients, tamper, seed),
                |r| {
                    format!(
                        " ({} runs)",
                        r["body"]["runs"].as_array().map_or(0, |v| v.len())
                    )
                },
            )
        }
    }
}
