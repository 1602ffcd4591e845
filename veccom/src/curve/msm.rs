//! Multi-scalar multiplication Σ k_i·P_i in G1, three ways:
//!
//! * [`naive_msm`]: one scalar multiplication per term, then a sum (the reference's method);
//! * [`pippenger_msm`]: blst's Pippenger bucket method for arbitrary points, the reference cost
//!   of "one MSM of size n";
//! * [`FixedBaseTable::msm`]: the method for the fixed prover parameters, using a table built
//!   once per parameter set.
//!
//! ## The fixed-base table
//!
//! Pippenger's method with c-bit windows costs ⌈256/c⌉·(n + 2^c) additions plus 256 doublings:
//! every window has its own buckets and its own bucket sum. When the bases never change, store
//! the shifted bases 2^(c·j)·P_i for every window j once. Then
//!
//! ```text
//! Σ_i k_i·P_i = Σ_i Σ_j d_ij·(2^(c·j)·P_i)        (d_ij: signed c-bit digits of k_i)
//!             = Σ_(d=1..2^(c−1)) d·B_d,   B_d = Σ_(i,j: |d_ij| = d) ±2^(c·j)·P_i
//! ```
//!
//! is one bucket pass over n·⌈256/c⌉ points and one bucket sum (2·2^(c−1) additions), with no
//! doubling at all: about n·⌈256/c⌉ + 2^c additions instead of ⌈256/c⌉·(n + 2^c) + 256
//! doublings. The table holds n·⌈256/c⌉ affine points (26 per base at n = 1000, c = 10).
//!
//! ## Batch-affine bucket additions
//!
//! A bucket addition B_d += P with B_d in Jacobian coordinates costs 7 multiplications and 4
//! squarings in F_p. Kept affine, it is λ = (y_P − y_B)/(x_P − x_B), x = λ² − x_P − x_B,
//! y = λ(x_B − x) − y_B: one inversion, two products and a square. Inverting the denominators of
//! a batch of additions to distinct buckets together (Montgomery's trick: three products each
//! and one inversion per batch) brings an addition to about six products. An addition to a bucket
//! already in the batch waits for the next batch; if it collides again it is added into that
//! bucket's Jacobian overflow instead (so the few buckets of the top window's small digits never
//! make the queue grow); x_P = x_B (P = ±B, which honest inputs never meet) takes a Jacobian
//! slow path.
//!
//! ## One fixed-base multiplication
//!
//! The same table gives k·P for one base (a commitment or proof update) without doublings of
//! the whole scalar: with k = Σ_t ν_t·2^t in non-adjacent form (ν_t ∈ {−1, 0, 1}, about 85
//! non-zero), write t = c·j + b and run Straus's interleaving over the shifted bases:
//! `acc = 2·acc` for b = c−1 … 0, adding ±2^(c·j)·P for every non-zero ν_(c·j+b): c doublings
//! and about 85 mixed additions, against 128 doublings and about 50 additions for blst's GLV
//! multiplication.

use std::collections::HashMap;

use rayon::prelude::*;

use super::digits::{naf, signed_digits, windows};
use super::{Fp, G1Affine, Scalar, G1};

/// Σ k_i·P_i with one blst scalar multiplication per term.
pub fn naive_msm(points: &[G1Affine], scalars: &[Scalar]) -> G1 {
    assert_eq!(points.len(), scalars.len(), "one scalar per point");
    let mut acc = G1::identity();
    for (p, k) in points.iter().zip(scalars) {
        acc.add_assign(&p.to_projective().mul(k));
    }
    acc
}

/// Σ k_i·P_i by blst's Pippenger method on one thread, for scalars below 2^nbits given as
/// 32-byte little-endian strings (read in place when nbits > 248).
pub fn pippenger_msm_bits(points: &[G1Affine], scalars: &[[u8; 32]], nbits: usize) -> G1 {
    assert_eq!(points.len(), scalars.len(), "one scalar per point");
    if bls12381::msm::scalar_bytes(nbits) == 32 {
        bls12381::msm::g1_packed(points, scalars.as_flattened(), nbits)
    } else {
        bls12381::msm::g1(points, scalars, nbits)
    }
}

