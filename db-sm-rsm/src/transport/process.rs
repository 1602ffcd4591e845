//! The processes of a `tls` run: the driver starts the bulletin board and every party (this
//! same executable, `db-sm-rsm board` and `db-sm-rsm party --role ...`), introduces them to each
//! other, watches them, and stops them all when the run ends or fails.
//!
//! **Introductions.** Each child makes its own certificate and prints it on its standard output
//! (a party with its host's machine block, for the report), which only the driver reads, within
//! [`INTRODUCTION`]; the driver writes to the board's
//! standard input the run's roster (every party's name and certificate) and parameters, which
//! open the board's record, and to each party's the board's address and certificate. These pipes
//! are the trusted channel a deployment would have for distributing keys; everything the
//! protocol sends goes over the board's TLS links. The trusted dealer of preprocessing (kept from
//! the paper's artifact) hands each mixer its secret key material over the same pipe.
//!
//! **Deadlines.** Every wait of a `tls` run is bounded: a child's introduction and its answer by
//! [`INTRODUCTION`], the dealer's hand-over and every fetch from the board by the run's deadline
//! ([`crate::protocol::distributed::Deadline`]), the end by a grace period. A party process waits
//! half as long again as the driver, so that when a party stops or falls silent, the driver,
//! which follows every step, is the first to give up and names the party it waited for.
//!
//! **Where everything runs.** The run's network ([`netem`]) has a slot per party, in the order
//! of their names, then the board's, then the driver's ([`slots`]). Every process starts in its
//! slot (under profile `none`, on a loopback address of its own; otherwise in a network
//! namespace behind an emulated link) and the board listens on its slot's address, so every
//! post crosses the network twice: to the board and from it.
//!
//! **Placed by SLURM.** With `--launch srun` the parties start on the nodes of the SLURM job the
//! driver runs in ([`placement`]), through the same pipes, which `srun` forwards.
//!
//! **No process left behind.** A child whose standard input closes (the driver exited, however)
//! stops at once. The driver polls its children: one that exits before the run is over is a
//! failure of that party, every fetch of the driver fails with its name, and the driver kills
//! the others and waits for them before it writes the FAILED report. At the end of a run that
//! went well, every child must exit on its own with status 0: one that exits otherwise, or not
//! within the grace period, fails the run naming it.
//!
//! Frames on the pipes: a 32-bit little-endian length and a [`Wire`] value.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use netem::Network;
use serde_json::Value;
use tls_link::{cert_from_hex, cert_to_hex, Identity};

use super::board::{self, BoardClient, Failure, Limits, BOARD};
use super::placement::{self, Placement};
use super::record;
use super::roster::{Roster, DRIVER};
use crate::primitives::wire::{decode, encode, Wire};

/// How long a child may take to introduce itself, and the driver to answer it.
pub const INTRODUCTION: Duration = Duration::from_secs(60);

/// The exit status of a child that stopped because another party (or the driver) failed: the
/// driver does not count it as the child's failure while the run is on. A child that says so
/// falsely gains nothing: it stops posting, and the driver's deadline names it.
pub const STOPPED_BY_ANOTHER: i32 = 3;

fn write_frame(w: &mut impl Write, body: &[u8]) -> io::Result<()> {
    w.write_all(&(body.len() as u32).to_le_bytes())?;
    w.write_all(body)?;
    w.flush()
}

fn read_frame(r: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
    r.read_exact(&mut body)?;
    Ok(body)
}

fn bad(why: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.into())
}

/// One child process of the driver.
struct Member {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    /// Its machine block, as it introduced itself (parties only).
    machine: Option<Value>,
}

/// The running parties of a `tls` run, as the driver sees them.
pub struct Processes {
    members: Arc<Mutex<Vec<Member>>>,
    board: Arc<BoardClient>,
    over: Arc<AtomicBool>,
    placement: Placement,
    /// The roster: every party's name and certificate (hexadecimal), as the board was told.
    certs: Vec<(String, String)>,
}

