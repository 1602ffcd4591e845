//! The control messages between the coordinator and each party, over one mutually
//! authenticated TLS link per party, as frames of [`crate::net`]. Before them, each process has
//! learnt the other's certificate over the launcher's pipes ([`crate::identity`]), and the
//! coordinator knows a party's id by the certificate it presented.
//!
//! 1. party -> coordinator: [`Hello`] (JSON: its id, which must be its certificate's, and the
//!    address of its mesh listener);
//! 2. coordinator -> party: [`Plan`] (JSON: parties, variant, every party's mesh address and
//!    certificate, the fault to commit if any), then the public inputs (binary);
//! 3. party -> coordinator: `loaded`, once it has read them and loaded its files; when every
//!    party has, coordinator -> party: the dealer's preprocessing material (binary,
//!    [`crate::dealer`]). Nothing the dealer sends is then in flight while a party still reads
//!    what came before, so each phase's byte count is its own (a TLS link reads ahead);
//! 4. the parties connect their mesh; party -> coordinator: `ready`;
//! 5. coordinator -> every party: `go`, so that online phases start together and no dealing
//!    overlaps them;
//! 6. party -> coordinator: a [`Notice`] as each online step starts, then one with its figures
//!    and its proof, [`Done`] (JSON). The step notices tell the coordinator where a party that
//!    dies was;
//! 7. coordinator -> every party: `bye`. Parties keep their mesh connections open until then,
//!    so that no party closes a connection (the kernel counts the FIN as a received byte)
//!    before every party has read its connections' counters.

use std::net::SocketAddr;
use std::path::Path;

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::net::Link;
use crate::report::PartyFigures;
use crate::{Error, Variant};

/// A party's first message to the coordinator (step 1).
#[derive(Serialize, Deserialize)]
pub struct Hello {
    /// The party's id, which the coordinator checks against the certificate it presented.
    pub id: usize,
    /// Where the party's mesh listener accepts the other parties' connections.
    pub mesh: SocketAddr,
}

/// The coordinator's instructions to a party (step 2): what to load, with whom to connect and
/// under which security model.
#[derive(Serialize, Deserialize)]
pub struct Plan {
    /// SHA-256 of the R1CS and proving key files the coordinator checked: a party whose files
    /// differ stops, and one whose files match need not re-validate every key point.
    pub r1cs_sha256: String,
    /// SHA-256 of the proving key file (see `r1cs_sha256`).
    pub pk_sha256: String,
    /// The number of parties, `m`.
    pub parties: usize,
    /// The security model of the run.
    pub variant: Variant,
    /// Every party's mesh address by id, as each party's [`Hello`] gave it.
    pub peers: Vec<SocketAddr>,
    /// Every party's certificate by id (hex DER), as the launcher's pipes gave them: the mesh
    /// pins them.
    pub certs: Vec<String>,
    /// The fault this party is to commit, for a negative test ([`crate::tamper::Tamper`]'s
    /// text form); `None` in an honest run.
    pub tamper: Option<String>,
    /// The run's public seed (64 hex digits): the party draws its randomness from it, which is
    /// then not secret. None: the OS's randomness.
    pub seed: Option<String>,
}

/// A party's end of the online phase.
#[derive(Serialize, Deserialize)]
pub struct Done {
    /// The party's measured times, byte counts and outcome.
    pub figures: PartyFigures,
    /// The proof, compressed, in hex.
    pub proof: Option<String>,
}

/// What a party tells the coordinator during the online phase.
#[derive(Serialize, Deserialize)]
pub enum Notice {
    /// The party starts the step of this label.
    Step(String),
    /// The party's online phase ended (with a proof, or with the error in its figures).
    Done(Box<Done>),
}

/// Sends `value` as one JSON frame on a control link.
pub fn send_json<T: Serialize>(link: &mut Link, value: &T) -> Result<(), Error> {
    Ok(link.send(&serde_json::to_vec(value).expect("control messages serialise"))?)
}

/// Receives one JSON frame from a control link; a body that does not parse as `T` is an
/// [`Error::Decode`] naming `what` was expected.
pub fn recv_json<T: DeserializeOwned>(link: &mut Link, what: &str) -> Result<T, Error> {
    let body = link.recv()?;
    serde_json::from_slice(&body).map_err(|e| Error::Decode(format!("{what}: {e}")))
}

pub use measure::hex::{decode as unhex, encode as hex};

/// SHA-256 of a file, in hex.
pub fn file_sha256(path: &Path) -> Result<String, Error> {
    let bytes = std::fs::read(path).map_err(|e| zksnark_prover::Error::io(path, e))?;
    Ok(hex(&Sha256::digest(&bytes)))
}
