//! How much each optimisation gives: the same operation done the simple way, then with each
//! improvement, on one thread, in one run. Every method's result is compared with the chosen
//! one's.
//!
//! * pairing commit (the MSM only, scalars hashed beforehand): one blst scalar multiplication
//!   per term (the reference's method), arkworks' MSM, blst's Pippenger MSM, the fixed-base table with
//!   Jacobian buckets, the fixed-base table with batch-affine buckets (chosen);
//! * pairing update (the single multiplication): blst's GLV multiplication, Straus over the
//!   shifted table (chosen);
//! * pairing verify: two pairings and a square-and-multiply power of T, one two-pair Miller loop
//!   and final exponentiation with the same power, the same with T's table (chosen);
//! * Merkle SHA-256 commit: the conventional tree through sha2's hash API (a 0x00/0x01 prefix
//!   byte, so a node is 65 bytes and two compressions: another function, so no agreement check),
//!   the compression-function tree (chosen).

use std::hint::black_box;

use ark_bls12_381::{Fr as ArkFr, G1Affine as ArkG1, G1Projective as ArkG1Projective};
use ark_ec::{CurveGroup, VariableBaseMSM};
use measure::timing::{time_with_bound, Plan, Timing};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest as _, Sha256};

use super::report::{AblationRow, MERKLE_SHA256, PAIRING};
use super::workload::{random_values, PairingFixture};
use crate::arkworks;
use crate::curve::hash_to_scalar::hash_value;
use crate::curve::msm::{naive_msm, pippenger_msm, BucketAdd};
use crate::curve::pairing::{final_exponentiation, multi_miller_loop, pairing};
use crate::curve::{G1Affine, G2Affine, Scalar, G1};
use crate::merkle::{Digest, MerkleHash, MerkleTree, Sha256Hasher};

/// One way of doing an operation.
pub struct Variant<'a> {
    /// Short name.
    pub name: &'static str,
    /// What it does.
    pub description: &'static str,
    /// Runs it once.
    pub run: Box<dyn FnMut() + 'a>,
    /// Whether its result equals the chosen method's (None: it computes another function).
    pub agrees: Option<bool>,
}

impl<'a> Variant<'a> {
    /// A method whose result `run` returns (kept from being optimised away).
    pub fn new<R>(
        name: &'static str,
        description: &'static str,
        agrees: Option<bool>,
        mut run: impl FnMut() -> R + 'a,
    ) -> Self {
        Variant {
            name,
            description,
            run: Box::new(move || {
                black_box(run());
            }),
            agrees,
        }
    }

    /// A method that computes the chosen method's function: it agrees when `run` gives `want`.
    pub fn agreeing<R: PartialEq>(
        name: &'static str,
        description: &'static str,
        want: &R,
        mut run: impl FnMut() -> R + 'a,
    ) -> Self {
        let agrees = run() == *want;
        Variant::new(name, description, Some(agrees), run)
    }
}

/// The methods compared for one operation, simplest first, chosen last.
pub struct VariantGroup<'a> {
    /// Scheme.
    pub scheme: &'static str,
    /// Operation.
    pub operation: &'static str,
    /// The methods.
    pub variants: Vec<Variant<'a>>,
}

/// Everything the compared methods work on, at one n.
pub struct AblationData {
    n: usize,
    fx: PairingFixture,
    m: Vec<Scalar>,
    bases: Vec<G1Affine>,
    slots: Vec<u32>,
    ark_bases: Vec<ArkG1>,
    ark_m: Vec<ArkFr>,
    merkle_values: Vec<Vec<u8>>,
    hasher: Sha256Hasher,
}

/// The conventional SHA-256 tree (RFC 6962 style prefixes, odd nodes promoted by pairing with
/// themselves), through the Digest API.
fn conventional_root(values: &[Vec<u8>]) -> Digest {
    let mut level: Vec<Digest> = values
        .iter()
        .map(|v| {
            Sha256::new()
                .chain_update([0u8])
                .chain_update(v)
                .finalize()
                .into()
        })
        .collect();
    while level.len() > 1 {
        level = level
            .chunks(2)
            .map(|p| {
                let r = p.get(1).unwrap_or(&p[0]);
                Sha256::new()
                    .chain_update([1u8])
                    .chain_update(p[0])
                    .chain_update(r)
                    .finalize()
                    .into()
            })
            .collect();
    }
    level[0]
}

