//! The processes of a `tls` run: the driver starts the bulletin board and every party (this
//! same executable, `db-sm-rsm board` and `db-sm-rsm party --role ...`), introduces them to each
//! other, watches them, and stops them all when the run ends or fails.
//!
//! **Introductions.** Each child makes its own certificate and prints it on its standard output,
//! which only the driver reads; the driver writes to the board's standard input every party's
//! name and certificate, and to each party's the board's address and certificate. These pipes
//! are the trusted channel a deployment would have for distributing keys; everything the
//! protocol sends goes over the board's TLS links. The trusted dealer of preprocessing (kept from
//! the paper's artifact) hands each mixer its secret key material over the same pipe.
//!
//! **Where everything runs.** The run's network ([`netem`]) has a slot per party, in the order
//! of their names, then the board's, then the driver's ([`slots`]). Every process starts in its
//! slot (under profile `none`, on a loopback address of its own; otherwise in a network
//! namespace behind an emulated link) and the board listens on its slot's address, so every
//! post crosses the network twice: to the board and from it.
//!
//! **No process left behind.** A child whose standard input closes (the driver exited, however)
//! stops at once. The driver polls its children: one that exits before the run is over is a
//! failure of that party, every fetch of the driver fails with its name, and the driver kills
//! the others and waits for them before it writes the FAILED report.
//!
//! Frames on the pipes: a 32-bit little-endian length and a [`Wire`] value.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use netem::Network;
use tls_link::{cert_from_hex, cert_to_hex, Identity};

use super::board::{self, BoardClient, Failure, BOARD};
use crate::primitives::wire::{decode, encode, Wire};

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
}

/// The running parties of a `tls` run, as the driver sees them.
pub struct Processes {
    members: Arc<Mutex<Vec<Member>>>,
    board: Arc<BoardClient>,
    over: Arc<AtomicBool>,
}

/// Reads a child's one line of introduction, `<word> <fields...>`, within a minute.
fn introduction(child: &mut Child, name: &str) -> io::Result<Vec<String>> {
    let out = child
        .stdout
        .take()
        .ok_or_else(|| bad(format!("{name}: no standard output")))?;
    let mut line = String::new();
    BufReader::new(out).read_line(&mut line)?;
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

/// Starts `exe` with `args` in slot `slot` of the network.
fn spawn(net: &Network, slot: usize, exe: &Path, args: &[String]) -> io::Result<Child> {
    net.command(slot, exe)?
        .args(args)
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
    net: &Network,
    slot: usize,
    name: &str,
    args: &[String],
) -> io::Result<Vec<String>> {
    let mut child = spawn(net, slot, &std::env::current_exe()?, args)?;
    let intro = introduction(&mut child, name);
    let stdin = child.stdin.take();
    members.push(Member {
        name: name.into(),
        child,
        stdin,
    });
    intro
}

/// Starts the board in its slot: where it listens, and its certificate.
fn start_board(members: &mut Vec<Member>, net: &Network, slot: usize) -> io::Result<Board> {
    let listen = SocketAddr::new(net.ip(slot), 0);
    let args = ["board".to_string(), "--listen".into(), listen.to_string()];
    match start_member(members, net, slot, BOARD, &args)?.as_slice() {
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

/// Starts every party in its slot: each one's name and certificate (hex).
fn start_parties(
    members: &mut Vec<Member>,
    net: &Network,
    names: &[String],
    args_of: &dyn Fn(&str) -> Vec<String>,
) -> io::Result<Vec<(String, String)>> {
    let mut certs = Vec::new();
    for (slot, name) in names.iter().enumerate() {
        let cert = match start_member(members, net, slot, name, &args_of(name))?.as_slice() {
            [w, cert] if w == "cert" => cert_from_hex(cert),
            _ => None,
        };
        let cert =
            cert.ok_or_else(|| bad(format!("{name}: no certificate in its introduction")))?;
        certs.push((name.clone(), cert_to_hex(&cert)));
    }
    Ok(certs)
}

/// The board learns who may connect (every party and the driver); each party learns where the
/// board is and which certificate it presents.
fn introduce(members: &mut [Member], certs: &[(String, String)], board: &Board) -> io::Result<()> {
    let to_party = encode(&(board.addr.to_string(), cert_to_hex(&board.cert)));
    let to_board = encode(&certs.to_vec());
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
    ) -> io::Result<Processes> {
        let mut members = Vec::new();
        match Self::connect_all(&mut members, names, &args_of, net) {
            Ok(board) => {
                let processes = Processes {
                    members: Arc::new(Mutex::new(members)),
                    board: Arc::new(board),
                    over: Arc::new(AtomicBool::new(false)),
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
    ) -> io::Result<BoardClient> {
        if net.parties() != slots(names.len()) {
            return Err(bad(format!(
                "a network of {} slots for {} parties, the board and the driver",
                net.parties(),
                names.len()
            )));
        }
        let board = start_board(members, net, names.len())?;
        let mut certs = start_parties(members, net, names, args_of)?;
        let id = Identity::generate()?;
        certs.push(("driver".to_string(), cert_to_hex(&id.cert)));
        introduce(members, &certs, &board)?;
        let Board { addr, cert } = board;
        net.run_in(names.len() + 1, move || {
            BoardClient::connect("driver", &id, addr, cert)
        })?
    }

    /// The driver's link to the board.
    pub fn board(&self) -> Arc<BoardClient> {
        self.board.clone()
    }

    /// Polls the children: one that exits with a failure while the run is on is that party's
    /// failure.
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
                    if !status.success() && !over.load(Ordering::SeqCst) {
                        board.fail(Failure {
                            party: m.name.clone(),
                            why: format!("its process exited ({status})"),
                        });
                    }
                }
            }
        });
    }

    /// Hands mixer `name` its secret key material (the trusted dealer's private channel).
    pub fn deliver(&self, name: &str, body: &[u8]) -> Result<(), Failure> {
        let mut ms = self.members.lock().unwrap_or_else(|e| e.into_inner());
        let m = ms
            .iter_mut()
            .find(|m| m.name == name)
            .ok_or_else(|| Failure {
                party: name.into(),
                why: "no such party".into(),
            })?;
        let stdin = m.stdin.as_mut().ok_or_else(|| Failure {
            party: name.into(),
            why: "its standard input is closed".into(),
        })?;
        write_frame(stdin, body).map_err(|e| Failure {
            party: name.into(),
            why: format!("the dealer could not hand it its keys ({e})"),
        })
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

    /// The end of a run that went well: the board shuts down, every child exits on its own
    /// (or is killed after `grace`), and all are waited for.
    pub fn finish(self, grace: Duration) {
        self.over.store(true, Ordering::SeqCst);
        self.board.shut_down_board();
        let deadline = Instant::now() + grace;
        let mut ms = self.members.lock().unwrap_or_else(|e| e.into_inner());
        for m in ms.iter_mut() {
            // Standard input stays open until the child has exited: its closing would tell a
            // child still at work that the driver is gone.
            loop {
                match m.child.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(20))
                    }
                    _ => {
                        let _ = m.child.kill();
                        let _ = m.child.wait();
                        break;
                    }
                }
            }
            m.stdin.take();
        }
    }

    /// The end of a run that failed: every child is killed and waited for.
    pub fn abort(self) {
        self.over.store(true, Ordering::SeqCst);
        let mut ms = self.members.lock().unwrap_or_else(|e| e.into_inner());
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
                        std::process::exit(3);
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
    let first = rx.recv().map_err(|_| bad(unanswered))?;
    let answer = decode(&first).map_err(|e| bad(e.to_string()))?;
    Ok((answer, rx))
}

