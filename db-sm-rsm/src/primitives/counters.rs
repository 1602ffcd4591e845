//! Counters of every expensive operation, by class: the library's hot primitives call [`count`]
//! (or one of the classifying helpers) once per operation, and the report attributes the counts
//! to its timers ([`crate::measurement::cost`] turns them into a lower bound).
//!
//! Counters are process-wide atomics, so work done on rayon's worker threads counts too; the
//! report snapshots them when a timer opens and again when it closes, and the difference is that
//! timer's operations. The attribution is exact because the parties of a process run one after
//! another (all of them with `--transport local`, B19 in `docs/fixes.md`; one with `tls`): while
//! a party's timer is open, every operation in the process is that party's.
//!
//! Class names, as the calibration file of `cargo bench -p db-sm-rsm --bench ops` names them:
//! `E1f`, `E1v80`, `E2f`, `ETv180`, ... (group, fixed or variable base, exponent length bucket),
//! `P` (a pairing on its own), `ML` and `FE` (Miller loops and final exponentiations of
//! multi-pairings), `MSM_G1` / `MSM_G1_80` (terms of G1 multi-scalar multiplications, full and
//! short scalars), `XN2(b)` / `XN(b)` (a b-bit exponent modulo a ~4100-bit N² or a ~2050-bit N,
//! b bucketed), `XN2f(b)` (a fixed-base-table power mod N²; the 1025-bit bucket is upstream's
//! `Enc_pp`), `MXN2(b)` and `MXN2_terms` (multi-exponentiations mod N²: one squaring chain of b
//! bits, and the terms in 80-bit equivalents), `CRT_dec` (a per-mixer CRT decryption).
//!
//! The same switch selects upstream's operation counts ([`set_paper`], `--mode paper`).
//!
//! The hot per-entry loops also advance the progress of the step being timed ([`tick`]), which
//! the report installs when the program shows progress ([`set_progress`]).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use measure::progress::Progress;

use ark_ec::pairing::{Pairing, PairingOutput};
use ark_ec::{Group, VariableBaseMSM};
use ark_ff::{BigInteger, PrimeField};

/// Every counted operation class, in report order. Index = counter slot.
pub const OPS: &[&str] = &[
    "P",
    "ML",
    "FE", // pairings
    "E1f",
    "E1f180",
    "E1f128",
    "E1f80",
    "E1v",
    "E1v180",
    "E1v128",
    "E1v80", // G1
    "E2f",
    "E2f180",
    "E2f128",
    "E2f80",
    "E2v",
    "E2v180",
    "E2v128",
    "E2v80", // G2
    "ETf",
    "ETf180",
    "ETf128",
    "ETf80",
    "ETv",
    "ETv180",
    "ETv128",
    "ETv80", // GT
    "MSM_G1",
    "MSM_G1_128",
    "MSM_G1_80",
    "MSM_G2",
    "MSM_G2_128",
    "MSM_G2_80",
    "MSM_GT",
    "MSM_GT_128",
    "MSM_GT_80", // MSM terms
    "MSM_calls",
    "XN2(80)",
    "XN2(128)",
    "XN2(180)",
    "XN2(448)",
    "XN2(1025)",
    "XN2(2170)",
    "XN2(4099)",
    "XN(80)",
    "XN(128)",
    "XN(180)",
    "XN(448)",
    "XN(1025)",
    "XN(2170)",
    "XN(4099)",
    "XN2f(448)",
    "XN2f(1025)",
    "XN2f(2170)",
    "MXN2(80)",
    "MXN2(128)",
    "MXN2(180)",
    "MXN2(448)",
    "MXN2(1025)",
    "MXN2(2170)",
    "MXN2(4099)",
    "MXN2_terms",
    "CRT_dec",
    "E1j", // one term of a joint (interleaved) G1 exponentiation
];

const N_OPS: usize = OPS.len();

#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicU64 = AtomicU64::new(0);
static COUNTS: [AtomicU64; N_OPS] = [ZERO; N_OPS];

