//! The network of one run: creation, the parties' addresses, running code inside a party's
//! namespace, and teardown.
//!
//! Topology (every profile but `none`): a hub namespace and one namespace per party, each party
//! joined to the hub by a veth pair (`eth0` in the party, `h<i>` in the hub). The hub routes
//! between parties; every forwarded packet passes the delay line; each link is shaped to the
//! profile's rate in both directions (a token bucket on the party's `eth0` for what it sends, on
//! the hub's `h<i>` for what it receives). A packet from party i to party j thus meets i's
//! uplink, the one-way delay, then j's downlink: a star of full-duplex links through a switch.
//!
//! Addresses come from 198.18.0.0/15, the block set aside for benchmarking network devices
//! (RFC 2544): the hub is 198.18.0.1, party i is the (i+2)-th address. Parties have a route to
//! that block only, so nothing a party sends can leave the emulated network.
//!
//! Names cannot collide between runs: the namespaces are anonymous (held by this process's
//! descriptors, never mounted under /run/netns) and every link is created inside them, so no
//! run adds anything to the host's namespace that another run could meet.
//!
//! Teardown leaves nothing behind in every way the process can end:
//! - drop (also during a panic's unwinding): every process inside the namespaces is killed, the
//!   delay line stops, the descriptors close and the kernel removes the namespaces with their
//!   links, queue and firewall rules;
//! - death by any signal, SIGKILL included: a guardian process (`sh`, started at creation, in
//!   the host's namespace and its own process group) waits for this process's end on a pipe and
//!   then kills whatever still runs inside the namespaces, which then go with their last user.

use std::fmt;
use std::io::{self, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::check::{check, Tools};
use crate::delay::{DelayLine, DelayMeter, DelayStats, QUEUE};
use crate::profile::{Link, Profile};
use crate::sys;
use crate::Error;

/// The most parties one network holds.
pub const MAX_PARTIES: usize = 1000;
/// The hub's address on every link.
pub const HUB: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 1);
/// The party addresses' block: 198.18.0.0/15.
const BLOCK: &str = "198.18.0.0/15";
/// Each link's MTU: Ethernet's.
const MTU: u32 = 1500;

fn setup(step: impl Into<String>) -> impl FnOnce(io::Error) -> Error {
    let step = step.into();
    move |e| Error::Setup {
        step,
        detail: e.to_string(),
    }
}

/// The emulated network of one run. See the module's documentation for what it builds.
pub struct Network {
    profile: Profile,
    parties: usize,
    inner: Inner,
}

enum Inner {
    /// Profile `none`: party i is 127.<run>.<i+1 as two bytes>, all on the host's loopback.
    Loopback {
        run: u8,
    },
    Emulated(Box<Emulated>),
}

struct Emulated {
    link: Link,
    tools: Tools,
    hub: OwnedFd,
    party: Vec<OwnedFd>,
    /// The namespaces' inode numbers (hub first): what "inside the network" means to teardown.
    inodes: Vec<u64>,
    delay: Option<DelayLine>,
    guardian: Option<(Child, ChildStdin)>,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Network")
            .field("profile", &self.profile.spec())
            .field("parties", &self.parties)
            .finish()
    }
}

/// Makes a new network namespace and returns a descriptor that keeps it alive. The namespace is
/// made on a short-lived thread (namespaces are per thread), so the caller's stays as it was.
fn new_namespaces(count: usize) -> io::Result<Vec<OwnedFd>> {
    std::thread::spawn(move || {
        (0..count)
            .map(|_| {
                sys::unshare_net()?;
                Ok(std::fs::File::open("/proc/thread-self/ns/net")?.into())
            })
            .collect()
    })
    .join()
    .map_err(|_| io::Error::other("namespace thread panicked"))?
}

/// Runs `f` on a short-lived thread inside namespace `ns`.
fn inside<T: Send + 'static>(
    ns: &OwnedFd,
    f: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> io::Result<T> {
    let ns = ns.try_clone()?;
    std::thread::spawn(move || {
        sys::setns_net(ns.as_fd())?;
        f()
    })
    .join()
    .map_err(|_| io::Error::other("namespace thread panicked"))?
}

/// Makes `cmd`'s process enter namespace `ns` before it executes its program.
fn enter_namespace(cmd: &mut Command, ns: OwnedFd) {
    // SAFETY: the closure runs in the child between fork and exec. It makes one setns system
    // call (async-signal-safe), allocates nothing and uses only the descriptor it owns, which
    // stays open as long as the Command (and so the closure) exists.
    unsafe {
        cmd.pre_exec(move || sys::setns_net_raw(ns.as_raw_fd()));
    }
}

