//! What the experiment crates' end-to-end tests share (behind the `testing` feature, for
//! `[dev-dependencies]` only): running a bench binary, scratch directories, checking a JSON
//! report against its schema with Python's `jsonschema`, reading an enveloped report, refused
//! input ([`Bench`]), the seed test every program has ([`assert_seeds_reproduce`]), and the
//! reference-figure tables in CSV.
//!
//! Each helper panics with a message naming what failed, as a test should.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// An experiment crate's bench binary as its end-to-end tests see it; built in a test file as
/// a constant from the paths cargo gives it, with [`bench!`](crate::bench):
///
/// ```ignore
/// const BENCH: Bench = measure::bench!("veccom-bench", "veccom");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Bench {
    /// The binary (`env!("CARGO_BIN_EXE_<name>")`).
    pub exe: &'static str,
    /// The crate's directory (`env!("CARGO_MANIFEST_DIR")`), where `docs/report.schema.json`
    /// and `data/` are.
    pub crate_dir: &'static str,
    /// A short name for the test's scratch directories.
    pub name: &'static str,
}

impl Bench {
    /// Runs the binary with `args`, progress as log lines (so that a test can look for them in
    /// the standard error), and returns its output.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new(self.exe)
            .args(args)
            .env("SUITE_PROGRESS", "lines")
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.exe))
    }

    /// Runs the binary with `args` and asserts that it succeeds (exit status 0); returns the
    /// standard error.
    pub fn run_ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        let stderr = stderr(&out);
        assert!(out.status.success(), "{args:?}: {stderr}");
        stderr
    }

    /// Runs the binary with `args`, then `--out out` and, with a seed, `--seed seed`; asserts
    /// that it succeeds and that the report's envelope names the seed (or none). Returns the
    /// envelope.
    pub fn run_seeded(&self, args: &[&str], out: &Path, seed: Option<&str>) -> Value {
        let mut all = args.to_vec();
        all.extend(["--out", out.to_str().expect("a UTF-8 path")]);
        if let Some(s) = seed {
            all.extend(["--seed", s]);
        }
        self.run_ok(&all);
        let report = read_json(out);
        assert_eq!(report["seed"].as_str(), seed, "{}", out.display());
        report
    }

    /// The enveloped report at `out`, checked: the envelope and the body against their schemas
    /// ([`Bench::validate_enveloped`]), the tool named after the binary, and the verdict
    /// `passed`.
    pub fn enveloped(&self, out: &Path, passed: bool) -> Value {
        self.validate_enveloped(out)
            .unwrap_or_else(|e| panic!("{}: {e}", out.display()));
        let report = read_json(out);
        let tool = Path::new(self.exe).file_name().and_then(|f| f.to_str());
        assert_eq!(report["tool"].as_str(), tool, "{}", out.display());
        assert_eq!(report["passed"], passed, "{}", out.display());
        report
    }

    /// Runs the binary with `args` and `--out` a report `sub/<test>.json` in a fresh scratch
    /// directory for `test` (the binary makes `sub/`), and asserts that it succeeds.
    pub fn run_in_scratch(&self, test: &str, args: &[&str]) -> ScratchRun {
        let scratch = Scratch::new(&format!("{}-cli", self.name), test);
        let out = scratch.path(&format!("sub/{test}.json"));
        let stderr = self.run_ok(&[args, &["--out", out.to_str().expect("a UTF-8 path")]].concat());
        ScratchRun {
            scratch,
            out,
            stderr,
        }
    }

    /// The bad-input test every bench has: each case `(args, says)` (the arguments as one line,
    /// see [`args`]), followed by `--out` a file in a scratch directory, is refused (see
    /// [`Bench::refuses`]) and writes no report; so is `valid` (valid arguments, one line too)
    /// with `--out` the directory itself. Returns the cases' standard errors.
    pub fn refuses_bad_input(&self, cases: &[(&str, &str)], valid: &str) -> Vec<String> {
        fn line<'a>(words: &'a str, out: &'a str) -> Vec<&'a str> {
            [args(words), vec!["--out", out]].concat()
        }
        let dir = self.scratch("bad-input");
        let out = dir.join("r.json");
        let path = out.to_str().expect("a UTF-8 path");
        let stderrs = cases
            .iter()
            .map(|(args, says)| {
                let stderr = self.refuses(&line(args, path), says);
                assert!(!out.exists(), "{args:?}: a report was written");
                stderr
            })
            .collect();
        let dir_path = dir.to_str().expect("a UTF-8 path");
        self.refuses(&line(valid, dir_path), "is a directory");
        remove_scratch(&dir);
        stderrs
    }

    /// The seed test every bench has ([`assert_seeds_reproduce`]) on small runs with `args`;
    /// `check(report, seed)` looks at each run's report too.
    pub fn seeds_reproduce(&self, args: &[&str], check: impl Fn(&Value, Option<&str>)) {
        let dir = self.scratch("seed");
        assert_seeds_reproduce(|name, seed| {
            let report = self.run_seeded(args, &dir.join(name), seed);
            check(&report, seed);
            inputs_sha256(&report)
        });
        remove_scratch(&dir);
    }

    /// Runs the binary with `args` and asserts that it refuses them as bad input must be
    /// refused: exit status 2 and a message containing `says`. Returns the standard error.
    pub fn refuses(&self, args: &[&str], says: &str) -> String {
        assert_refused(&self.run(args), &format!("{args:?}"), says)
    }

    /// A fresh, empty directory for one test, unique to the crate, the test and the process.
    pub fn scratch(&self, test: &str) -> PathBuf {
        scratch(&format!("{}-cli", self.name), test)
    }

    /// A path in the crate's directory.
    pub fn path(&self, relative: &str) -> PathBuf {
        Path::new(self.crate_dir).join(relative)
    }

    /// Checks `report` against the crate's `docs/report.schema.json` (see [`validate`]).
    pub fn validate(&self, report: &Path) -> Result<(), String> {
        validate(&self.path("docs/report.schema.json"), report)
    }

    /// Checks an enveloped `report`: the envelope against the suite's envelope schema and its
    /// `body` against the crate's `docs/report.schema.json` (see [`validate_enveloped`]).
    pub fn validate_enveloped(&self, report: &Path) -> Result<(), String> {
        validate_enveloped(&self.path("docs/report.schema.json"), report)
    }
}

