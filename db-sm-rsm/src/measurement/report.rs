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
use serde_json::{json, Value};

use crate::measurement::format::{fmt_seconds, push_line, py_float_repr};
use crate::primitives::counters;

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
    type Err = String;

    /// `mixer k` or `verifier`, as [`Party`]'s `Display` writes them.
    fn from_str(s: &str) -> Result<Party, String> {
        match s.strip_prefix("mixer ") {
            _ if s == "verifier" => Ok(Party::Verifier),
            Some(k) => k
                .parse()
                .map(Party::Mixer)
                .map_err(|_| format!("no party {s:?}")),
            None => Err(format!("no party {s:?}")),
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
}

/// What one process sent and received on the bulletin board during one timer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NetStats {
    /// Bytes of the posts it made (frame headers and bodies).
    pub bytes_sent: u64,
    /// Bytes of the posts it read.
    pub bytes_received: u64,
    /// Posts it made.
    pub posts: u64,
    /// Posts it read.
    pub reads: u64,
    /// Reads it had to wait for: the communication rounds on its critical path.
    pub rounds: u64,
    /// Seconds it spent waiting for posts.
    pub waited_s: f64,
    /// The deepest post of the section's chains it read ([`crate::transport::board`]): at
    /// least this many round trips passed since the section began.
    pub hops: u64,
}

impl NetStats {
    /// Adds `o`: counts and seconds sum, hops take the deeper.
    pub fn add(&mut self, o: &NetStats) {
        self.bytes_sent += o.bytes_sent;
        self.bytes_received += o.bytes_received;
        self.posts += o.posts;
        self.reads += o.reads;
        self.rounds += o.rounds;
        self.waited_s += o.waited_s;
        self.hops = self.hops.max(o.hops);
    }

    /// The JSON object of these figures.
    pub fn to_json(&self) -> Value {
        json!({"bytes_sent": self.bytes_sent, "bytes_received": self.bytes_received,
               "posts": self.posts, "reads": self.reads, "rounds": self.rounds,
               "waited_s": self.waited_s, "hops": self.hops})
    }
}

/// One timer of one process, keyed so that another process's tree can find it: its sections,
/// its party, its label and how many timers of the same key came before it.
#[derive(Clone, Debug, PartialEq)]
pub struct TimerRecord {
    /// The enclosing sections, outermost first (without the hidden root).
    pub path: Vec<String>,
    /// Its party, `mixer k` or `verifier` (None: a section or a party-less step).
    pub party: Option<String>,
    /// The timer's name.
    pub name: String,
    /// Earlier timers with the same path, party and name in the same tree.
    pub occurrence: usize,
    /// True for a timer with children (a section).
    pub section: bool,
    /// Wall seconds in the process that ran it.
    pub seconds: f64,
    /// That process's CPU seconds while it was open.
    pub cpu_seconds: f64,
    /// Operations counted.
    pub ops: Vec<(String, u64)>,
    /// Board traffic while it was open.
    pub net: NetStats,
    /// When it opened, in seconds since the Unix epoch (the parties of a run share one clock).
    pub start_unix_s: f64,
}

crate::wire_struct!(impl NetStats {
    wire bytes_sent, wire bytes_received, wire posts, wire reads, wire rounds, wire waited_s,
    wire hops
});