fn write_sysctl(path: &str, value: &str) -> io::Result<()> {
    match std::fs::write(path, value) {
        // A kernel without IPv6 has no IPv6 switches to turn off.
        Err(e) if e.kind() == io::ErrorKind::NotFound && path.contains("ipv6") => Ok(()),
        r => r.map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}"))),
    }
}

/// The token bucket on one direction of a link: the rate, a bucket of 1 ms of traffic (at least
/// two 64 KiB segments, so that large segments pass whole), and a queue of one bandwidth-delay
/// product (at least 256 KiB) beyond the bucket, the classic router buffer.
fn tbf_args(link: &Link, dev: &str) -> Option<String> {
    let rate = link.rate?;
    let burst = ((rate.bytes_per_second() / 1000.0) as u64).max(128 * 1024);
    let limit = burst + link.bdp_bytes().max(256 * 1024);
    Some(format!(
        "qdisc add dev {dev} root tbf rate {} burst {burst} limit {limit}",
        rate.tc_spec()
    ))
}

/// The address of party `i` in an emulated network.
pub fn party_address(i: usize) -> Ipv4Addr {
    let n = i as u32 + 2;
    Ipv4Addr::new(198, 18 + (n >> 16) as u8, (n >> 8) as u8, n as u8)
}

impl Network {
    /// Creates the network of `parties` parties for `profile`, with the programs found by
    /// [`Tools::discover`]. Refuses (before changing anything) where the rights or programs are
    /// missing; profile `none` needs neither.
    pub fn create(profile: &Profile, parties: usize) -> Result<Network, Error> {
        Network::create_with(profile, parties, &Tools::discover())
    }

    /// [`Network::create`] with the given programs.
    pub fn create_with(profile: &Profile, parties: usize, tools: &Tools) -> Result<Network, Error> {
        if parties == 0 || parties > MAX_PARTIES {
            return Err(Error::Parties(parties));
        }
        let Some(link) = profile.link else {
            return Ok(Network {
                profile: profile.clone(),
                parties,
                inner: Inner::Loopback {
                    run: (std::process::id() % 254 + 1) as u8,
                },
            });
        };
        check(profile, tools)?;

        let mut all = new_namespaces(parties + 1).map_err(setup("creating namespaces"))?;
        let party = all.split_off(1);
        let hub = all.pop().expect("one hub namespace");
        let inodes = std::iter::once(&hub)
            .chain(&party)
            .map(|fd| {
                std::fs::File::from(fd.try_clone()?)
                    .metadata()
                    .map(|m| m.ino())
            })
            .collect::<io::Result<Vec<u64>>>()
            .map_err(setup("reading the namespaces' identities"))?;
        // From here on, dropping `net` undoes whatever was done.
        let mut net = Network {
            profile: profile.clone(),
            parties,
            inner: Inner::Emulated(Box::new(Emulated {
                link,
                tools: tools.clone(),
                hub,
                party,
                inodes,
                delay: None,
                guardian: None,
            })),
        };
        let Inner::Emulated(em) = &mut net.inner else {
            unreachable!()
        };
        em.guardian = Some(start_guardian(&em.inodes).map_err(setup("starting the guardian"))?);
        em.configure()?;
        Ok(net)
    }

    /// The profile the network emulates.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The number of parties.
    pub fn parties(&self) -> usize {
        self.parties
    }

    /// Whether the parties run in namespaces (every profile but `none`).
    pub fn is_emulated(&self) -> bool {
        matches!(self.inner, Inner::Emulated(_))
    }

    fn party_index(&self, i: usize) -> usize {
        assert!(
            i < self.parties,
            "party {i} of a network of {} parties",
            self.parties
        );
        i
    }

    /// Party `i`'s address: the one it listens on and the one every other party reaches it at.
    /// In an emulated network, traffic to it from another party crosses the links and the
    /// delay line; under `none`, it is a loopback address of its own (127.r.x.y, r from the
    /// process id, so that two runs rarely share addresses).
    pub fn ip(&self, i: usize) -> IpAddr {
        let i = self.party_index(i);
        match &self.inner {
            Inner::Loopback { run } => {
                let n = i as u32 + 1;
                IpAddr::V4(Ipv4Addr::new(127, *run, (n >> 8) as u8, n as u8))
            }
            Inner::Emulated(_) => IpAddr::V4(party_address(i)),
        }
    }

