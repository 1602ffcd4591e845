//! Parameters, keys, proofs: PLONK with KZG commitments on BN254 (`halo2-axiom`), SHPLONK
//! multi-openings, BLAKE2b Fiat–Shamir transcript.
//!
//! The structured reference string is made here from a CSPRNG (a benchmark has no ceremony to
//! take one from; the prover and verifier costs do not depend on where it came from, but its
//! trapdoor existed in this process, so these proofs are for measuring, not for trusting).

use halo2_base::gates::circuit::builder::BaseCircuitBuilder;
use halo2_base::gates::circuit::{BaseCircuitParams, CircuitBuilderStage};
use halo2_base::gates::flex_gate::MultiPhaseThreadBreakPoints;
use halo2_base::halo2_proofs::dev::MockProver;
use halo2_base::halo2_proofs::halo2curves::bn256::{Bn256, Fr, G1Affine, G2Affine, G1};
use halo2_base::halo2_proofs::halo2curves::ff::{BatchInvert, Field, PrimeField};
use halo2_base::halo2_proofs::halo2curves::group::prime::PrimeCurveAffine;
use halo2_base::halo2_proofs::halo2curves::group::{Curve, Group};
use halo2_base::halo2_proofs::plonk::{
    create_proof, keygen_pk, keygen_vk, verify_proof, ProvingKey, VerifyingKey,
};
use halo2_base::halo2_proofs::poly::commitment::ParamsProver;
use halo2_base::halo2_proofs::poly::kzg::commitment::{KZGCommitmentScheme, ParamsKZG};
use halo2_base::halo2_proofs::poly::kzg::multiopen::{ProverSHPLONK, VerifierSHPLONK};
use halo2_base::halo2_proofs::poly::kzg::strategy::SingleStrategy;
use halo2_base::halo2_proofs::transcript::{
    Blake2bRead, Blake2bWrite, Challenge255, TranscriptReadBuffer, TranscriptWriterBuffer,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, RngCore, SeedableRng};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::relation::{synthesize, Statement};
use super::{Shape, BLINDING_ROWS};

/// The size of a laid-out circuit.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct CircuitSize {
    /// log2 of the rows.
    pub k: u32,
    /// Rows, 2^k.
    pub rows: usize,
    /// Bits of the range-check table.
    pub lookup_bits: usize,
    /// Advice cells of the main gate (the cells the relation fills).
    pub advice_cells: usize,
    /// Advice cells copied into the lookup columns for range checks.
    pub lookup_cells: usize,
    /// Distinct constants (fixed cells).
    pub fixed_cells: usize,
    /// Advice columns of the main gate.
    pub advice_columns: usize,
    /// Advice columns for range-check lookups.
    pub lookup_advice_columns: usize,
    /// Fixed columns.
    pub fixed_columns: usize,
}

fn builder(stage: CircuitBuilderStage, shape: &Shape) -> BaseCircuitBuilder<Fr> {
    BaseCircuitBuilder::from_stage(stage)
        .use_k(shape.k as usize)
        .use_lookup_bits(shape.lookup_bits)
        .use_instance_columns(1)
}

/// Lays out the circuit for `st` (with constraints, no proof) and fixes its column counts.
fn laid_out(st: &Statement, shape: &Shape, stage: CircuitBuilderStage) -> BaseCircuitBuilder<Fr> {
    let mut b = builder(stage, shape);
    synthesize(&mut b, st, shape);
    b.calculate_params(Some(BLINDING_ROWS));
    b
}

fn size_of(b: &BaseCircuitBuilder<Fr>, shape: &Shape) -> CircuitSize {
    let stats = b.statistics();
    let p = &b.config_params;
    CircuitSize {
        k: shape.k,
        rows: 1usize << shape.k,
        lookup_bits: shape.lookup_bits,
        advice_cells: stats.gate.total_advice_per_phase.iter().sum(),
        lookup_cells: stats.total_lookup_advice_per_phase.iter().sum(),
        fixed_cells: stats.gate.total_fixed,
        advice_columns: p.num_advice_per_phase.iter().sum(),
        lookup_advice_columns: p.num_lookup_advice_per_phase.iter().sum(),
        fixed_columns: p.num_fixed,
    }
}

/// The circuit's size for `st` at `shape`, without proving.
pub fn size(st: &Statement, shape: &Shape) -> CircuitSize {
    let b = laid_out(st, shape, CircuitBuilderStage::Mock);
    size_of(&b, shape)
}

/// Runs `halo2`'s MockProver on `st` against the public inputs `instances`: `Ok` when every
/// constraint holds, otherwise the number of failed constraints.
pub fn mock_check(st: &Statement, shape: &Shape, instances: Vec<Fr>) -> Result<(), usize> {
    let b = laid_out(st, shape, CircuitBuilderStage::Mock);
    let prover = MockProver::run(shape.k, &b, vec![instances]).map_err(|_| usize::MAX)?;
    // `verify`, not `verify_par`: the parallel check also requires every cell a gate queries to
    // have been assigned, which halo2-base's gates do not guarantee (halo2-axiom's serial check
    // leaves that requirement out for this reason); the constraints checked are the same.
    prover.verify().map_err(|f| f.len())
}