/// Reads a child's one line of introduction, `<word> <fields...>`, within [`INTRODUCTION`] (the
/// caller kills a child that stays silent, which ends the reading thread).
fn introduction(child: &mut Child, name: &str) -> io::Result<Vec<String>> {
    let out = child
        .stdout
        .take()
        .ok_or_else(|| bad(format!("{name}: no standard output")))?;
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = BufReader::new(out).read_line(&mut line).map(|_| line);
        let _ = tx.send(read);
    });
    let line = rx.recv_timeout(INTRODUCTION).map_err(|_| {
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!("{name} did not introduce itself within {INTRODUCTION:?}"),
        )
    })??;
    let fields: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    if fields.is_empty() {
        return Err(bad(format!("{name} exited before introducing itself")));
    }
    Ok(fields)
}

/// The number of slots a run of `parties` parties (mix-servers and the verifier) takes in its
/// network: one per party, in the order of their names, then the board's, then the driver's.
pub fn slots(parties: usize) -> usize {
    parties + 2
}

/// Starts `exe` with `args` as `name`: in slot `slot` of the network, or on its node by `srun`
/// when SLURM places the parties.
fn spawn(
    net: &Network,
    placed: &Placement,
    slot: usize,
    name: &str,
    exe: &Path,
    args: &[String],
) -> io::Result<Child> {
    let mut command = match placed.command(name, exe, args) {
        Some(c) => c,
        None => {
            let mut c = net.command(slot, exe)?;
            c.args(args);
            c
        }
    };
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .env("SUITE_PROGRESS", "off")
        .spawn()
}

/// Starts `name` as a member, reads its introduction, and keeps it in `members` whatever the
/// introduction says (so that a failure kills it with the others).
fn start_member(
    members: &mut Vec<Member>,
    (net, placed): (&Network, &Placement),
    slot: usize,
    name: &str,
    args: &[String],
) -> io::Result<Vec<String>> {
    let mut child = spawn(net, placed, slot, name, &std::env::current_exe()?, args)?;
    let intro = introduction(&mut child, name);
    let stdin = child.stdin.take();
    members.push(Member {
        name: name.into(),
        child,
        stdin,
        machine: None,
    });
    intro
}

/// Where the board writes its record, how long it waits for a handshake and for a party to
/// take a post, and where the parties run.
#[derive(Clone, Debug)]
pub struct BoardSettings {
    /// The record file (written as `FILE.partial` until the board closes it).
    pub record: std::path::PathBuf,
    /// The run's deadline.
    pub deadline: Duration,
    /// The run's parameters, for the record's header (a JSON object as text).
    pub parameters: String,
    /// Where the parties' processes start.
    pub placement: Placement,
    /// The run's attempt (its driver's journal's; 1 without a checkpoint): the board admits
    /// only processes of this attempt ([`super::admission`]).
    pub attempt: u32,
}

/// What the driver tells the board: the roster (names and certificates), the run's parameters
/// and its attempt.
type BoardIntroduction = (Vec<(String, String)>, String, u32);

/// Starts the board in its slot: where it listens, and its certificate.
fn start_board(
    members: &mut Vec<Member>,
    net: &Network,
    slot: usize,
    settings: &BoardSettings,
) -> io::Result<Board> {
    // The board is the driver's child in every placement; placed by SLURM, it listens on every
    // address of the driver's node, which the parties reach from theirs.
    let listen = SocketAddr::new(settings.placement.board_listen(net.ip(slot)), 0);
    let args = [
        "board".to_string(),
        "--listen".into(),
        listen.to_string(),
        "--record".into(),
        settings.record.to_string_lossy().into_owned(),
        "--timeout".into(),
        settings.deadline.as_secs_f64().to_string(),
    ];
    let local = Placement::local();
    match start_member(members, (net, &local), slot, BOARD, &args)?.as_slice() {
        [w, port, cert] if w == "board" => Ok(Board {
            addr: SocketAddr::new(net.ip(slot), port.parse().map_err(|_| bad("a bad port"))?),
            cert: cert_from_hex(cert).ok_or_else(|| bad("a bad certificate"))?,
        }),
        _ => Err(bad("the board's introduction")),
    }
}

