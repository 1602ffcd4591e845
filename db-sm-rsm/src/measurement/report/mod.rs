//! Nested timers and the paper-format report (docs/protocol.md §9).
//!
//! Upstream printed its report while it ran, from a tree of `misc.timer` contexts. Here the same
//! tree is recorded ([`Report`]) and rendered afterwards ([`Report::render`]), so the identical
//! data can also be written as JSON rows ([`Report::timer_rows`], docs/report.schema.json). The
//! printed text follows the paper's grammar line for line ([`crate::measurement::format`]), so
//! one parser reads our reports and the paper's sample:
//!
//! * a timer with children prints its name (a *header*) just before its first child timer, at its
//!   own level; every timer prints `<name> time: <t> s` when it ends;
//! * a line at level L is indented by `4L + 1` spaces; `main` sits at level 0 and is printed twice
//!   at the top, as upstream's hidden root does;
//! * a section opened with [`Totals`] other than `None` ends with one
//!   `<party> total time: <t> s` line per party: the sum of that party's timers below it.
//!
//! Differences from upstream, on purpose:
//!
//! * Every leaf timer carries an explicit [`Party`] tag and totals match the tag exactly. Upstream
//!   matched label prefixes, so `mixer 1` also summed `mixer 10..19` for m >= 11 (bug B14).
//! * The two status lines without a colon (`status_pkcomms True`,
//!   `status_decshares_blsigs_rev True`) are **kept** as upstream printed them, so our report
//!   diffs cleanly against the sample; [`crate::measurement::format::parse_status_line`]
//!   reads both forms.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use measure::clock::process_cpu_seconds;
use measure::progress::Progress;

use crate::measurement::format::py_float_repr;
use crate::primitives::counters;

mod records;
mod rows;
mod text;

pub use records::{NetStats, TimerRecord};

/// Who a leaf timer belongs to. Its label is printed as `"<party>: <name>"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Party {
    /// Mix-server k.
    Mixer(usize),
    /// The verifier (querier).
    Verifier,
}

impl fmt::Display for Party {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Party::Mixer(k) => write!(f, "mixer {k}"),
            Party::Verifier => write!(f, "verifier"),
        }
    }
}

impl std::str::FromStr for Party {
    type Err = crate::Error;

    /// `mixer k` or `verifier`, as [`Party`]'s `Display` writes them.
    fn from_str(s: &str) -> crate::Result<Party> {
        match s.strip_prefix("mixer ") {
            _ if s == "verifier" => Ok(Party::Verifier),
            Some(k) => k
                .parse()
                .map(Party::Mixer)
                .map_err(|_| crate::Error::Parse(format!("no party {s:?}"))),
            None => Err(crate::Error::Parse(format!("no party {s:?}"))),
        }
    }
}

/// Which per-party `total time` lines a section prints when it ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Totals {
    /// No totals.
    None,
    /// One line per mixer.
    Mixers,
    /// One line for the verifier.
    Verifier,
    /// One line per mixer, then one for the verifier.
    MixersAndVerifier,
}

/// Statuses that upstream printed without the colon; kept for a clean diff.
pub const NO_COLON_STATUSES: [&str; 2] = ["status_pkcomms", "status_decshares_blsigs_rev"];

enum Item {
    Timer(usize),
    Line(String),
}

struct Node {
    name: String,
    party: Option<Party>,
    totals: Totals,
    seconds: f64,
    /// Process CPU time (every thread) spent while the timer was open; over `seconds` it is the
    /// step's parallelism, a measure the machine's speed drift cannot distort.
    cpu_seconds: f64,
    items: Vec<Item>,
    parent: Option<usize>,
    /// Operations counted while the timer was open ([`crate::measurement::cost`]).
    ops: BTreeMap<String, u64>,
    /// A leaf of another process's party, holding its figures once that party has reported
    /// them ([`Report::fill`]).
    remote: bool,
    /// Messages this process sent and received while the timer was open (the `tls` transport).
    net: NetStats,
    /// When it opened, in seconds since the Unix epoch.
    start_unix_s: f64,
    /// Its figures are a first attempt's, read back from the journal by a resumed run.
    resumed: bool,
    /// The processes whose claims its figures hold (a `tls` run's parties, whose records the
    /// driver cannot check: [`Report::fill`]); empty for what this process measured.
    claimed_by: Vec<String>,
}

