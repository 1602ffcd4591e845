//! End-to-end tests of the `db-sm-rsm` command: honest runs print every status True and exit 0;
//! each `--tamper` turns its status False and makes the exit code non-zero; bad arguments exit 2.

use std::process::Command;

use db_sm_rsm::report::parse_status_line;
use db_sm_rsm::tamper::Tamper;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_db-sm-rsm"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn statuses(report: &str) -> Vec<(String, bool)> {
    report.lines().filter_map(parse_status_line).collect()
}

const ALL_STATUSES: [&str; 18] = [
    "status_permcomm",
    "status_encs",
    "status_shuffle",
    "status_decshares",
    "status_verfsigs",
    "status_shuffle_blsigs",
    "status_pk_bl",
    "status_decshares_blsigs",
    "status_dpk_bbsig",
    "status_forward_set_membership",
    "status_pkcomms",
    "status_verfsigs_rev",
    "status_shuffle_blsigs_rev",
    "status_pk_blrev",
    "status_decshares_blsigs_rev",
    "status_pk_z1",
    "status_dpk_bbsplussig",
    "status_reverse_set_membership",
];

fn assert_all_true(stdout: &str) {
    let st = statuses(stdout);
    let names: Vec<&str> = st.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ALL_STATUSES, "every status of spec §4.5, in order");
    for (name, ok) in &st {
        assert!(ok, "{name} is False:\n{stdout}");
    }
}

#[test]
fn honest_run_bn254_10_2() {
    let dir = std::env::temp_dir().join(format!("dbsm-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("r.json");
    let (code, stdout, stderr) = run(&["10", "2", "--seed", "1", "--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "stderr:\n{stderr}");
    assert_all_true(&stdout);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["experiment"], "db-sm-rsm");
    assert_eq!(doc["params"]["n"], 10);
    assert_eq!(doc["statuses"]["status_pkcomms"], true);
    assert!(doc["timers"].as_array().unwrap().len() > 50);
    assert!(doc["machine"]["logical_cpus"].as_u64().unwrap() >= 1);
    assert_eq!(doc["sizes"].as_object().unwrap().len(), 5);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn honest_run_bls12_381() {
    let (code, stdout, stderr) = run(&["4", "3", "--curve", "bls12-381", "--seed", "2"]);
    assert_eq!(code, 0, "stderr:\n{stderr}");
    assert_all_true(&stdout);
}

#[test]
fn every_tamper_turns_its_status_false() {
    let mut failures = Vec::new();
    for (t, status) in Tamper::ALL {
        let (code, stdout, stderr) = run(&["3", "2", "--seed", "3", "--tamper", t.name()]);
        let st = statuses(&stdout);
        let got = st.iter().find(|(n, _)| n == status).map(|(_, ok)| *ok);
        let section = if ALL_STATUSES[..10].contains(&status) {
            "status_forward_set_membership"
        } else {
            "status_reverse_set_membership"
        };
        let overall = st.iter().find(|(n, _)| n == section).map(|(_, ok)| *ok);
        let want_overall = if [
            "status_permcomm",
            "status_encs",
            "status_shuffle",
            "status_decshares",
        ]
        .contains(&status)
        {
            // Preprocessing and mixing statuses are outside both sections.
            overall
        } else {
            Some(false)
        };
        if code == 0 || got != Some(false) || overall != want_overall {
            failures.push(format!(
                "--tamper {}: exit {code}, {status} = {got:?}, {section} = {overall:?}\n{stderr}",
                t.name()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn out_of_range_arguments_exit_2() {
    for args in [
        &["0", "2"][..],
        &["10", "0"][..],
        &["10", "1"][..],
        &["10", "2", "--curve", "p256"][..],
        &["10", "2", "--threads", "0"][..],
        &["ten", "2"][..],
        &["10", "2", "--tamper", "nothing"][..],
        &["1", "2", "--tamper", "replay"][..],
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains("error"), "{args:?}: {stderr}");
    }
}

#[test]
fn help_lists_every_tamper() {
    let (code, stdout, _) = run(&["--help"]);
    assert_eq!(code, 0);
    for (t, status) in Tamper::ALL {
        assert!(stdout.contains(t.name()) && stdout.contains(status));
    }
}