/// Where the board listens, and the certificate it presents.
struct Board {
    addr: SocketAddr,
    cert: tls_link::Certificate<'static>,
}

/// Starts every party in its slot (or on its node): each one's name and certificate (hex).
fn start_parties(
    members: &mut Vec<Member>,
    where_: (&Network, &Placement),
    names: &[String],
    args_of: &dyn Fn(&str) -> Vec<String>,
) -> io::Result<Vec<(String, String)>> {
    let mut certs = Vec::new();
    for (slot, name) in names.iter().enumerate() {
        let intro = start_member(members, where_, slot, name, &args_of(name))?;
        let cert = match intro.as_slice() {
            [w, cert, machine @ ..] if w == "cert" => {
                if let (Some(m), Some(word)) = (members.last_mut(), machine.first()) {
                    m.machine = placement::machine_of(word);
                }
                cert_from_hex(cert)
            }
            _ => None,
        };
        let cert =
            cert.ok_or_else(|| bad(format!("{name}: no certificate in its introduction")))?;
        certs.push((name.clone(), cert_to_hex(&cert)));
    }
    Ok(certs)
}

/// The board learns who may connect (every party and the driver) and the run's parameters; each
/// party learns where the board is and which certificate it presents.
fn introduce(
    members: &mut [Member],
    certs: &[(String, String)],
    board: &Board,
    settings: &BoardSettings,
) -> io::Result<()> {
    let parameters = &settings.parameters;
    let told = settings.placement.told_address(board.addr);
    let attempt = settings.attempt;
    let to_party = encode(&(told.to_string(), cert_to_hex(&board.cert), attempt));
    let to_board = encode(&(certs.to_vec(), parameters.to_string(), attempt));
    for m in members.iter_mut() {
        let stdin = m.stdin.as_mut().ok_or_else(|| bad("no standard input"))?;
        write_frame(
            stdin,
            if m.name == BOARD {
                &to_board
            } else {
                &to_party
            },
        )?;
    }
    Ok(())
}

impl Processes {
    /// Starts the board and the parties `names` (each with `args_of(name)` after the
    /// executable), introduces them, and connects the driver to the board. Each runs in its
    /// slot of `net` ([`slots`]): party i in slot i, then the board, then the driver, whose link
    /// to the board is made from its own slot, so that it crosses the network too.
    pub fn launch(
        names: &[String],
        args_of: impl Fn(&str) -> Vec<String>,
        net: &Network,
        board_settings: &BoardSettings,
    ) -> io::Result<Processes> {
        let mut members = Vec::new();
        match Self::connect_all(&mut members, names, &args_of, net, board_settings) {
            Ok((board, certs)) => {
                let processes = Processes {
                    members: Arc::new(Mutex::new(members)),
                    board: Arc::new(board),
                    over: Arc::new(AtomicBool::new(false)),
                    placement: board_settings.placement.clone(),
                    certs,
                };
                processes.watch();
                Ok(processes)
            }
            Err(e) => {
                for m in members.iter_mut() {
                    let _ = m.child.kill();
                    let _ = m.child.wait();
                }
                Err(e)
            }
        }
    }

    /// The steps of [`Processes::launch`]; the members started so far stay in `members`.
    fn connect_all(
        members: &mut Vec<Member>,
        names: &[String],
        args_of: &dyn Fn(&str) -> Vec<String>,
        net: &Network,
        settings: &BoardSettings,
    ) -> io::Result<(BoardClient, Vec<(String, String)>)> {
        if net.parties() != slots(names.len()) {
            return Err(bad(format!(
                "a network of {} slots for {} parties, the board and the driver",
                net.parties(),
                names.len()
            )));
        }
        let board = start_board(members, net, names.len(), settings)?;
        let where_ = (net, &settings.placement);
        let mut certs = start_parties(members, where_, names, args_of)?;
        let id = Identity::generate()?;
        certs.push((DRIVER.to_string(), cert_to_hex(&id.cert)));
        introduce(members, &certs, &board, settings)?;
        let Board { addr, cert } = board;
        let (deadline, attempt) = (settings.deadline, settings.attempt);
        let link = net.run_in(names.len() + 1, move || {
            BoardClient::connect((DRIVER, attempt), &id, addr, cert, deadline)
        })??;
        Ok((link, certs))
    }

