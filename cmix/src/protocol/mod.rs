//! The cMix protocol for one batch (Chaum et al., ACNS 2017), with the tagging-attack
//! countermeasure (tag hashes of the precomputed decryption shares, commitments to the
//! real-time result): keys and registration ([`keys`]), the message format ([`message`]), one
//! node's steps ([`node`]), the clients' side and the delivery checks ([`client`]), the faults
//! a run can inject ([`tamper`]), and [`local`], all nodes in one process (the same steps,
//! without the network), which the tests use.

pub mod client;
pub mod keys;
pub mod local;
pub mod message;
pub mod node;
pub mod tamper;