impl crate::primitives::wire::Wire for TimerRecord {
    fn put(&self, out: &mut Vec<u8>) {
        self.path.put(out);
        self.party.put(out);
        self.name.put(out);
        self.occurrence.put(out);
        self.section.put(out);
        self.seconds.put(out);
        self.cpu_seconds.put(out);
        self.ops.len().put(out);
        for (k, v) in &self.ops {
            k.put(out);
            v.put(out);
        }
        self.net.put(out);
        self.start_unix_s.put(out);
    }
    fn get(inp: &mut &[u8]) -> crate::Result<Self> {
        let path = Vec::get(inp)?;
        let party = Option::get(inp)?;
        let name = String::get(inp)?;
        let occurrence = usize::get(inp)?;
        let section = bool::get(inp)?;
        let seconds = f64::get(inp)?;
        let cpu_seconds = f64::get(inp)?;
        let n = usize::get(inp)?;
        let mut ops = Vec::new();
        for _ in 0..n.min(inp.len()) {
            ops.push((String::get(inp)?, u64::get(inp)?));
        }
        Ok(TimerRecord {
            path,
            party,
            name,
            occurrence,
            section,
            seconds,
            cpu_seconds,
            ops,
            net: NetStats::get(inp)?,
            start_unix_s: f64::get(inp)?,
        })
    }
}

/// A timer's identity across processes: its path, its party and its name.
type TimerKey = (Vec<String>, Option<String>, String);

