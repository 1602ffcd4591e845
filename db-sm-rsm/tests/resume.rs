//! Runs that resume: a run whose process is killed (SIGKILL) while it mixes, or while it runs
//! DB-RSM, and is then started again with the same command, resumes from its checkpoint and
//! ends with the same statuses, inputs digest and transcript as a run that was never killed;
//! a damaged checkpoint, or one of other parameters, is refused in one line and the run starts
//! afresh. Over `--transport tls` the same, the whole process group (driver, board, parties)
//! killed during mixing; a damaged party journal empties the checkpoint and the run starts
//! afresh. A checkpoint is not trusted further than it can be checked: a journal re-chained with
//! flipped verdicts, a damaged column file or a checkpoint others can write is refused in one
//! line and the run starts afresh; every file of it is owner-only.

#[allow(dead_code)]
mod common;

use std::os::unix::process::CommandExt;
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

/// Starts `cmd` without progress or output, in a process group of its own (so that a kill of
/// the group reaches the board and every party of a tls run).
fn start_quiet(mut cmd: std::process::Command) -> std::process::Child {
    cmd.env("SUITE_PROGRESS", "off")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("the binary runs")
}

/// Starts the run and kills it (SIGKILL), with every process it started, once the journal
/// `journal` of its checkpoint names a step of `section`: the checkpoint it leaves.
fn run_and_kill_in(args: &[String], dir: &Path, journal: &str, section: &str) {
    let mut child = start_quiet(common::command(args));
    common::wait_for_journal(dir, journal, section, &mut child);
    // The whole process group: the driver and, over tls, the board and every party.
    let group = format!("-{}", child.id());
    let killed = std::process::Command::new("kill")
        .args(["-KILL", "--", &group])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    child.wait().unwrap();
    let left = dir.join("report.checkpoint").join(journal);
    assert!(left.exists(), "the killed run left its checkpoint");
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
        run_and_kill_in(&a, &dir, "journal-driver", section);
        let (code, stderr) = run_to_end(&a);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert!(
            stderr.contains("resuming from the checkpoint"),
            "{name}: {stderr}"
        );
        let got = common::assert_report(&dir.join("report.json"));
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

/// Flips one byte in the middle of the checkpoint's `journal`, runs the command to its end (it
/// must pass, having started afresh) and returns its stderr and the lines refusing a journal.
fn damage_and_rerun(a: &[String], dir: &Path, journal: &str) -> (String, Vec<String>) {
    let journal = dir.join("report.checkpoint").join(journal);
    let mut bytes = std::fs::read(&journal).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x40;
    std::fs::write(&journal, bytes).unwrap();
    let (code, stderr) = run_to_end(a);
    assert_eq!(code, 0, "{stderr}");
    let refusals = stderr
        .lines()
        .filter(|l| l.contains("is not used"))
        .map(str::to_string)
        .collect();
    (stderr, refusals)
}

#[test]
fn a_damaged_or_foreign_checkpoint_is_refused_in_one_line() {
    let dir = scratch("refused");
    let a = args(&dir, "5");
    run_and_kill_in(&a, &dir, "journal-driver", "main/mixing/");
    // One byte of the journal changed: refused, and the run starts afresh.
    let (stderr, refusals) = damage_and_rerun(&a, &dir, "journal-driver");
    assert_eq!(refusals.len(), 1, "{stderr}");
    assert!(refusals[0].contains("damaged"), "{}", refusals[0]);
    assert!(
        report(&dir)["body"]["resumed"].is_null(),
        "nothing of the damaged run is used"
    );

    // A checkpoint of another n left in the same place: refused too.
    run_and_kill_in(&a, &dir, "journal-driver", "main/mixing/");
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

/// The command line of a small seeded run over tls (n = 12, m = 2, one thread per process)
/// writing its report to `dir`.
fn tls_args(dir: &Path) -> Vec<String> {
    let mut a = args(dir, "12");
    a.extend(["--transport", "tls", "--threads", "1"].map(String::from));
    a
}

/// The timers' rows of a report that a resumed run read back from an earlier attempt.
fn resumed_rows(r: &Value) -> Vec<&Value> {
    let timers = r["body"]["timers"].as_array().unwrap();
    timers.iter().filter(|t| t["resumed"] == true).collect()
}

#[test]
fn a_killed_tls_run_resumes_with_the_uninterrupted_runs_outcome() {
    let whole = scratch("tls-whole");
    let (code, stderr) = run_to_end(&tls_args(&whole));
    assert_eq!(code, 0, "{stderr}");
    let want = outcome(&report(&whole));
    assert_eq!(want.0, true);
    assert!(want.3.is_string(), "a transcript digest over tls");
    assert!(report(&whole)["body"]["resumed"].is_null());
    assert!(!whole.join("report.checkpoint").exists());

    // Killed, every process, once mixer 0 has journaled a step of mixing.
    let dir = scratch("tls-mixing");
    let a = tls_args(&dir);
    run_and_kill_in(&a, &dir, "journal-mixer-0", "main/mixing/");
    let (code, stderr) = run_to_end(&a);
    assert_eq!(code, 0, "{stderr}");
    for who in ["db-sm-rsm:", "db-sm-rsm mixer 0:"] {
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with(who) && l.contains("resuming from the checkpoint")),
            "{who}: {stderr}"
        );
    }
    assert!(stderr.contains("the run resumed"), "{stderr}");
    let got = common::assert_report(&dir.join("report.json"));
    assert_eq!(outcome(&got), want, "the resumed tls run differs");
    // The new board got the same posts: every party's count and bytes by scope.
    let first = report(&whole);
    assert_eq!(got["body"]["posted"], first["body"]["posted"]);
    assert_eq!(got["body"]["audit"]["passed"], true, "its record re-checks");
    let resumed = &got["body"]["resumed"];
    assert!(
        resumed["records_read_back"].as_u64().unwrap() > 0,
        "{resumed}"
    );
    let sections = resumed["sections"].as_array().unwrap();
    assert!(sections.contains(&"mixing".into()), "{resumed}");
    let processes = resumed["processes"].as_array().unwrap();
    let mixer0 = processes.iter().find(|p| p["party"] == "mixer 0");
    assert!(
        mixer0.is_some_and(|p| p["records_read_back"].as_u64() > Some(0)),
        "mixer 0 read its journal back: {resumed}"
    );
    // Mixer 0's steps were read back, not done again: its timers are the first attempt's.
    assert!(
        resumed_rows(&got)
            .iter()
            .any(|t| t["party"] == "mixer 0"
                && t["path"].as_array().unwrap().contains(&"mixing".into())),
        "mixer 0's mixing step is marked resumed"
    );
    assert!(!dir.join("report.checkpoint").exists());
}