/// Σ k_i·P_i by blst's Pippenger method on one thread, scalars as 32-byte little-endian strings.
pub fn pippenger_msm_bytes(points: &[G1Affine], scalars: &[[u8; 32]]) -> G1 {
    pippenger_msm_bits(points, scalars, 255)
}

/// Σ k_i·P_i by blst's Pippenger method, split over the threads of the current rayon pool
/// (each thread one contiguous share of the terms).
pub fn pippenger_msm(points: &[G1Affine], scalars: &[Scalar]) -> G1 {
    let bytes: Vec<[u8; 32]> = scalars.iter().map(Scalar::to_le_bytes).collect();
    pippenger_msm_from_bytes(points, &bytes)
}

/// [`pippenger_msm`] with the scalars already encoded (what the lower-bound measurement times).
pub fn pippenger_msm_from_bytes(points: &[G1Affine], scalars: &[[u8; 32]]) -> G1 {
    let threads = rayon::current_num_threads();
    if threads < 2 || points.len() < 64 {
        return pippenger_msm_bytes(points, scalars);
    }
    let chunk = points.len().div_ceil(threads);
    points
        .par_chunks(chunk)
        .zip(scalars.par_chunks(chunk))
        .map(|(p, s)| pippenger_msm_bytes(p, s))
        .reduce(G1::identity, |a, b| a.add(&b))
}

/// How bucket additions are done (the ablation compares them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BucketAdd {
    /// Affine buckets, additions batched over one shared inversion.
    BatchAffine,
    /// Jacobian buckets, one mixed addition each.
    Jacobian,
}

/// The shifted bases 2^(c·j)·P_i of a fixed list of bases, for [`FixedBaseTable::msm`] and
/// [`FixedBaseTable::mul`].
#[derive(Clone, Debug)]
pub struct FixedBaseTable {
    c: usize,
    k: usize,
    bases: usize,
    shifted: Vec<G1Affine>,
}

/// The window width that minimises the table method's additions for `terms` terms: the bucket
/// pass costs terms·⌈256/c⌉ batch-affine additions, the bucket sum 2^(c−1) mixed plus as many
/// Jacobian additions, each about four batch-affine ones. When the top window holds only a few
/// bits of the 255 (its digits then fall into a few buckets, which keep colliding in a batch),
/// its terms cost one more addition each, in the buckets' Jacobian overflow. c stays at most 13:
/// beyond, the 2^(c−1) affine buckets (over 400 KB) leave the L2 cache and the bucket pass's
/// random writes miss (measured: at n = 2^15 and 2^16, c = 13 or 14 beats c = 16 by 5-15%).
pub fn best_window(terms: usize) -> usize {
    let cost = |c: usize| {
        let top_bits = 255 - c * (windows(c) - 1);
        let top_penalty = if top_bits < 6 { terms as f64 } else { 0.0 };
        terms as f64 * windows(c) as f64 + top_penalty + 4.0 * (1u64 << (c - 1)) as f64
    };
    (4..=13)
        .min_by(|&a, &b| cost(a).total_cmp(&cost(b)))
        .unwrap_or(8)
}

impl FixedBaseTable {
    /// The table of `bases` with `c`-bit windows: ⌈256/c⌉·(c doublings) per base, spread over
    /// the current rayon pool, then one batch normalisation.
    pub fn new(bases: &[G1Affine], c: usize) -> FixedBaseTable {
        assert!(
            (2..=24).contains(&c),
            "window width {c} out of range 2..=24"
        );
        assert!(
            bases.iter().all(|b| !b.is_identity()),
            "a base is the point at infinity"
        );
        let k = windows(c);
        let per_chunk = 256;
        let shifted: Vec<G1Affine> = bases
            .par_chunks(per_chunk)
            .flat_map_iter(|chunk| {
                let mut proj = Vec::with_capacity(chunk.len() * k);
                for b in chunk {
                    let mut p = b.to_projective();
                    for j in 0..k {
                        proj.push(p);
                        if j + 1 < k {
                            for _ in 0..c {
                                p.double_assign();
                            }
                        }
                    }
                }
                G1::batch_to_affine(&proj)
            })
            .collect();
        FixedBaseTable {
            c,
            k,
            bases: bases.len(),
            shifted,
        }
    }

    /// Window width c.
    pub fn window_bits(&self) -> usize {
        self.c
    }

