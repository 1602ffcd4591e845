//! The computed cost model and `--mode paper` end to end: every JSON timer row carries
//! its operation counts, a calibration file adds lower bounds, paper mode uses upstream's
//! operation classes (no multi-exponentiation) and both modes reject every tamper.

use std::collections::BTreeMap;
use std::path::PathBuf;
mod common;

use common::{assert_report, every_tamper, run, seed, statuses};
use serde_json::Value;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dbsm-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs n = 4, m = 2 in `mode` and returns the JSON document.
fn run_json(mode: &str, tag: &str, extra: &[&str]) -> Value {
    let json = tmp(&format!("{mode}-{tag}.json"));
    let s = seed(5);
    let mut args = vec!["4", "2", "--seed", &s, "--mode", mode, "--out"];
    args.push(json.to_str().unwrap());
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{mode}: stderr:\n{stderr}");
    assert!(statuses(&stdout).iter().all(|(_, ok)| *ok));
    assert_report(&json)
}

/// Op counts of the `party total` row of a section.
fn total_ops(doc: &Value, section: &str, party: &str) -> BTreeMap<String, u64> {
    let row = doc["body"]["timers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["path"] == serde_json::json!(["main", section])
                && r["label"] == format!("{party} total")
        })
        .unwrap_or_else(|| panic!("no {party} total row for {section}"));
    serde_json::from_value(row["ops"].clone()).unwrap()
}

#[test]
fn paper_and_fast_modes_count_their_own_operations() {
    let fast = run_json("fast", "modes", &[]);
    let paper = run_json("paper", "modes", &[]);
    assert_eq!(paper["parameters"]["mode"], "paper");
    for doc in [&fast, &paper] {
        for section in ["mixing", "forward set membership", "reverse set membership"] {
            let ops = total_ops(doc, section, "mixer 0");
            assert!(!ops.is_empty(), "{section}: no operations counted");
        }
        // One threshold decryption share per entry (4099-bit exponent) in mixing, at least.
        assert!(total_ops(doc, "mixing", "mixer 1")["XN2(4099)"] >= 4);
        // One pairing per entry in the DB-SM verifier.
        assert!(total_ops(doc, "forward set membership", "verifier")["P"] >= 4);
        assert!(doc["parameters"]
            .get("calibration")
            .is_some_and(Value::is_null));
    }
    // Fast mode multi-exponentiates; paper mode computes every power separately, as upstream.
    let f = total_ops(&fast, "mixing", "mixer 0");
    let p = total_ops(&paper, "mixing", "mixer 0");
    assert!(f
        .keys()
        .any(|k| k.starts_with("MSM_") || k.starts_with("MXN2")));
    assert!(
        !p.keys()
            .any(|k| k.starts_with("MSM_") || k.starts_with("MXN2")),
        "paper mode used a multi-exponentiation: {p:?}"
    );
}

#[test]
fn calibration_adds_lower_bounds_and_bad_files_exit_2() {
    let cal = tmp("calibration.json");
    let rows: Vec<Value> = [
        ("E1f", 1e4),
        ("E1f80", 3e3),
        ("E1f180", 6e3),
        ("E1v", 5e4),
        ("E1v80", 1.5e4),
        ("E1v180", 3e4),
        ("E2f", 3e4),
        ("E2v", 1.5e5),
        ("ETf", 4e4),
        ("ETv", 3e5),
        ("ETv80", 9e4),
        ("ETv180", 2e5),
        ("P", 1e6),
        ("MP3", 2e6),
        ("MSM1024_G1", 1e7),
        ("MSM1024_G1_80", 4e6),
        ("Enc_pp", 4e5),
        ("XN2(80)", 4e5),
        ("XN2(180)", 8e5),
        ("XN2(2170)", 9e6),
        ("XN2(4099)", 1.8e7),
        ("XN(80)", 1e5),
        ("XN(180)", 2e5),
        ("CRT_dec", 1e6),
    ]
    .iter()
    .map(|(op, ns)| serde_json::json!({"op": op, "curve": "bn254", "ns": ns}))
    .collect();
    std::fs::write(&cal, serde_json::to_vec(&rows).unwrap()).unwrap();
    let schema = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/calibration.schema.json");
    measure::testing::validate(&schema, &cal).unwrap();
    let doc = run_json(
        "fast",
        "calibrated",
        &["--calibration", cal.to_str().unwrap()],
    );
    assert_eq!(doc["parameters"]["calibration"], cal.to_str().unwrap());
    let mix = doc["body"]["timers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["path"] == serde_json::json!(["main", "mixing"]) && r["label"] == "mixer 0 total"
        })
        .unwrap();
    // At least the 4 decryption shares of 18 ms each.
    let lb = mix["lower_bound_s"].as_f64().unwrap();
    assert!(lb >= 4.0 * 0.018);
    // The speed probe's drift rescales the bound family by family: mixing is mostly GMP work,
    // so the rescaled bound is the raw one times something near the XN2(4099) drift.
    let drift = doc["body"]["speed_probe"]["start"]["XN2(4099)"]
        .as_f64()
        .unwrap()
        / 0.018;
    let scaled = mix["lower_bound_drift_s"].as_f64().unwrap();
    assert!(scaled > 0.0 && (scaled / lb) > drift / 4.0 && (scaled / lb) < drift * 4.0);
    // CPU time of the step: positive, and one thread cannot use more than its wall time (a
    // little clock slack aside).
    let (wall, cpu) = (
        mix["seconds"].as_f64().unwrap(),
        mix["cpu_seconds"].as_f64().unwrap(),
    );
    assert!(
        cpu > 0.0 && cpu <= wall * 1.05 + 0.01,
        "cpu {cpu} s, wall {wall} s"
    );

    let missing = tmp("missing.json");
    let (code, _, stderr) = run(&["2", "2", "--calibration", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("calibration"), "{stderr}");
}

#[test]
fn paper_mode_rejects_every_tamper() {
    let s = seed(3);
    every_tamper(&["3", "2", "--seed", &s, "--mode", "paper"], |r| {
        (r.code == 0 || r.get(r.status) != Some(false)).then(String::new)
    });
}
