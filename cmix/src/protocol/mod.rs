//! The cMix protocol for one batch (Chaum et al., ACNS 2017), with the tagging-attack
//! countermeasure (tag hashes of the precomputed decryption shares, commitments to the
//! real-time result): keys and registration ([`keys`]), the message format ([`message`]), one
//! node's steps ([`node`]), the clients' side and the delivery checks ([`client`]), the faults
//! a run can inject ([`tamper`]), and [`local`], all nodes in one process (the same steps,
//! without the network), which the tests use.
//!
//! The threat model is [`THREAT_MODEL`]: the tag hashes and commitments detect a tagging first
//! or middle node while the last node is honest, but nothing stops a malicious last node (the
//! two attacks it can make are run in `tests/malicious_last_node.rs`).

pub mod client;
pub mod keys;
pub mod local;
pub mod message;
pub mod node;
pub mod tamper;

/// What the protocol as built protects against, as the report and the PDF state it.
pub const THREAT_MODEL: &str = "honest-but-curious nodes; one malicious last node breaks \
unlinkability. The tag hashes and commitments detect a first or middle node that tags a slot \
while the last node is honest. A malicious last node colluding with a tagging node learns which \
output slot failed (the others never see the output), untags it and delivers normally; alone, \
it can send the random components of E(R^-1) in place of its premix output's, so that the \
others' decryption shares let it decrypt every slot of its realpre output beside its sender.";
