//! The native measurements: every MSP step on BLS12-381 at each n and thread count, checked,
//! then timed beside its counted-operation lower bound.
//!
//! | operation | what | lower bound (same data, same run) |
//! |---|---|---|
//! | `akey` | MSP.AKey, Σ mvk_i | n − 1 G2 additions |
//! | `asig` | MSP.ASig, Σ σ_i | n − 1 G1 additions |
//! | `weights` | the n weights e_i | BLAKE2b over the 48n signature bytes + n one-block hashes |
//! | `bkey` | MSP.BKey, Σ e_i·mvk_i | blst's Pippenger on the n G2 terms, 128-bit scalars |
//! | `bsig` | MSP.BSig: the weights, then Σ e_i·σ_i | blst's Pippenger on the n G1 terms |
//! | `ver` | MSP.Ver: H(m), then the 2-pair pairing check | 2-pair Miller loop + final exponentiation |
//! | `a_total` | AKey + ASig + Ver | the three bounds above |
//! | `b_total` | BKey + BSig + Ver (weights once) | both Pippengers + the pairing check |
//! | `batch_verify` | b aggregates checked at once | (b + 1)-pair Miller loop + final exponentiation |
//! | `ver_each` | the same b aggregates, one MSP.Ver each | (none: the comparison for `batch_verify`) |
//!
//! Operations that use one thread whatever the pool (all but `bkey`, `bsig`, `b_total`) are
//! measured at the first thread count only.

use blake2::digest::consts::U16;
use blake2::{Blake2b, Digest};
use measure::envelope::Inputs;
use measure::timing::{time_with_bound, Plan, Timing};
use rand_core::{CryptoRng, RngCore, SeedableRng};
use serde::Serialize;

use crate::native::curve::{msm_g1, msm_g2, pairing_product_is_one, G1Affine, G2Affine, G1, G2};
use crate::native::msp::{
    akey, asig, batch_verify, bkey, bsig, ver, weights, Aggregate, Params, Signature, Signing,
    WEIGHT_BITS,
};

/// Operation names, in report order.
pub const OPERATIONS: [&str; 10] = [
    "akey",
    "asig",
    "weights",
    "bkey",
    "bsig",
    "ver",
    "a_total",
    "b_total",
    "batch_verify",
    "ver_each",
];

/// Whether an operation's time depends on the thread pool.
pub fn is_parallel(op: &str) -> bool {
    matches!(op, "bkey" | "bsig" | "b_total")
}

/// A lower bound's timing.
#[derive(Clone, Debug, Serialize)]
pub struct Bound {
    /// What the bound computes.
    pub what: String,
    /// CPU seconds per call.
    pub cpu_s: measure::timing::Stats,
    /// Wall seconds per call.
    pub wall_s: measure::timing::Stats,
    /// Calls per repetition.
    pub iterations: usize,
    /// Operation / bound, medians of CPU time.
    pub ratio_cpu: f64,
}

/// One native measurement.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The operation.
    pub operation: String,
    /// Signers.
    pub n: usize,
    /// Aggregates checked together (`batch_verify` only).
    pub aggregates: Option<usize>,
    /// Threads of the pool.
    pub threads: usize,
    /// Repetitions.
    pub repetitions: usize,
    /// Calls per repetition.
    pub iterations: usize,
    /// CPU seconds per call.
    pub cpu_s: measure::timing::Stats,
    /// Wall seconds per call.
    pub wall_s: measure::timing::Stats,
    /// The lower bound.
    pub lower_bound: Option<Bound>,
    /// The operation's output passed its check.
    pub verified: bool,
}

fn row(
    op: &str,
    n: usize,
    aggregates: Option<usize>,
    t: Timing,
    bound: Option<(String, Timing)>,
    verified: bool,
) -> Row {
    Row {
        operation: op.to_string(),
        n,
        aggregates,
        threads: rayon::current_num_threads(),
        repetitions: t.repetitions,
        iterations: t.iterations,
        cpu_s: t.cpu_s,
        wall_s: t.wall_s,
        lower_bound: bound.map(|(what, b)| Bound {
            what,
            cpu_s: b.cpu_s,
            wall_s: b.wall_s,
            iterations: b.iterations,
            ratio_cpu: t.cpu_s.median / b.cpu_s.median,
        }),
        verified,
    }
}

const MESSAGE: &[u8] = b"mithril-msp benchmark message";

/// The signers of one n, their aggregates and what the bounds use.
pub struct Fixture {
    params: Params,
    signing: Signing,
    sig_bytes: Vec<u8>,
    g1_proj: Vec<G1>,
    g2_proj: Vec<G2>,
    e: Vec<[u8; 16]>,
    pairs: [(G1Affine, G2Affine); 2],
}

