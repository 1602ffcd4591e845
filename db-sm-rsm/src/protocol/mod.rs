//! The protocol, one module per stage in report order: the run's configuration, the parties'
//! keys and preprocessing, the senders' inputs, mixing, DB-SM, DB-RSM (with the steps they
//! share, `membership`) and the size lines, with what every step shares (the parties, "each
//! mixer checks the others", tampering) and the list of fixes the report prints, the processes
//! of a `tls` run (`distributed`, `party`) with what the driver takes from the parties
//! (`claims`), a check's status from the parties' verdicts or an auditor's own (`verdicts`,
//! below the steps and the preprocessing; `audit` re-runs a whole run from its record), the
//! journaled steps a resumed run reads back or does again (`journaled`), resuming a run from
//! its checkpoint (`resume`) and the test option that holds a run at a section (`hold`).
//! `docs/protocol.md` maps every report label to its function.

pub mod audit;
pub mod claims;
pub mod config;
pub mod dbrsm;
pub mod dbsm;
pub mod distributed;
pub mod fixes;
pub mod hold;
pub mod inputs;
pub mod journaled;
pub mod keys;
pub(crate) mod membership;
pub mod mix;
pub mod party;
pub mod resume;
pub mod run;
pub mod setup;
pub mod sizes;
pub mod steps;
pub mod tamper;
pub(crate) mod verdicts;
