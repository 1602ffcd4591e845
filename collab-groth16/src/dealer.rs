//! Preprocessing: the trusted dealer's correlated randomness and the input sharing of the
//! witness. None of it depends on the online computation, so it can happen before the proof
//! is wanted; it is timed and reported apart from the online phase.
//!
//! Each party gets a [`Material`]: a 32-byte seed, and for party 0 the shares the others'
//! pseudo-random shares determine (see [`crate::share`]). [`Shares::expand`] turns it into:
//!
//! - a share of the private wires of the witness (the public wires are public: party 0 holds
//!   their values, the others zeros);
//! - shares of `N + 1` Beaver triples `(x, y, z = x y)`: `N` for the products of the A and B
//!   polynomials' evaluations on the coset, one for `r s`;
//! - malicious variant only: a share of the MAC key `alpha`, MAC shares (`alpha * value`) of the
//!   witness and of the triples' `x` and `y` (not of `z`: products only enter `C`, see
//!   [`crate::party`]), and authenticated input masks `rho` (two per party, for its part of `r`
//!   and of `s`), each known in the clear to its owner.
//!
//! The dealer (here, the coordinator that also owns the witness) is trusted: it must not collude
//! with any party and must deal honestly. It never learns `r` or `s`, which the parties choose.

use ark_ff::PrimeField;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;

use crate::codec::{Reader, Writer};
use crate::share::{determined, expand, remainder, scale, sum_of_expansions, Seed, Stream};
use crate::{Error, Variant};

/// The sizes every party's material must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// Private wires of the witness.
    pub private: usize,
    /// Beaver triples: the QAP domain size plus one.
    pub triples: usize,
}

/// What party 0 gets in full: its shares of values that the other parties' seeds determine.
#[derive(Clone, Debug, PartialEq, CanonicalSerialize, CanonicalDeserialize)]
pub struct Fixed<F: PrimeField> {
    /// Party 0's share of the private wires: the witness minus the others' pseudo-random shares.
    pub w: Vec<F>,
    /// Party 0's share of each triple's product `z = x y`.
    pub z: Vec<F>,
    /// Party 0's MAC shares of the private wires. This and the three below are the malicious
    /// variant's, empty when semi-honest.
    pub w_mac: Vec<F>,
    /// Party 0's MAC shares of the triples' `x`.
    pub x_mac: Vec<F>,
    /// Party 0's MAC shares of the triples' `y`.
    pub y_mac: Vec<F>,
    /// Party 0's MAC shares of the `2m` input masks.
    pub mask_mac: Vec<F>,
}

/// What the dealer sends one party.
#[derive(Clone, Debug, PartialEq)]
pub struct Material<F: PrimeField> {
    /// The receiving party's id.
    pub id: usize,
    /// The number of parties, `m`.
    pub parties: usize,
    /// The security model it was dealt for.
    pub variant: Variant,
    /// The lengths of the vectors [`Shares::expand`] makes.
    pub sizes: Sizes,
    /// The seed the party's pseudo-random shares expand from ([`crate::share`]).
    pub seed: Seed,
    /// Party 0 only.
    pub fixed: Option<Fixed<F>>,
    /// Malicious variant: this party's two input masks (for `r` and `s`) in the clear.
    pub masks: Option<[F; 2]>,
}

/// A party's preprocessed shares, expanded from its [`Material`].
#[derive(Clone, Debug)]
pub struct Shares<F: PrimeField> {
    /// The party's id.
    pub id: usize,
    /// The number of parties, `m`.
    pub parties: usize,
    /// The security model the shares were dealt for.
    pub variant: Variant,
    /// Share of the private wires (wires `inputs..`).
    pub w: Vec<F>,
    /// Shares of the Beaver triples' first factors `x`.
    pub x: Vec<F>,
    /// Shares of the Beaver triples' second factors `y`.
    pub y: Vec<F>,
    /// Shares of the Beaver triples' products `z = x y`.
    pub z: Vec<F>,
    /// The malicious variant's MAC key and MAC shares; `None` when semi-honest.
    pub mac: Option<MacShares<F>>,
}

/// The malicious variant's extra shares.
#[derive(Clone, Debug)]
pub struct MacShares<F: PrimeField> {
    /// Share of the MAC key `alpha`.
    pub key: F,
    /// MAC shares of the private wires (`alpha w`, shared).
    pub w: Vec<F>,
    /// MAC shares of the triples' `x`.
    pub x: Vec<F>,
    /// MAC shares of the triples' `y`.
    pub y: Vec<F>,
    /// Shares of all `2m` input masks (party `k`'s are entries `2k` for `r`, `2k + 1` for `s`),
    /// and their MAC shares.
    pub masks: Vec<F>,
    /// MAC shares of `masks`, entry by entry.
    pub mask_macs: Vec<F>,
    /// This party's own two masks in the clear.
    pub own_masks: [F; 2],
}

