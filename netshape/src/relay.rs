//! A TCP relay that delays every byte by a fixed time in each direction: the delay half of an
//! emulated link (the rate half is `tc tbf` on the link itself). It forwards whatever it
//! receives, so TLS or any other protocol passes through it unchanged.
//!
//! Each direction of a connection is a reader and a writer thread: the reader stamps every chunk
//! with the time it arrived and queues it, the writer sends it once `delay` has passed since. The
//! chunks keep their order; a close is delayed like data.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

/// The relay as a program: `LISTEN TARGET DELAY_US` (what `netshape-relay` runs, and what a
/// program that carries its own relay runs from a subcommand, [`crate::Lab::use_relay`]).
/// Prints `ready` on standard output once it listens; ends when its standard input closes.
pub fn main_with(args: &[String]) -> ExitCode {
    let parsed = match args {
        [listen, target, delay] => (|| {
            let listen: SocketAddr = listen.parse().ok()?;
            let target: SocketAddr = target.parse().ok()?;
            let delay: u64 = delay.parse().ok()?;
            Some((listen, target, Duration::from_micros(delay)))
        })(),
        _ => None,
    };
    let Some((listen, target, delay)) = parsed else {
        eprintln!("usage: relay LISTEN_ADDR TARGET_ADDR DELAY_US");
        return ExitCode::from(2);
    };
    let listener = match TcpListener::bind(listen) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("relay: cannot listen on {listen}: {e}");
            return ExitCode::from(1);
        }
    };
    println!("ready");
    let _ = io::stdout().flush();
    // The process that started it holds the other end of standard input: when it goes, so do
    // we.
    std::thread::spawn(|| {
        let mut sink = [0u8; 64];
        let mut stdin = io::stdin();
        while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
        std::process::exit(0);
    });
    match serve(listener, target, delay) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("relay: {e}");
            ExitCode::from(1)
        }
    }
}

/// Forwards every connection accepted on `listener` to `target`, each direction delayed by
/// `delay`, until the process ends.
pub fn serve(listener: TcpListener, target: SocketAddr, delay: Duration) -> io::Result<()> {
    for incoming in listener.incoming() {
        let client = incoming?;
        let server = match TcpStream::connect(target) {
            Ok(s) => s,
            Err(_) => {
                let _ = client.shutdown(Shutdown::Both);
                continue;
            }
        };
        client.set_nodelay(true)?;
        server.set_nodelay(true)?;
        pipe(client.try_clone()?, server.try_clone()?, delay);
        pipe(server, client, delay);
    }
    Ok(())
}

/// Copies `from` to `to`, each chunk `delay` after it arrived; a close of `from` closes the
/// writing half of `to` as late.
fn pipe(mut from: TcpStream, mut to: TcpStream, delay: Duration) {
    let (tx, rx) = channel::<(Instant, Option<Vec<u8>>)>();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => {
                    let _ = tx.send((Instant::now(), None));
                    return;
                }
                Ok(n) => {
                    if tx.send((Instant::now(), Some(buf[..n].to_vec()))).is_err() {
                        return;
                    }
                }
            }
        }
    });
    std::thread::spawn(move || {
        for (arrived, chunk) in rx {
            let due = arrived + delay;
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
            match chunk {
                Some(bytes) => {
                    if to.write_all(&bytes).is_err() {
                        let _ = to.shutdown(Shutdown::Both);
                        return;
                    }
                }
                None => {
                    let _ = to.shutdown(Shutdown::Write);
                    return;
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_pass_unchanged_and_late() {
        let echo = TcpListener::bind("127.0.0.1:0").unwrap();
        let echo_addr = echo.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut s, _) = echo.accept().unwrap();
            let mut buf = vec![0u8; 1 << 16];
            loop {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => s.write_all(&buf[..n]).unwrap(),
                }
            }
        });
        let relay = TcpListener::bind("127.0.0.1:0").unwrap();
        let relay_addr = relay.local_addr().unwrap();
        let delay = Duration::from_millis(40);
        std::thread::spawn(move || serve(relay, echo_addr, delay));
        let mut c = TcpStream::connect(relay_addr).unwrap();
        let msg: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let start = Instant::now();
        c.write_all(&msg).unwrap();
        let mut back = vec![0u8; msg.len()];
        c.read_exact(&mut back).unwrap();
        let rtt = start.elapsed();
        assert_eq!(back, msg);
        // There and back: two delays at least.
        assert!(rtt >= 2 * delay, "{rtt:?}");
        c.shutdown(Shutdown::Write).unwrap();
        let mut rest = Vec::new();
        c.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty());
    }
}
