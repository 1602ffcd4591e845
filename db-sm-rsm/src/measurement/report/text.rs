//! The paper-format text of a report ([`Report::render`]): headers, `time:` lines and the
//! per-party totals of sections, in upstream's grammar (docs/protocol.md §9).

use std::collections::BTreeMap;

use super::{Item, Node, Party, Report, Totals};
use crate::measurement::format::{fmt_seconds, push_line};
use crate::primitives::counters;

impl Report {
    pub(super) fn parties(&self, totals: Totals) -> Vec<Party> {
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
    pub(super) fn party_total(&self, idx: usize, party: Party) -> f64 {
        self.party_sum(idx, party, |n| n.seconds)
    }

    /// [`Self::party_total`] of any per-node figure (wall or CPU seconds).
    pub(super) fn party_sum(&self, idx: usize, party: Party, of: fn(&Node) -> f64) -> f64 {
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
    pub(super) fn party_ops(&self, idx: usize, party: Party) -> BTreeMap<String, u64> {
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

    pub(super) fn label(&self, idx: usize) -> String {
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

    pub(super) fn render_node(&self, idx: usize, level: usize, out: &mut String) {
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
