//! Phase timing in the style of bash's `time` (wall, user and system time of the whole process,
//! all threads) and the process's own peak memory: the suite's shared `measure` crate.

pub use measure::clock::{peak_rss_mib, timed, PhaseTimes};