impl AblationData {
    /// Set-up and data at `n` (at least 2).
    pub fn new(n: usize, value_bytes: usize, rng: &mut ChaCha20Rng) -> AblationData {
        let fx = PairingFixture::new(n, value_bytes, 1, rng);
        let m: Vec<Scalar> = fx.values.iter().map(|v| hash_value(v)).collect();
        let bases = fx.pp.g1_powers()[..n].to_vec();
        let ark =
            arkworks::params_from_blst(&fx.pp, &fx.vp).expect("blst parameters decode in arkworks");
        let ark_bases = (1..=n).map(|k| ark.g1[k - 1].expect("k ≤ n")).collect();
        let ark_m = fx.values.iter().map(|v| arkworks::hash_value(v)).collect();
        let merkle_values = random_values(n, value_bytes, rng);
        AblationData {
            n,
            fx,
            m,
            bases,
            slots: (0..n as u32).collect(),
            ark_bases,
            ark_m,
            merkle_values,
            hasher: Sha256Hasher::for_length(n),
        }
    }

    /// The compared methods, operation by operation.
    pub fn groups(&self) -> Vec<VariantGroup<'_>> {
        vec![
            self.commit_group(),
            self.update_group(),
            self.verify_group(),
            self.merkle_group(),
        ]
    }

    /// Pairing commit's multi-scalar multiplication: naive, arkworks, blst's Pippenger, the
    /// fixed-base table with Jacobian and with batch-affine buckets.
    fn commit_group(&self) -> VariantGroup<'_> {
        let (fx, m, bases, slots) = (&self.fx, &self.m, &self.bases, &self.slots);
        let table = fx.pp.table();
        let want = fx.c.point().to_projective();
        let (ark_bases, ark_m) = (&self.ark_bases, &self.ark_m);
        let ark_msm = move || ArkG1Projective::msm(ark_bases, ark_m).expect("same lengths");
        let ark_agrees = arkworks::g1_bytes(&ark_msm().into_affine()) == fx.c.to_bytes();
        let jacobian = move || table.msm_with(slots, m, BucketAdd::Jacobian);
        VariantGroup {
            scheme: PAIRING,
            operation: "commit",
            variants: vec![
                Variant::agreeing(
                    "naive",
                    "one blst scalar multiplication (GLV) per value, then a sum",
                    &want,
                    move || naive_msm(bases, m),
                ),
                Variant::new(
                    "arkworks-msm",
                    "arkworks 0.4 VariableBaseMSM (Pippenger) on the same bases",
                    Some(ark_agrees),
                    ark_msm,
                ),
                Variant::agreeing(
                    "blst-pippenger",
                    "blst's Pippenger MSM (variable bases)",
                    &want,
                    move || pippenger_msm(bases, m),
                ),
                Variant::agreeing(
                    "table-jacobian",
                    "fixed-base shifted table, one bucket pass, Jacobian buckets",
                    &want,
                    jacobian,
                ),
                Variant::agreeing(
                    "table-batch-affine",
                    "fixed-base shifted table, one bucket pass, batch-affine buckets",
                    &want,
                    move || table.msm(slots, m),
                ),
            ],
        }
    }

    /// Pairing commit_update's one multiplication: blst's GLV, Straus over the shifted table.
    fn update_group(&self) -> VariantGroup<'_> {
        let (fx, table) = (&self.fx, self.fx.pp.table());
        let slot = fx.changed;
        let base = fx.pp.g1_power(slot + 1).to_projective();
        let delta = hash_value(&fx.new_value).sub(&self.m[slot]);
        let want: G1 = base.mul(&delta);
        VariantGroup {
            scheme: PAIRING,
            operation: "commit_update",
            variants: vec![
                Variant::new(
                    "blst-glv",
                    "blst's scalar multiplication (GLV endomorphism)",
                    Some(true),
                    move || base.mul(&delta),
                ),
                Variant::agreeing(
                    "table-straus",
                    "Straus over the shifted table, NAF digits: c doublings",
                    &want,
                    move || table.mul(slot, &delta),
                ),
            ],
        }
    }

    /// Pairing verify: two pairings, one multi-Miller loop, the same with T's table.
    fn verify_group(&self) -> VariantGroup<'_> {
        let (fx, vp) = (&self.fx, &self.fx.vp);
        let (c, p, i) = (fx.c.point(), fx.proof.point(), fx.i);
        let h = vp.g2_power(self.n - i);
        let (mi, t, g2_neg) = (self.m[i], vp.t(), vp.g2_neg());
        let square_multiply =
            move || final_exponentiation(&multi_miller_loop(&[(c, h), (p, g2_neg)])) == t.pow(&mi);
        let two_pairings =
            move || pairing(&c, &h) == pairing(&p, &G2Affine::generator()).mul(&t.pow(&mi));
        let chosen = move || crate::pairing::verify_scalar(vp, &fx.c, i, &mi, &fx.proof);
        VariantGroup {
            scheme: PAIRING,
            operation: "verify",
            variants: vec![
                Variant::agreeing(
                    "two-pairings",
                    "two pairings (two Miller loops, two final exponentiations), T^m by square-and-multiply",
                    &chosen(),
                    two_pairings,
                ),
                Variant::agreeing(
                    "multi-miller",
                    "one 2-pair Miller loop and one final exponentiation, T^m by square-and-multiply",
                    &chosen(),
                    square_multiply,
                ),
                Variant::new(
                    "multi-miller-gt-table",
                    "one 2-pair Miller loop and one final exponentiation, T^m from T's table",
                    Some(chosen()),
                    chosen,
                ),
            ],
        }
    }

    /// Merkle SHA-256 commit: the conventional tree, the compression-function tree.
    fn merkle_group(&self) -> VariantGroup<'_> {
        let (values, hasher) = (&self.merkle_values, &self.hasher);
        VariantGroup {
            scheme: MERKLE_SHA256,
            operation: "commit",
            variants: vec![
                Variant::new(
                    "sha2-digest-api",
                    "conventional tree through sha2's Digest API: 0x00/0x01 prefixes, 65-byte nodes (two compressions each)",
                    None,
                    move || conventional_root(values),
                ),
                Variant::new(
                    "compression",
                    "tagged chaining values: one SHA-256 compression per leaf and per node",
                    Some(true),
                    move || MerkleTree::commit(hasher, values).ok(),
                ),
            ],
        }
    }
}

