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
//! **No process left behind.** A child whose standard input closes (the driver exited, however)
//! stops at once. The driver polls its children: one that exits before the run is over is a
//! failure of that party, every fetch of the driver fails with its name, and the driver kills
//! the others and waits for them before it writes the FAILED report.
//!
//! Frames on the pipes: a 32-bit little-endian length and a [`Wire`] value.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
pub struct Network {
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

/// Starts `exe` with `args`, in the lab's namespace for `host` when there is a lab (the board's
/// host is the hub).
fn spawn(
    lab: Option<&netshape::Lab>,
    host: &str,
    exe: &std::path::Path,
    args: &[String],
) -> io::Result<Child> {
    let mut cmd = match lab {
        None => Command::new(exe),
        Some(lab) if host == BOARD => lab.hub_command(exe),
        Some(lab) => lab.host_command(host, exe).map_err(io::Error::other)?,
    };
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .env("SUITE_PROGRESS", "off")
        .spawn()
}

impl Network {
    /// Starts the board and the parties `names` (each with `args_of(name)` after the
    /// executable), introduces them, and connects the driver to the board. With a lab, the
    /// board runs in its hub, each party in its host's namespace, and everybody reaches the
    /// board through its own relay (the lab's delay); the driver is the lab's `driver` host.
    pub fn launch(
        names: &[String],
        args_of: impl Fn(&str) -> Vec<String>,
        mut lab: Option<&mut netshape::Lab>,
    ) -> io::Result<Network> {
        let exe = std::env::current_exe()?;
        let mut members = Vec::new();
        let fail = |members: &mut Vec<Member>, e: io::Error| {
            for m in members.iter_mut() {
                let _ = m.child.kill();
                let _ = m.child.wait();
            }
            e
        };
        // The board first: its address and certificate.
        let mut board_child = spawn(lab.as_deref(), BOARD, &exe, &["board".to_string()])?;
        let intro = introduction(&mut board_child, BOARD);
        let stdin = board_child.stdin.take();
        members.push(Member {
            name: BOARD.into(),
            child: board_child,
            stdin,
        });
        let intro = intro.map_err(|e| fail(&mut members, e))?;
        let (addr, board_cert) = match intro.as_slice() {
            [w, port, cert] if w == "board" => {
                let port: u16 = port.parse().map_err(|_| bad("a bad port"))?;
                let cert = cert_from_hex(cert).ok_or_else(|| bad("a bad certificate"))?;
                (SocketAddr::from(([127, 0, 0, 1], port)), cert)
            }
            _ => return Err(fail(&mut members, bad("the board's introduction"))),
        };
        // Every party: its certificate.
        let mut certs = Vec::new();
        for name in names {
            let mut child = match spawn(lab.as_deref(), name, &exe, &args_of(name)) {
                Ok(c) => c,
                Err(e) => return Err(fail(&mut members, e)),
            };
            let intro = introduction(&mut child, name);
            let stdin = child.stdin.take();
            members.push(Member {
                name: name.clone(),
                child,
                stdin,
            });
            let cert = match intro.as_deref() {
                Ok([w, cert]) if w == "cert" => cert_from_hex(cert),
                _ => None,
            };
            match cert {
                Some(c) => certs.push((name.clone(), cert_to_hex(&c))),
                None => {
                    let e = bad(format!("{name}: no certificate in its introduction"));
                    return Err(fail(&mut members, e));
                }
            }
        }
        let id = Identity::generate()?;
        certs.push(("driver".to_string(), cert_to_hex(&id.cert)));
        // Where each party dials the board: the board itself, or its relay in the lab's hub.
        let mut dial = |name: &str| -> io::Result<SocketAddr> {
            match lab.as_deref_mut() {
                None => Ok(addr),
                Some(lab) => lab.relay(name, addr).map_err(io::Error::other),
            }
        };
        let mut dials = Vec::new();
        for m in &members {
            if m.name != BOARD {
                match dial(&m.name) {
                    Ok(a) => dials.push((m.name.clone(), a)),
                    Err(e) => return Err(fail(&mut members, e)),
                }
            }
        }
        let driver_dial = match dial("driver") {
            Ok(a) => a,
            Err(e) => return Err(fail(&mut members, e)),
        };
        // The board learns who may connect; each party learns where to dial the board.
        let introduce = |members: &mut Vec<Member>| -> io::Result<()> {
            for m in members.iter_mut() {
                let stdin = m.stdin.as_mut().ok_or_else(|| bad("no standard input"))?;
                let body = if m.name == BOARD {
                    encode(&certs)
                } else {
                    let to = dials
                        .iter()
                        .find(|(n, _)| *n == m.name)
                        .map_or(addr, |(_, a)| *a);
                    encode(&(to.to_string(), cert_to_hex(&board_cert)))
                };
                write_frame(stdin, &body)?;
            }
            Ok(())
        };
        if let Err(e) = introduce(&mut members) {
            return Err(fail(&mut members, e));
        }
        let board = match BoardClient::connect("driver", &id, driver_dial, board_cert) {
            Ok(b) => Arc::new(b),
            Err(e) => return Err(fail(&mut members, e)),
        };
        let net = Network {
            members: Arc::new(Mutex::new(members)),
            board,
            over: Arc::new(AtomicBool::new(false)),
        };
        net.watch();
        Ok(net)
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
    {
        let mut out = io::stdout().lock();
        writeln!(out, "cert {}", cert_to_hex(&id.cert))?;
        out.flush()?;
    }
    let rx = watch_stdin(name.to_string());
    let first = rx
        .recv()
        .map_err(|_| bad("the driver closed the pipe before introducing the board"))?;
    let (addr, cert): (String, String) = decode(&first).map_err(|e| bad(e.to_string()))?;
    let addr: SocketAddr = addr.parse().map_err(|_| bad("a bad board address"))?;
    let cert = cert_from_hex(&cert).ok_or_else(|| bad("a bad board certificate"))?;
    let board = Arc::new(BoardClient::connect(name, &id, addr, cert)?);
    Ok(Joined {
        board,
        from_driver: rx,
    })
}

/// The board's process: listens on a loopback port, introduces itself, learns the parties,
/// serves until they are all done (or its standard input closes).
pub fn serve_board() -> io::Result<()> {
    let id = Identity::generate()?;
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    {
        let mut out = io::stdout().lock();
        writeln!(out, "board {port} {}", cert_to_hex(&id.cert))?;
        out.flush()?;
    }
    let rx = watch_stdin(BOARD.to_string());
    let first = rx
        .recv()
        .map_err(|_| bad("the driver closed the pipe before naming the parties"))?;
    let named: Vec<(String, String)> = decode(&first).map_err(|e| bad(e.to_string()))?;
    let parties = named
        .into_iter()
        .map(|(n, c)| cert_from_hex(&c).map(|c| (n, c)))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| bad("a bad party certificate"))?;
    board::serve(listener, &id, parties)?;
    done();
    Ok(())
}
