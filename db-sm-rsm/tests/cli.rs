//! End-to-end tests of the `db-sm-rsm` command: honest runs print every status True and exit 0;
//! each `--tamper` turns its status False and makes the exit code non-zero; bad arguments exit 2.

mod common;

use common::{assert_report, every_tamper, run, seed, statuses};
use db_sm_rsm::protocol::tamper::Tamper;

const ALL_STATUSES: [&str; 19] = [
    "status_permcomm",
    "status_encs",
    "status_shuffle",
    "status_decshares",
    "status_share_decryption",
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
    assert_eq!(names, ALL_STATUSES, "every status, in order");
    for (name, ok) in &st {
        assert!(ok, "{name} is False:\n{stdout}");
    }
}

#[test]
fn honest_run_bn254_10_2() {
    let dir = std::env::temp_dir().join(format!("dbsm-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("r.json");
    let s = seed(1);
    let (code, stdout, stderr) = run(&["10", "2", "--seed", &s, "--out", json.to_str().unwrap()]);
    assert_eq!(code, 0, "stderr:\n{stderr}");
    assert_all_true(&stdout);
    let doc = assert_report(&json);
    assert_eq!(doc["tool"], "db-sm-rsm");
    assert_eq!(doc["passed"], true);
    assert_eq!(doc["seed"], s);
    assert_eq!(doc["parameters"]["n"], 10);
    assert_eq!(doc["parameters"]["transport"], "local");
    let body = &doc["body"];
    assert_eq!(body["statuses"]["status_pkcomms"], true);
    assert!(body["timers"].as_array().unwrap().len() > 50);
    assert!(doc["machine"]["logical_cpus"].as_u64().unwrap() >= 1);
    assert_eq!(body["sizes"].as_object().unwrap().len(), 5);
    assert!(body["failure"].is_null());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn honest_run_bls12_381() {
    // The named form of N and M.
    let s = seed(2);
    let args = ["--n", "4", "--m", "3", "--curve", "bls12-381", "--seed", &s];
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "stderr:\n{stderr}");
    assert_all_true(&stdout);
}

#[test]
fn every_tamper_turns_its_status_false() {
    let s = seed(3);
    every_tamper(&["3", "2", "--seed", &s], |r| {
        let section = if ALL_STATUSES[..10].contains(&r.status) {
            "status_forward_set_membership"
        } else {
            "status_reverse_set_membership"
        };
        let overall = r.get(section);
        let want_overall = if [
            "status_permcomm",
            "status_encs",
            "status_shuffle",
            "status_decshares",
            "status_share_decryption",
        ]
        .contains(&r.status)
        {
            // Preprocessing and mixing statuses are outside both sections.
            overall
        } else {
            Some(false)
        };
        (r.code == 0 || r.get(r.status) != Some(false) || overall != want_overall)
            .then(|| format!(", {section} = {overall:?}"))
    });
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
        &["10", "2", "--seed", "42"][..],
        &["10"][..],
        &["--n", "10"][..],
        &["10", "2", "--n", "10"][..],
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains("error"), "{args:?}: {stderr}");
    }
    // An output that cannot be written is refused before any work.
    let dir = std::env::temp_dir();
    let (code, stdout, stderr) = run(&["2", "2", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("is a directory") && stdout.is_empty(),
        "{stderr}"
    );
}

/// Keys of a seeded run are derived from the public seed, which the report says, timed on their
/// own line and cached by seed; the fixed test keys are used only when asked for, which the
/// report says.
#[test]
fn keys_are_generated_cached_and_reported() {
    let dir = std::env::temp_dir().join(format!("dbsm-cli-keys-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = dir.join("cache");
    let json = dir.join("r.json");
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = ["2", "2", "--seed", &seed(9), "--out"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.push(json.to_string_lossy().into_owned());
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let cache_arg = cache.to_string_lossy().into_owned();
    for (extra, source, line) in [
        (
            vec!["--key-cache", &cache_arg],
            "seed",
            "keys: derived from the public seed (not secret)",
        ),
        (
            vec!["--key-cache", &cache_arg],
            "seed-cache",
            "keys: derived from the public seed (not secret), from the key cache",
        ),
        (vec!["--test-keys"], "test", "keys: fixed test keys"),
    ] {
        let a = args(&extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = run(&a);
        assert_eq!(code, 0, "{extra:?}: {stderr}");
        assert!(stdout.contains("     key generation time: "), "{stdout}");
        assert!(
            stdout.contains(&format!("     {line}")),
            "{extra:?}: {stdout}"
        );
        let doc = assert_report(&json);
        let keys = &doc["body"]["keys"];
        assert_eq!(keys["source"], source);
        assert_eq!(
            keys["secret"], false,
            "seeded or test keys are never secret"
        );
        assert_eq!(keys["threshold_modulus_bits"], 2050);
        assert_eq!(keys["mixer_modulus_bits"], serde_json::json!([2048, 2048]));
        assert_eq!(doc["parameters"]["test_keys"], source == "test");
    }
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 3);
    // A cache that is a file, and more mixers than test keys: refused before any work.
    let file = dir.join("plain");
    std::fs::write(&file, b"x").unwrap();
    for bad in [
        vec![
            "2",
            "2",
            "--seed",
            &seed(9),
            "--key-cache",
            file.to_str().unwrap(),
        ],
        vec!["2", "5", "--test-keys"],
    ] {
        let (code, _, stderr) = run(&bad);
        assert_eq!(code, 2, "{bad:?}: {stderr}");
        assert!(stderr.contains("error"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--security` is 128 unless asked otherwise, and the report says which.
#[test]
fn security_setting_is_reported() {
    let dir = std::env::temp_dir().join(format!("dbsm-cli-security-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("r.json");
    for (extra, level, chal, slack) in [
        (vec![], "128", 128, 80),
        (vec!["--security", "paper"], "paper", 80, 20),
    ] {
        let s = seed(4);
        let mut args = vec!["2", "2", "--test-keys", "--seed", &s, "--out"];
        args.push(json.to_str().unwrap());
        args.extend(extra);
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 0, "{stderr}");
        assert_all_true(&stdout);
        assert!(
            stdout.contains(&format!("\n     security: {level}\n")),
            "{stdout}"
        );
        let doc = assert_report(&json);
        assert_eq!(doc["parameters"]["security"], level);
        let sec = &doc["body"]["security"];
        assert_eq!(sec["challenge_bits"], chal);
        assert_eq!(sec["batch_bits"], chal);
        assert_eq!(sec["slack_bits"], slack);
    }
    let (code, _, stderr) = run(&["2", "2", "--security", "64"]);
    assert_eq!(code, 2, "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_lists_every_tamper() {
    let (code, stdout, _) = run(&["--help"]);
    assert_eq!(code, 0);
    // One line per tamper: its name, then the status it turns False.
    let table: Vec<Vec<&str>> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("Tamper steps"))
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .filter(|w: &Vec<&str>| w.len() == 2)
        .collect();
    let want: Vec<Vec<&str>> = Tamper::ALL
        .iter()
        .map(|(t, status)| vec![t.name(), *status])
        .collect();
    assert_eq!(table, want, "{stdout}");
}

/// Two runs with one seed draw the same inputs (keys, commitments, ciphertexts, outputs): the
/// same `inputs_sha256`; two runs without a seed draw fresh ones. The seeded pair derives its
/// keys from the seed (through the tests' key cache), the unseeded pair uses the test keys,
/// whose other inputs still come from the operating system.
#[test]
fn one_seed_gives_the_same_inputs_and_no_seed_fresh_ones() {
    let dir = std::env::temp_dir().join(format!("dbsm-cli-seed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let s = seed(5);
    let digest = |name: &str, extra: &[&str]| -> String {
        let out = dir.join(name);
        let mut args = vec!["2", "2", "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let (code, _, stderr) = run(&args);
        assert_eq!(code, 0, "{extra:?}: {stderr}");
        assert_report(&out)["inputs_sha256"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let a = digest("a.json", &["--seed", &s]);
    let b = digest("b.json", &["--seed", &s]);
    assert_eq!(a, b, "one seed, two different inputs");
    let c = digest("c.json", &["--test-keys"]);
    let d = digest("d.json", &["--test-keys"]);
    assert_ne!(c, d, "two unseeded runs drew the same inputs");
    // Another seed, other inputs.
    assert_ne!(a, digest("e.json", &["--seed", &seed(6), "--test-keys"]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--hold-at` (a test option): a fresh run holds at the start of its section, alive, until it
/// is killed (SIGKILL, once it said so: no timing involved); the same command then resumes from
/// the checkpoint, ignores the option, says so in its report, and passes.
#[test]
fn a_fresh_run_holds_at_its_section_until_killed_and_the_same_command_resumes() {
    use std::io::BufRead;
    let dir = std::env::temp_dir().join(format!("dbsm-cli-hold-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("r.json");
    let section = "forward set membership";
    let s = seed(4);
    let args = ["4", "2", "--seed", &s, "--out", json.to_str().unwrap()];
    let args = [&args[..], &["--hold-at", section]].concat();
    let mut child = common::command(&args)
        .env("SUITE_PROGRESS", "off")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Killed however this test ends: a held run left behind would sleep forever.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let stderr = child.stderr.take().unwrap();
    let mut child = Killed(child);
    let held = format!("db-sm-rsm: held at {section} until killed (--hold-at, a test option)");
    let mut said = Vec::new();
    for line in std::io::BufReader::new(stderr).lines() {
        let line = line.unwrap();
        if line == held {
            break;
        }
        said.push(line);
    }
    assert!(
        child.0.try_wait().unwrap().is_none(),
        "the run did not hold:\n{}",
        said.join("\n")
    );
    drop(child);
    assert!(
        dir.join("r.checkpoint").exists(),
        "the held run kept its checkpoint"
    );

    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("resuming from the checkpoint"), "{stderr}");
    assert!(
        stderr.contains(&format!("--hold-at {section} is ignored")),
        "{stderr}"
    );
    assert!(!stderr.contains("held at"), "{stderr}");
    assert_all_true(&stdout);
    assert!(
        stdout.contains(&format!(
            "hold-at: {section} (a test option): not held, an earlier attempt"
        )),
        "{stdout}"
    );
    let doc = assert_report(&json);
    assert_eq!(doc["passed"], true);
    assert_eq!(
        doc["body"]["hold_at"],
        serde_json::json!({"section": section, "outcome": "skipped_resumed",
                           "earlier_attempt_held": true})
    );
    assert!(doc["body"]["resumed"]["records_read_back"].as_u64() > Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--hold-at` takes only a section of the run: anything else is refused in one line before
/// any work (exit 2).
#[test]
fn hold_at_an_unknown_section_is_refused_in_one_line() {
    for bad in ["nowhere", "forward", "status_shuffle", ""] {
        let (code, stdout, stderr) = run(&["3", "2", "--hold-at", bad]);
        assert_eq!(code, 2, "{bad:?}: {stderr}");
        assert!(stdout.is_empty(), "{bad:?}: {stdout}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{bad:?}: {stderr}");
        assert!(
            lines[0].contains("--hold-at") && lines[0].contains("is not a section of the run"),
            "{bad:?}: {stderr}"
        );
    }
}
