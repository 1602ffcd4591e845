//! The delay line: a thread in the hub namespace that holds every forwarded packet for the
//! one-way delay, then releases it, in arrival order.
//!
//! The kernel here has no qdisc that delays (no `netem`, no `fq` with departure times), so the
//! hub's firewall sends each forwarded packet to a netfilter queue, and this thread decides when
//! it goes on: the kernel keeps the packet, the thread learns only its id and length, notes the
//! time it heard of it, and after the one-way delay sends one verdict that releases it and every
//! earlier packet. The delay is constant, so release order is arrival order: nothing is
//! reordered. Packets stay whole (large TCP segments are queued unsplit), so the cost is per
//! packet, not per byte, and the rate is set by the links' token buckets, not by this thread.
//!
//! The delay counts from the kernel's receipt of the packet (the queue reports it once receive
//! time stamps are on, which the thread asks for), so the thread's own lateness in hearing of a
//! packet is not added. What it adds is how late it wakes for each release: a thread's wake-up
//! latency, which the real-time policy keeps small on a loaded machine. The thread measures both
//! ([`DelayStats::hearing_mean`], [`DelayStats::late_mean`] and their maxima).

use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::nfqueue::{Queue, Queued};
use crate::sys;

/// The queue number (queues are per namespace: the hub's is ours alone).
pub const QUEUE: u16 = 0;
/// How many packets the kernel holds for us at most; beyond, it drops (as a full router would).
const MAX_QUEUED: u32 = 1 << 16;
/// The real-time priority of the thread (low: above every normal task, below the kernel's).
const PRIORITY: i32 = 10;
/// The longest the thread sleeps without looking at its stop flag.
const TICK: Duration = Duration::from_millis(20);

#[derive(Default)]
struct Shared {
    stop: AtomicBool,
    packets: AtomicU64,
    bytes: AtomicU64,
    cpu_ns: AtomicU64,
    overruns: AtomicU64,
    late_ns_sum: AtomicU64,
    late_ns_max: AtomicU64,
    heard: AtomicU64,
    stamped: AtomicU64,
    hearing_ns_sum: AtomicU64,
    hearing_ns_max: AtomicU64,
    realtime: AtomicBool,
    failure: Mutex<Option<String>>,
}

/// What the delay line has done so far.
#[derive(Clone, Debug, PartialEq)]
pub struct DelayStats {
    /// Packets released (each large TCP segment counts once).
    pub packets: u64,
    /// Their bytes (IP packets, headers included).
    pub bytes: u64,
    /// The thread's CPU time, user and system. System time includes the kernel's forwarding of
    /// each released packet to the next link, which runs in the verdict's system call.
    pub cpu: Duration,
    /// How long, on average, after the kernel received a packet the thread heard of it (zero
    /// where the kernel gave no time stamp; the due time counts from the receipt, so this part
    /// is not added to the delay unless it exceeds the delay itself).
    pub hearing_mean: Duration,
    /// The longest such wait.
    pub hearing_max: Duration,
    /// The share of packets that carried the kernel's receipt time.
    pub stamped: f64,
    /// How late, on average, the thread released a packet after its due time: what the delay
    /// line adds to each one-way delay.
    pub late_mean: Duration,
    /// The latest release after the due time.
    pub late_max: Duration,
    /// Times the socket lost notices because the thread fell behind; such packets are released
    /// with the next later packet, so they wait longer, never shorter.
    pub overruns: u64,
    /// Whether the thread runs under the real-time policy (it tries; it needs CAP_SYS_NICE).
    pub realtime: bool,
    /// Why the thread stopped, if it failed.
    pub failure: Option<String>,
}

/// The running delay line; stopping it (or dropping it) joins the thread.
pub struct DelayLine {
    shared: Arc<Shared>,
    handle: Option<JoinHandle<()>>,
}

impl DelayLine {
    /// Starts the thread in the namespace `hub`, binds the queue there and returns once the
    /// kernel has accepted the binding (so that a firewall rule sending packets to the queue can
    /// follow at once).
    pub fn start(hub: &OwnedFd, one_way: Duration) -> io::Result<DelayLine> {
        let hub = hub.try_clone()?;
        let shared = Arc::new(Shared::default());
        let (ready_tx, ready_rx) = mpsc::channel();
        let thread_shared = shared.clone();
        let handle = std::thread::Builder::new()
            .name("netem-delay".into())
            .spawn(move || {
                let setup = (|| {
                    sys::setns_net(hub.as_fd())?;
                    drop(hub);
                    let realtime = sys::set_realtime(PRIORITY).is_ok();
                    // Real-time threads have no slack; a normal one would fire up to 50 µs late.
                    let _ = sys::set_timer_slack(1);
                    Ok::<_, io::Error>((Queue::bind(QUEUE, MAX_QUEUED)?, realtime))
                })();
                match setup {
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                    }
                    Ok((queue, realtime)) => {
                        thread_shared.realtime.store(realtime, Ordering::Relaxed);
                        let _ = ready_tx.send(Ok(()));
                        if let Err(e) = run(queue, one_way, &thread_shared) {
                            eprintln!("netem: the delay line stopped: {e}");
                            *thread_shared.failure.lock().unwrap() = Some(e.to_string());
                        }
                    }
                }
            })?;
        let line = DelayLine {
            shared,
            handle: Some(handle),
        };
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(line),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(io::Error::other(
                "the delay line's thread ended during set-up",
            )),
        }
    }

    /// What the delay line has done so far.
    pub fn stats(&self) -> DelayStats {
        stats_of(&self.shared)
    }

    /// A handle that reads the delay line's figures without borrowing it (for a program that
    /// must take the line's CPU time out of its own while the network lives).
    pub fn meter(&self) -> DelayMeter {
        DelayMeter {
            shared: self.shared.clone(),
        }
    }

    /// Stops the thread and waits for it (at most one tick).
    pub fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for DelayLine {
    fn drop(&mut self) {
        self.stop();
    }
}