fn time_group(
    n: usize,
    plan: &Plan,
    g: VariantGroup,
    on_row: &mut (dyn FnMut(&AblationRow) + Send),
) -> Vec<AblationRow> {
    let last = g.variants.len() - 1;
    let mut timed: Vec<(Timing, &'static str, &'static str, Option<bool>)> = Vec::new();
    for mut v in g.variants {
        (v.run)();
        let (t, _) = time_with_bound(plan, &mut v.run, None);
        timed.push((t, v.name, v.description, v.agrees));
    }
    let base = timed[0].0.cpu_s.median;
    timed
        .into_iter()
        .enumerate()
        .map(|(k, (t, variant, description, agrees))| {
            let r = AblationRow {
                scheme: g.scheme,
                operation: g.operation,
                n,
                threads: rayon::current_num_threads(),
                variant,
                description,
                chosen: k == last,
                repetitions: t.repetitions,
                iterations: t.iterations,
                cpu_s: t.cpu_s,
                wall_s: t.wall_s,
                speedup_vs_baseline: base / t.cpu_s.median,
                agrees,
            };
            on_row(&r);
            r
        })
        .collect()
}

/// The ablation at one n, on the current rayon pool (the runner uses one thread).
pub fn ablation_rows(
    n: usize,
    plan: &Plan,
    value_bytes: usize,
    rng: &mut ChaCha20Rng,
    on_row: &mut (dyn FnMut(&AblationRow) + Send),
) -> Vec<AblationRow> {
    let data = AblationData::new(n, value_bytes, rng);
    data.groups()
        .into_iter()
        .flat_map(|g| time_group(n, plan, g, on_row))
        .collect()
}
