//! The parties under netem's emulated networks (`--network`): every profile proves and
//! verifies, the online wall time pays the profile's delay once per round at least, a party
//! killed mid-proof fails the run loudly and leaves nothing behind, and a process without the
//! rights is refused in one line before any work. Where this machine cannot create namespaces,
//! the emulated cases print why and are skipped.

mod common;

use std::process::Command;

use netem::Profile;
use serde_json::Value;

use common::cli::{circuit, run, run_args, s, scratch, BENCH};
use measure::testing::{assert_refused, read_json, setpriv, stderr, Scratch};

fn can_emulate(test: &str) -> bool {
    match netem::check(&Profile::wan(), &netem::Tools::discover()) {
        Ok(()) => true,
        Err(refusal) => {
            println!("{test}: emulated profiles skipped: {refusal}");
            false
        }
    }
}

/// The emulated networks are machine-wide resources (namespaces, the netfilter queue, CPU):
/// one test at a time.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// A test's scratch directory with the circuit, and the profiles it runs: `none`, and
/// `emulated` where this machine can make namespaces.
fn profiles(test: &str, emulated: &[&'static str]) -> (Scratch, Vec<&'static str>) {
    let dir = scratch(test);
    circuit(&dir);
    let mut profiles = vec!["none"];
    if can_emulate(test) {
        profiles.extend(emulated);
    }
    (dir, profiles)
}

#[test]
fn every_profile_proves_and_verifies() {
    let _serial = serial();
    let (dir, profiles) = profiles(
        "every_profile_proves_and_verifies",
        &["lan", "region", "wan", "rtt=30ms,rate=200mbit"],
    );
    for profile in profiles {
        let (out, report) = run(
            &dir,
            &[
                "--parties",
                "2,3",
                "--variants",
                "semi-honest",
                "--network",
                profile,
            ],
        );
        assert!(out.status.success(), "{profile}: {}", stderr(&out));
        let enveloped = report.unwrap();
        assert_eq!(enveloped["passed"], true, "{profile}");
        BENCH.validate_enveloped(&dir.path("report.json")).unwrap();
        let spec = profile.parse::<Profile>().unwrap().spec();
        assert_eq!(enveloped["parameters"]["network"], spec.as_str());
        let network = &enveloped["body"]["network"];
        assert_eq!(network["spec"], spec.as_str());
        assert_eq!(network["emulated"], profile != "none");
        for run in enveloped["body"]["runs"].as_array().unwrap() {
            assert_eq!(run["status"], "PASSED", "{profile}: {run}");
            for p in run["per_party"].as_array().unwrap() {
                assert_eq!(p["outcome"], "proof");
                assert_eq!(p["online"]["rounds"], 2);
                assert!(p["online"]["bytes_sent"].as_u64().unwrap() > 0);
            }
        }
    }
}

/// Per run: the slowest party's online wall time, rounds, and the floor the report states.
fn runs(report: &Value) -> Vec<(String, f64, u64, f64)> {
    report["body"]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let s = &r["summary"];
            (
                r["variant"].as_str().unwrap().to_string(),
                s["online_wall_s_max"].as_f64().unwrap(),
                s["rounds"].as_u64().unwrap(),
                s["network_floor_s"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Each round of openings is every party sending to every other at once: it cannot end before
/// its messages have crossed the network one way, so the online wall time is at least rounds x
/// RTT/2, the report's network_floor_s, and grows by about that much over loopback's. The
/// parties' computing time varies from run to run on a loaded machine by a good part of the
/// loopback wall time, so the growth is checked against half the floor. (With both variants:
/// 2 and 6 rounds.)
#[test]
fn the_online_wall_time_grows_with_the_rtt() {
    let _serial = serial();
    if !can_emulate("the_online_wall_time_grows_with_the_rtt") {
        return;
    }
    let dir = scratch("rtt");
    circuit(&dir);
    let args = |network: &'static str| {
        vec![
            "--parties",
            "2",
            "--variants",
            "semi-honest,malicious",
            "--network",
            network,
        ]
    };
    let (out, base) = run(&dir, &args("none"));
    assert!(out.status.success(), "{}", stderr(&out));
    let base = runs(&base.unwrap());
    let rtt = 0.2;
    let (out, far) = run(&dir, &args("rtt=200ms"));
    assert!(out.status.success(), "{}", stderr(&out));
    let far = runs(&far.unwrap());
    for ((variant, wall0, rounds0, floor0), (_, wall, rounds, floor)) in base.iter().zip(&far) {
        assert_eq!(rounds0, rounds, "{variant}");
        assert_eq!(*floor0, 0.0);
        let expected = *rounds as f64 * rtt / 2.0;
        assert!((floor - expected).abs() < 1e-9, "{variant}: floor {floor}");
        println!(
            "{variant}: online wall {wall0:.3} s on loopback, {wall:.3} s at {rtt} s RTT, \
             {rounds} rounds, floor {floor:.3} s"
        );
        assert!(
            *wall >= expected,
            "{variant}: {wall:.3} s < {rounds} x {rtt} / 2"
        );
        assert!(
            wall - wall0 >= expected / 2.0,
            "{variant}: {wall:.3} s - {wall0:.3} s < {rounds} x {rtt} / 4"
        );
    }
}

/// The processes (other than this test) whose command line names `needle`.
fn processes_naming(needle: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .chars()
                .all(|c| c.is_ascii_digit())
        })
        .filter(|e| e.file_name().to_string_lossy() != me)
        .filter_map(|e| {
            let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            cmd.contains(needle).then_some(cmd)
        })
        .collect()
}

/// The coordinator kills party 1 (SIGKILL) as it starts `c_msm`, after the first opening: the
/// run is FAILED, names party 1, the step and the signal, exits 1, and leaves no process, no
/// key file and no namespace behind.
#[test]
fn a_party_killed_mid_proof_fails_the_run_loudly() {
    let _serial = serial();
    let (dir, profiles) = profiles("a_party_killed_mid_proof_fails_the_run_loudly", &["lan"]);
    for profile in profiles {
        let json = dir.path("report.json");
        let _ = std::fs::remove_file(&json);
        let child = Command::new(env!("CARGO_BIN_EXE_collab-groth16"))
            .args(run_args(&dir, "c.r1cs", "c.wtns", &json))
            .args(["--parties", "3", "--network", profile])
            .args(["--kill-party", "1:c_msm"])
            .env("SUITE_PROGRESS", "off")
            .spawn()
            .unwrap();
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{profile}");
        let enveloped = read_json(&json);
        assert_eq!(enveloped["passed"], false);
        BENCH.validate_enveloped(&json).unwrap();
        let run = &enveloped["body"]["runs"][0];
        assert_eq!(run["status"], "FAILED", "{profile}: {run}");
        assert_eq!(run["failure"]["party"], 1);
        assert_eq!(run["failure"]["step"], "c_msm");
        assert!(
            run["failure"]["cause"]
                .as_str()
                .unwrap()
                .contains("signal 9"),
            "{run}"
        );
        let error = run["error"].as_str().unwrap();
        assert!(
            error.contains("party 1") && error.contains("c_msm"),
            "{error}"
        );
        let parties = run["per_party"].as_array().unwrap();
        assert_eq!(parties[1]["outcome"], "lost");
        // The others saw party 1's connection end in the opening after c_msm.
        for p in [&parties[0], &parties[2]] {
            assert_eq!(p["outcome"], "error");
            let e = p["error"].as_str().unwrap();
            assert!(e.contains("open_c") && e.contains("party 1"), "{e}");
        }
        // Nothing behind: no party process, no proving key directory.
        assert!(
            processes_naming(s(dir.dir())).is_empty(),
            "{profile}: processes left"
        );
        let key_dir = std::env::temp_dir().join(format!("collab-groth16-{pid}"));
        assert!(!key_dir.exists(), "{profile}: {} left", key_dir.display());
    }
}

/// Without the capabilities an emulated network needs, `run --network wan` refuses in one line
/// naming them, exits 2 and writes no report; `--network none` still runs.
#[test]
fn missing_rights_are_refused_in_one_line_before_any_work() {
    let _serial = serial();
    let Some(setpriv) = setpriv() else {
        println!("missing_rights_are_refused_in_one_line_before_any_work: skipped, no setpriv");
        return;
    };
    if !can_emulate("missing_rights_are_refused_in_one_line_before_any_work") {
        return;
    }
    let dir = scratch("rights");
    circuit(&dir);
    let json = dir.path("report.json");
    let collab = |network: &str| {
        Command::new(setpriv)
            .arg("--bounding-set=-net_admin,-sys_admin")
            .arg(env!("CARGO_BIN_EXE_collab-groth16"))
            .args(run_args(&dir, "c.r1cs", "c.wtns", &json))
            .args(["--network", network])
            .env("SUITE_PROGRESS", "off")
            .output()
            .unwrap()
    };
    let err = assert_refused(&collab("wan"), "--network wan", "CAP_NET_ADMIN");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("`wan`"), "{err}");
    assert!(!json.exists());
    let out = collab("none");
    assert!(out.status.success(), "{}", stderr(&out));
}
