//! The BLS check Π e(P_j, Q_j) = 1 in the circuit, two ways.
//!
//! **Final exponentiation** ([`PairingCheck::FinalExponentiation`]): `halo2-ecc`'s multi-Miller
//! loop f, its final exponentiation f^((p^12 − 1)/r), and "equals 1". About 2.4 M advice cells
//! for the two-pair loop and 1.7 M for the exponentiation.
//!
//! **Residue witness** ([`PairingCheck::ResidueWitness`]), after Novakovic and Eagen, "On Proving
//! Pairings" (IACR ePrint 2024/640): instead of exponentiating, the prover shows that f is a
//! λ-th power up to a known factor, where λ = 6x + 2 + p − p^2 + p^3 is the optimal-ate loop
//! length combined with Frobenius powers (x the BN parameter). Facts used (each checked by a
//! test from the curve's constants):
//!
//! * r divides λ; write λ = m·r. With h = (p^12 − 1)/r, gcd(m, h) = 3 and gcd(m/3, h) = 1;
//! * 3^3 exactly divides p^12 − 1 and 27 divides h, so the 27th roots of unity w^k are killed
//!   by the final exponentiation: w^h = 1.
//!
//! The prover supplies c ∈ F_q^12 (with its inverse) and i ∈ {0, 1, 2} such that
//! f·w^i = c^λ. Then f^h = c^(λh)·w^(−ih) = c^(m(p^12−1)) = 1: the check is sound. It is complete:
//! when f^h = 1 exactly one i makes f·w^i a cube, and then c exists ([`residue_witness`] finds it:
//! an r-th root, an (m/3)-th root, and a cube root by splitting the 3-part from the rest).
//!
//! The c^(6x+2) part of c^λ costs no squarings: the Miller loop's accumulator starts at c^−1 and
//! is multiplied by c^∓1 at each non-zero digit of 6x + 2, so the squarings it already does raise
//! the c-part too, and the loop ends at A = f·c^−(6x+2). What is left is
//! A·w^i = c^p·(c^−1)^(p^2)·c^(p^3): three Frobenius maps and four multiplications. The loop's
//! lines are `halo2-ecc`'s (sparse line functions in the same F_q^12 basis), so the loop can be
//! replayed outside the circuit ([`miller_loop`]) to compute f and from it the witness.

use std::sync::OnceLock;

use halo2_base::gates::GateInstructions;
use halo2_base::halo2_proofs::halo2curves::bn256::{
    Fq, Fq12, Fq2, Fq6, Fr, G1Affine, G2Affine, FROBENIUS_COEFF_FQ12_C1, SIX_U_PLUS_2_NAF,
};
use halo2_base::halo2_proofs::halo2curves::ff::Field;
use halo2_base::utils::modulus;
use halo2_base::{AssignedValue, Context};
use halo2_ecc::bn254::pairing::{
    fp12_multiply_with_line_equal, fp12_multiply_with_line_unequal, neg_twisted_frobenius,
    sparse_fp12_multiply, twisted_frobenius, PairingChip,
};
use halo2_ecc::bn254::{Fp12Chip, Fp2Chip, FpChip, FpPoint, FqPoint};
use halo2_ecc::ecc::{EcPoint, EccChip};
use halo2_ecc::fields::FieldChip;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::One;

/// How the circuit checks a pairing product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairingCheck {
    /// Miller loop, final exponentiation, compare with 1 (`halo2-ecc`).
    FinalExponentiation,
    /// Miller loop with a λ-th-residue witness (no final exponentiation).
    ResidueWitness,
}

impl PairingCheck {
    /// The name used on the command line and in reports.
    pub fn name(&self) -> &'static str {
        match self {
            PairingCheck::FinalExponentiation => "final-exp",
            PairingCheck::ResidueWitness => "residue",
        }
    }

    /// Parses [`PairingCheck::name`].
    pub fn parse(s: &str) -> Option<PairingCheck> {
        match s {
            "final-exp" => Some(PairingCheck::FinalExponentiation),
            "residue" => Some(PairingCheck::ResidueWitness),
            _ => None,
        }
    }
}

