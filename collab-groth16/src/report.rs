//! Figures and report.json (its JSON Schema: `docs/report.schema.json`).
//!
//! Every party reports its own figures to the coordinator, which adds the dealer's, the single
//! provers' and a summary per run. Times are CPU seconds (user + system, all threads of the
//! process, from getrusage) and wall seconds; bytes are counted by [`crate::net`].

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::net::{Counters, Refused};
use crate::party::Step;
use crate::Variant;

/// CPU and wall time of a phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// `user_s + sys_s`.
    pub cpu_s: f64,
    /// User CPU seconds, every thread of the process.
    pub user_s: f64,
    /// System CPU seconds, every thread of the process.
    pub sys_s: f64,
    /// Elapsed seconds.
    pub wall_s: f64,
}

impl From<measure::clock::PhaseTimes> for Phase {
    fn from(t: measure::clock::PhaseTimes) -> Self {
        Phase {
            cpu_s: t.user + t.sys,
            user_s: t.user,
            sys_s: t.sys,
            wall_s: t.real,
        }
    }
}

/// Runs `f` and returns its result with its [`Phase`].
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Phase) {
    let (out, t) = measure::clock::timed(f);
    (out, t.into())
}

/// One party's preprocessing: receiving the dealer's material and expanding it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PreprocessingFigures {
    /// Its times.
    #[serde(flatten)]
    pub phase: Phase,
    /// The material's bytes on the control link (TLS records included).
    pub bytes_received: u64,
}

/// One party's online phase.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OnlineFigures {
    /// Its times, every step together.
    #[serde(flatten)]
    pub phase: Phase,
    /// What the mesh carried during the phase.
    #[serde(flatten)]
    pub net: Counters,
    /// Bytes this party read from its mesh connections over their whole life (the TLS
    /// handshakes and the online phase), and the kernel's count for the same connections
    /// (`TCP_INFO`; null where the kernel does not say). The two must be equal: an independent
    /// check of the counters.
    pub connection_bytes_received: u64,
    /// The kernel's count (see `connection_bytes_received`).
    pub tcp_bytes_received: Option<u64>,
    /// The online steps' times, in order.
    pub steps: Vec<Step>,
}

/// Everything one party measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PartyFigures {
    /// The party's id.
    pub id: usize,
    /// The party process's worker threads.
    pub threads: usize,
    /// Reading the R1CS and the proving key (public inputs of the computation).
    pub load: Phase,
    /// Receiving and expanding the dealer's material.
    pub preprocessing: PreprocessingFigures,
    /// Connecting to the other parties.
    pub connect: Phase,
    /// Connections to this party's mesh listener that it refused (no certificate of a party,
    /// a second one of the same party, or no handshake in time); it sent them nothing.
    pub refused_connections: Vec<Refused>,
    /// The online phase: the steps that compute the proof.
    pub online: OnlineFigures,
    /// Checking the opened proof with the Groth16 verifier.
    pub verify: Phase,
    /// `proof` (a proof that verifies), `rejected` (a proof that does not), `abort` (the
    /// malicious variant's checks stopped the run) or `error`.
    pub outcome: String,
    /// What went wrong, where `outcome` is not `proof`.
    pub error: Option<String>,
    /// The party process's peak resident memory, MiB.
    pub peak_rss_mib: f64,
}

/// The dealer's side of one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DealerFigures {
    /// Dealing, encoding and sending every party's material.
    #[serde(flatten)]
    pub phase: Phase,
    /// The CPU time the emulated network's delay line (a thread of the coordinator's process)
    /// spent meanwhile; it is taken out of `phase` (from system time first: most of it is the
    /// kernel forwarding packets).
    pub delay_line_cpu_s: f64,
    /// The material's bytes on the control links, every party together.
    pub bytes_sent: u64,
    /// The same, party by party.
    pub bytes_sent_per_party: Vec<u64>,
}