impl Fixture {
    /// n fresh signers on the benchmark message.
    pub fn new(n: usize, rng: &mut (impl RngCore + CryptoRng)) -> Fixture {
        let params = Params::default();
        let signing = Signing::new(&params, n, MESSAGE, rng);
        let sig_bytes = signing
            .signatures
            .iter()
            .flat_map(|s| s.0.to_bytes())
            .collect();
        let (mu, e) = bsig(&signing.signatures);
        let ivk = bkey(&signing.keys, &e);
        let pairs = [
            (mu.0, G2::generator().neg().to_affine()),
            (params.message_point(MESSAGE), ivk.0),
        ];
        Fixture {
            g1_proj: signing
                .signatures
                .iter()
                .map(|s| s.0.to_projective())
                .collect(),
            g2_proj: signing.keys.iter().map(|k| k.0.to_projective()).collect(),
            params,
            signing,
            sig_bytes,
            e,
            pairs,
        }
    }

    /// Adds the keys, signatures and message of this n to the run's input digest.
    pub fn add_inputs(&self, inputs: &mut Inputs) {
        let n = self.signing.keys.len();
        inputs.add(&format!("native n={n} message"), MESSAGE);
        for (k, s) in self.signing.keys.iter().zip(&self.signing.signatures) {
            inputs.add(&format!("native n={n} key"), &k.0.to_bytes());
            inputs.add(&format!("native n={n} signature"), &s.0.to_bytes());
        }
    }

    fn sigs(&self) -> Vec<G1Affine> {
        self.signing.signatures.iter().map(|s| s.0).collect()
    }

    fn keys(&self) -> Vec<G2Affine> {
        self.signing.keys.iter().map(|k| k.0).collect()
    }
}

fn sum_g1(points: &[G1]) -> G1 {
    points[1..].iter().fold(points[0], |a, p| a.add(p))
}

fn sum_g2(points: &[G2]) -> G2 {
    points[1..].iter().fold(points[0], |a, p| a.add(p))
}

/// An operation's timing and, where it has one, its bound's: what the bound is, and its timing.
type Against = (Timing, Option<(String, Timing)>);

/// Times `op` in alternation with its lower bound `bound` (what `what` says it is); what both
/// compute is kept from the optimiser.
fn against<A, B>(
    plan: &Plan,
    mut op: impl FnMut() -> A,
    what: String,
    mut bound: impl FnMut() -> B,
) -> Against {
    let (t, b) = time_with_bound(
        plan,
        &mut || {
            std::hint::black_box(op());
        },
        Some(&mut || {
            std::hint::black_box(bound());
        }),
    );
    (t, b.map(|b| (what, b)))
}

/// Times `op` at this fixture's n on the current pool. `None` for an unknown operation or
/// `batch_verify` (see [`batch_row`]).
pub fn measure(plan: &Plan, fx: &Fixture, op: &str) -> Option<Row> {
    let n = fx.signing.keys.len();
    let p = &fx.params;
    let s = &fx.signing;
    let sigs = fx.sigs();
    let keys = fx.keys();
    // Plain aggregation checked whole (both sums, then the pairing check): the verdict of the
    // akey and asig rows, and what a_total times.
    let a_total = || ver(p, MESSAGE, &akey(&s.keys), &asig(&s.signatures));
    let additions = |group: &str| format!("{} {group} additions", n - 1);
    let ((t, b), ok) = match op {
        "akey" => (
            against(
                plan,
                || akey(&s.keys),
                additions("G2"),
                || sum_g2(&fx.g2_proj),
            ),
            a_total(),
        ),
        "asig" => (
            against(
                plan,
                || asig(&s.signatures),
                additions("G1"),
                || sum_g1(&fx.g1_proj),
            ),
            a_total(),
        ),
        "weights" => (
            against(
                plan,
                || weights(&s.signatures),
                format!(
                    "BLAKE2b over the {} signature bytes + {n} one-block hashes",
                    fx.sig_bytes.len()
                ),
                || {
                    std::hint::black_box(Blake2b::<U16>::digest(&fx.sig_bytes));
                    for i in 0..n as u64 {
                        std::hint::black_box(Blake2b::<U16>::digest(i.to_be_bytes()));
                    }
                },
            ),
            weights(&s.signatures) == fx.e,
        ),
        "bkey" => (
            against(
                plan,
                || bkey(&s.keys, &fx.e),
                format!("blst Pippenger, {n} G2 terms, 128-bit"),
                || msm_g2(&keys, &fx.e, WEIGHT_BITS),
            ),
            bkey(&s.keys, &fx.e).0 == fx.pairs[1].1,
        ),
        "bsig" => (
            against(
                plan,
                || bsig(&s.signatures),
                format!("blst Pippenger, {n} G1 terms, 128-bit"),
                || msm_g1(&sigs, &fx.e, WEIGHT_BITS),
            ),
            bsig(&s.signatures).0 .0 == fx.pairs[0].0,
        ),
        _ => measure_check(plan, fx, op)?,
    };
    Some(row(op, n, None, t, b, ok))
}