/// BN254's parameter x (6x + 2 is the optimal-ate loop length).
pub const BN_X: u64 = 4965661367192848881;

/// The exponents and roots of unity the residue witness needs.
pub struct Constants {
    /// p^12 − 1, the order of F_q^12*.
    pub group_order: BigUint,
    /// λ = 6x + 2 + p − p^2 + p^3.
    pub lambda: BigUint,
    /// h = (p^12 − 1)/r, the final exponent.
    pub h: BigUint,
    /// m/3 where λ = m·r.
    pub m_third: BigUint,
    /// r^−1 mod h.
    pub r_inv_mod_h: BigUint,
    /// (m/3)^−1 mod h.
    pub m_third_inv_mod_h: BigUint,
    /// (p^12 − 1)/27, the part of the group order prime to 3.
    pub t: BigUint,
    /// A primitive 27th root of unity, not a cube.
    pub w: Fq12,
}

fn pow(a: &Fq12, e: &BigUint) -> Fq12 {
    a.pow_vartime(e.to_u64_digits())
}

/// The constants, computed once.
pub fn constants() -> &'static Constants {
    static C: OnceLock<Constants> = OnceLock::new();
    C.get_or_init(|| {
        let p = modulus::<Fq>();
        let r = modulus::<Fr>();
        let x = BigUint::from(BN_X);
        let group_order = p.pow(12) - 1u32;
        let lambda = 6u32 * &x + 2u32 + &p + p.pow(3) - p.pow(2);
        let h = &group_order / &r;
        let m = &lambda / &r;
        let m_third = &m / 3u32;
        let inv = |a: &BigUint, n: &BigUint| -> BigUint {
            let e = num_bigint::BigInt::from(a.clone())
                .extended_gcd(&num_bigint::BigInt::from(n.clone()));
            assert!(e.gcd.is_one(), "not invertible");
            e.x.mod_floor(&num_bigint::BigInt::from(n.clone()))
                .to_biguint()
                .expect("reduced mod n")
        };
        let r_inv_mod_h = inv(&r, &h);
        let m_third_inv_mod_h = inv(&m_third, &h);
        let t = &group_order / 27u32;
        // A non-cube g (g^((p^12−1)/3) ≠ 1) gives w = g^t of order 27.
        let third = &group_order / 3u32;
        let w = (1u64..)
            .map(|k| Fq12 {
                c0: Fq6 {
                    c0: Fq2::new(Fq::from(k), Fq::ONE),
                    c1: Fq2::ONE,
                    c2: Fq2::ZERO,
                },
                c1: Fq6::ONE,
            })
            .find(|g| pow(g, &third) != Fq12::ONE)
            .map(|g| pow(&g, &t))
            .expect("non-cubes are two thirds of the group");
        Constants {
            group_order,
            lambda,
            h,
            m_third,
            r_inv_mod_h,
            m_third_inv_mod_h,
            t,
            w,
        }
    })
}

/// A cube root of a cube `a` ∈ F_q^12*: the part of order prime to 3 by exponentiation, the
/// 3-part (a power of w) by search over the 27 powers.
fn cube_root(a: &Fq12) -> Option<Fq12> {
    let c = constants();
    let n27 = BigUint::from(27u32);
    let inv = |a: &BigUint, n: &BigUint| -> BigUint {
        let e =
            num_bigint::BigInt::from(a.clone()).extended_gcd(&num_bigint::BigInt::from(n.clone()));
        e.x.mod_floor(&num_bigint::BigInt::from(n.clone()))
            .to_biguint()
            .expect("reduced")
    };
    // a = a_t·a_3 with a_t = a^(27·(27^−1 mod t)) of order dividing t and a_3 = a^(t·(t^−1 mod 27)).
    let a_t = pow(a, &(&n27 * inv(&n27, &c.t)));
    let a_3 = pow(a, &(&c.t * inv(&(&c.t % &n27), &n27)));
    let root_t = pow(&a_t, &inv(&BigUint::from(3u32), &c.t));
    let mut wk = Fq12::ONE;
    let mut k = 0u32;
    while wk != a_3 {
        wk *= c.w;
        k += 1;
        if k == 27 {
            return None;
        }
    }
    if !k.is_multiple_of(3) {
        return None;
    }
    let root_3 = c.w.pow_vartime([(k / 3) as u64]);
    let root = root_t * root_3;
    (root.square() * root == *a).then_some(root)
}

