//! `--transport tls` end to end: every mix-server, the verifier and the bulletin board in
//! processes of their own. For one seed the statuses, the inputs and the report's label tree
//! equal the one-process run's; every tamper turns the same status False; a killed mixer, a
//! killed board or a cut link, a party that speaks for another, shuts the board down, exits with
//! a failure at the end, is stopped (SIGSTOP), falls silent or (as root) is partitioned off the
//! network stops the run within the deadline with a FAILED report naming the party and the
//! step, nothing on stdout, no temporary file and no process or namespace left behind.

mod common;

use std::time::{Duration, Instant};

use common::{assert_report, every_tamper, par_map, run, seed};

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
    // The bytes as sent: the tls run's posts, and the same posts counted in one process.
    assert_eq!(local["body"]["posted"], tls["body"]["posted"]);
    assert_eq!(local["body"]["sizes_sent"], tls["body"]["sizes_sent"]);
    let (sent, payload) = (&tls["body"]["sizes_sent"], &tls["body"]["sizes"]);
    for (line, mb) in payload.as_object().unwrap() {
        let as_sent = sent[line].as_f64().unwrap();
        assert!(
            as_sent >= mb.as_f64().unwrap(),
            "{line}: sent {as_sent} < payload {mb}"
        );
    }
    // Every party posted, and the senders' inputs are the driver's one post in `main`.
    let posted = tls["body"]["posted"].as_array().unwrap();
    for party in ["driver", "mixer 0", "mixer 1", "verifier"] {
        assert!(
            posted.iter().any(|p| p["party"] == party),
            "{party}: {posted:?}"
        );
    }
    let inputs = posted
        .iter()
        .find(|p| p["party"] == "driver" && p["scope"] == "main")
        .unwrap();
    assert_eq!(inputs["posts"], 1, "{inputs}");
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
    // A party's step timers over tls are its own signed claims, labelled so; the driver's own
    // timers and every timer of a local run are measured, not claimed.
    for row in tls["body"]["timers"].as_array().unwrap() {
        let party = &row["party"];
        let claimed = &row["claimed_by"];
        if party.is_string() && row["label"].as_str().is_some_and(|l| l.contains(": ")) {
            assert_eq!(claimed, &serde_json::json!([party]), "{row}");
        }
    }
    for row in local["body"]["timers"].as_array().unwrap() {
        assert!(row["claimed_by"].is_null(), "{row}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_tamper_turns_its_status_false_over_tls() {
    let s = seed(22);
    every_tamper(&small(&s, "tls", &[]), |r| {
        (r.code != 1 || r.get(r.status) != Some(false)).then(String::new)
    });
}

/// A fault case: the fault, the party the report must name, the step it must start with. The
/// step is where the driver was when it learnt of the failure: the section of a fault the driver
/// injects itself (it enters the section, then kills, stops or partitions), but any step up to
/// the fault's for a fault of the party's own, as the driver may lag behind the parties.
type Case<'a> = (&'a str, &'a str, &'a str);

