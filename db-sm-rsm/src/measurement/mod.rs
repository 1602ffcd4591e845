//! What a run measures and prints: the report (timer tree, paper format, JSON rows), the
//! counters of expensive operations with the lower bound they imply, and the machine's speed
//! probe.

pub mod cost;
pub mod format;
pub mod probe;
pub mod report;