/// A bench's run in a scratch directory ([`Bench::run_in_scratch`]).
#[derive(Debug)]
pub struct ScratchRun {
    /// The scratch directory, removed with the report when this is dropped.
    pub scratch: Scratch,
    /// The report.
    pub out: PathBuf,
    /// The binary's standard error.
    pub stderr: String,
}

/// A [`Bench`] for the calling crate's binary `$bin` (its scratch directories named after
/// `$name`), from the paths cargo gives the crate's tests.
#[macro_export]
macro_rules! bench {
    ($bin:literal, $name:literal) => {
        $crate::testing::Bench {
            exe: env!(concat!("CARGO_BIN_EXE_", $bin)),
            crate_dir: env!("CARGO_MANIFEST_DIR"),
            name: $name,
        }
    };
}

/// A command line's arguments, written as one line: its words (split at white space).
pub fn args(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// Two public seeds (64 hex digits) for the seed tests.
pub const SEEDS: [&str; 2] = [
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed",
];

/// The seed test every program has. `digest(name, seed)` makes a small run, its report named
/// `name`, with `--seed seed` (`None`: no seed) and returns its inputs digest (see
/// [`inputs_sha256`]). Asserts that one seed twice gives one digest and another seed another,
/// and that two runs without a seed give two digests, both unlike the seeded one. The runs'
/// reports are `a.json` to `e.json`, `a.json` with the first of [`SEEDS`].
pub fn assert_seeds_reproduce(mut digest: impl FnMut(&str, Option<&str>) -> String) {
    let a = digest("a.json", Some(SEEDS[0]));
    assert_eq!(a, digest("b.json", Some(SEEDS[0])), "one seed, two inputs");
    assert_ne!(a, digest("c.json", Some(SEEDS[1])), "two seeds, one input");
    let fresh = digest("d.json", None);
    assert_ne!(fresh, digest("e.json", None), "no seed, the same inputs");
    assert_ne!(fresh, a, "no seed, the seeded inputs");
}

/// The envelope's digest of the run's generated inputs.
pub fn inputs_sha256(report: &Value) -> String {
    report["inputs_sha256"]
        .as_str()
        .unwrap_or_else(|| panic!("no inputs_sha256 in {report}"))
        .to_string()
}

/// A fresh, empty directory, unique to the process: `<tmp>/<prefix>-<name>-<pid>`.
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("cannot create {}: {e}", d.display()));
    d
}

