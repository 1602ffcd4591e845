//! The lower bound of a run's time: the operations counted in every timer
//! ([`crate::primitives::counters`]) times their unit costs, from a calibration file written by
//! `cargo bench -p db-sm-rsm --bench ops`, optionally scaled by the machine's drift since the
//! calibration ([`crate::measurement::probe`]).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::{Error, Result};

/// Unit costs (seconds) per operation class for one curve, from a calibration file.
#[derive(Clone, Debug, Default)]
pub struct Calibration {
    /// The file the unit costs came from.
    pub path: String,
    /// Seconds per operation, by class (measured or derived).
    pub unit_s: BTreeMap<String, f64>,
}

static CALIBRATION: OnceLock<Calibration> = OnceLock::new();

/// Installs the calibration used by [`Calibration::lower_bound`] (once per process).
pub fn set_calibration(c: Calibration) {
    let _ = CALIBRATION.set(c);
}

/// The calibration installed by [`set_calibration`], if any.
pub fn calibration() -> Option<&'static Calibration> {
    CALIBRATION.get()
}

impl Calibration {
    /// Reads the bench's calibration file (`[{"op", "curve", "ns", ...}]`, CPU ns per call) and
    /// derives a unit cost for every class of [`crate::primitives::counters::OPS`] on `curve`.
    pub fn load(path: &str, curve: &str) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Input(format!("calibration file {path}: {e}")))?;
        let rows: Vec<serde_json::Value> = serde_json::from_str(&text)
            .map_err(|e| Error::Input(format!("calibration file {path}: {e}")))?;
        let mut raw: BTreeMap<String, f64> = BTreeMap::new();
        for r in &rows {
            let (Some(op), Some(ns)) = (r["op"].as_str(), r["ns"].as_f64()) else {
                return Err(Error::Input(format!(
                    "calibration file {path}: a row without op/ns"
                )));
            };
            match r["curve"].as_str() {
                Some(c) if c != curve => continue,
                _ => {}
            }
            raw.insert(op.to_string(), ns * 1e-9);
        }
        if raw.is_empty() {
            return Err(Error::Input(format!(
                "calibration file {path}: no operation for curve {curve}"
            )));
        }
        Ok(Calibration {
            path: path.to_string(),
            unit_s: derive_units(&raw),
        })
    }

    /// Σ count × unit cost over the classes that have a unit cost; None if some counted class
    /// has none (then the bound would silently omit work).
    pub fn lower_bound(&self, ops: &BTreeMap<String, u64>) -> (f64, Vec<String>) {
        self.lower_bound_scaled(ops, |_| 1.0)
    }

    /// [`Self::lower_bound`] with each class's unit cost multiplied by `scale(class)` (the
    /// machine's drift since calibration, per [`family`]).
    pub fn lower_bound_scaled(
        &self,
        ops: &BTreeMap<String, u64>,
        scale: impl Fn(&str) -> f64,
    ) -> (f64, Vec<String>) {
        let mut sum = 0.0;
        let mut missing = Vec::new();
        for (op, k) in ops {
            if op == "MSM_calls" {
                continue;
            }
            match self.unit_s.get(op) {
                Some(u) => sum += *k as f64 * u * scale(op),
                None => missing.push(op.clone()),
            }
        }
        (sum, missing)
    }
}

/// The arithmetic an operation class runs on, and the probed operation ([`crate::measurement::probe`]) that
/// stands for it: big integers (`XN2(4099)`: GMP's multiplication), pairings (`P`), GT powers
/// (`ETv`: Fp12 arithmetic), G1 and G2 powers (`E1v_wnaf`: curve additions over Fp/Fp2).
/// A machine's drift differs by family (in one run on the shared VM the probe found GMP's powmod
/// at 0.75x its calibrated time and the curve operations at 0.8-1.6x), so the bound is corrected
/// family by family.
pub fn family(op: &str) -> &'static str {
    if op.starts_with("XN")
        || op.starts_with("MXN")
        || op.starts_with("Enc")
        || op.starts_with("CRT")
    {
        "XN2(4099)"
    } else if matches!(op, "P" | "ML" | "FE" | "MP3") {
        "P"
    } else if op.starts_with("ET") || op.starts_with("MSM_GT") {
        "ETv"
    } else {
        "E1v_wnaf"
    }
}

