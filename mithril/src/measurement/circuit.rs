//! The circuit measurements: sizes (laid out, not proved) and proofs (parameters, keys, proof,
//! verification, a changed public input), each in its own process so that its peak resident
//! memory is its own; then straight-line fits of cells and prover time against n.

use std::time::Instant;

use measure::clock::{timed, PhaseTimes};
use measure::progress::Progress;
use rand_core::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::circuit::bn254::Signing;
use crate::circuit::proof::{self, CircuitSize};
use crate::circuit::relation::Statement;
use crate::circuit::{PairingCheck, Shape, BLINDING_ROWS};

/// The message every circuit run signs.
pub const MESSAGE: &[u8] = b"mithril-msp circuit benchmark message";

/// Smallest k considered by the automatic choice.
pub const MIN_K: u32 = 17;
/// Largest k the runs accept.
pub const MAX_K: u32 = 23;

/// A circuit's size at one n.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SizeRow {
    /// Signers.
    pub n: usize,
    /// The BLS check's layout.
    pub pairing_check: String,
    /// The layout.
    #[serde(flatten)]
    pub size: CircuitSize,
    /// Seconds (CPU) to lay the circuit out.
    pub layout_cpu_s: f64,
    /// Peak resident memory of the process that laid it out, MiB.
    pub peak_rss_mib: f64,
}

/// Wall, user and system seconds of one phase.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Phase {
    /// Wall seconds.
    pub wall_s: f64,
    /// CPU seconds (user + system, all threads).
    pub cpu_s: f64,
}

impl From<PhaseTimes> for Phase {
    fn from(t: PhaseTimes) -> Self {
        Phase {
            wall_s: t.real,
            cpu_s: t.cpu(),
        }
    }
}

/// One proof at one n.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProofRow {
    /// Signers.
    pub n: usize,
    /// The BLS check's layout.
    pub pairing_check: String,
    /// Prover threads (rayon pool of the process).
    pub threads: usize,
    /// The layout.
    pub size: CircuitSize,
    /// Making the structured reference string.
    pub srs: Phase,
    /// Key generation (verifying and proving key).
    pub keygen: Phase,
    /// Witness generation alone.
    pub witness: Phase,
    /// The prover proper (after the witness).
    pub prove: Phase,
    /// Witness generation and proving: what "prove" means in the reference figures.
    pub prove_total: Phase,
    /// Verification.
    pub verify: Phase,
    /// Proof bytes.
    pub proof_bytes: usize,
    /// Peak resident memory of the process, MiB.
    pub peak_rss_mib: f64,
    /// The proof verified.
    pub verified: bool,
    /// Every public input changed by one was refused.
    pub rejects_changed_public_input: bool,
    /// One flipped proof bit was refused.
    pub rejects_changed_proof: bool,
    /// One-minute load average when the process started and ended.
    pub load_avg_1m: [f64; 2],
}

/// The probe layout's k for [`auto_k`].
pub const PROBE_K: u32 = 18;

/// k for a circuit of `advice_cells` main-gate cells: the smallest k ≥ [`MIN_K`] whose rows hold
/// them in at most `max_columns` advice columns.
pub fn auto_k(advice_cells: usize, max_columns: usize) -> u32 {
    (MIN_K..=MAX_K)
        .find(|k| advice_cells.div_ceil((1usize << k) - BLINDING_ROWS) <= max_columns)
        .unwrap_or(MAX_K)
}

fn sample_statement(n: usize, rng: &mut (impl RngCore + CryptoRng)) -> Statement {
    Statement::honest(&Signing::new(n, MESSAGE, rng))
}

/// Lays out the circuit for n signers (no proof). With `k` unset, the circuit is laid out at
/// [`PROBE_K`] and, if [`auto_k`] picks another k, again at that k.
pub fn size_run(
    n: usize,
    k: Option<u32>,
    pairing: PairingCheck,
    max_columns: usize,
    rng: &mut (impl RngCore + CryptoRng),
) -> SizeRow {
    let st = sample_statement(n, rng);
    let shape = |k: u32| {
        let mut s = Shape::with_k(k);
        s.pairing = pairing;
        s
    };
    let ((size, k), t) = timed(|| {
        let first = proof::size(&st, &shape(k.unwrap_or(PROBE_K)));
        match k {
            Some(k) => (first, k),
            None => {
                let k = auto_k(first.advice_cells, max_columns);
                if k == PROBE_K {
                    (first, k)
                } else {
                    (proof::size(&st, &shape(k)), k)
                }
            }
        }
    });
    debug_assert_eq!(size.k, k);
    SizeRow {
        n,
        pairing_check: pairing.name().to_string(),
        size,
        layout_cpu_s: t.cpu(),
        peak_rss_mib: measure::clock::peak_rss_mib(),
    }
}

