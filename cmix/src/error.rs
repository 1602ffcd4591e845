//! The one error type of the crate, from a group element that does not decode up to a node
//! process that does not announce itself. The variants come in the crate's layers: the
//! groups, the message slots, the protocol's checks (what a node *detects*, see
//! [`Error::is_detection`]), the node processes and their links, the driver and the command
//! line.

use std::io;
use std::path::PathBuf;

use crate::protocol::tamper::Tamper;

/// What failed, naming the element, the step, the node, the client or the option.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    // The groups.
    /// Bytes that are not an element (or exponent) of the group.
    #[error("not a valid {group} element: {why}")]
    Element {
        /// `ec` or `mg`.
        group: &'static str,
        /// What is wrong with the bytes.
        why: String,
    },
    /// A payload longer than one element carries.
    #[error("payload of {got} bytes does not fit one {group} element ({max} bytes)")]
    PayloadTooLong {
        /// `ec` or `mg`.
        group: &'static str,
        /// The payload's bytes.
        got: usize,
        /// The bytes one element carries.
        max: usize,
    },
    /// An element that is not the encoding of a payload.
    #[error("the element does not decode to a payload ({0})")]
    Payload(&'static str),

    // The message slots.
    /// An output slot one of whose elements is not a payload.
    #[error("an element does not decode ({0})")]
    SlotElement(#[source] Box<Error>),
    /// An output slot whose check value does not match its recipient and body.
    #[error("the check value does not match")]
    SlotCheck,

    // The protocol's checks: what a node detects.
    /// Received bytes that do not decode, named after what they should have been.
    #[error("{what}: {source}")]
    Received {
        /// What was received.
        what: &'static str,
        /// Why it does not decode.
        source: Box<Error>,
    },
    /// Received bytes of the wrong length.
    #[error("{what}: {got} bytes, expected {want}")]
    Length {
        /// What was received.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The length it should have.
        want: usize,
    },
    /// A released decryption share that differs from the one committed to.
    #[error("node {node}'s decryption share of output slot {slot} does not match its precomputation tag hash")]
    ShareTag {
        /// The node that released it.
        node: usize,
        /// The output slot.
        slot: usize,
    },
    /// A mixed slot the last node changed after committing to it.
    #[error("the last node's output slot {slot} does not match its commitment")]
    Opening {
        /// The output slot.
        slot: usize,
    },
    /// Output slots that are not messages: a node tagged them.
    #[error("output slots {slots:?} are not messages (tagged): nothing is delivered")]
    Tagged {
        /// The output slots.
        slots: Vec<usize>,
    },
    /// A slot from a sender that never registered.
    #[error("sender {0} is not a registered client")]
    UnknownSender(u32),
    /// A key share whose proof of knowledge does not verify.
    #[error("node {0}'s proof of knowledge of its key share does not verify")]
    Proof(usize),

    // The node processes and their links.
    /// A link (TLS, a socket, a JSON frame) that failed.
    #[error("network: {0}")]
    Network(#[from] io::Error),
    /// Text that should be hexadecimal and is not.
    #[error("{0} is not hex")]
    NotHex(&'static str),
    /// A node's first connection from someone other than its driver.
    #[error("the first connection is not the driver")]
    NotTheDriver,
    /// A message that does not come where it came.
    #[error("{0}")]
    OutOfSequence(&'static str),
    /// A peer address in the plan that does not parse.
    #[error("bad address {0}")]
    PeerAddress(String),
    /// A plan that does not name every node.
    #[error("{0} peers, expected {}", crate::NODES)]
    PeerCount(usize),
    /// A mesh connection from no node this one expects.
    #[error("an unexpected mesh connection")]
    UnexpectedMeshConnection,
    /// A mesh connection claiming a node's id without its certificate.
    #[error("a peer claims to be node {0} without its certificate")]
    Impostor(usize),
    /// A client id outside the batch or registered twice.
    #[error("client id {0} is out of range or taken")]
    ClientId(u32),

    // The driver.
    /// A node process that could not be started.
    #[error("starting node {node} ({}): {source}", exe.display())]
    StartNode {
        /// The node.
        node: usize,
        /// The program started.
        exe: PathBuf,
        /// Why not.
        source: io::Error,
    },
    /// A node whose announcement could not be read.
    #[error("node {node}'s announcement: {source}")]
    Announcement {
        /// The node.
        node: usize,
        /// Why not.
        source: io::Error,
    },
    /// A node that announced something other than its address and certificate.
    #[error("node {node} did not announce itself (said {line:?})")]
    NoAnnouncement {
        /// The node.
        node: usize,
        /// What it said.
        line: String,
    },
    /// A node that announced an address that does not parse.
    #[error("node {node} announced {addr:?}")]
    AnnouncedAddress {
        /// The node.
        node: usize,
        /// The address it announced.
        addr: String,
    },
    /// A node that announced a certificate that is not hex.
    #[error("node {0}'s certificate is not hex")]
    AnnouncedCertificate(usize),
    /// The driver's connection to a node.
    #[error("connecting to a node: {0}")]
    ConnectNode(io::Error),
    /// A node that sent another report than the step expects.
    #[error("node {node}: expected {expected}")]
    UnexpectedReport {
        /// The node.
        node: usize,
        /// The report expected.
        expected: &'static str,
    },
    /// Nodes that reported a failure or whose links failed, one line each.
    #[error("{}", .0.join("; "))]
    Nodes(Vec<String>),
    /// A client's link to a node that failed.
    #[error("client {client} {doing}: {source}")]
    Client {
        /// The client.
        client: u32,
        /// What it was doing.
        doing: String,
        /// Why it failed.
        source: io::Error,
    },
    /// A delivery frame too short to name its output slot.
    #[error("client {0} received a short frame")]
    ShortFrame(u32),
    /// A driver thread carrying clients that stopped.
    #[error("a client worker stopped")]
    WorkerStopped,
    /// This program's own path, needed to start the nodes.
    #[error("cannot find this executable: {0}")]
    OwnPath(io::Error),

    // The command line.
    /// A seed the shared command-line pieces refuse.
    #[error(transparent)]
    Input(#[from] measure::Error),
    /// A group name that is not one of the three.
    #[error("unknown group {0:?}: expected ec, mg (256-bit exponents) or mg-full")]
    UnknownGroup(String),
    /// A fault of no known kind.
    #[error("tamper {0:?}: expected proof:N, element:N, tag:N:S, share:N:S or opening:S")]
    TamperKind(String),
    /// A fault without its node or slot.
    #[error("tamper {spec:?}: missing {what}")]
    TamperMissing {
        /// The fault as given.
        spec: String,
        /// `node` or `slot`.
        what: &'static str,
    },
    /// A fault whose node or slot is not a number.
    #[error("tamper {spec:?}: {what} is not a number")]
    TamperNumber {
        /// The fault as given.
        spec: String,
        /// `node` or `slot`.
        what: &'static str,
    },
    /// A fault at a node the run does not have.
    #[error("tamper {tamper}: node {node}, but the nodes are 0, 1, 2")]
    TamperNode {
        /// The fault.
        tamper: Tamper,
        /// Its node.
        node: usize,
    },
    /// A fault at a slot the batch does not have.
    #[error("tamper {tamper}: slot {slot}, but the batch has {slots} slots")]
    TamperSlot {
        /// The fault.
        tamper: Tamper,
        /// Its slot.
        slot: usize,
        /// The batch's slots.
        slots: usize,
    },
    /// An option without a value.
    #[error("{option}: give at least one {what}")]
    Empty {
        /// The option.
        option: &'static str,
        /// What it lists.
        what: &'static str,
    },
    /// An option's value outside what a run can use.
    #[error("{option} {value}: must be {allowed}")]
    OutOfRange {
        /// The option.
        option: &'static str,
        /// The value given.
        value: String,
        /// What it may be.
        allowed: &'static str,
    },
}

impl Error {
    /// Whether a node found this fault in what it received (a check of the protocol fired),
    /// as opposed to a failed link or a bad plan: the node then reports the fault as detected
    /// before it stops.
    pub fn is_detection(&self) -> bool {
        matches!(
            self,
            Error::Received { .. }
                | Error::Length { .. }
                | Error::ShareTag { .. }
                | Error::Opening { .. }
                | Error::Tagged { .. }
                | Error::UnknownSender(_)
                | Error::Proof(_)
        )
    }
}
