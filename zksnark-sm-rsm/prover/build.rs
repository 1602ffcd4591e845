//! Records the resolved versions of the proving stack (from the workspace's Cargo.lock) so that
//! every report names the exact ark-groth16 that produced its timings.

use std::path::Path;

const CRATES: [&str; 4] = ["ark-groth16", "ark-bn254", "ark-relations", "ark-ec"];

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let lock = Path::new(&manifest).join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = std::fs::read_to_string(&lock).unwrap_or_default();
    for name in CRATES {
        let version = locked_version(&text, name).unwrap_or_else(|| "unknown".to_string());
        let key = name.replace('-', "_").to_uppercase();
        println!("cargo:rustc-env=LOCKED_{key}={version}");
    }
}

/// The version in the `[[package]]` entry named `name`; Cargo.lock lists `name` then `version`.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == wanted {
            let version = lines.next()?.trim().strip_prefix("version = \"")?;
            return Some(version.trim_end_matches('"').to_string());
        }
    }
    None
}
