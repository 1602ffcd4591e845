//! Baby Jubjub points as constraints, and fixed-base windowed scalar multiplication.
//!
//! * Edwards addition is the complete twisted Edwards law in 6 constraints: `a = x1 y2`,
//!   `b = y1 x2`, `t = a b`, `delta = (y1 - A x1)(x2 + y2)`, then `x3 (1 + D t) = a + b` and
//!   `y3 (1 - D t) = delta + A a - b` (so y3's numerator is `y1 y2 - A x1 x2`). It has no
//!   exceptional cases (A is a square, D is not), whatever the operands.
//! * Montgomery addition is 3 constraints: `lambda (u2 - u1) = v2 - v1`,
//!   `lambda^2 = u3 + MONT_A + u1 + u2`, `lambda (u1 - u3) = v3 + v1`. If the operands were
//!   equal, lambda would be free and so would the sum: the fixed-base layout
//!   ([`FixedBase`]) makes that impossible for every choice of bits, not only the honest one.
//!   Back to Edwards costs 2 (`x v = u`, `y (u + 1) = u - 1`).
//! * A fixed base B turns `k B` into a sum of table lookups of 3-bit digits. A lookup is a
//!   polynomial in the bits with constant coefficients: `b0 b1` costs one product, and
//!   `f(b0, b1) + b2 (g(b0, b1) - f(b0, b1))` one more per coordinate (f, g linear in b0, b1,
//!   b0 b1), so 3 constraints; a 2-bit window costs 1. With one Montgomery addition per window
//!   that is (3 + 3) / 3 = 2 constraints per bit (2-bit windows: (1 + 3) / 2; 4-bit: (6 + 3) / 4).
//!   A 254-bit scalar is 83 windows in Montgomery form (249 bits: 83 lookups, 82 additions, one
//!   conversion, 497 constraints) and two high windows added in Edwards form.

use ark_bn254::Fr;
use ark_ff::Field;
use ark_r1cs_std::{
    alloc::AllocVar, boolean::Boolean, fields::fp::FpVar, fields::FieldVar, R1CSVar,
};
use ark_relations::r1cs::SynthesisError;

use crate::primitives::babyjubjub::{FixedBase, A, D, MONT_A, WINDOW};

/// A Baby Jubjub point in twisted Edwards coordinates (x, y), the model of
/// [`crate::primitives::babyjubjub::Point`]; the complete addition law applies to any two.
#[derive(Clone)]
pub struct PointVar {
    /// The x coordinate.
    pub x: FpVar<Fr>,
    /// The y coordinate.
    pub y: FpVar<Fr>,
}

/// A point in Montgomery coordinates (u, v).
#[derive(Clone)]
pub struct MontVar {
    /// The u coordinate, `(1 + y) / (1 - y)`.
    pub u: FpVar<Fr>,
    /// The v coordinate, `u / x`.
    pub v: FpVar<Fr>,
}

/// A new variable q with the one constraint `q * den = num`, or the given `out` constrained so.
fn quotient(
    num: &FpVar<Fr>,
    den: &FpVar<Fr>,
    out: Option<&FpVar<Fr>>,
) -> Result<FpVar<Fr>, SynthesisError> {
    if let Some(q) = out {
        q.mul_equals(den, num)?;
        return Ok(q.clone());
    }
    if let (FpVar::Constant(n), FpVar::Constant(d)) = (num, den) {
        return Ok(FpVar::Constant(
            *n * d.inverse().expect("a nonzero denominator"),
        ));
    }
    let cs = num.cs().or(den.cs());
    let q = FpVar::new_witness(cs, || {
        // Only a malicious witness reaches a zero denominator; q = 0 then leaves the
        // constraint below unsatisfied unless num = 0 too (see the module notes).
        Ok(num.value()? * den.value()?.inverse().unwrap_or_default())
    })?;
    q.mul_equals(den, num)?;
    Ok(q)
}

/// p + q in Edwards form: 6 constraints (3 if one operand is a constant). With `out`, the sum
/// is constrained to equal it instead of being a new variable (no extra constraint).
pub fn add(p: &PointVar, q: &PointVar, out: Option<&PointVar>) -> Result<PointVar, SynthesisError> {
    let (a_coeff, d_coeff) = (Fr::from(A), Fr::from(D));
    let a = &p.x * &q.y;
    let b = &p.y * &q.x;
    let t = &a * &b;
    let delta = (&p.y - &p.x * a_coeff) * (&q.x + &q.y);
    let dt = t * d_coeff;
    let one = FpVar::Constant(Fr::ONE);
    Ok(PointVar {
        x: quotient(&(&a + &b), &(&one + &dt), out.map(|o| &o.x))?,
        y: quotient(
            &(delta + &a * a_coeff - &b),
            &(&one - &dt),
            out.map(|o| &o.y),
        )?,
    })
}

fn witness(
    f: impl FnOnce() -> Result<Fr, SynthesisError>,
    like: &[&FpVar<Fr>],
) -> Result<FpVar<Fr>, SynthesisError> {
    let cs = like
        .iter()
        .fold(ark_relations::r1cs::ConstraintSystemRef::None, |cs, v| {
            cs.or(v.cs())
        });
    FpVar::new_witness(cs, f)
}

