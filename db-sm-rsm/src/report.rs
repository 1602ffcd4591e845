//! Nested timers and the paper-format report (spec §4).
//!
//! Upstream printed its report while it ran, from a tree of `misc.timer` contexts. Here the same
//! tree is recorded ([`Report`]) and rendered afterwards ([`Report::render`]), so the identical data
//! can also be written as JSON ([`Report::to_json`]). The printed text follows the paper's grammar
//! line for line, so one parser reads our reports and the paper's sample:
//!
//! * a timer with children prints its name (a *header*) just before its first child timer, at its
//!   own level; every timer prints `<name> time: <t> s` when it ends (§4.1);
//! * a line at level L is indented by `4L + 1` spaces; `main` sits at level 0 and is printed twice
//!   at the top, as upstream's hidden root does (§4.5);
//! * sections listed in §4.2 end with one `<party> total time: <t> s` line per party: the sum of
//!   that party's timers below the section.
//!
//! Differences from upstream, on purpose:
//!
//! * Every leaf timer carries an explicit [`Party`] tag and totals match the tag exactly. Upstream
//!   matched label prefixes, so `mixer 1` also summed `mixer 10..19` for m >= 11 (bug B14).
//! * The two status lines without a colon (`status_pkcomms True`,
//!   `status_decshares_blsigs_rev True`) are **kept** as upstream printed them, so our report
//!   diffs cleanly against the sample; [`parse_status_line`] reads both forms.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Instant;

use serde_json::{json, Value};

/// Who a leaf timer belongs to. Its label is printed as `"<party>: <name>"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Party {
    Mixer(usize),
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

/// Which per-party `total time` lines a section prints when it ends (spec §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Totals {
    None,
    Mixers,
    Verifier,
    MixersAndVerifier,
}

