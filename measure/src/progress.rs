//! Progress of a long step, where its user can see it.
//!
//! On a terminal (stderr is a TTY) it is an `indicatif` bar: step, party, done/total, elapsed
//! time and time left. Under a workflow, stderr is a pipe into a log and the terminal; there a
//! bar would be a torrent of carriage returns, so the same facts are printed as one plain line
//! at most every [`LINE_EVERY`] (and at the end), e.g.
//!
//! ```text
//! [progress] DB-RSM mixer 2: 5000/10000 (50%), 3m 12s elapsed, ~3m 12s left
//! ```
//!
//! `SUITE_PROGRESS=lines` forces the plain lines, `SUITE_PROGRESS=off` silences both.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often a plain progress line is printed at most.
pub const LINE_EVERY: Duration = Duration::from_secs(10);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Bar,
    Lines,
    Off,
}

fn style() -> Style {
    match std::env::var("SUITE_PROGRESS").as_deref() {
        Ok("off") => Style::Off,
        Ok("lines") => Style::Lines,
        Ok("bar") => Style::Bar,
        _ if std::io::stderr().is_terminal() => Style::Bar,
        _ => Style::Lines,
    }
}

/// `1h 02m`, `3m 12s`, `4.2s`: short and stable widths for logs.
pub fn human_duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "?".into();
    }
    let s = secs.round() as u64;
    if secs < 10.0 {
        format!("{secs:.1}s")
    } else if s < 3600 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{}h {:02}m", s / 3600, (s % 3600) / 60)
    }
}

/// The progress of one step: `inc` from any thread (rayon workers included).
pub struct Progress {
    label: String,
    total: u64,
    done: AtomicU64,
    start: Instant,
    style: Style,
    bar: Option<ProgressBar>,
    last_line: Mutex<Instant>,
}

impl Progress {
    /// Starts the progress of `step` (for `party`, if any) over `total` units.
    pub fn new(step: &str, party: Option<&str>, total: u64) -> Self {
        let label = match party {
            Some(p) => format!("{step} {p}"),
            None => step.to_string(),
        };
        let style = style();
        let bar = (style == Style::Bar).then(|| {
            let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{msg} [{bar:30}] {pos}/{len} ({percent}%) {elapsed} elapsed, ~{eta} left",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            b.set_message(label.clone());
            b
        });
        Progress {
            label,
            total,
            done: AtomicU64::new(0),
            start: Instant::now(),
            style,
            bar,
            last_line: Mutex::new(Instant::now()),
        }
    }

    /// Units done so far.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Adds `k` done units.
    pub fn inc(&self, k: u64) {
        let done = self.done.fetch_add(k, Ordering::Relaxed) + k;
        match self.style {
            Style::Bar => {
                if let Some(b) = &self.bar {
                    b.set_position(done);
                }
            }
            Style::Lines => {
                let mut last = self.last_line.lock().unwrap_or_else(|e| e.into_inner());
                if last.elapsed() >= LINE_EVERY && done < self.total {
                    *last = Instant::now();
                    drop(last);
                    self.print_line(done);
                }
            }
            Style::Off => {}
        }
    }

    /// The plain progress line for `done` units.
    pub fn line(&self, done: u64) -> String {
        let elapsed = self.start.elapsed().as_secs_f64();
        let pct = if self.total == 0 {
            100.0
        } else {
            100.0 * done as f64 / self.total as f64
        };
        let left = if done == 0 {
            "?".to_string()
        } else {
            human_duration(elapsed * (self.total.saturating_sub(done)) as f64 / done as f64)
        };
        format!(
            "[progress] {}: {done}/{} ({pct:.0}%), {} elapsed, ~{left} left",
            self.label,
            self.total,
            human_duration(elapsed)
        )
    }

    fn print_line(&self, done: u64) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", self.line(done));
    }

    /// Ends the step: the bar is cleared and one final line states the time taken.
    pub fn finish(self) {
        let done = self.done();
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
        if self.style != Style::Off {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(
                err,
                "[progress] {}: {done}/{} done in {}",
                self.label,
                self.total,
                human_duration(self.start.elapsed().as_secs_f64())
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_well() {
        assert_eq!(human_duration(4.24), "4.2s");
        assert_eq!(human_duration(192.0), "3m 12s");
        assert_eq!(human_duration(3720.0), "1h 02m");
        assert_eq!(human_duration(f64::NAN), "?");
    }

    #[test]
    fn lines_state_step_party_done_total_and_time_left() {
        let p = Progress::new("DB-RSM", Some("mixer 2"), 10);
        p.inc(5);
        assert_eq!(p.done(), 5);
        let l = p.line(5);
        assert!(
            l.starts_with("[progress] DB-RSM mixer 2: 5/10 (50%), "),
            "{l}"
        );
        assert!(l.contains("elapsed, ~") && l.ends_with(" left"), "{l}");
        assert!(p.line(0).contains("~? left"));
        p.finish();
    }
}
