//! What creating an emulated network needs, checked before any work: the rights (CAP_SYS_ADMIN
//! to make and enter network namespaces, CAP_NET_ADMIN to configure them) and the programs (`ip`
//! always, `tc` for a rate, `iptables` for a delay). A missing piece is an [`Error::Refused`]:
//! one line naming everything that is missing.

use std::path::{Path, PathBuf};

use crate::profile::Profile;
use crate::sys;
use crate::Error;

/// The programs the network is configured with. [`Tools::discover`] finds them on `PATH` and in
/// the system directories (`/usr/sbin` is not on every user's `PATH`); tests and unusual
/// installations can point at others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tools {
    /// `ip` from iproute2: namespaces' links, addresses and routes.
    pub ip: PathBuf,
    /// `tc` from iproute2: the rate (a token bucket filter on each link).
    pub tc: PathBuf,
    /// `iptables`: sends forwarded packets through the delay line.
    pub iptables: PathBuf,
}

impl Tools {
    /// Finds each program on `PATH`, then in `/usr/sbin`, `/sbin`, `/usr/bin`, `/bin`. A program
    /// found nowhere keeps its bare name, which [`check`] reports as missing.
    pub fn discover() -> Tools {
        Tools {
            ip: find_program("ip"),
            tc: find_program("tc"),
            iptables: find_program("iptables"),
        }
    }
}

fn find_program(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map(PathBuf::from));
    for dir in dirs {
        let candidate = dir.join(name);
        if is_executable(&candidate) {
            return candidate;
        }
    }
    PathBuf::from(name)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

const CAP_NET_ADMIN: u32 = 12;
const CAP_SYS_ADMIN: u32 = 21;

/// The calling process's effective capability set, from `/proc/self/status`.
fn effective_capabilities() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("CapEff:"))?;
    u64::from_str_radix(line["CapEff:".len()..].trim(), 16).ok()
}

/// Checks, without changing anything, that `profile` can be created here with `tools`. The
/// `none` profile always can. The trial at the end makes one namespace on a short-lived thread
/// and drops it at once: capabilities can be present while a container's seccomp policy still
/// forbids namespaces.
pub fn check(profile: &Profile, tools: &Tools) -> Result<(), Error> {
    let Some(link) = profile.link else {
        return Ok(());
    };
    let mut missing = Vec::new();
    let caps = effective_capabilities().unwrap_or(0);
    let mut rights = true;
    for (bit, name) in [
        (CAP_SYS_ADMIN, "CAP_SYS_ADMIN"),
        (CAP_NET_ADMIN, "CAP_NET_ADMIN"),
    ] {
        if caps & (1 << bit) == 0 {
            missing.push(format!("{name} (run as root)"));
            rights = false;
        }
    }
    let mut need = |path: &Path, package: &str| {
        if !is_executable(path) {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let place = if path.components().count() > 1 {
                format!("at {}", path.display())
            } else {
                "on PATH".into()
            };
            missing.push(format!("`{name}` {place} (package {package})"));
        }
    };
    need(&tools.ip, "iproute2");
    if link.rate.is_some() {
        need(&tools.tc, "iproute2");
    }
    if !link.rtt.is_zero() {
        need(&tools.iptables, "iptables");
    }
    if rights {
        let trial = std::thread::spawn(sys::unshare_net).join();
        match trial {
            Ok(Ok(())) => {}
            Ok(Err(e)) => missing.push(format!("the right to create network namespaces ({e})")),
            Err(_) => missing.push("the right to create network namespaces".into()),
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(Error::Refused {
            profile: profile.name.clone(),
            missing,
        })
    }
}