/// The recorded timer tree of one run, with its statuses and sizes.
pub struct Report {
    m: usize,
    nodes: Vec<Node>,
    /// Open timers, innermost last, with their start instants and process CPU times. Index 0
    /// is the hidden root.
    stack: Vec<(usize, Instant, f64)>,
    /// Operation counters when each open timer started, parallel to `stack`.
    op_starts: Vec<Vec<u64>>,
    /// Operations of resumed timers inside each open timer, parallel to `stack`: counted by a
    /// first attempt, not by this one's counters.
    op_credits: Vec<BTreeMap<String, u64>>,
    statuses: Vec<(String, bool)>,
    sizes: Vec<(String, f64)>,
    progress: bool,
    started: Instant,
    /// The timer opened last: where a run that stopped with an error stopped.
    last_opened: Option<usize>,
    /// CPU seconds of threads of this process that do none of the run's work (an emulated
    /// network's delay line), left out of every timer's CPU time.
    foreign_cpu: Option<ForeignCpu>,
}

/// Reads the CPU seconds a thread of this process that is not the run's has spent so far.
pub type ForeignCpu = Arc<dyn Fn() -> f64 + Send + Sync>;

/// Seconds since the Unix epoch.
fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl Report {
    /// An empty report for `m` mixers. With `progress`, every timer entered is announced on stderr.
    pub fn new(m: usize, progress: bool) -> Self {
        let root = Node {
            name: "main".into(),
            party: None,
            totals: Totals::None,
            seconds: 0.0,
            cpu_seconds: 0.0,
            items: Vec::new(),
            parent: None,
            ops: BTreeMap::new(),
            remote: false,
            net: NetStats::default(),
            start_unix_s: unix_now(),
            resumed: false,
            claimed_by: Vec::new(),
        };
        Report {
            m,
            nodes: vec![root],
            stack: vec![(0, Instant::now(), process_cpu_seconds())],
            op_starts: vec![counters::snapshot()],
            op_credits: vec![BTreeMap::new()],
            statuses: Vec::new(),
            sizes: Vec::new(),
            progress,
            started: Instant::now(),
            last_opened: None,
            foreign_cpu: None,
        }
    }

    /// Leaves the CPU time `foreign` reports out of every timer from now on (call it before the
    /// first timer opens).
    pub fn exclude_cpu(&mut self, foreign: ForeignCpu) {
        self.foreign_cpu = Some(foreign);
        let now = self.cpu_now();
        for open in &mut self.stack {
            open.2 = now;
        }
    }

    /// This process's CPU seconds so far, less the foreign threads'.
    fn cpu_now(&self) -> f64 {
        process_cpu_seconds() - self.foreign_cpu.as_ref().map_or(0.0, |f| f())
    }

    /// The number of mixers.
    pub fn mixers(&self) -> usize {
        self.m
    }

    fn current(&self) -> usize {
        self.stack.last().expect("the root is never closed").0
    }

    fn open(&mut self, name: &str, party: Option<Party>, totals: Totals) {
        let parent = self.current();
        let idx = self.nodes.len();
        self.nodes.push(Node {
            name: name.to_string(),
            party,
            totals,
            seconds: 0.0,
            cpu_seconds: 0.0,
            items: Vec::new(),
            parent: Some(parent),
            ops: BTreeMap::new(),
            remote: false,
            net: NetStats::default(),
            start_unix_s: unix_now(),
            resumed: false,
            claimed_by: Vec::new(),
        });
        self.nodes[parent].items.push(Item::Timer(idx));
        self.last_opened = Some(idx);
        if self.progress {
            let path: Vec<&str> = self.stack[1..]
                .iter()
                .map(|(i, _, _)| self.nodes[*i].name.as_str())
                .collect();
            let who = party.map(|p| format!("{p}: ")).unwrap_or_default();
            eprintln!(
                "[{:>8.1}s] {} > {who}{name}",
                self.started.elapsed().as_secs_f64(),
                path.join(" > ")
            );
        }
        self.op_starts.push(counters::snapshot());
        self.op_credits.push(BTreeMap::new());
        let cpu = self.cpu_now();
        self.stack.push((idx, Instant::now(), cpu));
    }

    fn close(&mut self) -> usize {
        assert!(self.stack.len() > 1, "closing the hidden root");
        let (idx, start, cpu_start) = self.stack.pop().expect("checked above");
        self.nodes[idx].seconds = start.elapsed().as_secs_f64();
        self.nodes[idx].cpu_seconds = self.cpu_now() - cpu_start;
        let before = self.op_starts.pop().expect("pushed with the timer");
        let mut ops = counters::delta(&before, &counters::snapshot());
        for (k, v) in self.op_credits.pop().expect("pushed with the timer") {
            *ops.entry(k).or_default() += v;
        }
        self.nodes[idx].ops = ops;
        idx
    }

    /// How many timers the tree holds: a step's timers are those made after it began.
    pub fn timer_count(&self) -> usize {
        self.nodes.len()
    }

    /// Opens a section timer (party-less) that prints the given per-party totals when it ends;
    /// [`Report::close_section`] ends it. [`Report::section`] does both around a closure.
    pub fn open_section(&mut self, name: &str, totals: Totals) {
        self.open(name, None, totals);
    }

    /// Ends the innermost open timer.
    pub fn close_section(&mut self) {
        self.close();
    }

    /// Runs `f` inside a section timer (party-less) that prints the given per-party totals.
    pub fn section<T>(&mut self, name: &str, totals: Totals, f: impl FnOnce(&mut Self) -> T) -> T {
        self.open(name, None, totals);
        let out = f(self);
        self.close();
        out
    }

    /// Times `f` as a leaf of `party`, printed as `"<party>: <name> time: <t> s"`.
    pub fn time<T>(&mut self, party: Party, name: &str, f: impl FnOnce() -> T) -> T {
        self.time_entries(party, name, 0, f)
    }

    /// [`Report::time`] of a step over `total` entries: with progress shown, the hot loops'
    /// ticks ([`counters::tick`]) advance a bar on a terminal, or a line every few seconds in a
    /// log, on stderr: stage, party and step, done/total, elapsed time and time left. With
    /// `total` 0 it is [`Report::time`].
    pub fn time_entries<T>(
        &mut self,
        party: Party,
        name: &str,
        total: usize,
        f: impl FnOnce() -> T,
    ) -> T {
        self.open(name, Some(party), Totals::None);
        let out = self.with_progress(Some(&format!("{party}: {name}")), total, f);
        self.close();
        out
    }

    /// [`Report::time_entries`] of a party-less step (input preparation).
    pub fn time_plain_entries<T>(&mut self, name: &str, total: usize, f: impl FnOnce() -> T) -> T {
        self.open(name, None, Totals::None);
        let out = self.with_progress(None, total, f);
        self.close();
        out
    }

    /// Runs `f` (the open leaf's work) with its progress shown: labelled by the outermost
    /// section below `main` (DB-SM and DB-RSM by those names) and `step`, or by the leaf itself
    /// when it has no section.
    fn with_progress<T>(&mut self, step: Option<&str>, total: usize, f: impl FnOnce() -> T) -> T {
        if !self.progress || total == 0 {
            return f();
        }
        let stage = self.stack[1..]
            .iter()
            .map(|(i, _, _)| self.nodes[*i].name.as_str())
            .find(|n| *n != "main")
            .map(|n| match n {
                "forward set membership" => "DB-SM",
                "reverse set membership" => "DB-RSM",
                other => other,
            })
            .unwrap_or("main");
        let p = Arc::new(Progress::new(stage, step, total as u64));
        counters::set_progress(Some(p.clone()));
        let out = f();
        counters::set_progress(None);
        if let Ok(p) = Arc::try_unwrap(p) {
            p.finish();
        }
        out
    }

    /// Times `f` as a party-less leaf (key generation, input preparation).
    pub fn time_plain<T>(&mut self, name: &str, f: impl FnOnce() -> T) -> T {
        self.time_plain_entries(name, 0, f)
    }

    /// Records a finished leaf with a given duration (for work timed elsewhere, and for tests).
    pub fn record(&mut self, party: Option<Party>, name: &str, seconds: f64) {
        self.open(name, party, Totals::None);
        let idx = self.close();
        self.nodes[idx].seconds = seconds;
        self.nodes[idx].cpu_seconds = seconds;
    }

    /// An info line at the current depth (upstream `pprint`), e.g. `precomputing...`.
    pub fn line(&mut self, text: impl Into<String>) {
        let cur = self.current();
        self.nodes[cur].items.push(Item::Line(text.into()));
    }

    /// Records and prints a status line (`status_x: True`, or without the colon for the two
    /// statuses upstream printed that way).
    pub fn status(&mut self, name: &str, ok: bool) {
        let sep = if NO_COLON_STATUSES.contains(&name) {
            ""
        } else {
            ":"
        };
        let shown = if ok { "True" } else { "False" };
        self.line(format!("{name}{sep} {shown}"));
        self.statuses.push((name.to_string(), ok));
        if self.progress && !ok {
            eprintln!("{name}: FAILED");
        }
    }

    /// Records and prints a size line, `<label>: <mb> MB` with Python's float repr.
    pub fn size(&mut self, label: &str, mb: f64) {
        self.line(format!("{label}: {} MB", py_float_repr(mb)));
        self.sizes.push((label.to_string(), mb));
    }

    /// Every status recorded, in order.
    pub fn statuses(&self) -> &[(String, bool)] {
        &self.statuses
    }

    /// Every size line recorded (label, MiB), in order.
    pub fn sizes(&self) -> &[(String, f64)] {
        &self.sizes
    }

    /// True iff at least one status was recorded and every status is true.
    pub fn all_ok(&self) -> bool {
        !self.statuses.is_empty() && self.statuses.iter().all(|(_, ok)| *ok)
    }

    fn path_of(&self, idx: usize) -> Vec<String> {
        let mut path = Vec::new();
        let mut cur = self.nodes[idx].parent;
        while let Some(p) = cur {
            if p != 0 {
                path.push(self.nodes[p].name.clone());
            }
            cur = self.nodes[p].parent;
        }
        path.reverse();
        path
    }

    /// The open timers, outermost first (without the hidden root), and the party of the
    /// innermost one.
    pub fn open_path(&self) -> (Option<Party>, Vec<String>) {
        let names = self.stack[1..]
            .iter()
            .map(|(i, _, _)| self.nodes[*i].name.clone())
            .collect();
        let party = self.stack.last().and_then(|(i, _, _)| self.nodes[*i].party);
        (party, names)
    }

    /// The timer opened last, as (its party, its sections and label): where a run that stopped
    /// with an error stopped.
    pub fn last_step(&self) -> Option<(Option<Party>, String)> {
        let idx = self.last_opened?;
        let mut path = self.path_of(idx);
        path.push(self.nodes[idx].name.clone());
        Some((self.nodes[idx].party, path.join(" > ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn headers_indentation_and_totals() {
        let mut r = Report::new(2, false);
        r.section("main", Totals::None, |r| {
            r.line("number of entries: 3");
            r.section("sec", Totals::MixersAndVerifier, |r| {
                r.record(Some(Party::Mixer(0)), "a", 1.0);
                r.record(Some(Party::Mixer(1)), "a", 2.0);
                r.section("inner", Totals::Mixers, |r| {
                    r.record(Some(Party::Mixer(1)), "b", 0.5);
                    r.record(Some(Party::Verifier), "c", 4.0);
                });
                r.status("status_x", true);
            });
        });
        let text = r.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], " main");
        assert_eq!(lines[1], "     number of entries: 3");
        assert_eq!(lines[2], " main");
        assert_eq!(lines[3], "     sec");
        assert_eq!(lines[4], "         mixer 0: a time: 1.0 s");
        assert_eq!(lines[6], "         inner");
        assert_eq!(lines[7], "             mixer 1: b time: 0.5 s");
        assert_eq!(lines[9], "             mixer 0 total time: 0.0 s");
        assert_eq!(lines[10], "             mixer 1 total time: 0.5 s");
        assert_eq!(lines[12], "         status_x: True");
        assert_eq!(lines[13], "         mixer 0 total time: 1.0 s");
        assert_eq!(lines[14], "         mixer 1 total time: 2.5 s");
        assert_eq!(lines[15], "         verifier total time: 4.0 s");
        assert!(lines[16].starts_with("     sec time: "));
        assert!(lines[17].starts_with(" main time: "));
        assert_eq!(r.total_of(&["main", "sec"], Party::Mixer(1)), Some(2.5));
    }

    #[test]
    fn party_tags_do_not_match_by_prefix() {
        // Fix B14: with 12 mixers, mixer 1's total must not include mixers 10 and 11.
        let mut r = Report::new(12, false);
        r.section("s", Totals::Mixers, |r| {
            for k in 0..12 {
                r.record(Some(Party::Mixer(k)), "x", 1.0 + k as f64);
            }
        });
        assert_eq!(r.total_of(&["s"], Party::Mixer(1)), Some(2.0));
    }

    #[test]
    fn json_rows_cover_every_timer_and_total() {
        let mut r = Report::new(1, false);
        r.section("main", Totals::None, |r| {
            r.section("mixing", Totals::Mixers, |r| {
                r.record(Some(Party::Mixer(0)), "re-encryption", 1.5);
            });
        });
        let rows = r.timer_rows();
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0]["label"], "mixer 0: re-encryption");
        assert_eq!(rows[0]["party"], "mixer 0");
        assert_eq!(rows[0]["path"], json!(["main", "mixing"]));
        assert_eq!(rows[1]["label"], "mixer 0 total");
        assert_eq!(rows[1]["path"], json!(["main", "mixing"]));
        assert_eq!(rows[2]["label"], "mixing");
        assert!(rows[2]["party"].is_null());
    }
}
