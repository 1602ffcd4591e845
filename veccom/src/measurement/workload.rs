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
use measure::envelope::Inputs;
use measure::timing::{time_once, time_with_bound, Plan, Timing};
use rand_chacha::rand_core::RngCore;
use rand_chacha::ChaCha20Rng;
use serde_json::json;

use super::report::{LowerBound, Row, Sizes, MERKLE_BLAKE3, MERKLE_SHA256, PAIRING};
use std::hint::black_box;

use crate::curve::hash_to_scalar::hash_value;
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

/// Random values for a vector of length n from `rng` (a stream of the run's seed, or of the OS).
pub fn random_values(n: usize, bytes: usize, rng: &mut ChaCha20Rng) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let mut v = vec![0u8; bytes];
            rng.fill_bytes(&mut v);
            v
        })
        .collect()
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
        peak_rss_mib: None,
        start_rss_mib: None,
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
    /// Its random draws (the trapdoor and the values) come from `rng`: with a seed, the trapdoor
    /// is derived from the public seed (not secret).
    pub fn new(
        n: usize,
        value_bytes: usize,
        batch: usize,
        rng: &mut ChaCha20Rng,
    ) -> PairingFixture {
        let ((pp, vp), setup) = time_once(|| pvc::setup(n, &mut *rng).expect("n was validated"));
        let values = random_values(n, value_bytes, rng);
        let c = pvc::commit(&pp, &values).expect("n values");
        let i = n / 2;
        let proof = pvc::prove(&pp, &values, i).expect("i < n");
        let changed = n / 4;
        let new_value = random_values(1, value_bytes, rng).remove(0);
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

    /// Adds the generated values and the commitment (a function of the trapdoor too) to the
    /// run's input digest.
    pub fn add_inputs(&self, inputs: &mut Inputs) {
        let label = format!("{PAIRING} n={}", self.n);
        for v in &self.values {
            inputs.add(&format!("{label} value"), v);
        }
        inputs.add(&format!("{label} commitment"), &self.c.to_bytes());
        inputs.add(&format!("{label} new value"), &self.new_value);
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

    /// The wanted operations, each checked once, with its lower bound where one is defined.
    pub fn operations<'a>(&'a self, wanted: &dyn Fn(&str) -> bool) -> Vec<Measured<'a>> {
        let mut out = self.opening_ops(wanted);
        out.extend(self.update_ops(wanted));
        out.extend(self.batch_ops(wanted));
        out
    }

    /// commit, prove and verify, each beside its multi-scalar multiplication or pairing bound.
    fn opening_ops<'a>(&'a self, wanted: &dyn Fn(&str) -> bool) -> Vec<Measured<'a>> {
        let (n, pp, vp, v) = (self.n, &self.pp, &self.vp, &self.values);
        let (c, proof, i) = (self.c, self.proof, self.i);
        let m_bytes: Vec<[u8; 32]> = pvc::hash_values(v)
            .iter()
            .map(Scalar::to_le_bytes)
            .collect();
        let detail = json!({"index": i, "window_bits": pp.window_bits()});
        let mut out = Vec::new();
        if wanted("commit") {
            let bases = pp.g1_powers()[..n].to_vec();
            let lb_out = pippenger_msm_from_bytes(&bases, &m_bytes).to_affine();
            let verified = pvc::commit(pp, v).ok() == Some(c) && lb_out == c.point();
            let mb = m_bytes.clone();
            let run = move || pvc::commit(pp, v).ok();
            let bound = move || pippenger_msm_from_bytes(&bases, &mb);
            out.push(
                Measured::new("commit", verified, detail.clone(), run)
                    .bounded(format!("blst Pippenger MSM of {n} points"), bound),
            );
        }
        if wanted("prove") {
            let i1 = i + 1;
            let (bases, scal): (Vec<G1Affine>, Vec<[u8; 32]>) = (1..=n)
                .filter(|&j| j != i1)
                .map(|j| (pp.g1_power(n + 1 - i1 + j), m_bytes[j - 1]))
                .unzip();
            let lb_out = pippenger_msm_from_bytes(&bases, &scal).to_affine();
            let verified = pvc::prove(pp, v, i).ok() == Some(proof)
                && lb_out == proof.point()
                && pvc::verify(vp, &c, i, &v[i], &proof);
            let run = move || pvc::prove(pp, v, i).ok();
            let bound = move || pippenger_msm_from_bytes(&bases, &scal);
            out.push(
                Measured::new("prove", verified, detail.clone(), run)
                    .bounded(format!("blst Pippenger MSM of {} points", n - 1), bound),
            );
        }
        if wanted("verify") {
            let pairs = [
                (c.point(), vp.g2_power(n - i)),
                (proof.point(), vp.g2_neg()),
            ];
            let verified = pvc::verify(vp, &c, i, &v[i], &proof)
                && !pvc::verify(vp, &c, i, b"not the value", &proof);
            let run = move || pvc::verify(vp, &c, i, &v[i], &proof);
            let bound = move || final_exponentiation(&multi_miller_loop(&pairs));
            out.push(
                Measured::new("verify", verified, detail, run)
                    .bounded("blst 2-pair Miller loop + 1 final exponentiation", bound),
            );
        }
        out
    }

    /// commit_update and proof_update, each beside one scalar multiplication of its base.
    fn update_ops<'a>(&'a self, wanted: &dyn Fn(&str) -> bool) -> Vec<Measured<'a>> {
        let (n, pp, v) = (self.n, &self.pp, &self.values);
        let (c, proof, i, changed) = (self.c, self.proof, self.i, self.changed);
        let (old, new) = (&v[changed], &self.new_value);
        let delta = hash_value(new).sub(&hash_value(old));
        let mut new_vector = v.clone();
        new_vector[changed] = new.clone();
        let detail = json!({"index": i, "changed": changed});
        let glv = "1 blst G1 scalar multiplication (GLV)";
        let mut out = Vec::new();
        if wanted("commit_update") {
            let base = pp.g1_power(changed + 1).to_projective();
            let update = move || pvc::commit_update(pp, &c, changed, old, new).ok();
            let verified = update() == pvc::commit(pp, &new_vector).ok();
            let run = move || update();
            let bound = move || base.mul(&delta);
            out.push(
                Measured::new("commit_update", verified, detail.clone(), run).bounded(glv, bound),
            );
        }
        if wanted("proof_update") && n > 1 {
            let base = pp.g1_power(n + 1 - (i + 1) + (changed + 1)).to_projective();
            let update = move || pvc::proof_update(pp, &proof, i, changed, old, new).ok();
            let verified = update() == pvc::prove(pp, &new_vector, i).ok();
            let run = move || update();
            let bound = move || base.mul(&delta);
            out.push(Measured::new("proof_update", verified, detail, run).bounded(glv, bound));
        }
        out
    }

    /// prove_batch, aggregate and verify_batch on the fixture's batch of positions (no bound).
    fn batch_ops<'a>(&'a self, wanted: &dyn Fn(&str) -> bool) -> Vec<Measured<'a>> {
        let (n, pp, vp, v, c, s) = (
            self.n,
            &self.pp,
            &self.vp,
            &self.values,
            self.c,
            &self.batch,
        );
        let detail = json!({"batch_size": s.len(), "positions": s});
        let mut out = Vec::new();
        if !(wanted("prove_batch") || wanted("aggregate") || wanted("verify_batch")) {
            return out;
        }
        let pb = pvc::prove_batch(pp, &c, v, s).expect("a valid batch");
        let items: Vec<(usize, &[u8])> = s.iter().map(|&i| (i, v[i].as_slice())).collect();
        if wanted("prove_batch") {
            let verified = pvc::verify_batch(vp, &c, &items, &pb);
            let run = move || pvc::prove_batch(pp, &c, v, s).ok();
            out.push(Measured::new("prove_batch", verified, detail.clone(), run));
        }
        if wanted("aggregate") {
            let singles: Vec<(usize, &[u8], Proof)> = s
                .iter()
                .map(|&i| (i, v[i].as_slice(), pvc::prove(pp, v, i).expect("i < n")))
                .collect();
            let verified = pvc::aggregate(n, &c, &singles).ok() == Some(pb);
            let run = move || pvc::aggregate(n, &c, &singles).ok();
            out.push(Measured::new("aggregate", verified, detail.clone(), run));
        }
        if wanted("verify_batch") {
            let mut wrong = items.clone();
            wrong[0].1 = b"not the value";
            let verified =
                pvc::verify_batch(vp, &c, &items, &pb) && !pvc::verify_batch(vp, &c, &wrong, &pb);
            let run = move || pvc::verify_batch(vp, &c, &items, &pb);
            out.push(Measured::new("verify_batch", verified, detail, run));
        }
        out
    }

    /// Times every wanted operation on the current rayon pool.
    pub fn run(&self, ctx: &mut Context) -> Vec<Row> {
        let threads = rayon::current_num_threads();
        let ops = ctx.ops;
        let measured = self.operations(&|op| wanted(ops, PAIRING, op, threads));
        time_all(PAIRING, self.n, measured, &self.sizes, ctx)
    }
}