#[test]
fn a_damaged_party_journal_is_refused_and_the_tls_run_starts_afresh() {
    let dir = scratch("tls-damaged");
    let a = tls_args(&dir);
    run_and_kill_in(&a, &dir, "journal-mixer-0", "main/mixing/");
    let (stderr, refusals) = damage_and_rerun(&a, &dir, "journal-mixer-0");
    assert_eq!(refusals.len(), 1, "{stderr}");
    assert!(
        refusals[0].contains("journal-mixer-0") && refusals[0].contains("damaged"),
        "{}",
        refusals[0]
    );
    assert!(!stderr.contains("resuming from the checkpoint"), "{stderr}");
    let got = report(&dir);
    assert_eq!(got["passed"], true);
    assert!(
        got["body"]["resumed"].is_null(),
        "nothing of the damaged checkpoint is used"
    );
    assert!(resumed_rows(&got).is_empty());
}

/// Starts the run (through `sh -c` with `umask` first, if given) and kills it (SIGKILL), with
/// every process it started, once every journal named in `held` (`journal-driver`,
/// `journal-mixer-0`, ...) of the checkpoint in `dir` holds its process's hold record
/// (`--hold-at`), synced before the process sleeps: no timing involved, and nothing read from
/// the processes' shared stderr, where their lines may interleave. `inspect` looks at the
/// checkpoint while the run holds.
fn hold_and_kill(
    (a, dir): (&[String], &Path),
    umask: Option<&str>,
    held: &[&str],
    inspect: impl FnOnce(),
) {
    use db_sm_rsm::storage::journal;
    let cmd = match umask {
        None => common::command(a),
        Some(mask) => {
            // The same command, its environment included, started by a shell after `umask`.
            let plain = common::command(a);
            let mut sh = std::process::Command::new("sh");
            sh.args(["-c", &format!("umask {mask}; exec \"$0\" \"$@\"")])
                .arg(plain.get_program())
                .args(a)
                .envs(plain.get_envs().filter_map(|(k, v)| Some((k, v?))));
            sh
        }
    };
    let mut child = start_quiet(cmd);
    // Killed however this ends: a held run left behind would sleep forever.
    let _group = KillGroup(child.id());
    // A hold record: kind 3, keyed by the section (storage::journal).
    let holds = |name: &str| {
        let path = dir.join("report.checkpoint").join(name);
        journal::read_all(&path).is_ok_and(|r| r.iter().any(|(kind, _, _)| *kind == 3))
    };
    let start = Instant::now();
    let mut waiting: Vec<&str> = held.to_vec();
    while !waiting.is_empty() {
        waiting.retain(|j| !holds(j));
        assert!(child.try_wait().unwrap().is_none(), "the run ended unheld");
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "no hold in {waiting:?} after 10 minutes"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    inspect();
    drop(_group);
    child.wait().unwrap();
}

/// Kills a process group (SIGKILL) when dropped, a panic included.
struct KillGroup(u32);

impl Drop for KillGroup {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.0)])
            .status();
    }
}

