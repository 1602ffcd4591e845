//! A run with `--transport tls`: the driver (the dealer and the senders) creates the run's
//! network (crate `netem`, `--network`), starts the bulletin board, every mix-server and the
//! verifier as processes of their own in it ([`crate::transport::process`]), runs its own
//! parties, and at the end reads every party's timers from the board into its report, which
//! then reads as a one-process run's, with the network and each process's traffic beside it. A party that fails, a party or board process that dies, or a cut
//! link stops the run: the driver kills every process it started, waits for them, and the report
//! says FAILED, naming the party and the step.
//!
//! Faults for the tests (`--fault`): `kill:<party>@<section>` (the driver kills the process of
//! `mixer-K`, `verifier` or `board` when it enters the section), `cut:<party>@<section>` (that
//! party cuts its own link to the board when it enters the section).

use std::sync::Arc;
use std::time::Duration;

use netem::{Network, Profile};
use serde_json::{json, Value};

use crate::measurement::report::{NetStats, Report, TimerRecord};
use crate::protocol::config::{Config, Curve};
use crate::protocol::run::{run, RunInfo};
use crate::protocol::setup::{Dealing, MixerKeys};
use crate::transport::board::BOARD;
use crate::transport::process::{self, Processes};
use crate::transport::{Ctx, Roles};
use crate::{Error, Result};

/// What a fault does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The driver kills the party's process.
    Kill,
    /// The party cuts its own link to the board.
    Cut,
}

/// A fault injected into a `tls` run (for the tests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Kill or cut.
    pub kind: FaultKind,
    /// `mixer k`, `verifier` or `bulletin board`.
    pub party: String,
    /// The section at whose start it happens.
    pub section: String,
}

impl std::str::FromStr for Fault {
    type Err = String;

    /// `kill:mixer-1@mixing`, `kill:board@get_blsigs`, `cut:verifier@get_verfsigs`.
    fn from_str(s: &str) -> std::result::Result<Fault, String> {
        let bad = || {
            format!(
                "--fault {s:?}: expected kill:<party>@<section> or cut:<party>@<section>, the \
                 party mixer-K, verifier or board"
            )
        };
        let (kind, rest) = s.split_once(':').ok_or_else(bad)?;
        let (party, section) = rest.split_once('@').ok_or_else(bad)?;
        let kind = match kind {
            "kill" => FaultKind::Kill,
            "cut" => FaultKind::Cut,
            _ => return Err(bad()),
        };
        let party = match party {
            "verifier" => "verifier".to_string(),
            "board" if kind == FaultKind::Kill => BOARD.to_string(),
            p => {
                let k: usize = p
                    .strip_prefix("mixer-")
                    .and_then(|k| k.parse().ok())
                    .ok_or_else(bad)?;
                format!("mixer {k}")
            }
        };
        if section.is_empty() {
            return Err(bad());
        }
        Ok(Fault {
            kind,
            party,
            section: section.to_string(),
        })
    }
}

/// The command line of a party's process, after the executable.
pub fn party_args(cfg: &Config, threads: u64, name: &str, faults: &[Fault]) -> Vec<String> {
    let mut a: Vec<String> = vec!["party".into()];
    match name.strip_prefix("mixer ") {
        Some(k) => a.extend(["--role".into(), "mixer".into(), "--id".into(), k.into()]),
        None => a.extend(["--role".into(), "verifier".into()]),
    }
    let s = |x: &str| x.to_string();
    a.extend([
        s("--n"),
        cfg.n.to_string(),
        s("--m"),
        cfg.m.to_string(),
        s("--curve"),
        s(cfg.curve.name()),
        s("--mode"),
        s(cfg.mode.name()),
        s("--security"),
        s(cfg.security.name()),
        s("--threads"),
        threads.to_string(),
    ]);
    if let Some(seed) = &cfg.seed {
        a.extend([s("--seed"), seed.hex()]);
    }
    if let Some(t) = cfg.tamper {
        a.extend([s("--tamper"), s(t.name())]);
    }
    for f in faults {
        if f.kind == FaultKind::Cut && f.party == name {
            a.extend([s("--cut-at"), f.section.clone()]);
        }
    }
    a
}

