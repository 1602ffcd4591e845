//! Baby Jubjub points as constraints, and fixed-base windowed scalar multiplication.
//!
//! * Addition is the complete twisted Edwards law in 6 constraints: `a = x1 y2`, `b = y1 x2`,
//!   `t = a b`, `delta = (y1 - A x1)(x2 + y2)`, then `x3 (1 + D t) = a + b` and
//!   `y3 (1 - D t) = delta + A a - b` (so y3's numerator is `y1 y2 - A x1 x2`). It has no
//!   exceptional cases (A is a square, D is not), so no input needs to be kept away from the
//!   identity or from the other operand.
//! * A fixed base B turns `k B` into a sum of table lookups: with `k = sum_i d_i 8^i` (3-bit
//!   digits), `k B = sum_i T_i[d_i]`, `T_i[d] = d 8^i B` precomputed. A lookup of 3 bits is a
//!   polynomial in the bits whose coefficients are constants: `b0 b1` costs one product, and
//!   `x = f(b0, b1) + b2 (g(b0, b1) - f(b0, b1))` one more per coordinate (f, g linear in
//!   b0, b1, b0 b1), so 3 constraints. Per scalar bit that is (3 + 6) / 3 = 3 constraints; 2-bit
//!   windows cost (1 + 6) / 2 and 4-bit ones (6 + 6) / 4, so 3 bits is the cheapest width.
//!   A 254-bit scalar takes 84 windows of 3 bits and one of 2.

use ark_bn254::Fr;
use ark_ff::Field;
use ark_r1cs_std::{
    alloc::AllocVar, boolean::Boolean, fields::fp::FpVar, fields::FieldVar, R1CSVar,
};
use ark_relations::r1cs::SynthesisError;

use crate::primitives::babyjubjub::{FixedBaseTable, Point, A, D, WINDOW};

#[derive(Clone)]
pub struct PointVar {
    pub x: FpVar<Fr>,
    pub y: FpVar<Fr>,
}

impl PointVar {
    pub fn constant(p: &Point) -> Self {
        PointVar {
            x: FpVar::Constant(p.x),
            y: FpVar::Constant(p.y),
        }
    }

    pub fn value(&self) -> Result<Point, SynthesisError> {
        Ok(Point {
            x: self.x.value()?,
            y: self.y.value()?,
        })
    }
}

/// `num / den` as a new variable q with the one constraint `q * den = num`.
fn quotient(num: &FpVar<Fr>, den: &FpVar<Fr>) -> Result<FpVar<Fr>, SynthesisError> {
    if let (FpVar::Constant(n), FpVar::Constant(d)) = (num, den) {
        return Ok(FpVar::Constant(
            *n * d.inverse().expect("a nonzero denominator"),
        ));
    }
    let cs = num.cs().or(den.cs());
    let q = FpVar::new_witness(cs, || {
        let d = den.value()?;
        // A zero denominator cannot occur for curve points; a malicious witness that reaches
        // one gets q = 0 here and an unsatisfied constraint below (num != 0) or none at all
        // (num = 0), which the completeness argument in the module docs rules out.
        Ok(num.value()? * d.inverse().unwrap_or_default())
    })?;
    q.mul_equals(den, num)?;
    Ok(q)
}

/// p + q, 6 constraints (none when both are constants).
pub fn add(p: &PointVar, q: &PointVar) -> Result<PointVar, SynthesisError> {
    let (a_coeff, d_coeff) = (Fr::from(A), Fr::from(D));
    let a = &p.x * &q.y;
    let b = &p.y * &q.x;
    let t = &a * &b;
    let delta = (&p.y - &p.x * a_coeff) * (&q.x + &q.y);
    let dt = t * d_coeff;
    let one = FpVar::Constant(Fr::ONE);
    Ok(PointVar {
        x: quotient(&(&a + &b), &(&one + &dt))?,
        y: quotient(&(delta + &a * a_coeff - &b), &(&one - &dt))?,
    })
}

/// The value of `entries[b0 + 2 b1]` as a linear combination of 1, b0, b1 and `b01 = b0 b1`.
fn select4(entries: &[Fr], b0: &FpVar<Fr>, b1: &FpVar<Fr>, b01: &FpVar<Fr>) -> FpVar<Fr> {
    let [e0, e1, e2, e3] = [entries[0], entries[1], entries[2], entries[3]];
    FpVar::Constant(e0) + b0 * (e1 - e0) + b1 * (e2 - e0) + b01 * (e3 - e2 - e1 + e0)
}

/// The table entry that `bits` (1 to 3 of them, little-endian) select.
fn lookup(bits: &[Boolean<Fr>], entries: &[Point]) -> Result<PointVar, SynthesisError> {
    let coord = |f: fn(&Point) -> Fr| entries.iter().map(f).collect::<Vec<_>>();
    let (xs, ys) = (coord(|p| p.x), coord(|p| p.y));
    let fp = |b: &Boolean<Fr>| FpVar::from(b.clone());
    match bits {
        [b0] => {
            let b0 = fp(b0);
            let pick = |e: &[Fr]| FpVar::Constant(e[0]) + &b0 * (e[1] - e[0]);
            Ok(PointVar {
                x: pick(&xs),
                y: pick(&ys),
            })
        }
        [b0, b1] => {
            let b01 = fp(&b0.and(b1)?);
            let (b0, b1) = (fp(b0), fp(b1));
            Ok(PointVar {
                x: select4(&xs, &b0, &b1, &b01),
                y: select4(&ys, &b0, &b1, &b01),
            })
        }
        [b0, b1, b2] => {
            let b01 = fp(&b0.and(b1)?);
            let (b0, b1, b2) = (fp(b0), fp(b1), fp(b2));
            let pick = |e: &[Fr]| {
                let low = select4(&e[..4], &b0, &b1, &b01);
                let high = select4(&e[4..], &b0, &b1, &b01);
                &b2 * (high - &low) + low
            };
            Ok(PointVar {
                x: pick(&xs),
                y: pick(&ys),
            })
        }
        _ => panic!("windows are 1 to {WINDOW} bits"),
    }
}

/// The lookups `T_i[d_i]` whose sum is `k B`, for the little-endian bits of k.
pub fn window_terms(
    bits: &[Boolean<Fr>],
    table: &FixedBaseTable,
) -> Result<Vec<PointVar>, SynthesisError> {
    assert!(
        bits.len() <= table.windows.len() * WINDOW,
        "the table is too short"
    );
    bits.chunks(WINDOW)
        .zip(&table.windows)
        .map(|(chunk, entries)| lookup(chunk, entries))
        .collect()
}

/// The sum of `terms` (at least one).
pub fn sum(terms: &[PointVar]) -> Result<PointVar, SynthesisError> {
    let (first, rest) = terms.split_first().expect("at least one term");
    rest.iter().try_fold(first.clone(), |acc, t| add(&acc, t))
}
