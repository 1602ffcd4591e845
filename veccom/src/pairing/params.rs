//! Set-up: the parameters of one vector length n, from a random trapdoor that is then wiped.

use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

use crate::curve::g1::G1_COMPRESSED_BYTES;
use crate::curve::g2::G2_COMPRESSED_BYTES;
use crate::curve::msm::{best_window, FixedBaseTable};
use crate::curve::pairing::pairing;
use crate::curve::{G1Affine, G2Affine, Gt, GtTable, Scalar, G1, G2};
use crate::Error;

/// Bytes of a GT element as stored (an uncompressed F_p^12 element).
pub const GT_BYTES: usize = 576;

/// What a prover (and an updater) needs: g1^(a^k) for k in [1, 2n] \ {n+1}, held as the table
/// of their shifted multiples that every prover MSM reads.
#[derive(Clone, Debug)]
pub struct ProverParams {
    n: usize,
    table: FixedBaseTable,
}

/// What a verifier needs: g2^(a^k) for k in [1, n], −g2, and T = gt^(a^(n+1)) with its table.
#[derive(Clone, Debug)]
pub struct VerifierParams {
    n: usize,
    g2_powers: Vec<G2Affine>,
    g2_neg: G2Affine,
    t: Gt,
    t_table: GtTable,
}

impl ProverParams {
    /// The vector length n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Position of g1^(a^k) in the parameter list (k in [1, 2n], k ≠ n+1).
    #[inline]
    pub(crate) fn slot(&self, k: usize) -> u32 {
        debug_assert!(k >= 1 && k <= 2 * self.n && k != self.n + 1, "k = {k}");
        (if k <= self.n { k - 1 } else { k - 2 }) as u32
    }

    /// g1^(a^k) for k in [1, 2n], k ≠ n+1.
    pub fn g1_power(&self, k: usize) -> G1Affine {
        self.table.base(self.slot(k) as usize)
    }

    /// All 2n−1 parameters in order of k.
    pub fn g1_powers(&self) -> Vec<G1Affine> {
        (0..self.table.len()).map(|s| self.table.base(s)).collect()
    }

    pub(crate) fn table(&self) -> &FixedBaseTable {
        &self.table
    }

    /// Size of the parameters as published (compressed points).
    pub fn encoded_bytes(&self) -> usize {
        (2 * self.n - 1) * G1_COMPRESSED_BYTES
    }

    /// Memory of the prover's table (the precomputation the speed comes from).
    pub fn table_bytes(&self) -> usize {
        self.table.bytes()
    }

    /// Window width of the table.
    pub fn window_bits(&self) -> usize {
        self.table.window_bits()
    }
}

impl VerifierParams {
    /// The vector length n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// g2^(a^k) for k in [1, n].
    pub fn g2_power(&self, k: usize) -> G2Affine {
        self.g2_powers[k - 1]
    }

    /// −g2.
    pub fn g2_neg(&self) -> G2Affine {
        self.g2_neg
    }

    /// T = gt^(a^(n+1)).
    pub fn t(&self) -> Gt {
        self.t
    }

    pub(crate) fn t_table(&self) -> &GtTable {
        &self.t_table
    }

    /// Size of the parameters as published (compressed G2 points and T).
    pub fn encoded_bytes(&self) -> usize {
        self.n * G2_COMPRESSED_BYTES + GT_BYTES
    }

    /// Memory of the verifier's table of T.
    pub fn table_bytes(&self) -> usize {
        self.t_table.bytes()
    }
}

/// Parameters for vectors of length `n` from a fresh random trapdoor (drawn from `rng`, wiped
/// before returning). Runs on the current rayon pool.
pub fn setup<R: RngCore + CryptoRng>(
    n: usize,
    rng: &mut R,
) -> Result<(ProverParams, VerifierParams), Error> {
    let mut a = Scalar::random(rng);
    while a.is_zero() {
        a = Scalar::random(rng);
    }
    let out = setup_with_trapdoor(n, &a);
    a.wipe();
    out
}

/// Parameters from a given trapdoor `a`. Only set-up itself and the tests (which compare with an
/// independent arkworks set-up) call it: anyone who knows `a` can open commitments at will.
pub(crate) fn setup_with_trapdoor(
    n: usize,
    a: &Scalar,
) -> Result<(ProverParams, VerifierParams), Error> {
    if n == 0 {
        return Err(Error::InvalidParameters(
            "the vector length n must be at least 1".into(),
        ));
    }
    if n > u32::MAX as usize / 2 {
        return Err(Error::InvalidParameters(format!("n = {n} is too large")));
    }
    // a^1 … a^(2n); a^(n+1) is used for nothing but is wiped with the others.
    let mut powers = Vec::with_capacity(2 * n);
    let mut p = *a;
    for _ in 0..2 * n {
        powers.push(p);
        p = p.mul(a);
    }
    p.wipe();
    let mut g1_exponents: Vec<Scalar> = powers
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != n) // index n holds a^(n+1)
        .map(|(_, e)| *e)
        .collect();
    let g1_table = FixedBaseTable::new(&[G1Affine::generator()], 8);
    let g1_points: Vec<G1> = g1_exponents
        .par_iter()
        .map(|e| g1_table.mul(0, e))
        .collect();
    let g2 = G2::generator();
    let g2_points: Vec<G2> = powers[..n].par_iter().map(|e| g2.mul(e)).collect();
    for s in powers.iter_mut().chain(g1_exponents.iter_mut()) {
        s.wipe();
    }
    let g1_powers = G1::batch_to_affine(&g1_points);
    let g2_powers = G2::batch_to_affine(&g2_points);
    // T = e(g1^a, g2^(a^n)), from published parameters only.
    let t = pairing(&g1_powers[0], &g2_powers[n - 1]);
    let table = FixedBaseTable::new(&g1_powers, best_window(n));
    Ok((
        ProverParams { n, table },
        VerifierParams {
            n,
            g2_powers,
            g2_neg: G2Affine::generator().neg(),
            t,
            t_table: GtTable::new(&t),
        },
    ))
}
