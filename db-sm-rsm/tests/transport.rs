//! `--transport tls` end to end: every mix-server, the verifier and the bulletin board in
//! processes of their own. For one seed the statuses, the inputs and the report's label tree
//! equal the one-process run's; every tamper turns the same status False; a killed mixer, a
//! killed board or a cut link stops the run with a FAILED report naming the party and the
//! step, nothing on stdout, no temporary file and no process left behind.

mod common;

use common::{assert_report, par_map, run, seed, statuses};
use db_sm_rsm::protocol::tamper::Tamper;

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("dbsm-tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The report with every number masked: the label tree.
fn masked(text: &str) -> Vec<String> {
    db_sm_rsm::measurement::format::mask_numbers(text)
}

/// Processes still running whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(marker) && cmd.contains("db-sm-rsm") {
            found.push(cmd);
        }
    }
    found
}

#[test]
fn tls_statuses_inputs_and_report_equal_the_local_run_for_one_seed() {
    let dir = scratch("equal");
    let s = seed(21);
    let mut docs = Vec::new();
    let mut texts = Vec::new();
    for transport in ["local", "tls"] {
        let out = dir.join(format!("{transport}.json"));
        let args = [
            "3",
            "2",
            "--test-keys",
            "--seed",
            &s,
            "--transport",
            transport,
            "--out",
            out.to_str().unwrap(),
        ];
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 0, "{transport}: {stderr}");
        docs.push(assert_report(&out));
        texts.push(stdout);
    }
    let (local, tls) = (&docs[0], &docs[1]);
    assert_eq!(tls["parameters"]["transport"], "tls");
    assert_eq!(tls["body"]["transport"], "tls");
    assert_eq!(local["body"]["statuses"], tls["body"]["statuses"]);
    assert_eq!(local["inputs_sha256"], tls["inputs_sha256"]);
    assert_eq!(local["body"]["sizes"], tls["body"]["sizes"]);
    assert_eq!(
        masked(&texts[0]),
        masked(&texts[1]),
        "the label trees differ"
    );
    // Every party's steps were filled with its own process's figures, and each process's
    // traffic is reported per section.
    let rows = tls["body"]["network"]["parties"].as_array().unwrap();
    for party in ["driver", "mixer 0", "mixer 1", "verifier"] {
        let sent: u64 = rows
            .iter()
            .filter(|r| r["party"] == party)
            .map(|r| r["net"]["bytes_sent"].as_u64().unwrap())
            .sum();
        assert!(sent > 0, "{party} posted nothing");
    }
    let mixing = rows
        .iter()
        .find(|r| r["party"] == "mixer 1" && r["label"] == "re-encryption and permutation")
        .unwrap();
    // Mixer 1 waits for mixer 0's shuffle: at least one round in the chain.
    assert!(mixing["net"]["rounds"].as_u64().unwrap() >= 1, "{mixing}");
    assert!(local["body"]["network"].is_null());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_tamper_turns_its_status_false_over_tls() {
    let failures: Vec<String> = par_map(&Tamper::ALL, |&(t, status)| {
        let s = seed(22);
        let args = [
            "3",
            "2",
            "--test-keys",
            "--seed",
            &s,
            "--transport",
            "tls",
            "--tamper",
            t.name(),
        ];
        let (code, stdout, stderr) = run(&args);
        let got = statuses(&stdout)
            .into_iter()
            .find(|(n, _)| n == status)
            .map(|(_, ok)| ok);
        (code != 1 || got != Some(false)).then(|| {
            format!(
                "--tamper {}: exit {code}, {status} = {got:?}\n{stderr}",
                t.name()
            )
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_killed_mixer_a_killed_board_or_a_cut_link_fails_the_run_loudly() {
    let dir = scratch("faults");
    let cases = [
        ("kill:mixer-1@mixing", "mixer 1", "main > mixing"),
        (
            "kill:board@get_blsigs",
            "bulletin board",
            "main > forward set membership > get_blsigs",
        ),
        (
            "cut:mixer-0@decryption of output messages",
            "mixer 0",
            "main > mixing > decryption of output messages",
        ),
        (
            "cut:verifier@get_verfsigs",
            "verifier",
            "main > forward set membership > get_verfsigs",
        ),
    ];
    for (i, (fault, party, step)) in cases.iter().enumerate() {
        // A seed of the case's own marks its processes.
        let s = seed(40 + i as u8);
        let out = dir.join(format!("fault-{i}.json"));
        let args = [
            "3",
            "2",
            "--test-keys",
            "--seed",
            &s,
            "--transport",
            "tls",
            "--fault",
            fault,
            "--out",
            out.to_str().unwrap(),
        ];
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 1, "{fault}: {stderr}");
        assert!(stdout.is_empty(), "{fault}: a report on stdout:\n{stdout}");
        let doc = assert_report(&out);
        assert_eq!(doc["passed"], false, "{fault}");
        let failure = &doc["body"]["failure"];
        assert_eq!(failure["party"], *party, "{fault}: {failure}");
        let got = failure["step"].as_str().unwrap();
        assert!(got.starts_with(step), "{fault}: stopped at {got}");
        assert!(stderr.contains("FAILED"), "{fault}: {stderr}");
        // Nothing left behind: no process of the run, no temporary file.
        std::thread::sleep(std::time::Duration::from_millis(300));
        let left = processes_with(&s);
        assert!(left.is_empty(), "{fault}: processes left: {left:?}");
    }
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("fault-") && n.ends_with(".json")),
        "{names:?}"
    );
    // A fault needs the tls transport.
    let (code, _, stderr) = run(&["3", "2", "--fault", "kill:mixer-1@mixing"]);
    assert_eq!(code, 2, "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--network wan`: the parties in network namespaces behind 100 ms links (where the machine
/// allows it: root, ip and tc). The run verifies with the local run's inputs, its parties wait
/// for the network, and the namespaces go with the run. Where it does not allow it, the run is
/// refused before any work with a message saying what is missing.
#[test]
fn an_emulated_network_gives_the_same_run_and_leaves_nothing_behind() {
    let dir = scratch("network");
    let out = dir.join("wan.json");
    let s = seed(23);
    let args = [
        "3",
        "2",
        "--test-keys",
        "--seed",
        &s,
        "--transport",
        "tls",
        "--network",
        "wan",
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, _, stderr) = run(&args);
    if let Err(why) = netshape::Lab::check() {
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("network emulation needs root"),
            "{why}: {stderr}"
        );
        return;
    }
    assert_eq!(code, 0, "{stderr}");
    let wan = assert_report(&out);
    let local_out = dir.join("local.json");
    let (code, _, stderr) = run(&[
        "3",
        "2",
        "--test-keys",
        "--seed",
        &s,
        "--out",
        local_out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let local = assert_report(&local_out);
    assert_eq!(wan["inputs_sha256"], local["inputs_sha256"]);
    assert_eq!(wan["body"]["statuses"], local["body"]["statuses"]);
    let net = &wan["body"]["network"];
    assert_eq!(net["profile"]["name"], "wan");
    // Mixer 1 waits for mixer 0's shuffle in mixing: at least one round trip's worth.
    let waited: f64 = net["parties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["party"] == "mixer 1")
        .map(|r| r["net"]["waited_s"].as_f64().unwrap())
        .sum();
    assert!(waited >= 0.1, "mixer 1 waited {waited} s in all");
    let namespaces = std::process::Command::new("ip")
        .args(["netns", "list"])
        .output()
        .unwrap();
    let left = String::from_utf8_lossy(&namespaces.stdout).into_owned();
    assert!(!left.contains("dbsm"), "namespaces left: {left}");
    // --network needs --transport tls, and a known profile.
    let (code, _, _) = run(&["3", "2", "--network", "wan"]);
    assert_eq!(code, 2);
    let (code, _, stderr) = run(&["3", "2", "--transport", "tls", "--network", "moon"]);
    assert_eq!(code, 2, "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