/// Deals preprocessing material for `parties` parties: shares of `w_private` and `sizes.triples`
/// Beaver triples, plus MACs and input masks in the malicious variant.
pub fn deal<F: PrimeField, R: RngCore + CryptoRng>(
    w_private: &[F],
    triples: usize,
    parties: usize,
    variant: Variant,
    rng: &mut R,
) -> Vec<Material<F>> {
    assert!(parties >= 1);
    let sizes = Sizes {
        private: w_private.len(),
        triples,
    };
    let seeds: Vec<Seed> = (0..parties)
        .map(|_| {
            let mut s = [0u8; 32];
            rng.fill_bytes(&mut s);
            s
        })
        .collect();
    let x: Vec<F> = sum_of_expansions(&seeds, Stream::TripleX, triples);
    let y: Vec<F> = sum_of_expansions(&seeds, Stream::TripleY, triples);
    let z: Vec<F> = x
        .par_iter()
        .zip(y.par_iter())
        .map(|(x, y)| *x * y)
        .collect();
    let mut fixed = Fixed {
        w: remainder(w_private, &seeds, Stream::Witness),
        z: remainder(&z, &seeds, Stream::TripleZ),
        w_mac: vec![],
        x_mac: vec![],
        y_mac: vec![],
        mask_mac: vec![],
    };
    let mut masks: Vec<Option<[F; 2]>> = vec![None; parties];
    if variant == Variant::Malicious {
        let alpha = sum_of_expansions::<F>(&seeds, Stream::MacKey, 1)[0];
        let rho: Vec<F> = sum_of_expansions(&seeds, Stream::Mask, 2 * parties);
        fixed.w_mac = remainder(&scale(alpha, w_private), &seeds, Stream::WitnessMac);
        fixed.x_mac = remainder(&scale(alpha, &x), &seeds, Stream::TripleXMac);
        fixed.y_mac = remainder(&scale(alpha, &y), &seeds, Stream::TripleYMac);
        fixed.mask_mac = remainder(&scale(alpha, &rho), &seeds, Stream::MaskMac);
        for (k, m) in masks.iter_mut().enumerate() {
            *m = Some([rho[2 * k], rho[2 * k + 1]]);
        }
    }
    let mut fixed = Some(fixed);
    seeds
        .into_iter()
        .enumerate()
        .map(|(id, seed)| Material {
            id,
            parties,
            variant,
            sizes,
            seed,
            fixed: if id == 0 { fixed.take() } else { None },
            masks: masks[id],
        })
        .collect()
}

impl<F: PrimeField> Material<F> {
    /// The message body that carries the material to its party (read back by [`Self::decode`]).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.put(&(self.id as u64))
            .put(&(self.parties as u64))
            .put(&self.variant.code())
            .put(&(self.sizes.private as u64))
            .put(&(self.sizes.triples as u64))
            .put(&self.seed)
            .put(&self.fixed)
            .put(&self.masks.map(|m| m.to_vec()));
        w.finish()
    }

    /// Decodes and checks the material: party 0 must have the explicit shares, of the right
    /// lengths for its variant, and a malicious party its masks.
    pub fn decode(body: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(body, "the dealer's preprocessing material");
        let id = r.get::<u64>()? as usize;
        let parties = r.get::<u64>()? as usize;
        let variant = Variant::from_code(r.get::<u8>()?)?;
        let sizes = Sizes {
            private: r.get::<u64>()? as usize,
            triples: r.get::<u64>()? as usize,
        };
        let seed: Seed = r.get()?;
        let fixed: Option<Fixed<F>> = r.get()?;
        let masks: Option<Vec<F>> = r.get()?;
        r.finish()?;
        let bad = |what: &str| Error::Decode(format!("preprocessing material: {what}"));
        if id >= parties {
            return Err(bad("party id out of range"));
        }
        match (&fixed, id) {
            (None, 0) => return Err(bad("party 0 has no explicit shares")),
            (Some(_), 1..) => return Err(bad("only party 0 gets explicit shares")),
            (Some(f), 0) => {
                let mac_len = |n: usize| if variant == Variant::Malicious { n } else { 0 };
                let lengths = [
                    (f.w.len(), sizes.private),
                    (f.z.len(), sizes.triples),
                    (f.w_mac.len(), mac_len(sizes.private)),
                    (f.x_mac.len(), mac_len(sizes.triples)),
                    (f.y_mac.len(), mac_len(sizes.triples)),
                    (f.mask_mac.len(), mac_len(2 * parties)),
                ];
                if lengths.iter().any(|(got, want)| got != want) {
                    return Err(bad("explicit shares of the wrong length"));
                }
            }
            _ => {}
        }
        let masks = match (variant, masks) {
            (Variant::Malicious, Some(m)) if m.len() == 2 => Some([m[0], m[1]]),
            (Variant::SemiHonest, None) => None,
            _ => return Err(bad("input masks do not match the variant")),
        };
        Ok(Material {
            id,
            parties,
            variant,
            sizes,
            seed,
            fixed,
            masks,
        })
    }
}