/// The names of a run's parties on the board, besides the driver.
pub fn party_names(m: usize) -> Vec<String> {
    (0..m)
        .map(|k| format!("mixer {k}"))
        .chain(["verifier".to_string()])
        .collect()
}

/// The tag under which a party posts its timers at the end.
fn records_tag(name: &str) -> String {
    format!("records/{name}")
}

/// One process's name and timers.
pub type ProcessRecords = (String, Vec<TimerRecord>);

/// What a `tls` run adds to the report: the network, and each process's time, CPU and
/// traffic per section.
#[derive(Clone, Debug)]
pub struct NetworkFigures {
    /// The network as the report describes it (profile, placement, delay line).
    pub network: Value,
    /// Every process's timers: the driver's, then each party's.
    pub records: Vec<ProcessRecords>,
    /// The driver's link: bytes on the socket, TLS included.
    pub driver_socket: (u64, u64),
    /// Bytes of the posts the driver received, by author (every post but its own).
    pub posted_by: Vec<(String, u64)>,
    /// The round trip between two parties, in seconds (0 on the host's loopback).
    pub rtt_s: f64,
}

impl NetworkFigures {
    /// The body's `network` block.
    pub fn to_json(&self) -> Value {
        let by: serde_json::Map<String, Value> = self
            .posted_by
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        let t0 = self
            .records
            .iter()
            .flat_map(|(_, r)| r.iter().map(|r| r.start_unix_s))
            .fold(f64::INFINITY, f64::min);
        let mut block = self.network.clone();
        block["parties"] = self
            .records
            .iter()
            .flat_map(|(party, r)| rows_of(party, r, t0))
            .collect();
        block["summary"] = self.records.iter().map(|(p, r)| summary_of(p, r)).collect();
        block["sections"] = sections_of(&self.records, self.rtt_s).into();
        block["driver_link"] = json!({"bytes_sent": self.driver_socket.0,
                                      "bytes_received": self.driver_socket.1});
        block["post_bytes_by_author"] = by.into();
        block
    }
}

/// One row per section of a process (and per step of its own that moved messages): its wall
/// time, CPU time, traffic, and when it began (seconds after the run's first timer).
fn rows_of(party: &str, records: &[TimerRecord], t0: f64) -> Vec<Value> {
    records
        .iter()
        .filter(|r| r.section || r.net.posts + r.net.reads > 0)
        .map(|r| {
            json!({
                "party": party,
                "path": r.path,
                "label": r.name,
                "start_s": r.start_unix_s - t0,
                "wall_s": r.seconds,
                "cpu_s": r.cpu_seconds,
                "net": r.net.to_json(),
            })
        })
        .collect()
}

/// A process's whole run: its `main` timer's wall and CPU time, and its traffic in all.
fn summary_of(party: &str, records: &[TimerRecord]) -> Value {
    let main = records
        .iter()
        .find(|r| r.path.is_empty() && r.name == "main");
    let mut net = NetStats::default();
    for r in records {
        net.add(&r.net);
    }
    json!({
        "party": party,
        "wall_s": main.map_or(0.0, |r| r.seconds),
        "cpu_s": main.map_or(0.0, |r| r.cpu_seconds),
        "net": net.to_json(),
    })
}

