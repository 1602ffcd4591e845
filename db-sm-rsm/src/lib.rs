//! Distributed set membership (DB-SM) and reverse set membership (DB-RSM) proofs among m
//! mix-servers, and the traceable mixnet under them (PETS 2024, "Traceable mixnets").
//!
//! Primitives live in one module per concept; the protocol in `mix`, `dbsm` and `dbrsm`; timers
//! and the paper-format report in `report`. See `../shared/specs/db-sm-rsm.md`.

pub mod bbsig;
pub mod bbsplus;
pub mod bigint;
pub mod cost;
pub mod dbrsm;
pub mod dbsm;
pub mod dpkbb;
pub mod dpkbbsplus;
pub mod elgamal;
pub mod error;
pub mod fo;
pub mod group;
pub mod inputs;
pub mod keys;
pub mod machine;
pub mod mix;
pub mod paillier;
pub mod pedersen;
pub mod perm;
pub mod probe;
pub mod pshuffle;
pub mod report;
pub mod run;
pub mod security;
pub mod setup;
pub mod sharing;
pub mod shuffle;
pub mod sigma;
pub mod sizes;
pub mod tamper;
pub mod thpaillier;
pub mod transcript;

pub use error::{Error, Result};