    /// Number of bases.
    pub fn len(&self) -> usize {
        self.bases
    }

    /// Whether the table has no base.
    pub fn is_empty(&self) -> bool {
        self.bases == 0
    }

    /// Memory held by the table.
    pub fn bytes(&self) -> usize {
        self.shifted.len() * std::mem::size_of::<G1Affine>()
    }

    /// Base `i` itself.
    pub fn base(&self, i: usize) -> G1Affine {
        self.shifted[i * self.k]
    }

    /// Σ_t scalars[t]·base(indices[t]), split over the current rayon pool.
    pub fn msm(&self, indices: &[u32], scalars: &[Scalar]) -> G1 {
        self.msm_with(indices, scalars, BucketAdd::BatchAffine)
    }

    /// [`FixedBaseTable::msm`] with a chosen bucket arithmetic.
    pub fn msm_with(&self, indices: &[u32], scalars: &[Scalar], mode: BucketAdd) -> G1 {
        assert_eq!(indices.len(), scalars.len(), "one scalar per index");
        let threads = rayon::current_num_threads();
        if threads < 2 || indices.len() < 64 {
            return self.msm_serial(indices, scalars, mode);
        }
        let chunk = indices.len().div_ceil(threads);
        indices
            .par_chunks(chunk)
            .zip(scalars.par_chunks(chunk))
            .map(|(i, s)| self.msm_serial(i, s, mode))
            .reduce(G1::identity, |a, b| a.add(&b))
    }

    fn msm_serial(&self, indices: &[u32], scalars: &[Scalar], mode: BucketAdd) -> G1 {
        let (c, k) = (self.c, self.k);
        let nbuckets = 1usize << (c - 1);
        let mut digits = vec![0i32; k];
        match mode {
            BucketAdd::BatchAffine => {
                let mut buckets = AffineBuckets::new(nbuckets);
                for (&i, s) in indices.iter().zip(scalars) {
                    signed_digits(&s.to_limbs(), c, &mut digits);
                    let row = &self.shifted[i as usize * k..(i as usize + 1) * k];
                    for (p, &d) in row.iter().zip(digits.iter()) {
                        if d != 0 {
                            buckets.push(d.unsigned_abs() as usize - 1, p, d < 0);
                        }
                    }
                }
                buckets.finish();
                sum_buckets(nbuckets, |b| {
                    (buckets.get(b).copied(), buckets.overflow(b).copied())
                })
            }
            BucketAdd::Jacobian => {
                let mut buckets = vec![G1::identity(); nbuckets];
                for (&i, s) in indices.iter().zip(scalars) {
                    signed_digits(&s.to_limbs(), c, &mut digits);
                    let row = &self.shifted[i as usize * k..(i as usize + 1) * k];
                    for (p, &d) in row.iter().zip(digits.iter()) {
                        if d != 0 {
                            let b = &mut buckets[d.unsigned_abs() as usize - 1];
                            if d < 0 {
                                b.add_affine_assign(&p.neg());
                            } else {
                                b.add_affine_assign(p);
                            }
                        }
                    }
                }
                let mut running = G1::identity();
                let mut total = G1::identity();
                for b in buckets.iter().rev() {
                    running.add_assign(b);
                    total.add_assign(&running);
                }
                total
            }
        }
    }

    /// scalar·base(i) by Straus's interleaving over the shifted bases (see the module notes).
    pub fn mul(&self, i: usize, scalar: &Scalar) -> G1 {
        let digits = naf(&scalar.to_limbs());
        let row = &self.shifted[i * self.k..(i + 1) * self.k];
        let mut acc = G1::identity();
        let mut started = false;
        for b in (0..self.c).rev() {
            if started {
                acc.double_assign();
            }
            for (j, p) in row.iter().enumerate() {
                let t = j * self.c + b;
                if t >= digits.len() {
                    break;
                }
                match digits[t] {
                    1 => acc.add_affine_assign(p),
                    -1 => acc.add_affine_assign(&p.neg()),
                    _ => continue,
                }
                started = true;
            }
        }
        acc
    }
}

