//! The optimal ate pairing of BLS12-381: a Miller loop over one or more (G1, G2) pairs sharing
//! its F_p^12 squarings, then one final exponentiation into GT.

use blst::{blst_final_exp, blst_miller_loop_n, blst_p1_affine, blst_p2_affine};

use crate::{output, G1Affine, G2Affine, Gt};

/// Π_i f_(P_i, Q_i): one Miller loop over all pairs (each extra pair costs its line
/// evaluations, the squarings are shared). The result is not yet in GT.
pub fn multi_miller_loop(pairs: &[(G1Affine, G2Affine)]) -> Gt {
    if pairs.is_empty() {
        return Gt::one();
    }
    let ps: Vec<*const blst_p1_affine> = pairs.iter().map(|(p, _)| &p.0 as *const _).collect();
    let qs: Vec<*const blst_p2_affine> = pairs.iter().map(|(_, q)| &q.0 as *const _).collect();
    // SAFETY: `ps` and `qs` hold `pairs.len()` pointers each, to valid affine points that
    // `pairs` keeps alive during the call; `out` is written.
    Gt(output(|out| unsafe {
        blst_miller_loop_n(out, qs.as_ptr(), ps.as_ptr(), pairs.len())
    }))
}

/// The final exponentiation f^((p^12 − 1)/r).
pub fn final_exponentiation(f: &Gt) -> Gt {
    // SAFETY: a valid F_p^12 element read, a distinct local written.
    Gt(output(|out| unsafe { blst_final_exp(out, &f.0) }))
}

/// e(P, Q).
pub fn pairing(p: &G1Affine, q: &G2Affine) -> Gt {
    final_exponentiation(&multi_miller_loop(&[(*p, *q)]))
}

/// Whether Π e(P_i, Q_i) = 1: one shared Miller loop and one final exponentiation (true for no
/// pair).
pub fn pairing_product_is_one(pairs: &[(G1Affine, G2Affine)]) -> bool {
    pairs.is_empty() || final_exponentiation(&multi_miller_loop(pairs)).is_one()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Scalar, G1, G2};

    #[test]
    fn bilinear_and_products_of_one() {
        let a = Scalar::from_u128(1234567);
        let b = Scalar::from_u128(7654321);
        let (g1, g2) = (G1Affine::generator(), G2Affine::generator());
        let e = pairing(&g1, &g2);
        let lhs = pairing(
            &G1::generator().mul(&a).to_affine(),
            &G2::generator().mul(&b).to_affine(),
        );
        assert_eq!(lhs, e.pow(&a.mul(&b)));
        assert_eq!(e.mul(&e.inverse()), Gt::one());
        assert!(pairing_product_is_one(&[(g1, g2), (g1.neg(), g2)]));
        assert!(!pairing_product_is_one(&[(g1, g2), (g1, g2)]));
        assert!(pairing_product_is_one(&[]));
        assert_eq!(e.square(), e.mul(&e));
    }
}
