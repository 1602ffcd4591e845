//! The measured operations of each scheme at one n, each with its check and, where defined, its
//! counted-operation lower bound timed in alternation with it.
//!
//! Lower bounds (what the operation cannot avoid, timed with the same library on the same data):
//!
//! | scheme   | operation                     | lower bound                                        |
//! |----------|-------------------------------|----------------------------------------------------|
//! | pairing  | commit                        | blst Pippenger MSM of the n parameters and scalars |
//! | pairing  | prove                         | blst Pippenger MSM of the n − 1 terms of the proof |
//! | pairing  | verify                        | blst 2-pair Miller loop + 1 final exponentiation   |
//! | pairing  | commit_update, proof_update   | 1 blst scalar multiplication of the same base      |
//! | Merkle   | commit                        | 2n − 1 compressions                                |
//! | Merkle   | verify, commit_update, tree_update | 1 + ⌈log2 n⌉ compressions (leaf and path)     |
//! | Merkle   | proof_update (no helper)      | 1 + ℓ compressions, ℓ the height where paths meet  |
//!
//! The pairing MSM bounds run on the same thread pool as the operation (blst's Pippenger on
//! each thread's share of the terms). The bounds count variable-base work; the scheme's prover
//! uses a fixed-base table built at set-up, which is why commit, prove and the updates come out
//! below them (a ratio under 1).

use measure::clock::peak_rss_mib;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::json;

use super::report::{LowerBound, Row, Sizes, MERKLE_BLAKE3, MERKLE_SHA256, PAIRING};
use super::timing::{time_once, time_pair, Plan, Timing};
use crate::curve::msm::pippenger_msm_from_bytes;
use crate::curve::pairing::{final_exponentiation, multi_miller_loop};
use crate::curve::{G1Affine, Scalar};
use crate::merkle::hash::sha256_compression;
use crate::merkle::{self, depth, Blake3Hasher, Digest, MerkleHash, MerkleTree, Sha256Hasher};
use crate::pairing::{self as pvc, Commitment, Proof, ProverParams, VerifierParams};

/// Operations of the pairing scheme, in report order.
pub const PAIRING_OPS: [&str; 8] = [
    "commit",
    "prove",
    "verify",
    "commit_update",
    "proof_update",
    "prove_batch",
    "aggregate",
    "verify_batch",
];

/// Operations of the Merkle scheme, in report order.
pub const MERKLE_OPS: [&str; 7] = [
    "commit",
    "prove",
    "verify",
    "commit_update",
    "tree_update",
    "proof_update",
    "proof_update_with_hint",
];

/// Operations that use more than one thread (the others are measured on one thread only).
pub fn is_parallel(scheme: &str, op: &str) -> bool {
    match scheme {
        PAIRING => matches!(op, "setup" | "commit" | "prove" | "prove_batch"),
        _ => op == "commit",
    }
}

/// What every measurement needs besides the scheme and n.
pub struct Context<'a> {
    /// Timing plan.
    pub plan: Plan,
    /// Operations to run (empty: all).
    pub ops: &'a [String],
    /// Bytes per random value.
    pub value_bytes: usize,
    /// Positions in a batch.
    pub batch: usize,
    /// Called after each operation with its row (progress, log lines).
    pub on_row: &'a mut (dyn FnMut(&Row) + Send),
}

/// Whether `op` of `scheme` is to run: asked for (or all asked for), and on one thread unless
/// it uses more.
fn wanted(ops: &[String], scheme: &str, op: &str, threads: usize) -> bool {
    (ops.is_empty() || ops.iter().any(|o| o == op)) && (threads == 1 || is_parallel(scheme, op))
}

/// Random values for a vector of length n, from a generator seeded by the OS.
pub fn random_values(n: usize, bytes: usize, rng: &mut ChaCha20Rng) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let mut v = vec![0u8; bytes];
            rng.fill_bytes(&mut v);
            v
        })
        .collect()
}

/// Resets the process's peak-RSS mark to its current RSS (Linux: /proc/self/clear_refs), so
/// that the next reading is the peak of what follows. Returns false where unsupported.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

