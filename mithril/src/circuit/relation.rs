//! The relation proven: MSP.B of n signatures, with its BLS check, as `halo2-base` constraints.
//!
//! Public inputs (one instance column, in this order):
//!
//! | index | value |
//! |---|---|
//! | 0..6 | H(m): x then y, three 88-bit limbs each, little-endian |
//! | 6..12 | μ, the claimed aggregate signature, in the same layout |
//! | 12 | C, the Poseidon commitment to the signers' keys |
//!
//! Witness: the keys vk_1..vk_n (G2) and signatures σ_1..σ_n (G1).
//!
//! Constraints, in the order they are laid out:
//!
//! 1. every σ_i is on the curve and its coordinates are canonical (below q), so that each point
//!    has one limb encoding and the hash below is a function of the points (BN254's G1 has
//!    cofactor 1: on the curve is in the group);
//! 2. every vk_i is on the curve, and Poseidon over the keys' limbs equals C (keys are checked for
//!    subgroup membership and possession at registration, as in Mithril, and C binds the circuit
//!    to those registered keys);
//! 3. e_σ = Poseidon over the signatures' limbs; for each i, d_i = Poseidon(e_σ, i) is split as
//!    d_i = lo_i + 2^128·hi_i with lo_i < 2^128, hi_i < 2^126 and (hi_i, lo_i) below the field
//!    modulus (the split is the canonical one, so the prover has no choice of weight), and
//!    e_i = lo_i;
//! 4. ivk = Σ e_i·vk_i (one multi-scalar multiplication in G2) and μ' = Σ e_i·σ_i (one in G1),
//!    both on 128-bit scalars;
//! 5. μ' has canonical coordinates and its limbs are the public μ;
//! 6. the BLS check: the final exponentiation of the Miller loop over (μ', −g2) and (H(m), ivk)
//!    equals 1 in F_q^12, and the bit "equals 1" is constrained to be 1.
//!
//! What the relation takes from outside it (the verifier's side of the statement):
//!
//! * the keys were checked for membership of the order-r subgroup of G2 (and for possession) when
//!   they were registered: the circuit checks that each key is on the curve, not its order, and
//!   the G2 arithmetic (the Straus recoding, the Miller loop's additions of ivk) assumes points of
//!   order r;
//! * the verifier computes H(m) from the message and C from the registered keys itself: H(m) is
//!   loaded as given (on the curve because the verifier computed it), and C binds the proof to
//!   the keys only if the verifier's C is the commitment to the registered ones.
//!
//! [`Cheat`] lists ways a cheating prover departs from the honest witness; the tests show each
//! refused, and (with the constraint it meets left out) that this constraint is what refuses it.

use halo2_base::gates::circuit::builder::BaseCircuitBuilder;
use halo2_base::gates::{GateInstructions, RangeChip, RangeInstructions};
use halo2_base::halo2_proofs::halo2curves::bn256::Fq;
use halo2_base::halo2_proofs::halo2curves::bn256::{Fq12, Fq2, Fr, G1Affine, G2Affine};
use halo2_base::halo2_proofs::halo2curves::ff::{Field, PrimeField};
use halo2_base::poseidon::hasher::{spec::OptimizedPoseidonSpec, PoseidonHasher};
use halo2_base::utils::{biguint_to_fe, fe_to_biguint, modulus};
use halo2_base::AssignedValue;
use halo2_base::QuantumCell::Constant;
use halo2_ecc::bn254::{Fp2Chip, FpChip, FpPoint, FqPoint};
use halo2_ecc::ecc::{multi_scalar_multiply, EcPoint, EccChip};
use halo2_ecc::fields::FieldChip;
use num_bigint::BigUint;

use super::bn254::{self, WEIGHT_BITS};
use super::pairing::{pairing_product_is_one, G2Side};
use super::poseidon::{RATE, R_F, R_P, T};
use super::{Shape, LIMB_BITS, NUM_LIMBS};

