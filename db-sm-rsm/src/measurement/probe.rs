//! A speed probe of the machine, run at the start and the end of every run.
//!
//! The lower bound multiplies operation counts by unit costs from a calibration file measured
//! earlier, by `cargo bench -p db-sm-rsm --bench ops`. On the project's shared 2-vCPU machine the
//! speed of the same operation drifts by up to 1.5x within minutes (a 4099-bit powmod mod N²
//! measured 16, 18 and 24 ms in runs minutes apart), which makes `time / bound` meaningless unless
//! the drift is known. The probe times a few of the calibrated operations, on this thread, right
//! before and right after the protocol, so that a reader (`experiments/db-sm-rsm/compare_modes.py`) can
//! divide it out: drift = probe / calibration per operation.
//!
//! The probe takes about 0.1 s, runs outside every report timer and is not counted as work.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

use ark_ec::pairing::Pairing;
use ark_ff::UniformRand;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rug::Integer;

use crate::primitives::bigint::{pow_mod, random_bits};
use crate::primitives::group::mul_var;

/// Seconds per call of each probed operation (names as in the calibration file).
pub type Probe = BTreeMap<String, f64>;

static RECORDED: Mutex<Vec<(String, Probe)>> = Mutex::new(Vec::new());

/// Median over `rounds` rounds of the mean time per call of `calls` calls of `f(i)`.
fn time_per_call(rounds: usize, calls: usize, mut f: impl FnMut(usize)) -> f64 {
    let mut per: Vec<f64> = (0..rounds)
        .map(|r| {
            let start = Instant::now();
            for i in 0..calls {
                f(r * calls + i);
            }
            start.elapsed().as_secs_f64() / calls as f64
        })
        .collect();
    per.sort_by(f64::total_cmp);
    per[per.len() / 2]
}

/// Times `XN2(4099)`, `E1v_wnaf`, `ETv` and `P` on distinct inputs (the calibration's too).
pub fn measure<E: Pairing>() -> Probe {
    crate::primitives::counters::uncounted(|| {
        let mut rng = ChaCha20Rng::from_seed(*b"db-sm-rsm speed probe inputs v1.");
        let mut out = Probe::new();
        // Any odd modulus of N²'s size costs what N² costs.
        let modulus = random_bits(&mut rng, 4098) | Integer::from(1) | (Integer::from(1) << 4097);
        let pows: Vec<(Integer, Integer)> = (0..6)
            .map(|_| (random_bits(&mut rng, 4096), random_bits(&mut rng, 4099)))
            .collect();
        out.insert(
            "XN2(4099)".into(),
            time_per_call(3, 2, |i| {
                let (b, e) = &pows[i % pows.len()];
                std::hint::black_box(pow_mod(b, e, &modulus).expect("exponent >= 0"));
            }),
        );
        let g1: Vec<(E::G1, E::ScalarField)> = (0..32)
            .map(|_| (E::G1::rand(&mut rng), E::ScalarField::rand(&mut rng)))
            .collect();
        out.insert(
            "E1v_wnaf".into(),
            time_per_call(3, 32, |i| {
                let (b, s) = &g1[i % g1.len()];
                std::hint::black_box(mul_var(*b, s));
            }),
        );
        let pairs: Vec<(E::G1, E::G2, E::ScalarField)> = (0..8)
            .map(|_| {
                let s = E::ScalarField::rand(&mut rng);
                (E::G1::rand(&mut rng), E::G2::rand(&mut rng), s)
            })
            .collect();
        let gts: Vec<_> = pairs.iter().map(|(a, b, _)| E::pairing(*a, *b)).collect();
        out.insert(
            "ETv".into(),
            time_per_call(3, 4, |i| {
                let j = i % pairs.len();
                let _ = std::hint::black_box(gts[j] * pairs[j].2);
            }),
        );
        out.insert(
            "P".into(),
            time_per_call(3, 4, |i| {
                let (a, b, _) = &pairs[i % pairs.len()];
                let _ = std::hint::black_box(E::pairing(*a, *b));
            }),
        );
        out
    })
}

/// Measures and keeps the result under `stage` ("start", "end") for the JSON report.
pub fn record<E: Pairing>(stage: &str) {
    let p = measure::<E>();
    RECORDED
        .lock()
        .expect("probe lock")
        .push((stage.to_string(), p));
}

/// Forgets every probe recorded: a run that starts afresh in the same process probes again.
pub fn forget() {
    RECORDED.lock().expect("probe lock").clear();
}

/// Per operation family ([`crate::measurement::cost::family`]): how much slower the machine ran the probed
/// operation during this run than during calibration, the geometric mean over the recorded
/// probes. None without probes; a family whose operation has no unit cost in the calibration is
/// left out (its classes are not corrected).
pub fn drift(cal: &crate::measurement::cost::Calibration) -> Option<BTreeMap<String, f64>> {
    let rec = RECORDED.lock().expect("probe lock");
    if rec.is_empty() {
        return None;
    }
    let mut out = BTreeMap::new();
    for op in ["XN2(4099)", "P", "ETv", "E1v_wnaf"] {
        let Some(&unit) = cal.unit_s.get(op) else {
            continue;
        };
        let logs: Vec<f64> = rec.iter().map(|(_, p)| (p[op] / unit).ln()).collect();
        out.insert(
            op.to_string(),
            (logs.iter().sum::<f64>() / logs.len() as f64).exp(),
        );
    }
    Some(out)
}

/// Every recorded probe as `{stage: {op: seconds per call}}`.
pub fn recorded_json() -> serde_json::Value {
    let rec = RECORDED.lock().expect("probe lock");
    let map: serde_json::Map<String, serde_json::Value> = rec
        .iter()
        .map(|(stage, p)| (stage.clone(), serde_json::json!(p)))
        .collect();
    serde_json::Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_times_every_operation() {
        let p = measure::<ark_bn254::Bn254>();
        for op in ["XN2(4099)", "E1v_wnaf", "ETv", "P"] {
            assert!(p[op] > 0.0 && p[op] < 10.0, "{op}: {}", p[op]);
        }
        // A 4099-bit powmod mod a 4098-bit modulus is far costlier than a G1 exponentiation.
        assert!(p["XN2(4099)"] > p["E1v_wnaf"]);
    }
}