#[allow(clippy::too_many_arguments)]
fn row(
    scheme: &'static str,
    operation: &'static str,
    n: usize,
    t: &Timing,
    lb: Option<(String, &Timing)>,
    sizes: &Sizes,
    verified: bool,
    detail: serde_json::Value,
) -> Row {
    Row {
        scheme,
        operation,
        n,
        threads: rayon::current_num_threads(),
        repetitions: t.repetitions,
        iterations: t.iterations,
        cpu_s: t.cpu_s,
        wall_s: t.wall_s,
        sizes: sizes.clone(),
        peak_rss_mib: f64::NAN,
        lower_bound: lb.map(|(what, lt)| LowerBound::new(what, lt, t)),
        verified,
        detail,
    }
}

/// The pairing scheme's set-up and data at one n.
pub struct PairingFixture {
    pub(crate) n: usize,
    pub(crate) pp: ProverParams,
    pub(crate) vp: VerifierParams,
    pub(crate) values: Vec<Vec<u8>>,
    pub(crate) c: Commitment,
    /// The position proved, verified and whose proof is updated.
    pub(crate) i: usize,
    pub(crate) proof: Proof,
    /// The position changed by the updates.
    pub(crate) changed: usize,
    pub(crate) new_value: Vec<u8>,
    pub(crate) batch: Vec<usize>,
    pub(crate) sizes: Sizes,
    pub(crate) setup: Timing,
}

impl PairingFixture {
    /// Set-up (timed once) and the data of one n.
    pub fn new(n: usize, value_bytes: usize, batch: usize) -> PairingFixture {
        let mut rng = ChaCha20Rng::from_entropy();
        let ((pp, vp), setup) = time_once(|| pvc::setup(n, &mut rng).expect("n was validated"));
        let values = random_values(n, value_bytes, &mut rng);
        let c = pvc::commit(&pp, &values).expect("n values");
        let i = n / 2;
        let proof = pvc::prove(&pp, &values, i).expect("i < n");
        let changed = n / 4;
        let new_value = random_values(1, value_bytes, &mut rng).remove(0);
        let k = batch.clamp(1, n);
        let batch: Vec<usize> = (0..k).map(|t| t * n / k).collect();
        let sizes = Sizes {
            commitment_bytes: Commitment::BYTES,
            proof_bytes: Proof::BYTES,
            batch_proof_bytes: Some(Proof::BYTES),
            prover_params_bytes: Some(pp.encoded_bytes()),
            verifier_params_bytes: Some(vp.encoded_bytes()),
            prover_table_bytes: Some(pp.table_bytes()),
            verifier_table_bytes: Some(vp.table_bytes()),
            tree_bytes: None,
        };
        PairingFixture {
            n,
            pp,
            vp,
            values,
            c,
            i,
            proof,
            changed,
            new_value,
            batch,
            sizes,
            setup,
        }
    }

    /// The set-up row (timed once, when the fixture was made).
    pub fn setup_row(&self, threads: usize) -> Row {
        let mut r = row(
            PAIRING,
            "setup",
            self.n,
            &self.setup,
            None,
            &self.sizes,
            true,
            json!({"window_bits": self.pp.window_bits()}),
        );
        r.threads = threads;
        r
    }