/// The verification operations of [`measure`] (`ver`, `a_total`, `b_total`): each timed against
/// its bound, with whether it accepted the honest aggregate (and, for `ver`, rejected another
/// message). `None` for an operation that is not one of them.
fn measure_check(plan: &Plan, fx: &Fixture, op: &str) -> Option<(Against, bool)> {
    let p = &fx.params;
    let s = &fx.signing;
    let sigs = fx.sigs();
    let keys = fx.keys();
    let a_total = || ver(p, MESSAGE, &akey(&s.keys), &asig(&s.signatures));
    Some(match op {
        "ver" => {
            let (mu, ivk) = (
                Signature(fx.pairs[0].0),
                crate::native::msp::VerificationKey(fx.pairs[1].1),
            );
            (
                against(
                    plan,
                    || ver(p, MESSAGE, &ivk, &mu),
                    "2-pair Miller loop + final exponentiation".to_string(),
                    || pairing_product_is_one(&fx.pairs),
                ),
                ver(p, MESSAGE, &ivk, &mu) && !ver(p, b"another message", &ivk, &mu),
            )
        }
        "a_total" => (
            against(
                plan,
                a_total,
                "the additions and the pairing check".to_string(),
                || {
                    std::hint::black_box(sum_g2(&fx.g2_proj));
                    std::hint::black_box(sum_g1(&fx.g1_proj));
                    pairing_product_is_one(&fx.pairs)
                },
            ),
            a_total(),
        ),
        "b_total" => {
            let run = || {
                let (mu, e) = bsig(&s.signatures);
                ver(p, MESSAGE, &bkey(&s.keys, &e), &mu)
            };
            (
                against(
                    plan,
                    run,
                    "both Pippengers and the pairing check".to_string(),
                    || {
                        std::hint::black_box(msm_g2(&keys, &fx.e, WEIGHT_BITS));
                        std::hint::black_box(msm_g1(&sigs, &fx.e, WEIGHT_BITS));
                        pairing_product_is_one(&fx.pairs)
                    },
                ),
                run(),
            )
        }
        _ => return None,
    })
}

/// Batch verification of `aggregates` aggregates of `n` signers each, against its bound, and
/// the same aggregates verified one by one (`ver_each`).
pub fn batch_rows(
    plan: &Plan,
    n: usize,
    aggregates: usize,
    rng: &mut (impl RngCore + CryptoRng),
    inputs: &mut Inputs,
) -> Vec<Row> {
    let params = Params::default();
    let batch: Vec<Aggregate> = (0..aggregates)
        .map(|j| Aggregate::signed(&params, n, format!("aggregate {j}").into_bytes(), rng))
        .collect();
    for a in &batch {
        let label = format!("batch of {aggregates}");
        inputs.add(&label, &a.message);
        inputs.add(&label, &a.key.0.to_bytes());
        inputs.add(&label, &a.signature.0.to_bytes());
    }
    let mut tampered = batch.clone();
    tampered[aggregates - 1].message = b"forged".to_vec();
    let mut r2 = rand_chacha::ChaCha20Rng::from_rng(&mut *rng).expect("seeded");
    let ok = batch_verify(&params, &batch, &mut r2) && !batch_verify(&params, &tampered, &mut r2);
    let mut pairs = vec![(batch[0].signature.0, G2Affine::generator())];
    pairs.extend(
        batch
            .iter()
            .map(|a| (params.message_point(&a.message), a.key.0)),
    );
    let (t, b) = against(
        plan,
        || batch_verify(&params, &batch, &mut r2),
        format!("{}-pair Miller loop + final exponentiation", aggregates + 1),
        || pairing_product_is_one(&pairs),
    );
    let batch_row = row("batch_verify", n, Some(aggregates), t, b, ok);
    let ok_each = batch
        .iter()
        .all(|a| ver(&params, &a.message, &a.key, &a.signature));
    let (t, _) = time_with_bound(
        plan,
        &mut || {
            for a in &batch {
                std::hint::black_box(ver(&params, &a.message, &a.key, &a.signature));
            }
        },
        None,
    );
    let each_row = row("ver_each", n, Some(aggregates), t, None, ok_each);
    vec![batch_row, each_row]
}

/// The cancellation check at n = 2: σ1 + D and σ2 − D pass plain aggregation and fail the
/// weighted one. Returns (plain accepts, weighted rejects).
pub fn cancellation_check(
    rng: &mut (impl RngCore + CryptoRng),
    inputs: &mut Inputs,
) -> (bool, bool) {
    let params = Params::default();
    let s = Signing::new(&params, 2, MESSAGE, rng);
    let mut d = [0u8; 32];
    rng.fill_bytes(&mut d);
    inputs.add("cancellation D", &d);
    let d = G1::generator().mul_bits(&d, 255);
    let forged = [
        Signature(s.signatures[0].0.to_projective().add(&d).to_affine()),
        Signature(s.signatures[1].0.to_projective().add(&d.neg()).to_affine()),
    ];
    let plain = ver(&params, MESSAGE, &akey(&s.keys), &asig(&forged));
    let (mu, e) = bsig(&forged);
    let weighted = ver(&params, MESSAGE, &bkey(&s.keys, &e), &mu);
    (plain, !weighted)
}
