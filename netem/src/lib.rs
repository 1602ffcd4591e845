//! An emulated network for the parties of one benchmark run.
//!
//! A program that runs its parties as processes (or threads) creates a [`Network`] of k parties
//! for a [`Profile`] (`lan`, `region`, `wan`, a custom `rtt=50ms,rate=200mbit`, or `none`), starts
//! each party inside its own network namespace with [`Network::command`] (or
//! [`Network::thread`]), tells each party the others' addresses with [`Network::addr`], and
//! drops the network at the end, which removes everything it made.
//!
//! ```no_run
//! use netem::{Network, Profile};
//! let profile: Profile = "wan".parse()?;
//! let net = Network::create(&profile, 2)?;
//! let server = net.addr(0, 4000);
//! let mut a = net.command(0, "my-party")?.args(["--listen", &server.to_string()]).spawn()?;
//! let mut b = net.command(1, "my-party")?.args(["--connect", &server.to_string()]).spawn()?;
//! b.wait()?;
//! a.kill()?;
//! drop(net); // kills whatever still runs inside, removes namespaces, links, queue and rules
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Layers: [`profile`] (what a network is, as data), [`check`] (what creating one needs, refused
//! in one line before any work), [`network`] (topology, addresses, running inside a party,
//! teardown), [`delay`] and its protocol [`nfqueue`] (the delay line), [`probe`] (round-trip
//! and throughput measurements), [`error`] (the one error type). [`sys`] holds the crate's only
//! `unsafe` code: the system calls `std` lacks (setns, unshare, a netlink socket, ppoll, the
//! real-time policy).

#![warn(missing_docs)]

pub mod check;
pub mod delay;
pub mod error;
pub mod network;
pub mod nfqueue;
pub mod probe;
pub mod profile;
pub mod report;
pub mod sys;

pub use check::{check, Tools};
pub use delay::{DelayMeter, DelayStats};
pub use error::Error;
pub use network::{Network, Partition, HUB, MAX_PARTIES};
pub use profile::{Link, Profile, Rate};
pub use report::network_json;
