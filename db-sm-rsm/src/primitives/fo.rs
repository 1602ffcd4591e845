//! Fujisaki–Okamoto commitments modulo an RSA modulus N (upstream `commkey_fo`):
//! `FO(x⃗; y) = g^y · ∏ G_i^{x_i} mod N`, with bases random squares mod N.
//!
//! They commit to integers (not residues), which is what the Paillier shuffle ([`crate::proofs::paillier_shuffle`]) needs to tie
//! integer responses across the G1 and mod-N² equations. As upstream (S4 in docs/fixes.md) the modulus is
//! the threshold-Paillier N, whose factors the dealer knows, and the bases carry no proof that they
//! generate the same subgroup: binding rests on the dealer being trusted, as for the key itself.

use crate::primitives::bigint::{self, multi_pow_mod, random_bits, random_unit};
use crate::{Error, Result};
use rand::{CryptoRng, RngCore};
use rug::Integer;

/// Commitment key: the modulus, the randomness base g and the message bases G_i.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoKey {
    /// The RSA modulus N.
    pub n: Integer,
    /// The base g of the randomness.
    pub g: Integer,
    /// The bases G_i of the committed integers.
    pub gens: Vec<Integer>,
    /// κ_r: the statistical slack of commitment randomness.
    pub slack_bits: u32,
}

impl FoKey {
    /// A key for vectors of up to `max(size, 2)` integers (upstream's `n' = max(n, 2)`): one squaring
    /// mod N per base.
    pub fn new(
        rng: &mut (impl RngCore + CryptoRng),
        n: &Integer,
        size: usize,
        slack_bits: u32,
    ) -> Self {
        let square = |rng: &mut _| {
            let x = random_unit(rng, n);
            bigint::mul_mod(&x, &x, n)
        };
        let g = square(rng);
        let gens = (0..size.max(2)).map(|_| square(rng)).collect();
        FoKey {
            n: n.clone(),
            g,
            gens,
            slack_bits,
        }
    }

    /// Length of fresh commitment randomness: bitlen(N) + κ_r bits (2130 for the 2050-bit N at
    /// κ_r = 80), so `g^y` is within 2^{−κ_r} of uniform in the subgroup of squares.
    pub fn randomness_bits(&self) -> u32 {
        self.n.significant_bits() + self.slack_bits
    }

    /// Fresh commitment randomness (uniform below N, plus slack).
    pub fn random_y(&self, rng: &mut (impl RngCore + CryptoRng)) -> Integer {
        random_bits(rng, self.randomness_bits())
    }

    /// `g^y · ∏_{i<len} G_i^{x_i} mod N`, for a vector no longer than the key. Negative exponents
    /// (never produced by the provers here) are handled through inverses.
    pub fn commit(&self, xs: &[Integer], y: &Integer) -> Result<Integer> {
        if xs.len() > self.gens.len() {
            return Err(Error::Input(format!(
                "FO commitment of {} values with a key for {}",
                xs.len(),
                self.gens.len()
            )));
        }
        let mut bases = Vec::with_capacity(xs.len() + 1);
        let mut exps = Vec::with_capacity(xs.len() + 1);
        for (b, e) in std::iter::once((&self.g, y)).chain(self.gens.iter().zip(xs)) {
            if e.cmp0() == std::cmp::Ordering::Less {
                bases.push(bigint::invert(b, &self.n)?);
                exps.push(Integer::from(-e));
            } else {
                bases.push(b.clone());
                exps.push(e.clone());
            }
        }
        Ok(multi_pow_mod(&bases, &exps, &self.n))
    }

    /// Bytes of the key (for size reports).
    pub fn size_bytes(&self) -> usize {
        let per = self.n.significant_bits().div_ceil(8) as usize;
        per * (self.gens.len() + 2)
    }
}

crate::wire_struct!(impl FoKey { wire n, wire g, wire gens, wire slack_bits });

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::bigint::{mul_mod, pow_mod};
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn setup() -> (FoKey, ChaCha20Rng) {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let p = Integer::from_str_radix("e3c9d3f4ffbd0ac7f59b4e2f0d1d9d1f", 16).unwrap();
        let n = (p.next_prime() * Integer::from(0xfffffffbu64).next_prime()).clone();
        (FoKey::new(&mut rng, &n, 5, 80), rng)
    }

    #[test]
    fn commit_matches_definition_and_is_homomorphic() {
        let (key, mut rng) = setup();
        let xs: Vec<Integer> = (0..5).map(|_| random_bits(&mut rng, 180)).collect();
        let y = key.random_y(&mut rng);
        let c = key.commit(&xs, &y).unwrap();
        let mut expect = pow_mod(&key.g, &y, &key.n).unwrap();
        for (g, x) in key.gens.iter().zip(&xs) {
            expect = mul_mod(&expect, &pow_mod(g, x, &key.n).unwrap(), &key.n);
        }
        assert_eq!(c, expect);
        // FO(x; y) · FO(x'; y') = FO(x + x'; y + y')
        let xs2: Vec<Integer> = (0..5).map(|_| random_bits(&mut rng, 180)).collect();
        let y2 = key.random_y(&mut rng);
        let sum: Vec<Integer> = xs
            .iter()
            .zip(&xs2)
            .map(|(a, b)| Integer::from(a + b))
            .collect();
        assert_eq!(
            mul_mod(&c, &key.commit(&xs2, &y2).unwrap(), &key.n),
            key.commit(&sum, &Integer::from(&y + &y2)).unwrap()
        );
        // A prefix of the key commits to shorter vectors; a changed value changes the commitment.
        let short = key.commit(&xs[..2], &y).unwrap();
        let mut xs3 = xs[..2].to_vec();
        xs3[1] += 1;
        assert_ne!(short, key.commit(&xs3, &y).unwrap());
        // Negative exponents agree with the inverse.
        let neg = key.commit(&[Integer::from(-3)], &y).unwrap();
        let pos = key.commit(&[Integer::from(3)], &Integer::new()).unwrap();
        assert_eq!(
            mul_mod(&neg, &pos, &key.n),
            pow_mod(&key.g, &y, &key.n).unwrap()
        );
        assert!(key.commit(&vec![Integer::new(); 6], &y).is_err());
    }
}