    /// The address at which any other party reaches party `i`'s port `port`.
    pub fn addr(&self, i: usize, port: u16) -> SocketAddr {
        SocketAddr::new(self.ip(i), port)
    }

    /// A command for `program` that runs inside party `i`'s namespace; add arguments and spawn
    /// it as usual, while the network lives (a process spawned after the drop would find its
    /// namespace without links, and nobody to end it). Under `none`, a plain command.
    pub fn command(&self, i: usize, program: impl AsRef<std::ffi::OsStr>) -> io::Result<Command> {
        let mut cmd = Command::new(program);
        self.enter(i, &mut cmd)?;
        Ok(cmd)
    }

    /// Makes an existing command run inside party `i`'s namespace (call once per command).
    pub fn enter<'c>(&self, i: usize, cmd: &'c mut Command) -> io::Result<&'c mut Command> {
        let i = self.party_index(i);
        if let Inner::Emulated(em) = &self.inner {
            enter_namespace(cmd, em.party[i].try_clone()?);
        }
        Ok(cmd)
    }

    /// Runs `f` on a new thread inside party `i`'s namespace: sockets it opens are party i's.
    /// A thread cannot be killed: its namespace outlives the network until the thread ends.
    pub fn thread<T, F>(&self, i: usize, f: F) -> io::Result<JoinHandle<T>>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let i = self.party_index(i);
        let Inner::Emulated(em) = &self.inner else {
            return Ok(std::thread::spawn(f));
        };
        // A new thread starts in its creator's namespace: enter party i's, spawn, come back.
        let home = std::fs::File::open("/proc/thread-self/ns/net")?;
        sys::setns_net(em.party[i].as_fd())?;
        let spawned = std::thread::Builder::new()
            .name(format!("netem-party-{i}"))
            .spawn(f);
        sys::setns_net(home.as_fd()).expect("returning to the caller's network namespace");
        spawned
    }

    /// Runs `f` inside party `i`'s namespace and returns its result (a panic in `f` is resumed
    /// here).
    pub fn run_in<T, F>(&self, i: usize, f: F) -> io::Result<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        match self.thread(i, f)?.join() {
            Ok(t) => Ok(t),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }

    /// A path naming party `i`'s namespace while the network lives, for tools that take one
    /// (`nsenter --net=PATH`, `ip link set DEV netns PATH`). `None` under `none`.
    pub fn netns_path(&self, i: usize) -> Option<PathBuf> {
        let i = self.party_index(i);
        match &self.inner {
            Inner::Loopback { .. } => None,
            Inner::Emulated(em) => Some(fd_path(&em.party[i])),
        }
    }

    /// Cuts party `i`'s link: its hub side goes down, so packets to and from the party are lost
    /// and the hub answers the other parties' packets for it with "host unreachable", until
    /// [`Network::restore_link`]. For fault tests. An error under `none`.
    pub fn cut_link(&self, i: usize) -> io::Result<()> {
        self.set_link(i, &format!("link set h{i} down\n"))
    }

    /// A handle that partitions party `i` off the network when applied: every packet it sends
    /// or receives is dropped inside its namespace, silently (no "unreachable" answers, unlike
    /// [`Network::cut_link`]), as behind a failed switch port; for fault tests. The handle
    /// holds its own reference to the namespace, so it can be applied from another thread while
    /// the network lives. An error under `none`.
    pub fn partition(&self, i: usize) -> io::Result<Partition> {
        let i = self.party_index(i);
        let Inner::Emulated(em) = &self.inner else {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "profile `none` has no namespaces to partition",
            ));
        };
        Ok(Partition {
            ns: em.party[i].try_clone()?,
            iptables: em.tools.iptables.clone(),
        })
    }

    /// Brings party `i`'s link back after [`Network::cut_link`] (and its route, which the
    /// kernel drops with the link).
    pub fn restore_link(&self, i: usize) -> io::Result<()> {
        let party = party_address(i);
        self.set_link(
            i,
            &format!("link set h{i} up\nroute replace {party}/32 dev h{i} src {HUB}\n"),
        )
    }

    fn set_link(&self, i: usize, script: &str) -> io::Result<()> {
        self.party_index(i);
        let Inner::Emulated(em) = &self.inner else {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "profile `none` has no links to cut",
            ));
        };
        run_tool(&em.hub, &em.tools.ip, &["-batch", "-"], Some(script))
            .map_err(|e| io::Error::other(e.to_string()))
    }

    /// What the delay line has done (`None` without a delay).
    pub fn delay_stats(&self) -> Option<DelayStats> {
        match &self.inner {
            Inner::Emulated(em) => em.delay.as_ref().map(DelayLine::stats),
            Inner::Loopback { .. } => None,
        }
    }

    /// A handle on the delay line's figures that does not borrow the network (`None` without a
    /// delay): for a program whose own CPU time must leave out the line's, a thread of this
    /// process.
    pub fn delay_meter(&self) -> Option<DelayMeter> {
        match &self.inner {
            Inner::Emulated(em) => em.delay.as_ref().map(DelayLine::meter),
            Inner::Loopback { .. } => None,
        }
    }

    /// The processes (other than this one) that still run inside the network's namespaces.
    pub fn processes_inside(&self) -> Vec<i32> {
        match &self.inner {
            Inner::Emulated(em) => processes_inside(&em.inodes),
            Inner::Loopback { .. } => Vec::new(),
        }
    }

    /// The namespaces' inode numbers, hub first (empty under `none`): what a test checks is gone.
    pub fn namespace_inodes(&self) -> Vec<u64> {
        match &self.inner {
            Inner::Emulated(em) => em.inodes.clone(),
            Inner::Loopback { .. } => Vec::new(),
        }
    }
}