/// Unit costs of every class from the measured ones. Measured names are used as they are;
/// the others are derived, each derivation an assumption stated here:
/// * big-integer exponentiations cost in proportion to the exponent length within one modulus
///   (sliding window), so an unmeasured bucket is scaled from the nearest measured one;
/// * a fixed-base power mod N² costs `Enc_pp` (1025 bits, 13-bit table) scaled by length;
/// * a multi-exponentiation costs one squaring chain (an `XN2(b)`) plus, per 80-bit term
///   equivalent, what a 4096-term 80-bit batch (`MXN2_4096x80`) costs per term beyond its chain
///   (older files without it: one modular multiplication, `XN2(80)` / 96);
/// * a term of a joint G1 exponentiation (`E1j`) is half a two-term one (`E1j2`);
/// * a Miller loop is `(MP3 - P) / 2` and a final exponentiation `P - ML`;
/// * an MSM term costs `MSM1024_G1 / 1024` (or `_80`); G2 and GT terms scale by `E2v/E1v`,
///   `ETv/E1v`.
fn derive_units(raw: &BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    let mut u: BTreeMap<String, f64> = raw.clone();
    // Variable-base exponentiations may run as width-4 wNAF (`group::mul_var`) or as plain
    // double-and-add (paper mode's term-by-term products); a lower bound takes the cheaper.
    for (op, c) in raw {
        if let Some(plain) = op.strip_suffix("_wnaf") {
            let e = u.entry(plain.to_string()).or_insert(*c);
            *e = e.min(*c);
        }
    }
    let buckets = [80u32, 128, 180, 448, 1025, 2170, 4099];
    for m in ["XN2", "XN"] {
        let measured: Vec<(u32, f64)> = buckets
            .iter()
            .filter_map(|b| raw.get(&format!("{m}({b})")).map(|c| (*b, *c)))
            .collect();
        if measured.is_empty() {
            continue;
        }
        for b in buckets {
            let key = format!("{m}({b})");
            if u.contains_key(&key) {
                continue;
            }
            let (nb, nc) = measured
                .iter()
                .min_by_key(|(mb, _)| (*mb as i64 - b as i64).abs())
                .expect("non-empty");
            u.insert(key, nc * b as f64 / *nb as f64);
        }
    }
    if let Some(e) = raw.get("Enc_pp") {
        for b in [448u32, 1025, 2170] {
            u.insert(format!("XN2f({b})"), e * b as f64 / 1025.0);
        }
    }
    if let Some(x80) = u.get("XN2(80)").copied() {
        // Per 80-bit term: measured on a 4096-term batch net of its squaring chain, else (older
        // calibration files) one multiplication per term, far below what any method achieves.
        let per_term = match raw.get("MXN2_4096x80") {
            Some(t) => ((t - x80) / 4096.0).max(0.0),
            None => x80 / 96.0,
        };
        u.insert("MXN2_terms".into(), per_term);
        for b in buckets {
            if let Some(c) = u.get(&format!("XN2({b})")).copied() {
                u.insert(format!("MXN2({b})"), c);
            }
        }
    }
    if let Some(j2) = raw.get("E1j2") {
        u.insert("E1j".into(), j2 / 2.0);
    }
    if let (Some(p), Some(mp3)) = (raw.get("P"), raw.get("MP3")) {
        let ml = ((mp3 - p) / 2.0).max(0.0);
        u.insert("ML".into(), ml);
        u.insert("FE".into(), (p - ml).max(0.0));
    }
    if let Some(e1v) = raw.get("E1v").copied() {
        if let Some(c) = raw.get("MSM1024_G1") {
            u.insert("MSM_G1".into(), c / 1024.0);
        }
        if let Some(c) = raw.get("MSM1024_G1_80") {
            u.insert("MSM_G1_80".into(), c / 1024.0);
        }
        if let Some(c) = raw.get("MSM1024_G1_128") {
            u.insert("MSM_G1_128".into(), c / 1024.0);
        }
        for g in ["2", "T"] {
            if let Some(ev) = raw.get(&format!("E{g}v")) {
                let ratio = ev / e1v;
                for s in ["", "_128", "_80"] {
                    if let Some(c) = u.get(&format!("MSM_G1{s}")).copied() {
                        u.insert(format!("MSM_G{g}{s}"), c * ratio);
                    }
                }
            }
        }
    }
    u
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_bound_from_calibration() {
        let raw: BTreeMap<String, f64> = [
            ("XN2(80)", 96e-6),
            ("XN2(4099)", 20e-3),
            ("P", 1e-3),
            ("MP3", 2e-3),
            ("Enc_pp", 1e-3),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
        let c = Calibration {
            path: String::new(),
            unit_s: derive_units(&raw),
        };
        let ops: BTreeMap<String, u64> =
            [("XN2(4099)".to_string(), 2), ("MXN2_terms".to_string(), 10)]
                .into_iter()
                .collect();
        let (lb, missing) = c.lower_bound(&ops);
        assert!(missing.is_empty());
        assert!((lb - (40e-3 + 10e-6)).abs() < 1e-9, "{lb}");
        assert!((c.unit_s["ML"] - 0.5e-3).abs() < 1e-12);
        let (_, missing) = c.lower_bound(&[("E1v".to_string(), 1)].into_iter().collect());
        assert_eq!(missing, vec!["E1v".to_string()]);
    }
}