/// A party's process: its link to the board, and the frames the driver sends it afterwards
/// (the dealer's keys for a mixer).
pub struct Joined {
    /// The link to the board.
    pub board: Arc<BoardClient>,
    from_driver: Receiver<Vec<u8>>,
}

impl Joined {
    /// The next frame from the driver.
    pub fn from_driver<T: Wire>(&self) -> crate::Result<T> {
        let f = self.from_driver.recv().map_err(|_| crate::Error::Stopped {
            party: "driver".into(),
            step: "preprocessing".into(),
            why: "its pipe closed".into(),
        })?;
        decode(&f)
    }
}

/// Joins a run as party `name`: introduces itself on standard output, learns the board from
/// standard input, connects.
pub fn join(name: &str) -> io::Result<Joined> {
    let id = Identity::generate()?;
    let line = format!("cert {}", cert_to_hex(&id.cert));
    let unanswered = "the driver closed the pipe before introducing the board";
    let ((addr, cert), rx): ((String, String), _) = announce(name, &line, unanswered)?;
    let addr: SocketAddr = addr.parse().map_err(|_| bad("a bad board address"))?;
    let cert = cert_from_hex(&cert).ok_or_else(|| bad("a bad board certificate"))?;
    let board = Arc::new(BoardClient::connect(name, &id, addr, cert)?);
    Ok(Joined {
        board,
        from_driver: rx,
    })
}

/// The board's process: listens on `listen` (port 0: any free port), introduces itself, learns
/// the parties, serves until they are all done (or its standard input closes).
pub fn serve_board(listen: SocketAddr) -> io::Result<()> {
    let id = Identity::generate()?;
    let listener = TcpListener::bind(listen)?;
    let port = listener.local_addr()?.port();
    let line = format!("board {port} {}", cert_to_hex(&id.cert));
    let unanswered = "the driver closed the pipe before naming the parties";
    // The pipe stays watched while the board serves: the driver gone stops it.
    let (named, _pipe): (Vec<(String, String)>, _) = announce(BOARD, &line, unanswered)?;
    let parties = named
        .into_iter()
        .map(|(n, c)| cert_from_hex(&c).map(|c| (n, c)))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| bad("a bad party certificate"))?;
    board::serve(listener, &id, parties)?;
    done();
    Ok(())
}
