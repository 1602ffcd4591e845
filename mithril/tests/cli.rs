//! mithril-bench end to end: a small run (native rows, circuit sizes, no proof) writes an
//! enveloped report whose envelope and body conform to their schemas (checked with Python's
//! jsonschema) and covers every native operation with passing checks; the reports in data/
//! conform too; one --seed gives one input digest; bad input is refused with exit status 2
//! before any work.

use measure::testing::{args, Bench};
use mithril::measurement::native::OPERATIONS;

const BENCH: Bench = measure::bench!("mithril-bench", "mithril");

#[test]
fn a_small_run_writes_a_report_that_conforms_to_the_schema() {
    let run = BENCH.run_in_scratch(
        "run",
        &args(
            "--native-n 2,64 --threads 1,2 --batch 2 --reps 2 --rep-seconds 0.001 --circuit-n none \
             --size-n 1,2 --ablation-n none --extrapolate 8",
        ),
    );
    let stderr = &run.stderr;
    assert!(stderr.contains("[progress] mithril-msp native"), "{stderr}");
    assert!(
        stderr.contains("[progress] mithril-msp circuit"),
        "{stderr}"
    );
    let report = BENCH.enveloped(&run.out, true);
    let r = report["body"].clone();
    assert!(r.get("targets").is_none(), "verdicts live in the analysis");
    let rows = r["native"]["rows"].as_array().unwrap();
    for op in OPERATIONS {
        assert!(
            rows.iter()
                .any(|x| x["operation"] == op && x["verified"] == true),
            "{op}"
        );
    }
    // One-thread steps at the first thread count only; parallel ones at both.
    assert!(rows
        .iter()
        .any(|x| x["operation"] == "b_total" && x["threads"] == 2));
    assert!(!rows
        .iter()
        .any(|x| x["operation"] == "ver" && x["threads"] == 2));
    assert_eq!(r["native"]["checks"]["cancellation"]["passed"], true);
    // mithril-stm at the native signer counts: like for like with ours, and its full STM
    // verification, both verified.
    let stm = r["stm"]["rows"].as_array().unwrap();
    for op in ["verify_aggregate", "stm_verify"] {
        assert!(
            stm.iter()
                .any(|x| x["operation"] == op && x["n"] == 64 && x["verified"] == true),
            "{op}"
        );
    }
    assert!(stm
        .iter()
        .filter(|x| x["operation"] == "verify_aggregate")
        .all(|x| x["ours_over_stm"].as_f64().unwrap() > 0.0));
    let sizes = r["circuit"]["sizes"].as_array().unwrap();
    assert_eq!(sizes.len(), 2);
    assert!(sizes[1]["advice_cells"].as_u64() > sizes[0]["advice_cells"].as_u64());
    let ex = &r["circuit"]["fit"]["extrapolations"][0];
    assert_eq!(
        (ex["n"].as_u64(), ex["extrapolated"].as_bool()),
        (Some(8), Some(true))
    );
    let left: Vec<_> = std::fs::read_dir(run.out.parent().unwrap())
        .unwrap()
        .collect();
    assert_eq!(left.len(), 1, "no temporary file left");
}

#[test]
fn the_reports_in_data_conform_to_the_schema() {
    for name in ["sample-report.json", "n8-unloaded-report.json"] {
        let path = BENCH.path(&format!("data/{name}"));
        BENCH
            .validate_enveloped(&path)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn one_seed_gives_the_same_inputs_and_no_seed_fresh_ones() {
    // A small native run: n = 2, one batch of one aggregate.
    let small =
        args("--parts native --native-n 2 --threads 1 --batch 1 --reps 1 --rep-seconds 0.001");
    BENCH.seeds_reproduce(&small, |r, seed| {
        let keys = r["body"]["keys"].as_str().unwrap();
        let derived = keys.contains("derived from the public seed (not secret)");
        assert_eq!(derived, seed.is_some(), "{keys}");
    });
}

#[test]
fn bad_input_is_refused_with_status_2_before_any_work() {
    let cases = [
        ("--native-n 0", "--native-n"),
        ("--native-n ten", "--native-n"),
        ("--threads 1,x", "--threads"),
        ("--k 9", "k = 9"),
        ("--k big", "--k"),
        ("--pairing fast", "--pairing"),
        ("--parts proofs", "--parts"),
        ("--seed 00", "64 hexadecimal digits"),
        ("--reps 0", "--reps"),
        ("--circuit-n 5000", "--circuit-n"),
    ];
    BENCH.refuses_bad_input(&cases, "--parts native --native-n 2");
}
