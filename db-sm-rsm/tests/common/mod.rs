//! What the end-to-end tests share: running the command, reading its statuses, and running
//! many commands two at a time.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use db_sm_rsm::measurement::format::parse_status_line;

/// Runs `db-sm-rsm` with `args`: (exit code, stdout, stderr). Seeded runs keep their generated
/// keys in one cache under the target directory, so each seed's keys are searched once; no
/// calibration file is read unless the arguments name one.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_db-sm-rsm"))
        .args(args)
        .env(
            "DBSM_KEY_CACHE",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/dbsm-keys"),
        )
        .env_remove("DBSM_CALIBRATION")
        .output()
        .expect("the binary runs");
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

/// Checks the JSON file `doc` against `docs/<schema>` with Python's jsonschema (Draft 2020-12),
/// and the schema itself; panics with every violation.
pub fn assert_conforms(doc: &std::path::Path, schema: &str) {
    let code = "import json, sys, jsonschema\n\
                s = json.load(open(sys.argv[1]))\n\
                jsonschema.Draft202012Validator.check_schema(s)\n\
                v = jsonschema.Draft202012Validator(s)\n\
                errs = sorted(v.iter_errors(json.load(open(sys.argv[2]))), key=str)\n\
                print('\\n'.join(f'{list(e.path)}: {e.message}' for e in errs))\n\
                sys.exit(1 if errs else 0)\n";
    let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs")
        .join(schema);
    let out = Command::new("python3")
        .args(["-c", code])
        .arg(&schema)
        .arg(doc)
        .output()
        .expect("python3 with jsonschema (requirements.txt) checks the schemas");
    assert!(
        out.status.success(),
        "{} does not conform to {}:\n{}{}",
        doc.display(),
        schema.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