/// What the relation takes from outside it, as the report and the PDF state it.
pub const ASSUMPTIONS: [&str; 2] = [
    "keys are checked for membership of G2's order-r subgroup (and for possession) when they are \
     registered: the circuit checks that each key is on the curve, not its order, and its G2 \
     arithmetic assumes points of order r (a key outside the subgroup fails the BLS check in the \
     tests, but nothing else in the circuit refuses it)",
    "the verifier computes H(m) from the message and the key commitment C from the registered keys \
     itself: the circuit loads H(m) as given, and C binds the proof to the registered keys only if \
     it is the verifier's own",
];

/// Number of public inputs.
pub const NUM_INSTANCES: usize = 4 * NUM_LIMBS + 1;

/// What the prover knows and claims, for n signers.
#[derive(Clone, Debug)]
pub struct Statement {
    /// H(m), public.
    pub message_point: G1Affine,
    /// The claimed aggregate signature μ, public.
    pub aggregate: G1Affine,
    /// The commitment to the keys, public.
    pub key_commitment: Fr,
    /// The signers' keys, private.
    pub keys: Vec<G2Affine>,
    /// Their signatures, private.
    pub signatures: Vec<G1Affine>,
    /// A replacement for the prover's split hint of one weight digest (index, low half, and
    /// optionally high half): how a cheating prover would try to use a weight other than the
    /// hash's. Honest provers: `None`.
    pub weight_hint: Option<(usize, u128, Option<u128>)>,
    /// How a cheating prover departs from the honest witness. Honest provers: `None`.
    pub cheat: Option<Cheat>,
    /// A constraint left out of the layout: only for the tests that show which constraint
    /// refuses a cheat.
    #[cfg(test)]
    pub(crate) omit: Option<Omit>,
}

/// A cheating prover's departure from the honest witness.
#[derive(Clone, Debug)]
pub enum Cheat {
    /// The coordinate (x, or y when `y` is set) of signature `index` held as its value plus q:
    /// the same point modulo q, with other limbs, so that the signature hash, and with it every
    /// weight, changes. Constraint 1's canonicity check refuses it. (halo2-ecc loads a witness in
    /// canonical form only, so these limbs are loaded as constants and range-checked as a loaded
    /// coordinate is; the constraints that read them are the honest layout's.)
    NonCanonicalSignature {
        /// Which signature.
        index: usize,
        /// The y coordinate rather than x.
        y: bool,
    },
    /// The residue witness c of the BLS check multiplied by this factor (its inverse supplied to
    /// match): a witness for another Miller-loop value. Constraint 6 refuses it.
    ResidueFactor(Box<Fq12>),
}

/// A constraint the tests leave out, to show that it is the one refusing a cheat (outside the
/// tests nothing can name one to leave out).
#[cfg_attr(not(test), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Omit {
    /// The canonicity of the signatures' coordinates (constraint 1).
    SignatureCanonicity,
    /// "The BLS check holds" (constraint 6).
    BlsCheck,
}

impl Statement {
    /// The honest statement for a signing: μ = MSP.BSig of its signatures.
    pub fn honest(signing: &bn254::Signing) -> Statement {
        let keys = signing.keys();
        let weights = bn254::weights(&signing.signatures);
        Statement {
            message_point: signing.message_point,
            aggregate: bn254::aggregate_signatures(&signing.signatures, &weights),
            key_commitment: bn254::key_commitment(&keys),
            keys,
            signatures: signing.signatures.clone(),
            weight_hint: None,
            cheat: None,
            #[cfg(test)]
            omit: None,
        }
    }

    /// n.
    pub fn n(&self) -> usize {
        self.signatures.len()
    }

    /// The public inputs, in the circuit's order.
    pub fn instances(&self) -> Vec<Fr> {
        let mut v = bn254::g1_limbs(&self.message_point);
        v.extend(bn254::g1_limbs(&self.aggregate));
        v.push(self.key_commitment);
        v
    }

