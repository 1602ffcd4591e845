//! Groth16 proofs and verification keys in snarkjs's JSON form, so that each verifier can check
//! the other prover's proofs: points as decimal strings, G1 `[x, y, "1"]` (the identity
//! `["0", "1", "0"]`), G2 `[[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]`, the key's
//! `vk_alpha_1`, `vk_beta_2`, `vk_gamma_2`, `vk_delta_2` and `IC` (ark-groth16's
//! `gamma_abc_g1`), the proof's `pi_a`, `pi_b`, `pi_c`. Both sides check the same equation,
//! `e(A, B) = e(alpha, beta) e(sum IC_i x_i, gamma) e(C, delta)`.
//!
//! Read points are checked: canonical coordinates, on the curve, in the prime-order subgroup.

use std::path::Path;
use std::str::FromStr;

use ark_bn254::{Bn254, Fq, Fq2, G1Affine, G2Affine};
use ark_ec::short_weierstrass::{Affine, SWCurveConfig};
use ark_ec::AffineRepr;
use ark_ff::{One, PrimeField, Zero};
use ark_groth16::{Proof, VerifyingKey};
use serde_json::{json, Value};

use crate::Error;

fn fq(x: &Fq) -> String {
    x.into_bigint().to_string()
}

fn g1(p: &G1Affine) -> Value {
    match p.xy() {
        None => json!(["0", "1", "0"]),
        Some((x, y)) => json!([fq(x), fq(y), "1"]),
    }
}

fn g2(p: &G2Affine) -> Value {
    match p.xy() {
        None => json!([["0", "0"], ["1", "0"], ["0", "0"]]),
        Some((x, y)) => json!([[fq(&x.c0), fq(&x.c1)], [fq(&y.c0), fq(&y.c1)], ["1", "0"]]),
    }
}

/// The proof as snarkjs writes it.
pub fn proof_json(p: &Proof<Bn254>) -> Value {
    json!({
        "pi_a": g1(&p.a), "pi_b": g2(&p.b), "pi_c": g1(&p.c),
        "protocol": "groth16", "curve": "bn128",
    })
}

/// The verification key as snarkjs exports it (without `vk_alphabeta_12`, which its verifier
/// does not read).
pub fn vk_json(vk: &VerifyingKey<Bn254>) -> Value {
    json!({
        "protocol": "groth16",
        "curve": "bn128",
        "nPublic": vk.gamma_abc_g1.len() - 1,
        "vk_alpha_1": g1(&vk.alpha_g1),
        "vk_beta_2": g2(&vk.beta_g2),
        "vk_gamma_2": g2(&vk.gamma_g2),
        "vk_delta_2": g2(&vk.delta_g2),
        "IC": vk.gamma_abc_g1.iter().map(g1).collect::<Vec<_>>(),
    })
}

struct Reader<'a> {
    path: &'a Path,
}

impl Reader<'_> {
    fn err(&self, what: &str, msg: impl std::fmt::Display) -> Error {
        Error::format(self.path, format!("{what}: {msg}"))
    }

    fn strings<'v>(&self, v: &'v Value, what: &str, n: usize) -> Result<Vec<&'v Value>, Error> {
        let a = v
            .as_array()
            .filter(|a| a.len() == n)
            .ok_or_else(|| self.err(what, format!("expected an array of {n}")))?;
        Ok(a.iter().collect())
    }

    fn fq(&self, v: &Value, what: &str) -> Result<Fq, Error> {
        let s = v
            .as_str()
            .ok_or_else(|| self.err(what, "expected a decimal string"))?;
        Fq::from_str(s)
            .ok()
            .filter(|x| fq(x) == s)
            .ok_or_else(|| self.err(what, format!("{s:?} is not a canonical coordinate")))
    }

    fn fq2(&self, v: &Value, what: &str) -> Result<Fq2, Error> {
        let a = self.strings(v, what, 2)?;
        Ok(Fq2::new(self.fq(a[0], what)?, self.fq(a[1], what)?))
    }

    /// A point of `group` as `[x, y, z]`, each coordinate read by `coordinate`: affine (z = 1)
    /// or the identity (z = 0), on the curve and in the prime-order subgroup.
    fn point<P: SWCurveConfig>(
        &self,
        v: &Value,
        what: &str,
        group: &str,
        coordinate: impl Fn(&Value, &str) -> Result<P::BaseField, Error>,
    ) -> Result<Affine<P>, Error> {
        let a = self.strings(v, what, 3)?;
        let z = coordinate(a[2], what)?;
        let (x, y) = (coordinate(a[0], what)?, coordinate(a[1], what)?);
        let p = if z.is_zero() {
            Affine::<P>::zero()
        } else if z.is_one() {
            Affine::<P>::new_unchecked(x, y)
        } else {
            return Err(self.err(what, "expected affine coordinates (z = 1)"));
        };
        if !p.is_on_curve() || !p.is_in_correct_subgroup_assuming_on_curve() {
            return Err(self.err(what, format!("not a point of {group}")));
        }
        Ok(p)
    }

    fn g1(&self, v: &Value, what: &str) -> Result<G1Affine, Error> {
        self.point(v, what, "G1", |c, w| self.fq(c, w))
    }

    fn g2(&self, v: &Value, what: &str) -> Result<G2Affine, Error> {
        self.point(v, what, "G2", |c, w| self.fq2(c, w))
    }

    fn key<'v>(&self, obj: &'v Value, key: &str) -> Result<&'v Value, Error> {
        obj.get(key)
            .ok_or_else(|| self.err(key, "missing (a snarkjs Groth16 JSON file?)"))
    }
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Value, Error> {
    serde_json::from_slice(bytes).map_err(|e| Error::format(path, format!("not JSON: {e}")))
}