    /// Times every wanted operation on the current rayon pool.
    pub fn run(&self, ctx: &mut Context) -> Vec<Row> {
        let threads = rayon::current_num_threads();
        let (n, pp, vp, v) = (self.n, &self.pp, &self.vp, &self.values);
        let mut rows = Vec::new();
        let m = pvc::hash_values(v);
        let m_bytes: Vec<[u8; 32]> = m.iter().map(Scalar::to_le_bytes).collect();
        let powers = pp.g1_powers();
        let (ops, plan, on_row) = (ctx.ops, ctx.plan, &mut *ctx.on_row);
        let mut emit = |r: Row, rows: &mut Vec<Row>| {
            on_row(&r);
            rows.push(r);
        };
        let wanted = |op: &str| wanted(ops, PAIRING, op, threads);
        let detail = json!({"index": self.i, "window_bits": pp.window_bits()});

        if wanted("commit") {
            let bases = &powers[..n];
            let lb_out = pippenger_msm_from_bytes(bases, &m_bytes).to_affine();
            let ok = pvc::commit(pp, v).ok() == Some(self.c) && lb_out == self.c.point();
            let (t, lt) = time_pair(
                &plan,
                &mut || {
                    std::hint::black_box(pvc::commit(pp, v).ok());
                },
                Some(&mut || {
                    std::hint::black_box(pippenger_msm_from_bytes(bases, &m_bytes));
                }),
            );
            let what = format!("blst Pippenger MSM of {n} points");
            emit(
                row(
                    PAIRING,
                    "commit",
                    n,
                    &t,
                    lt.as_ref().map(|l| (what, l)),
                    &self.sizes,
                    ok,
                    detail.clone(),
                ),
                &mut rows,
            );
        }
        if wanted("prove") {
            let i1 = self.i + 1;
            let (bases, scal): (Vec<G1Affine>, Vec<[u8; 32]>) = (1..=n)
                .filter(|&j| j != i1)
                .map(|j| (pp.g1_power(n + 1 - i1 + j), m_bytes[j - 1]))
                .unzip();
            let lb_out = pippenger_msm_from_bytes(&bases, &scal).to_affine();
            let p = pvc::prove(pp, v, self.i).ok();
            let ok = p == Some(self.proof)
                && lb_out == self.proof.point()
                && pvc::verify(vp, &self.c, self.i, &v[self.i], &self.proof);
            let (t, lt) = time_pair(
                &plan,
                &mut || {
                    std::hint::black_box(pvc::prove(pp, v, self.i).ok());
                },
                Some(&mut || {
                    std::hint::black_box(pippenger_msm_from_bytes(&bases, &scal));
                }),
            );
            let what = format!("blst Pippenger MSM of {} points", n - 1);
            emit(
                row(
                    PAIRING,
                    "prove",
                    n,
                    &t,
                    lt.as_ref().map(|l| (what, l)),
                    &self.sizes,
                    ok,
                    detail.clone(),
                ),
                &mut rows,
            );
        }
        if wanted("verify") {
            let pairs = [
                (self.c.point(), vp.g2_power(n - self.i)),
                (self.proof.point(), vp.g2_neg()),
            ];
            let ok = pvc::verify(vp, &self.c, self.i, &v[self.i], &self.proof)
                && !pvc::verify(vp, &self.c, self.i, b"not the value", &self.proof);
            let (t, lt) = time_pair(
                &plan,
                &mut || {
                    std::hint::black_box(pvc::verify(vp, &self.c, self.i, &v[self.i], &self.proof));
                },
                Some(&mut || {
                    std::hint::black_box(final_exponentiation(&multi_miller_loop(&pairs)));
                }),
            );
            let what = "blst 2-pair Miller loop + 1 final exponentiation".to_string();
            emit(
                row(
                    PAIRING,
                    "verify",
                    n,
                    &t,
                    lt.as_ref().map(|l| (what, l)),
                    &self.sizes,
                    ok,
                    detail.clone(),
                ),
                &mut rows,
            );
        }
        let old = &v[self.changed];
        let new = &self.new_value;
        let delta = crate::curve::hash_to_scalar::hash_value(new)
            .sub(&crate::curve::hash_to_scalar::hash_value(old));
        let mut new_vector = v.clone();
        new_vector[self.changed] = new.clone();
        let upd_detail = json!({"index": self.i, "changed": self.changed});
        if wanted("commit_update") {
            let base = pp.g1_power(self.changed + 1).to_projective();
            let ok = pvc::commit_update(pp, &self.c, self.changed, old, new).ok()
                == pvc::commit(pp, &new_vector).ok();
            let (t, lt) = time_pair(
                &plan,
                &mut || {
                    std::hint::black_box(
                        pvc::commit_update(pp, &self.c, self.changed, old, new).ok(),
                    );
                },
                Some(&mut || {
                    std::hint::black_box(base.mul(&delta));
                }),
            );
            let what = "1 blst G1 scalar multiplication (GLV)".to_string();
            emit(
                row(
                    PAIRING,
                    "commit_update",
                    n,
                    &t,
                    lt.as_ref().map(|l| (what, l)),
                    &self.sizes,
                    ok,
                    upd_detail.clone(),
                ),
                &mut rows,
            );
        }
        if wanted("proof_update") && n > 1 {
            let (j, i) = (self.i + 1, self.changed + 1);
            let base = pp.g1_power(n + 1 - j + i).to_projective();
            let upd = || pvc::proof_update(pp, &self.proof, self.i, self.changed, old, new).ok();
            let ok = upd() == pvc::prove(pp, &new_vector, self.i).ok();
            let (t, lt) = time_pair(
                &plan,
                &mut || {
                    std::hint::black_box(upd());
                },
                Some(&mut || {
                    std::hint::black_box(base.mul(&delta));
                }),
            );
            let what = "1 blst G1 scalar multiplication (GLV)".to_string();
            emit(
                row(
                    PAIRING,
                    "proof_update",
                    n,
                    &t,
                    lt.as_ref().map(|l| (what, l)),
                    &self.sizes,
                    ok,
                    upd_detail.clone(),
                ),
                &mut rows,
            );
        }
        let s = &self.batch;
        let batch_detail = json!({"batch_size": s.len(), "positions": s});
        let need_batch = wanted("prove_batch") || wanted("aggregate") || wanted("verify_batch");
        if need_batch {
            let pb = pvc::prove_batch(pp, &self.c, v, s).expect("valid batch");
            let items: Vec<(usize, &[u8])> = s.iter().map(|&i| (i, v[i].as_slice())).collect();
            if wanted("prove_batch") {
                let ok = pvc::verify_batch(vp, &self.c, &items, &pb);
                let (t, _) = time_pair(
                    &plan,
                    &mut || {
                        std::hint::black_box(pvc::prove_batch(pp, &self.c, v, s).ok());
                    },
                    None,
                );
                emit(
                    row(
                        PAIRING,
                        "prove_batch",
                        n,
                        &t,
                        None,
                        &self.sizes,
                        ok,
                        batch_detail.clone(),
                    ),
                    &mut rows,
                );
            }
            if wanted("aggregate") {
                let singles: Vec<(usize, &[u8], Proof)> = s
                    .iter()
                    .map(|&i| (i, v[i].as_slice(), pvc::prove(pp, v, i).expect("i < n")))
                    .collect();
                let ok = pvc::aggregate(n, &self.c, &singles).ok() == Some(pb);
                let (t, _) = time_pair(
                    &plan,
                    &mut || {
                        std::hint::black_box(pvc::aggregate(n, &self.c, &singles).ok());
                    },
                    None,
                );
                emit(
                    row(
                        PAIRING,
                        "aggregate",
                        n,
                        &t,
                        None,
                        &self.sizes,
                        ok,
                        batch_detail.clone(),
                    ),
                    &mut rows,
                );
            }
            if wanted("verify_batch") {
                let mut wrong = items.clone();
                wrong[0].1 = b"not the value";
                let ok = pvc::verify_batch(vp, &self.c, &items, &pb)
                    && !pvc::verify_batch(vp, &self.c, &wrong, &pb);
                let (t, _) = time_pair(
                    &plan,
                    &mut || {
                        std::hint::black_box(pvc::verify_batch(vp, &self.c, &items, &pb));
                    },
                    None,
                );
                emit(
                    row(
                        PAIRING,
                        "verify_batch",
                        n,
                        &t,
                        None,
                        &self.sizes,
                        ok,
                        batch_detail.clone(),
                    ),
                    &mut rows,
                );
            }
        }
        rows
    }
}

