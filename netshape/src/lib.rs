//! Emulated networks for the suite's multi-process programs, on one Linux machine.
//!
//! A [`Lab`] is a star: a hub network namespace, and for each host (a party) a veth link to the
//! hub. A host is a namespace of its own, or the machine's own namespace for the one process
//! that starts the others. Every link gets the [`Profile`]'s rate with `tc tbf` on both of its
//! ends; the delay comes from a relay of our own in the hub ([`relay`], the `netshape-relay`
//! program), because `tc netem` may be missing from the kernel: a host reaches a server in the
//! hub through its relay, which holds every byte for half the profile's round-trip time in each
//! direction. So a host's round trip to the hub is the profile's RTT, and a message from one
//! host to another through a server in the hub takes one RTT.
//!
//! The lab is made by the program that needs it, removed when it is dropped (namespaces, links,
//! relays), and refused with a message saying what is missing where the machine does not allow
//! it ([`Lab::check`]: root, the `ip` and `tc` commands, network namespaces, veth, tbf).
//!
//! ```ignore
//! let mut lab = Lab::star("dbsm", &["mixer 0", "mixer 1", "verifier"], Some("driver"), WAN)?;
//! let board = lab.hub_command(&exe).args(["board"]).spawn()?;       // a server in the hub
//! let dial = lab.relay("mixer 0", board_addr)?;                       // where mixer 0 dials
//! let mixer = lab.host_command("mixer 0", &exe).args([...]).spawn()?; // in its namespace
//! ```

pub mod relay;

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A network's round-trip time between a host and the hub, and its rate per link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    /// Its name on command lines and in reports.
    pub name: &'static str,
    /// Round-trip time between a host and the hub.
    pub rtt: Duration,
    /// Rate of every link, each direction, in bits per second.
    pub rate_bit_s: u64,
}

/// A local network: 0.2 ms round trip, 10 Gbit/s.
pub const LAN: Profile = Profile {
    name: "lan",
    rtt: Duration::from_micros(200),
    rate_bit_s: 10_000_000_000,
};

/// Machines in one region: 20 ms round trip, 1 Gbit/s.
pub const REGION: Profile = Profile {
    name: "region",
    rtt: Duration::from_millis(20),
    rate_bit_s: 1_000_000_000,
};

/// Machines across a continent: 100 ms round trip, 100 Mbit/s.
pub const WAN: Profile = Profile {
    name: "wan",
    rtt: Duration::from_millis(100),
    rate_bit_s: 100_000_000,
};

/// Every profile, by name.
pub const PROFILES: [Profile; 3] = [LAN, REGION, WAN];

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Profile, String> {
        PROFILES
            .iter()
            .find(|p| p.name == s)
            .copied()
            .ok_or_else(|| {
                let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
                format!(
                    "network profile {s:?}: expected one of {}",
                    names.join(", ")
                )
            })
    }
}

/// One host of a lab.
#[derive(Clone, Debug)]
struct Host {
    name: String,
    /// Its namespace (None: the machine's own).
    ns: Option<String>,
    /// The host's end of its link.
    veth: String,
    /// The hub's address on the link (where the host's relay listens).
    hub_ip: Ipv4Addr,
}

/// An emulated star network: a hub namespace and one shaped link per host.
pub struct Lab {
    hub: String,
    /// The relay program and the arguments before its own (None: `netshape-relay`).
    relay_program: Option<(PathBuf, Vec<String>)>,
    hosts: Vec<Host>,
    relays: Vec<Child>,
    profile: Profile,
    next_port: u16,
}

