//! What the end-to-end tests share: running the command, reading its statuses, and running
//! many commands two at a time.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use db_sm_rsm::measurement::format::parse_status_line;
use db_sm_rsm::protocol::tamper::Tamper;

/// The command `db-sm-rsm args`. Seeded runs keep their generated keys in one cache under the
/// target directory, so each seed's keys are searched once; no calibration file is read unless
/// the arguments name one.
pub fn command<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_db-sm-rsm"));
    c.args(args)
        .env(
            "DBSM_KEY_CACHE",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/dbsm-keys"),
        )
        .env_remove("DBSM_CALIBRATION");
    c
}

/// Runs `db-sm-rsm` with `args` ([`command`]): (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = command(args).output().expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The status lines of a report, in order.
pub fn statuses(report: &str) -> Vec<(String, bool)> {
    report.lines().filter_map(parse_status_line).collect()
}

/// A run with `--tamper`: the tamper, the status it must turn False, and what the run gave.
pub struct TamperRun {
    pub status: &'static str,
    pub code: i32,
    pub statuses: Vec<(String, bool)>,
}

impl TamperRun {
    /// The value the report printed for status `name` (`None`: not printed).
    pub fn get(&self, name: &str) -> Option<bool> {
        self.statuses
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, ok)| *ok)
    }
}

/// Runs `args` followed by `--tamper T` for every tamper T, two at a time, and fails naming
/// every run `wrong` finds at fault: the tamper, the exit code, the tamper's status, what `wrong`
/// says and the run's stderr.
pub fn every_tamper(args: &[&str], wrong: impl Fn(&TamperRun) -> Option<String> + Sync) {
    let failures: Vec<String> = par_map(&Tamper::ALL, |&(tamper, status)| {
        let mut args = args.to_vec();
        args.extend(["--tamper", tamper.name()]);
        let (code, stdout, stderr) = run(&args);
        let r = TamperRun {
            status,
            code,
            statuses: statuses(&stdout),
        };
        wrong(&r).map(|why| {
            let got = r.get(status);
            let name = tamper.name();
            format!("--tamper {name}: exit {code}, {status} = {got:?}{why}\n{stderr}")
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `f` of every item, two at a time (the runs are single-threaded; a 2-core machine runs two
/// side by side), in the items' order.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                out.lock().expect("no worker panicked")[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .expect("no worker panicked")
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

/// The public seed `--seed` takes: 64 hexadecimal digits, here the byte `b` 32 times.
pub fn seed(b: u8) -> String {
    format!("{b:02x}").repeat(32)
}

/// Checks a JSON report written with `--out`: the suite's envelope around a body that conforms
/// to `docs/report.schema.json`; panics with every violation. Returns the parsed report.
pub fn assert_report(doc: &std::path::Path) -> serde_json::Value {
    let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.schema.json");
    if let Err(e) = measure::testing::validate_enveloped(&schema, doc) {
        panic!("{} is not a valid report: {e}", doc.display());
    }
    measure::testing::read_json(doc)
}

/// Waits until the checkpoint's `journal` (under `dir`) names a step of `section`, while
/// `child` (the run) is alive; a run that ends first, or ten minutes, fails the test. The
/// journal, not the run's stderr, says how far a run got: several processes write to one
/// stderr and their lines interleave.
#[allow(dead_code)] // not every test binary waits on a journal
pub fn wait_for_journal(
    dir: &std::path::Path,
    journal: &str,
    section: &str,
    child: &mut std::process::Child,
) {
    let journal = dir.join("report.checkpoint").join(journal);
    let start = std::time::Instant::now();
    loop {
        let seen = std::fs::read(&journal)
            .map(|b| b.windows(section.len()).any(|w| w == section.as_bytes()))
            .unwrap_or(false);
        if seen {
            return;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it reached {section}"
        );
        assert!(
            start.elapsed() < std::time::Duration::from_secs(600),
            "no {section} after 10 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
