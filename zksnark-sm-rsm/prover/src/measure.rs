//! Phase timing in the style of bash's `time`: wall-clock time plus user and system CPU time of
//! the whole process (all threads, from getrusage), and peak resident memory.

use std::time::Instant;

use serde::Serialize;

#[derive(Clone, Copy, Debug, Serialize)]
pub struct PhaseTimes {
    pub real: f64,
    pub user: f64,
    pub sys: f64,
}

struct Usage {
    user: f64,
    sys: f64,
    max_rss_kib: i64,
}

fn usage() -> Usage {
    // SAFETY: getrusage only writes into the struct we pass; a zeroed rusage is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    assert_eq!(
        rc, 0,
        "getrusage(RUSAGE_SELF) cannot fail with valid arguments"
    );
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Usage {
        user: secs(ru.ru_utime),
        sys: secs(ru.ru_stime),
        max_rss_kib: ru.ru_maxrss,
    }
}

/// Runs `f` and reports its real, user and sys time. RUSAGE_SELF covers every thread of the
/// process, so with a rayon pool user time is the CPU spent across all workers.
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

/// Peak resident set size of this process so far, in MiB: the kernel's high-water mark of this
/// program's own memory (`VmHWM`). getrusage's ru_maxrss is not used where VmHWM exists: Linux
/// carries it across `execve`, so a prover started by a large parent (the node driver) would
/// report the parent's peak instead of its own.
pub fn peak_rss_mib() -> f64 {
    vm_hwm_kib().unwrap_or_else(|| usage().max_rss_kib) as f64 / 1024.0
}

fn vm_hwm_kib() -> Option<i64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_hwm(&status)
}

fn parse_vm_hwm(status: &str) -> Option<i64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vm_hwm_is_read_from_proc_status() {
        assert_eq!(
            parse_vm_hwm("Name:\tx\nVmHWM:\t   12345 kB\nVmRSS:\t 1 kB\n"),
            Some(12345)
        );
        assert_eq!(parse_vm_hwm("Name:\tx\n"), None);
        // This process has touched at least its own code and stack.
        let peak = peak_rss_mib();
        assert!(peak > 0.0 && peak <= usage().max_rss_kib as f64 / 1024.0 + 1.0);
    }
}