/// A proof in snarkjs's JSON form.
pub fn read_proof(path: &Path, bytes: &[u8]) -> Result<Proof<Bn254>, Error> {
    let v = parse(path, bytes)?;
    let r = Reader { path };
    Ok(Proof {
        a: r.g1(r.key(&v, "pi_a")?, "pi_a")?,
        b: r.g2(r.key(&v, "pi_b")?, "pi_b")?,
        c: r.g1(r.key(&v, "pi_c")?, "pi_c")?,
    })
}

/// A verification key in snarkjs's JSON form.
pub fn read_vk(path: &Path, bytes: &[u8]) -> Result<VerifyingKey<Bn254>, Error> {
    let v = parse(path, bytes)?;
    let r = Reader { path };
    let ic = r
        .key(&v, "IC")?
        .as_array()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| r.err("IC", "expected a non-empty array"))?
        .iter()
        .enumerate()
        .map(|(i, p)| r.g1(p, &format!("IC[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(VerifyingKey {
        alpha_g1: r.g1(r.key(&v, "vk_alpha_1")?, "vk_alpha_1")?,
        beta_g2: r.g2(r.key(&v, "vk_beta_2")?, "vk_beta_2")?,
        gamma_g2: r.g2(r.key(&v, "vk_gamma_2")?, "vk_gamma_2")?,
        delta_g2: r.g2(r.key(&v, "vk_delta_2")?, "vk_delta_2")?,
        gamma_abc_g1: ic,
    })
}

/// Whether a key or proof file is in snarkjs's JSON form (else ark-serialize's binary form): text
/// (UTF-8) that opens with `{`. A binary key or proof may start with the byte of `{`, but it is
/// not valid UTF-8 beyond its first few bytes (the chance is below 2^-100 for a proof's 128).
pub fn is_json(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok_and(|t| t.trim_start().starts_with('{'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ec::CurveGroup;
    use ark_std::UniformRand;

    #[test]
    fn proofs_and_keys_round_trip_through_json() {
        let mut rng = ark_std::test_rng();
        let p = Proof::<Bn254> {
            a: ark_bn254::G1Projective::rand(&mut rng).into_affine(),
            b: ark_bn254::G2Projective::rand(&mut rng).into_affine(),
            c: G1Affine::zero(),
        };
        let path = Path::new("proof.json");
        let text = proof_json(&p).to_string();
        assert_eq!(read_proof(path, text.as_bytes()).unwrap(), p);
        assert!(is_json(text.as_bytes()));
        // A binary file that happens to start with `{` is not JSON.
        assert!(!is_json(&[b'{', 0xff, 0xfe, 0x80]));
        let vk = VerifyingKey::<Bn254> {
            alpha_g1: p.a,
            beta_g2: p.b,
            gamma_g2: p.b,
            delta_g2: G2Affine::generator(),
            gamma_abc_g1: vec![p.a, G1Affine::generator()],
        };
        let text = vk_json(&vk).to_string();
        assert_eq!(read_vk(path, text.as_bytes()).unwrap(), vk);
        // A point off the curve is refused.
        let mut bad = proof_json(&p);
        bad["pi_a"][1] = json!("5");
        assert!(read_proof(path, bad.to_string().as_bytes()).is_err());
    }
}