/// The sections below `main` as the whole run saw them: from the first process entering one to
/// the last leaving it, the deepest chain of posts read inside it, and the least time that
/// chain takes on the network (its hops times the round trip).
fn sections_of(records: &[ProcessRecords], rtt_s: f64) -> Vec<Value> {
    let top = |r: &TimerRecord| r.section && r.path.len() == 1 && r.path[0] == "main";
    let names: Vec<&str> = records
        .first()
        .map(|(_, r)| {
            r.iter()
                .filter(|r| top(r))
                .map(|r| r.name.as_str())
                .collect()
        })
        .unwrap_or_default();
    names
        .into_iter()
        .map(|name| {
            let (mut first, mut last, mut hops) = (f64::INFINITY, 0.0f64, 0u64);
            let mut walls = serde_json::Map::new();
            for (party, rs) in records {
                for r in rs
                    .iter()
                    .filter(|r| r.path.get(1).map(String::as_str) == Some(name))
                {
                    hops = hops.max(r.net.hops);
                }
                if let Some(r) = rs.iter().find(|r| top(r) && r.name == name) {
                    first = first.min(r.start_unix_s);
                    last = last.max(r.start_unix_s + r.seconds);
                    hops = hops.max(r.net.hops);
                    walls.insert(party.clone(), json!(r.seconds));
                }
            }
            json!({
                "section": name,
                "wall_s": (last - first).max(0.0),
                "hops": hops,
                "network_floor_s": hops as f64 * rtt_s,
                "party_wall_s": walls,
            })
        })
        .collect()
}

/// The emulated network, as the report describes it.
fn network_json(net: &Network) -> Value {
    let placement = if net.is_emulated() {
        "the board, each mix-server, the verifier and the driver in a network namespace of \
             its own, each linked to one emulated switch (netem): the profile's rate on every \
             link in each direction, half its round trip added each way; every post crosses the \
             network to the board and from it"
    } else {
        "every process on the host's loopback, each on an address of its own"
    };
    netem::network_json(net, placement)
}

/// The driver's side of a `tls` run: creates the network, starts the processes, runs the
/// dealer and the senders, and fills its report with every party's timers. The report is
/// returned whatever happened; the network and every process are gone when it returns.
pub fn run_driver(
    cfg: &Config,
    threads: u64,
    faults: &[Fault],
    profile: &Profile,
) -> (Report, Result<(RunInfo, NetworkFigures)>) {
    let names = party_names(cfg.m);
    let mut report = Report::new(cfg.m, true);
    let stopped = |step: &str, why: String| Error::Stopped {
        party: "driver".into(),
        step: step.into(),
        why,
    };
    let net = match Network::create(profile, process::slots(names.len())) {
        Ok(n) => n,
        Err(e) => return (report, Err(stopped("making the network", e.to_string()))),
    };
    // The delay line is a thread of this process: its CPU time is not the driver's.
    if let Some(meter) = net.delay_meter() {
        report.exclude_cpu(Arc::new(move || meter.cpu().as_secs_f64()));
    }
    let args_of = |name: &str| party_args(cfg, threads, name, faults);
    let procs = match Processes::launch(&names, args_of, &net) {
        Ok(p) => p,
        Err(e) => return (report, Err(stopped("starting the parties", e.to_string()))),
    };
    let roles = Roles {
        m: cfg.m,
        mixers: Vec::new(),
        verifier: false,
        driver: true,
    };
    let mut c = Ctx::networked(report, roles, procs.board());
    for f in faults.iter().filter(|f| f.kind == FaultKind::Kill) {
        c.on_section(&f.section, procs.killer(&f.party));
    }
    let result = drive(cfg, &mut c, &procs, &names).map(|(info, records)| {
        let board = c.board().expect("a networked run").clone();
        let mut posted_by: Vec<(String, u64)> = board.received_by().into_iter().collect();
        posted_by.sort();
        let rtt_s = profile.link.map_or(0.0, |l| l.rtt.as_secs_f64());
        let figures = NetworkFigures {
            network: Value::Null,
            records,
            driver_socket: board.counts(),
            posted_by,
            rtt_s,
        };
        (info, figures)
    });
    match &result {
        Ok(_) => procs.finish(Duration::from_secs(10)),
        Err(_) => procs.abort(),
    }
    // Described once every process has ended: the delay line's figures are final.
    let network = network_json(&net);
    drop(net);
    let result = result.map(|(info, mut figures)| {
        figures.network = network;
        (info, figures)
    });
    (c.into_report(), result)
}