/// The lines of `stderr` refusing a checkpoint.
fn refusals(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("is not used"))
        .collect()
}

/// Sets every false verdict of a check in the journal at `path` to true and writes the journal
/// again with the crate's own writer, so that its chain holds: what someone who can write the
/// checkpoint could do. Returns the number of verdicts flipped.
fn flip_false_verdicts(path: &Path) -> usize {
    use db_sm_rsm::measurement::report::TimerRecord;
    use db_sm_rsm::primitives::wire::{decode, encode};
    use db_sm_rsm::storage::journal::{self, Identity, Journal, STEP};
    let records = journal::read_all(path).unwrap();
    let identity: Identity = decode(&records[0].2).unwrap();
    let mut j = Journal::create(path, identity).unwrap();
    let mut flipped = 0;
    for (kind, key, body) in &records[1..] {
        let mut body = body.clone();
        if *kind == STEP && (key.contains("verif") || key.contains("check")) {
            type Step = (Vec<u8>, Option<u128>, Vec<TimerRecord>);
            let (value, rng, timers): Step = decode(&body).unwrap();
            if value == encode(&false) {
                body = encode(&(encode(&true), rng, timers));
                flipped += 1;
            }
        }
        j.append(*kind, key, &body).unwrap();
    }
    flipped
}

