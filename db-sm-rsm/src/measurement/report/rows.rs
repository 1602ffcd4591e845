//! A report as the JSON of docs/report.schema.json: every timer and per-party total as a row
//! with its wall and CPU seconds, operation counts and, with a calibration, their lower bound;
//! the statuses and the sizes.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{Item, Report};

impl Report {
    /// The JSON row of a timer: its identity, wall and CPU time, then its operation counts and,
    /// with a calibration installed, the lower bound they imply (`lower_bound_s`), the same with
    /// each family's unit costs scaled by the speed probe's drift (`lower_bound_drift_s`), and
    /// any class without a unit cost.
    pub(super) fn row(
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

    /// Every timer (sections with party null, leaves, and per-party totals labelled
    /// `"<party> total"`) as the JSON rows of docs/report.schema.json, in report order; a row
    /// whose figures hold another process's claims names it (`claimed_by`).
    pub fn timer_rows(&self) -> Vec<Value> {
        let mut rows = Vec::new();
        // The probe's drift, once for every row.
        let drift =
            crate::measurement::cost::calibration().and_then(crate::measurement::probe::drift);
        self.rows_of(0, drift.as_ref(), &mut rows);
        rows
    }

    pub(super) fn rows_of(
        &self,
        idx: usize,
        drift: Option<&BTreeMap<String, f64>>,
        rows: &mut Vec<Value>,
    ) {
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
            let claimed = self.party_sum(idx, p, |n| f64::from(u8::from(!n.claimed_by.is_empty())));
            let mut total = Self::row(
                own_path.clone(),
                Some(p.to_string()),
                format!("{p} total"),
                (
                    self.party_total(idx, p),
                    self.party_sum(idx, p, |n| n.cpu_seconds),
                ),
                &self.party_ops(idx, p),
                drift,
            );
            if claimed > 0.0 {
                total["claimed_by"] = json!([p.to_string()]);
            }
            rows.push(total);
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
        if !node.claimed_by.is_empty() {
            row["claimed_by"] = json!(node.claimed_by);
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
}