/// A fresh, empty scratch directory (see [`scratch`]) removed with what it holds when dropped,
/// for tests that write files of their own.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// A fresh, empty `<tmp>/<prefix>-<name>-<pid>`.
    pub fn new(prefix: &str, name: &str) -> Scratch {
        Scratch(scratch(prefix, name))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.0
    }

    /// A file in the directory.
    pub fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }

    /// A file in the directory as text, for a command line.
    pub fn s(&self, file: &str) -> String {
        self.path(file).to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Asserts that a program refused its input (`what`, for the message) as bad input must be
/// refused: exit status 2 and a message containing `says`. Returns the standard error.
pub fn assert_refused(out: &Output, what: &str, says: &str) -> String {
    let stderr = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    assert!(stderr.contains(says), "{what}: {stderr}");
    stderr
}

/// A program's standard output as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A program's standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Removes a scratch directory and what it holds.
pub fn remove_scratch(dir: &Path) {
    std::fs::remove_dir_all(dir).unwrap_or_else(|e| panic!("cannot remove {}: {e}", dir.display()));
}

/// Reads and parses a JSON file.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Checks the JSON file `report` against the JSON Schema (draft 2020-12) in `schema` with
/// Python's `jsonschema`, after checking the schema itself. `Err` holds the violations, one a
/// line. Panics if `python3` with `jsonschema` (requirements.txt) cannot be run.
pub fn validate(schema: &Path, report: &Path) -> Result<(), String> {
    let code = "import json, sys, jsonschema\n\
                s = json.load(open(sys.argv[1]))\n\
                jsonschema.Draft202012Validator.check_schema(s)\n\
                errs = sorted(jsonschema.Draft202012Validator(s).iter_errors(json.load(open(sys.argv[2]))), key=str)\n\
                print('\\n'.join(e.message for e in errs))\n\
                sys.exit(1 if errs else 0)\n";
    let out = Command::new("python3")
        .args(["-c", code])
        .arg(schema)
        .arg(report)
        .output()
        .expect("python3 with jsonschema (requirements.txt) is needed to check the schema");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The suite's envelope schema (`measure/schema/envelope.schema.json`).
pub fn envelope_schema() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/envelope.schema.json")
}

/// Checks the JSON file `report` against the envelope schema, and its `body` against
/// `body_schema` (both with [`validate`]). `Err` names which part failed.
pub fn validate_enveloped(body_schema: &Path, report: &Path) -> Result<(), String> {
    validate(&envelope_schema(), report).map_err(|e| format!("envelope: {e}"))?;
    let body = read_json(report)["body"].clone();
    // A name of its own per call: tests of one process validate reports in parallel.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = std::env::temp_dir().join(format!("measure-body-{}-{call}.json", std::process::id()));
    std::fs::write(
        &tmp,
        serde_json::to_vec(&body).expect("a JSON value serialises"),
    )
    .unwrap_or_else(|e| panic!("cannot write {}: {e}", tmp.display()));
    let r = validate(body_schema, &tmp).map_err(|e| format!("body: {e}"));
    let _ = std::fs::remove_file(&tmp);
    r
}

/// Splits one CSV line into its fields; a field may be double-quoted (with commas inside, but
/// no quotes). Panics on an unbalanced quote.
pub fn csv_fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().expect("never empty").push(c),
        }
    }
    assert!(!quoted, "unbalanced quotes in {line:?}");
    out
}

