//! Measurement (timed with [`measure::timing`]): timings of the native steps, sizes and proofs of the circuit, fits, the report.
//!
//! * [`native`]: each native step at each n and thread count, checked, with its bound;
//! * [`circuit`]: circuit sizes and proofs (one process each), straight-line fits;
//! * [`run`]: the configuration, the run, the targets and `report.json`.

pub mod circuit;
pub mod native;
pub mod run;
pub mod stm;