    #[cfg(test)]
    fn omits(&self, c: Omit) -> bool {
        self.omit == Some(c)
    }

    #[cfg(not(test))]
    fn omits(&self, _: Omit) -> bool {
        false
    }
}

fn poseidon_hasher(
    ctx: &mut halo2_base::Context<Fr>,
    gate: &impl GateInstructions<Fr>,
) -> PoseidonHasher<Fr, T, RATE> {
    let mut h = PoseidonHasher::<Fr, T, RATE>::new(OptimizedPoseidonSpec::new::<R_F, R_P, 0>());
    h.initialize_consts(ctx, gate);
    h
}

/// Lays out the relation for `st` in `builder` (whose k and lookup bits are set) and records the
/// public inputs. Panics if the statement's lengths disagree (callers check them first).
pub fn synthesize(builder: &mut BaseCircuitBuilder<Fr>, st: &Statement, shape: &Shape) {
    let n = st.n();
    assert!(n >= 1 && st.keys.len() == n, "n keys and n signatures");
    let range = builder.range_chip();
    let fp = FpChip::<Fr>::new(&range, LIMB_BITS, NUM_LIMBS);
    let fp2 = Fp2Chip::<Fr>::new(&fp);
    let g1 = EccChip::new(&fp);

    let ctx = builder.main(0);
    // Public H(m): loaded, its limbs exposed. The verifier computed it, so it is on the curve.
    let hm = g1.load_private_unchecked(ctx, (st.message_point.x, st.message_point.y));
    let sigs = signatures(ctx, &fp, &g1, st);
    let (keys, hasher, commitment) = keys_and_commitment(ctx, &fp2, range.gate(), st);
    let weights = weights(ctx, &range, &hasher, &sigs, st);

    // 4. ivk = Σ e_i·vk_i in G2 (Straus; halo2-ecc's bucket method is for F_q points only).
    let scalars = || weights.iter().map(|w| vec![*w]).collect::<Vec<_>>();
    let ivk = multi_scalar_multiply::<Fr, _, G2Affine>(
        &fp2,
        ctx,
        &keys,
        scalars(),
        WEIGHT_BITS,
        shape.window_bits,
    );
    // μ' = Σ e_i·σ_i in G1 (Straus up to 25 points, the bucket method beyond).
    let mu = g1.variable_base_msm_custom::<G1Affine>(
        builder.pool(0),
        &sigs,
        scalars(),
        WEIGHT_BITS,
        shape.window_bits,
    );

    let ctx = builder.main(0);
    // 5. μ' canonical and public.
    let mu_x = fp.enforce_less_than(ctx, mu.x().clone());
    let mu_y = fp.enforce_less_than(ctx, mu.y().clone());
    bls_check(ctx, &fp, &fp2, (&hm, &mu, &ivk), st, shape);

    let mut public: Vec<AssignedValue<Fr>> = Vec::with_capacity(NUM_INSTANCES);
    public.extend(hm.x().limbs());
    public.extend(hm.y().limbs());
    public.extend(mu_x.inner().limbs());
    public.extend(mu_y.inner().limbs());
    public.push(commitment);
    builder.assigned_instances = vec![public];
}

type G1Point = EcPoint<Fr, FpPoint<Fr>>;
type G2Point = EcPoint<Fr, FqPoint<Fr>>;

/// Constraint 1: the signatures on the curve, with canonical coordinates.
fn signatures(
    ctx: &mut halo2_base::Context<Fr>,
    fp: &FpChip<'_, Fr>,
    g1: &EccChip<'_, Fr, FpChip<'_, Fr>>,
    st: &Statement,
) -> Vec<G1Point> {
    st.signatures
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let p = match st.cheat {
                Some(Cheat::NonCanonicalSignature { index, y }) if index == i => {
                    non_canonical_signature(ctx, fp, g1, s, y)
                }
                _ => g1.load_private::<G1Affine>(ctx, (s.x, s.y)),
            };
            if !st.omits(Omit::SignatureCanonicity) {
                fp.enforce_less_than(ctx, p.x().clone());
                fp.enforce_less_than(ctx, p.y().clone());
            }
            p
        })
        .collect()
}

