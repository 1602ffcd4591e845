//! Measurements of a network from inside it: the round-trip time between two parties (a
//! one-byte TCP ping-pong) and the throughput of a bulk TCP transfer. The tests, the benchmark
//! and `netem-check` use these, so that what they report is measured the same way.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::network::Network;
use crate::sys;

/// How long a probe waits on a silent socket before it gives up.
const PATIENCE: Duration = Duration::from_secs(60);

/// Starts a listener inside party `at` and hands its port back; `serve` then runs on the
/// accepted connection, in the party's namespace.
fn serve<T: Send + 'static>(
    net: &Network,
    at: usize,
    serve: impl FnOnce(TcpStream) -> io::Result<T> + Send + 'static,
) -> io::Result<(u16, std::thread::JoinHandle<io::Result<T>>)> {
    let ip = net.ip(at);
    let (port_tx, port_rx) = mpsc::channel();
    let handle = net.thread(at, move || {
        let listener = TcpListener::bind((ip, 0))?;
        let _ = port_tx.send(listener.local_addr()?.port());
        let (stream, _) = listener.accept()?;
        stream.set_read_timeout(Some(PATIENCE))?;
        serve(stream)
    })?;
    match port_rx.recv() {
        Ok(port) => Ok((port, handle)),
        Err(_) => Err(handle
            .join()
            .map_err(|_| io::Error::other("listener thread panicked"))?
            .err()
            .unwrap_or_else(|| io::Error::other("listener gave no port"))),
    }
}

fn joined<T>(h: std::thread::JoinHandle<io::Result<T>>) -> io::Result<T> {
    h.join()
        .map_err(|_| io::Error::other("probe thread panicked"))?
}

/// Round-trip times from party `from` to party `to`: `rounds` one-byte exchanges over one TCP
/// connection (Nagle off), after two exchanges that are not counted. Sorted, shortest first.
pub fn round_trips(
    net: &Network,
    from: usize,
    to: usize,
    rounds: usize,
) -> io::Result<Vec<Duration>> {
    spaced_round_trips(net, from, to, rounds, Duration::ZERO)
}

/// [`round_trips`] with the client idle for `gap` before each exchange: both ends then wake
/// from sleep for every packet, as they do when the delay keeps them waiting, so that this
/// measures the machine's own wake-up latency where the network adds none.
pub fn spaced_round_trips(
    net: &Network,
    from: usize,
    to: usize,
    rounds: usize,
    gap: Duration,
) -> io::Result<Vec<Duration>> {
    let (port, server) = serve(net, to, |mut s| {
        s.set_nodelay(true)?;
        let mut b = [0u8; 1];
        while s.read(&mut b)? == 1 {
            s.write_all(&b)?;
        }
        Ok(())
    })?;
    let target = net.addr(to, port);
    let client = net.thread(from, move || {
        let mut s = TcpStream::connect_timeout(&target, Duration::from_secs(10))?;
        s.set_read_timeout(Some(PATIENCE))?;
        s.set_nodelay(true)?;
        let mut b = [7u8; 1];
        let mut times = Vec::with_capacity(rounds);
        for round in 0..rounds + 2 {
            if !gap.is_zero() {
                std::thread::sleep(gap);
            }
            let t = Instant::now();
            s.write_all(&b)?;
            s.read_exact(&mut b)?;
            if round >= 2 {
                times.push(t.elapsed());
            }
        }
        Ok::<_, io::Error>(times)
    })?;
    let mut times = joined(client)?;
    joined(server)?;
    times.sort();
    Ok(times)
}

/// The median of sorted durations.
pub fn median(sorted: &[Duration]) -> Duration {
    match sorted.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
    }
}

/// One bulk transfer.
#[derive(Clone, Debug)]
pub struct Bulk {
    /// The bytes sent (and received).
    pub bytes: u64,
    /// From the receiver's accept to its last byte.
    pub elapsed: Duration,
    /// Bits per second over the second half of the bytes, after TCP's start-up.
    pub steady_bits_per_second: f64,
    /// Bits per second over the whole transfer.
    pub mean_bits_per_second: f64,
    /// CPU time of the sending thread.
    pub sender_cpu: Duration,
    /// CPU time of the receiving thread.
    pub receiver_cpu: Duration,
}

/// Sends `bytes` bytes from party `from` to party `to` over one TCP connection and times their
/// arrival at the receiver.
pub fn bulk(net: &Network, from: usize, to: usize, bytes: u64) -> io::Result<Bulk> {
    let (port, receiver) = serve(net, to, move |mut s| {
        let start = Instant::now();
        let cpu0 = sys::thread_cpu_time();
        let mut buf = vec![0u8; 1 << 18];
        let (mut got, mut half_at) = (0u64, None);
        while got < bytes {
            let n = s.read(&mut buf)?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the transfer ended after {got} of {bytes} bytes"),
                ));
            }
            got += n as u64;
            if half_at.is_none() && got >= bytes / 2 {
                half_at = Some((Instant::now(), got));
            }
        }
        let end = Instant::now();
        Ok((
            start,
            half_at.expect("half of the bytes"),
            end,
            sys::thread_cpu_time() - cpu0,
        ))
    })?;
    let target = net.addr(to, port);
    let sender = net.thread(from, move || {
        let cpu0 = sys::thread_cpu_time();
        let mut s = TcpStream::connect_timeout(&target, Duration::from_secs(10))?;
        s.set_write_timeout(Some(PATIENCE))?;
        let chunk: Vec<u8> = (0..1u32 << 20).map(|i| (i * 31 + 7) as u8).collect();
        let mut left = bytes;
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            s.write_all(&chunk[..n])?;
            left -= n as u64;
        }
        s.shutdown(std::net::Shutdown::Write)?;
        Ok::<_, io::Error>(sys::thread_cpu_time() - cpu0)
    })?;
    let sender_cpu = joined(sender)?;
    let (start, (half_time, half_bytes), end, receiver_cpu) = joined(receiver)?;
    let elapsed = end - start;
    let tail = (end - half_time).as_secs_f64().max(1e-9);
    Ok(Bulk {
        bytes,
        elapsed,
        steady_bits_per_second: (bytes - half_bytes) as f64 * 8.0 / tail,
        mean_bits_per_second: bytes as f64 * 8.0 / elapsed.as_secs_f64().max(1e-9),
        sender_cpu,
        receiver_cpu,
    })
}