/// A journal rewritten to say that failed checks passed (a run with a forged verifier
/// signature, held in DB-RSM, its false verdicts flipped to true and re-chained with the crate's
/// own writer) is refused on resume: a resumed run checks every journaled verdict again from the
/// journaled data, names the forgery in one line and starts afresh; the tampered status is False
/// again.
#[test]
fn a_rechained_journal_with_flipped_verdicts_is_refused() {
    let dir = scratch("forged");
    let mut a = args(&dir, "4");
    a.extend(["--tamper", "verfsig", "--hold-at", "reverse set membership"].map(String::from));
    hold_and_kill((&a, &dir), None, &["journal-driver"], || {});
    let flipped = flip_false_verdicts(&dir.join("report.checkpoint").join("journal-driver"));
    assert!(flipped >= 3, "{flipped} verdicts flipped");
    let (code, stderr) = run_to_end(&a);
    assert_eq!(code, 1, "the forged verdicts were believed: {stderr}");
    let refused = refusals(&stderr);
    assert_eq!(refused.len(), 1, "{stderr}");
    assert!(refused[0].contains("journal"), "{}", refused[0]);
    let got = report(&dir);
    assert_eq!(got["body"]["statuses"]["status_verfsigs"], false);
    assert!(
        got["body"]["resumed"].is_null(),
        "{}",
        got["body"]["resumed"]
    );
}

/// One changed byte in a column file of the checkpoint: the checkpoint is refused in one line
/// and the run starts afresh and passes, as with a damaged journal.
#[test]
fn a_damaged_column_is_refused_in_one_line_and_the_rerun_passes() {
    let dir = scratch("column");
    let mut a = args(&dir, "4");
    a.extend(["--hold-at", "forward set membership"].map(String::from));
    hold_and_kill((&a, &dir), None, &["journal-driver"], || {});
    let checkpoint = dir.join("report.checkpoint");
    let mut columns: Vec<PathBuf> = std::fs::read_dir(&checkpoint)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "col"))
        .collect();
    columns.sort();
    let column = columns.first().expect("a column in the checkpoint");
    let mut bytes = std::fs::read(column).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x40;
    std::fs::write(column, bytes).unwrap();
    let (code, stderr) = run_to_end(&a);
    assert_eq!(code, 0, "{stderr}");
    let refused = refusals(&stderr);
    assert_eq!(refused.len(), 1, "{stderr}");
    let got = report(&dir);
    assert_eq!(got["passed"], true);
    assert!(got["body"]["resumed"].is_null(), "nothing of it is used");
}

/// Every directory and file of a checkpoint of a tls run (journals holding the parties' secrets,
/// columns, the board's record) is owner-only (0700, 0600) under umask 022, and so is a
/// `--board-record`; a checkpoint that others can write is refused in one line and the run
/// starts afresh.
#[test]
fn a_checkpoint_is_owner_only_and_one_others_can_write_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("modes");
    let mut a = tls_args(&dir);
    let record = dir.join("board.log").to_string_lossy().into_owned();
    a.extend(["--hold-at", "mixing", "--board-record", &record].map(String::from));
    let checkpoint = dir.join("report.checkpoint");
    let everyone = [
        "journal-driver",
        "journal-mixer-0",
        "journal-mixer-1",
        "journal-verifier",
    ];
    hold_and_kill((&a, &dir), Some("022"), &everyone, || {
        let mut wrong = Vec::new();
        let mut seen = 0;
        let mut look = vec![checkpoint.clone(), dir.join("board.log.partial")];
        while let Some(p) = look.pop() {
            let meta = std::fs::metadata(&p).unwrap();
            let want = if meta.is_dir() { 0o700 } else { 0o600 };
            if meta.permissions().mode() & 0o777 != want {
                wrong.push(format!("{}: {:o}", p.display(), meta.permissions().mode()));
            }
            if meta.is_dir() {
                look.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            }
            seen += 1;
        }
        assert!(seen > 10, "{seen} files and directories");
        assert!(wrong.is_empty(), "not owner-only: {wrong:?}");
    });
    // Group-writable: anyone in the group could have put a journal of their own there.
    std::fs::set_permissions(&checkpoint, std::fs::Permissions::from_mode(0o770)).unwrap();
    let (code, stderr) = run_to_end(&a);
    assert_eq!(code, 0, "{stderr}");
    let refused = refusals(&stderr);
    assert_eq!(refused.len(), 1, "{stderr}");
    assert!(refused[0].contains("others can write"), "{}", refused[0]);
    assert!(report(&dir)["body"]["resumed"].is_null());
}