/// A cheating prover's signature: one coordinate held as its value plus q (see
/// [`Cheat::NonCanonicalSignature`]), on the curve.
fn non_canonical_signature(
    ctx: &mut halo2_base::Context<Fr>,
    fp: &FpChip<'_, Fr>,
    g1: &EccChip<'_, Fr, FpChip<'_, Fr>>,
    s: &G1Affine,
    y: bool,
) -> G1Point {
    let plus_q = |ctx: &mut halo2_base::Context<Fr>, c: &Fq| {
        let v = fe_to_biguint(c) + modulus::<Fq>();
        let a = fp.load_constant_uint(ctx, v);
        fp.range_check(ctx, a.clone(), Fq::NUM_BITS as usize);
        a
    };
    let (px, py) = if y {
        (fp.load_private(ctx, s.x), plus_q(ctx, &s.y))
    } else {
        (plus_q(ctx, &s.x), fp.load_private(ctx, s.y))
    };
    let p = EcPoint::new(px, py);
    g1.assert_is_on_curve::<G1Affine>(ctx, &p);
    p
}

/// Constraint 2: the keys on the curve, and Poseidon over their limbs (the commitment the
/// public C must equal). Returns the keys, the hasher (for the weights) and the commitment.
fn keys_and_commitment(
    ctx: &mut halo2_base::Context<Fr>,
    fp2: &Fp2Chip<'_, Fr>,
    gate: &impl GateInstructions<Fr>,
    st: &Statement,
) -> (Vec<G2Point>, PoseidonHasher<Fr, T, RATE>, AssignedValue<Fr>) {
    let g2 = EccChip::new(fp2);
    let keys: Vec<G2Point> = st
        .keys
        .iter()
        .map(|k| {
            let p = g2.load_private_unchecked(ctx, (k.x, k.y));
            g2.assert_is_on_curve::<G2Affine>(ctx, &p);
            p
        })
        .collect();
    let hasher = poseidon_hasher(ctx, gate);
    let key_limbs: Vec<AssignedValue<Fr>> = keys
        .iter()
        .flat_map(|k| {
            [&k.x().0[0], &k.x().0[1], &k.y().0[0], &k.y().0[1]]
                .into_iter()
                .flat_map(|c| c.limbs().to_vec())
        })
        .collect();
    let commitment = hasher.hash_fix_len_array(ctx, gate, &key_limbs);
    (keys, hasher, commitment)
}

/// Constraint 3, the weights: e_σ = Poseidon over the signatures' limbs, d_i = Poseidon(e_σ, i)
/// split canonically as lo_i + 2^128·hi_i, e_i = lo_i.
fn weights(
    ctx: &mut halo2_base::Context<Fr>,
    range: &RangeChip<Fr>,
    hasher: &PoseidonHasher<Fr, T, RATE>,
    sigs: &[G1Point],
    st: &Statement,
) -> Vec<AssignedValue<Fr>> {
    let gate = range.gate();
    let sig_limbs: Vec<AssignedValue<Fr>> = sigs
        .iter()
        .flat_map(|s| s.x().limbs().iter().chain(s.y().limbs()).copied())
        .collect();
    let seed = hasher.hash_fix_len_array(ctx, gate, &sig_limbs);
    (0..sigs.len())
        .map(|i| {
            let index = ctx.load_constant(Fr::from(i as u64));
            let digest = hasher.hash_fix_len_array(ctx, gate, &[seed, index]);
            let hint = st.weight_hint.filter(|&(j, _, _)| j == i);
            canonical_low_half(ctx, range, digest, hint)
        })
        .collect()
}