fn stats_of(s: &Shared) -> DelayStats {
    let packets = s.packets.load(Ordering::Relaxed);
    let late_sum = s.late_ns_sum.load(Ordering::Relaxed);
    let heard = s.heard.load(Ordering::Relaxed);
    DelayStats {
        hearing_mean: Duration::from_nanos(
            s.hearing_ns_sum
                .load(Ordering::Relaxed)
                .checked_div(heard)
                .unwrap_or(0),
        ),
        hearing_max: Duration::from_nanos(s.hearing_ns_max.load(Ordering::Relaxed)),
        stamped: if heard == 0 {
            0.0
        } else {
            s.stamped.load(Ordering::Relaxed) as f64 / heard as f64
        },
        packets,
        bytes: s.bytes.load(Ordering::Relaxed),
        cpu: Duration::from_nanos(s.cpu_ns.load(Ordering::Relaxed)),
        late_mean: Duration::from_nanos(late_sum.checked_div(packets).unwrap_or(0)),
        late_max: Duration::from_nanos(s.late_ns_max.load(Ordering::Relaxed)),
        overruns: s.overruns.load(Ordering::Relaxed),
        realtime: s.realtime.load(Ordering::Relaxed),
        failure: s.failure.lock().unwrap().clone(),
    }
}

/// A reading handle on a running (or stopped) delay line: its figures as [`DelayLine::stats`]
/// gives them. After the line stops, it keeps the last figures.
#[derive(Clone)]
pub struct DelayMeter {
    shared: Arc<Shared>,
}

impl DelayMeter {
    /// What the delay line has done so far.
    pub fn stats(&self) -> DelayStats {
        stats_of(&self.shared)
    }

    /// The delay line thread's CPU time so far (updated at least once a tick, 20 ms).
    pub fn cpu(&self) -> Duration {
        Duration::from_nanos(self.shared.cpu_ns.load(Ordering::Relaxed))
    }
}

impl std::fmt::Debug for DelayMeter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DelayMeter")
            .field("cpu", &self.cpu())
            .finish()
    }
}

fn run(mut queue: Queue, one_way: Duration, shared: &Shared) -> io::Result<()> {
    let mut waiting: VecDeque<(Instant, u32, u32)> = VecDeque::new();
    let mut fresh: Vec<Queued> = Vec::new();
    let (mut heard, mut stamped, mut hearing_sum, mut hearing_max) = (0u64, 0u64, 0u64, 0u64);
    let (mut packets, mut bytes, mut late_sum, mut late_max) = (0u64, 0u64, 0u64, 0u64);
    while !shared.stop.load(Ordering::Relaxed) {
        let wait = waiting.front().map_or(TICK, |&(due, _, _)| {
            due.saturating_duration_since(Instant::now()).min(TICK)
        });
        if !wait.is_zero() {
            sys::wait_readable(queue.fd(), wait)?;
        }
        fresh.clear();
        let overruns = queue.drain(&mut fresh)?;
        if overruns > 0 {
            shared.overruns.fetch_add(overruns, Ordering::Relaxed);
        }
        let now = Instant::now();
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        for p in &fresh {
            // The delay counts from the kernel's receipt of the packet where it says when.
            let hearing = p.stamp.map_or(Duration::ZERO, |s| wall.saturating_sub(s));
            let hearing_ns = hearing.as_nanos() as u64;
            heard += 1;
            hearing_sum += hearing_ns;
            hearing_max = hearing_max.max(hearing_ns);
            stamped += u64::from(p.stamp.is_some());
            waiting.push_back((now + one_way.saturating_sub(hearing), p.id, p.len));
        }
        if !fresh.is_empty() {
            shared.heard.store(heard, Ordering::Relaxed);
            shared.stamped.store(stamped, Ordering::Relaxed);
            shared.hearing_ns_sum.store(hearing_sum, Ordering::Relaxed);
            shared.hearing_ns_max.store(hearing_max, Ordering::Relaxed);
        }
        let now = Instant::now();
        let mut release = None;
        while let Some(&(due, id, len)) = waiting.front() {
            if due > now {
                break;
            }
            let late = (now - due).as_nanos() as u64;
            late_sum += late;
            late_max = late_max.max(late);
            packets += 1;
            bytes += u64::from(len);
            release = Some(id);
            waiting.pop_front();
        }
        if let Some(id) = release {
            queue.accept_through(id)?;
            shared.packets.store(packets, Ordering::Relaxed);
            shared.late_ns_sum.store(late_sum, Ordering::Relaxed);
            shared.late_ns_max.store(late_max, Ordering::Relaxed);
            shared.bytes.store(bytes, Ordering::Relaxed);
        }
        shared
            .cpu_ns
            .store(sys::thread_cpu_time().as_nanos() as u64, Ordering::Relaxed);
    }
    Ok(())
}
