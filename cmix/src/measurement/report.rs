//! The report's body (inside the suite's envelope, which says what ran, on what machine and
//! whether it passed): the protocol as run, the groups, and per run, node and step the
//! measured times with their statistics, bytes, counted operations, lower bound and overhead;
//! ec against mg per step and per payload byte. The keys are described in
//! `docs/report.schema.json`; verdicts against targets are the analysis's, not the report's.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::measurement::stats::{summary, Summary};
use crate::measurement::units::{lower_bound, UnitCosts};
use crate::process::driver::{RunConfig, RunFigures};
use crate::process::{Step, Times, STEPS};
use crate::NODES;

/// What the report says about a group.
#[derive(Clone, Debug)]
pub struct GroupInfo {
    /// The group's command-line name.
    pub label: String,
    /// The kind of group: an elliptic curve or a multiplicative group.
    pub family: String,
    /// The group in words (curve or prime, exponent length).
    pub description: String,
    /// The bits of a secret exponent.
    pub exponent_bits: u32,
    /// The bytes of one element on the wire.
    pub wire_bytes: usize,
    /// The payload bytes one element carries.
    pub payload_bytes_per_element: usize,
    /// The elements of one message slot.
    pub elements_per_slot: usize,
    /// Payload per slot, the 20-byte header excluded.
    pub slot_payload_bytes: usize,
    /// Each counted operation's measured cost, for the lower bounds.
    pub unit_costs: UnitCosts,
}

fn s(xs: &[f64]) -> Value {
    serde_json::to_value(summary(xs)).expect("a summary serialises")
}

fn times_json(ts: &[Times]) -> Value {
    json!({
        "user_s": s(&ts.iter().map(|t| t.user).collect::<Vec<_>>()),
        "sys_s": s(&ts.iter().map(|t| t.sys).collect::<Vec<_>>()),
        "cpu_s": s(&ts.iter().map(|t| t.cpu()).collect::<Vec<_>>()),
        "wall_s": s(&ts.iter().map(|t| t.real).collect::<Vec<_>>()),
    })
}

fn step_once(step: &Step, costs: &UnitCosts) -> Value {
    let ops: BTreeMap<String, f64> = step
        .ops
        .iter()
        .map(|(k, v)| (k.clone(), *v as f64))
        .collect();
    json!({
        "compute": {"user_s": step.compute.user, "sys_s": step.compute.sys, "wall_s": step.compute.real},
        "net": {"user_s": step.net.user, "sys_s": step.net.sys, "wall_s": step.net.real},
        "bytes_sent": step.bytes_sent,
        "bytes_received": step.bytes_received,
        "ops": step.ops,
        "lower_bound_s": lower_bound(&ops, costs),
    })
}

/// One node's step over the repetitions.
pub struct StepRow {
    /// The node.
    pub node: usize,
    /// The step's report label.
    pub step: String,
    /// Its computation, one entry per repetition.
    pub compute: Vec<Times>,
    /// Its network I/O, one entry per repetition.
    pub net: Vec<Times>,
    /// Bytes it sent, per repetition.
    pub bytes_sent: Vec<f64>,
    /// Bytes it received, per repetition.
    pub bytes_received: Vec<f64>,
    /// Its counted operations, mean over the repetitions.
    pub ops: BTreeMap<String, f64>,
    /// The CPU time those operations alone cost.
    pub lower_bound_s: f64,
}

impl StepRow {
    fn cpu(&self) -> Summary {
        summary(&self.compute.iter().map(|t| t.cpu()).collect::<Vec<_>>())
    }
    fn net_cpu(&self) -> Summary {
        summary(&self.net.iter().map(|t| t.cpu()).collect::<Vec<_>>())
    }
}

/// Rows of a run: every node and step, over the repetitions.
pub fn step_rows(fig: &RunFigures, costs: &UnitCosts) -> Vec<StepRow> {
    let mut rows = vec![];
    for node in 0..NODES {
        for step in STEPS {
            let per_rep: Vec<&Step> = fig
                .rounds
                .iter()
                .filter_map(|r| r.get(node))
                .filter_map(|f| f.steps.get(step))
                .collect();
            if per_rep.is_empty() {
                continue;
            }
            // Counts are the same in every repetition; take their mean all the same.
            let mut ops: BTreeMap<String, f64> = BTreeMap::new();
            for st in &per_rep {
                for (k, v) in &st.ops {
                    *ops.entry(k.clone()).or_default() += *v as f64 / per_rep.len() as f64;
                }
            }
            let lb = lower_bound(&ops, costs);
            rows.push(StepRow {
                node,
                step: step.to_string(),
                compute: per_rep.iter().map(|s| s.compute).collect(),
                net: per_rep.iter().map(|s| s.net).collect(),
                bytes_sent: per_rep.iter().map(|s| s.bytes_sent as f64).collect(),
                bytes_received: per_rep.iter().map(|s| s.bytes_received as f64).collect(),
                ops,
                lower_bound_s: lb,
            });
        }
    }
    rows
}