/// Runs the small seeded tls run with `--fault` of each case (and `extra`), two at a time, each
/// with a seed of its own that marks its processes: every run fails with exit status 1, nothing
/// on stdout, a valid FAILED report naming the case's party at a step starting with the case's,
/// and no process left behind. Returns each run's seconds, in case order.
fn fault_cases(
    dir: &std::path::Path,
    first_seed: u8,
    cases: &[Case<'_>],
    extra: &[&str],
) -> Vec<f64> {
    let indexed: Vec<(usize, Case<'_>)> = cases.iter().copied().enumerate().collect();
    par_map(&indexed, |&(i, (fault, party, step))| {
        let s = seed(first_seed + i as u8);
        let out = dir.join(format!("fault-{first_seed}-{i}.json"));
        let mut args = vec!["--fault", fault, "--out", out.to_str().unwrap()];
        args.extend(extra);
        let start = Instant::now();
        let (code, stdout, stderr) = run(&small(&s, "tls", &args));
        let took = start.elapsed().as_secs_f64();
        assert_eq!(code, 1, "{fault}: {stderr}");
        assert!(stdout.is_empty(), "{fault}: a report on stdout:\n{stdout}");
        let doc = assert_report(&out);
        assert_eq!(doc["passed"], false, "{fault}");
        let failure = &doc["body"]["failure"];
        assert_eq!(failure["party"], party, "{fault}: {failure}\n{stderr}");
        let got = failure["step"].as_str().unwrap();
        assert!(
            got.starts_with(step),
            "{fault}: stopped at {got}: {failure}"
        );
        assert!(stderr.contains("FAILED"), "{fault}: {stderr}");
        // Nothing left behind: no process of the run.
        std::thread::sleep(Duration::from_millis(300));
        let left = processes_with(&s);
        assert!(left.is_empty(), "{fault}: processes left: {left:?}");
        took
    })
}

/// Only the run's reports in `dir`, and the checkpoint each stopped run keeps for its next
/// attempt (with no board record in it): no temporary file (record, report) left behind.
fn only_reports(dir: &std::path::Path) {
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(
            |n| n.starts_with("fault-") && (n.ends_with(".json") || n.ends_with(".checkpoint"))
        ),
        "{names:?}"
    );
    for n in names.iter().filter(|n| n.ends_with(".checkpoint")) {
        let kept = dir.join(n);
        assert!(kept.join("journal-driver").exists(), "{n}");
        assert!(!kept.join("board.record").exists(), "{n}: a record left");
        assert!(!kept.join("board.record.partial").exists(), "{n}");
    }
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
            "main > ",
        ),
        ("cut:verifier@get_verfsigs", "verifier", "main > "),
    ];
    fault_cases(&dir, 40, &cases, &[]);
    only_reports(&dir);
    // A fault, a deadline and a record need the tls transport.
    for option in [
        &["--fault", "kill:mixer-1@mixing"][..],
        &["--timeout", "5"],
        &["--board-record", "x.log"],
    ] {
        let mut args = vec!["3", "2"];
        args.extend(option);
        let (code, _, stderr) = run(&args);
        assert_eq!(code, 2, "{option:?}: {stderr}");
        assert!(stderr.contains("needs --transport tls"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A party posting a verdict under another party's tag, or asking the board to shut down, is
/// named by the board and the run stops; a party that does all its work but exits with a
/// failure fails the run at its end, naming it.
#[test]
fn a_party_speaking_for_another_shutting_the_board_or_exiting_badly_is_named() {
    let dir = scratch("misbehaving");
    // The step is where the driver noticed, which may lag the misbehaving party's.
    let cases = [
        ("forge:mixer-0@mixing", "mixer 0", "main > "),
        ("forge:verifier@get_verfsigs", "verifier", "main > "),
        ("shutdown:mixer-1@mixing", "mixer 1", "main > "),
        ("exit:mixer-1@end", "mixer 1", ""),
    ];
    fault_cases(&dir, 50, &cases, &["--timeout", "30"]);
    only_reports(&dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A mixer stopped with SIGSTOP, or a verifier that falls silent with its link open: the run
/// fails within the deadline (plus what the run took to get there), naming the party and the
/// step the driver waited in, and the stopped process is gone too.
#[test]
fn a_stopped_or_silent_party_fails_the_run_within_the_deadline() {
    let dir = scratch("stopped");
    let cases = [
        ("stop:mixer-1@mixing", "mixer 1", "main > mixing"),
        ("silent:verifier@get_verfsigs", "verifier", "main > "),
    ];
    let took = fault_cases(&dir, 60, &cases, &["--timeout", "6"]);
    for (t, case) in took.iter().zip(&cases) {
        // The run's own work before the fault is seconds; the deadline is 6 s; a hang is not.
        assert!(*t < 45.0, "{}: {t} s", case.0);
    }
    only_reports(&dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A party whose records for the driver's report lie fails the run, named: another party's step
/// timers passed off as its own figures, 10^12 bytes more posted by the driver, another digest
/// for one of its posts. The driver takes bytes and digests from the board's record and a
/// party's timers only as that party's own (signed) claims.
#[test]
fn a_party_lying_in_its_records_fails_the_run_naming_it() {
    let dir = scratch("claims");
    let cases = [
        ("claim:mixer-0@timers", "mixer 0", ""),
        ("claim:mixer-0@bytes", "mixer 0", ""),
        ("claim:mixer-0@digest", "mixer 0", ""),
    ];
    fault_cases(&dir, 80, &cases, &["--timeout", "30"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `db-sm-rsm verify-board FILE`: (exit code, stdout, stderr).
fn verify_board(file: &std::path::Path) -> (i32, String, String) {
    run(&["verify-board", file.to_str().unwrap()])
}

/// The byte ranges of a record file's entries (each a 4-byte little-endian length and that many
/// bytes).
fn entries(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 4 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        out.push(at..at + 4 + len);
        at += 4 + len;
    }
    out
}

/// The record of a verified run re-checks from the file alone: `verify-board` recomputes every
/// status, True and equal to the run's, and the run's report carries the audit with its CPU
/// time. The same file with one byte changed, one post removed or two posts swapped is refused,
/// naming the entry.
#[test]
fn the_board_record_re_checks_the_run_and_names_a_damaged_entry() {
    let dir = scratch("record");
    let s = seed(24);
    let (record, out) = (dir.join("board.log"), dir.join("run.json"));
    let extra = [
        "--board-record",
        record.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, _, stderr) = run(&small(&s, "tls", &extra));
    assert_eq!(code, 0, "{stderr}");
    let doc = assert_report(&out);
    let audit = &doc["body"]["audit"];
    assert_eq!(audit["passed"], true, "{audit}");
    assert_eq!(audit["statuses"], doc["body"]["statuses"]);
    assert!(audit["cpu_per_entry_s"].as_f64().unwrap() > 0.0, "{audit}");
    assert!(
        audit["checks_recomputed"].as_u64().unwrap() >= 20,
        "{audit}"
    );
    let (code, stdout, stderr) = verify_board(&record);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let statuses: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("status_"))
        .collect();
    assert_eq!(statuses.len(), 19, "{stdout}");
    assert!(
        statuses
            .iter()
            .all(|l| l.ends_with(": True (the run: True)")),
        "{stdout}"
    );
    assert!(stdout.contains("PASSED"), "{stdout}");
    let good = std::fs::read(&record).unwrap();
    let e = entries(&good);
    assert!(e.len() > 20, "{} entries", e.len());
    let damaged = dir.join("damaged.log");
    let mut flipped = good.clone();
    flipped[e[5].start + (e[5].end - e[5].start) / 2] ^= 0x20;
    let mut removed = good[..e[5].start].to_vec();
    removed.extend_from_slice(&good[e[5].end..]);
    let mut swapped = good[..e[5].start].to_vec();
    swapped.extend_from_slice(&good[e[6].clone()]);
    swapped.extend_from_slice(&good[e[5].clone()]);
    swapped.extend_from_slice(&good[e[6].end..]);
    for (what, bytes) in [
        ("a byte changed", flipped),
        ("a post removed", removed),
        ("two posts swapped", swapped),
    ] {
        std::fs::write(&damaged, bytes).unwrap();
        let (code, stdout, stderr) = verify_board(&damaged);
        assert_eq!(code, 1, "{what}: {stdout}{stderr}");
        assert!(stderr.contains("entry 5:"), "{what}: {stderr}");
    }
    // Cut short, and not a file at all.
    std::fs::write(&damaged, &good[..e[9].end]).unwrap();
    let (code, _, stderr) = verify_board(&damaged);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("entry 9:") && stderr.contains("truncated"),
        "{stderr}"
    );
    let (code, _, stderr) = verify_board(&dir.join("none.log"));
    assert_eq!(code, 2, "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Verdicts are only words: a verifier that posts True over a DPK_BB proof that fails makes the
/// run's report say True, and a mixer that posts False over good shuffles makes it say False;
/// the auditor recomputes both, names the party whose verdict disagrees, and the run is not
/// verified (exit 1), nor is its record.
#[test]
fn a_lying_verdict_is_caught_by_the_audit_of_the_record() {
    let dir = scratch("lies");
    let cases = [
        (
            "lie:verifier@dpk_bbsig_nizkverifs",
            Some("dpk-bb"),
            "verifier",
            "status_dpk_bbsig",
        ),
        (
            "lie:mixer-0@re-encryption and permutation",
            None,
            "mixer 0",
            "status_shuffle",
        ),
    ];
    par_map(&cases, |&(fault, tamper, party, status)| {
        let s = seed(80 + party.len() as u8);
        let record = dir.join(format!("{party}.log"));
        let out = dir.join(format!("{party}.json"));
        let mut extra = vec![
            "--fault",
            fault,
            "--board-record",
            record.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(t) = tamper {
            extra.extend(["--tamper", t]);
        }
        let (code, _, stderr) = run(&small(&s, "tls", &extra));
        assert_eq!(code, 1, "{fault}: {stderr}");
        let doc = assert_report(&out);
        let (told, found) = (
            &doc["body"]["statuses"][status],
            &doc["body"]["audit"]["statuses"][status],
        );
        // What the lie made the run report, and what the data says.
        assert_eq!(*told, tamper.is_some(), "{fault}: {doc}");
        assert_eq!(*found, tamper.is_none(), "{fault}: {doc}");
        let disagreements = doc["body"]["audit"]["disagreements"].to_string();
        assert!(disagreements.contains(party), "{fault}: {disagreements}");
        let (code, stdout, _) = verify_board(&record);
        assert_eq!(code, 1, "{fault}: {stdout}");
        assert!(
            stdout.contains("DISAGREES") && stdout.contains(party),
            "{fault}: {stdout}"
        );
    });
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

/// As root, on the emulated `lan`: a mixer partitioned off the network (every packet it sends
/// or receives dropped in its namespace) fails the run within the deadline, naming the mixer and
/// the step, and the run leaves no process and no namespace behind.
#[test]
fn a_partitioned_mixer_fails_the_run_within_the_deadline_and_leaves_nothing() {
    let test = "a_partitioned_mixer_fails_the_run_within_the_deadline_and_leaves_nothing";
    if !can_emulate(test) {
        return;
    }
    let dir = scratch("partition");
    let before = namespaces();
    let cases = [("partition:mixer-1@mixing", "mixer 1", "main > mixing")];
    let took = fault_cases(&dir, 70, &cases, &["--network", "lan", "--timeout", "6"]);
    assert!(took[0] < 60.0, "{} s", took[0]);
    let left: Vec<_> = namespaces()
        .into_iter()
        .filter(|(ino, holders)| {
            !before.contains_key(ino) && holders.iter().any(|c| c.contains("db-sm-rsm"))
        })
        .collect();
    assert!(left.is_empty(), "namespaces left: {left:?}");
    only_reports(&dir);
    // Without an emulated network there is nothing to partition: refused before any work.
    let (code, _, stderr) = run(&small(
        &seed(71),
        "tls",
        &["--fault", "partition:mixer-1@mixing"],
    ));
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
