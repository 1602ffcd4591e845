//! Runs that resume: a run whose process is killed (SIGKILL) while it mixes, or while it runs
//! DB-RSM, and is then started again with the same command, resumes from its checkpoint and
//! ends with the same statuses, inputs digest and transcript as a run that was never killed;
//! a damaged checkpoint, or one of other parameters, is refused in one line and the run starts
//! afresh.

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

const SEED: &str = "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e";

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("resume-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The command line of a small seeded run writing its report to `dir`.
fn args(dir: &Path, n: &str) -> Vec<String> {
    let out = dir.join("report.json").to_string_lossy().into_owned();
    [n, "2", "--seed", SEED, "--out", &out]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("a report");
    serde_json::from_str(&text).expect("JSON")
}

/// Runs to the end: (exit code, stderr).
fn run_to_end(args: &[String]) -> (i32, String) {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, stderr) = common::run(&a);
    (code, stderr)
}

/// Starts the run and kills it (SIGKILL) once its journal names a step of `section`: the
/// checkpoint it leaves.
fn run_and_kill_in(args: &[String], dir: &Path, section: &str) {
    let mut child = common::command(args)
        .env("SUITE_PROGRESS", "off")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let journal = dir.join("report.checkpoint").join("journal-driver");
    let start = Instant::now();
    loop {
        let seen = std::fs::read(&journal)
            .map(|b| b.windows(section.len()).any(|w| w == section.as_bytes()))
            .unwrap_or(false);
        if seen {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it reached {section}"
        );
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "no {section} after 10 minutes"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(journal.exists(), "the killed run left its checkpoint");
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

#[test]
fn a_killed_run_resumes_with_the_uninterrupted_runs_outcome() {
    let whole = scratch("whole");
    let (code, stderr) = run_to_end(&args(&whole, "6"));
    assert_eq!(code, 0, "{stderr}");
    let want = outcome(&report(&whole));
    assert!(want.3.is_string(), "a transcript digest");
    assert!(report(&whole)["body"]["resumed"].is_null());
    assert!(
        !whole.join("report.checkpoint").exists(),
        "the checkpoint goes when the run ends"
    );

    for (name, section) in [
        ("mixing", "main/mixing/decryption of output messages/"),
        ("dbrsm", "main/reverse set membership/get_blsigs_rev/"),
    ] {
        let dir = scratch(name);
        let a = args(&dir, "6");
        run_and_kill_in(&a, &dir, section);
        let (code, stderr) = run_to_end(&a);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert!(
            stderr.contains("resuming from the checkpoint"),
            "{name}: {stderr}"
        );
        let got = report(&dir);
        assert_eq!(outcome(&got), want, "{name}: the resumed run differs");
        let resumed = &got["body"]["resumed"];
        assert!(
            resumed["records_read_back"].as_u64().unwrap() > 0,
            "{name}: {resumed}"
        );
        let timers = got["body"]["timers"].as_array().unwrap();
        assert!(
            timers.iter().any(|t| t["resumed"] == true),
            "{name}: timers of the first attempt are marked"
        );
        assert!(!dir.join("report.checkpoint").exists());
    }
}

#[test]
fn a_damaged_or_foreign_checkpoint_is_refused_in_one_line() {
    let dir = scratch("refused");
    let a = args(&dir, "5");
    run_and_kill_in(&a, &dir, "main/mixing/");
    // One byte of the journal changed: refused, and the run starts afresh.
    let journal = dir.join("report.checkpoint").join("journal-driver");
    let mut bytes = std::fs::read(&journal).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x40;
    std::fs::write(&journal, bytes).unwrap();
    let (code, stderr) = run_to_end(&a);
    assert_eq!(code, 0, "{stderr}");
    let refusals: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("is not used"))
        .collect();
    assert_eq!(refusals.len(), 1, "{stderr}");
    assert!(refusals[0].contains("damaged"), "{}", refusals[0]);
    assert!(
        report(&dir)["body"]["resumed"].is_null(),
        "nothing of the damaged run is used"
    );

    // A checkpoint of another n left in the same place: refused too.
    run_and_kill_in(&a, &dir, "main/mixing/");
    let other = args(&dir, "4");
    let (code, stderr) = run_to_end(&other);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("is not used") && l.contains("other parameters")),
        "{stderr}"
    );
    assert!(report(&dir)["body"]["resumed"].is_null());
}

/// A run over tls, which does not resume, refuses `--checkpoint` before any work.
#[test]
fn a_tls_run_refuses_a_checkpoint_before_any_work() {
    let dir = scratch("names");
    let out = dir.join("b.json").to_string_lossy().into_owned();
    let checkpoint = dir.join("elsewhere").to_string_lossy().into_owned();
    let (code, stderr) = run_to_end(
        &[
            "3",
            "2",
            "--transport",
            "tls",
            "--out",
            &out,
            "--checkpoint",
            &checkpoint,
        ]
        .map(String::from),
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--checkpoint") && stderr.contains("tls"),
        "{stderr}"
    );
    assert!(!dir.join("b.json").exists() && !dir.join("elsewhere").exists());
}
