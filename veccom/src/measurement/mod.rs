//! Measurement (timed with [`measure::timing`]): the operations of each scheme with their checks
//! and counted-operation lower bounds, the ablation, and the runner behind `veccom-bench` that
//! writes `report.json`.

pub mod ablation;
pub mod report;
pub mod run;
pub mod workload;
