//! Measurement: the cost of each counted operation in isolation ([`units`]), statistics over
//! repetitions ([`stats`]), and the report ([`report`]): per node and step, CPU user and
//! system and wall time, bytes, counted operations, the lower bound (counts times unit costs)
//! and the overhead above it, per payload byte, ec against mg.

pub mod report;
pub mod stats;
pub mod units;