/// A fresh structured reference string for 2^k rows: a secret s from `rng`, the powers
/// [s^i]·g1 and the Lagrange basis [L_i(s)]·g1 (L_i the Lagrange polynomials of the 2^k-th roots
/// of unity), [s]·g2.
///
/// The same parameters as `ParamsKZG::setup` (the tests check it byte for byte), made faster: the
/// scalars s^i and L_i(s) = ω^i·(s^n − 1)/(n·(s − ω^i)) are computed in the field (one batch
/// inversion), then multiplied into g1 with a fixed-base table of 8-bit windows (at most 32
/// additions each) instead of one variable-base multiplication per point.
pub fn setup(k: u32, rng: &mut (impl RngCore + CryptoRng)) -> ParamsKZG<Bn256> {
    let n = 1usize << k;
    let s = Fr::random(&mut *rng);
    let powers = par_powers(s, n);
    let mut omega = Fr::ROOT_OF_UNITY;
    for _ in k..Fr::S {
        omega = omega.square();
    }
    let omegas = par_powers(omega, n);
    let mut denominators: Vec<Fr> = omegas.par_iter().map(|w| s - w).collect();
    denominators.par_chunks_mut(1 << 12).for_each(|c| {
        c.batch_invert();
    });
    let n_inv = Fr::from(n as u64)
        .invert()
        .expect("n is not a multiple of r");
    let multiplier = (s.pow_vartime([n as u64]) - Fr::ONE) * n_inv;
    let lagrange: Vec<Fr> = omegas
        .par_iter()
        .zip(denominators.par_iter())
        .map(|(w, d)| multiplier * w * d)
        .collect();
    let table = FixedBase::new(G1Affine::generator());
    let g = table.mul_all(&powers);
    let g_lagrange = table.mul_all(&lagrange);
    let g2 = G2Affine::generator();
    let s_g2 = (g2 * s).to_affine();
    // `from_parts` takes the parts; the receiver only lends its type.
    ParamsKZG::<Bn256>::setup(1, ChaCha20Rng::from_seed([0; 32])).from_parts(
        k,
        g,
        Some(g_lagrange),
        g2,
        s_g2,
    )
}

/// x^0, x^1, ..., x^(n−1), computed in parallel chunks.
fn par_powers(x: Fr, n: usize) -> Vec<Fr> {
    let mut out = vec![Fr::ZERO; n];
    out.par_chunks_mut(1 << 12)
        .enumerate()
        .for_each(|(j, chunk)| {
            let mut cur = x.pow_vartime([(j << 12) as u64]);
            for o in chunk.iter_mut() {
                *o = cur;
                cur *= x;
            }
        });
    out
}

/// Multiples of one point: table[j][d] = d·2^(8j)·P, so that k·P is one addition per byte of k.
struct FixedBase {
    table: Vec<Vec<G1Affine>>,
}

impl FixedBase {
    fn new(p: G1Affine) -> FixedBase {
        let mut base = G1::from(p);
        let table = (0..32)
            .map(|_| {
                let mut row = vec![G1::identity(); 256];
                for d in 1..256 {
                    row[d] = row[d - 1] + base;
                }
                let mut affine = vec![G1Affine::identity(); 256];
                G1::batch_normalize(&row, &mut affine);
                base = row[255] + base;
                affine
            })
            .collect();
        FixedBase { table }
    }

    fn mul(&self, k: &Fr) -> G1 {
        let repr = k.to_repr();
        repr.as_ref()
            .iter()
            .zip(&self.table)
            .filter(|(b, _)| **b != 0)
            .fold(G1::identity(), |acc, (b, row)| acc + row[*b as usize])
    }

    fn mul_all(&self, scalars: &[Fr]) -> Vec<G1Affine> {
        let mut out = vec![G1Affine::identity(); scalars.len()];
        out.par_chunks_mut(1 << 12)
            .zip(scalars.par_chunks(1 << 12))
            .for_each(|(o, s)| {
                let proj: Vec<G1> = s.iter().map(|k| self.mul(k)).collect();
                G1::batch_normalize(&proj, o);
            });
        out
    }
}

/// The proving key with what a prover needs to lay out witnesses the same way.
pub struct Keys {
    /// Proving key (holds the verifying key).
    pub pk: ProvingKey<G1Affine>,
    /// Column counts.
    pub params: BaseCircuitParams,
    /// Where each column's assignments end.
    pub break_points: MultiPhaseThreadBreakPoints,
    /// The size of the circuit the keys were made for.
    pub size: CircuitSize,
}

impl Keys {
    /// The verifying key.
    pub fn vk(&self) -> &VerifyingKey<G1Affine> {
        self.pk.get_vk()
    }
}

/// Makes the circuit's keys for statements with `st`'s n (its witness values do not matter).
pub fn keygen(
    srs: &ParamsKZG<Bn256>,
    st: &Statement,
    shape: &Shape,
) -> Result<Keys, halo2_base::halo2_proofs::plonk::Error> {
    let b = laid_out(st, shape, CircuitBuilderStage::Keygen);
    let size = size_of(&b, shape);
    let vk = keygen_vk(srs, &b)?;
    let pk = keygen_pk(srs, vk, &b)?;
    Ok(Keys {
        pk,
        params: b.config_params.clone(),
        break_points: b.break_points(),
        size,
    })
}

