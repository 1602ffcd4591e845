//! The attempts of one `--transport tls` run: a run that loses one party process (SIGKILL)
//! fails, and the same command resumes it with the outcome of a run never interrupted; a party
//! journal of another run of the same command, put in the checkpoint, is refused in one line; a
//! party process of a first attempt that was stopped (SIGSTOP) and wakes up after the second
//! attempt began cannot post, and the second attempt ends as if it had never been.

#[allow(dead_code)]
mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const SEED: &str = "3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c";

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("attempts-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small seeded tls run (n = 12, m = 2, one thread per process) writing its report to `dir`,
/// waiting at most 30 s for any party.
fn args(dir: &Path) -> Vec<String> {
    let out = dir.join("report.json").to_string_lossy().into_owned();
    [
        "12",
        "2",
        "--seed",
        SEED,
        "--out",
        &out,
        "--transport",
        "tls",
        "--threads",
        "1",
        "--timeout",
        "30",
    ]
    .map(String::from)
    .to_vec()
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("a report");
    serde_json::from_str(&text).expect("JSON")
}

/// What two runs of one seed must share.
fn outcome(r: &Value) -> (Value, Value, Value, Value) {
    (
        r["passed"].clone(),
        r["inputs_sha256"].clone(),
        r["body"]["statuses"].clone(),
        r["body"]["transcript_sha256"].clone(),
    )
}

/// The outcome of the run never interrupted.
fn uninterrupted() -> (Value, Value, Value, Value) {
    let dir = scratch("whole");
    let a: Vec<String> = args(&dir);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, _, stderr) = common::run(&a);
    assert_eq!(code, 0, "{stderr}");
    let want = outcome(&report(&dir));
    assert_eq!(want.0, true);
    want
}

/// Kills a process group (SIGKILL) when dropped, a panic included.
struct KillGroup(u32);

impl Drop for KillGroup {
    fn drop(&mut self) {
        signal("KILL", &format!("-{}", self.0));
    }
}

fn signal(name: &str, target: &str) {
    let _ = std::process::Command::new("kill")
        .args([&format!("-{name}"), "--", target])
        .stderr(Stdio::null())
        .status();
}

/// What a run says on stderr, line by line as it comes, read by a thread of its own until
/// every process that holds the pipe has ended.
struct Said {
    lines: std::sync::mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Said {
    /// Everything said, once every writer has ended.
    fn join(mut self) -> String {
        self.seen.extend(self.lines.iter());
        self.seen.join("\n")
    }
}

/// Starts the run in a process group of its own, its stderr read by a thread.
fn start(a: &[String]) -> (Child, Said) {
    let mut child = common::command(a)
        .env("SUITE_PROGRESS", "off")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("the binary runs");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)) {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let said = Said {
        lines: rx,
        seen: Vec::new(),
    };
    (child, said)
}

/// Every process below `pid`, each with its command line.
fn descendants(pid: u32) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    let mut look = vec![pid];
    while let Some(p) = look.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let children =
                std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            for c in children
                .split_whitespace()
                .filter_map(|c| c.parse::<u32>().ok())
            {
                let cmd = std::fs::read(format!("/proc/{c}/cmdline")).unwrap_or_default();
                let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
                found.push((c, cmd));
                look.push(c);
            }
        }
    }
    found
}

/// The process of mixer 0 among the run's.
fn mixer0(driver: u32) -> u32 {
    descendants(driver)
        .into_iter()
        .find(|(_, cmd)| cmd.contains(" party ") && cmd.contains("--role mixer --id 0 "))
        .map(|(pid, _)| pid)
        .expect("mixer 0's process")
}

/// True while the process `pid` exists and has not ended (a zombie has).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| !r.trim_start().starts_with('Z'))
    })
}

/// The lines of `stderr` refusing a checkpoint.
fn refusals(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("is not used"))
        .collect()
}

