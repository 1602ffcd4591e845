//! The one report envelope every program of the suite writes around its own body.
//!
//! ```text
//! {
//!   "format": "tmbench-report/1",      the envelope's own version (this module)
//!   "tool": "veccom-bench",            the program
//!   "tool_version": "0.1.0",
//!   "body_version": 3,                 the version of the body's schema (the program's own)
//!   "passed": true,                    every check of the run passed
//!   "parameters": {...},               what the command line asked for
//!   "seed": "64 hex digits" | null,    the public seed of the inputs (null: fresh randomness)
//!   "inputs_sha256": "64 hex digits",  a digest of the run's generated inputs (sets, roots,
//!                                      commitments, messages, seeded keys): equal for two runs
//!                                      of one seed, different without a seed
//!   "machine": {...},                  where it ran (measure::machine, without the load)
//!   "provenance": {"commit", "dirty"}, which code ran
//!   "runner": {"kind", "image", "image_id"}, natively or in which container image
//!   "load": {"start": [1m, 5m, 15m], "end": [...]},
//!   "resources": {"wall_s", "cpu_s", "cpu_children_s", "peak_rss_mib"},
//!   "started_unix": 1790000000.0,
//!   "body": {...}                      the experiment's measurements (its own schema)
//! }
//! ```
//!
//! The analysis reads `passed` and nothing else to decide whether a run verified. The JSON
//! Schema of the envelope is `measure/schema/envelope.schema.json`; each experiment's body
//! schema is beside its crate (`docs/report.schema.json`).
//!
//! The runner block comes from the environment the workflow sets for a job: `SUITE_RUNNER`
//! (`native`, `podman` or `docker`), `SUITE_IMAGE` (the image's name and tag) and
//! `SUITE_IMAGE_ID` (its digest). A program started by hand reports `native`.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::seed::Seed;

/// The envelope's format name and version.
pub const FORMAT: &str = "tmbench-report/1";

/// A run being measured: what the envelope knows before the work starts.
#[derive(Debug)]
pub struct Envelope {
    tool: String,
    tool_version: String,
    body_version: u32,
    parameters: Value,
    seed: Option<Seed>,
    load_start: Vec<f64>,
    started_unix: f64,
    started: Instant,
}

/// What a run found: whether every check passed, a digest of its inputs, and its measurements.
#[derive(Debug)]
pub struct Outcome {
    /// Every proof and check of the run verified.
    pub passed: bool,
    /// The digest of the inputs the run generated (see [`Inputs`]).
    pub inputs: Inputs,
    /// The experiment's measurements (its own schema).
    pub body: Value,
}

/// A digest of a run's generated inputs, fed item by item with a label: what makes "the same
/// seed gives the same inputs" checkable for every program from its report alone. Each item is
/// hashed as len(label) || label || len(bytes) || bytes, so no two sequences of items collide
/// by concatenation.
#[derive(Clone, Debug, Default)]
pub struct Inputs(Sha256);

impl Inputs {
    /// An empty digest.
    pub fn new() -> Inputs {
        Inputs(Sha256::new())
    }

    /// Adds one labelled input (a set element, a root, a commitment, a message, a seeded key).
    pub fn add(&mut self, label: &str, bytes: &[u8]) -> &mut Self {
        self.0.update((label.len() as u64).to_be_bytes());
        self.0.update(label.as_bytes());
        self.0.update((bytes.len() as u64).to_be_bytes());
        self.0.update(bytes);
        self
    }

    /// The digest as 64 hexadecimal digits.
    pub fn hex(&self) -> String {
        crate::hex::encode(&self.0.clone().finalize())
    }
}

