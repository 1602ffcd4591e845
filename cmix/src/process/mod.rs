//! Processes: the node process ([`node`]) and the driver ([`driver`]) that starts three of
//! them, runs the clients as tasks on a few threads, and collects every node's figures.
//!
//! Control messages (driver <-> node, JSON frames over the driver's TLS link):
//!
//! 1. node -> stdout: `CMIX-NODE <address> <certificate hex>` (read by the parent only);
//! 2. driver -> node: [`Plan`] (group, slots, the other nodes' addresses and certificates);
//! 3. the nodes connect (mesh), exchange key shares with proofs; node -> driver: [`Keys`];
//! 4. driver -> node: `register`; the clients connect, node -> driver: [`Setup`];
//! 5. per batch: driver -> node: `{"round": t}`; node -> driver: `precomputed`; the driver
//!    lets the clients send; node -> driver: [`RoundFigures`] (the last node has delivered);
//! 6. driver -> node: `bye`.
//!
//! A node that detects a fault reports it in its [`RoundFigures`] (or in place of
//! `precomputed`) and stops; the driver then ends the others.

pub mod driver;
pub mod node;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Wall, user and system seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Times {
    /// Wall-clock seconds.
    pub real: f64,
    /// User CPU seconds.
    pub user: f64,
    /// System CPU seconds.
    pub sys: f64,
}

impl Times {
    /// User and system CPU seconds together.
    pub fn cpu(&self) -> f64 {
        self.user + self.sys
    }
    /// Adds `o`'s seconds to these.
    pub fn add(&mut self, o: &Times) {
        self.real += o.real;
        self.user += o.user;
        self.sys += o.sys;
    }
}

impl From<measure::clock::PhaseTimes> for Times {
    fn from(p: measure::clock::PhaseTimes) -> Self {
        Times {
            real: p.real,
            user: p.user,
            sys: p.sys,
        }
    }
}

/// One step of one node: its computation (reading and writing elements included), its
/// network I/O (TLS included; the wall time of a receive includes waiting for the peer), the
/// bytes on its sockets, and the operations it counted.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Step {
    /// The computation.
    pub compute: Times,
    /// The network I/O.
    pub net: Times,
    /// Bytes written to the sockets.
    pub bytes_sent: u64,
    /// Bytes read from the sockets.
    pub bytes_received: u64,
    /// The counted group and hash operations, by name.
    pub ops: BTreeMap<String, u64>,
}

/// The steps a node reports, in protocol order.
pub const STEPS: [&str; 8] = [
    "prepre",
    "premix",
    "prepost",
    "prepost_tags",
    "realpre",
    "realmix",
    "realpost",
    "realpost_tags",
];

/// The six phases of the protocol (the two tag steps are reported beside them).
pub const PHASES: [&str; 6] = [
    "prepre", "premix", "prepost", "realpre", "realmix", "realpost",
];

/// What the driver tells every node.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// The group's label.
    pub group: String,
    /// Elements per message slot.
    pub width: usize,
    /// Clients, one slot each.
    pub clients: usize,
    /// Every node's address and certificate (hex), by node id.
    pub peers: Vec<(String, String)>,
    /// The fault to inject, as on the command line.
    pub tamper: Option<String>,
    /// The run's public seed (64 hex digits) for reproducible inputs; none: OS randomness.
    pub seed: Option<String>,
}

/// Node -> driver after the key setup.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Keys {
    /// The node's registration key (wire form, hex).
    pub registration: String,
    /// The node's key share `y_i` (wire form, hex).
    pub share: String,
    /// The key set-up's figures.
    pub step: Step,
}

/// Node -> driver after registration.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Setup {
    /// The clients' TLS handshakes, all together.
    pub handshakes: Step,
    /// How many client handshakes.
    pub handshake_count: u64,
    /// The node's side of the clients' registration (Diffie-Hellman and KDF).
    pub registration: Step,
    /// Connecting to the other nodes (their handshakes).
    pub mesh: Step,
    /// How many node-to-node handshakes.
    pub mesh_handshakes: u64,
}

/// Node -> driver after a batch.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RoundFigures {
    /// The reporting node.
    pub node: usize,
    /// The batch's round number.
    pub round: u64,
    /// Each step's figures, by report label.
    pub steps: BTreeMap<String, Step>,
    /// `ok`, or `detected` (a check fired), or `error`.
    pub outcome: String,
    /// What failed, where the outcome is not `ok`.
    pub error: Option<String>,
    /// The node process's peak memory.
    pub peak_rss_mib: f64,
    /// The last node: how many messages it delivered.
    pub delivered: u64,
}
