//! The machine block: `{"hostname", "cpu_model", "logical_cpus", "mem_total_gib", "os",
//! "load_avg_1m"}`, read from `/proc` and `/etc` (Linux; other systems get "unknown" fields).

use serde_json::{json, Value};

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The first `key: value` line of a `/proc` file whose key starts with `key`.
fn proc_field(path: &str, key: &str) -> Option<String> {
    read(path)?
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

fn cpu_model() -> String {
    proc_field("/proc/cpuinfo", "model name").unwrap_or_else(|| "unknown".into())
}

/// Total memory of the machine in GiB (0 when unknown).
pub fn mem_total_gib() -> f64 {
    proc_field("/proc/meminfo", "MemTotal")
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map(|kib| kib / (1024.0 * 1024.0))
        .unwrap_or(0.0)
}

fn os() -> String {
    let pretty = read("/etc/os-release")
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    match read("/proc/sys/kernel/osrelease") {
        Some(k) => format!("{pretty} (kernel {})", k.trim()),
        None => pretty,
    }
}

/// The one-minute load average: how busy the machine was when the block was taken.
pub fn load_avg_1m() -> f64 {
    read("/proc/loadavg")
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

/// The 1, 5 and 15-minute load averages (empty where the system does not say).
pub fn load_averages() -> Vec<f64> {
    read("/proc/loadavg")
        .map(|s| {
            s.split_whitespace()
                .take(3)
                .filter_map(|x| x.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Logical CPUs this process may use.
pub fn logical_cpus() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// The machine block, as every JSON report of the suite carries it.
pub fn machine_json() -> Value {
    let hostname = read("/proc/sys/kernel/hostname")
        .or_else(|| read("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    json!({
        "hostname": hostname,
        "cpu_model": cpu_model(),
        "logical_cpus": logical_cpus(),
        "mem_total_gib": mem_total_gib(),
        "os": os(),
        "load_avg_1m": load_avg_1m(),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn machine_block_has_every_key() {
        let m = super::machine_json();
        for k in [
            "hostname",
            "cpu_model",
            "logical_cpus",
            "mem_total_gib",
            "os",
            "load_avg_1m",
        ] {
            assert!(m.get(k).is_some(), "missing {k}");
        }
        assert!(m["logical_cpus"].as_u64().unwrap() >= 1);
    }
}
