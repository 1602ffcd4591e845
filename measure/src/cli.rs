//! What the bench binaries' command lines share: lists of counts, and the end of a run (the
//! output checked before the work, the report written atomically, the exit status).
//!
//! Exit status: 0 when the report is written and every check passed, 1 when it is written but a
//! check failed, 2 on bad input or an output that cannot be written (before any work).

use std::fmt::Display;
use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

use crate::Error;

/// Parses a list of counts such as "100,1000,2^10..2^16": a count, `2^e`, or a range between
/// two powers of two that runs over the powers of two between them; "none" or nothing is the
/// empty list. `what` (the option) names the list in errors.
pub fn parse_counts(s: &str, what: &str) -> Result<Vec<usize>, Error> {
    let s = s.trim();
    if s.is_empty() || s == "none" {
        return Ok(vec![]);
    }
    let one = |t: &str| -> Result<usize, Error> {
        let t = t.trim();
        match t.strip_prefix("2^") {
            Some(e) => {
                let e: u32 = e.parse().map_err(|_| Error::Exponent {
                    option: what.into(),
                    token: t.into(),
                })?;
                if e > 40 {
                    return Err(Error::TooLarge {
                        option: what.into(),
                        exponent: e,
                    });
                }
                Ok(1usize << e)
            }
            None => t.parse().map_err(|_| Error::NotACount {
                option: what.into(),
                token: t.into(),
            }),
        }
    };
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim) {
        if let Some((a, b)) = part.split_once("..") {
            let (lo, hi) = (one(a)?, one(b)?);
            if !lo.is_power_of_two() || !hi.is_power_of_two() || lo > hi {
                return Err(Error::Range {
                    option: what.into(),
                    part: part.into(),
                });
            }
            out.extend((lo.trailing_zeros()..=hi.trailing_zeros()).map(|e| 1usize << e));
        } else {
            out.push(one(part)?);
        }
    }
    Ok(out)
}

/// Refuses bad input: prints `<program>: <why>` on the standard error and returns status 2.
pub fn refuse(program: &str, why: impl Display) -> ExitCode {
    eprintln!("{program}: {why}");
    ExitCode::from(2)
}

/// The one end of a program's run: `out` is checked for writability before any work; `work`
/// measures (an `Err`, of any type that says what went wrong, is bad input found late: status
/// 2, no report); the report, `envelope`
/// around the outcome, is written atomically; the status is 0 when it passed, 1 when it did
/// not (the report is written either way). `summary` says what the report holds, after
/// "wrote <out>".
pub fn finish_run<E: Display>(
    out: &Path,
    envelope: crate::envelope::Envelope,
    work: impl FnOnce() -> Result<crate::envelope::Outcome, E>,
    summary: impl FnOnce(&Value) -> String,
) -> ExitCode {
    let program = envelope.tool().to_string();
    if let Err(e) = crate::output::check_writable(out) {
        return refuse(&program, e);
    }
    let outcome = match work() {
        Ok(o) => o,
        Err(e) => return refuse(&program, e),
    };
    let report = envelope.close(outcome);
    write_report(&program, out, &report, summary)
}

/// Writes a finished report atomically and says so; status 0 if it passed, 1 if not, 2 if it
/// cannot be written.
pub fn write_report(
    program: &str,
    out: &Path,
    report: &Value,
    summary: impl FnOnce(&Value) -> String,
) -> ExitCode {
    if let Err(e) = crate::output::write_json_atomic(out, report) {
        return refuse(program, format!("cannot write {}: {e}", out.display()));
    }
    let ok = crate::envelope::passed(report);
    eprintln!(
        "{program}: wrote {}{}{}",
        out.display(),
        summary(report),
        if ok { "" } else { "; SOME CHECKS FAILED" }
    );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_powers_and_ranges() {
        assert_eq!(
            parse_counts("100, 1000,2^10..2^12", "x").unwrap(),
            vec![100, 1000, 1024, 2048, 4096]
        );
        assert_eq!(parse_counts("2^3, 4..16", "x").unwrap(), vec![8, 4, 8, 16]);
        assert!(parse_counts("none", "x").unwrap().is_empty());
        assert!(parse_counts(" ", "x").unwrap().is_empty());
        assert!(parse_counts("ten", "--n")
            .unwrap_err()
            .to_string()
            .contains("--n"));
        assert!(parse_counts("2^x", "--n")
            .unwrap_err()
            .to_string()
            .contains("exponent"));
        assert!(parse_counts("2^41", "--n")
            .unwrap_err()
            .to_string()
            .contains("too large"));
        for bad in ["2^3..100", "2^5..2^3", "3..8"] {
            let e = parse_counts(bad, "--n").unwrap_err().to_string();
            assert!(e.contains("powers of two"), "{bad}: {e}");
        }
    }

    fn envelope() -> crate::envelope::Envelope {
        crate::envelope::Envelope::begin("t", "0.1.0", 1, serde_json::json!({"n": 3}), None)
    }

    fn outcome(passed: bool) -> Result<crate::envelope::Outcome, &'static str> {
        Ok(crate::envelope::Outcome {
            passed,
            inputs: crate::envelope::Inputs::new(),
            body: serde_json::json!({"x": 1}),
        })
    }

    #[test]
    fn one_end_of_run_writes_the_envelope_and_says_passed_or_failed() {
        let dir = std::env::temp_dir().join(format!("measure-finish-{}", std::process::id()));
        let out = dir.join("report.json");
        let none = |_: &Value| String::new();
        assert_eq!(
            finish_run(&out, envelope(), || outcome(true), none),
            ExitCode::SUCCESS
        );
        // The written report is a valid envelope (the schema every program's report follows).
        crate::testing::validate(&crate::testing::envelope_schema(), &out).unwrap();
        assert_eq!(
            finish_run(&out, envelope(), || outcome(false), none),
            ExitCode::from(1)
        );
        let written = crate::testing::read_json(&out);
        assert_eq!(
            written["passed"], false,
            "a failed run still writes its report"
        );
        assert_eq!(written["body"]["x"], 1);
        // Bad input found late: status 2 and the earlier report left alone.
        assert_eq!(
            finish_run(&out, envelope(), || Err("bad"), none),
            ExitCode::from(2)
        );
        assert_eq!(crate::testing::read_json(&out)["passed"], false);
        // An unwritable output is refused before the work.
        let mut ran = false;
        let code = finish_run(
            &dir,
            envelope(),
            || {
                ran = true;
                outcome(true)
            },
            none,
        );
        assert_eq!(code, ExitCode::from(2));
        assert!(!ran);
        // The schema rejects a report without the envelope's keys.
        let bare = dir.join("bare.json");
        std::fs::write(&bare, r#"{"all_verified": true}"#).unwrap();
        assert!(crate::testing::validate(&crate::testing::envelope_schema(), &bare).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