    /// The certificate party `name` is on the roster with.
    pub fn certificate(&self, name: &str) -> Option<tls_link::Certificate<'static>> {
        let (_, hex) = self.certs.iter().find(|(n, _)| n == name)?;
        cert_from_hex(hex)
    }

    /// The driver's link to the board.
    pub fn board(&self) -> Arc<BoardClient> {
        self.board.clone()
    }

    /// The report's list of which host ran which process (None when all ran on this host).
    pub fn hosts_json(&self) -> Option<Value> {
        let ms = self.members.lock().unwrap_or_else(|e| e.into_inner());
        let machines: Vec<(String, Value)> = ms
            .iter()
            .filter_map(|m| Some((m.name.clone(), m.machine.clone()?)))
            .collect();
        self.placement.hosts_json(&machines)
    }

    /// Polls the children: one that exits with a failure of its own while the run is on is that
    /// party's failure (one that stopped because of another's is not: see
    /// [`STOPPED_BY_ANOTHER`]).
    fn watch(&self) {
        let (members, board, over) = (self.members.clone(), self.board.clone(), self.over.clone());
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(100));
            if over.load(Ordering::SeqCst) {
                return;
            }
            let mut ms = members.lock().unwrap_or_else(|e| e.into_inner());
            for m in ms.iter_mut() {
                // A child that exits successfully has done its part and said goodbye (its
                // last posts may still be on their way through a slow link).
                if let Ok(Some(status)) = m.child.try_wait() {
                    let own = !status.success() && status.code() != Some(STOPPED_BY_ANOTHER);
                    if own && !over.load(Ordering::SeqCst) {
                        board.fail(Failure {
                            party: m.name.clone(),
                            why: format!("its process exited ({status})"),
                        });
                    }
                }
            }
        });
    }

    /// Hands mixer `name` its secret key material (the trusted dealer's private channel), within
    /// `deadline`: a child that takes none of it (stopped) fails the run.
    pub fn deliver(&self, name: &str, body: &[u8], deadline: Duration) -> Result<(), Failure> {
        let failure = |why: String| Failure {
            party: name.into(),
            why,
        };
        let mut stdin = {
            let mut ms = self.members.lock().unwrap_or_else(|e| e.into_inner());
            let m = ms
                .iter_mut()
                .find(|m| m.name == name)
                .ok_or_else(|| failure("no such party".into()))?;
            m.stdin
                .take()
                .ok_or_else(|| failure("its standard input is closed".into()))?
        };
        // The write blocks once the pipe is full: it runs on a thread of its own, which hands
        // the pipe back when done (or ends when the child is killed and the pipe breaks).
        let (tx, rx) = channel();
        let body = body.to_vec();
        std::thread::spawn(move || {
            let written = write_frame(&mut stdin, &body);
            let _ = tx.send((written, stdin));
        });
        match rx.recv_timeout(deadline) {
            Ok((written, stdin)) => {
                let mut ms = self.members.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(m) = ms.iter_mut().find(|m| m.name == name) {
                    m.stdin = Some(stdin);
                }
                written.map_err(|e| failure(format!("the dealer could not hand it its keys ({e})")))
            }
            Err(_) => Err(failure(format!(
                "took none of its keys from the dealer within the deadline of {} s",
                deadline.as_secs_f64()
            ))),
        }
    }

    /// Kills the process of `name` (a fault the tests inject: a crashed mixer or board).
    pub fn kill(&self, name: &str) {
        let mut ms = self.members.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = ms.iter_mut().find(|m| m.name == name) {
            let _ = m.child.kill();
        }
    }

    /// A handle that kills `name` when called (for [`super::Ctx::on_section`]).
    pub fn killer(&self, name: &str) -> super::Hook {
        let (members, name) = (self.members.clone(), name.to_string());
        Box::new(move || {
            let mut ms = members.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(m) = ms.iter_mut().find(|m| m.name == name) {
                let _ = m.child.kill();
            }
        })
    }

    /// A handle that stops the process of `name` with SIGSTOP when called: it stays, its links
    /// open, doing nothing (a fault the tests inject).
    pub fn stopper(&self, name: &str) -> super::Hook {
        let (members, name) = (self.members.clone(), name.to_string());
        Box::new(move || {
            let ms = members.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(m) = ms.iter().find(|m| m.name == name) {
                netem::sys::stop_process(m.child.id() as i32);
            }
        })
    }

    /// The end of a run that went well: the board shuts down, every child exits on its own
    /// (or is killed after `grace`), and all are waited for. A child that had to be killed, or
    /// exited with a failure, is the run's failure.
    pub fn finish(self, grace: Duration) -> Result<(), Failure> {
        self.over.store(true, Ordering::SeqCst);
        self.board.shut_down_board();
        let deadline = Instant::now() + grace;
        let mut ms = self.members.lock().unwrap_or_else(|e| e.into_inner());
        let mut failure = None;
        for m in ms.iter_mut() {
            // Standard input stays open until the child has exited: its closing would tell a
            // child still at work that the driver is gone.
            let why = loop {
                match m.child.try_wait() {
                    Ok(Some(status)) if status.success() => break None,
                    Ok(Some(status)) => {
                        break Some(format!("its process exited with {status} at the end"))
                    }
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(20))
                    }
                    Ok(None) => {
                        let _ = m.child.kill();
                        let _ = m.child.wait();
                        break Some(format!(
                            "its process was still running {} s after the end, and was killed",
                            grace.as_secs_f64()
                        ));
                    }
                    Err(e) => break Some(format!("its process could not be waited for ({e})")),
                }
            };
            m.stdin.take();
            if let (None, Some(why)) = (&failure, why) {
                failure = Some(Failure {
                    party: m.name.clone(),
                    why,
                });
            }
        }
        failure.map_or(Ok(()), Err)
    }

    /// The end of a run that failed: every child is killed and waited for. Placed by SLURM, each
    /// `srun` first has its standard input closed, which its party takes for the driver gone
    /// (a killed `srun` would leave its party running on its node until the job ends).
    pub fn abort(self) {
        self.over.store(true, Ordering::SeqCst);
        let mut ms = self.members.lock().unwrap_or_else(|e| e.into_inner());
        if self.placement.by_srun() {
            let deadline = Instant::now() + Duration::from_secs(10);
            for m in ms.iter_mut() {
                m.stdin.take();
            }
            for m in ms.iter_mut() {
                while matches!(m.child.try_wait(), Ok(None)) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
        for m in ms.iter_mut() {
            let _ = m.child.kill();
            let _ = m.child.wait();
        }
    }
}

// ---- a child's side -------------------------------------------------------------------------

/// Set once a child's work is done: after it, its standard input closing is no failure.
static DONE: AtomicBool = AtomicBool::new(false);

/// Marks this child's work as done (its exit from now on is orderly).
pub fn done() {
    DONE.store(true, Ordering::SeqCst);
}

/// Reads frames from standard input into a channel; when it closes before the work is done,
/// the driver is gone and the process stops at once.
fn watch_stdin(name: String) -> Receiver<Vec<u8>> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        loop {
            match read_frame(&mut stdin) {
                Ok(f) => {
                    if tx.send(f).is_err() {
                        return;
                    }
                }
                Err(_) => {
                    if !DONE.load(Ordering::SeqCst) {
                        eprintln!("db-sm-rsm {name}: the driver is gone; stopping");
                        std::process::exit(STOPPED_BY_ANOTHER);
                    }
                    return;
                }
            }
        }
    });
    rx
}