/// The low 128 bits of `digest`, from its canonical split lo + 2^128·hi (lo < 2^128,
/// hi < 2^126, (hi, lo) below the field's modulus); `hint` replaces the prover's split (a
/// cheating prover's, in the tests).
fn canonical_low_half(
    ctx: &mut halo2_base::Context<Fr>,
    range: &RangeChip<Fr>,
    digest: AssignedValue<Fr>,
    hint: Option<(usize, u128, Option<u128>)>,
) -> AssignedValue<Fr> {
    let gate = range.gate();
    let modulus = modulus::<Fr>();
    let two_128 = BigUint::from(1u8) << WEIGHT_BITS;
    let r_lo: Fr = biguint_to_fe(&(&modulus % &two_128));
    let r_hi: Fr = biguint_to_fe(&(&modulus >> WEIGHT_BITS));
    let pow_128: Fr = biguint_to_fe(&two_128);
    let mut lo_val = bn254::low_bits(digest.value());
    let mut hi_val = bn254::high_bits(digest.value());
    if let Some((_, lo, hi)) = hint {
        lo_val = lo;
        hi_val = hi.unwrap_or(hi_val);
    }
    let lo = ctx.load_witness(Fr::from_u128(lo_val));
    let hi = ctx.load_witness(Fr::from_u128(hi_val));
    range.range_check(ctx, lo, WEIGHT_BITS);
    range.range_check(ctx, hi, 254 - WEIGHT_BITS);
    let recomposed = gate.mul_add(ctx, hi, Constant(pow_128), lo);
    ctx.constrain_equal(&recomposed, &digest);
    // Canonical: hi < r_hi, or hi = r_hi and lo < r_lo.
    let hi_below = range.is_less_than(ctx, hi, Constant(r_hi), 254 - WEIGHT_BITS);
    let hi_equal = gate.is_equal(ctx, hi, Constant(r_hi));
    let lo_below = range.is_less_than(ctx, lo, Constant(r_lo), WEIGHT_BITS);
    let tie_ok = gate.and(ctx, hi_equal, lo_below);
    let canonical = gate.or(ctx, hi_below, tie_ok);
    gate.assert_is_const(ctx, &canonical, &Fr::ONE);
    lo
}

/// Constraint 6, the BLS check on the weighted aggregate: e(μ', −g2)·e(H(m), ivk) = 1,
/// constrained to hold.
fn bls_check(
    ctx: &mut halo2_base::Context<Fr>,
    fp: &FpChip<'_, Fr>,
    fp2: &Fp2Chip<'_, Fr>,
    (hm, mu, ivk): (&G1Point, &G1Point, &G2Point),
    st: &Statement,
    shape: &Shape,
) {
    let neg_g2 = -G2Affine::generator();
    let values = [
        (g1_value(fp, mu), neg_g2),
        (st.message_point, g2_value(fp2, ivk)),
    ];
    let holds = pairing_product_is_one(
        ctx,
        fp,
        &[(mu, G2Side::Constant(neg_g2)), (hm, G2Side::Assigned(ivk))],
        &values,
        shape.pairing,
        match &st.cheat {
            Some(Cheat::ResidueFactor(z)) => Some(&**z),
            _ => None,
        },
    );
    if !st.omits(Omit::BlsCheck) {
        fp.gate().assert_is_const(ctx, &holds, &Fr::ONE);
    }
}

/// The value of an assigned G1 point.
fn g1_value(fp: &FpChip<Fr>, p: &EcPoint<Fr, FpPoint<Fr>>) -> G1Affine {
    G1Affine {
        x: fp.get_assigned_value(&p.x().clone().into()),
        y: fp.get_assigned_value(&p.y().clone().into()),
    }
}

/// The value of an assigned G2 point.
fn g2_value(fp2: &Fp2Chip<Fr>, p: &EcPoint<Fr, FqPoint<Fr>>) -> G2Affine {
    let x: Fq2 = fp2.get_assigned_value(&p.x().clone().into());
    let y: Fq2 = fp2.get_assigned_value(&p.y().clone().into());
    G2Affine { x, y }
}

#[cfg(test)]
mod tests;