/// Σ_d (d+1)·B_d over buckets 0..n (bucket b holds the points with digit b+1, as an affine part
/// and a Jacobian overflow) by running sums: n mixed and n Jacobian additions.
fn sum_buckets(n: usize, bucket: impl Fn(usize) -> (Option<G1Affine>, Option<G1>)) -> G1 {
    let mut running = G1::identity();
    let mut total = G1::identity();
    let mut any = false;
    for b in (0..n).rev() {
        let (affine, overflow) = bucket(b);
        if let Some(p) = affine {
            running.add_affine_assign(&p);
            any = true;
        }
        if let Some(o) = overflow {
            running.add_assign(&o);
            any = true;
        }
        if any {
            total.add_assign(&running);
        }
    }
    total
}

const EMPTY: u8 = 0;
const FULL: u8 = 1;
const IN_BATCH: u8 = 2;

/// Affine buckets with batched additions (see the module notes).
struct AffineBuckets {
    points: Vec<G1Affine>,
    state: Vec<u8>,
    batch_bucket: Vec<u32>,
    batch_point: Vec<G1Affine>,
    denominators: Vec<Fp>,
    prefix: Vec<Fp>,
    deferred: Vec<(u32, G1Affine)>,
    /// Additions that met a busy bucket twice, summed in Jacobian coordinates per bucket (the
    /// top window's few small digits send most of its points here).
    overflow: HashMap<u32, G1>,
    batch_size: usize,
}

impl AffineBuckets {
    fn new(n: usize) -> AffineBuckets {
        let batch_size = (n / 4).clamp(16, 512);
        AffineBuckets {
            points: vec![G1Affine::default(); n],
            state: vec![EMPTY; n],
            batch_bucket: Vec::with_capacity(batch_size),
            batch_point: Vec::with_capacity(batch_size),
            denominators: Vec::with_capacity(batch_size),
            prefix: Vec::with_capacity(batch_size),
            deferred: Vec::new(),
            overflow: HashMap::new(),
            batch_size,
        }
    }

    fn get(&self, b: usize) -> Option<&G1Affine> {
        (self.state[b] == FULL).then(|| &self.points[b])
    }

    fn overflow(&self, b: usize) -> Option<&G1> {
        self.overflow.get(&(b as u32))
    }

    /// Queues bucket[b] += (negate ? −p : p).
    #[inline]
    fn push(&mut self, b: usize, p: &G1Affine, negate: bool) {
        // A table entry is never the identity: negating y alone negates the point.
        let q = if negate {
            G1Affine::from_coordinates_unchecked(*p.x(), p.y().neg())
        } else {
            *p
        };
        self.push_point(b, q, false);
    }

    /// bucket[b] += p: now if the bucket is free, after the next flush if it is in the batch
    /// (`retry` false), or in the bucket's Jacobian overflow if that was already the retry.
    #[inline]
    fn push_point(&mut self, b: usize, p: G1Affine, retry: bool) {
        match self.state[b] {
            EMPTY => {
                self.points[b] = p;
                self.state[b] = FULL;
            }
            IN_BATCH if retry => self
                .overflow
                .entry(b as u32)
                .or_insert_with(G1::identity)
                .add_affine_assign(&p),
            IN_BATCH => self.deferred.push((b as u32, p)),
            _ => {
                let cur = &self.points[b];
                if cur.x() == p.x() {
                    self.add_slow(b, &p);
                    return;
                }
                self.state[b] = IN_BATCH;
                self.batch_bucket.push(b as u32);
                self.batch_point.push(p);
                if self.batch_bucket.len() == self.batch_size {
                    self.flush();
                    // Retry the waiting additions now that their buckets are free; a retried
                    // addition never waits again, so this does not recurse.
                    if !retry {
                        self.retry_deferred();
                    }
                }
            }
        }
    }

    /// P = ±B: a doubling or a cancellation, through Jacobian coordinates.
    fn add_slow(&mut self, b: usize, p: &G1Affine) {
        let sum = self.points[b].to_projective().add_affine(p);
        if sum.is_identity() {
            self.state[b] = EMPTY;
        } else {
            self.points[b] = sum.to_affine();
        }
    }