/// The rows of the CSV file at `path` whose first line is exactly the columns `header`: each
/// non-blank line after it as (the line, its fields), every row with as many fields as the
/// header has columns.
pub fn csv_rows(path: &Path, header: &[&str]) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    assert_eq!(csv_fields(first), header, "{}: header", path.display());
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let f = csv_fields(line);
            assert_eq!(f.len(), header.len(), "{line}");
            (line.to_string(), f)
        })
        .collect()
}

/// The `setpriv` program, where the system has one: tests run a program through it with fewer
/// capabilities to see it refuse what it may not do.
pub fn setpriv() -> Option<&'static str> {
    ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists())
}

/// Runs an independent reference computation, the Python `script` in the crate's `tests/`
/// (`crate_dir`: `env!("CARGO_MANIFEST_DIR")`), with `args`; its standard output. Panics, naming
/// the script, when python3 cannot run it or it fails.
pub fn python_reference(crate_dir: &str, script: &str, args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg(Path::new(crate_dir).join("tests").join(script))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("python3 must be installed to run tests/{script}: {e}"));
    assert!(out.status.success(), "{script} failed: {}", stderr(&out));
    String::from_utf8(out.stdout).unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// The rows of a crate's published reference figures, `data/reference-figures.csv` in the
/// crate's directory `crate_dir` (`env!("CARGO_MANIFEST_DIR")`), under the columns `header` (see
/// [`csv_rows`]).
pub fn reference_figures(crate_dir: &str, header: &[&str]) -> Vec<(String, Vec<String>)> {
    csv_rows(
        &Path::new(crate_dir).join("data/reference-figures.csv"),
        header,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_keep_commas_inside_quotes() {
        assert_eq!(csv_fields(r#"a,"b, c",,d"#), ["a", "b, c", "", "d"]);
    }

    #[test]
    #[should_panic(expected = "unbalanced quotes")]
    fn an_unbalanced_quote_is_refused() {
        csv_fields(r#"a,"b"#);
    }

    #[test]
    fn csv_rows_check_the_header_and_the_width() {
        let dir = scratch("measure-testing", "csv");
        let path = dir.join("t.csv");
        std::fs::write(&path, "x,y\n1,\"a, b\"\n\n2,c\n").unwrap();
        let rows = csv_rows(&path, &["x", "y"]);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].1, ["1", "a, b"]);
        let wrong_header = std::panic::catch_unwind(|| csv_rows(&path, &["x", "z"]));
        assert!(wrong_header.is_err());
        std::fs::write(&path, "x,y\n1,2,3\n").unwrap();
        assert!(std::panic::catch_unwind(|| csv_rows(&path, &["x", "y"])).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn validation_accepts_a_conforming_report_and_names_a_violation() {
        let dir = scratch("measure-testing", "schema");
        let schema = dir.join("schema.json");
        std::fs::write(
            &schema,
            r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "required": ["cpu_s"], "properties": {"cpu_s": {"type": "number"}}}"#,
        )
        .unwrap();
        let report = dir.join("report.json");
        std::fs::write(&report, r#"{"cpu_s": 1.5}"#).unwrap();
        validate(&schema, &report).unwrap();
        assert_eq!(read_json(&report)["cpu_s"], 1.5);
        std::fs::write(&report, r#"{"wall_s": 1.5}"#).unwrap();
        assert!(validate(&schema, &report).unwrap_err().contains("cpu_s"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
