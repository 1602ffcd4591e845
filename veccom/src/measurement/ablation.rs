//! How much each optimisation gives: the same operation done the simple way, then with each
//! improvement, on one thread, in one run. Every method's result is compared with the chosen
//! one's.
//!
//! * pairing commit (the MSM only, scalars hashed beforehand): one blst scalar multiplication
//!   per term (the seed's method), arkworks' MSM, blst's Pippenger MSM, the fixed-base table with
//!   Jacobian buckets, the fixed-base table with batch-affine buckets (chosen);
//! * pairing update (the single multiplication): blst's GLV multiplication, Straus over the
//!   shifted table (chosen);
//! * pairing verify: two pairings and a square-and-multiply power of T, one two-pair Miller loop
//!   and final exponentiation with the same power, the same with T's table (chosen);
//! * Merkle SHA-256 commit: the conventional tree through sha2's hash API (a 0x00/0x01 prefix
//!   byte, so a node is 65 bytes and two compressions: another function, so no agreement check),
//!   the compression-function tree (chosen).

use ark_ec::{CurveGroup, VariableBaseMSM};
use sha2::{Digest as _, Sha256};

use super::report::{AblationRow, MERKLE_SHA256, PAIRING};
use super::timing::{time_pair, Plan, Timing};
use super::workload::{random_values, PairingFixture};
use crate::arkworks;
use crate::curve::hash_to_scalar::hash_value;
use crate::curve::msm::{naive_msm, pippenger_msm, BucketAdd};
use crate::curve::pairing::{final_exponentiation, multi_miller_loop, pairing};
use crate::curve::{Scalar, G1};
use crate::merkle::{Digest, MerkleHash, MerkleTree, Sha256Hasher};

struct Variant<'a> {
    name: &'static str,
    description: &'static str,
    run: Box<dyn FnMut() + 'a>,
    agrees: Option<bool>,
}

