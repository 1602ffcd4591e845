//! Where the processes of a `tls` run start: as children of the driver on its host (the
//! default), or placed by SLURM (`--launch srun`), each party on a node of the job the driver
//! runs in.
//!
//! **Placed by SLURM.** The driver runs inside a job of at least m + 1 nodes (in the job's batch
//! script, not inside a job step). The bulletin board is its child on the job's first node, as
//! before, listening on every address of that node; the verifier runs on the first node too,
//! mixer k on node k + 1, each started by `srun --nodes=1 --ntasks=1 --relative=K --exact
//! --cpus-per-task=T`, so that its threads come from its own node's CPUs. `srun` forwards the
//! step's standard input and output, so the introductions ([`super::process`]) are unchanged:
//! the driver hears each party's certificate and host, and tells it the board's port and
//! certificate. The board's address is the launching node's, which SLURM hands every task in
//! `SLURM_LAUNCH_NODE_IPADDR`: no address is fixed or configured, and the pinned certificates
//! stay the only trust. Each party introduces itself with its machine block (host name, CPU
//! model, the CPUs it may use), which the report lists by party.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use super::board::BOARD;
use super::roster::{DRIVER, VERIFIER};
use crate::{Error, Result};

/// The environment variable in which `srun` tells a task the address of the node that
/// launched it.
pub const LAUNCH_NODE: &str = "SLURM_LAUNCH_NODE_IPADDR";

/// Where a `tls` run's parties start (`--launch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Launch {
    /// As children of the driver, on its host.
    Local,
    /// By SLURM's srun, each mix-server on a node of its own of the job the driver runs in,
    /// the verifier on the driver's node (the job's first).
    Srun,
}

/// How the driver starts the parties' processes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// The nodes of the SLURM job, in its order (that of `srun --relative`); empty when every
    /// process is a child of the driver on this host.
    nodes: Vec<String>,
    /// The SLURM job's id.
    job: String,
    /// CPUs of each party's step (its threads).
    cpus: u64,
}

/// A line of `scontrol show job -o`: the value of `key=`.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
}