/// (c, i) with f·w^i = c^λ, when f^((p^12−1)/r) = 1; `None` otherwise.
pub fn residue_witness(f: &Fq12) -> Option<(Fq12, usize)> {
    let k = constants();
    if pow(f, &k.h) != Fq12::ONE {
        return None;
    }
    let third = &k.group_order / 3u32;
    let (i, f_scaled) = (0..3)
        .map(|i| (i, *f * k.w.pow_vartime([i as u64])))
        .find(|(_, g)| pow(g, &third) == Fq12::ONE)?;
    let c1 = pow(&f_scaled, &k.r_inv_mod_h);
    let c2 = pow(&c1, &k.m_third_inv_mod_h);
    let c = cube_root(&c2)?;
    (pow(&c, &k.lambda) == f_scaled).then_some((c, i))
}

/// An F_q^12 element from its coefficients on 1, w, ..., w^5 (w^6 = 9 + u).
fn from_w_coeffs(a: [Fq2; 6]) -> Fq12 {
    Fq12 {
        c0: Fq6 {
            c0: a[0],
            c1: a[2],
            c2: a[4],
        },
        c1: Fq6 {
            c0: a[1],
            c1: a[3],
            c2: a[5],
        },
    }
}

fn xi() -> Fq2 {
    Fq2::new(Fq::from(9u64), Fq::ONE)
}

fn fq2_times_fq(a: Fq2, b: Fq) -> Fq2 {
    Fq2::new(a.c0 * b, a.c1 * b)
}

/// What a line coefficient is multiplied by: 1, P's x or P's y.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Factor {
    One,
    Px,
    Py,
}

/// A sparse line: three (power of w, F_q^2 coefficient, factor) terms.
type LineTerms = [(usize, Fq2, Factor); 3];

fn fq2_small(k: u64) -> Fq2 {
    Fq2::new(Fq::from(k), Fq::ZERO)
}

/// The tangent line at R, as `halo2-ecc` forms it (unscaled): (3x^3 − 2y^2)·ξ + 2y·P_y·w^3 −
/// 3x^2·P_x·w^4.
fn double_terms(r: &G2Affine) -> LineTerms {
    let (x, y) = (r.x, r.y);
    let x_sq = x.square();
    [
        (
            0,
            (x_sq * x * fq2_small(3) - y.square() * fq2_small(2)) * xi(),
            Factor::One,
        ),
        (3, y * fq2_small(2), Factor::Py),
        (4, -(x_sq * fq2_small(3)), Factor::Px),
    ]
}

/// The line through R and Q, as `halo2-ecc` forms it (unscaled): (x_Q − x_R)·P_y·w^2 +
/// (y_R − y_Q)·P_x·w^3 + (x_R·y_Q − x_Q·y_R)·w^5.
fn add_terms(r: &G2Affine, q: &G2Affine) -> LineTerms {
    [
        (2, q.x - r.x, Factor::Py),
        (3, r.y - q.y, Factor::Px),
        (5, r.x * q.y - q.x * r.y, Factor::One),
    ]
}

/// A line's value at P.
fn eval_terms(terms: &LineTerms, p: &G1Affine) -> Fq12 {
    let mut a = [Fq2::ZERO; 6];
    for (i, c, f) in terms {
        a[*i] = match f {
            Factor::One => *c,
            Factor::Px => fq2_times_fq(*c, p.x),
            Factor::Py => fq2_times_fq(*c, p.y),
        };
    }
    from_w_coeffs(a)
}