thread_local! {
    /// Set while a composite operation (a CRT decryption) runs, so its inner powmods are not
    /// counted a second time.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

fn slot(op: &str) -> usize {
    OPS.iter()
        .position(|o| *o == op)
        .unwrap_or_else(|| panic!("cost: unknown operation class {op}"))
}

/// Adds `k` operations of class `op` (one of [`OPS`]).
pub fn count(op: &str, k: u64) {
    bump(slot(op), k);
}

/// Runs `f` as one operation of class `op`, without counting what happens inside it.
pub fn composite<T>(op: &str, f: impl FnOnce() -> T) -> T {
    count(op, 1);
    uncounted(f)
}

/// Runs `f` without counting anything it does on this thread (inside a composite operation,
/// and the speed probe).
pub fn uncounted<T>(f: impl FnOnce() -> T) -> T {
    let was = QUIET.with(|q| q.replace(true));
    let out = f();
    QUIET.with(|q| q.set(was));
    out
}

static PAPER: AtomicBool = AtomicBool::new(false);

/// Switches the process to upstream's operation counts (`--mode paper`, docs/protocol.md §10): the library's multi-exponentiation routines ([`crate::primitives::group::msm`],
/// [`crate::primitives::group::msm_short`], [`crate::primitives::bigint::multi_pow_mod`]) then compute every power
/// separately and multiply, as upstream did. Results are identical in both modes; only the cost
/// differs, so one process-wide switch is safe even with concurrent callers.
pub fn set_paper(on: bool) {
    PAPER.store(on, Ordering::Relaxed);
}

/// True in `--mode paper`.
pub fn paper() -> bool {
    PAPER.load(Ordering::Relaxed)
}

/// `Σ scalar_i · base_i` as separate variable-base exponentiations (paper mode's "no MSM"),
/// each counted with its scalar's length.
pub fn term_by_term<G: VariableBaseMSM>(bases: &[G::MulBase], scalars: &[G::ScalarField]) -> G {
    let mut acc = G::zero();
    for (b, s) in bases.iter().zip(scalars) {
        let int = s.into_bigint();
        group_exp::<G>(false, int.num_bits() as usize);
        acc += G::from(*b).mul_bigint(int);
    }
    acc
}

/// `scalar · p` by plain variable-base exponentiation, counted (E1v, E2v, ETv by length).
pub fn vmul<G: Group>(p: G, scalar: &G::ScalarField) -> G {
    let int = scalar.into_bigint();
    group_exp::<G>(false, int.num_bits() as usize);
    p.mul_bigint(int)
}

/// One pairing, counted as `P`.
pub fn pairing<E: Pairing>(
    a: impl Into<E::G1Prepared>,
    b: impl Into<E::G2Prepared>,
) -> PairingOutput<E> {
    count("P", 1);
    E::pairing(a, b)
}

/// A product of pairings: one Miller loop per pair and one final exponentiation.
pub fn multi_pairing<E: Pairing>(
    a: impl IntoIterator<Item = impl Into<E::G1Prepared>>,
    b: impl IntoIterator<Item = impl Into<E::G2Prepared>>,
) -> PairingOutput<E> {
    let a: Vec<E::G1Prepared> = a.into_iter().map(Into::into).collect();
    let b: Vec<E::G2Prepared> = b.into_iter().map(Into::into).collect();
    count("ML", a.len() as u64);
    count("FE", 1);
    E::multi_pairing(a, b)
}

static SHOWING: AtomicBool = AtomicBool::new(false);
static PROGRESS: RwLock<Option<Arc<Progress>>> = RwLock::new(None);

/// Installs the progress of the step now timed (None: no progress shown); returns the one it
/// replaces.
pub fn set_progress(p: Option<Arc<Progress>>) -> Option<Arc<Progress>> {
    let mut slot = PROGRESS.write().unwrap_or_else(|e| e.into_inner());
    SHOWING.store(p.is_some(), Ordering::Relaxed);
    std::mem::replace(&mut *slot, p)
}

/// `k` more entries of the step now timed are done (nothing unless progress is shown).
pub fn tick(k: u64) {
    if SHOWING.load(Ordering::Relaxed) {
        if let Some(p) = PROGRESS.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
            p.inc(k);
        }
    }
}