/// `count` chained compressions of one block: the unit the Merkle bounds count.
fn sha256_compressions(count: usize, state: &mut [u32; 8]) {
    let block = [0x5au8; 64];
    for _ in 0..count {
        sha256_compression(state, &block);
    }
}

/// `count` one-block BLAKE3 hashes (keyed, 64-byte input: one compression each).
fn blake3_compressions(count: usize, acc: &mut [u8; 32]) {
    let key = [7u8; 32];
    let mut block = [0u8; 64];
    for _ in 0..count {
        block[..32].copy_from_slice(acc);
        *acc = *blake3::keyed_hash(&key, &block).as_bytes();
    }
}

/// The unit compression of a Merkle column, as a closure over a count.
pub trait Compressions: MerkleHash {
    /// Scheme name in reports.
    const SCHEME: &'static str;
    /// What one unit is.
    const UNIT: &'static str;
    /// Runs `count` units.
    fn compressions(count: usize);
}

impl Compressions for Sha256Hasher {
    const SCHEME: &'static str = MERKLE_SHA256;
    const UNIT: &'static str = "SHA-256 compressions";
    fn compressions(count: usize) {
        let mut s = [1u32; 8];
        sha256_compressions(count, &mut s);
        std::hint::black_box(s);
    }
}

impl Compressions for Blake3Hasher {
    const SCHEME: &'static str = MERKLE_BLAKE3;
    const UNIT: &'static str = "one-block BLAKE3 hashes";
    fn compressions(count: usize) {
        let mut a = [0u8; 32];
        blake3_compressions(count, &mut a);
        std::hint::black_box(a);
    }
}