/// Drops every packet of one party inside its namespace ([`Network::partition`]).
pub struct Partition {
    ns: OwnedFd,
    iptables: PathBuf,
}

impl Partition {
    /// Starts dropping every packet the party sends or receives.
    pub fn apply(&self) -> io::Result<()> {
        for chain in ["INPUT", "OUTPUT"] {
            run_tool(
                &self.ns,
                &self.iptables,
                &["-w", "-I", chain, "1", "-j", "DROP"],
                None,
            )
            .map_err(|e| io::Error::other(e.to_string()))?;
        }
        Ok(())
    }
}

fn fd_path(fd: &OwnedFd) -> PathBuf {
    PathBuf::from(format!(
        "/proc/{}/fd/{}",
        std::process::id(),
        fd.as_raw_fd()
    ))
}

/// Runs a configuration program inside namespace `ns`, with `script` on its standard input.
fn run_tool(
    ns: &OwnedFd,
    program: &Path,
    args: &[&str],
    script: Option<&str>,
) -> Result<(), Error> {
    let name = program.file_name().unwrap_or_default().to_string_lossy();
    let step = format!("{name} {}", args.join(" "));
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(if script.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    enter_namespace(&mut cmd, ns.try_clone().map_err(setup(step.clone()))?);
    let mut child = cmd.spawn().map_err(setup(step.clone()))?;
    if let Some(script) = script {
        let mut stdin = child.stdin.take().expect("piped stdin");
        stdin
            .write_all(script.as_bytes())
            .map_err(setup(step.clone()))?;
    }
    let out = child.wait_with_output().map_err(setup(step.clone()))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let detail = stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .collect::<Vec<_>>()
        .join(" / ");
    Err(Error::Setup {
        step,
        detail: if detail.is_empty() {
            out.status.to_string()
        } else {
            detail
        },
    })
}

impl Emulated {
    fn configure(&mut self) -> Result<(), Error> {
        // Switches first: the hub forwards; links made from now on have no IPv6, so that
        // router solicitations and the like do not use them (loopback keeps ::1).
        for (n, ns) in std::iter::once(&self.hub).chain(&self.party).enumerate() {
            let hub = n == 0;
            inside(ns, move || {
                write_sysctl("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1")?;
                if hub {
                    write_sysctl("/proc/sys/net/ipv4/ip_forward", "1")?;
                }
                Ok(())
            })
            .map_err(setup("setting the namespaces' switches"))?;
        }

        let mut hub_script = String::from("link set lo up\n");
        for (i, ns) in self.party.iter().enumerate() {
            let party = party_address(i);
            hub_script += &format!(
                "link add h{i} mtu {MTU} type veth peer name eth0 netns {}\n\
                 addr add {HUB}/32 dev h{i}\n\
                 link set h{i} up\n\
                 route add {party}/32 dev h{i} src {HUB}\n",
                fd_path(ns).display()
            );
        }
        run_tool(
            &self.hub,
            &self.tools.ip,
            &["-batch", "-"],
            Some(&hub_script),
        )?;
        for (i, ns) in self.party.iter().enumerate() {
            let party = party_address(i);
            let script = format!(
                "link set lo up\n\
                 link set eth0 up\n\
                 addr add {party}/32 dev eth0\n\
                 route add {HUB}/32 dev eth0 scope link src {party}\n\
                 route add {BLOCK} via {HUB} dev eth0 src {party}\n"
            );
            run_tool(ns, &self.tools.ip, &["-batch", "-"], Some(&script))?;
        }

        if self.link.rate.is_some() {
            let hub_tc: String = (0..self.party.len())
                .filter_map(|i| tbf_args(&self.link, &format!("h{i}")))
                .map(|l| l + "\n")
                .collect();
            run_tool(&self.hub, &self.tools.tc, &["-batch", "-"], Some(&hub_tc))?;
            let party_tc = tbf_args(&self.link, "eth0").expect("a rate") + "\n";
            for ns in &self.party {
                run_tool(ns, &self.tools.tc, &["-batch", "-"], Some(&party_tc))?;
            }
        }

        if !self.link.rtt.is_zero() {
            // The queue is bound before the rule that fills it exists: a packet never meets a
            // queue without a reader (which would drop it).
            self.delay = Some(
                DelayLine::start(&self.hub, self.link.one_way_delay())
                    .map_err(setup("starting the delay line (netfilter queue)"))?,
            );
            let queue = QUEUE.to_string();
            run_tool(
                &self.hub,
                &self.tools.iptables,
                &[
                    "-w",
                    "-A",
                    "FORWARD",
                    "-j",
                    "NFQUEUE",
                    "--queue-num",
                    &queue,
                ],
                None,
            )?;
        }
        Ok(())
    }

    fn teardown(&mut self) {
        // Kill what runs inside, until nothing does (a process may fork while we look).
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let pids = processes_inside(&self.inodes);
            if pids.is_empty() || Instant::now() > deadline {
                break;
            }
            for pid in pids {
                sys::kill_process(pid);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        if let Some(mut delay) = self.delay.take() {
            delay.stop();
        }
        // The guardian sees its pipe close, finds nothing left to kill and exits.
        if let Some((mut child, stdin)) = self.guardian.take() {
            drop(stdin);
            let _ = child.wait();
        }
        // The namespace descriptors close with `self`; the kernel then removes the namespaces,
        // their links, queue and rules.
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        if let Inner::Emulated(em) = &mut self.inner {
            em.teardown();
        }
    }
}

/// Processes other than this one with a thread inside one of the namespaces `inodes`.
fn processes_inside(inodes: &[u64]) -> Vec<i32> {
    let own = std::process::id() as i32;
    let Ok(proc) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in proc.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == own {
            continue;
        }
        let Ok(tasks) = std::fs::read_dir(entry.path().join("task")) else {
            continue;
        };
        let inside = tasks.flatten().any(|t| {
            std::fs::metadata(t.path().join("ns/net")).is_ok_and(|m| inodes.contains(&m.ino()))
        });
        if inside {
            found.push(pid);
        }
    }
    found
}

/// The guardian's script: wait for the pipe from the owner to close (the owner ended, however),
/// then kill every process with a thread in one of the namespaces, until none is left.
const GUARDIAN: &str = r#"
read -r _ || :
n=0
while [ "$n" -lt 100 ]; do
  left=$(stat -L -c '%i %n' /proc/[0-9]*/task/[0-9]*/ns/net 2>/dev/null |
    while read -r ino path; do
      case " $NETEM_INODES " in
        *" $ino "*)
          p=${path#/proc/}; p=${p%%/*}
          if [ "$p" != "$NETEM_OWNER" ] && [ "$p" != "$$" ]; then
            kill -9 "$p" 2>/dev/null && echo "$p"
          fi;;
      esac
    done)
  [ -z "$left" ] && exit 0
  n=$((n + 1))
  sleep 0.05
done
"#;

fn start_guardian(inodes: &[u64]) -> io::Result<(Child, ChildStdin)> {
    let list = inodes
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(" ");
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(GUARDIAN)
        .env("NETEM_INODES", list)
        .env("NETEM_OWNER", std::process::id().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own process group: a Ctrl-C meant for the program does not end the guardian.
        .process_group(0)
        .spawn()?;
    let stdin = child.stdin.take().expect("piped stdin");
    Ok((child, stdin))
}