/// Current totals of every counter.
pub fn snapshot() -> Vec<u64> {
    COUNTS.iter().map(|c| c.load(Ordering::Relaxed)).collect()
}

/// Nonzero differences `after - before`, by operation name.
pub fn delta(before: &[u64], after: &[u64]) -> BTreeMap<String, u64> {
    OPS.iter()
        .zip(before.iter().zip(after))
        .filter(|(_, (b, a))| a > b)
        .map(|(op, (b, a))| (op.to_string(), a - b))
        .collect()
}

/// Adds `b` into `a`.
pub fn merge(a: &mut BTreeMap<String, u64>, b: &BTreeMap<String, u64>) {
    for (k, v) in b {
        *a.entry(k.clone()).or_default() += v;
    }
}

// Slots of the families below, laid out as in [`OPS`] (checked by a test), so the hot paths
// index the counters directly instead of formatting names.
const SLOT_E1F: usize = 3;
const SLOT_MSM: usize = 27;
const SLOT_XN2: usize = 37;
const SLOT_XN: usize = 44;
const SLOT_XN2F: usize = 51;
const SLOT_MXN2: usize = 54;
const SLOT_MXN2_TERMS: usize = 61;
/// Exponent-length buckets of a pairing group (full, 180, 128, 80) and of a big integer (80,
/// 128, 180, 448, 1025, 2170, 4099).
const GROUP_BUCKETS: usize = 4;
#[cfg(test)]
const INT_BUCKETS: usize = 7;

fn bump(slot: usize, k: u64) {
    if k == 0 || QUIET.with(|q| q.get()) {
        return;
    }
    COUNTS[slot].fetch_add(k, Ordering::Relaxed);
}

/// Offset of a pairing-group exponent's length bucket: full length, or the 180-, 128- and
/// 80-bit short exponents of the masks and batching vectors.
fn group_bucket(bits: usize) -> usize {
    match bits {
        0..=100 => 3,
        101..=150 => 2,
        151..=200 => 1,
        _ => 0,
    }
}

/// 0, 1 or 2 for G1, G2 or GT: which pairing group the arkworks type `G` is, from its type
/// name (the curve crates name their configs `g1::Config` / `g2::Config`; GT is
/// `PairingOutput`).
pub fn group_of<G>() -> usize {
    let name = std::any::type_name::<G>();
    if name.contains("PairingOutput") {
        2
    } else if name.contains("g2::") {
        1
    } else {
        0
    }
}

/// One exponentiation in group `G` with a `bits`-bit exponent, fixed base (table) or not.
pub fn group_exp<G>(fixed: bool, bits: usize) {
    let fv = if fixed { 0 } else { GROUP_BUCKETS };
    bump(
        SLOT_E1F + 2 * GROUP_BUCKETS * group_of::<G>() + fv + group_bucket(bits),
        1,
    );
}

/// A multi-scalar multiplication of `terms` terms in group `G` whose scalars have at most
/// `bits` bits (full, 128 or 80).
pub fn group_msm<G>(terms: usize, bits: usize) {
    let short = match bits {
        0..=100 => 2,
        101..=150 => 1,
        _ => 0,
    };
    bump(SLOT_MSM + 3 * group_of::<G>() + short, terms as u64);
    bump(SLOT_MSM + 9, 1);
}

