//! `--launch srun`: the parties of a tls run started by SLURM's `srun` on the nodes of the job
//! the driver runs in. Here `srun` and `scontrol` are stand-ins on the PATH that say the job has
//! three nodes and start each step on this machine, logging how they were asked; the real
//! SLURM runs it on a cluster of several nodes in tests/test_slurm.py. Bad uses are refused in
//! one line before any work.

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};

use common::{assert_report, command, run, seed};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("placement-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    dir
}

/// A stand-in SLURM: `scontrol` knows job 77 on nodes n0, n1 and n2; `srun` logs its options and
/// runs the step's command here, as the task of a step launched from 127.0.0.1.
fn stand_in_slurm(dir: &Path) {
    let scontrol = r#"#!/bin/sh
case "$*" in
"show job -o 77") echo "JobId=77 JobName=x NodeList=n[0-2] NumNodes=3 NumCPUs=3" ;;
"show hostnames n[0-2]") printf 'n0\nn1\nn2\n' ;;
*) echo "scontrol: unexpected $*" >&2; exit 1 ;;
esac
"#;
    let srun = r#"#!/bin/sh
[ "$1" = --version ] && { echo "slurm 22.05.8"; exit 0; }
echo "$*" >> "$(dirname "$0")/../srun.log"
while [ $# -gt 0 ]; do case "$1" in --*) shift ;; *) break ;; esac; done
SLURM_LAUNCH_NODE_IPADDR=127.0.0.1 exec "$@"
"#;
    for (name, text) in [("scontrol", scontrol), ("srun", srun)] {
        let path = dir.join("bin").join(name);
        std::fs::write(&path, text).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn parties_started_by_srun_each_on_its_node_and_the_report_says_where() {
    let dir = scratch("srun");
    stand_in_slurm(&dir);
    let out = dir.join("report.json");
    let s = seed(7);
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap()
    );
    let args = [
        "3",
        "2",
        "--test-keys",
        "--seed",
        &s,
        "--transport",
        "tls",
        "--launch",
        "srun",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    let got = command(&args)
        .env("PATH", path)
        .env("SLURM_JOB_ID", "77")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&got.stderr);
    assert_eq!(got.status.code(), Some(0), "{err}");
    assert!(
        err.contains("placed by SLURM (job 77, srun, 1 CPU(s) per party): bulletin board, driver, verifier on n0; mixer 0 on n1; mixer 1 on n2"),
        "{err}"
    );
    // Each party by one srun step of one task on its node, with its threads as CPUs.
    let log = std::fs::read_to_string(dir.join("srun.log")).unwrap();
    for (relative, role) in [(1, "--id 0"), (2, "--id 1"), (0, "--role verifier")] {
        let line = log
            .lines()
            .find(|l| l.contains(role))
            .unwrap_or_else(|| panic!("no srun for {role}:\n{log}"));
        for option in [
            "--jobid=77",
            "--nodes=1",
            "--ntasks=1",
            "--exact",
            "--cpus-per-task=1",
        ] {
            assert!(line.contains(option), "{option} missing: {line}");
        }
        assert!(line.contains(&format!("--relative={relative} ")), "{line}");
    }
    assert_eq!(log.lines().count(), 3, "{log}");
    // The report lists every process with its node and the machine block it read itself.
    let report = assert_report(&out);
    assert_eq!(report["passed"], true);
    let hosts = report["body"]["network"]["hosts"].as_array().unwrap();
    let node_of = |party: &str| {
        hosts
            .iter()
            .find(|h| h["party"] == party)
            .unwrap_or_else(|| panic!("{party} missing from {hosts:?}"))["node"]
            .clone()
    };
    assert_eq!(node_of("mixer 0"), "n1");
    assert_eq!(node_of("mixer 1"), "n2");
    for party in ["verifier", "driver", "bulletin board"] {
        assert_eq!(node_of(party), "n0");
    }
    assert!(hosts
        .iter()
        .all(|h| h["machine"]["cpu_model"].is_string() && h["machine"]["logical_cpus"].is_u64()));
    let placed = report["body"]["network"]["placement"].as_str().unwrap();
    assert!(
        placed.starts_with("placed by SLURM on 3 nodes of job 77"),
        "{placed}"
    );
}

#[test]
fn a_run_launched_locally_lists_no_hosts() {
    let dir = scratch("local");
    let out = dir.join("report.json");
    let s = seed(8);
    let args = [
        "3",
        "2",
        "--test-keys",
        "--seed",
        &s,
        "--transport",
        "tls",
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let report = assert_report(&out);
    assert!(report["body"]["network"].get("hosts").is_none());
    assert!(!err.contains("placed by SLURM"), "{err}");
}

#[test]
fn bad_uses_of_launch_srun_are_refused_before_any_work() {
    let dir = scratch("refused");
    stand_in_slurm(&dir);
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap()
    );
    let cases: [(&[&str], Option<&str>, &str); 4] = [
        (&["--launch", "srun"], Some("77"), "needs --transport tls"),
        (
            &["--transport", "tls", "--launch", "srun"],
            None,
            "runs inside a SLURM job",
        ),
        (
            &["--transport", "tls", "--launch", "srun", "--network", "lan"],
            Some("77"),
            "--network none",
        ),
        // m = 3 needs four nodes; the job has three.
        (
            &["--transport", "tls", "--launch", "srun", "--m", "3"],
            Some("77"),
            "has 3 node(s) (n[0-2]); a run of m = 3 needs m + 1 = 4",
        ),
    ];
    for (extra, job, said) in cases {
        let mut args = vec!["--n", "3", "--test-keys"];
        if !extra.contains(&"--m") {
            args.extend(["--m", "2"]);
        }
        args.extend(extra);
        let mut c = command(&args);
        c.env("PATH", &path).env_remove("SLURM_JOB_ID");
        if let Some(job) = job {
            c.env("SLURM_JOB_ID", job);
        }
        let got = c.output().unwrap();
        let err = String::from_utf8_lossy(&got.stderr);
        assert_eq!(got.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}
