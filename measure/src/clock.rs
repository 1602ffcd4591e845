//! CPU time and peak memory of this process. On a shared machine, CPU time is disturbed far less
//! than wall time by other tenants; in a T-thread run, CPU time over wall time is a step's
//! parallelism, a figure from one run that the machine's speed drift cannot bend.

#![allow(unsafe_code)]

use std::time::Instant;

use serde::Serialize;

/// User and system CPU time of the whole process (every thread), and its peak resident memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Usage {
    /// User CPU seconds.
    pub user: f64,
    /// System CPU seconds.
    pub sys: f64,
    /// Peak resident set size so far, in MiB.
    pub peak_rss_mib: f64,
}

/// `getrusage(RUSAGE_SELF)`: CPU time of every thread of the process, and peak RSS.
pub fn usage() -> Usage {
    // The process's own high-water mark where Linux gives it; else ru_maxrss (in KiB), which
    // Linux carries across execve: a program started by a large parent (the Node driver, a
    // benchmark driver) would report the parent's peak instead of its own.
    rusage(libc::RUSAGE_SELF, |max_kib| vm_hwm_kib().unwrap_or(max_kib))
}

/// `getrusage(RUSAGE_CHILDREN)`: CPU time of the children this process has waited for (party
/// processes, nodes, a prover it started), and the largest peak RSS among them. Short-lived
/// children are counted exactly, which a sampling job scheduler misses.
pub fn children_usage() -> Usage {
    rusage(libc::RUSAGE_CHILDREN, |max_kib| max_kib)
}

/// [`getrusage`] of `who` as a [`Usage`], its peak in KiB being `peak_kib(ru_maxrss)`; NaN
/// figures where the call fails.
fn rusage(who: libc::c_int, peak_kib: impl FnOnce(f64) -> f64) -> Usage {
    let Some(ru) = getrusage(who) else {
        return Usage {
            user: f64::NAN,
            sys: f64::NAN,
            peak_rss_mib: f64::NAN,
        };
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Usage {
        user: secs(ru.ru_utime),
        sys: secs(ru.ru_stime),
        peak_rss_mib: peak_kib(ru.ru_maxrss as f64) / 1024.0,
    }
}

fn getrusage(who: libc::c_int) -> Option<libc::rusage> {
    // SAFETY: getrusage only writes into the struct we pass; an all-zero rusage is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage and `who` one of the constants the kernel knows.
    let rc = unsafe { libc::getrusage(who, &mut ru) };
    (rc == 0).then_some(ru)
}

/// Starts a new peak-memory reading: returns freed heap memory to the system (glibc keeps it
/// otherwise, and the next step's peak would include what the previous one left), then resets
/// the process's peak-RSS mark to its current RSS (Linux: `/proc/self/clear_refs`), so that the
/// next [`usage`] or [`peak_rss_mib`] is the peak of what follows. Returns the RSS at the reset
/// in MiB; `None` where the system offers no reset (the peak then stays the process's own).
pub fn reset_peak_rss() -> Option<f64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free pages of the allocator's arenas; no pointer of
    // ours is touched.
    unsafe {
        libc::malloc_trim(0);
    }
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    current_rss_mib()
}

/// The process's resident memory now, in MiB (`VmRSS` of /proc/self/status).
pub fn current_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_status_kib(&status, "VmRSS:").map(|kib| kib / 1024.0)
}

/// A `<key> <n> kB` line of /proc/self/status, in KiB.
fn parse_status_kib(status: &str, key: &str) -> Option<f64> {
    let line = status.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn vm_hwm_kib() -> Option<f64> {
    parse_vm_hwm(&std::fs::read_to_string("/proc/self/status").ok()?)
}

/// `VmHWM` (KiB) from the text of /proc/self/status.
fn parse_vm_hwm(status: &str) -> Option<f64> {
    parse_status_kib(status, "VmHWM:")
}

/// CPU time of this process, all threads, with nanosecond resolution (`CLOCK_PROCESS_CPUTIME_ID`;
/// getrusage ticks are too coarse for steps of a few milliseconds).
pub fn process_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant the kernel knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return f64::NAN;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Peak resident set size of this process so far, in MiB.
pub fn peak_rss_mib() -> f64 {
    usage().peak_rss_mib
}

/// Wall, user and system time of one phase, in the style of bash's `time`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PhaseTimes {
    /// Wall-clock seconds.
    pub real: f64,
    /// User CPU seconds, all threads.
    pub user: f64,
    /// System CPU seconds, all threads.
    pub sys: f64,
}

impl PhaseTimes {
    /// User plus system time.
    pub fn cpu(&self) -> f64 {
        self.user + self.sys
    }
}

/// Runs `f` and reports its wall, user and system time.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, PhaseTimes) {
    let before = usage();
    let start = Instant::now();
    let out = f();
    let real = start.elapsed().as_secs_f64();
    let after = usage();
    (
        out,
        PhaseTimes {
            real,
            user: after.user - before.user,
            sys: after.sys - before.sys,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_grows_with_work_and_stays_below_wall_on_one_thread() {
        let (x, t) = timed(|| (0..20_000_000u64).fold(0u64, |a, b| a.wrapping_mul(31) ^ b));
        assert_ne!(x, 1);
        assert!(t.real > 0.0 && t.cpu() > 0.0);
        // One thread cannot use more CPU than wall time (allow the clocks' tick).
        assert!(t.cpu() <= t.real + 0.02, "{t:?}");
        let a = process_cpu_seconds();
        let _ = timed(|| (0..5_000_000u64).sum::<u64>());
        assert!(process_cpu_seconds() >= a);
        assert!(peak_rss_mib() > 0.0);
    }

    #[test]
    fn a_reset_starts_a_new_peak_below_an_earlier_one() {
        let Some(before) = reset_peak_rss() else {
            return; // no reset on this system: nothing to show
        };
        // 256 MiB touched, then freed: the peak holds it until the next reset.
        let big = vec![1u8; 256 << 20];
        std::hint::black_box(&big);
        drop(big);
        let with_big = peak_rss_mib();
        assert!(with_big >= before + 200.0, "{before} -> {with_big}");
        let after = reset_peak_rss().expect("it reset once");
        assert!(
            peak_rss_mib() < with_big - 200.0,
            "{after}: {}",
            peak_rss_mib()
        );
    }
}