/// Index of the exponent-length bucket of a big-integer exponentiation, named after the
/// lengths that occur (80, 128, 180, 448, 1025, 2170 and 4099 bits). A bucket starts at (or
/// near) its name, so the unit cost of its name bounds its members from below: 151..=400 holds
/// the 160-bit products chal·δ, 180-bit masks and 354-bit masks of the paper setting and the
/// 256- and 336-bit ones of the 128-bit setting; 1001..=1999 the 1025-bit randomness and the
/// shuffle's 1225- and 1381-bit r masks; 2000..=3999 the 2070-2338-bit masks; from 4000 the
/// ~4099-bit decryption-share exponents and their proofs' masks.
fn int_bucket(bits: u32) -> usize {
    match bits {
        0..=100 => 0,
        101..=150 => 1,
        151..=400 => 2,
        401..=1000 => 3,
        1001..=1999 => 4,
        2000..=3999 => 5,
        _ => 6,
    }
}

/// A modular exponentiation; the modulus size says N² (over 3000 bits) or N.
pub fn powmod(exp_bits: u32, modulus_bits: u32) {
    let base = if modulus_bits > 3000 {
        SLOT_XN2
    } else {
        SLOT_XN
    };
    bump(base + int_bucket(exp_bits), 1);
}

/// A fixed-base-table power mod N² with an exponent of `exp_bits` bits (buckets 448, 1025 and
/// 2170: the table's cost follows the exponent's windows).
pub fn table_pow(exp_bits: u32) {
    let b = match int_bucket(exp_bits) {
        0..=3 => 0,
        4 => 1,
        _ => 2,
    };
    bump(SLOT_XN2F + b, 1);
}

/// A multi-exponentiation mod N² whose longest exponent has `max_bits` bits, over terms of
/// `term_bits[i]` bits. `MXN2_terms` counts 80-bit term equivalents, `Σ ⌈term_bits[i]/80⌉`: a
/// bucket method's work per term grows with that term's length (digits that are zero cost
/// nothing), while the squaring chain follows the longest exponent.
pub fn multi_powmod(max_bits: u32, term_bits: impl Iterator<Item = u32>) {
    bump(SLOT_MXN2 + int_bucket(max_bits), 1);
    bump(
        SLOT_MXN2_TERMS,
        term_bits.map(|b| u64::from(b.div_ceil(80).max(1))).sum(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_constants_match_names() {
        assert_eq!(SLOT_E1F, slot("E1f"));
        assert_eq!(SLOT_E1F + 8 + 4 + 3, slot("E2v80"));
        assert_eq!(SLOT_E1F + 16 + 1, slot("ETf180"));
        assert_eq!(SLOT_E1F + 16 + 4 + 2, slot("ETv128"));
        assert_eq!(SLOT_MSM, slot("MSM_G1"));
        assert_eq!(SLOT_MSM + 8, slot("MSM_GT_80"));
        assert_eq!(SLOT_MSM + 9, slot("MSM_calls"));
        assert_eq!(SLOT_XN2, slot("XN2(80)"));
        assert_eq!(SLOT_XN2 + INT_BUCKETS, SLOT_XN);
        assert_eq!(SLOT_XN + INT_BUCKETS, SLOT_XN2F);
        assert_eq!(SLOT_XN + 6, slot("XN(4099)"));
        assert_eq!(SLOT_XN2F, slot("XN2f(448)"));
        assert_eq!(SLOT_MXN2, slot("MXN2(80)"));
        assert_eq!(SLOT_MXN2_TERMS, slot("MXN2_terms"));
        assert_eq!(N_OPS, SLOT_MXN2_TERMS + 3);
    }

    #[test]
    fn counts_and_deltas() {
        let before = snapshot();
        powmod(4000, 4099);
        powmod(80, 2050);
        composite("CRT_dec", || powmod(440, 2040));
        group_exp::<ark_bn254::G1Projective>(false, 80);
        group_exp::<ark_bls12_381::G2Projective>(true, 254);
        group_exp::<ark_ec::pairing::PairingOutput<ark_bn254::Bn254>>(false, 180);
        let d = delta(&before, &snapshot());
        // Other tests may run concurrently and add to the same counters: check >=.
        for op in ["XN2(4099)", "XN(80)", "CRT_dec", "E1v80", "E2f", "ETv180"] {
            assert!(
                d.get(op).copied().unwrap_or(0) >= 1,
                "{op} not counted: {d:?}"
            );
        }
    }
}