fn line_double(r: &G2Affine, p: &G1Affine) -> Fq12 {
    eval_terms(&double_terms(r), p)
}

fn line_add(r: &G2Affine, q: &G2Affine, p: &G1Affine) -> Fq12 {
    eval_terms(&add_terms(r, q), p)
}

/// A line with constant coefficients at an assigned P, as the sparse vector `halo2-ecc`'s
/// sparse multiplication takes.
fn assign_terms(
    fp2: &Fp2Chip<Fr>,
    ctx: &mut Context<Fr>,
    terms: &LineTerms,
    p: &EcPoint<Fr, FpPoint<Fr>>,
) -> Vec<Option<FqPoint<Fr>>> {
    let mut line: Vec<Option<FqPoint<Fr>>> = vec![None; 6];
    for (i, c, f) in terms {
        let c = fp2.load_constant(ctx, *c);
        line[*i] = Some(match f {
            Factor::One => c,
            Factor::Px | Factor::Py => {
                let coord = if *f == Factor::Px { p.x() } else { p.y() };
                let nc = fp2.0.fp_mul_no_carry(ctx, c, coord.clone());
                fp2.carry_mod(ctx, nc)
            }
        });
    }
    line
}

fn g2_double(r: &G2Affine) -> G2Affine {
    let lambda = r.x.square()
        * Fq2::new(Fq::from(3u64), Fq::ZERO)
        * (r.y + r.y).invert().expect("no 2-torsion");
    let x = lambda.square() - r.x - r.x;
    let y = lambda * (r.x - x) - r.y;
    G2Affine { x, y }
}

fn g2_add(r: &G2Affine, q: &G2Affine) -> G2Affine {
    let lambda = (q.y - r.y) * (q.x - r.x).invert().expect("distinct x");
    let x = lambda.square() - r.x - q.x;
    let y = lambda * (r.x - x) - r.y;
    G2Affine { x, y }
}

fn twisted_frobenius_native(q: &G2Affine, negate_y: bool) -> G2Affine {
    let c2 = FROBENIUS_COEFF_FQ12_C1[1] * FROBENIUS_COEFF_FQ12_C1[1];
    let c3 = c2 * FROBENIUS_COEFF_FQ12_C1[1];
    let mut y = q.y;
    y.conjugate();
    if negate_y {
        y = -y;
    }
    let mut x = q.x;
    x.conjugate();
    G2Affine {
        x: c2 * x,
        y: c3 * y,
    }
}

/// The multi-Miller loop f of the circuit's [`PairingCheck::ResidueWitness`] check, outside the
/// circuit: the same lines, products and final Frobenius lines, without c.
pub fn miller_loop(pairs: &[(G1Affine, G2Affine)]) -> Fq12 {
    let naf = &SIX_U_PLUS_2_NAF;
    let top = naf
        .iter()
        .rposition(|d| *d != 0)
        .expect("non-zero loop length");
    let mut f = Fq12::ONE;
    let mut r: Vec<G2Affine> = pairs.iter().map(|(_, q)| *q).collect();
    for i in (0..top).rev() {
        f = f.square();
        for ((p, _), rj) in pairs.iter().zip(r.iter_mut()) {
            f *= line_double(rj, p);
            *rj = g2_double(rj);
        }
        if naf[i] != 0 {
            for ((p, q), rj) in pairs.iter().zip(r.iter_mut()) {
                let q = if naf[i] == 1 {
                    *q
                } else {
                    G2Affine { x: q.x, y: -q.y }
                };
                f *= line_add(rj, &q, p);
                *rj = g2_add(rj, &q);
            }
        }
    }
    for ((p, q), rj) in pairs.iter().zip(r.iter_mut()) {
        let q1 = twisted_frobenius_native(q, false);
        let neg_q2 = twisted_frobenius_native(&q1, true);
        f *= line_add(rj, &q1, p);
        *rj = g2_add(rj, &q1);
        f *= line_add(rj, &neg_q2, p);
    }
    f
}