/// Witness generation alone: the prover's circuit for `st`, laid out on the keys' break points.
pub fn witness(keys: &Keys, st: &Statement, shape: &Shape) -> BaseCircuitBuilder<Fr> {
    let mut b = BaseCircuitBuilder::prover(keys.params.clone(), keys.break_points.clone());
    synthesize(&mut b, st, shape);
    b
}

/// A proof for the laid-out witness `circuit` with public inputs `instances`.
pub fn prove(
    srs: &ParamsKZG<Bn256>,
    keys: &Keys,
    circuit: BaseCircuitBuilder<Fr>,
    instances: &[Fr],
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<Vec<u8>, halo2_base::halo2_proofs::plonk::Error> {
    let mut transcript = Blake2bWrite::<_, G1Affine, Challenge255<_>>::init(vec![]);
    create_proof::<
        KZGCommitmentScheme<Bn256>,
        ProverSHPLONK<'_, Bn256>,
        Challenge255<_>,
        _,
        Blake2bWrite<Vec<u8>, G1Affine, _>,
        _,
    >(
        srs,
        &keys.pk,
        &[circuit],
        &[&[instances]],
        rng,
        &mut transcript,
    )?;
    Ok(transcript.finalize())
}

/// Whether `proof` verifies for the public inputs `instances`.
pub fn verify(
    srs: &ParamsKZG<Bn256>,
    vk: &VerifyingKey<G1Affine>,
    instances: &[Fr],
    proof: &[u8],
) -> bool {
    let strategy = SingleStrategy::new(srs);
    let mut transcript = Blake2bRead::<_, G1Affine, Challenge255<_>>::init(proof);
    verify_proof::<
        KZGCommitmentScheme<Bn256>,
        VerifierSHPLONK<'_, Bn256>,
        Challenge255<G1Affine>,
        Blake2bRead<&[u8], G1Affine, Challenge255<G1Affine>>,
        SingleStrategy<'_, Bn256>,
    >(
        srs.verifier_params(),
        vk,
        strategy,
        &[&[instances]],
        &mut transcript,
    )
    .is_ok()
}

/// Cells of the reference's per-signature design, counted with the same chips: one independent
/// 254-bit scalar multiplication (window 4) of a G1 point and one of a G2 point, as its circuit
/// makes for every signature. Returns (G1 advice cells, G2 advice cells).
pub fn reference_design_cells(
    shape: &Shape,
    rng: &mut (impl RngCore + CryptoRng),
) -> (usize, usize) {
    use halo2_base::halo2_proofs::halo2curves::bn256::{G1Affine as A1, G2Affine as A2, G2};
    use halo2_ecc::bn254::{Fp2Chip, FpChip};
    use halo2_ecc::ecc::{scalar_multiply, EccChip};

    let mut b = builder(CircuitBuilderStage::Mock, shape);
    let range = b.range_chip();
    let fp = FpChip::<Fr>::new(&range, super::LIMB_BITS, super::NUM_LIMBS);
    let fp2 = Fp2Chip::<Fr>::new(&fp);
    let g1 = EccChip::new(&fp);
    let g2 = EccChip::new(&fp2);
    let cells = |b: &BaseCircuitBuilder<Fr>| b.statistics().gate.total_advice_per_phase[0];
    let p1 = (G1::generator() * Fr::random(&mut *rng)).to_affine();
    let p2 = (G2::generator() * Fr::random(&mut *rng)).to_affine();
    let ctx = b.main(0);
    let a1 = g1.load_private::<A1>(ctx, (p1.x, p1.y));
    let a2 = g2.load_private::<A2>(ctx, (p2.x, p2.y));
    let s1 = ctx.load_witness(Fr::random(&mut *rng));
    let s2 = ctx.load_witness(Fr::random(&mut *rng));
    let c0 = cells(&b);
    let ctx = b.main(0);
    scalar_multiply::<Fr, _, A1>(&fp, ctx, a1, vec![s1], 254, shape.window_bits);
    let c1 = cells(&b);
    let ctx = b.main(0);
    scalar_multiply::<Fr, _, A2>(&fp2, ctx, a2, vec![s2], 254, shape.window_bits);
    let c2 = cells(&b);
    (c1 - c0, c2 - c1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use halo2_base::halo2_proofs::poly::commitment::Params;

    #[test]
    fn fast_setup_equals_the_librarys() {
        for k in [3u32, 6, 9] {
            let mut a = Vec::new();
            setup(k, &mut ChaCha20Rng::from_seed([k as u8; 32]))
                .write(&mut a)
                .unwrap();
            let mut b = Vec::new();
            ParamsKZG::<Bn256>::setup(k, ChaCha20Rng::from_seed([k as u8; 32]))
                .write(&mut b)
                .unwrap();
            assert_eq!(a, b, "k = {k}");
        }
    }
}
