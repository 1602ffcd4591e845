//! Which code made a result: the git commit and whether the work tree differed from it.
//!
//! The workflow knows the commit of the checkout it runs from and passes it to every job in
//! `SUITE_GIT_COMMIT` and `SUITE_GIT_DIRTY` (`0` or `1`), so that a job in a container or on a
//! cluster node without the repository still reports it. Run by hand, a program asks `git`
//! itself; outside a repository the commit is `"unknown"`.

use serde_json::{json, Value};
use std::process::Command;

/// The commit of the code and whether its work tree had changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// Full commit hash, or `"unknown"`.
    pub commit: String,
    /// Whether tracked files differed from the commit (`None` when unknown).
    pub dirty: Option<bool>,
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The provenance of this run: from the environment if the workflow set it, else from `git`.
pub fn provenance() -> Provenance {
    if let Ok(commit) = std::env::var("SUITE_GIT_COMMIT") {
        if !commit.is_empty() {
            let dirty = match std::env::var("SUITE_GIT_DIRTY").as_deref() {
                Ok("1") | Ok("true") => Some(true),
                Ok("0") | Ok("false") => Some(false),
                _ => None,
            };
            return Provenance { commit, dirty };
        }
    }
    match git(&["rev-parse", "HEAD"]) {
        Some(commit) => {
            let dirty =
                git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty());
            Provenance { commit, dirty }
        }
        None => Provenance {
            commit: "unknown".into(),
            dirty: None,
        },
    }
}

/// `{"commit": ..., "dirty": ...}` for a JSON report.
pub fn provenance_json() -> Value {
    let p = provenance();
    json!({"commit": p.commit, "dirty": p.dirty})
}