/// The run as the driver does it: the protocol (the dealer's keys handed to each mixer through
/// its pipe), then every party's timers read from the board into the report. Returns the run's
/// outcome and every process's timers, the driver's first.
fn drive(
    cfg: &Config,
    c: &mut Ctx,
    procs: &Processes,
    names: &[String],
) -> Result<(RunInfo, Vec<ProcessRecords>)> {
    let deliver = |k: usize, bytes: &[u8]| -> Result<()> {
        procs
            .deliver(&format!("mixer {k}"), bytes)
            .map_err(|f| Error::Stopped {
                party: f.party,
                step: "main > preprocessing".into(),
                why: f.why,
            })
    };
    let info = run(cfg, c, &Dealing::Deliver(&deliver))?;
    let mut records = vec![("driver".to_string(), c.records())];
    for name in names {
        let theirs: Vec<TimerRecord> = c.fetch(&records_tag(name)).map_err(|e| match e {
            Error::Stopped { party, why, .. } => Error::Stopped {
                party,
                step: "collecting the parties' timers".into(),
                why,
            },
            other => other,
        })?;
        c.fill(&theirs);
        records.push((name.clone(), theirs));
    }
    let unfilled = c.unfilled();
    if !unfilled.is_empty() {
        return Err(Error::Stopped {
            party: "driver".into(),
            step: "collecting the parties' timers".into(),
            why: format!("no figures for {}", unfilled.join("; ")),
        });
    }
    Ok((info, records))
}

/// A party's process (`db-sm-rsm party --role mixer --id K ...` or `--role verifier`): joins
/// the run, does its parties' work, posts its timers. Its exit status: 0 when its part ran to
/// the end, 1 when the run stopped.
pub fn run_party(cfg: &Config, mixer: Option<usize>, cut_at: &[String]) -> i32 {
    let name = mixer.map_or_else(|| "verifier".to_string(), |k| format!("mixer {k}"));
    let joined = match process::join(&name) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("db-sm-rsm {name}: cannot join the run: {e}");
            return 1;
        }
    };
    let roles = Roles {
        m: cfg.m,
        mixers: mixer.into_iter().collect(),
        verifier: mixer.is_none(),
        driver: false,
    };
    let board = joined.board.clone();
    let mut c = Ctx::networked(Report::new(cfg.m, false), roles, board.clone());
    for section in cut_at {
        let b = Arc::clone(&board);
        c.on_section(section, Box::new(move || b.cut()));
    }
    let receive_bn = || -> Result<MixerKeys<ark_bn254::Bn254>> { joined.from_driver() };
    let receive_bls = || -> Result<MixerKeys<ark_bls12_381::Bls12_381>> { joined.from_driver() };
    let dealing = match (mixer, cfg.curve) {
        (None, _) => Dealing::Nothing,
        (Some(_), Curve::Bn254) => Dealing::Receive(&receive_bn),
        (Some(_), Curve::Bls12_381) => Dealing::ReceiveBls(&receive_bls),
    };
    let outcome = run(cfg, &mut c, &dealing).and_then(|_| {
        let records = c.records();
        c.publish(&records_tag(&name), &records)
    });
    match outcome {
        Ok(()) => {
            process::done();
            board.leave(Duration::from_secs(30));
            0
        }
        Err(e) => {
            eprintln!("db-sm-rsm {name}: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_and_bad_ones_are_refused() {
        let f: Fault = "kill:mixer-1@mixing".parse().unwrap();
        assert_eq!(
            (f.kind, f.party.as_str(), f.section.as_str()),
            (FaultKind::Kill, "mixer 1", "mixing")
        );
        let f: Fault = "kill:board@get_blsigs".parse().unwrap();
        assert_eq!(f.party, BOARD);
        let f: Fault = "cut:verifier@get_verfsigs".parse().unwrap();
        assert_eq!(f.kind, FaultKind::Cut);
        for bad in [
            "kill:mixer@x",
            "cut:board@x",
            "drop:mixer-1@x",
            "kill:mixer-1",
            "kill:mixer-1@",
        ] {
            assert!(bad.parse::<Fault>().is_err(), "{bad}");
        }
    }
}
