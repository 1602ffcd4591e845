//! The rows of `report.json` (its JSON Schema is `docs/report.schema.json`).

use serde::Serialize;
use serde_json::Value;

use measure::timing::{Stats, Timing};

/// Scheme names as they appear in reports.
pub const PAIRING: &str = "pairing-bls12-381";
/// The Merkle scheme on SHA-256.
pub const MERKLE_SHA256: &str = "merkle-sha256";
/// The Merkle scheme on BLAKE3.
pub const MERKLE_BLAKE3: &str = "merkle-blake3";
/// Every scheme, in report order.
pub const SCHEMES: [&str; 3] = [PAIRING, MERKLE_SHA256, MERKLE_BLAKE3];

/// The counted-operation lower bound of an operation, timed in the same run.
#[derive(Clone, Debug, Serialize)]
pub struct LowerBound {
    /// What was timed (e.g. "blst Pippenger MSM of 1000 points").
    pub what: String,
    /// CPU seconds of the bound.
    pub cpu_s: Stats,
    /// Wall seconds of the bound.
    pub wall_s: Stats,
    /// Operations per repetition when timing the bound.
    pub iterations: usize,
    /// Median CPU time of the operation over median CPU time of the bound.
    pub ratio_cpu: f64,
}

impl LowerBound {
    /// The bound `what` timed as `t`, compared with the operation's timing `op`.
    pub fn new(what: String, t: &Timing, op: &Timing) -> LowerBound {
        LowerBound {
            what,
            cpu_s: t.cpu_s,
            wall_s: t.wall_s,
            iterations: t.iterations,
            ratio_cpu: op.cpu_s.median / t.cpu_s.median,
        }
    }
}

/// Sizes in bytes that go with a scheme at one n (absent ones are null).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Sizes {
    /// A commitment.
    pub commitment_bytes: usize,
    /// A proof of one position.
    pub proof_bytes: usize,
    /// A combined proof of a batch (pairing scheme).
    pub batch_proof_bytes: Option<usize>,
    /// Public prover parameters, compressed (pairing scheme).
    pub prover_params_bytes: Option<usize>,
    /// Public verifier parameters, compressed (pairing scheme).
    pub verifier_params_bytes: Option<usize>,
    /// The prover's precomputed table in memory (pairing scheme).
    pub prover_table_bytes: Option<usize>,
    /// The verifier's precomputed table in memory (pairing scheme).
    pub verifier_table_bytes: Option<usize>,
    /// The kept tree in memory (Merkle scheme).
    pub tree_bytes: Option<usize>,
}

/// One row: a scheme's operation at one n and thread count.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// Scheme name.
    pub scheme: &'static str,
    /// Operation name.
    pub operation: &'static str,
    /// Vector length.
    pub n: usize,
    /// Threads of the rayon pool the operation ran on.
    pub threads: usize,
    /// Repetitions timed.
    pub repetitions: usize,
    /// Operations per repetition.
    pub iterations: usize,
    /// CPU seconds per operation (all threads of the process).
    pub cpu_s: Stats,
    /// Wall seconds per operation.
    pub wall_s: Stats,
    /// Sizes at this n.
    pub sizes: Sizes,
    /// Peak resident memory of the process while this scheme ran at this n (set-up and every
    /// operation), in MiB; None where the peak cannot be reset between groups.
    pub peak_rss_mib: Option<f64>,
    /// Resident memory when the group started (the floor included in the peak), in MiB.
    pub start_rss_mib: Option<f64>,
    /// The counted-operation lower bound, where one is defined.
    pub lower_bound: Option<LowerBound>,
    /// Whether the operation's output passed its check (see the README).
    pub verified: bool,
    /// Operation parameters (positions, batch size, window width ...).
    pub detail: Value,
}

/// One ablation measurement: one way of doing an operation.
#[derive(Clone, Debug, Serialize)]
pub struct AblationRow {
    /// Scheme name.
    pub scheme: &'static str,
    /// Operation name.
    pub operation: &'static str,
    /// Vector length.
    pub n: usize,
    /// Threads.
    pub threads: usize,
    /// Short name of the method.
    pub variant: &'static str,
    /// What the method does.
    pub description: &'static str,
    /// Whether this is the method the scheme uses.
    pub chosen: bool,
    /// Repetitions timed.
    pub repetitions: usize,
    /// Operations per repetition.
    pub iterations: usize,
    /// CPU seconds per operation.
    pub cpu_s: Stats,
    /// Wall seconds per operation.
    pub wall_s: Stats,
    /// Median CPU time of the group's first (slowest, simplest) method over this one's.
    pub speedup_vs_baseline: f64,
    /// Whether the method's result equals the chosen method's (null for a method that computes
    /// another function, such as a differently defined tree).
    pub agrees: Option<bool>,
}
