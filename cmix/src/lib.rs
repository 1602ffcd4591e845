//! cMix (Chaum, Das, Javani, Kate, Krasnova, de Ruiter, Sherman; ACNS 2017) for one batch,
//! with ElGamal in two groups, measured per node and phase over real TLS connections.
//!
//! Layers, bottom up:
//! - [`group`]: the two prime-order groups behind one trait, with counted operations;
//! - [`protocol`]: keys and registration, the message format, one node's protocol steps, the
//!   clients' side, the tagging countermeasure, injected faults, and an in-process batch;
//! - [`net`]: TLS 1.3 on loopback over the suite's `tls-link` (certificates made at start and
//!   pinned, framed and counted links), with JSON messages and the clients' certificate-less
//!   side;
//! - [`process`]: the node process and the driver (which starts the three nodes and runs the
//!   clients as tasks), with per-phase figures;
//! - [`measurement`]: costs of single operations, lower bounds, statistics and the report;
//! - [`error`]: the one error type, whose variants follow these layers.

#![warn(missing_docs)]

pub mod error;
pub mod group;
pub mod measurement;
pub mod net;
pub mod process;
pub mod protocol;

pub use error::Error;

/// The number of nodes: first, middle and last.
pub const NODES: usize = 3;