    /// Executes the queued additions with one shared inversion.
    fn flush(&mut self) {
        let m = self.batch_bucket.len();
        if m == 0 {
            return;
        }
        self.denominators.clear();
        self.prefix.clear();
        let mut acc = Fp::default();
        for t in 0..m {
            let b = self.batch_bucket[t] as usize;
            let d = self.batch_point[t].x().sub(self.points[b].x());
            acc = if t == 0 { d } else { acc.mul(&d) };
            self.denominators.push(d);
            self.prefix.push(acc);
        }
        // `acc` is not zero: every denominator is, since x_P ≠ x_B was checked.
        let mut inv = acc.inverse();
        for t in (0..m).rev() {
            // inv = 1/(d_0·…·d_t); the inverse of d_t is inv·(d_0·…·d_(t−1)).
            let inv_t = if t == 0 {
                inv
            } else {
                let x = inv.mul(&self.prefix[t - 1]);
                inv = inv.mul(&self.denominators[t]);
                x
            };
            let b = self.batch_bucket[t] as usize;
            let (p, q) = (&self.batch_point[t], &self.points[b]);
            let lambda = p.y().sub(q.y()).mul(&inv_t);
            let x3 = lambda.square().sub(&p.x().add(q.x()));
            let y3 = lambda.mul(&q.x().sub(&x3)).sub(q.y());
            self.points[b] = G1Affine::from_coordinates_unchecked(x3, y3);
            self.state[b] = FULL;
        }
        self.batch_bucket.clear();
        self.batch_point.clear();
    }

    fn retry_deferred(&mut self) {
        if self.deferred.is_empty() {
            return;
        }
        let waiting = std::mem::take(&mut self.deferred);
        for (b, p) in waiting {
            self.push_point(b as usize, p, true);
        }
    }

    /// Executes everything still queued.
    fn finish(&mut self) {
        self.flush();
        self.retry_deferred();
        self.flush();
        debug_assert!(self.deferred.is_empty() && self.batch_bucket.is_empty());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;

    fn points_and_scalars(n: usize, seed: u8) -> (Vec<G1Affine>, Vec<Scalar>) {
        let mut rng = rand_chacha::ChaCha20Rng::from_seed([seed; 32]);
        let g = G1::generator();
        let pts: Vec<G1> = (0..n).map(|_| g.mul(&Scalar::random(&mut rng))).collect();
        let sc = (0..n).map(|_| Scalar::random(&mut rng)).collect();
        (G1::batch_to_affine(&pts), sc)
    }

    #[test]
    fn every_method_gives_the_same_sum() {
        for (n, c) in [(1usize, 4usize), (7, 5), (100, 8), (300, 10)] {
            let (pts, sc) = points_and_scalars(n, n as u8);
            let want = naive_msm(&pts, &sc);
            assert_eq!(pippenger_msm(&pts, &sc), want, "pippenger n={n}");
            let table = FixedBaseTable::new(&pts, c);
            let idx: Vec<u32> = (0..n as u32).collect();
            assert_eq!(table.msm(&idx, &sc), want, "table n={n}");
            assert_eq!(
                table.msm_with(&idx, &sc, BucketAdd::Jacobian),
                want,
                "jacobian n={n}"
            );
            for i in [0, n / 2, n - 1] {
                assert_eq!(table.mul(i, &sc[i]), pts[i].to_projective().mul(&sc[i]));
            }
        }
    }

    #[test]
    fn repeated_and_opposite_terms_take_the_slow_path_correctly() {
        // The same base many times with the same scalar fills one bucket with equal points
        // (doublings), and k and −k cancel.
        let (pts, sc) = points_and_scalars(3, 9);
        let table = FixedBaseTable::new(&pts, 6);
        let idx = vec![1u32; 40];
        let scal = vec![sc[0]; 40];
        let want = pts[1]
            .to_projective()
            .mul(&sc[0].mul(&Scalar::from_u128(40)));
        assert_eq!(table.msm(&idx, &scal), want);
        let neg = Scalar::ZERO.sub(&sc[2]);
        assert!(table.msm(&[2, 2], &[sc[2], neg]).is_identity());
        assert!(table.mul(0, &Scalar::ZERO).is_identity());
        assert!(table.msm(&[], &[]).is_identity());
    }

    #[test]
    fn window_choice_grows_with_the_number_of_terms() {
        assert!(best_window(100) < best_window(1000));
        assert!(best_window(1000) < best_window(65536));
        assert!(best_window(1 << 20) <= 13);
        assert!(
            (9..=11).contains(&best_window(1000)),
            "{}",
            best_window(1000)
        );
    }
}