/// How many timers of each key a walk has passed: the n-th timer of a key in one process's tree
/// is the n-th of that key in another's.
#[derive(Default)]
struct Occurrences(BTreeMap<TimerKey, usize>);

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

    /// The timers made since the tree held `first` ([`Report::timer_count`]), as records a
    /// journal keeps.
    pub fn records_since(&self, first: usize) -> Vec<TimerRecord> {
        (first.max(1)..self.nodes.len())
            .map(|idx| {
                let node = &self.nodes[idx];
                TimerRecord {
                    path: self.path_of(idx),
                    party: node.party.map(|p| p.to_string()),
                    name: node.name.clone(),
                    occurrence: 0,
                    section: node.items.iter().any(|i| matches!(i, Item::Timer(_))),
                    seconds: node.seconds,
                    cpu_seconds: node.cpu_seconds,
                    ops: node.ops.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                    net: node.net,
                    start_unix_s: node.start_unix_s,
                }
            })
            .collect()
    }

    /// Counts a first attempt's timer `rec` in every timer open now, as if it had run inside
    /// them in this attempt: its wall and CPU seconds and its operations.
    fn credit_open(&mut self, seconds: f64, cpu_seconds: f64, ops: &[(String, u64)]) {
        let d = std::time::Duration::from_secs_f64(seconds.max(0.0));
        for (open, credits) in self.stack.iter_mut().zip(&mut self.op_credits) {
            open.1 = open.1.checked_sub(d).unwrap_or(open.1);
            open.2 -= cpu_seconds;
            for (k, v) in ops {
                *credits.entry(k.clone()).or_default() += v;
            }
        }
    }

    /// Puts back a leaf a first attempt ran (`rec`, of a party or none) in the open section,
    /// with its figures, marked resumed, and counted in every open timer.
    pub fn restore_leaf(&mut self, rec: &TimerRecord) -> crate::Result<()> {
        let party = match rec.party.as_deref() {
            None => None,
            Some(p) => Some(p.parse::<Party>().map_err(crate::Error::Storage)?),
        };
        self.open(&rec.name, party, Totals::None);
        let idx = self.close();
        let node = &mut self.nodes[idx];
        node.seconds = rec.seconds;
        node.cpu_seconds = rec.cpu_seconds;
        node.ops = rec.ops.iter().cloned().collect();
        node.net = rec.net;
        node.start_unix_s = rec.start_unix_s;
        node.resumed = true;
        self.credit_open(rec.seconds, rec.cpu_seconds, &rec.ops);
        Ok(())
    }

    /// Closes the innermost section, whose every step a resumed run read back, with the first
    /// attempt's figures for it (`rec`); the enclosing timers count the first attempt's time of
    /// it instead of this one's.
    pub fn close_resumed_section(&mut self, rec: &TimerRecord) {
        let idx = self.close();
        let (seconds, cpu) = (self.nodes[idx].seconds, self.nodes[idx].cpu_seconds);
        let node = &mut self.nodes[idx];
        node.seconds = rec.seconds;
        node.cpu_seconds = rec.cpu_seconds;
        node.start_unix_s = rec.start_unix_s;
        node.resumed = true;
        self.credit_open(rec.seconds - seconds, rec.cpu_seconds - cpu, &[]);
    }

    /// The record of the timer closed last (a section that just ended), for the journal.
    pub fn last_closed_record(&self, idx: usize) -> TimerRecord {
        let mut r = self.records_since(idx);
        r.truncate(1);
        r.pop().expect("a timer at that index")
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

    /// A leaf of `party` whose work another process does: its place in the tree, filled with
    /// that process's figures by [`Report::fill`].
    pub fn remote_leaf(&mut self, party: Party, name: &str) {
        self.open(name, Some(party), Totals::None);
        let idx = self.close();
        let node = &mut self.nodes[idx];
        node.remote = true;
        node.seconds = 0.0;
        node.cpu_seconds = 0.0;
        node.ops.clear();
    }

    /// Adds board traffic to the innermost open timer.
    pub fn add_net(&mut self, net: &NetStats) {
        let cur = self.current();
        self.nodes[cur].net.add(net);
    }

    /// Every timer this process ran itself (not the remote ones), keyed for [`Report::fill`].
    pub fn records(&self) -> Vec<TimerRecord> {
        let mut seen = Occurrences::default();
        self.walk()
            .into_iter()
            .filter_map(|idx| {
                let ((path, party, name), occurrence) = self.key_of(idx, &mut seen);
                let node = &self.nodes[idx];
                (!node.remote).then(|| TimerRecord {
                    path,
                    party,
                    name,
                    occurrence,
                    section: node.items.iter().any(|i| matches!(i, Item::Timer(_))),
                    seconds: node.seconds,
                    cpu_seconds: node.cpu_seconds,
                    ops: node.ops.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                    net: node.net,
                    start_unix_s: node.start_unix_s,
                })
            })
            .collect()
    }

    /// Every timer in tree order (a timer before its children), the order in which
    /// [`Report::records`] and [`Report::fill`] count occurrences.
    fn walk(&self) -> Vec<usize> {
        let mut order = Vec::new();
        self.order_of(0, &mut order);
        order
    }

    /// Timer `idx`'s key (path, party, name) and its occurrence: how many timers of that key
    /// came before it in the walk.
    fn key_of(&self, idx: usize, seen: &mut Occurrences) -> (TimerKey, usize) {
        let node = &self.nodes[idx];
        let key = (
            self.path_of(idx),
            node.party.map(|p| p.to_string()),
            node.name.clone(),
        );
        let count = seen.0.entry(key.clone()).or_default();
        let occurrence = *count;
        *count += 1;
        (key, occurrence)
    }

    /// Fills this tree's remote leaves with the figures another process recorded for them
    /// (matched by path, party, name and occurrence), and adds that process's CPU and traffic
    /// in each section to the section's. Returns the number of leaves filled.
    pub fn fill(&mut self, records: &[TimerRecord]) -> usize {
        let mut seen = Occurrences::default();
        // Walk in tree order, as `records` did, so occurrences agree.
        let mut filled = 0;
        for idx in self.walk() {
            let (key, occurrence) = self.key_of(idx, &mut seen);
            let node = &self.nodes[idx];
            let found = records.iter().find(|r| {
                r.path == key.0 && r.party == key.1 && r.name == key.2 && r.occurrence == occurrence
            });
            let Some(r) = found else { continue };
            let is_section = node.items.iter().any(|i| matches!(i, Item::Timer(_)));
            let node = &mut self.nodes[idx];
            if node.remote {
                node.seconds = r.seconds;
                node.cpu_seconds = r.cpu_seconds;
                node.ops = r.ops.iter().cloned().collect();
                node.net = r.net;
                node.start_unix_s = r.start_unix_s;
                node.remote = false;
                filled += 1;
            } else if is_section && r.section {
                node.cpu_seconds += r.cpu_seconds;
            }
        }
        filled
    }

    fn order_of(&self, idx: usize, out: &mut Vec<usize>) {
        if idx != 0 {
            out.push(idx);
        }
        for item in &self.nodes[idx].items {
            if let Item::Timer(c) = item {
                self.order_of(*c, out);
            }
        }
    }

    /// The leaves still waiting for another process's figures, as `party: name` in `path`.
    pub fn unfilled(&self) -> Vec<String> {
        (1..self.nodes.len())
            .filter(|i| self.nodes[*i].remote)
            .map(|i| format!("{} in {}", self.label(i), self.path_of(i).join(" > ")))
            .collect()
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

    fn parties(&self, totals: Totals) -> Vec<Party> {
        let mixers = (0..self.m).map(Party::Mixer);
        match totals {
            Totals::None => Vec::new(),
            Totals::Mixers => mixers.collect(),
            Totals::Verifier => vec![Party::Verifier],
            Totals::MixersAndVerifier => mixers.chain([Party::Verifier]).collect(),
        }
    }

    /// Sum of the timers of `party` below `idx`. Matching is on the tag (fix B14); the search
    /// stops at a matching timer, as upstream's did, so nested matches are not double-counted.
    fn party_total(&self, idx: usize, party: Party) -> f64 {
        self.party_sum(idx, party, |n| n.seconds)
    }

    /// [`Self::party_total`] of any per-node figure (wall or CPU seconds).
    fn party_sum(&self, idx: usize, party: Party, of: fn(&Node) -> f64) -> f64 {
        let mut sum = 0.0;
        for item in &self.nodes[idx].items {
            if let Item::Timer(c) = item {
                let child = &self.nodes[*c];
                if child.party == Some(party) {
                    sum += of(child);
                } else {
                    sum += self.party_sum(*c, party, of);
                }
            }
        }
        sum
    }

    /// Operations of the timers of `party` below `idx`, matched as in [`Self::party_total`].
    fn party_ops(&self, idx: usize, party: Party) -> BTreeMap<String, u64> {
        let mut sum = BTreeMap::new();
        for item in &self.nodes[idx].items {
            if let Item::Timer(c) = item {
                let child = &self.nodes[*c];
                if child.party == Some(party) {
                    counters::merge(&mut sum, &child.ops);
                } else {
                    counters::merge(&mut sum, &self.party_ops(*c, party));
                }
            }
        }
        sum
    }

    /// The JSON row of a timer: its identity, wall and CPU time, then its operation counts and,
    /// with a calibration installed, the lower bound they imply (`lower_bound_s`), the same with
    /// each family's unit costs scaled by the speed probe's drift (`lower_bound_drift_s`), and
    /// any class without a unit cost.
    fn row(
        path: Vec<String>,
        party: Option<String>,
        label: String,
        (seconds, cpu_seconds): (f64, f64),
        ops: &BTreeMap<String, u64>,
        drift: Option<&BTreeMap<String, f64>>,
    ) -> Value {
        let mut row = json!({"path": path, "party": party, "label": label, "seconds": seconds,
                             "cpu_seconds": cpu_seconds, "ops": ops});
        if let Some(cal) = crate::measurement::cost::calibration() {
            let (lb, missing) = cal.lower_bound(ops);
            row["lower_bound_s"] = json!(lb);
            if let Some(drift) = drift {
                let (scaled, _) = cal.lower_bound_scaled(ops, |op| {
                    drift
                        .get(crate::measurement::cost::family(op))
                        .copied()
                        .unwrap_or(1.0)
                });
                row["lower_bound_drift_s"] = json!(scaled);
            }
            if !missing.is_empty() {
                row["ops_without_unit_cost"] = json!(missing);
            }
        }
        row
    }

    fn label(&self, idx: usize) -> String {
        let node = &self.nodes[idx];
        match node.party {
            Some(p) => format!("{p}: {}", node.name),
            None => node.name.clone(),
        }
    }

    /// The report text in the paper's format. Open timers (other than the root) are rendered
    /// with the time elapsed so far.
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Upstream's hidden root prints `main` as its header when `main` is entered.
        if self.nodes[0]
            .items
            .iter()
            .any(|i| matches!(i, Item::Timer(_)))
        {
            push_line(&mut out, 0, "main");
        }
        for item in &self.nodes[0].items {
            match item {
                Item::Timer(c) => self.render_node(*c, 0, &mut out),
                Item::Line(t) => push_line(&mut out, 0, t),
            }
        }
        out
    }

    fn render_node(&self, idx: usize, level: usize, out: &mut String) {
        let node = &self.nodes[idx];
        let mut header_done = false;
        for item in &node.items {
            match item {
                Item::Timer(c) => {
                    if !header_done {
                        push_line(out, level, &node.name);
                        header_done = true;
                    }
                    self.render_node(*c, level + 1, out);
                }
                Item::Line(t) => push_line(out, level + 1, t),
            }
        }
        for p in self.parties(node.totals) {
            let t = fmt_seconds(self.party_total(idx, p));
            push_line(out, level + 1, &format!("{p} total time: {t} s"));
        }
        push_line(
            out,
            level,
            &format!("{} time: {} s", self.label(idx), fmt_seconds(node.seconds)),
        );
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

    /// Every timer (sections with party null, leaves, and per-party totals labelled
    /// `"<party> total"`) as the JSON rows of docs/report.schema.json, in report order.
    pub fn timer_rows(&self) -> Vec<Value> {
        let mut rows = Vec::new();
        // The probe's drift, once for every row.
        let drift =
            crate::measurement::cost::calibration().and_then(crate::measurement::probe::drift);
        self.rows_of(0, drift.as_ref(), &mut rows);
        rows
    }

    fn rows_of(&self, idx: usize, drift: Option<&BTreeMap<String, f64>>, rows: &mut Vec<Value>) {
        for item in &self.nodes[idx].items {
            if let Item::Timer(c) = item {
                self.rows_of(*c, drift, rows);
            }
        }
        if idx == 0 {
            return;
        }
        let node = &self.nodes[idx];
        let mut own_path = self.path_of(idx);
        for p in self.parties(node.totals) {
            own_path.push(node.name.clone());
            rows.push(Self::row(
                own_path.clone(),
                Some(p.to_string()),
                format!("{p} total"),
                (
                    self.party_total(idx, p),
                    self.party_sum(idx, p, |n| n.cpu_seconds),
                ),
                &self.party_ops(idx, p),
                drift,
            ));
            own_path.pop();
        }
        let mut row = Self::row(
            own_path,
            node.party.map(|p| p.to_string()),
            self.label(idx),
            (node.seconds, node.cpu_seconds),
            &node.ops,
            drift,
        );
        if node.resumed {
            row["resumed"] = json!(true);
        }
        rows.push(row);
    }

    /// The `statuses` and `sizes` objects of the JSON.
    pub fn statuses_json(&self) -> Value {
        let map: BTreeMap<&str, bool> = self
            .statuses
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        json!(map)
    }

    /// The `sizes` object of the JSON: label to MiB.
    pub fn sizes_json(&self) -> Value {
        let map: serde_json::Map<String, Value> = self
            .sizes
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        Value::Object(map)
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

    /// Seconds of the per-party total of the section at `path` (for summaries and tests).
    pub fn total_of(&self, path: &[&str], party: Party) -> Option<f64> {
        let mut idx = 0;
        for name in path {
            idx = self.nodes[idx].items.iter().find_map(|i| match i {
                Item::Timer(c) if self.nodes[*c].name == *name => Some(*c),
                _ => None,
            })?;
        }
        Some(self.party_total(idx, party))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