/// Introduces this child on standard output (`line`), then reads the driver's answer, a `T`,
/// from standard input (`unanswered`: the error if the pipe closes first). Returns it with the
/// rest of the pipe.
fn announce<T: Wire>(
    name: &str,
    line: &str,
    unanswered: &str,
) -> io::Result<(T, Receiver<Vec<u8>>)> {
    {
        let mut out = io::stdout().lock();
        writeln!(out, "{line}")?;
        out.flush()?;
    }
    let rx = watch_stdin(name.to_string());
    let first = rx.recv_timeout(INTRODUCTION).map_err(|_| bad(unanswered))?;
    let answer = decode(&first).map_err(|e| bad(e.to_string()))?;
    Ok((answer, rx))
}

/// A party's process: its link to the board, and the frames the driver sends it afterwards
/// (the dealer's keys for a mixer).
pub struct Joined {
    /// The link to the board.
    pub board: Arc<BoardClient>,
    /// The identity this party is on the roster with, which signs its records.
    pub identity: Identity,
    from_driver: Receiver<Vec<u8>>,
}

impl Joined {
    /// The next frame from the driver, within the deadline.
    pub fn from_driver<T: Wire>(&self) -> crate::Result<T> {
        let deadline = self.board.deadline();
        let f = self
            .from_driver
            .recv_timeout(deadline)
            .map_err(|e| crate::Error::Stopped {
                party: DRIVER.into(),
                step: "main > preprocessing".into(),
                why: match e {
                    RecvTimeoutError::Timeout => format!(
                        "handed over no keys within the deadline of {} s",
                        deadline.as_secs_f64()
                    ),
                    RecvTimeoutError::Disconnected => "its pipe closed".into(),
                },
            })?;
        decode(&f)
    }
}

