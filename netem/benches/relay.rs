//! What the emulated network adds, per profile: the measured round trip against the profile's,
//! the delay line's own lateness, the throughput of one bulk transfer against the rate, and the
//! CPU the delay line spends per MB forwarded, beside the same transfer without delay (rate
//! only) so that its cost can be read as a difference.
//!
//! `cargo bench -p netem --bench relay` (root; about a minute). Single TCP flows, one thread
//! per end, the delay line on its own thread.

use std::time::Duration;

use netem::{probe, Network, Profile, Tools};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

struct Row {
    profile: Profile,
    rounds: usize,
    bulk_mib: u64,
}

fn row(spec: &str, rounds: usize, bulk_mib: u64) -> Row {
    Row {
        profile: spec.parse().expect("a profile"),
        rounds,
        bulk_mib,
    }
}

fn main() {
    if let Err(refusal) = netem::check(&Profile::wan(), &Tools::discover()) {
        println!("relay bench: skipped: {refusal}");
        return;
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "netem relay bench: {} CPUs, load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    create_and_remove();
    wake_up_latency();
    println!(
        "{:<30} {:>9} {:>10} {:>9} {:>8} {:>8} {:>6} {:>10} {:>7} {:>9} {:>9}",
        "profile",
        "RTT set",
        "RTT median",
        "excess",
        "hear µs",
        "late µs",
        "bulk",
        "steady",
        "of rate",
        "line/MB",
        "all/MB"
    );
    for r in [
        row("name=rate-10g,rtt=0ms,rate=10gbit", 0, 256),
        row("lan", 200, 256),
        row("name=rate-1g,rtt=0ms,rate=1gbit", 0, 96),
        row("region", 50, 96),
        row("name=rate-100m,rtt=0ms,rate=100mbit", 0, 24),
        row("wan", 20, 24),
        row("rtt=50ms,rate=200mbit", 30, 48),
    ] {
        measure_profile(&r);
    }
    println!(
        "excess: RTT median less the profile's. hear: from the kernel's receipt of a packet to \
         the delay line hearing of it (compensated). late: release after the due time (added, \
         per direction). steady: second half of the transfer. line/MB: the delay line's CPU per \
         MB. all/MB: sender + receiver + delay line threads."
    );
}

/// How long a network takes to make and to remove, for 2 and 16 parties.
fn create_and_remove() {
    for parties in [2, 16] {
        let t = std::time::Instant::now();
        let net = Network::create(&Profile::wan(), parties).unwrap();
        let made = t.elapsed();
        let t = std::time::Instant::now();
        drop(net);
        println!(
            "wan network of {parties} parties: created in {:.0} ms, removed in {:.0} ms",
            ms(made),
            ms(t.elapsed())
        );
    }
}

/// The machine's own wake-up latency: no delay line, both ends idle before each packet.
fn wake_up_latency() {
    let base = Network::create(&"name=base,rtt=0ms".parse().unwrap(), 2).unwrap();
    let hot = probe::round_trips(&base, 1, 0, 200).unwrap();
    let cold: Vec<(u64, Duration)> = [(10u64, 100usize), (50, 30), (100, 15)]
        .into_iter()
        .map(|(gap, n)| {
            let t = probe::spaced_round_trips(&base, 1, 0, n, Duration::from_millis(gap)).unwrap();
            (gap, probe::median(&t))
        })
        .collect();
    println!(
        "namespaces without delay: RTT median {:.3} ms back to back; after idle: {} \
         (the machine's wake-up latency, part of every profile's figure below)",
        ms(probe::median(&hot)),
        cold.iter()
            .map(|(gap, m)| format!("{:.3} ms after {gap} ms", ms(*m)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    drop(base);
}

/// One profile's row: round trips, the delay line's lateness, a bulk transfer's throughput and
/// the CPU it cost.
fn measure_profile(r: &Row) {
    let net = Network::create(&r.profile, 2).unwrap();
    let link = r.profile.link.unwrap();
    let (median, excess) = if r.rounds > 0 {
        let t = probe::round_trips(&net, 1, 0, r.rounds).unwrap();
        let m = probe::median(&t);
        (
            format!("{:.3} ms", ms(m)),
            format!("{:+.3} ms", ms(m) - ms(link.rtt)),
        )
    } else {
        ("-".into(), "-".into())
    };
    let before = net.delay_stats();
    let b = probe::bulk(&net, 0, 1, r.bulk_mib << 20).unwrap();
    let after = net.delay_stats();
    let mb = (r.bulk_mib << 20) as f64 / 1e6;
    let line_cpu = match (&before, &after) {
        (Some(x), Some(y)) => (y.cpu - x.cpu).as_secs_f64(),
        _ => 0.0,
    };
    let all_cpu = (b.sender_cpu + b.receiver_cpu).as_secs_f64() + line_cpu;
    let rate = link.rate.map_or(f64::NAN, |r| r.bits_per_second() as f64);
    let (hear, late) = after
        .as_ref()
        .map_or((String::from("-"), String::from("-")), |s| {
            (
                format!("{:.0}", us(s.hearing_mean)),
                format!("{:.0}", us(s.late_mean)),
            )
        });
    println!(
        "{:<30} {:>6.1} ms {:>10} {:>9} {:>8} {:>8} {:>4}Mi {:>5.0} Mb/s {:>6.1}% {:>6.2} ms {:>6.2} ms",
        r.profile.to_string(),
        ms(link.rtt),
        median,
        excess,
        hear,
        late,
        r.bulk_mib,
        b.steady_bits_per_second / 1e6,
        100.0 * b.steady_bits_per_second / rate,
        line_cpu * 1e3 / mb,
        all_cpu * 1e3 / mb
    );
    if let Some(s) = after {
        if s.overruns > 0 || !s.realtime || s.failure.is_some() {
            println!(
                "  delay line: {} overruns, real-time {}, failure {:?}",
                s.overruns, s.realtime, s.failure
            );
        }
    }
}
