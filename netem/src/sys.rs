//! The crate's only `unsafe` code: thin wrappers over the Linux system calls that `std` does not
//! offer. Each wrapper passes plain integers or pointers to locals that outlive the call, checks
//! the return value and turns it into an `io::Result`; nothing here keeps a pointer past the call.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Moves the calling thread into a new, empty network namespace (`unshare(CLONE_NEWNET)`).
/// The namespace is per thread on Linux, so the rest of the process is untouched.
pub fn unshare_net() -> io::Result<()> {
    // SAFETY: unshare takes a flag word and touches no memory of ours.
    check(unsafe { libc::unshare(libc::CLONE_NEWNET) }).map(drop)
}

/// Moves the calling thread into the network namespace `fd` refers to (`setns`).
pub fn setns_net(fd: BorrowedFd<'_>) -> io::Result<()> {
    setns_net_raw(fd.as_raw_fd())
}

/// [`setns_net`] on a raw descriptor. It makes one system call and allocates nothing, so it is
/// async-signal-safe and may run between `fork` and `exec` (in `Command::pre_exec`).
pub fn setns_net_raw(fd: RawFd) -> io::Result<()> {
    // SAFETY: setns takes a descriptor and a flag word and touches no memory of ours; an invalid
    // descriptor is reported as EBADF/EINVAL.
    if unsafe { libc::setns(fd, libc::CLONE_NEWNET) } < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// A netlink socket of `protocol`, non-blocking and close-on-exec, bound to a port id the kernel
/// picks.
pub fn netlink_socket(protocol: libc::c_int) -> io::Result<OwnedFd> {
    // SAFETY: socket takes integers; on success we own the new descriptor exactly once.
    let fd = check(unsafe {
        libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_RAW | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK,
            protocol,
        )
    })?;
    // SAFETY: `fd` was just returned by socket and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: sockaddr_nl is plain old data, for which all-zero bytes are a valid value.
    let mut addr: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
    addr.nl_family = libc::AF_NETLINK as libc::sa_family_t;
    // SAFETY: `addr` is a valid sockaddr_nl on our stack for the duration of the call and the
    // length passed is its size.
    check(unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&addr as *const libc::sockaddr_nl).cast(),
            std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
        )
    })?;
    Ok(fd)
}

/// Sets the socket's receive buffer to `bytes`, above the `rmem_max` limit where the caller has
/// CAP_NET_ADMIN (SO_RCVBUFFORCE), else up to that limit (SO_RCVBUF).
pub fn set_receive_buffer(fd: BorrowedFd<'_>, bytes: usize) -> io::Result<()> {
    let value = bytes.min(i32::MAX as usize) as libc::c_int;
    let set = |option| {
        // SAFETY: `value` is a c_int on our stack for the duration of the call and the length
        // passed is its size.
        check(unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                option,
                (&value as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        })
    };
    set(libc::SO_RCVBUFFORCE)
        .or_else(|_| set(libc::SO_RCVBUF))
        .map(drop)
}

/// Asks the kernel to time-stamp received packets (SO_TIMESTAMP). On any socket this turns on
/// the host's receive time stamps, which the netfilter queue then reports for each packet.
pub fn enable_timestamps(fd: BorrowedFd<'_>) -> io::Result<()> {
    let on: libc::c_int = 1;
    // SAFETY: `on` is a c_int on our stack for the duration of the call and the length passed is
    // its size.
    check(unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMP,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    })
    .map(drop)
}

/// Waits until `fd` is readable or `timeout` has passed (`ppoll`, nanosecond resolution:
/// `poll`'s millisecond timeout is too coarse for a 0.1 ms one-way delay). Returns whether the
/// descriptor is readable; an interrupted wait counts as a timeout.
pub fn wait_readable(fd: BorrowedFd<'_>, timeout: Duration) -> io::Result<bool> {
    let mut pollfd = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ts = libc::timespec {
        tv_sec: timeout.as_secs().min(i64::MAX as u64) as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `pollfd` and `ts` live on our stack for the duration of the call; the count is 1
    // and a null signal mask leaves the mask unchanged.
    match check(unsafe { libc::ppoll(&mut pollfd, 1, &ts, std::ptr::null()) }) {
        Ok(n) => Ok(n > 0),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(false),
        Err(e) => Err(e),
    }
}

/// Gives the calling thread the real-time policy SCHED_FIFO at `priority`, so that it wakes on
/// time whatever load the machine carries. The kernel's real-time throttling (by default 5% of
/// each second left to other tasks) bounds what a runaway thread could take.
pub fn set_realtime(priority: i32) -> io::Result<()> {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: `param` lives on our stack for the duration of the call; pid 0 is the calling
    // thread.
    check(unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) }).map(drop)
}

/// Sets the calling thread's timer slack (how late the kernel may fire its timers to batch
/// wake-ups; 50 µs by default, half of the LAN profile's one-way delay).
pub fn set_timer_slack(nanos: u64) -> io::Result<()> {
    // SAFETY: PR_SET_TIMERSLACK takes an integer argument and touches no memory of ours.
    check(unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, nanos as libc::c_ulong, 0, 0, 0) })
        .map(drop)
}

/// The CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID), user and system.
pub fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` lives on our stack for the duration of the call.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } < 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Sends SIGKILL to process `pid`. Returns false if it no longer exists.
pub fn kill_process(pid: i32) -> bool {
    // SAFETY: kill takes integers and touches no memory of ours.
    unsafe { libc::kill(pid, libc::SIGKILL) == 0 }
}

/// Sends SIGSTOP to process `pid` (it stops where it is, its sockets still open, until SIGCONT
/// or SIGKILL). Returns false if it no longer exists. For fault tests.
pub fn stop_process(pid: i32) -> bool {
    // SAFETY: kill takes integers and touches no memory of ours.
    unsafe { libc::kill(pid, libc::SIGSTOP) == 0 }
}
