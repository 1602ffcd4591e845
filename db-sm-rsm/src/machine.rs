//! The machine block every JSON output carries (interfaces.md): where a run happened, so that
//! timings from different hosts are never compared blindly.

use serde_json::{json, Value};

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn cpu_model() -> String {
    read("/proc/cpuinfo")
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn mem_total_gib() -> f64 {
    read("/proc/meminfo")
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map(|kb| kb / (1024.0 * 1024.0))
        .unwrap_or(0.0)
}

fn os() -> String {
    let pretty = read("/etc/os-release")
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("PRETTY_NAME="))
                .map(|l| l["PRETTY_NAME=".len()..].trim_matches('"').to_string())
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    match read("/proc/sys/kernel/osrelease") {
        Some(k) => format!("{pretty} (kernel {})", k.trim()),
        None => pretty,
    }
}

fn load_avg_1m() -> f64 {
    read("/proc/loadavg")
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(0.0)
}

/// `{"hostname", "cpu_model", "logical_cpus", "mem_total_gib", "os", "load_avg_1m"}`.
pub fn machine_json() -> Value {
    let hostname = read("/proc/sys/kernel/hostname")
        .or_else(|| read("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    json!({
        "hostname": hostname,
        "cpu_model": cpu_model(),
        "logical_cpus": cpus,
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
    }
}
