//! What every experiment program of the suite shares, in one place:
//!
//! - [`machine`]: the machine block every JSON report carries (where a run happened, so that
//!   timings from different hosts are never compared blindly);
//! - [`clock`]: process CPU time (all threads) and peak resident memory, the measures a shared,
//!   noisy machine distorts least;
//! - [`provenance`]: the commit of the code that made a result, and whether it was modified;
//! - [`output`]: outputs checked for writability before long work starts, then written to a
//!   temporary file and renamed, so no reader ever sees half a report;
//! - [`seed`]: the one `--seed` form (64 hex digits) and reproducible generators keyed with 32
//!   bytes per named stream, or by the OS;
//! - [`envelope`]: the one report envelope every program writes around its own body (tool,
//!   versions, passed, parameters, seed, machine, provenance, runner, load, resources);
//! - [`error`]: the one error type of these pieces, each variant naming the option or file
//!   at fault;
//! - [`hex`]: bytes as hexadecimal text and back;
//! - [`timing`]: an operation timed over repetitions in CPU and wall time, in alternation with
//!   its lower bound, as medians with their spread;
//! - [`cli`]: what the programs' command lines share: lists of counts, and the one end of a
//!   run (output checked first, the enveloped report written atomically, exit status 0, 1 or 2);
//! - [`progress`]: progress of a long step on the terminal (a bar) or in a log (a line every
//!   few seconds), with the step, the party, done/total, elapsed time and time left;
//! - `testing` (feature `testing`, for the experiment crates' `[dev-dependencies]`): what their
//!   end-to-end tests share: running a bench binary, scratch directories, schema validation of
//!   a report with Python's jsonschema, refused input, reference-figure tables in CSV.
//!
//! The analysis reads the JSON blocks these produce; programs written in other languages (the
//! Node driver of the zkSNARK experiment) write the same keys.

// The two clock readings call libc (getrusage, clock_gettime); every other module is safe code.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod cli;
pub mod clock;
pub mod envelope;
pub mod error;
pub mod hex;
pub mod machine;
pub mod output;
pub mod progress;
pub mod provenance;
pub mod seed;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod timing;

pub use error::Error;
