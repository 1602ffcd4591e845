//! The optimal ate pairing of BLS12-381: a Miller loop over one or more (G1, G2) pairs sharing
//! its squarings, then one final exponentiation into GT.

use blst::{blst_final_exp, blst_fp12, blst_miller_loop_n, blst_p1_affine, blst_p2_affine};

use super::g1::G1Affine;
use super::g2::G2Affine;
use super::gt::Gt;

/// Π_i f_(P_i, Q_i): one Miller loop over all pairs (each extra pair costs its line evaluations
/// only, the F_p^12 squarings are shared). The result is not yet in GT.
pub fn multi_miller_loop(pairs: &[(G1Affine, G2Affine)]) -> Gt {
    let ps: Vec<*const blst_p1_affine> = pairs.iter().map(|(p, _)| &p.0 as *const _).collect();
    let qs: Vec<*const blst_p2_affine> = pairs.iter().map(|(_, q)| &q.0 as *const _).collect();
    let mut out = blst_fp12::default();
    // SAFETY: `ps` and `qs` hold `pairs.len()` pointers to valid affine points that outlive the
    // call.
    unsafe { blst_miller_loop_n(&mut out, qs.as_ptr(), ps.as_ptr(), pairs.len()) };
    Gt(out)
}

/// The final exponentiation f^((p^12 − 1)/r).
pub fn final_exponentiation(f: &Gt) -> Gt {
    let mut out = blst_fp12::default();
    // SAFETY: a valid F_p^12 element, fresh output.
    unsafe { blst_final_exp(&mut out, &f.0) };
    Gt(out)
}

/// e(P, Q).
pub fn pairing(p: &G1Affine, q: &G2Affine) -> Gt {
    final_exponentiation(&multi_miller_loop(&[(*p, *q)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::fr::Scalar;
    use crate::curve::g1::G1;
    use crate::curve::g2::G2;
    use crate::curve::gt::GtTable;

    #[test]
    fn bilinear_and_table_exponentiation_agrees() {
        let a = Scalar::from_u128(1234567);
        let b = Scalar::from_u128(7654321);
        let g1 = G1Affine::generator();
        let g2 = G2Affine::generator();
        let e = pairing(&g1, &g2);
        let lhs = pairing(
            &G1::generator().mul(&a).to_affine(),
            &G2::generator().mul(&b).to_affine(),
        );
        let ab = a.mul(&b);
        assert_eq!(lhs, e.pow(&ab));
        let table = GtTable::new(&e);
        assert_eq!(table.pow(&ab), lhs);
        let big = Scalar::from_be_bytes_mod_r(&[0xa5; 48]);
        assert_eq!(table.pow(&big), e.pow(&big));
        assert_eq!(table.pow(&Scalar::ZERO), Gt::one());
        // e(P, Q)·e(−P, Q) = 1 from one shared Miller loop.
        let f = multi_miller_loop(&[(g1, g2), (g1.neg(), g2)]);
        assert_eq!(final_exponentiation(&f), Gt::one());
    }
}