fn run(cmd: &[&str]) -> Result<(), String> {
    let out = Command::new(cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", cmd[0]))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{}` failed: {}",
            cmd.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn in_ns(ns: &Option<String>, cmd: &[&str]) -> Result<(), String> {
    match ns {
        Some(ns) => {
            let mut full = vec!["ip", "netns", "exec", ns.as_str()];
            full.extend_from_slice(cmd);
            run(&full)
        }
        None => run(cmd),
    }
}

/// tbf's bucket for a rate: at least 64 KiB, else a hundredth of a second's worth.
fn burst_bytes(rate_bit_s: u64) -> u64 {
    (rate_bit_s / 8 / 100).max(64 * 1024)
}

impl Lab {
    /// Whether this machine lets us make labs: root, `ip` and `tc`, a namespace with a veth
    /// link shaped by tbf. `Err` says what is missing.
    pub fn check() -> Result<(), String> {
        let why = |e: String| {
            format!("network emulation needs root, the ip and tc commands, network namespaces, veth and tc tbf: {e}")
        };
        let mut probe = Lab::star(
            &format!("chk{}", std::process::id() % 100_000),
            &["probe"],
            None,
            LAN,
        )
        .map_err(why)?;
        probe.clean();
        Ok(())
    }

    /// A star with a hub and one link per host in `hosts` (each in a namespace of its own)
    /// and, with `root_host`, one for the machine's own namespace; every link shaped to
    /// `profile`. `tag` (a few letters) names the lab's namespaces and links.
    pub fn star(
        tag: &str,
        hosts: &[&str],
        root_host: Option<&str>,
        profile: Profile,
    ) -> Result<Lab, String> {
        // Short names: interface names have at most 15 characters.
        let tag: String = format!(
            "{}{}",
            tag.chars().take(4).collect::<String>(),
            std::process::id() % 100_000
        );
        let hub = format!("{tag}-hub");
        let mut lab = Lab {
            hub: hub.clone(),
            relay_program: None,
            hosts: Vec::new(),
            relays: Vec::new(),
            profile,
            next_port: 40_000,
        };
        // A second octet of our own keeps two labs on one machine apart.
        let octet = 16 + (std::process::id() % 200) as u8;
        let result = (|| {
            run(&["ip", "netns", "add", &hub])?;
            in_ns(&Some(hub.clone()), &["ip", "link", "set", "lo", "up"])?;
            let all: Vec<(String, bool)> = root_host
                .iter()
                .map(|h| (h.to_string(), true))
                .chain(hosts.iter().map(|h| (h.to_string(), false)))
                .collect();
            for (i, (name, root)) in all.iter().enumerate() {
                let i = i as u8 + 1;
                let ns = (!root).then(|| format!("{tag}-{i}"));
                let veth = format!("{tag}h{i}");
                let hub_veth = format!("{tag}b{i}");
                let host_ip = Ipv4Addr::new(10, octet, i, 2);
                let hub_ip = Ipv4Addr::new(10, octet, i, 1);
                if let Some(ns) = &ns {
                    run(&["ip", "netns", "add", ns])?;
                    in_ns(&Some(ns.clone()), &["ip", "link", "set", "lo", "up"])?;
                }
                run(&[
                    "ip", "link", "add", &veth, "type", "veth", "peer", "name", &hub_veth,
                ])?;
                lab.hosts.push(Host {
                    name: name.clone(),
                    ns: ns.clone(),
                    veth: veth.clone(),
                    hub_ip,
                });
                run(&["ip", "link", "set", &hub_veth, "netns", &hub])?;
                if let Some(ns) = &ns {
                    run(&["ip", "link", "set", &veth, "netns", ns])?;
                }
                let hub_ns = Some(hub.clone());
                in_ns(
                    &ns,
                    &["ip", "addr", "add", &format!("{host_ip}/24"), "dev", &veth],
                )?;
                in_ns(&ns, &["ip", "link", "set", &veth, "up"])?;
                in_ns(
                    &hub_ns,
                    &[
                        "ip",
                        "addr",
                        "add",
                        &format!("{hub_ip}/24"),
                        "dev",
                        &hub_veth,
                    ],
                )?;
                in_ns(&hub_ns, &["ip", "link", "set", &hub_veth, "up"])?;
                let rate = format!("{}bit", profile.rate_bit_s);
                let burst = burst_bytes(profile.rate_bit_s).to_string();
                let tbf = |dev: &str| {
                    vec![
                        "tc".to_string(),
                        "qdisc".into(),
                        "add".into(),
                        "dev".into(),
                        dev.into(),
                        "root".into(),
                        "tbf".into(),
                        "rate".into(),
                        rate.clone(),
                        "burst".into(),
                        burst.clone(),
                        "latency".into(),
                        "200ms".into(),
                    ]
                };
                let host_tbf = tbf(&veth);
                let hub_tbf = tbf(&hub_veth);
                in_ns(
                    &ns,
                    &host_tbf.iter().map(String::as_str).collect::<Vec<_>>(),
                )?;
                in_ns(
                    &hub_ns,
                    &hub_tbf.iter().map(String::as_str).collect::<Vec<_>>(),
                )?;
            }
            Ok(())
        })();
        match result {
            Ok(()) => Ok(lab),
            Err(e) => {
                lab.clean();
                Err(e)
            }
        }
    }

    /// The profile of its links.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    fn host(&self, name: &str) -> Result<&Host, String> {
        self.hosts
            .iter()
            .find(|h| h.name == name)
            .ok_or_else(|| format!("no host {name:?} in the lab"))
    }

    /// A command that runs `exe` in the hub's namespace.
    pub fn hub_command(&self, exe: &Path) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.hub]).arg(exe);
        c
    }

    /// A command that runs `exe` on host `name` (in its namespace).
    pub fn host_command(&self, name: &str, exe: &Path) -> Result<Command, String> {
        let h = self.host(name)?;
        Ok(match &h.ns {
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns]).arg(exe);
                c
            }
            None => Command::new(exe),
        })
    }

    /// Runs relays as `exe args... LISTEN TARGET DELAY_US` (a program that carries its own
    /// relay, [`relay::main_with`]) instead of `netshape-relay`.
    pub fn use_relay(&mut self, exe: PathBuf, args: Vec<String>) {
        self.relay_program = Some((exe, args));
    }

    /// Starts a relay in the hub for host `name` to `target` (an address in the hub) and
    /// returns the address the host dials instead: the hub's end of its link.
    pub fn relay(&mut self, name: &str, target: SocketAddr) -> Result<SocketAddr, String> {
        let (exe, pre) = match &self.relay_program {
            Some((exe, args)) => (exe.clone(), args.clone()),
            None => (relay_program()?, Vec::new()),
        };
        let hub_ip = self.host(name)?.hub_ip;
        let port = self.next_port;
        self.next_port += 1;
        let listen = SocketAddr::from((hub_ip, port));
        let delay_us = (self.profile.rtt.as_micros() / 2).to_string();
        let mut child = self
            .hub_command(&exe)
            .args(pre)
            .args([listen.to_string(), target.to_string(), delay_us])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
        let mut line = String::new();
        if let Some(out) = child.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut line);
        }
        self.relays.push(child);
        if line.trim() != "ready" {
            return Err(format!("the relay for {name} did not start"));
        }
        Ok(listen)
    }

    fn clean(&mut self) {
        for r in &mut self.relays {
            let _ = r.kill();
            let _ = r.wait();
        }
        self.relays.clear();
        for h in &self.hosts {
            match &h.ns {
                Some(ns) => {
                    let _ = run(&["ip", "netns", "del", ns]);
                }
                None => {
                    let _ = run(&["ip", "link", "del", &h.veth]);
                }
            }
        }
        self.hosts.clear();
        let _ = run(&["ip", "netns", "del", &self.hub]);
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        self.clean();
    }
}

/// The relay program: `netshape-relay` beside the running executable (where `cargo build`
/// puts both).
pub fn relay_program() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let dir = exe.parent().ok_or("this program has no directory")?;
    // Test binaries live one directory deeper (target/release/deps).
    for d in [dir.to_path_buf(), dir.join("..")] {
        let p = d.join("netshape-relay");
        if p.exists() {
            return Ok(p);
        }
    }
    Err(format!(
        "netshape-relay is missing beside {}: build it (cargo build --release -p netshape)",
        exe.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_by_name() {
        assert_eq!("wan".parse::<Profile>().unwrap(), WAN);
        assert_eq!(
            "lan".parse::<Profile>().unwrap().rtt,
            Duration::from_micros(200)
        );
        assert!("moon"
            .parse::<Profile>()
            .unwrap_err()
            .contains("lan, region, wan"));
        assert_eq!(burst_bytes(WAN.rate_bit_s), 125_000);
        assert_eq!(burst_bytes(1_000), 64 * 1024);
    }
}
