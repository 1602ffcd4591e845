//! netem-check: can this machine create the emulated network, and what does it measure?
//!
//! For each profile (by default lan, region and wan) it checks the rights and programs, creates
//! a network of two parties and measures the round-trip time between them (and, with `--bulk`,
//! the throughput of one bulk transfer and the delay line's CPU per MB). Exit 0: every profile
//! could be created and measured; 1: a refusal (one line naming what is missing) or a failed
//! measurement; 2: bad usage.

use std::process::ExitCode;
use std::time::Duration;

use netem::{probe, Network, Profile, Tools};

const USAGE: &str = "usage: netem-check [--profile P]... [--rounds N] [--bulk MB]
  --profile P  a profile to check: none, lan, region, wan or rtt=50ms,rate=200mbit
               (repeatable; default: lan, region, wan)
  --rounds N   round trips to time per profile (default: as many as fit in about 1 s, 5 to 200)
  --bulk MB    also send MB megabytes from one party to the other and report the throughput
               and the delay line's CPU per MB";

struct Options {
    profiles: Vec<Profile>,
    rounds: Option<usize>,
    bulk_mb: Option<u64>,
}

fn parse_args() -> Result<Options, String> {
    let mut opts = Options {
        profiles: Vec::new(),
        rounds: None,
        bulk_mb: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--profile" => opts.profiles.push(
                value("--profile")?
                    .parse()
                    .map_err(|e| format!("--profile: {e}"))?,
            ),
            "--rounds" => {
                let n: usize = value("--rounds")?
                    .parse()
                    .map_err(|_| "--rounds takes a whole number".to_string())?;
                if n == 0 {
                    return Err("--rounds must be at least 1".into());
                }
                opts.rounds = Some(n);
            }
            "--bulk" => {
                let mb: u64 = value("--bulk")?
                    .parse()
                    .map_err(|_| "--bulk takes a whole number of megabytes".to_string())?;
                if mb == 0 || mb > 10_000 {
                    return Err("--bulk takes 1 to 10000 megabytes".into());
                }
                opts.bulk_mb = Some(mb);
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if opts.profiles.is_empty() {
        opts.profiles = vec![Profile::lan(), Profile::region(), Profile::wan()];
    }
    Ok(opts)
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("netem-check: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let tools = Tools::discover();
    // Refuse first, before any network is made.
    for p in &opts.profiles {
        if let Err(refusal) = netem::check(p, &tools) {
            eprintln!("netem-check: {refusal}");
            return ExitCode::from(1);
        }
    }
    println!(
        "netem-check: can create {} (ip {}, tc {}, iptables {})",
        opts.profiles
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        tools.ip.display(),
        tools.tc.display(),
        tools.iptables.display()
    );
    let mut failed = false;
    for p in &opts.profiles {
        if let Err(e) = measure(p, &tools, &opts) {
            eprintln!("netem-check: {}: {e}", p.name);
            failed = true;
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn measure(p: &Profile, tools: &Tools, opts: &Options) -> Result<(), Box<dyn std::error::Error>> {
    let net = Network::create_with(p, 2, tools)?;
    let rtt = p.link.map_or(Duration::ZERO, |l| l.rtt);
    let rounds = opts.rounds.unwrap_or_else(|| {
        let fit = 1.0 / rtt.as_secs_f64().max(1e-4);
        (fit as usize).clamp(5, 200)
    });
    let times = probe::round_trips(&net, 1, 0, rounds)?;
    let mut line = format!(
        "{p}: RTT median {} (min {}, max {}, {} rounds)",
        ms(probe::median(&times)),
        ms(times[0]),
        ms(times[times.len() - 1]),
        times.len()
    );
    if let Some(mb) = opts.bulk_mb {
        let before = net.delay_stats();
        let b = probe::bulk(&net, 0, 1, mb << 20)?;
        line += &format!(
            "; {mb} MiB in {:.2} s: {:.1} Mbit/s steady, {:.1} Mbit/s mean",
            b.elapsed.as_secs_f64(),
            b.steady_bits_per_second / 1e6,
            b.mean_bits_per_second / 1e6
        );
        if let (Some(before), Some(after)) = (before, net.delay_stats()) {
            let bytes = (after.bytes - before.bytes) as f64;
            let cpu = (after.cpu - before.cpu).as_secs_f64();
            line += &format!(
                "; delay line {:.2} ms CPU per MB, heard of packets {:.0} µs after receipt \
                 (max {:.0} µs, {:.0}% time-stamped), released late by {:.0} µs on average \
                 (max {:.0} µs), real-time {}",
                cpu * 1e3 / (bytes / 1e6).max(1e-9),
                after.hearing_mean.as_secs_f64() * 1e6,
                after.hearing_max.as_secs_f64() * 1e6,
                after.stamped * 100.0,
                after.late_mean.as_secs_f64() * 1e6,
                after.late_max.as_secs_f64() * 1e6,
                if after.realtime { "yes" } else { "no" }
            );
        }
    }
    println!("{line}");
    Ok(())
}