/// One step's row of a run: its times, bytes, counted operations and lower bound, and the
/// overheads against that bound.
fn step_json(cfg: &RunConfig, r: &StepRow, payload: f64) -> Value {
    let cpu = r.cpu().mean;
    let net = r.net_cpu().mean;
    let mut t = times_json(&r.compute);
    let obj = t.as_object_mut().expect("an object");
    obj.insert("node".into(), json!(r.node));
    obj.insert("step".into(), json!(r.step));
    obj.insert("net".into(), times_json(&r.net));
    obj.insert("bytes_sent".into(), s(&r.bytes_sent));
    obj.insert("bytes_received".into(), s(&r.bytes_received));
    obj.insert("ops".into(), json!(r.ops));
    obj.insert("lower_bound_s".into(), json!(r.lower_bound_s));
    obj.insert(
        "overhead".into(),
        if r.lower_bound_s > 0.0 {
            json!(cpu / r.lower_bound_s)
        } else {
            Value::Null
        },
    );
    obj.insert(
        "overhead_with_net".into(),
        if r.lower_bound_s + net > 0.0 {
            json!((cpu + net) / (r.lower_bound_s + net))
        } else {
            Value::Null
        },
    );
    obj.insert("cpu_per_payload_byte_s".into(), json!(cpu / payload));
    obj.insert(
        "wall_lower_bound_s".into(),
        json!(r.lower_bound_s / cfg.threads as f64),
    );
    t
}

/// Each node's set-up: its TLS handshakes with the clients, its mesh with the other nodes, the
/// clients' registration and the key generation.
fn setup_json(fig: &RunFigures, info: &GroupInfo) -> Vec<Value> {
    (0..NODES)
        .map(|i| {
            let st = fig.setup.get(i).and_then(|s| s.as_ref());
            let k = fig.keys.get(i).and_then(|k| k.as_ref());
            json!({
                "node": i,
                "tls_handshakes": st.map(|s| json!({
                    "count": s.handshake_count,
                    "user_s": s.handshakes.compute.user,
                    "sys_s": s.handshakes.compute.sys,
                    "wall_s": s.handshakes.compute.real,
                    "cpu_per_handshake_s": if s.handshake_count > 0 { s.handshakes.compute.cpu() / s.handshake_count as f64 } else { 0.0 },
                    "bytes_sent": s.handshakes.bytes_sent,
                    "bytes_received": s.handshakes.bytes_received,
                })),
                "mesh": st.map(|s| json!({
                    "handshakes": s.mesh_handshakes,
                    "user_s": s.mesh.net.user, "sys_s": s.mesh.net.sys, "wall_s": s.mesh.net.real,
                    "bytes_sent": s.mesh.bytes_sent, "bytes_received": s.mesh.bytes_received,
                })),
                "registration": st.map(|s| step_once(&s.registration, &info.unit_costs)),
                "keys": k.map(|k| step_once(&k.step, &info.unit_costs)),
            })
        })
        .collect()
}