/// Runs a SLURM command and returns its standard output, or a sentence saying why not.
fn slurm(args: &[&str]) -> Result<String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| Error::Placement(format!("`{}` cannot run: {e}", args.join(" "))))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(Error::Placement(format!(
            "`{}` failed: {}",
            args.join(" "),
            said.lines().next().unwrap_or("no message")
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

impl Placement {
    /// Every process a child of the driver on this host.
    pub fn local() -> Placement {
        Placement::default()
    }

    /// Where `--launch` starts the parties of a run of `m` mix-servers with `threads` threads
    /// each, checked before any work: placed by SLURM only over tls on the nodes' own network
    /// (`(tls, emulated)`: `(true, false)`), inside a job with a node for each mix-server. A
    /// refusal is one line ([`Error::Placement`]: `error: ...`).
    pub fn of(
        launch: Launch,
        (tls, emulated): (bool, bool),
        m: usize,
        threads: u64,
    ) -> Result<Placement> {
        match launch {
            Launch::Local => Ok(Placement::local()),
            Launch::Srun if !tls => Err(Error::Placement(
                "--launch srun needs --transport tls".into(),
            )),
            Launch::Srun if emulated => Err(Error::Placement(
                "--launch srun runs the parties over the nodes' own network: --network none".into(),
            )),
            Launch::Srun => Placement::srun(m, threads),
        }
    }

    /// The parties of a run of `m` mix-servers placed on the nodes of the SLURM job this
    /// process runs in, `threads` CPUs each; refused, in one sentence, outside a job, without
    /// `srun`, or in a job of fewer than m + 1 nodes.
    pub fn srun(m: usize, threads: u64) -> Result<Placement> {
        let job = std::env::var("SLURM_JOB_ID").map_err(|_| {
            Error::Placement(
                "--launch srun runs inside a SLURM job (sbatch or salloc): SLURM_JOB_ID is not set"
                    .to_string(),
            )
        })?;
        let shown = slurm(&["scontrol", "show", "job", "-o", &job])?;
        let list = field(&shown, "NodeList")
            .filter(|l| !l.is_empty() && *l != "(null)")
            .ok_or_else(|| Error::Placement(format!("SLURM job {job} has no nodes yet")))?;
        let nodes: Vec<String> = slurm(&["scontrol", "show", "hostnames", list])?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        if nodes.len() < m + 1 {
            return Err(Error::Placement(format!(
                "--launch srun: SLURM job {job} has {} node(s) ({list}); a run of m = {m} needs \
                 m + 1 = {}: the board, the driver and the verifier on the first, each mix-server \
                 on a node of its own",
                nodes.len(),
                m + 1
            )));
        }
        slurm(&["srun", "--version"])?;
        Ok(Placement {
            nodes,
            job,
            cpus: threads,
        })
    }

    /// True when SLURM places the parties.
    pub fn by_srun(&self) -> bool {
        !self.nodes.is_empty()
    }

    /// The position, among the job's nodes, of the node that runs `name`: the first for the
    /// board, the driver and the verifier, node k + 1 for mixer k.
    fn relative(name: &str) -> usize {
        name.strip_prefix("mixer ")
            .and_then(|k| k.parse::<usize>().ok())
            .map_or(0, |k| k + 1)
    }

    /// The node that runs `name` (None when every process runs on this host).
    pub fn node_of(&self, name: &str) -> Option<&str> {
        self.nodes.get(Self::relative(name)).map(String::as_str)
    }

    /// The command that starts party `name` (`exe args`): on its node by `srun`, or `None` when
    /// it is a child of the driver.
    pub fn command(&self, name: &str, exe: &Path, args: &[String]) -> Option<Command> {
        if !self.by_srun() {
            return None;
        }
        let mut c = Command::new("srun");
        c.arg(format!("--jobid={}", self.job))
            .args(["--nodes=1", "--ntasks=1", "--exact", "--quiet"])
            .arg(format!("--relative={}", Self::relative(name)))
            .arg(format!("--cpus-per-task={}", self.cpus))
            .arg(format!("--job-name=db-sm-rsm {name}"))
            .arg(exe)
            .args(args);
        Some(c)
    }

    /// Where the board listens: every address of the driver's node when the parties are on
    /// other nodes, else `local` (its slot's address).
    pub fn board_listen(&self, local: IpAddr) -> IpAddr {
        if self.by_srun() {
            IpAddr::from([0, 0, 0, 0])
        } else {
            local
        }
    }

    /// The board's address as the parties are told it: an unspecified address, for "the node
    /// that launched you", when they are on other nodes ([`board_address`]).
    pub fn told_address(&self, board: SocketAddr) -> SocketAddr {
        if self.by_srun() {
            SocketAddr::new(IpAddr::from([0, 0, 0, 0]), board.port())
        } else {
            board
        }
    }

    /// Says where each process runs, one line (empty when on this host).
    pub fn describe(&self, names: &[String]) -> String {
        if !self.by_srun() {
            return String::new();
        }
        let mut by_node: Vec<(usize, Vec<String>)> = Vec::new();
        let first = [BOARD.to_string(), DRIVER.to_string()];
        for name in first.iter().chain(names) {
            let k = Self::relative(name);
            match by_node.iter_mut().find(|(n, _)| *n == k) {
                Some((_, v)) => v.push(name.clone()),
                None => by_node.push((k, vec![name.clone()])),
            }
        }
        let parts: Vec<String> = by_node
            .iter()
            .map(|(k, v)| format!("{} on {}", v.join(", "), self.nodes[*k]))
            .collect();
        format!(
            "placed by SLURM (job {}, srun, {} CPU(s) per party): {}",
            self.job,
            self.cpus,
            parts.join("; ")
        )
    }

    /// The report's list of hosts: for every process, its node and its machine block (the
    /// board's and the driver's are this process's, the parties' as they introduced
    /// themselves). None when every process ran on this host.
    pub fn hosts_json(&self, machines: &[(String, Value)]) -> Option<Value> {
        if !self.by_srun() {
            return None;
        }
        let here = measure::machine::machine_json();
        let rows: Vec<Value> = [BOARD, DRIVER]
            .iter()
            .map(|p| (p.to_string(), here.clone()))
            .chain(machines.iter().cloned())
            .map(|(party, machine)| {
                json!({"party": party, "node": self.node_of(&party), "machine": machine})
            })
            .collect();
        Some(Value::Array(rows))
    }

    /// The placement sentence of the report's network block.
    pub fn sentence(&self) -> Option<String> {
        self.by_srun().then(|| {
            format!(
                "placed by SLURM on {} nodes of job {}: the board, the driver and the {VERIFIER} \
                 on the first ({}), mix-server k on node k + 1, each party started by srun with \
                 {} CPU(s) of its node; every post crosses the nodes' network to the board and \
                 from it",
                self.nodes.len(),
                self.job,
                self.nodes[0],
                self.cpus
            )
        })
    }
}

/// This process's machine block, as its introduction carries it (hex of its JSON, one word).
pub fn machine_word() -> String {
    measure::hex::encode(measure::machine::machine_json().to_string().as_bytes())
}

/// A machine block from an introduction's word ([`machine_word`]).
pub fn machine_of(word: &str) -> Option<Value> {
    serde_json::from_slice(&measure::hex::decode(word)?).ok()
}

/// The board's address as a party reaches it: the address it was told, or for an unspecified
/// one the address of the node that launched this process, from `srun`.
pub fn board_address(told: SocketAddr) -> io::Result<SocketAddr> {
    if !told.ip().is_unspecified() {
        return Ok(told);
    }
    let host = std::env::var(LAUNCH_NODE).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("the board is on the node that launched this party, but {LAUNCH_NODE} is not set (not started by srun?)"),
        )
    })?;
    let ip: IpAddr = host.trim().parse().map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{LAUNCH_NODE} = {host:?} is not an IP address"),
        )
    })?;
    Ok(SocketAddr::new(ip, told.port()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed() -> Placement {
        Placement {
            nodes: vec!["n0".into(), "n1".into(), "n2".into()],
            job: "7".into(),
            cpus: 2,
        }
    }

    #[test]
    fn each_mixer_on_a_node_of_its_own_the_rest_on_the_first() {
        let p = placed();
        assert_eq!(p.node_of("mixer 0"), Some("n1"));
        assert_eq!(p.node_of("mixer 1"), Some("n2"));
        assert_eq!(p.node_of("verifier"), Some("n0"));
        assert_eq!(p.node_of(BOARD), Some("n0"));
        let names = vec!["mixer 0".into(), "mixer 1".into(), "verifier".into()];
        let said = p.describe(&names);
        assert!(
            said.ends_with("bulletin board, driver, verifier on n0; mixer 0 on n1; mixer 1 on n2"),
            "{said}"
        );
        let c = p.command("mixer 1", Path::new("/x/db-sm-rsm"), &["party".into()]);
        let argv: Vec<String> = c
            .unwrap()
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(argv.contains(&"--relative=2".into()) && argv.contains(&"--exact".into()));
        assert!(argv.contains(&"--cpus-per-task=2".into()), "{argv:?}");
        assert_eq!(argv[argv.len() - 2..], ["/x/db-sm-rsm", "party"]);
        assert!(Placement::local()
            .command("mixer 0", Path::new("x"), &[])
            .is_none());
        assert!(Placement::local().hosts_json(&[]).is_none());
    }

    #[test]
    fn the_board_is_told_as_the_launching_node_only_when_placed() {
        let board: SocketAddr = "127.1.2.3:4000".parse().unwrap();
        assert_eq!(Placement::local().told_address(board), board);
        let told = placed().told_address(board);
        assert!(told.ip().is_unspecified() && told.port() == 4000);
        // A specified address is used as it is; an unspecified one needs srun's variable.
        assert_eq!(board_address(board).unwrap(), board);
        let machine = machine_of(&machine_word()).unwrap();
        assert!(machine["hostname"].is_string() && machine["logical_cpus"].is_number());
        assert!(machine_of("zz").is_none());
        assert_eq!(
            field("JobId=3 NodeList=n[0-2] NumNodes=3", "NodeList"),
            Some("n[0-2]")
        );
    }
}