impl DealerFigures {
    /// The dealer's figures from its process's `phase`, less the delay line's `delay_cpu_s`.
    pub fn new(mut phase: Phase, delay_cpu_s: f64) -> Self {
        let delay = delay_cpu_s.clamp(0.0, phase.cpu_s);
        let from_sys = delay.min(phase.sys_s);
        phase.sys_s -= from_sys;
        phase.user_s -= delay - from_sys;
        phase.cpu_s = phase.user_s + phase.sys_s;
        DealerFigures {
            phase,
            delay_line_cpu_s: delay,
            ..Default::default()
        }
    }
}

/// Where a run broke: the party whose process or connection ended during the online phase, the
/// step it had started (none: before its first), and how it ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// The lost party's id.
    pub party: usize,
    /// The label of the online step it had started, if any.
    pub step: Option<String>,
    /// How its process or connection ended (an exit status, a signal, a closed connection).
    pub cause: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.step {
            Some(step) => write!(
                f,
                "party {} was lost in step {step}: {}",
                self.party, self.cause
            ),
            None => write!(
                f,
                "party {} was lost before its first step: {}",
                self.party, self.cause
            ),
        }
    }
}

/// One collaborative run: `parties` processes, one variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// The run's security model.
    pub variant: Variant,
    /// The same, in the words of [`Variant::security_model`].
    pub security_model: String,
    /// The number of parties, `m`.
    pub parties: usize,
    /// How the parties are connected: always `mesh` (see [`crate::net`]).
    pub topology: String,
    /// `PASSED` (the proof verifies), `FAILED` (it does not, the run aborted, or a party was
    /// lost) or `ERROR`.
    pub status: String,
    /// What went wrong, where `status` is not `PASSED`.
    pub error: Option<String>,
    /// The party lost during the online phase, if one was.
    pub failure: Option<Failure>,
    /// The dealer's side: dealing and sending every party's material.
    pub dealer: DealerFigures,
    /// Every party's figures, by id.
    pub per_party: Vec<PartyFigures>,
    /// [`RunReport::summarise`]'s figures (null until it has run).
    pub summary: Value,
    /// [`operations`] of each party.
    pub operations: Value,
    /// SHA-256 of every party's dealt material, in order (the preprocessing this run used).
    pub dealt_sha256: String,
    /// Connections to the coordinator that it refused while the parties joined (no
    /// certificate of a party, a second one of the same party, or no handshake in time); it
    /// sent them nothing.
    pub refused_connections: Vec<Refused>,
}

impl RunReport {
    /// A run not yet made: status `ERROR` until it ends.
    pub fn new(variant: Variant, parties: usize, operations: Value) -> Self {
        RunReport {
            variant,
            security_model: variant.security_model().into(),
            parties,
            topology: "mesh".into(),
            status: "ERROR".into(),
            error: None,
            failure: None,
            dealer: DealerFigures::default(),
            per_party: vec![],
            summary: Value::Null,
            operations,
            dealt_sha256: String::new(),
            refused_connections: vec![],
        }
    }

    /// The per-run summary: the slowest and the mean party, and their ratios to the single
    /// provers' CPU times measured just before and just after the run (the means given).
    /// `one_way_delay_s` is the network's: each round of openings waits at least that long, so
    /// `network_floor_s` (rounds times it) is the least the network adds to a party's online
    /// wall time.
    pub fn summarise(&mut self, single_cpu_s: f64, local_cpu_s: f64, one_way_delay_s: f64) {
        let parties = &self.per_party;
        let k = parties.len().max(1) as f64;
        let max = |f: &dyn Fn(&PartyFigures) -> f64| parties.iter().map(f).fold(0.0, f64::max);
        let mean = |f: &dyn Fn(&PartyFigures) -> f64| parties.iter().map(f).sum::<f64>() / k;
        let cpu = |p: &PartyFigures| p.online.phase.cpu_s;
        let (cpu_max, cpu_mean) = (max(&cpu), mean(&cpu));
        let umax = |f: &dyn Fn(&PartyFigures) -> u64| parties.iter().map(f).max().unwrap_or(0);
        self.summary = json!({
            "single_prover_cpu_s": single_cpu_s,
            "local_prover_cpu_s": local_cpu_s,
            "online_cpu_s_max": cpu_max,
            "online_cpu_s_mean": cpu_mean,
            "online_wall_s_max": max(&|p| p.online.phase.wall_s),
            "online_wall_s_mean": mean(&|p| p.online.phase.wall_s),
            "network_floor_s": umax(&|p| p.online.net.rounds) as f64 * one_way_delay_s,
            "ratio_to_single_max": cpu_max / single_cpu_s,
            "ratio_to_single_mean": cpu_mean / single_cpu_s,
            "ratio_to_local_max": cpu_max / local_cpu_s,
            "bytes_sent_max": umax(&|p| p.online.net.bytes_sent),
            "bytes_received_max": umax(&|p| p.online.net.bytes_received),
            "rounds": umax(&|p| p.online.net.rounds),
            "preprocessing_cpu_s_max": max(&|p| p.preprocessing.phase.cpu_s),
            "dealer_cpu_s": self.dealer.phase.cpu_s,
        });
    }
}

