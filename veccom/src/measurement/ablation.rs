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
        let (fx, m, bases, slots) = (&self.fx, &self.m, &self.bases, &self.slots);
        let (pp, vp, n) = (&fx.pp, &fx.vp, self.n);
        let table = pp.table();
        let want = fx.c.point().to_projective();
        let (ark_bases, ark_m) = (&self.ark_bases, &self.ark_m);
        let ark_msm = move || ArkG1Projective::msm(ark_bases, ark_m).expect("same lengths");
        let commit = VariantGroup {
            scheme: PAIRING,
            operation: "commit",
            variants: vec![
                Variant {
                    name: "naive",
                    description: "one blst scalar multiplication (GLV) per value, then a sum",
                    agrees: Some(naive_msm(bases, m) == want),
                    run: Box::new(move || {
                        black_box(naive_msm(bases, m));
                    }),
                },
                Variant {
                    name: "arkworks-msm",
                    description: "arkworks 0.4 VariableBaseMSM (Pippenger) on the same bases",
                    agrees: Some(arkworks::g1_bytes(&ark_msm().into_affine()) == fx.c.to_bytes()),
                    run: Box::new(move || {
                        let _ = black_box(ark_msm());
                    }),
                },
                Variant {
                    name: "blst-pippenger",
                    description: "blst's Pippenger MSM (variable bases)",
                    agrees: Some(pippenger_msm(bases, m) == want),
                    run: Box::new(move || {
                        black_box(pippenger_msm(bases, m));
                    }),
                },
                Variant {
                    name: "table-jacobian",
                    description: "fixed-base shifted table, one bucket pass, Jacobian buckets",
                    agrees: Some(table.msm_with(slots, m, BucketAdd::Jacobian) == want),
                    run: Box::new(move || {
                        black_box(table.msm_with(slots, m, BucketAdd::Jacobian));
                    }),
                },
                Variant {
                    name: "table-batch-affine",
                    description: "fixed-base shifted table, one bucket pass, batch-affine buckets",
                    agrees: Some(table.msm(slots, m) == want),
                    run: Box::new(move || {
                        black_box(table.msm(slots, m));
                    }),
                },
            ],
        };

        let slot = fx.changed;
        let base = pp.g1_power(slot + 1).to_projective();
        let delta = hash_value(&fx.new_value).sub(&m[slot]);
        let want_u: G1 = base.mul(&delta);
        let update = VariantGroup {
            scheme: PAIRING,
            operation: "commit_update",
            variants: vec![
                Variant {
                    name: "blst-glv",
                    description: "blst's scalar multiplication (GLV endomorphism)",
                    agrees: Some(true),
                    run: Box::new(move || {
                        black_box(base.mul(&delta));
                    }),
                },
                Variant {
                    name: "table-straus",
                    description: "Straus over the shifted table, NAF digits: c doublings",
                    agrees: Some(table.mul(slot, &delta) == want_u),
                    run: Box::new(move || {
                        black_box(table.mul(slot, &delta));
                    }),
                },
            ],
        };

        let (c, p, i) = (fx.c.point(), fx.proof.point(), fx.i);
        let h = vp.g2_power(n - i);
        let (mi, t, g2_neg) = (m[i], vp.t(), vp.g2_neg());
        let square_multiply =
            move || final_exponentiation(&multi_miller_loop(&[(c, h), (p, g2_neg)])) == t.pow(&mi);
        let two_pairings =
            move || pairing(&c, &h) == pairing(&p, &G2Affine::generator()).mul(&t.pow(&mi));
        let chosen = move || crate::pairing::verify_scalar(vp, &fx.c, i, &mi, &fx.proof);
        let verify = VariantGroup {
            scheme: PAIRING,
            operation: "verify",
            variants: vec![
                Variant {
                    name: "two-pairings",
                    description: "two pairings (two Miller loops, two final exponentiations), T^m by square-and-multiply",
                    agrees: Some(two_pairings() == chosen()),
                    run: Box::new(move || {
                        black_box(two_pairings());
                    }),
                },
                Variant {
                    name: "multi-miller",
                    description: "one 2-pair Miller loop and one final exponentiation, T^m by square-and-multiply",
                    agrees: Some(square_multiply() == chosen()),
                    run: Box::new(move || {
                        black_box(square_multiply());
                    }),
                },
                Variant {
                    name: "multi-miller-gt-table",
                    description: "one 2-pair Miller loop and one final exponentiation, T^m from T's table",
                    agrees: Some(chosen()),
                    run: Box::new(move || {
                        black_box(chosen());
                    }),
                },
            ],
        };

        let (values, hasher) = (&self.merkle_values, &self.hasher);
        let merkle = VariantGroup {
            scheme: MERKLE_SHA256,
            operation: "commit",
            variants: vec![
                Variant {
                    name: "sha2-digest-api",
                    description: "conventional tree through sha2's Digest API: 0x00/0x01 prefixes, 65-byte nodes (two compressions each)",
                    agrees: None,
                    run: Box::new(move || {
                        black_box(conventional_root(values));
                    }),
                },
                Variant {
                    name: "compression",
                    description: "tagged chaining values: one SHA-256 compression per leaf and per node",
                    agrees: Some(true),
                    run: Box::new(move || {
                        black_box(MerkleTree::commit(hasher, values).ok());
                    }),
                },
            ],
        };
        vec![commit, update, verify, merkle]
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
