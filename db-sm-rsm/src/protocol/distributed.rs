//! A run with `--transport tls`: the driver (the dealer and the senders) starts the bulletin
//! board, every mix-server and the verifier as processes of their own
//! ([`crate::transport::process`]), runs its own parties, and at the end reads every party's
//! timers from the board into its report, which then reads as a one-process run's, with each
//! process's traffic beside it. A party that fails, a party or board process that dies, or a cut
//! link stops the run: the driver kills every process it started, waits for them, and the report
//! says FAILED, naming the party and the step.
//!
//! Faults for the tests (`--fault`): `kill:<party>@<section>` (the driver kills the process of
//! `mixer-K`, `verifier` or `board` when it enters the section), `cut:<party>@<section>` (that
//! party cuts its own link to the board when it enters the section).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::measurement::report::{Report, TimerRecord};
use crate::protocol::config::{Config, Curve};
use crate::protocol::run::{run, RunInfo};
use crate::protocol::setup::{Dealing, MixerKeys};
use crate::transport::board::BOARD;
use crate::transport::process::{self, Network};
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

/// What a `tls` run adds to the report: each process's traffic and CPU per section.
#[derive(Clone, Debug)]
pub struct NetworkFigures {
    /// One row per process and section: `{party, path, label, wall_s, cpu_s, net...}`.
    pub rows: Vec<Value>,
    /// The driver's link: bytes on the socket, TLS included.
    pub driver_socket: (u64, u64),
    /// Bytes of the posts the driver received, by author (every post but its own).
    pub posted_by: Vec<(String, u64)>,
    /// The emulated network, if any.
    pub profile: Option<netshape::Profile>,
}

impl NetworkFigures {
    /// The body's `network` block.
    pub fn to_json(&self) -> Value {
        let by: serde_json::Map<String, Value> = self
            .posted_by
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        json!({
            "profile": self.profile.map(|p| json!({
                "name": p.name, "rtt_ms": p.rtt.as_secs_f64() * 1e3, "rate_bit_s": p.rate_bit_s,
            })),
            "parties": self.rows,
            "driver_link": {"bytes_sent": self.driver_socket.0,
                            "bytes_received": self.driver_socket.1},
            "post_bytes_by_author": by,
        })
    }
}

fn rows_of(party: &str, records: &[TimerRecord]) -> Vec<Value> {
    records
        .iter()
        .filter(|r| r.section || r.net.posts + r.net.reads > 0)
        .map(|r| {
            json!({
                "party": party,
                "path": r.path,
                "label": r.name,
                "wall_s": r.seconds,
                "cpu_s": r.cpu_seconds,
                "net": r.net.to_json(),
            })
        })
        .collect()
}

/// The driver's side of a `tls` run: starts the processes, runs the dealer and the senders, and
/// fills its report with every party's timers. The report is returned whatever happened.
pub fn run_driver(
    cfg: &Config,
    threads: u64,
    faults: &[Fault],
    network: Option<netshape::Profile>,
) -> (Report, Result<(RunInfo, NetworkFigures)>) {
    let names = party_names(cfg.m);
    let report = Report::new(cfg.m, true);
    // The emulated network, if asked for: removed when `lab` goes, after every process.
    let mut lab = match network {
        None => None,
        Some(profile) => {
            let hosts: Vec<&str> = names.iter().map(String::as_str).collect();
            match netshape::Lab::star("dbsm", &hosts, Some("driver"), profile) {
                Ok(mut l) => {
                    // This program carries the relay (`db-sm-rsm relay ...`).
                    if let Ok(exe) = std::env::current_exe() {
                        l.use_relay(exe, vec!["relay".into()]);
                    }
                    Some(l)
                }
                Err(why) => {
                    let failure = Error::Stopped {
                        party: "driver".into(),
                        step: "making the emulated network".into(),
                        why,
                    };
                    return (report, Err(failure));
                }
            }
        }
    };
    let args_of = |name: &str| party_args(cfg, threads, name, faults);
    let net = match Network::launch(&names, args_of, lab.as_mut()) {
        Ok(n) => n,
        Err(e) => {
            let failure = Error::Stopped {
                party: "driver".into(),
                step: "starting the parties".into(),
                why: e.to_string(),
            };
            return (report, Err(failure));
        }
    };
    let roles = Roles {
        m: cfg.m,
        mixers: Vec::new(),
        verifier: false,
        driver: true,
    };
    let mut c = Ctx::networked(report, roles, net.board());
    for f in faults.iter().filter(|f| f.kind == FaultKind::Kill) {
        c.on_section(&f.section, net.killer(&f.party));
    }
    let result = (|| {
        let deliver = |k: usize, bytes: &[u8]| -> Result<()> {
            net.deliver(&format!("mixer {k}"), bytes)
                .map_err(|f| Error::Stopped {
                    party: f.party,
                    step: "main > preprocessing".into(),
                    why: f.why,
                })
        };
        let info = run(cfg, &mut c, &Dealing::Deliver(&deliver))?;
        let mut rows = rows_of("driver", &c.records());
        for name in &names {
            let records: Vec<TimerRecord> = c.fetch(&records_tag(name))?;
            c.fill(&records);
            rows.extend(rows_of(name, &records));
        }
        let unfilled = c.unfilled();
        if !unfilled.is_empty() {
            return Err(Error::Stopped {
                party: "driver".into(),
                step: "collecting the parties' timers".into(),
                why: format!("no figures for {}", unfilled.join("; ")),
            });
        }
        let board = c.board().expect("a networked run").clone();
        let mut posted_by: Vec<(String, u64)> = board.received_by().into_iter().collect();
        posted_by.sort();
        Ok((
            info,
            NetworkFigures {
                rows,
                driver_socket: board.counts(),
                posted_by,
                profile: network,
            },
        ))
    })();
    match &result {
        Ok(_) => net.finish(Duration::from_secs(10)),
        Err(_) => net.abort(),
    }
    drop(lab);
    (c.into_report(), result)
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
            board.goodbye();
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