/// The counted operations of one prover (`variant` `None`: the single prover; otherwise one
/// party of that variant) on a circuit with `wires` wires, `private` of them private, and QAP
/// domain size `n`: the FFTs of size `n`, the MSM terms in G1 and G2, and the Beaver products.
/// A semi-honest party repeats exactly the single prover's FFTs and MSMs (on shares), so their
/// ratio's floor is 1; the malicious variant adds the MACs' FFTs and G1 MSMs.
pub fn operations(wires: usize, private: usize, n: usize, variant: Option<Variant>) -> Value {
    // a, b, c: inverse FFT and coset FFT each; h: one coset inverse FFT.
    let base_ffts = 7;
    // A and B in G1 over every wire, the h query (n - 1 powers), the l query (private wires).
    let base_g1 = 2 * wires + (n - 1) + private;
    let (ffts, g1, products) = match variant {
        None => (base_ffts, base_g1, 0),
        Some(Variant::SemiHonest) => (base_ffts, base_g1, n + 1),
        // MACs of a and b through both FFTs; MACs of A and B in G1 (B in G2 is checked by a
        // pairing instead).
        Some(Variant::Malicious) => (base_ffts + 4, base_g1 + 2 * wires, n + 1),
    };
    json!({
        "ffts": ffts,
        "fft_size": n,
        "g1_msm_terms": g1,
        "g2_msm_terms": wires,
        "beaver_products": products,
    })
}

/// A single prover measured in the same invocation, before the first collaborative run and
/// after every run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SingleFigures {
    /// Which single prover.
    pub prover: String,
    /// One measurement before the first run and one after each run.
    pub samples: Vec<Phase>,
    /// Means over the samples.
    pub cpu_s: f64,
    /// The mean wall seconds over the samples.
    pub wall_s: f64,
    /// `PASSED` while every sample's proof verified, `FAILED` after one did not.
    pub status: String,
}

impl SingleFigures {
    /// No samples yet, `PASSED`.
    pub fn new(prover: &str) -> Self {
        SingleFigures {
            prover: prover.into(),
            status: "PASSED".into(),
            ..Default::default()
        }
    }

    /// The mean CPU time of the last two samples: the ones just before and after a run.
    pub fn bracket(&self) -> f64 {
        let n = self.samples.len();
        let last = &self.samples[n.saturating_sub(2)..];
        last.iter().map(|p| p.cpu_s).sum::<f64>() / last.len() as f64
    }

    /// Records one more sample, and whether its proof verified; the means follow.
    pub fn add(&mut self, sample: Phase, verified: bool) {
        self.samples.push(sample);
        let k = self.samples.len() as f64;
        self.cpu_s = self.samples.iter().map(|p| p.cpu_s).sum::<f64>() / k;
        self.wall_s = self.samples.iter().map(|p| p.wall_s).sum::<f64>() / k;
        if !verified {
            self.status = "FAILED".into();
        }
    }
}
