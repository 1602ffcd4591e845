//! `--transport tls` end to end: every mix-server, the verifier and the bulletin board in
//! processes of their own. For one seed the statuses, the inputs and the report's label tree
//! equal the one-process run's; every tamper turns the same status False; a killed mixer, a
//! killed board or a cut link stops the run with a FAILED report naming the party and the
//! step, nothing on stdout, no temporary file and no process left behind.

mod common;

use common::{assert_report, every_tamper, run, seed};

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("dbsm-tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The arguments of a small seeded run (n = 3, m = 2, test keys) over `transport`, then `extra`.
fn small<'a>(seed: &'a str, transport: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "3",
        "2",
        "--test-keys",
        "--seed",
        seed,
        "--transport",
        transport,
    ];
    args.extend(extra);
    args
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
        let (code, stdout, stderr) = run(&small(&s, transport, &["--out", out.to_str().unwrap()]));
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
    let s = seed(22);
    every_tamper(&small(&s, "tls", &[]), |r| {
        (r.code != 1 || r.get(r.status) != Some(false)).then(String::new)
    });
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
        let extra = ["--fault", fault, "--out", out.to_str().unwrap()];
        let (code, stdout, stderr) = run(&small(&s, "tls", &extra));
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

/// Whether this process may make netem's emulated networks (root, ip, tc, iptables); where it
/// may not, the caller says so and skips its emulated part.
fn can_emulate(test: &str) -> bool {
    match netem::check(&netem::Profile::wan(), &netem::Tools::discover()) {
        Ok(()) => true,
        Err(refusal) => {
            println!("{test}: emulated profiles skipped: {refusal}");
            false
        }
    }
}

/// The network namespaces processes of this machine are in, by inode, with their holders'
/// command lines.
fn namespaces() -> std::collections::BTreeMap<u64, Vec<String>> {
    use std::os::unix::fs::MetadataExt;
    let mut found = std::collections::BTreeMap::<u64, Vec<String>>::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(meta) = std::fs::metadata(entry.path().join("ns/net")) else {
            continue;
        };
        let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        found.entry(meta.ino()).or_default().push(cmd);
    }
    found
}

/// `--network wan`: every process in a network namespace of its own behind 100 ms links (where
/// the machine allows it: root, ip, tc, iptables). The run verifies with the local run's inputs
/// and statuses, no section ends sooner than its chain of posts allows (hops x RTT), the
/// delay line's CPU is reported apart, and the namespaces go with the run. On the host's
/// loopback (`none`, the default) the same block is there with a floor of zero.
#[test]
fn an_emulated_network_gives_the_same_run_and_leaves_nothing_behind() {
    let dir = scratch("network");
    let s = seed(23);
    let run_on = |network: &str| {
        let out = dir.join(format!("{network}.json"));
        let mut args = vec!["3", "2", "--test-keys", "--seed", &s, "--out"];
        args.push(out.to_str().unwrap());
        if network != "local" {
            args.extend(["--transport", "tls", "--network", network]);
        }
        let (code, _, stderr) = run(&args);
        assert_eq!(code, 0, "{network}: {stderr}");
        assert_report(&out)
    };
    let local = run_on("local");
    assert!(local["parameters"]["network"].is_null());
    let mut profiles = vec!["none"];
    if can_emulate("an_emulated_network_gives_the_same_run_and_leaves_nothing_behind") {
        profiles.push("wan");
    }
    for profile in profiles {
        let before = namespaces();
        let doc = run_on(profile);
        assert_eq!(doc["inputs_sha256"], local["inputs_sha256"], "{profile}");
        assert_eq!(
            doc["body"]["statuses"], local["body"]["statuses"],
            "{profile}"
        );
        let spec = profile.parse::<netem::Profile>().unwrap().spec();
        assert_eq!(doc["parameters"]["network"], spec.as_str());
        let net = &doc["body"]["network"];
        assert_eq!(net["profile"], profile);
        assert_eq!(net["spec"], spec.as_str());
        assert_eq!(net["emulated"], profile != "none");
        assert_eq!(net["delay_line"].is_null(), profile == "none", "{net}");
        let rtt = net["rtt_s"].as_f64().unwrap_or(0.0);
        let sections = net["sections"].as_array().unwrap();
        for sec in sections {
            let (wall, floor) = (
                sec["wall_s"].as_f64().unwrap(),
                sec["network_floor_s"].as_f64().unwrap(),
            );
            assert!(sec["hops"].as_u64().unwrap() >= 1, "{sec}");
            assert!(wall >= floor, "{profile}: {sec}");
            assert_eq!(floor, sec["hops"].as_u64().unwrap() as f64 * rtt);
        }
        // The chain of shuffles: driver, mixer 0, mixer 1, each reading the one before.
        let mixing = sections.iter().find(|x| x["section"] == "mixing").unwrap();
        assert!(mixing["hops"].as_u64().unwrap() >= 3, "{mixing}");
        let summary = net["summary"].as_array().unwrap();
        assert_eq!(summary.len(), 4, "driver, two mixers, the verifier");
        if profile == "wan" {
            // Mixer 1 waits for mixer 0's shuffle in mixing: at least one round trip's worth.
            let waited: f64 = net["parties"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["party"] == "mixer 1")
                .map(|r| r["net"]["waited_s"].as_f64().unwrap())
                .sum();
            assert!(waited >= 0.1, "mixer 1 waited {waited} s in all");
            assert!(net["delay_line"]["packets"].as_u64().unwrap() > 0, "{net}");
        }
        // Nothing behind: no process of the run, no namespace that came with it.
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(processes_with(&s).is_empty(), "{profile}: processes left");
        let left: Vec<_> = namespaces()
            .into_iter()
            .filter(|(ino, holders)| {
                !before.contains_key(ino) && holders.iter().any(|c| c.contains("db-sm-rsm"))
            })
            .collect();
        assert!(left.is_empty(), "{profile}: namespaces left: {left:?}");
    }
    // --network needs --transport tls, and a known profile.
    let (code, _, _) = run(&["3", "2", "--network", "wan"]);
    assert_eq!(code, 2);
    let (code, _, stderr) = run(&["3", "2", "--transport", "tls", "--network", "moon"]);
    assert_eq!(code, 2, "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without the capabilities an emulated network needs, `--network wan` is refused in one line
/// naming them, before any work: exit 2 and no report.
#[test]
fn missing_rights_are_refused_in_one_line_before_any_work() {
    let Some(setpriv) = measure::testing::setpriv() else {
        println!("missing_rights_are_refused_in_one_line_before_any_work: skipped, no setpriv");
        return;
    };
    let dir = scratch("rights");
    let out = dir.join("wan.json");
    let got = std::process::Command::new(setpriv)
        .arg("--bounding-set=-net_admin,-sys_admin")
        .arg(env!("CARGO_BIN_EXE_db-sm-rsm"))
        .args([
            "3",
            "2",
            "--test-keys",
            "--transport",
            "tls",
            "--network",
            "wan",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&got.stderr);
    assert_eq!(got.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("CAP_NET_ADMIN") && err.contains("`wan`"),
        "{err}"
    );
    assert!(got.stdout.is_empty());
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