#[test]
fn one_killed_party_fails_the_run_and_the_same_command_resumes_it() {
    let want = uninterrupted();
    let dir = scratch("one-killed");
    let a = args(&dir);
    let (mut child, said) = start(&a);
    let _group = KillGroup(child.id());
    common::wait_for_journal(&dir, "journal-mixer-0", "main/mixing/", &mut child);
    signal("KILL", &mixer0(child.id()).to_string());
    let code = child.wait().unwrap().code();
    let said = said.join();
    assert_eq!(code, Some(1), "the run went on without mixer 0: {said}");
    let failure = report(&dir)["body"]["failure"].to_string();
    assert!(failure.contains("mixer 0"), "{failure}");
    assert!(dir.join("report.checkpoint").exists(), "{said}");

    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, _, stderr) = common::run(&a);
    assert_eq!(code, 0, "{stderr}");
    let got = common::assert_report(&dir.join("report.json"));
    assert_eq!(outcome(&got), want, "the resumed run differs");
    let processes = got["body"]["resumed"]["processes"].as_array().unwrap();
    assert!(
        processes
            .iter()
            .any(|p| p["party"] == "mixer 0" && p["records_read_back"].as_u64() > Some(0)),
        "mixer 0 resumed from its journal: {stderr}"
    );
    assert_eq!(got["body"]["audit"]["passed"], true);
}

#[test]
fn a_party_journal_of_another_run_is_refused_in_one_line() {
    let (this, other) = (scratch("this-run"), scratch("other-run"));
    for dir in [&this, &other] {
        let (mut child, said) = start(&args(dir));
        let _group = KillGroup(child.id());
        common::wait_for_journal(dir, "journal-mixer-0", "main/mixing/", &mut child);
        drop(_group);
        child.wait().unwrap();
        said.join();
    }
    // The same command, the same seed, the same steps: only the run differs.
    let journal = |dir: &Path| dir.join("report.checkpoint").join("journal-mixer-0");
    std::fs::copy(journal(&other), journal(&this)).unwrap();
    let a = args(&this);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, _, stderr) = common::run(&a);
    assert_eq!(code, 0, "{stderr}");
    let refused = refusals(&stderr);
    assert_eq!(refused.len(), 1, "{stderr}");
    assert!(
        refused[0].contains("journal-mixer-0") && refused[0].contains("another run"),
        "{}",
        refused[0]
    );
    let got = report(&this);
    assert_eq!(got["passed"], true);
    assert!(
        got["body"]["resumed"].is_null(),
        "{}",
        got["body"]["resumed"]
    );
}

#[test]
fn a_stopped_process_of_the_first_attempt_cannot_post_after_the_second_began() {
    let want = uninterrupted();
    let dir = scratch("stopped");
    let a = args(&dir);
    let (mut first, first_said) = start(&a);
    let first_group = KillGroup(first.id());
    common::wait_for_journal(&dir, "journal-mixer-0", "main/mixing/", &mut first);
    // Mixer 0 stopped mid-run; every other process of the attempt killed.
    let stale = mixer0(first.id());
    signal("STOP", &stale.to_string());
    let others: Vec<u32> = descendants(first.id())
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| *p != stale)
        .collect();
    for p in others.iter().chain([first.id()].iter()) {
        signal("KILL", &p.to_string());
    }
    first.wait().unwrap();

    // The second attempt; once its mixer 0 resumed, the first one's wakes up.
    let (mut second, second_said) = start(&a);
    let _second_group = KillGroup(second.id());
    // Once the second attempt's mixer 0 replaced its journal and noted its attempt (a record of
    // kind 4 keyed "2"), read from the file rather than from the processes' shared stderr,
    // where their lines may interleave.
    let journal = dir.join("report.checkpoint").join("journal-mixer-0");
    let start = Instant::now();
    while !db_sm_rsm::storage::journal::read_all(&journal)
        .is_ok_and(|r| r.iter().any(|(kind, key, _)| *kind == 4 && key == "2"))
    {
        assert!(
            second.try_wait().unwrap().is_none(),
            "the second attempt ended"
        );
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "no second attempt"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    signal("CONT", &stale.to_string());
    let start = Instant::now();
    while alive(stale) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the first attempt's mixer 0 went on"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(first_group);
    let first_said = first_said.join();
    let code = second.wait().unwrap().code();
    let second_said = second_said.join();
    eprintln!("the first attempt said:\n{first_said}");
    assert_eq!(code, Some(0), "{second_said}");
    assert!(refusals(&second_said).is_empty(), "{second_said}");
    let got = common::assert_report(&dir.join("report.json"));
    assert_eq!(outcome(&got), want, "the second attempt differs");
    assert_eq!(got["body"]["audit"]["passed"], true);
    assert!(
        got["body"]["resumed"]["records_read_back"].as_u64() > Some(0),
        "{}",
        got["body"]["resumed"]
    );
}