/// The G2 side of a pair: a point of the circuit, or a constant known when the circuit is laid
/// out (its multiples along the loop, and so its lines' coefficients, are then constants too).
#[derive(Clone, Debug)]
pub enum G2Side<'a> {
    /// An assigned point.
    Assigned(&'a EcPoint<Fr, FqPoint<Fr>>),
    /// A fixed point.
    Constant(G2Affine),
}

/// Lays out Π e(P_j, Q_j) = 1 with `check` and returns the bit "it holds" (not yet constrained).
/// `values` are the points' values, for the residue witness; `residue_factor` multiplies that
/// witness (a cheating prover's, for the tests; honest provers pass `None`).
pub fn pairing_product_is_one(
    ctx: &mut Context<Fr>,
    fp: &FpChip<Fr>,
    pairs: &[(&EcPoint<Fr, FpPoint<Fr>>, G2Side<'_>)],
    values: &[(G1Affine, G2Affine)],
    check: PairingCheck,
    residue_factor: Option<&Fq12>,
) -> AssignedValue<Fr> {
    let fp12 = Fp12Chip::<Fr>::new(fp);
    match check {
        PairingCheck::FinalExponentiation => {
            let fp2 = Fp2Chip::<Fr>::new(fp);
            let g2 = EccChip::new(&fp2);
            let qs: Vec<EcPoint<Fr, FqPoint<Fr>>> = pairs
                .iter()
                .map(|(_, q)| match q {
                    G2Side::Assigned(q) => (*q).clone(),
                    G2Side::Constant(q) => g2.assign_constant_point::<G2Affine>(ctx, *q),
                })
                .collect();
            let pairing = PairingChip::new(fp);
            let f = pairing.multi_miller_loop(
                ctx,
                pairs.iter().zip(&qs).map(|((p, _), q)| (*p, q)).collect(),
            );
            let fe = pairing.final_exp(ctx, f);
            let one = fp12.load_constant(ctx, Fq12::one());
            fp12.is_equal(ctx, fe, one)
        }
        PairingCheck::ResidueWitness => residue_check(ctx, fp, pairs, values, residue_factor),
    }
}

/// The running multiple R of a pair's Q along the loop, and ±Q.
enum Running {
    Assigned {
        r: EcPoint<Fr, FqPoint<Fr>>,
        q: EcPoint<Fr, FqPoint<Fr>>,
        neg_q: EcPoint<Fr, FqPoint<Fr>>,
    },
    Constant {
        r: G2Affine,
        q: G2Affine,
    },
}

/// The optimal ate loop's two last lines of every pair, through π(Q) and −π²(Q) (π the
/// Frobenius on the twist), multiplied into `acc`.
fn frobenius_lines(
    ctx: &mut Context<Fr>,
    fp2: &Fp2Chip<'_, Fr>,
    g2: &EccChip<'_, Fr, Fp2Chip<'_, Fr>>,
    pairs: &[(&EcPoint<Fr, FpPoint<Fr>>, G2Side<'_>)],
    running: &mut [Running],
    mut acc: FqPoint<Fr>,
) -> FqPoint<Fr> {
    let xi1 = FROBENIUS_COEFF_FQ12_C1[1];
    let c2 = fp2.load_constant(ctx, xi1 * xi1);
    let c3 = fp2.load_constant(ctx, xi1 * xi1 * xi1);
    for ((p, _), run) in pairs.iter().zip(running.iter_mut()) {
        match run {
            Running::Assigned { r, q, .. } => {
                let q1 = twisted_frobenius(g2, ctx, q.clone(), &c2, &c3);
                let neg_q2 = neg_twisted_frobenius(g2, ctx, &q1, &c2, &c3);
                acc = fp12_multiply_with_line_unequal(fp2, ctx, &acc, (r, &q1), p);
                *r = g2.add_unequal(ctx, r.clone(), q1, false);
                acc = fp12_multiply_with_line_unequal(fp2, ctx, &acc, (r, &neg_q2), p);
            }
            Running::Constant { r, q } => {
                let q1 = twisted_frobenius_native(q, false);
                let neg_q2 = twisted_frobenius_native(&q1, true);
                let line = assign_terms(fp2, ctx, &add_terms(r, &q1), p);
                acc = sparse_fp12_multiply(fp2, ctx, &acc, &line);
                *r = g2_add(r, &q1);
                let line = assign_terms(fp2, ctx, &add_terms(r, &neg_q2), p);
                acc = sparse_fp12_multiply(fp2, ctx, &acc, &line);
            }
        }
    }
    acc
}

fn residue_check(
    ctx: &mut Context<Fr>,
    fp: &FpChip<Fr>,
    pairs: &[(&EcPoint<Fr, FpPoint<Fr>>, G2Side<'_>)],
    values: &[(G1Affine, G2Affine)],
    residue_factor: Option<&Fq12>,
) -> AssignedValue<Fr> {
    let k = constants();
    let fp2 = Fp2Chip::<Fr>::new(fp);
    let fp12 = Fp12Chip::<Fr>::new(fp);
    let g2 = EccChip::new(&fp2);
    let gate = fp.gate();

    // The witness; a prover whose product is not 1 has none and puts c = 1, which fails the
    // check below.
    let (c_val, i_val) = residue_witness(&miller_loop(values)).unwrap_or((Fq12::ONE, 0));
    let c_val = residue_factor.map_or(c_val, |z| c_val * z);
    let c = fp12.load_private(ctx, c_val);
    let c_inv = fp12.load_private(ctx, c_val.invert().unwrap_or(Fq12::ONE));
    let one = fp12.load_constant(ctx, Fq12::one());
    let c_c_inv = fp12.mul(ctx, &c, &c_inv);
    fp12.assert_equal(ctx, c_c_inv, one);
    let index = ctx.load_witness(Fr::from(i_val as u64));
    let indicator = gate.idx_to_indicator(ctx, index, 3);
    let powers: Vec<_> = (0..3u64)
        .map(|j| fp12.load_constant(ctx, k.w.pow_vartime([j])))
        .collect();
    let w_i = fp12.0.select_by_indicator(ctx, &powers, &indicator);

    // A = f·c^−(6x+2), f the Miller loop of the pairs.
    let naf = &SIX_U_PLUS_2_NAF;
    let top = naf
        .iter()
        .rposition(|d| *d != 0)
        .expect("non-zero loop length");
    let mut running: Vec<Running> = pairs
        .iter()
        .map(|(_, q)| match q {
            G2Side::Assigned(q) => Running::Assigned {
                r: (*q).clone(),
                q: (*q).clone(),
                neg_q: g2.negate(ctx, (*q).clone()),
            },
            G2Side::Constant(q) => Running::Constant { r: *q, q: *q },
        })
        .collect();
    let mut acc = c_inv.clone();
    for i in (0..top).rev() {
        acc = fp12.mul(ctx, &acc, &acc);
        for ((p, _), run) in pairs.iter().zip(running.iter_mut()) {
            match run {
                Running::Assigned { r, .. } => {
                    acc = fp12_multiply_with_line_equal(&fp2, ctx, &acc, r, p);
                    *r = g2.double(ctx, r.clone());
                }
                Running::Constant { r, .. } => {
                    let line = assign_terms(&fp2, ctx, &double_terms(r), p);
                    acc = sparse_fp12_multiply(&fp2, ctx, &acc, &line);
                    *r = g2_double(r);
                }
            }
        }
        if naf[i] != 0 {
            let c_part = if naf[i] == 1 { &c_inv } else { &c };
            acc = fp12.mul(ctx, &acc, c_part);
            for ((p, _), run) in pairs.iter().zip(running.iter_mut()) {
                match run {
                    Running::Assigned { r, q, neg_q } => {
                        let q = if naf[i] == 1 { q } else { neg_q };
                        acc = fp12_multiply_with_line_unequal(&fp2, ctx, &acc, (r, q), p);
                        *r = g2.add_unequal(ctx, r.clone(), q.clone(), false);
                    }
                    Running::Constant { r, q } => {
                        let q = if naf[i] == 1 { *q } else { -*q };
                        let line = assign_terms(&fp2, ctx, &add_terms(r, &q), p);
                        acc = sparse_fp12_multiply(&fp2, ctx, &acc, &line);
                        *r = g2_add(r, &q);
                    }
                }
            }
        }
    }
    let acc = frobenius_lines(ctx, &fp2, &g2, pairs, &mut running, acc);

    // A·w^i = c^p·(c^−1)^(p^2)·c^(p^3).
    let lhs = fp12.mul(ctx, &acc, &w_i);
    let c_p = fp12.frobenius_map(ctx, &c, 1);
    let c_inv_p2 = fp12.frobenius_map(ctx, &c_inv, 2);
    let c_p3 = fp12.frobenius_map(ctx, &c, 3);
    let rhs = fp12.mul(ctx, &c_p, &c_inv_p2);
    let rhs = fp12.mul(ctx, &rhs, &c_p3);
    fp12.is_equal(ctx, lhs, rhs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use halo2_base::halo2_proofs::halo2curves::bn256::{G1, G2};
    use halo2_base::halo2_proofs::halo2curves::group::Curve;
    use num_integer::Integer;

    #[test]
    fn the_curve_facts_the_check_relies_on() {
        let k = constants();
        let r = modulus::<Fr>();
        assert_eq!(&k.lambda % &r, BigUint::from(0u32));
        let m = &k.lambda / &r;
        assert_eq!(m.gcd(&k.h), BigUint::from(3u32));
        assert!(k.m_third.gcd(&k.h).is_one());
        assert_eq!(&k.group_order % 27u32, BigUint::from(0u32));
        assert_ne!(&k.t % 3u32, BigUint::from(0u32));
        assert_eq!(&k.h % 27u32, BigUint::from(0u32));
        assert_eq!(k.w.pow_vartime([27]), Fq12::ONE);
        assert_ne!(k.w.pow_vartime([9]), Fq12::ONE);
    }

    #[test]
    fn residue_witness_exists_exactly_for_products_equal_to_one() {
        let mut rng = rand_core::OsRng;
        let a = Fr::random(&mut rng);
        let p = (G1::generator() * a).to_affine();
        let q = G2::generator().to_affine();
        let pa = G1::generator().to_affine();
        let qa = (G2::generator() * a).to_affine();
        // e(a·g1, g2)·e(g1, −a·g2) = 1.
        let good = [(p, q), (pa, -qa)];
        let f = miller_loop(&good);
        let (c, i) = residue_witness(&f).expect("a witness");
        assert_eq!(
            pow(&c, &constants().lambda),
            f * constants().w.pow_vartime([i as u64])
        );
        // Another product is not 1 and has none.
        let bad = [
            (p, q),
            ((G1::generator() * Fr::from(2u64)).to_affine(), -qa),
        ];
        assert!(residue_witness(&miller_loop(&bad)).is_none());
        // After the final exponentiation the loop is bilinear and non-degenerate.
        let e = |pairs: &[(G1Affine, G2Affine)]| pow(&miller_loop(pairs), &constants().h);
        let p2 = (G1::generator() * (a + a)).to_affine();
        assert_eq!(e(&[(p2, q)]), e(&[(p, q)]).square());
        assert_eq!(e(&[(pa, qa)]), e(&[(p, q)]));
        assert_ne!(e(&[(p, q)]), Fq12::ONE);
    }
}