/// Parameters, keys, a proof and its checks for n signers, with progress on stderr.
pub fn proof_run(
    n: usize,
    shape: &Shape,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<ProofRow, crate::Error> {
    let load_start = measure::machine::load_avg_1m();
    let progress = Progress::new(
        "mithril-msp proof",
        Some(&format!("n={n} k={}", shape.k)),
        5,
    );
    let st = sample_statement(n, rng);
    let instances = st.instances();
    let (srs, t_srs) = timed(|| proof::setup(shape.k, rng));
    progress.inc(1);
    let (keys, t_keygen) = timed(|| proof::keygen(&srs, &st, shape));
    let keys = keys.map_err(|e| crate::Error::Keygen(format!("{e:?}")))?;
    progress.inc(1);
    let start = Instant::now();
    let (circuit, t_witness) = timed(|| proof::witness(&keys, &st, shape));
    progress.inc(1);
    let (pf, t_prove) = timed(|| proof::prove(&srs, &keys, circuit, &instances, rng));
    let total_wall = start.elapsed().as_secs_f64();
    let pf = pf.map_err(|e| crate::Error::Proving(format!("{e:?}")))?;
    progress.inc(1);
    let (verified, t_verify) = timed(|| proof::verify(&srs, keys.vk(), &instances, &pf));
    let rejects_changed_public_input = (0..instances.len()).all(|i| {
        let mut bad = instances.clone();
        bad[i] += halo2_base::halo2_proofs::halo2curves::bn256::Fr::one();
        !proof::verify(&srs, keys.vk(), &bad, &pf)
    });
    let mut flipped = pf.clone();
    flipped[pf.len() / 2] ^= 1;
    let rejects_changed_proof = !proof::verify(&srs, keys.vk(), &instances, &flipped);
    progress.inc(1);
    progress.finish();
    Ok(ProofRow {
        n,
        pairing_check: shape.pairing.name().to_string(),
        threads: rayon::current_num_threads(),
        size: keys.size.clone(),
        srs: t_srs.into(),
        keygen: t_keygen.into(),
        witness: t_witness.into(),
        prove: t_prove.into(),
        prove_total: Phase {
            wall_s: total_wall,
            cpu_s: t_witness.cpu() + t_prove.cpu(),
        },
        verify: t_verify.into(),
        proof_bytes: pf.len(),
        peak_rss_mib: measure::clock::peak_rss_mib(),
        verified,
        rejects_changed_public_input,
        rejects_changed_proof,
        load_avg_1m: [load_start, measure::machine::load_avg_1m()],
    })
}

/// A least-squares line y = a + b·x.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Line {
    /// Intercept a.
    pub intercept: f64,
    /// Slope b.
    pub slope: f64,
    /// Coefficient of determination.
    pub r2: f64,
    /// Points fitted.
    pub points: usize,
}

/// The least-squares line through (x_i, y_i); `None` with fewer than two distinct x.
pub fn fit_line(xs: &[f64], ys: &[f64]) -> Option<Line> {
    let m = xs.len() as f64;
    if xs.len() < 2 || xs.len() != ys.len() {
        return None;
    }
    let mx = xs.iter().sum::<f64>() / m;
    let my = ys.iter().sum::<f64>() / m;
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let ss_tot: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
    let ss_res: f64 = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| (y - intercept - slope * x).powi(2))
        .sum();
    Some(Line {
        intercept,
        slope,
        r2: if ss_tot == 0.0 {
            1.0
        } else {
            1.0 - ss_res / ss_tot
        },
        points: xs.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_fit_exactly_through_collinear_points() {
        let l = fit_line(&[1.0, 2.0, 4.0], &[5.0, 7.0, 11.0]).unwrap();
        assert!((l.slope - 2.0).abs() < 1e-12 && (l.intercept - 3.0).abs() < 1e-12);
        assert!((l.r2 - 1.0).abs() < 1e-12);
        assert!(fit_line(&[1.0], &[1.0]).is_none());
        assert!(fit_line(&[2.0, 2.0], &[1.0, 3.0]).is_none());
    }
}