fn group(
    scheme: &'static str,
    operation: &'static str,
    n: usize,
    plan: &Plan,
    variants: Vec<Variant>,
    on_row: &mut (dyn FnMut(&AblationRow) + Send),
) -> Vec<AblationRow> {
    let last = variants.len() - 1;
    let mut timings: Vec<(Timing, &'static str, &'static str, Option<bool>)> = Vec::new();
    for mut v in variants {
        (v.run)();
        let (t, _) = time_pair(plan, &mut v.run, None);
        timings.push((t, v.name, v.description, v.agrees));
    }
    let base = timings[0].0.cpu_s.median;
    timings
        .into_iter()
        .enumerate()
        .map(|(k, (t, name, description, agrees))| {
            let r = AblationRow {
                scheme,
                operation,
                n,
                threads: rayon::current_num_threads(),
                variant: name,
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
    on_row: &mut (dyn FnMut(&AblationRow) + Send),
) -> Vec<AblationRow> {
    let fx = PairingFixture::new(n, value_bytes, 1);
    let (pp, vp) = (&fx.pp, &fx.vp);
    let m: Vec<Scalar> = fx.values.iter().map(|v| hash_value(v)).collect();
    let bases = pp.g1_powers()[..n].to_vec();
    let slots: Vec<u32> = (0..n as u32).collect();
    let table = pp.table();
    let want = fx.c.point().to_projective();
    let ark = arkworks::params_from_blst(pp, vp).expect("blst parameters decode in arkworks");
    let ark_bases: Vec<_> = (1..=n).map(|k| ark.g1[k - 1].expect("k ≤ n")).collect();
    let ark_m: Vec<_> = fx.values.iter().map(|v| arkworks::hash_value(v)).collect();
    let agrees_ark = {
        let p = ark_bls12_381::G1Projective::msm(&ark_bases, &ark_m).expect("same lengths");
        arkworks::g1_bytes(&p.into_affine()) == fx.c.to_bytes()
    };
    let mut rows = Vec::new();
    rows.extend(group(
        PAIRING,
        "commit",
        n,
        plan,
        vec![
            Variant {
                name: "naive",
                description: "one blst scalar multiplication (GLV) per value, then a sum",
                agrees: Some(naive_msm(&bases, &m) == want),
                run: Box::new(|| {
                    std::hint::black_box(naive_msm(&bases, &m));
                }),
            },
            Variant {
                name: "arkworks-msm",
                description: "arkworks 0.4 VariableBaseMSM (Pippenger) on the same bases",
                agrees: Some(agrees_ark),
                run: Box::new(|| {
                    std::hint::black_box(ark_bls12_381::G1Projective::msm(&ark_bases, &ark_m).ok());
                }),
            },
            Variant {
                name: "blst-pippenger",
                description: "blst's Pippenger MSM (variable bases)",
                agrees: Some(pippenger_msm(&bases, &m) == want),
                run: Box::new(|| {
                    std::hint::black_box(pippenger_msm(&bases, &m));
                }),
            },
            Variant {
                name: "table-jacobian",
                description: "fixed-base shifted table, one bucket pass, Jacobian buckets",
                agrees: Some(table.msm_with(&slots, &m, BucketAdd::Jacobian) == want),
                run: Box::new(|| {
                    std::hint::black_box(table.msm_with(&slots, &m, BucketAdd::Jacobian));
                }),
            },
            Variant {
                name: "table-batch-affine",
                description: "fixed-base shifted table, one bucket pass, batch-affine buckets",
                agrees: Some(table.msm(&slots, &m) == want),
                run: Box::new(|| {
                    std::hint::black_box(table.msm(&slots, &m));
                }),
            },
        ],
        on_row,
    ));

    let slot = fx.changed;
    let base = pp.g1_power(slot + 1).to_projective();
    let delta = hash_value(&fx.new_value).sub(&m[slot]);
    let want_u: G1 = base.mul(&delta);
    rows.extend(group(
        PAIRING,
        "commit_update",
        n,
        plan,
        vec![
            Variant {
                name: "blst-glv",
                description: "blst's scalar multiplication (GLV endomorphism)",
                agrees: Some(true),
                run: Box::new(|| {
                    std::hint::black_box(base.mul(&delta));
                }),
            },
            Variant {
                name: "table-straus",
                description: "Straus over the shifted table, NAF digits: c doublings",
                agrees: Some(table.mul(slot, &delta) == want_u),
                run: Box::new(|| {
                    std::hint::black_box(table.mul(slot, &delta));
                }),
            },
        ],
        on_row,
    ));

    let (c, p, i) = (fx.c.point(), fx.proof.point(), fx.i);
    let h = vp.g2_power(n - i);
    let mi = m[i];
    let t = vp.t();
    let square_multiply = move || {
        let lhs = final_exponentiation(&multi_miller_loop(&[(c, h), (p, vp.g2_neg())]));
        lhs == t.pow(&mi)
    };
    let two_pairings = move || {
        let e1 = pairing(&c, &h);
        let e2 = pairing(&p, &crate::curve::G2Affine::generator());
        e1 == e2.mul(&t.pow(&mi))
    };
    let chosen = move || crate::pairing::verify_scalar(vp, &fx.c, i, &mi, &fx.proof);
    rows.extend(group(
        PAIRING,
        "verify",
        n,
        plan,
        vec![
            Variant {
                name: "two-pairings",
                description: "two pairings (two Miller loops, two final exponentiations), T^m by square-and-multiply",
                agrees: Some(two_pairings() == chosen()),
                run: Box::new(move || {
                    std::hint::black_box(two_pairings());
                }),
            },
            Variant {
                name: "multi-miller",
                description: "one 2-pair Miller loop and one final exponentiation, T^m by square-and-multiply",
                agrees: Some(square_multiply() == chosen()),
                run: Box::new(move || {
                    std::hint::black_box(square_multiply());
                }),
            },
            Variant {
                name: "multi-miller-gt-table",
                description: "one 2-pair Miller loop and one final exponentiation, T^m from T's table",
                agrees: Some(chosen()),
                run: Box::new(move || {
                    std::hint::black_box(chosen());
                }),
            },
        ],
        on_row,
    ));

    let values = random_values(
        n,
        value_bytes,
        &mut rand_chacha::rand_core::SeedableRng::from_entropy(),
    );
    let hasher = Sha256Hasher::for_length(n);
    let conventional = |vals: &[Vec<u8>]| -> Digest {
        let mut level: Vec<Digest> = vals
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
    };
    rows.extend(group(
        MERKLE_SHA256,
        "commit",
        n,
        plan,
        vec![
            Variant {
                name: "sha2-digest-api",
                description: "conventional tree through sha2's Digest API: 0x00/0x01 prefixes, 65-byte nodes (two compressions each)",
                agrees: None,
                run: Box::new(|| {
                    std::hint::black_box(conventional(&values));
                }),
            },
            Variant {
                name: "compression",
                description: "tagged chaining values: one SHA-256 compression per leaf and per node",
                agrees: Some(true),
                run: Box::new(|| {
                    std::hint::black_box(MerkleTree::commit(&hasher, &values).ok());
                }),
            },
        ],
        on_row,
    ));
    rows
}
