//! The emulated network, end to end: data crosses every profile, round trips and throughput
//! match the profile, refusals name what is missing, and teardown leaves nothing behind however
//! the owner ends. Tests that need namespaces print why and pass without asserting where this
//! process cannot create them (not root, no `ip`); they share one lock, so that no measurement
//! runs beside another.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use netem::{probe, Error, Network, Profile, Tools};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether namespaces can be made here; prints the reason where not.
fn can_emulate(test: &str) -> bool {
    match netem::check(&Profile::wan(), &Tools::discover()) {
        Ok(()) => true,
        Err(refusal) => {
            println!("{test}: skipped, no emulated network here: {refusal}");
            false
        }
    }
}

/// The lock of the tests that emulate, where namespaces can be made here (`None`, the reason
/// printed, where not).
fn emulating(test: &str) -> Option<MutexGuard<'static, ()>> {
    let lock = serial();
    can_emulate(test).then_some(lock)
}

/// Every (device, inode) of a network namespace that any process holds: as a thread's
/// namespace or as an open descriptor.
fn namespaces_in_use() -> BTreeSet<(u64, u64)> {
    let mut held = BTreeSet::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
            .is_none()
        {
            continue;
        }
        if let Ok(tasks) = std::fs::read_dir(entry.path().join("task")) {
            for t in tasks.flatten() {
                if let Ok(m) = std::fs::metadata(t.path().join("ns/net")) {
                    held.insert((m.dev(), m.ino()));
                }
            }
        }
        if let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) {
            for fd in fds.flatten() {
                if let Ok(m) = std::fs::metadata(fd.path()) {
                    held.insert((m.dev(), m.ino()));
                }
            }
        }
    }
    held
}

fn nsfs_device() -> u64 {
    std::fs::metadata("/proc/self/ns/net").unwrap().dev()
}

/// Waits (up to 10 s) until no process holds any of the namespaces; returns those still held.
fn wait_released(inodes: &[u64]) -> Vec<u64> {
    let dev = nsfs_device();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let held = namespaces_in_use();
        let left: Vec<u64> = inodes
            .iter()
            .copied()
            .filter(|i| held.contains(&(dev, *i)))
            .collect();
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn alive(pid: u32) -> bool {
    // A zombie (exited, not yet reaped) counts as gone.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            let state = s.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z')
        })
        .unwrap_or(false)
}

/// The host's namespaces and links, by name.
fn host_names() -> BTreeSet<String> {
    let run = |args: &[&str]| {
        let out = Command::new(Tools::discover().ip)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let mut names = BTreeSet::new();
    for line in run(&["netns", "list"]).lines() {
        names.insert(format!(
            "netns {}",
            line.split_whitespace().next().unwrap_or("")
        ));
    }
    for line in run(&["-o", "link", "show"]).lines() {
        if let Some(name) = line.split(": ").nth(1) {
            names.insert(format!("link {}", name.split('@').next().unwrap()));
        }
    }
    names
}

/// The host's names that appeared since `before` and look like this crate's (other engineers'
/// containers may add theirs meanwhile).
fn our_new_names(before: &BTreeSet<String>) -> Vec<String> {
    host_names()
        .difference(before)
        .filter(|n| {
            let name = n.split(' ').nth(1).unwrap_or("");
            name == "eth0"
                || name.contains("netem")
                || (name.starts_with('h') && name[1..].chars().all(|c| c.is_ascii_digit()))
        })
        .cloned()
        .collect()
}

/// A listener on a free port of party `i`, on a thread inside it that `serve` runs on; the
/// listener's address as the other parties reach it.
fn serve_in<T, F>(net: &Network, i: usize, serve: F) -> (JoinHandle<T>, SocketAddr)
where
    T: Send + 'static,
    F: FnOnce(TcpListener) -> T + Send + 'static,
{
    let ip = net.ip(i);
    let (port_tx, port_rx) = std::sync::mpsc::channel();
    let server = net
        .thread(i, move || {
            let listener = TcpListener::bind((ip, 0)).unwrap();
            port_tx.send(listener.local_addr().unwrap().port()).unwrap();
            serve(listener)
        })
        .unwrap();
    (server, net.addr(i, port_rx.recv().unwrap()))
}

/// Sends a message of `len` patterned bytes from party `from` to party `to` and back, checks
/// that the echo is what was sent.
fn echo(net: &Network, from: usize, to: usize, len: usize) {
    let (server, addr) = serve_in(net, to, move |listener| {
        let (mut s, peer) = listener.accept().unwrap();
        let mut buf = vec![0u8; len];
        s.read_exact(&mut buf).unwrap();
        s.write_all(&buf).unwrap();
        peer.ip()
    });
    let sent: Vec<u8> = (0..len).map(|i| (i * 7 + from * 13 + to) as u8).collect();
    let expected = sent.clone();
    let client = net
        .thread(from, move || {
            let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(10)).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            s.write_all(&sent).unwrap();
            let mut back = vec![0u8; len];
            s.read_exact(&mut back).unwrap();
            back
        })
        .unwrap();
    assert!(
        client.join().unwrap() == expected,
        "{from} -> {to}: echo differs"
    );
    let peer = server.join().unwrap();
    // The server saw the client's own address: traffic is routed, not relayed. (On loopback a
    // client that does not bind its address speaks from 127.0.0.1.)
    if net.is_emulated() {
        assert_eq!(peer, net.ip(from));
    }
}