impl<F: PrimeField> Shares<F> {
    /// The party's shares: its seed's expansions, or the dealer's explicit shares for party 0.
    pub fn expand(material: &Material<F>) -> Self {
        let Material {
            id,
            parties,
            variant,
            sizes,
            ref seed,
            ref fixed,
            masks,
        } = *material;
        let fixed = fixed.as_ref();
        let get = |stream, len, f: Option<&Vec<F>>| {
            determined(id, seed, stream, len, f.map(|v| v.as_slice()))
        };
        let mac = (variant == Variant::Malicious).then(|| MacShares {
            key: expand::<F>(seed, Stream::MacKey, 1)[0],
            w: get(Stream::WitnessMac, sizes.private, fixed.map(|f| &f.w_mac)),
            x: get(Stream::TripleXMac, sizes.triples, fixed.map(|f| &f.x_mac)),
            y: get(Stream::TripleYMac, sizes.triples, fixed.map(|f| &f.y_mac)),
            masks: expand(seed, Stream::Mask, 2 * parties),
            mask_macs: get(Stream::MaskMac, 2 * parties, fixed.map(|f| &f.mask_mac)),
            own_masks: masks.expect("decoded malicious material has masks"),
        });
        Shares {
            id,
            parties,
            variant,
            w: get(Stream::Witness, sizes.private, fixed.map(|f| &f.w)),
            x: expand(seed, Stream::TripleX, sizes.triples),
            y: expand(seed, Stream::TripleY, sizes.triples),
            z: get(Stream::TripleZ, sizes.triples, fixed.map(|f| &f.z)),
            mac,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_ff::UniformRand;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn sum(vs: impl Iterator<Item = Vec<Fr>>) -> Vec<Fr> {
        vs.reduce(|mut a, b| {
            crate::share::add_assign(&mut a, &b);
            a
        })
        .unwrap()
    }

    #[test]
    fn shares_reconstruct_triples_witness_and_macs() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let w: Vec<Fr> = (0..17).map(|_| Fr::rand(&mut rng)).collect();
        for variant in [Variant::SemiHonest, Variant::Malicious] {
            let materials = deal(&w, 9, 3, variant, &mut rng);
            let shares: Vec<Shares<Fr>> = materials
                .iter()
                .map(|m| Shares::expand(&Material::decode(&m.encode()).unwrap()))
                .collect();
            assert_eq!(sum(shares.iter().map(|s| s.w.clone())), w);
            let x = sum(shares.iter().map(|s| s.x.clone()));
            let y = sum(shares.iter().map(|s| s.y.clone()));
            let z = sum(shares.iter().map(|s| s.z.clone()));
            for i in 0..9 {
                assert_eq!(x[i] * y[i], z[i]);
            }
            if variant == Variant::Malicious {
                let macs: Vec<&MacShares<Fr>> =
                    shares.iter().map(|s| s.mac.as_ref().unwrap()).collect();
                let alpha: Fr = macs.iter().map(|m| m.key).sum();
                assert_eq!(sum(macs.iter().map(|m| m.w.clone())), scale(alpha, &w));
                assert_eq!(sum(macs.iter().map(|m| m.x.clone())), scale(alpha, &x));
                let rho = sum(macs.iter().map(|m| m.masks.clone()));
                assert_eq!(
                    sum(macs.iter().map(|m| m.mask_macs.clone())),
                    scale(alpha, &rho)
                );
                for (k, m) in macs.iter().enumerate() {
                    assert_eq!(m.own_masks, [rho[2 * k], rho[2 * k + 1]]);
                }
            }
        }
    }

    #[test]
    fn malformed_material_is_refused() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let w: Vec<Fr> = (0..4).map(|_| Fr::rand(&mut rng)).collect();
        let materials = deal(&w, 5, 2, Variant::SemiHonest, &mut rng);
        let mut wrong = materials[0].clone();
        wrong.fixed.as_mut().unwrap().z.pop();
        assert!(Material::<Fr>::decode(&wrong.encode()).is_err());
        let mut no_fixed = materials[0].clone();
        no_fixed.fixed = None;
        assert!(Material::<Fr>::decode(&no_fixed.encode()).is_err());
        let body = materials[1].encode();
        assert!(Material::<Fr>::decode(&body[..body.len() - 1]).is_err());
    }
}
