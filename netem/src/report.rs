//! The network as a program's report describes it: one JSON block, the same keys for every
//! program that runs its parties on a netem network.

use serde_json::{json, Value};

use crate::Network;

/// The report's `network` block: the profile, its link, where the parties are (`placement`,
/// which the program words for its own parties) and the delay line's figures (emulated only).
pub fn network_json(net: &Network, placement: &str) -> Value {
    let profile = net.profile();
    let link = profile.link;
    json!({
        "profile": profile.name,
        "spec": profile.spec(),
        "emulated": net.is_emulated(),
        "rtt_s": link.map(|l| l.rtt.as_secs_f64()),
        "rate_bits_per_second": link.and_then(|l| l.rate).map(|r| r.bits_per_second()),
        "placement": placement,
        "delay_line": net.delay_stats().map(|d| json!({
            "packets": d.packets,
            "bytes": d.bytes,
            "cpu_s": d.cpu.as_secs_f64(),
            "late_mean_s": d.late_mean.as_secs_f64(),
            "late_max_s": d.late_max.as_secs_f64(),
            "realtime": d.realtime,
        })),
    })
}