impl Envelope {
    /// Starts the record of a run of `tool` (version `tool_version`, usually
    /// `env!("CARGO_PKG_VERSION")`) whose body follows version `body_version` of its schema,
    /// with the command line's `parameters` and public `seed`. Call it before the work: it
    /// reads the load and starts the wall clock.
    pub fn begin(
        tool: &str,
        tool_version: &str,
        body_version: u32,
        parameters: Value,
        seed: Option<&Seed>,
    ) -> Envelope {
        Envelope {
            tool: tool.to_string(),
            tool_version: tool_version.to_string(),
            body_version,
            parameters,
            seed: seed.copied(),
            load_start: crate::machine::load_averages(),
            started_unix: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0),
            started: Instant::now(),
        }
    }

    /// The program's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The whole report: the envelope around `outcome.body`.
    pub fn close(&self, outcome: Outcome) -> Value {
        let usage = crate::clock::usage();
        let children = crate::clock::children_usage();
        let mut machine = crate::machine::machine_json();
        if let Some(m) = machine.as_object_mut() {
            m.remove("load_avg_1m");
        }
        json!({
            "format": FORMAT,
            "tool": self.tool,
            "tool_version": self.tool_version,
            "body_version": self.body_version,
            "passed": outcome.passed,
            "parameters": self.parameters,
            "seed": self.seed.map(|s| s.hex()),
            "inputs_sha256": outcome.inputs.hex(),
            "machine": machine,
            "provenance": crate::provenance::provenance_json(),
            "runner": runner_json(),
            "load": {"start": self.load_start, "end": crate::machine::load_averages()},
            "resources": {
                "wall_s": self.started.elapsed().as_secs_f64(),
                "cpu_s": usage.user + usage.sys,
                "cpu_children_s": children.user + children.sys,
                "peak_rss_mib": usage.peak_rss_mib,
            },
            "started_unix": self.started_unix,
            "body": outcome.body,
        })
    }
}

/// `{"kind", "image", "image_id"}` from `SUITE_RUNNER`, `SUITE_IMAGE` and `SUITE_IMAGE_ID`.
pub fn runner_json() -> Value {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    json!({
        "kind": var("SUITE_RUNNER").unwrap_or_else(|| "native".into()),
        "image": var("SUITE_IMAGE"),
        "image_id": var("SUITE_IMAGE_ID"),
    })
}

/// Whether a report (parsed JSON) says its run passed: its envelope's `passed`.
pub fn passed(report: &Value) -> bool {
    report["passed"].as_bool() == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_has_every_key_and_the_body_inside() {
        let seed = Seed::from_bytes([7; 32]);
        let e = Envelope::begin("t", "1.2.3", 4, json!({"n": 5}), Some(&seed));
        assert_eq!(e.tool(), "t");
        let mut inputs = Inputs::new();
        inputs.add("set", b"abc");
        let r = e.close(Outcome {
            passed: true,
            inputs: inputs.clone(),
            body: json!({"x": 1}),
        });
        for k in [
            "format",
            "tool",
            "tool_version",
            "body_version",
            "passed",
            "parameters",
            "seed",
            "inputs_sha256",
            "machine",
            "provenance",
            "runner",
            "load",
            "resources",
            "started_unix",
            "body",
        ] {
            assert!(r.get(k).is_some(), "missing {k}");
        }
        assert_eq!(r["format"], FORMAT);
        assert_eq!(r["seed"], seed.hex());
        assert_eq!(r["body"]["x"], 1);
        assert_eq!(r["parameters"]["n"], 5);
        assert!(passed(&r));
        assert_eq!(r["inputs_sha256"], inputs.hex());
        // Labels and lengths are hashed: moving a byte between two items changes the digest.
        let (mut a, mut b) = (Inputs::new(), Inputs::new());
        a.add("x", b"ab").add("x", b"c");
        b.add("x", b"a").add("x", b"bc");
        assert_ne!(a.hex(), b.hex());
        assert!(r["machine"].get("load_avg_1m").is_none());
        assert!(r["resources"]["wall_s"].as_f64().unwrap() >= 0.0);
        let failed = e.close(Outcome {
            passed: false,
            inputs: Inputs::new(),
            body: json!({}),
        });
        assert!(!passed(&failed));
        let unseeded = Envelope::begin("t", "1", 1, json!({}), None).close(Outcome {
            passed: true,
            inputs: Inputs::new(),
            body: json!({}),
        });
        assert!(unseeded["seed"].is_null());
    }
}
