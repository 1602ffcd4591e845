//! Additive secret sharing over Zq and Beaver multiplication.
//!
//! A value v is shared among m parties as m−1 uniform shares and a last share v − Σ; Beaver
//! triples (a, b, c = ab) come from a trusted dealer (S1 in docs/fixes.md). Multiplying shared x and y:
//! each party publishes `d_k = x_k − a_k`, `e_k = y_k − b_k`; with `d = Σ d_k`, `e = Σ e_k`, party
//! k's share of xy is `z_k = d·b_k + e·a_k + c_k`, and party 0 adds `d·e`.

use ark_ff::PrimeField;
use rand::{CryptoRng, RngCore};

use crate::{Error, Result};

/// Splits v into m additive shares.
pub fn share<F: PrimeField>(v: &F, m: usize, rng: &mut (impl RngCore + CryptoRng)) -> Vec<F> {
    assert!(m > 0, "sharing among zero parties");
    let mut shares: Vec<F> = (0..m - 1).map(|_| F::rand(rng)).collect();
    let sum: F = shares.iter().sum();
    shares.push(*v - sum);
    shares
}

/// One party's share of a distributed sigma proof's responses: `x̂_i − x_{k,i}·ch_i` for its
/// nonces x̂ and witness shares x_k; the parties' shares sum to the response for the shared x.
pub fn response_shares<F: PrimeField>(nonces: &[F], x: &[F], ch: &[F]) -> Vec<F> {
    nonces
        .iter()
        .zip(x)
        .zip(ch)
        .map(|((h, x), c)| *h - *x * c)
        .collect()
}

/// Σ shares.
pub fn reconstruct<F: PrimeField>(shares: &[F]) -> F {
    shares.iter().sum()
}

/// One party's shares of one Beaver triple.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TripleShare<F: PrimeField> {
    /// Share of a.
    pub a: F,
    /// Share of b.
    pub b: F,
    /// Share of c = ab.
    pub c: F,
}

/// Dealer: n triples shared among m parties; `result[k][i]` is party k's share of triple i.
pub fn gen_beaver_triples<F: PrimeField>(
    n: usize,
    m: usize,
    rng: &mut (impl RngCore + CryptoRng),
) -> Vec<Vec<TripleShare<F>>> {
    let mut out = vec![Vec::with_capacity(n); m];
    for _ in 0..n {
        let (a, b) = (F::rand(rng), F::rand(rng));
        let (sa, sb, sc) = (
            share(&a, m, rng),
            share(&b, m, rng),
            share(&(a * b), m, rng),
        );
        for k in 0..m {
            out[k].push(TripleShare {
                a: sa[k],
                b: sb[k],
                c: sc[k],
            });
        }
    }
    out
}

/// Step 1 of Beaver multiplication for party k: the masked values `(d_k, e_k)` it publishes.
pub fn beaver_open<F: PrimeField>(x_k: &F, y_k: &F, t: &TripleShare<F>) -> (F, F) {
    (*x_k - t.a, *y_k - t.b)
}

/// Step 2 for party k: its share of xy from the opened d = Σ d_k and e = Σ e_k.
pub fn beaver_finish<F: PrimeField>(k: usize, d: &F, e: &F, t: &TripleShare<F>) -> F {
    let z = *d * t.b + *e * t.a + t.c;
    if k == 0 {
        z + *d * e
    } else {
        z
    }
}

/// Runs the whole multiplication for vectors of shares `x[k][i]`, `y[k][i]` with triples
/// `triples[k][i]`: returns `z[k][i]` with `Σ_k z[k][i] = x_i·y_i`.
pub fn beaver_multiply<F: PrimeField>(
    x: &[Vec<F>],
    y: &[Vec<F>],
    triples: &[Vec<TripleShare<F>>],
) -> Result<Vec<Vec<F>>> {
    let m = x.len();
    if m == 0 || y.len() != m || triples.len() != m {
        return Err(Error::Input("Beaver: one share vector per party".into()));
    }
    let n = x[0].len();
    if (0..m).any(|k| x[k].len() != n || y[k].len() != n || triples[k].len() < n) {
        return Err(Error::Input(
            "Beaver: share vectors of different lengths".into(),
        ));
    }
    let opened: Vec<Vec<(F, F)>> = (0..m)
        .map(|k| {
            (0..n)
                .map(|i| beaver_open(&x[k][i], &y[k][i], &triples[k][i]))
                .collect()
        })
        .collect();
    let de: Vec<(F, F)> = (0..n)
        .map(|i| {
            opened
                .iter()
                .fold((F::zero(), F::zero()), |(d, e), o| (d + o[i].0, e + o[i].1))
        })
        .collect();
    Ok((0..m)
        .map(|k| {
            (0..n)
                .map(|i| beaver_finish(k, &de[i].0, &de[i].1, &triples[k][i]))
                .collect()
        })
        .collect())
}

crate::wire_struct!(impl[F: PrimeField] TripleShare<F> { ark a, ark b, ark c });

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// Fresh uniform values, one per entry: a party's share of an unknown random value
    /// (upstream's `sharerands`).
    fn share_rands<F: PrimeField>(n: usize, rng: &mut (impl RngCore + CryptoRng)) -> Vec<F> {
        (0..n).map(|_| F::rand(rng)).collect()
    }

    fn sharing<F: PrimeField>() {
        let mut rng = ChaCha20Rng::seed_from_u64(50);
        for m in [1usize, 2, 4] {
            let v = F::rand(&mut rng);
            let s = share(&v, m, &mut rng);
            assert_eq!(s.len(), m);
            assert_eq!(reconstruct(&s), v);
            let n = 5;
            let xs: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
            let ys: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
            let split = |v: &[F], rng: &mut ChaCha20Rng| -> Vec<Vec<F>> {
                let per: Vec<Vec<F>> = v.iter().map(|x| share(x, m, rng)).collect();
                (0..m).map(|k| per.iter().map(|s| s[k]).collect()).collect()
            };
            let (xsh, ysh) = (split(&xs, &mut rng), split(&ys, &mut rng));
            let triples = gen_beaver_triples::<F>(n, m, &mut rng);
            for i in 0..n {
                let a: F = triples.iter().map(|t| t[i].a).sum();
                let b: F = triples.iter().map(|t| t[i].b).sum();
                let c: F = triples.iter().map(|t| t[i].c).sum();
                assert_eq!(a * b, c);
            }
            let z = beaver_multiply(&xsh, &ysh, &triples).unwrap();
            for i in 0..n {
                let zi: F = z.iter().map(|zk| zk[i]).sum();
                assert_eq!(zi, xs[i] * ys[i]);
            }
            // A wrong triple share gives a wrong product.
            let mut bad = triples.clone();
            bad[m - 1][0].c += F::one();
            let z = beaver_multiply(&xsh, &ysh, &bad).unwrap();
            let z0: F = z.iter().map(|zk| zk[0]).sum();
            assert_ne!(z0, xs[0] * ys[0]);
            assert!(beaver_multiply(&xsh, &ysh[..m - 1], &triples).is_err());
        }
        assert_eq!(share_rands::<F>(3, &mut rng).len(), 3);
    }

    fn sharing_on<E: ark_ec::pairing::Pairing>() {
        sharing::<E::ScalarField>();
    }

    crate::curve_tests!(sharing_on);
}