/// p + q in Montgomery form, 3 constraints; the caller guarantees `p != +-q` (module notes).
fn mont_add(p: &MontVar, q: &MontVar) -> Result<MontVar, SynthesisError> {
    let all = [&p.u, &p.v, &q.u, &q.v];
    let lambda = witness(
        || {
            let den = (q.u.value()? - p.u.value()?).inverse().unwrap_or_default();
            Ok((q.v.value()? - p.v.value()?) * den)
        },
        &all,
    )?;
    lambda.mul_equals(&(&q.u - &p.u), &(&q.v - &p.v))?;
    let u = witness(
        || Ok(lambda.value()?.square() - Fr::from(MONT_A) - p.u.value()? - q.u.value()?),
        &all,
    )?;
    lambda.mul_equals(&lambda, &(&u + Fr::from(MONT_A) + &p.u + &q.u))?;
    let v = witness(
        || Ok(lambda.value()? * (p.u.value()? - u.value()?) - p.v.value()?),
        &all,
    )?;
    lambda.mul_equals(&(&p.u - &u), &(&v + &p.v))?;
    Ok(MontVar { u, v })
}

/// Montgomery to Edwards, 2 constraints (`x v = u`, `y (u + 1) = u - 1`).
fn to_edwards(p: &MontVar) -> Result<PointVar, SynthesisError> {
    let one = FpVar::Constant(Fr::ONE);
    Ok(PointVar {
        x: quotient(&p.u, &p.v, None)?,
        y: quotient(&(&p.u - &one), &(&p.u + &one), None)?,
    })
}

/// `entries[b0 + 2 b1]` as a linear combination of 1, b0, b1 and `b01 = b0 b1`.
fn select4(entries: &[Fr], b0: &FpVar<Fr>, b1: &FpVar<Fr>, b01: &FpVar<Fr>) -> FpVar<Fr> {
    let [e0, e1, e2, e3] = [entries[0], entries[1], entries[2], entries[3]];
    FpVar::Constant(e0) + b0 * (e1 - e0) + b1 * (e2 - e0) + b01 * (e3 - e2 - e1 + e0)
}

/// The table coordinates (one list per coordinate) that `bits` (1 to 3, little-endian) select.
fn lookup(bits: &[Boolean<Fr>], coords: [&[Fr]; 2]) -> Result<[FpVar<Fr>; 2], SynthesisError> {
    let fp = |b: &Boolean<Fr>| FpVar::from(b.clone());
    Ok(match bits {
        [b0] => {
            let b0 = fp(b0);
            coords.map(|e| FpVar::Constant(e[0]) + &b0 * (e[1] - e[0]))
        }
        [b0, b1] => {
            let b01 = fp(&b0.and(b1)?);
            let (b0, b1) = (fp(b0), fp(b1));
            coords.map(|e| select4(e, &b0, &b1, &b01))
        }
        [b0, b1, b2] => {
            let b01 = fp(&b0.and(b1)?);
            let (b0, b1, b2) = (fp(b0), fp(b1), fp(b2));
            coords.map(|e| {
                let low = select4(&e[..4], &b0, &b1, &b01);
                let high = select4(&e[4..], &b0, &b1, &b01);
                &b2 * (high - &low) + low
            })
        }
        _ => panic!("windows are 1 to {WINDOW} bits"),
    })
}

/// The terms whose Edwards sum is `k B`, for the little-endian bits of k: the Montgomery
/// segment's total (converted to Edwards) and one lookup per high window.
pub fn fixed_base_terms(
    bits: &[Boolean<Fr>],
    table: &FixedBase,
) -> Result<Vec<PointVar>, SynthesisError> {
    let windows: Vec<&[Boolean<Fr>]> = bits.chunks(WINDOW).collect();
    assert_eq!(
        windows.len(),
        table.segment.len() + table.top.len(),
        "the table fits the scalar"
    );
    let (low, high) = windows.split_at(table.segment.len());
    let mut acc: Option<MontVar> = None;
    for (chunk, entries) in low.iter().zip(&table.segment) {
        let us: Vec<Fr> = entries.iter().map(|p| p.u).collect();
        let vs: Vec<Fr> = entries.iter().map(|p| p.v).collect();
        let [u, v] = lookup(chunk, [&us, &vs])?;
        let term = MontVar { u, v };
        acc = Some(match acc {
            None => term,
            Some(acc) => mont_add(&acc, &term)?,
        });
    }
    let mut terms = vec![to_edwards(&acc.expect("at least one segment window"))?];
    for (chunk, entries) in high.iter().zip(&table.top) {
        let xs: Vec<Fr> = entries.iter().map(|p| p.x).collect();
        let ys: Vec<Fr> = entries.iter().map(|p| p.y).collect();
        let [x, y] = lookup(chunk, [&xs, &ys])?;
        terms.push(PointVar { x, y });
    }
    Ok(terms)
}

/// The Edwards sum of `terms` (at least two); with `out`, constrained to equal it.
pub fn sum(terms: &[PointVar], out: Option<&PointVar>) -> Result<PointVar, SynthesisError> {
    let (last, init) = terms.split_last().expect("at least one term");
    let (first, middle) = init.split_first().expect("at least two terms");
    let acc = middle
        .iter()
        .try_fold(first.clone(), |acc, t| add(&acc, t, None))?;
    add(&acc, last, out)
}