/// Compressions of building a tree of n leaves (2n − 1 is the bound; padding adds up to one
/// node per level).
pub fn tree_compressions(n: usize) -> usize {
    2 * n - 1
}

/// Times every wanted Merkle operation at one n on the current rayon pool.
pub fn merkle_rows<H: Compressions>(n: usize, ctx: &mut Context) -> Vec<Row> {
    let threads = rayon::current_num_threads();
    let (ops, plan, on_row) = (ctx.ops, ctx.plan, &mut *ctx.on_row);
    let wanted = |op: &str| wanted(ops, H::SCHEME, op, threads);
    let mut rng = ChaCha20Rng::from_entropy();
    let v = random_values(n, ctx.value_bytes, &mut rng);
    let value_bytes = ctx.value_bytes;
    let hasher = H::for_length(n);
    let tree = MerkleTree::commit(&hasher, &v).expect("n ≥ 1");
    let root = tree.root();
    let d = depth(n);
    let sizes = Sizes {
        commitment_bytes: 32,
        proof_bytes: 32 * d,
        tree_bytes: Some(32 * tree.stored_nodes()),
        ..Sizes::default()
    };
    let (i, j) = (0usize, n - 1);
    let proof_i = tree.prove(i).expect("i < n");
    let proof_j = tree.prove(j).expect("j < n");
    let new = random_values(1, value_bytes, &mut rng).remove(0);
    let mut new_vector = v.clone();
    new_vector[i] = new.clone();
    let fresh = MerkleTree::commit(&hasher, &new_vector).expect("n ≥ 1");
    let meet = if n > 1 {
        (usize::BITS - 1 - (i ^ j).leading_zeros()) as usize
    } else {
        0
    };
    let mut rows = Vec::new();
    let mut emit = |r: Row, rows: &mut Vec<Row>| {
        on_row(&r);
        rows.push(r);
    };
    let path_bound = (format!("{} {}", 1 + d, H::UNIT), 1 + d);
    let detail = json!({"index": i, "other": j, "depth": d});

    if wanted("commit") {
        let ok = MerkleTree::commit(&hasher, &v).map(|t| t.root()).ok() == Some(root)
            && merkle::verify(&hasher, &root, n, j, &v[j], &proof_j);
        let k = tree_compressions(n);
        let (t, lt) = time_pair(
            &plan,
            &mut || {
                std::hint::black_box(MerkleTree::commit(&hasher, &v).ok());
            },
            Some(&mut || H::compressions(k)),
        );
        let what = format!("{k} {}", H::UNIT);
        emit(
            row(
                H::SCHEME,
                "commit",
                n,
                &t,
                lt.as_ref().map(|l| (what, l)),
                &sizes,
                ok,
                detail.clone(),
            ),
            &mut rows,
        );
    }
    if wanted("prove") {
        let ok = tree.prove(j).ok().as_deref() == Some(&proof_j[..])
            && merkle::verify(&hasher, &root, n, j, &v[j], &proof_j);
        let (t, _) = time_pair(
            &plan,
            &mut || {
                std::hint::black_box(tree.prove(j).ok());
            },
            None,
        );
        emit(
            row(H::SCHEME, "prove", n, &t, None, &sizes, ok, detail.clone()),
            &mut rows,
        );
    }
    if wanted("verify") {
        let ok = merkle::verify(&hasher, &root, n, j, &v[j], &proof_j)
            && !merkle::verify(&hasher, &root, n, j, b"not the value", &proof_j);
        let (t, lt) = time_pair(
            &plan,
            &mut || {
                std::hint::black_box(merkle::verify(&hasher, &root, n, j, &v[j], &proof_j));
            },
            Some(&mut || H::compressions(path_bound.1)),
        );
        emit(
            row(
                H::SCHEME,
                "verify",
                n,
                &t,
                lt.as_ref().map(|l| (path_bound.0.clone(), l)),
                &sizes,
                ok,
                detail.clone(),
            ),
            &mut rows,
        );
    }
    let (new_root, hint) = merkle::commit_update(&hasher, i, &new, &proof_i);
    if wanted("commit_update") {
        let ok = new_root == fresh.root();
        let (t, lt) = time_pair(
            &plan,
            &mut || {
                std::hint::black_box(merkle::commit_update(&hasher, i, &new, &proof_i));
            },
            Some(&mut || H::compressions(path_bound.1)),
        );
        emit(
            row(
                H::SCHEME,
                "commit_update",
                n,
                &t,
                lt.as_ref().map(|l| (path_bound.0.clone(), l)),
                &sizes,
                ok,
                detail.clone(),
            ),
            &mut rows,
        );
    }
    if wanted("tree_update") {
        let mut kept = tree.clone();
        let ok = kept.update(i, &new).ok() == Some(fresh.root());
        let (t, lt) = time_pair(
            &plan,
            &mut || {
                std::hint::black_box(kept.update(i, &new).ok());
            },
            Some(&mut || H::compressions(path_bound.1)),
        );
        emit(
            row(
                H::SCHEME,
                "tree_update",
                n,
                &t,
                lt.as_ref().map(|l| (path_bound.0.clone(), l)),
                &sizes,
                ok,
                detail.clone(),
            ),
            &mut rows,
        );
    }
    let want_j: Vec<Digest> = fresh.prove(j).expect("j < n");
    if wanted("proof_update") && n > 1 {
        let mut buf = proof_j.clone();
        merkle::proof_update(&hasher, &mut buf, j, i, &new, &proof_i);
        let ok = buf == want_j;
        let k = 1 + meet;
        let (t, lt) = time_pair(
            &plan,
            &mut || {
                buf.copy_from_slice(&proof_j);
                merkle::proof_update(&hasher, &mut buf, j, i, &new, &proof_i);
                std::hint::black_box(&buf);
            },
            Some(&mut || H::compressions(k)),
        );
        let what = format!("{k} {}", H::UNIT);
        emit(
            row(
                H::SCHEME,
                "proof_update",
                n,
                &t,
                lt.as_ref().map(|l| (what, l)),
                &sizes,
                ok,
                json!({"index": i, "other": j, "depth": d, "meeting_height": meet}),
            ),
            &mut rows,
        );
    }
    if wanted("proof_update_with_hint") && n > 1 {
        let mut buf = proof_j.clone();
        merkle::proof_update_with_hint(&mut buf, j, &hint);
        let ok = buf == want_j;
        let (t, _) = time_pair(
            &plan,
            &mut || {
                buf.copy_from_slice(&proof_j);
                merkle::proof_update_with_hint(&mut buf, j, &hint);
                std::hint::black_box(&buf);
            },
            None,
        );
        emit(
            row(
                H::SCHEME,
                "proof_update_with_hint",
                n,
                &t,
                None,
                &sizes,
                ok,
                detail.clone(),
            ),
            &mut rows,
        );
    }
    rows
}

/// Fills in the peak RSS of a finished (scheme, n) group of rows.
pub fn set_peak_rss(rows: &mut [Row]) {
    let peak = peak_rss_mib();
    for r in rows {
        r.peak_rss_mib = peak;
    }
}