/// Joins a run as party `name`: introduces itself on standard output, learns the board from
/// standard input, connects. Each of its fetches waits at most `deadline`.
pub fn join(name: &str, deadline: Duration) -> io::Result<Joined> {
    let id = Identity::generate()?;
    let line = format!(
        "cert {} {}",
        cert_to_hex(&id.cert),
        placement::machine_word()
    );
    let unanswered = "the driver closed the pipe before introducing the board";
    let ((addr, cert, attempt), rx): ((String, String, u32), _) =
        announce(name, &line, unanswered)?;
    let addr: SocketAddr = addr.parse().map_err(|_| bad("a bad board address"))?;
    let addr = placement::board_address(addr)?;
    let cert = cert_from_hex(&cert).ok_or_else(|| bad("a bad board certificate"))?;
    let board = Arc::new(BoardClient::connect(
        (name, attempt),
        &id,
        addr,
        cert,
        deadline,
    )?);
    Ok(Joined {
        board,
        identity: id,
        from_driver: rx,
    })
}

/// The board's process: listens on `listen` (port 0: any free port), introduces itself, learns
/// the roster and the run's parameters, starts its record `record`, serves until the parties
/// are all done or the driver shuts it down (or its standard input closes), and closes the
/// record. `deadline` bounds each send to a party; a handshake gets at most 20 s.
pub fn serve_board(
    listen: SocketAddr,
    record_path: &std::path::Path,
    deadline: Duration,
) -> io::Result<()> {
    let id = Identity::generate()?;
    let listener = TcpListener::bind(listen)?;
    let port = listener.local_addr()?.port();
    let line = format!("board {port} {}", cert_to_hex(&id.cert));
    let unanswered = "the driver closed the pipe before naming the parties";
    // The pipe stays watched while the board serves: the driver gone stops it.
    let ((named, parameters, attempt), _pipe): (BoardIntroduction, _) =
        announce(BOARD, &line, unanswered)?;
    let members = named
        .iter()
        .map(|(n, c)| cert_from_hex(c).map(|c| (n.clone(), c)))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| bad("a bad party certificate"))?;
    let roster = Roster::new(members).map_err(|e| bad(e.to_string()))?;
    let header = record::Header {
        parameters,
        roster: named,
    };
    let writer = record::Writer::create(record_path, &header)?;
    let limits = Limits {
        handshake: deadline.min(tls_link::HANDSHAKE_PATIENCE),
        send: deadline,
    };
    board::serve(listener, &id, (roster, attempt), writer, limits)?;
    done();
    Ok(())
}
