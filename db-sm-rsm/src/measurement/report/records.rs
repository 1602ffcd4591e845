//! The records of a report's timers: what one process hands another (the figures of its
//! parties' leaves, [`Report::records`] and [`Report::fill`]), what a step's journal keeps
//! and a resumed run puts back ([`Report::records_since`], [`Report::restore_leaf`]), and the
//! board traffic counted in each timer ([`NetStats`]).

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{Item, Party, Report, Totals};

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
    /// Its figures are an earlier attempt's, read back from a journal.
    pub resumed: bool,
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
        self.resumed.put(out);
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
            resumed: bool::get(inp)?,
        })
    }
}

/// A timer's identity across processes: its path, its party and its name.
type TimerKey = (Vec<String>, Option<String>, String);

/// How many timers of each key a walk has passed: the n-th timer of a key in one process's tree
/// is the n-th of that key in another's.
#[derive(Default)]
struct Occurrences(BTreeMap<TimerKey, usize>);

impl Report {
    /// The timers made since the tree held `first` ([`Report::timer_count`]), as records a
    /// journal keeps.
    pub fn records_since(&self, first: usize) -> Vec<TimerRecord> {
        (first.max(1)..self.nodes.len())
            .map(|idx| {
                let node = &self.nodes[idx];
                let party = node.party.map(|p| p.to_string());
                self.record_of(idx, self.path_of(idx), party, node.name.clone(), 0)
            })
            .collect()
    }

    /// Timer `idx` as a record, under the given key.
    fn record_of(
        &self,
        idx: usize,
        path: Vec<String>,
        party: Option<String>,
        name: String,
        occurrence: usize,
    ) -> TimerRecord {
        let node = &self.nodes[idx];
        TimerRecord {
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
            resumed: node.resumed,
        }
    }

    /// Counts a first attempt's timer `rec` in every timer open now, as if it had run inside
    /// them in this attempt: its wall and CPU seconds and its operations.
    pub(super) fn credit_open(&mut self, seconds: f64, cpu_seconds: f64, ops: &[(String, u64)]) {
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
            Some(p) => Some(
                p.parse::<Party>()
                    .map_err(|e| crate::Error::Storage(e.to_string()))?,
            ),
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
                (!node.remote).then(|| self.record_of(idx, path, party, name, occurrence))
            })
            .collect()
    }

    /// Every timer in tree order (a timer before its children), the order in which
    /// [`Report::records`] and [`Report::fill`] count occurrences.
    pub(super) fn walk(&self) -> Vec<usize> {
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

    /// Fills this tree's remote leaves with the figures another process, `claimant`, recorded
    /// for them (matched by path, party, name and occurrence), and adds that process's CPU in
    /// each section to the section's; every figure so taken is marked as `claimant`'s claim.
    /// Returns the number of leaves filled.
    pub fn fill(&mut self, records: &[TimerRecord], claimant: &str) -> usize {
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
                node.resumed = r.resumed;
                node.remote = false;
                node.claimed_by = vec![claimant.to_string()];
                filled += 1;
            } else if is_section && r.section {
                node.cpu_seconds += r.cpu_seconds;
                if !node.claimed_by.iter().any(|c| c == claimant) {
                    node.claimed_by.push(claimant.to_string());
                }
            }
        }
        filled
    }

    pub(super) fn order_of(&self, idx: usize, out: &mut Vec<usize>) {
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
}