/// In every party a shell that waits on a sleeping child of its own (a grandchild, which
/// teardown must find by its namespace): the pids of both, and the shells.
fn sleepers_with_grandchildren(net: &Network) -> (Vec<u32>, Vec<Child>) {
    let (mut pids, mut children) = (Vec::new(), Vec::new());
    for i in 0..net.parties() {
        let mut child = net
            .command(i, "sh")
            .unwrap()
            .args(["-c", "sleep 1000 & echo $!; wait"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        pids.push(child.id());
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        pids.push(line.trim().parse().unwrap());
        children.push(child);
    }
    (pids, children)
}

/// No process holds the namespaces `inodes` any more, and no name of this crate appeared on the
/// host since `before`.
fn assert_nothing_left(inodes: &[u64], before: &BTreeSet<String>) {
    assert_eq!(wait_released(inodes), Vec::<u64>::new());
    assert_eq!(our_new_names(before), Vec::<String>::new());
}

#[test]
fn parties_exchange_data_over_every_profile() {
    let _lock = serial();
    let mut profiles = vec![Profile::none()];
    if can_emulate("parties_exchange_data_over_every_profile") {
        profiles.extend([
            Profile::lan(),
            Profile::region(),
            Profile::wan(),
            "rtt=0ms".parse().unwrap(),
            "rtt=10ms".parse().unwrap(),
        ]);
    }
    for profile in profiles {
        let net = Network::create(&profile, 3).unwrap();
        assert_eq!(net.is_emulated(), profile.is_emulated());
        for (from, to) in [(0, 1), (1, 2), (2, 0)] {
            echo(&net, from, to, 300_000);
        }
        if net.is_emulated() && std::path::Path::new("/proc/sys/net/ipv6").exists() {
            // A party's own loopback keeps IPv6, for services inside the party.
            let v6 = net
                .run_in(2, || TcpListener::bind("[::1]:0").is_ok())
                .unwrap();
            assert!(v6, "{}: no ::1 inside a party", profile.name);
        }
        let addrs: BTreeSet<_> = (0..3).map(|i| net.ip(i)).collect();
        assert_eq!(addrs.len(), 3, "{}: parties share an address", profile.name);
        println!("{}: 3 parties exchanged 300 kB each way", profile);
    }
}

/// The measured round trip is the profile's within 20% + 0.5 ms (the median of many, so that
/// one slow wake-up of a loaded machine does not decide).
#[test]
fn round_trips_match_the_profiles() {
    let Some(_lock) = emulating("round_trips_match_the_profiles") else {
        return;
    };
    for (profile, rounds) in [
        (Profile::lan(), 200),
        (Profile::region(), 40),
        (Profile::wan(), 15),
        ("rtt=50ms,rate=200mbit".parse().unwrap(), 20),
    ] {
        let net = Network::create(&profile, 2).unwrap();
        let want = profile.link.unwrap().rtt;
        let times = probe::round_trips(&net, 1, 0, rounds).unwrap();
        let got = probe::median(&times);
        let slack = want.mul_f64(0.2) + Duration::from_micros(500);
        println!(
            "{profile}: RTT median {:.3} ms over {rounds} (min {:.3}, max {:.3})",
            got.as_secs_f64() * 1e3,
            times[0].as_secs_f64() * 1e3,
            times[times.len() - 1].as_secs_f64() * 1e3
        );
        assert!(
            got + slack >= want && got <= want + slack,
            "{}: RTT {got:?}, profile {want:?}",
            profile.name
        );
        // No round trip is shorter than the delay: the delay line never releases early.
        assert!(
            times[0] >= want,
            "{}: a round trip of {:?}",
            profile.name,
            times[0]
        );
        let stats = net.delay_stats().unwrap();
        assert!(stats.packets >= rounds as u64 * 2, "{stats:?}");
        assert_eq!(stats.failure, None);
        // The meter reads the same line without borrowing the network, and outlives it.
        let meter = net.delay_meter().unwrap();
        assert!(meter.stats().packets >= stats.packets);
        assert!(meter.cpu() >= stats.cpu);
        drop(net);
        assert!(meter.stats().packets >= stats.packets);
    }
}

/// The steady throughput of a bulk transfer is the rate less TCP/IP's headers (1448 bytes of
/// data in each 1514-byte frame: 95.6%), within 15% below and 5% above.
#[test]
fn bulk_throughput_matches_the_rate() {
    let Some(_lock) = emulating("bulk_throughput_matches_the_rate") else {
        return;
    };
    for (profile, mib) in [
        (Profile::wan(), 24),
        (Profile::region(), 96),
        ("rtt=10ms,rate=300mbit".parse().unwrap(), 48),
    ] {
        let net = Network::create(&profile, 2).unwrap();
        let rate = profile.link.unwrap().rate.unwrap().bits_per_second() as f64;
        let goodput = rate * 1448.0 / 1514.0;
        // The rate is a ceiling on every attempt; reaching it may take a second try on a
        // loaded machine (a capacity is the best of a few measurements).
        let mut attempt = 0;
        let (before, b, after) = loop {
            attempt += 1;
            let before = net.delay_stats().unwrap();
            let b = probe::bulk(&net, 0, 1, mib << 20).unwrap();
            let after = net.delay_stats().unwrap();
            assert!(
                b.steady_bits_per_second <= 1.05 * goodput,
                "{}: {:.1} Mbit/s above a rate of {:.1}",
                profile.name,
                b.steady_bits_per_second / 1e6,
                rate / 1e6
            );
            if b.steady_bits_per_second >= 0.85 * goodput || attempt == 3 {
                break (before, b, after);
            }
            println!(
                "{profile}: attempt {attempt} reached {:.1} Mbit/s; again",
                b.steady_bits_per_second / 1e6
            );
        };
        let cpu_per_mb = (after.cpu - before.cpu).as_secs_f64() * 1e3
            / ((after.bytes - before.bytes) as f64 / 1e6);
        println!(
            "{profile}: {mib} MiB, steady {:.1} Mbit/s ({:.1}% of goodput), mean {:.1} Mbit/s; \
             delay line {cpu_per_mb:.2} ms CPU/MB",
            b.steady_bits_per_second / 1e6,
            100.0 * b.steady_bits_per_second / goodput,
            b.mean_bits_per_second / 1e6
        );
        assert!(
            b.steady_bits_per_second >= 0.85 * goodput
                && b.steady_bits_per_second <= 1.05 * goodput,
            "{}: {:.1} Mbit/s against a rate of {:.1}",
            profile.name,
            b.steady_bits_per_second / 1e6,
            rate / 1e6
        );
        assert_eq!(after.failure, None);
    }
}

/// LAN's 10 Gbit/s is above what a user-space delay line forwards on a small machine: the rate
/// is still a ceiling, and the test prints what the machine reached.
#[test]
fn lan_rate_is_a_ceiling() {
    let Some(_lock) = emulating("lan_rate_is_a_ceiling") else {
        return;
    };
    let profile = Profile::lan();
    let net = Network::create(&profile, 2).unwrap();
    let b = probe::bulk(&net, 0, 1, 256 << 20).unwrap();
    let rate = profile.link.unwrap().rate.unwrap().bits_per_second() as f64;
    println!(
        "{profile}: steady {:.0} Mbit/s, mean {:.0} Mbit/s",
        b.steady_bits_per_second / 1e6,
        b.mean_bits_per_second / 1e6
    );
    assert!(b.mean_bits_per_second <= 1.05 * rate);
}

#[test]
fn teardown_leaves_nothing_behind() {
    let Some(_lock) = emulating("teardown_leaves_nothing_behind") else {
        return;
    };
    let before = host_names();
    let net = Network::create(&Profile::wan(), 3).unwrap();
    let inodes = net.namespace_inodes();
    assert_eq!(inodes.len(), 4);
    let (pids, children) = sleepers_with_grandchildren(&net);
    assert!(pids.iter().all(|&p| alive(p)));
    assert_eq!(net.processes_inside().len(), 6);
    drop(net);
    for mut child in children {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(child.wait().unwrap().signal(), Some(9));
    }
    assert!(pids.iter().all(|&p| !alive(p)), "processes survived");
    assert_nothing_left(&inodes, &before);
}

#[test]
fn a_killed_party_leaves_nothing_behind() {
    let Some(_lock) = emulating("a_killed_party_leaves_nothing_behind") else {
        return;
    };
    let before = host_names();
    let net = Network::create(&Profile::lan(), 2).unwrap();
    let inodes = net.namespace_inodes();
    let mut party = net
        .command(1, "sleep")
        .unwrap()
        .arg("1000")
        .spawn()
        .unwrap();
    party.kill().unwrap();
    party.wait().unwrap();
    // The others go on: the network still carries data.
    echo(&net, 0, 1, 1000);
    assert!(net.processes_inside().is_empty());
    drop(net);
    assert_nothing_left(&inodes, &before);
}

#[test]
fn a_panic_tears_the_network_down() {
    let Some(_lock) = emulating("a_panic_tears_the_network_down") else {
        return;
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let result = std::thread::spawn(move || {
        let net = Network::create(&Profile::region(), 2).unwrap();
        let child = net
            .command(0, "sleep")
            .unwrap()
            .arg("1000")
            .spawn()
            .unwrap();
        tx.send((child, net.namespace_inodes())).unwrap();
        panic!("a party failed");
    })
    .join();
    assert!(result.is_err());
    let (mut child, inodes) = rx.recv().unwrap();
    // The unwinding dropped the network, which killed the party.
    let status = child.wait().unwrap();
    assert!(!status.success(), "the party outlived the panic: {status}");
    assert_eq!(wait_released(&inodes), Vec::<u64>::new());
}

/// The owner is killed with SIGKILL (no destructor runs): the guardian kills what runs inside
/// and the namespaces go.
#[test]
fn a_killed_owner_leaves_nothing_behind() {
    let Some(_lock) = emulating("a_killed_owner_leaves_nothing_behind") else {
        return;
    };
    let before = host_names();
    let mut owner = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "owner_for_the_kill_test",
            "--ignored",
            "--nocapture",
        ])
        .env("NETEM_TEST_OWNER", "1")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = None;
    for line in BufReader::new(owner.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("READY ") {
            ready = Some(rest.to_string());
            break;
        }
    }
    let ready = ready.expect("the owner reported its network");
    let (pids, inodes) = ready.split_once(" / ").unwrap();
    let pids: Vec<u32> = pids.split(' ').map(|p| p.parse().unwrap()).collect();
    let inodes: Vec<u64> = inodes.split(' ').map(|p| p.parse().unwrap()).collect();
    assert!(pids.iter().all(|&p| alive(p)));
    owner.kill().unwrap();
    owner.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while pids.iter().any(|&p| alive(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        pids.iter().all(|&p| !alive(p)),
        "processes survived the owner"
    );
    assert_nothing_left(&inodes, &before);
}

/// Not a test: the owner process that `a_killed_owner_leaves_nothing_behind` kills.
#[test]
#[ignore]
fn owner_for_the_kill_test() {
    if std::env::var_os("NETEM_TEST_OWNER").is_none() {
        return;
    }
    let net = Network::create(&Profile::wan(), 2).unwrap();
    let (pids, children) = sleepers_with_grandchildren(&net);
    let join = |v: Vec<String>| v.join(" ");
    println!(
        "READY {} / {}",
        join(pids.iter().map(u32::to_string).collect()),
        join(net.namespace_inodes().iter().map(u64::to_string).collect())
    );
    std::io::stdout().flush().unwrap();
    // Killed here by the test; should it not be, the parties end with the network.
    std::thread::sleep(Duration::from_secs(120));
    for mut child in children {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Two networks at once (as two runs would make) do not collide, and neither touches the host's
/// names.
#[test]
fn two_networks_at_once_do_not_collide() {
    let Some(_lock) = emulating("two_networks_at_once_do_not_collide") else {
        return;
    };
    let before = host_names();
    let a = Network::create(&Profile::lan(), 2).unwrap();
    let b = Network::create(&Profile::wan(), 2).unwrap();
    // Same addresses, separate networks.
    assert_eq!(a.ip(1), b.ip(1));
    echo(&a, 0, 1, 10_000);
    echo(&b, 1, 0, 10_000);
    assert_eq!(our_new_names(&before), Vec::<String>::new());
    let inodes: Vec<u64> = a
        .namespace_inodes()
        .into_iter()
        .chain(b.namespace_inodes())
        .collect();
    assert_eq!(inodes.iter().collect::<BTreeSet<_>>().len(), 6);
    drop(a);
    drop(b);
    assert_nothing_left(&inodes, &before);
}

#[test]
fn a_cut_link_stops_traffic_until_restored() {
    let Some(_lock) = emulating("a_cut_link_stops_traffic_until_restored") else {
        return;
    };
    let net = Network::create(&"rtt=1ms".parse().unwrap(), 2).unwrap();
    // The one connection that gets through (after the link is back).
    let (_server, addr) = serve_in(&net, 0, |listener| {
        let _ = listener.accept();
    });
    net.cut_link(0).unwrap();
    let cut = net
        .run_in(1, move || {
            TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok()
        })
        .unwrap();
    assert!(!cut, "connected across a cut link");
    net.restore_link(0).unwrap();
    let restored = net
        .run_in(1, move || {
            TcpStream::connect_timeout(&addr, Duration::from_secs(5)).is_ok()
        })
        .unwrap();
    assert!(restored, "no connection after the link came back");
    assert!(Network::create(&Profile::none(), 1)
        .unwrap()
        .cut_link(0)
        .is_err());
}

fn missing_tools() -> Tools {
    Tools {
        ip: PathBuf::from("/nonexistent/ip"),
        tc: PathBuf::from("/nonexistent/tc"),
        iptables: PathBuf::from("/nonexistent/iptables"),
    }
}

/// Without its programs the crate refuses in one line naming each, before doing anything; the
/// `none` profile still works.
#[test]
fn missing_programs_are_refused_in_one_line() {
    let _lock = serial();
    let tools = missing_tools();
    let err = Network::create_with(&Profile::wan(), 2, &tools).unwrap_err();
    let Error::Refused { missing, .. } = &err else {
        panic!("not a refusal: {err}");
    };
    let line = err.to_string();
    println!("{line}");
    assert!(!line.contains('\n'));
    for needle in [
        "/nonexistent/ip",
        "/nonexistent/tc",
        "/nonexistent/iptables",
        "`wan`",
    ] {
        assert!(line.contains(needle), "{line}");
    }
    // A profile without delay does not need iptables; without rate, not tc.
    let err = netem::check(&"rtt=0ms,rate=1gbit".parse().unwrap(), &tools).unwrap_err();
    assert!(!err.to_string().contains("iptables"), "{err}");
    let err = netem::check(&"rtt=5ms".parse().unwrap(), &tools).unwrap_err();
    assert!(!err.to_string().contains("/tc"), "{err}");
    assert!(missing.len() >= 3);
    // Loopback needs nothing.
    let net = Network::create_with(&Profile::none(), 2, &tools).unwrap();
    echo(&net, 0, 1, 100_000);
    assert!(net.command(1, "true").unwrap().status().unwrap().success());
}

/// Without the capabilities (the bounding set dropped, or an unprivileged user), netem-check
/// refuses in one line naming them, and exits 1.
#[test]
fn missing_rights_are_refused_in_one_line() {
    let _lock = serial();
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let Some(setpriv) = setpriv else {
        println!("missing_rights_are_refused_in_one_line: skipped, no setpriv to drop rights");
        return;
    };
    if !can_emulate("missing_rights_are_refused_in_one_line") {
        return;
    }
    let check = env!("CARGO_BIN_EXE_netem-check");
    for drop_rights in [
        vec!["--bounding-set=-net_admin,-sys_admin"],
        vec!["--reuid=65534", "--regid=65534", "--clear-groups"],
    ] {
        let out = Command::new(setpriv)
            .args(&drop_rights)
            .args([check, "--profile", "wan"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("Permission denied") && !stderr.contains("netem-check:") {
            println!("{drop_rights:?}: skipped, the binary is not reachable: {stderr}");
            continue;
        }
        println!("{drop_rights:?}: {stderr}");
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains("CAP_NET_ADMIN"), "{stderr}");
        assert!(out.stdout.is_empty());
        // And profile none still works for the same user.
        let out = Command::new(setpriv)
            .args(&drop_rights)
            .args([check, "--profile", "none", "--rounds", "3"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_network_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Network>();
}

#[test]
fn bad_requests_are_refused() {
    let err = Network::create(&Profile::none(), 0).unwrap_err();
    assert!(err.to_string().contains("1 to 1000 parties"), "{err}");
    let err = Network::create(&Profile::none(), 1001).unwrap_err();
    assert!(matches!(err, Error::Parties(1001)));
}

#[test]
fn loopback_addresses_are_distinct_and_local() {
    let net = Network::create(&Profile::none(), 300).unwrap();
    let ips: BTreeSet<_> = (0..300).map(|i| net.ip(i)).collect();
    assert_eq!(ips.len(), 300);
    assert!(ips.iter().all(|ip| ip.is_loopback()));
    assert!(net.netns_path(0).is_none());
    assert!(net.delay_stats().is_none());
    assert!(net.delay_meter().is_none());
}

/// netem-check measures where it can, and says how it is used where it is misused.
#[test]
fn netem_check_measures_and_reports() {
    let _lock = serial();
    let check = env!("CARGO_BIN_EXE_netem-check");
    let out = Command::new(check)
        .args(["--profile", "fast"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown network profile `fast`"));
    let mut args = vec!["--profile", "none", "--rounds", "5"];
    if can_emulate("netem_check_measures_and_reports") {
        args.extend(["--profile", "rtt=2ms,rate=50mbit", "--bulk", "2"]);
    }
    let out = Command::new(check).args(&args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("none (plain loopback): RTT median"),
        "{stdout}"
    );
    if args.len() > 4 {
        assert!(
            stdout.contains("(2 ms RTT, 50 Mbit/s): RTT median"),
            "{stdout}"
        );
        assert!(stdout.contains("ms CPU per MB"), "{stdout}");
    }
}