/// One measurable operation: the closure, its lower bound, and whether its output was checked.
pub struct Measured<'a> {
    /// Operation name.
    pub operation: &'static str,
    /// Runs the operation once.
    pub run: Box<dyn FnMut() + 'a>,
    /// What the lower bound is, and a closure running it once.
    pub bound: Option<(String, Box<dyn FnMut() + 'a>)>,
    /// Whether the operation's output passed its check.
    pub verified: bool,
    /// Parameters of the operation for the report.
    pub detail: serde_json::Value,
}

impl<'a> Measured<'a> {
    /// An operation without a lower bound.
    pub fn new<R>(
        operation: &'static str,
        verified: bool,
        detail: serde_json::Value,
        mut run: impl FnMut() -> R + 'a,
    ) -> Self {
        Measured {
            operation,
            run: Box::new(move || {
                black_box(run());
            }),
            bound: None,
            verified,
            detail,
        }
    }

    /// The same operation timed beside the lower bound `bound` (what it is: `what`).
    pub fn bounded<R>(self, what: impl Into<String>, mut bound: impl FnMut() -> R + 'a) -> Self {
        Measured {
            bound: Some((
                what.into(),
                Box::new(move || {
                    black_box(bound());
                }),
            )),
            ..self
        }
    }
}

/// Times each operation alternately with its bound and makes the rows.
fn time_all(
    scheme: &'static str,
    n: usize,
    measured: Vec<Measured>,
    sizes: &Sizes,
    ctx: &mut Context,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for mut m in measured {
        let (t, lt) = match m.bound.as_mut() {
            Some((_, b)) => time_with_bound(&ctx.plan, &mut m.run, Some(&mut **b)),
            None => time_with_bound(&ctx.plan, &mut m.run, None),
        };
        let lb = match (m.bound, lt.as_ref()) {
            (Some((what, _)), Some(l)) => Some((what, l)),
            _ => None,
        };
        let r = row(scheme, m.operation, n, &t, lb, sizes, m.verified, m.detail);
        (ctx.on_row)(&r);
        rows.push(r);
    }
    rows
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

/// The proofs a Merkle fixture's operations start from.
struct Paths {
    root: Digest,
    depth: usize,
    proof_i: Vec<Digest>,
    proof_j: Vec<Digest>,
    /// The height where the paths of the changed position and the proof holder meet.
    meet: usize,
}

/// A Merkle tree of random values at one n, with the data its operations need.
pub struct MerkleFixture<H: MerkleHash> {
    n: usize,
    hasher: H,
    values: Vec<Vec<u8>>,
    tree: MerkleTree<H>,
    /// The changed position (0) and the proof holder (n − 1): their paths meet just below the
    /// root, the longest proof update.
    i: usize,
    j: usize,
    new_value: Vec<u8>,
    fresh: MerkleTree<H>,
    sizes: Sizes,
}

impl<H: Compressions> MerkleFixture<H> {
    /// Adds the generated values and the root to the run's input digest.
    pub fn add_inputs(&self, inputs: &mut Inputs) {
        let label = format!("merkle-{} n={}", H::NAME, self.n);
        for v in &self.values {
            inputs.add(&format!("{label} value"), v);
        }
        inputs.add(&format!("{label} root"), &self.tree.root());
        inputs.add(&format!("{label} new value"), &self.new_value);
    }

    /// Random values of `value_bytes` bytes and their tree.
    pub fn new(n: usize, value_bytes: usize, rng: &mut ChaCha20Rng) -> MerkleFixture<H> {
        let values = random_values(n, value_bytes, rng);
        let hasher = H::for_length(n);
        let tree = MerkleTree::commit(&hasher, &values).expect("n ≥ 1");
        let new_value = random_values(1, value_bytes, rng).remove(0);
        let mut new_vector = values.clone();
        new_vector[0] = new_value.clone();
        let fresh = MerkleTree::commit(&hasher, &new_vector).expect("n ≥ 1");
        let sizes = Sizes {
            commitment_bytes: 32,
            proof_bytes: 32 * depth(n),
            tree_bytes: Some(32 * tree.stored_nodes()),
            ..Sizes::default()
        };
        MerkleFixture {
            n,
            hasher,
            values,
            tree,
            i: 0,
            j: n - 1,
            new_value,
            fresh,
            sizes,
        }
    }

    /// The wanted operations, each checked once, with its lower bound where one is defined.
    pub fn operations<'a>(&'a self, wanted: &dyn Fn(&str) -> bool) -> Vec<Measured<'a>> {
        let paths = self.paths();
        let mut out = self.opening_ops(wanted, &paths);
        out.extend(self.update_ops(wanted, &paths));
        out
    }

    /// The proofs the operations start from, and the tree's depth.
    fn paths(&self) -> Paths {
        let (n, i, j) = (self.n, self.i, self.j);
        Paths {
            root: self.tree.root(),
            depth: depth(n),
            proof_i: self.tree.prove(i).expect("i < n"),
            proof_j: self.tree.prove(j).expect("j < n"),
            // The height where the paths of i and j meet.
            meet: if n > 1 {
                (usize::BITS - 1 - (i ^ j).leading_zeros()) as usize
            } else {
                0
            },
        }
    }

    /// `count` units of the hash, as a lower bound.
    fn units(count: usize) -> (String, impl FnMut()) {
        (format!("{count} {}", H::UNIT), move || {
            H::compressions(count)
        })
    }

    /// commit (beside 2n − 1 compressions), prove, and verify (beside one path).
    fn opening_ops<'a>(&'a self, wanted: &dyn Fn(&str) -> bool, p: &Paths) -> Vec<Measured<'a>> {
        let (n, hasher, v, tree, j) = (self.n, &self.hasher, &self.values, &self.tree, self.j);
        let (root, proof_j) = (p.root, &p.proof_j);
        let detail = json!({"index": j, "changed": self.i, "depth": p.depth});
        let mut out = Vec::new();
        if wanted("commit") {
            let verified = MerkleTree::commit(hasher, v).map(|t| t.root()).ok() == Some(root)
                && merkle::verify(hasher, &root, n, j, &v[j], proof_j);
            let (what, bound) = Self::units(tree_compressions(n));
            let run = move || MerkleTree::commit(hasher, v).ok();
            out.push(Measured::new("commit", verified, detail.clone(), run).bounded(what, bound));
        }
        if wanted("prove") {
            let verified = tree.prove(j).ok().as_deref() == Some(&proof_j[..])
                && merkle::verify(hasher, &root, n, j, &v[j], proof_j);
            let run = move || tree.prove(j).ok();
            out.push(Measured::new("prove", verified, detail.clone(), run));
        }
        if wanted("verify") {
            let verified = merkle::verify(hasher, &root, n, j, &v[j], proof_j)
                && !merkle::verify(hasher, &root, n, j, b"not the value", proof_j);
            let pj = proof_j.clone();
            let run = move || merkle::verify(hasher, &root, n, j, &v[j], &pj);
            let (what, bound) = Self::units(1 + p.depth);
            out.push(Measured::new("verify", verified, detail, run).bounded(what, bound));
        }
        out
    }

    /// commit_update and tree_update (beside one path), proof_update (beside the path up to
    /// where the two paths meet) and proof_update_with_hint.
    fn update_ops<'a>(&'a self, wanted: &dyn Fn(&str) -> bool, p: &Paths) -> Vec<Measured<'a>> {
        let (n, hasher, i, j, new) = (self.n, &self.hasher, self.i, self.j, &self.new_value);
        let want_j: Vec<Digest> = self.fresh.prove(j).expect("j < n");
        let (_, hint) = merkle::commit_update(hasher, i, new, &p.proof_i);
        let detail = json!({"index": j, "changed": i, "depth": p.depth});
        let mut out = Vec::new();
        if wanted("commit_update") {
            let verified = merkle::commit_update(hasher, i, new, &p.proof_i).0 == self.fresh.root();
            let pi = p.proof_i.clone();
            let run = move || merkle::commit_update(hasher, i, new, &pi);
            let (what, bound) = Self::units(1 + p.depth);
            out.push(
                Measured::new("commit_update", verified, detail.clone(), run).bounded(what, bound),
            );
        }
        if wanted("tree_update") {
            let mut kept = self.tree.clone();
            let verified = kept.update(i, new).ok() == Some(self.fresh.root());
            let run = move || kept.update(i, new).ok();
            let (what, bound) = Self::units(1 + p.depth);
            out.push(
                Measured::new("tree_update", verified, detail.clone(), run).bounded(what, bound),
            );
        }
        if wanted("proof_update") && n > 1 {
            let mut buf = p.proof_j.clone();
            merkle::proof_update(hasher, &mut buf, j, i, new, &p.proof_i);
            let verified = buf == want_j;
            let (pi, pj) = (p.proof_i.clone(), p.proof_j.clone());
            let run = move || {
                buf.copy_from_slice(&pj);
                merkle::proof_update(hasher, &mut buf, j, i, new, &pi);
                black_box(&buf);
            };
            let meeting =
                json!({"index": j, "changed": i, "depth": p.depth, "meeting_height": p.meet});
            let (what, bound) = Self::units(1 + p.meet);
            out.push(Measured::new("proof_update", verified, meeting, run).bounded(what, bound));
        }
        if wanted("proof_update_with_hint") && n > 1 {
            let mut buf = p.proof_j.clone();
            merkle::proof_update_with_hint(&mut buf, j, &hint);
            let verified = buf == want_j;
            let pj = p.proof_j.clone();
            let run = move || {
                buf.copy_from_slice(&pj);
                merkle::proof_update_with_hint(&mut buf, j, &hint);
                black_box(&buf);
            };
            out.push(Measured::new(
                "proof_update_with_hint",
                verified,
                detail,
                run,
            ));
        }
        out
    }

    /// Times every wanted operation on the current rayon pool.
    pub fn run(&self, ctx: &mut Context) -> Vec<Row> {
        let threads = rayon::current_num_threads();
        let ops = ctx.ops;
        let measured = self.operations(&|op| wanted(ops, H::SCHEME, op, threads));
        time_all(H::SCHEME, self.n, measured, &self.sizes, ctx)
    }
}

/// Fills in the memory of a finished (scheme, n) group of rows: the peak since the reset (None
/// if the mark could not be reset) and the RSS at the reset.
pub fn set_peak_rss(rows: &mut [Row], start: Option<f64>) {
    let peak = start.map(|_| peak_rss_mib());
    for r in rows {
        r.peak_rss_mib = peak;
        r.start_rss_mib = start;
    }
}