/// One run's entry of the report's body: its configuration, status, steps, set-up, the
/// clients' side, the delivery checks and the peak memory.
fn run_json(cfg: &RunConfig, fig: &RunFigures, info: &GroupInfo) -> Value {
    let rows = step_rows(fig, &info.unit_costs);
    let payload = (cfg.clients * info.slot_payload_bytes) as f64;
    let steps: Vec<Value> = rows.iter().map(|r| step_json(cfg, r, payload)).collect();
    let setup = setup_json(fig, info);
    let peak: Vec<f64> = (0..NODES)
        .map(|i| {
            fig.rounds
                .iter()
                .filter_map(|r| r.get(i))
                .map(|f| f.peak_rss_mib)
                .fold(0.0, f64::max)
        })
        .collect();
    let all_once = !fig.checks.is_empty() && fig.checks.iter().all(|c| c.exactly_once);
    let all_permuted = !fig.checks.is_empty() && fig.checks.iter().all(|c| c.permuted);
    let problems: Vec<String> = fig.checks.iter().flat_map(|c| c.problems.clone()).collect();
    json!({
        "group": info.label,
        "family": info.family,
        "clients": cfg.clients,
        "threads": cfg.threads,
        "reps": cfg.reps,
        "batches_done": fig.rounds.len(),
        "elements_per_slot": info.elements_per_slot,
        "payload_bytes_per_slot": info.slot_payload_bytes,
        "tamper": cfg.tamper.map(|t| t.to_string()),
        "status": fig.status,
        "error": fig.error,
        "wall_s": fig.wall_s,
        "steps": steps,
        "setup": setup,
        "clients_side": {
            "registration": {"user_s": fig.clients_registration.user, "sys_s": fig.clients_registration.sys, "wall_s": fig.clients_registration.real},
            "blind": times_json(&fig.clients_blind),
        },
        "checks": {
            "batches": fig.checks.len(),
            "delivered_exactly_once": all_once,
            "permuted": all_permuted,
            "problems": problems,
        },
        "peak_rss_mib": {"nodes": peak, "driver": fig.driver_peak_rss_mib},
    })
}

/// The version of the body's schema (`docs/report.schema.json`).
pub const BODY_VERSION: u32 = 2;

/// Whether every run passed its checks (a run with a fault injected passes when a check
/// detected the fault).
pub fn passed(runs: &[(RunConfig, RunFigures, String)]) -> bool {
    runs.iter().all(|(c, f, _)| {
        f.status
            == if c.tamper.is_some() {
                "DETECTED"
            } else {
                "PASSED"
            }
    })
}

/// The report's body. `protocol` says how the runs were made; `runs` pairs each configuration
/// with its figures and its group.
pub fn report(
    protocol: Value,
    groups: &[GroupInfo],
    runs: &[(RunConfig, RunFigures, String)],
) -> Value {
    let info = |label: &str| {
        groups
            .iter()
            .find(|g| g.label == label)
            .expect("a measured group")
    };
    let run_values: Vec<Value> = runs
        .iter()
        .map(|(c, f, label)| run_json(c, f, info(label)))
        .collect();

    // ec against each mg variant, per node and step, for every (clients, threads) both ran.
    let mut comparison = vec![];
    for (ci, fi, li) in runs.iter().filter(|r| r.2 == "ec") {
        for (cj, fj, lj) in runs.iter().filter(|r| r.2.starts_with("mg")) {
            if ci.clients != cj.clients || ci.threads != cj.threads || ci.tamper.is_some() {
                continue;
            }
            let (ei, ej) = (info(li), info(lj));
            let (ri, rj) = (step_rows(fi, &ei.unit_costs), step_rows(fj, &ej.unit_costs));
            for a in &ri {
                if let Some(b) = rj.iter().find(|b| b.node == a.node && b.step == a.step) {
                    let (ca, cb) = (a.cpu().mean, b.cpu().mean);
                    let pa = ca / (ci.clients * ei.slot_payload_bytes) as f64;
                    let pb = cb / (cj.clients * ej.slot_payload_bytes) as f64;
                    comparison.push(json!({
                        "clients": ci.clients, "threads": ci.threads, "node": a.node, "step": a.step,
                        "mg_variant": lj,
                        "ec_cpu_s": ca, "mg_cpu_s": cb,
                        "mg_over_ec": if ca > 0.0 { json!(cb / ca) } else { Value::Null },
                        "ec_cpu_per_payload_byte_s": pa, "mg_cpu_per_payload_byte_s": pb,
                        "mg_over_ec_per_payload_byte": if pa > 0.0 { json!(pb / pa) } else { Value::Null },
                    }));
                }
            }
        }
    }

    json!({
        "protocol": protocol,
        "groups": groups.iter().map(|g| json!({
            "label": g.label, "family": g.family, "description": g.description,
            "exponent_bits": g.exponent_bits, "wire_bytes": g.wire_bytes,
            "payload_bytes_per_element": g.payload_bytes_per_element,
            "elements_per_slot": g.elements_per_slot,
            "payload_bytes_per_slot": g.slot_payload_bytes,
            "unit_costs_s": g.unit_costs,
        })).collect::<Vec<_>>(),
        "runs": run_values,
        "comparison": comparison,
    })
}