/// Statuses that upstream printed without the colon (spec §4.5); kept for a clean diff.
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
    /// Operations counted while the timer was open ([`crate::cost`]).
    ops: BTreeMap<String, u64>,
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
    statuses: Vec<(String, bool)>,
    sizes: Vec<(String, f64)>,
    progress: bool,
    started: Instant,
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
        };
        Report {
            m,
            nodes: vec![root],
            stack: vec![(0, Instant::now(), process_cpu_seconds())],
            op_starts: vec![crate::cost::snapshot()],
            statuses: Vec::new(),
            sizes: Vec::new(),
            progress,
            started: Instant::now(),
        }
    }

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
        });
        self.nodes[parent].items.push(Item::Timer(idx));
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
        self.op_starts.push(crate::cost::snapshot());
        self.stack
            .push((idx, Instant::now(), process_cpu_seconds()));
    }

    fn close(&mut self) -> usize {
        assert!(self.stack.len() > 1, "closing the hidden root");
        let (idx, start, cpu_start) = self.stack.pop().expect("checked above");
        self.nodes[idx].seconds = start.elapsed().as_secs_f64();
        self.nodes[idx].cpu_seconds = process_cpu_seconds() - cpu_start;
        let before = self.op_starts.pop().expect("pushed with the timer");
        self.nodes[idx].ops = crate::cost::delta(&before, &crate::cost::snapshot());
        idx
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
        self.open(name, Some(party), Totals::None);
        let out = f();
        self.close();
        out
    }

    /// Times `f` as a party-less leaf (key generation, input preparation).
    pub fn time_plain<T>(&mut self, name: &str, f: impl FnOnce() -> T) -> T {
        self.open(name, None, Totals::None);
        let out = f();
        self.close();
        out
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

    pub fn statuses(&self) -> &[(String, bool)] {
        &self.statuses
    }

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
                    crate::cost::merge(&mut sum, &child.ops);
                } else {
                    crate::cost::merge(&mut sum, &self.party_ops(*c, party));
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
        if let Some(cal) = crate::cost::calibration() {
            let (lb, missing) = cal.lower_bound(ops);
            row["lower_bound_s"] = json!(lb);
            if let Some(drift) = drift {
                let (scaled, _) = cal.lower_bound_scaled(ops, |op| {
                    drift.get(crate::cost::family(op)).copied().unwrap_or(1.0)
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
    /// `"<party> total"`) as the JSON rows of interfaces.md, in report order.
    pub fn timer_rows(&self) -> Vec<Value> {
        let mut rows = Vec::new();
        // The probe's drift, once for every row.
        let drift = crate::cost::calibration().and_then(crate::probe::drift);
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
        rows.push(Self::row(
            own_path,
            node.party.map(|p| p.to_string()),
            self.label(idx),
            (node.seconds, node.cpu_seconds),
            &node.ops,
            drift,
        ));
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

    pub fn sizes_json(&self) -> Value {
        let map: serde_json::Map<String, Value> = self
            .sizes
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        Value::Object(map)
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

fn push_line(out: &mut String, level: usize, text: &str) {
    out.push_str(&" ".repeat(4 * level + 1));
    out.push_str(text);
    out.push('\n');
}

/// Upstream's `fmt`: Python `format(x, '.2')`, then any exponent form written out in plain
/// digits. Python keeps fixed notation (with at least one fractional digit) for 1e-4 <= x < 10
/// and switches to scientific otherwise; the rounding is to the nearest, ties to even, on the
/// exact binary value, which Rust's `{:.1e}` also does.
/// CPU time of this process, all threads (`CLOCK_PROCESS_CPUTIME_ID`).
pub fn process_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant the kernel knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return f64::NAN;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

pub fn fmt_seconds(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x == 0.0 {
        return "0.0".into();
    }
    let neg = x < 0.0;
    let sci = format!("{:.1e}", x.abs());
    let (mant, exp) = sci.split_once('e').expect("{:e} always has an exponent");
    let exp: i32 = exp.parse().expect("integer exponent");
    let mut digits: String = mant.chars().filter(|c| *c != '.').collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    let mut s = if exp >= 0 {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            let mut s = digits.clone() + &"0".repeat(int_len - digits.len());
            if exp == 0 {
                // Python's fixed form always shows a fractional digit (`2.0`).
                s.push_str(".0");
            }
            s
        } else {
            format!("{}.{}", &digits[..int_len], &digits[int_len..])
        }
    } else {
        format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
    };
    if neg {
        s.insert(0, '-');
    }
    s
}

/// Python's `repr(float)`: the shortest round-tripping digits, with `.0` on integral values.
pub fn py_float_repr(x: f64) -> String {
    let s = format!("{x}");
    if x.is_finite() && !s.contains('.') && !s.contains('e') {
        s + ".0"
    } else {
        s
    }
}

/// Lines our report adds to the paper's format, by their text after the indentation: the
/// security level, where the keys came from and how long their generation took (a timer line),
/// and the status of the mixers' decryption of their own share ciphertexts (a status line).
pub const ADDED_LINES: &[&str] = &[
    "security: ",
    "key generation time: ",
    "keys: ",
    "status_share_decryption",
];

/// `report` without the lines of [`ADDED_LINES`]: what the paper's report would have printed.
pub fn without_additions(report: &str) -> String {
    report
        .lines()
        .filter(|l| !ADDED_LINES.iter().any(|a| l.trim_start().starts_with(a)))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Parses a status line in either form (`status_x: True` or `status_x True`).
pub fn parse_status_line(line: &str) -> Option<(String, bool)> {
    let t = line.trim();
    if !t.starts_with("status_") {
        return None;
    }
    let (name, value) = t.rsplit_once(' ')?;
    let ok = match value {
        "True" => true,
        "False" => false,
        _ => return None,
    };
    Some((name.trim_end_matches(':').to_string(), ok))
}

/// Replaces every number of a report with a placeholder, keeping labels, party indices and
/// statuses: what remains is the label tree, comparable between runs and with the paper.
pub fn mask_numbers(report: &str) -> Vec<String> {
    report
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            if let Some(head) = l.strip_suffix(" s") {
                if let Some((label, _)) = head.rsplit_once(": ") {
                    return format!("{label}: <t> s");
                }
            }
            if let Some(head) = l.strip_suffix(" MB") {
                if let Some((label, _)) = head.rsplit_once(": ") {
                    return format!("{label}: <size> MB");
                }
            }
            for count in ["number of entries: ", "number of mix-servers: "] {
                if let Some(pos) = l.find(count) {
                    return format!("{}<count>", &l[..pos + count.len()]);
                }
            }
            l.to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmt_matches_python() {
        let cases = [
            (44.3, "44"),
            (1100.2, "1100"),
            (17000.0, "17000"),
            (9.96, "10"),
            (2.5, "2.5"),
            (2.0, "2.0"),
            (0.0092, "0.0092"),
            (4.5e-5, "0.000045"),
            (0.05, "0.05"),
            (0.125, "0.12"),
            (0.1, "0.1"),
            (99.5, "100"),
            (250.0, "250"),
            (0.17, "0.17"),
        ];
        for (x, want) in cases {
            assert_eq!(fmt_seconds(x), want, "fmt({x})");
        }
    }

    #[test]
    fn float_repr_matches_python() {
        assert_eq!(py_float_repr(200.26922225952148), "200.26922225952148");
        assert_eq!(py_float_repr(0.30517578125), "0.30517578125");
        assert_eq!(py_float_repr(3.0), "3.0");
    }

    #[test]
    fn status_lines_parse_in_both_forms() {
        assert_eq!(
            parse_status_line("         status_pkcomms True"),
            Some(("status_pkcomms".into(), true))
        );
        assert_eq!(
            parse_status_line("  status_encs: False"),
            Some(("status_encs".into(), false))
        );
        assert_eq!(parse_status_line("mixer 0 total time: 3 s"), None);
    }

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

/// Drives a report with every timer, status and size line of a full run, in report order, with
/// the real labels and zero durations. Used to check the label tree against the paper's sample
/// before (and independently of) the protocol itself.
#[cfg(test)]
pub(crate) fn skeleton(n: usize, m: usize) -> Report {
    use Party::{Mixer, Verifier};
    let mut r = Report::new(m, false);
    let mixers = || (0..m).map(Mixer);
    let each = |r: &mut Report, name: &str| {
        for p in mixers() {
            r.record(Some(p), name, 0.0);
        }
    };
    r.section("main", Totals::None, |r| {
        r.line(format!("number of entries: {n}"));
        r.line(format!("number of mix-servers: {m}"));
        r.section("preprocessing", Totals::None, |r| {
            r.section("pai_th_keygen", Totals::None, |r| r.line("precomputing..."));
            for _ in 0..m {
                r.section("pai_keygen", Totals::None, |r| r.line("precomputing..."));
            }
            r.record(None, "gen_beaver_triples", 0.0);
            r.record(
                None,
                "creating proof of knowledge of permutation commitment opening",
                0.0,
            );
            r.status("status_permcomm", true);
        });
        r.record(None, "input preparation", 0.0);
        r.section("checking inputs", Totals::None, |r| {
            r.section("check_encs", Totals::Mixers, |r| {
                each(r, "checking proofs of knowledge of input ciphertexts")
            });
            r.status("status_encs", true);
        });
        r.section("mixing", Totals::Mixers, |r| {
            r.section("re-encryption and permutation", Totals::Mixers, |r| {
                for p in mixers() {
                    r.record(Some(p), "re-encryption", 0.0);
                    r.record(Some(p), "creating proof of correct shuffle", 0.0);
                }
                each(r, "verifying others' proofs of shuffle");
                r.status("status_shuffle", true);
            });
            r.section("decryption of output messages", Totals::Mixers, |r| {
                each(r, "threshold decryption");
                each(r, "verifying others' decryption shares (batched)");
                each(r, "combining decryption shares");
                r.status("status_decshares", true);
            });
            r.section(
                "decryption of individual message/randomness shares",
                Totals::Mixers,
                |r| each(r, "decryption of individual message/randomness shares"),
            );
        });
        r.section("forward set membership", Totals::MixersAndVerifier, |r| {
            r.section("get_verfsigs", Totals::Verifier, |r| {
                r.record(Some(Verifier), "creating BB signatures and encryptions", 0.0)
            });
            r.section("check_verfsigs", Totals::Mixers, |r| {
                each(r, "checking verifier's signatures and encryptions")
            });
            r.status("status_verfsigs", true);
            r.section("get_blsigs", Totals::Mixers, |r| {
                r.section(
                    "re-encrypt and reverse-permute BB signatures",
                    Totals::Mixers,
                    |r| {
                        for k in (0..m).rev() {
                            r.record(Some(Mixer(k)), "reencrypting encrypted BB signatures", 0.0);
                            r.record(
                                Some(Mixer(k)),
                                "creating proof of shuffle of encrypted BB signatures",
                                0.0,
                            );
                        }
                        each(
                            r,
                            "verifying others' proofs of shuffle of encrypted BB signatures",
                        );
                        r.status("status_shuffle_blsigs", true);
                    },
                );
                r.section(
                    "generate encrypted blinded BB signatures",
                    Totals::Mixers,
                    |r| {
                        each(r, "generate encrypted blinded BB signatures and proofs of knowledge of blinding factors");
                        each(r, "verifying others' proofs of knowledge of blinding factors");
                        r.status("status_pk_bl", true);
                        each(r, "generate encrypted blinded BB signatures");
                    },
                );
                r.section("decrypt blinded signatures", Totals::Mixers, |r| {
                    each(r, "obtain decryption shares");
                    each(r, "verifying others' decryption shares");
                    each(r, "combine decryption shares");
                    r.status("status_decshares_blsigs", true);
                });
            });
            r.section("dpk_bbsig_nizkproofs", Totals::Mixers, |r| {
                each(r, "creating dpk_bbsig commit message");
                each(r, "creating dpk_bbsig challenge");
                each(r, "creating dpk_bbsig response message");
            });
            r.section("dpk_bbsig_nizkverifs", Totals::Verifier, |r| {
                r.record(Some(Verifier), "verifying dpk_bbsig proof", 0.0)
            });
            r.status("status_dpk_bbsig", true);
            r.status("status_forward_set_membership", true);
        });
        r.section("reverse set membership", Totals::MixersAndVerifier, |r| {
            r.section("pkcommverifs", Totals::Verifier, |r| {
                r.record(
                    Some(Verifier),
                    "verifying proof of knowledge of commitment openings",
                    0.0,
                )
            });
            r.status("status_pkcomms", true);
            r.section("get_verfsigs_rev", Totals::Verifier, |r| {
                r.record(Some(Verifier), "creating BBS+ signatures and encryptions", 0.0)
            });
            r.section("check_verfsigs_rev", Totals::Mixers, |r| {
                each(r, "checking verifier's signatures and encryptions")
            });
            r.status("status_verfsigs_rev", true);
            r.section("get_blsigs_rev", Totals::Mixers, |r| {
                r.section("re-encrypt and permute BBS+ signatures", Totals::Mixers, |r| {
                    each(r, "homomorphically obtain the r component of BBS+ sig");
                    for p in mixers() {
                        r.record(Some(p), "reencrypting encrypted BBS+ signatures", 0.0);
                        r.record(
                            Some(p),
                            "creating proof of shuffle of encrypted BBS+ signatures",
                            0.0,
                        );
                    }
                    each(
                        r,
                        "verifying others' proofs of shuffle of encrypted BBS+ signatures",
                    );
                    r.status("status_shuffle_blsigs_rev", true);
                });
                r.section(
                    "generate encrypted blinded BBS+ signatures",
                    Totals::Mixers,
                    |r| {
                        each(r, "generate encrypted blinding factors and proofs of knowledge of blinding factors");
                        each(r, "verifying others' proofs of knowledge of blinding factors");
                        r.status("status_pk_blrev", true);
                        each(r, "generate encrypted blinded BBS+ signatures");
                    },
                );
                r.section("decryption of blinded BBS+ signatures", Totals::Mixers, |r| {
                    each(r, "obtain decryption shares");
                    each(r, "verifying others' decryption shares");
                    each(r, "combining decryption shares");
                    r.status("status_decshares_blsigs_rev", true);
                });
            });
            r.section("dpk_bbsplussig_nizkproofs", Totals::Mixers, |r| {
                each(r, "creating additive shares for delta0");
                each(r, "creating multiplicative shares for delta1 step 1");
                each(r, "creating multiplicative shares for delta1 step 2");
                each(r, "creating multiplicative shares for delta2 step 1");
                each(r, "creating multiplicative shares for delta2 step 2");
                each(
                    r,
                    "computing shares of z1 and proof of knowledge of their openings",
                );
                each(
                    r,
                    "verifying others' proof of knowledge of openings of shares of z1",
                );
                r.status("status_pk_z1", true);
                each(r, "computing generators");
                each(r, "creating dpk_bbsplussig commit message");
                each(r, "creating dpk_bbsplussig challenge");
                each(r, "creating dpk_bbsplussig response message");
            });
            r.section("dpk_bbsplussig_nizkverifs", Totals::Verifier, |r| {
                r.record(Some(Verifier), "verifying dpk_bbsplussig proofs", 0.0)
            });
            r.status("status_dpk_bbsplussig", true);
            r.status("status_reverse_set_membership", true);
        });
        for label in [
            "size of sender-uploaded input ciphertexts",
            "size of verifier-uploaded BB signatures",
            "size of DPK_BBsig proofs",
            "size of verifier-uploaded BBS+ signatures",
            "size of DPK_BBSPlusSig proofs",
        ] {
            r.size(label, 1.0);
        }
    });
    r
}

/// The paper's sample report, shipped in the repository with the analysis package
/// (`analysis/data/paper/`), or from `$DBSM_SAMPLE_REPORT`.
#[cfg(test)]
pub(crate) fn paper_sample() -> String {
    let path = match std::env::var("DBSM_SAMPLE_REPORT") {
        Ok(p) => std::path::PathBuf::from(p),
        Err(_) => std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../analysis/data/paper/report-db-sm-rsm-n10000-m4"),
    };
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("paper sample report {}: {e}", path.display()))
}

/// The sample's label tree: numbers masked, and the run harness's trailer (`******** Worker 0`
/// and a dashed line, which upstream's code never printed, spec §4.5) dropped.
#[cfg(test)]
pub(crate) fn sample_label_tree(sample: &str) -> Vec<String> {
    mask_numbers(sample)
        .into_iter()
        .filter(|l| !l.starts_with("****") && !l.starts_with("----"))
        .collect()
}

#[cfg(test)]
mod sample_tests {
    use super::*;

    #[test]
    fn label_tree_matches_paper_sample_for_m4() {
        let sample = paper_sample();
        let want = sample_label_tree(&sample);
        let got = mask_numbers(&skeleton(10000, 4).render());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "line {} differs", i + 1);
        }
        assert_eq!(got.len(), want.len());
    }
}
