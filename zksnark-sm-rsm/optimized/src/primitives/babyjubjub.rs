//! Baby Jubjub in the coordinates the ZoKrates stdlib and circomlib use: the twisted Edwards
//! curve `A x^2 + y^2 = 1 + D x^2 y^2` (A = 168700, D = 168696) over the BN254 scalar field,
//! with the ethsnarks generator G and the suite's second Pedersen generator H.
//!
//! The group arithmetic is ark-ed-on-bn254's. That crate writes the same curve with a = 1,
//! d = D / A; the map `(x, y) -> (s x, y)` with `s^2 = A` is an isomorphism between the two
//! models (it scales both sides of the x-addition formula alike and leaves the y-formula
//! unchanged), so points cross it in [`Point::to_ark`] and [`Point::from_ark`]. The affine
//! formula [`Point::add`] is written out in this model as the circuit uses it, and the tests
//! check it against the library.

use ark_bn254::Fr;
use ark_ec::{AffineRepr, CurveGroup, Group};
use ark_ed_on_bn254::{EdwardsAffine, EdwardsProjective};
use ark_ff::{BigInteger, Field, PrimeField, Zero};
use sha2::{Digest, Sha256};
use std::str::FromStr;
use std::sync::OnceLock;

/// The coefficient `A` of `x^2` in the curve equation `A x^2 + y^2 = 1 + D x^2 y^2`: a square
/// in the field, which (with `D` a non-square) makes the addition law complete.
pub const A: u64 = 168700;
/// The coefficient `D` of the curve equation: a non-square in the field.
pub const D: u64 = 168696;

/// The ethsnarks generator of the prime-order subgroup, as the stdlib's `BabyJubJubParams`.
/// G's x coordinate, in decimal.
pub const G_X: &str =
    "16540640123574156134436876038791482806971768689494387082833631921987005038935";
/// G's y coordinate, in decimal.
pub const G_Y: &str =
    "20819045374670962167435360035096875258406992893633759881276124905556507972311";

/// The string hashed, with a counter, to derive H (the suite's JS code derives it the same way).
pub const H_DOMAIN: &str = "traceable-mixnets/zksnark-sm-rsm/pedersen-H/";

/// An affine point `(x, y)` of the curve in this model (not checked on construction: see
/// [`Point::is_on_curve`] and [`Point::is_in_subgroup`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    /// The x coordinate.
    pub x: Fr,
    /// The y coordinate.
    pub y: Fr,
}

/// `s` with `s^2 = A`, the scale of the isomorphism to ark-ed-on-bn254's model.
fn scale() -> (Fr, Fr) {
    static S: OnceLock<(Fr, Fr)> = OnceLock::new();
    *S.get_or_init(|| {
        let s = Fr::from(A)
            .sqrt()
            .expect("A is a square, so both models are one curve");
        (s, s.inverse().unwrap())
    })
}

impl Point {
    /// The neutral element `(0, 1)`.
    pub const fn identity() -> Self {
        Point {
            x: Fr::ZERO,
            y: Fr::ONE,
        }
    }

    /// The generator G ([`G_X`], [`G_Y`]) of the prime-order subgroup.
    pub fn generator() -> Self {
        Point {
            x: Fr::from_str(G_X).unwrap(),
            y: Fr::from_str(G_Y).unwrap(),
        }
    }

    /// Whether `A x^2 + y^2 = 1 + D x^2 y^2` holds.
    pub fn is_on_curve(&self) -> bool {
        let (xx, yy) = (self.x.square(), self.y.square());
        Fr::from(A) * xx + yy == Fr::ONE + Fr::from(D) * xx * yy
    }

    /// On the curve and of prime order (or the identity).
    pub fn is_in_subgroup(&self) -> bool {
        self.is_on_curve() && self.to_ark().is_in_correct_subgroup_assuming_on_curve()
    }

    /// The same point in ark-ed-on-bn254's model: `(s x, y)` with `s^2 = A`.
    pub fn to_ark(&self) -> EdwardsAffine {
        EdwardsAffine::new_unchecked(self.x * scale().0, self.y)
    }

    /// A point of ark-ed-on-bn254's model in this one: `(x / s, y)`.
    pub fn from_ark(p: &EdwardsAffine) -> Self {
        Point {
            x: p.x * scale().1,
            y: p.y,
        }
    }

    /// The complete twisted Edwards addition law (Bernstein et al. 2008), which the circuit
    /// constrains: x3 = (x1 y2 + y1 x2) / (1 + D t), y3 = (y1 y2 - A x1 x2) / (1 - D t),
    /// t = x1 x2 y1 y2. The denominators never vanish: A is a square and D is not.
    pub fn add(&self, q: &Point) -> Point {
        let t = self.x * q.x * self.y * q.y;
        let dt = Fr::from(D) * t;
        Point {
            x: (self.x * q.y + self.y * q.x) * (Fr::ONE + dt).inverse().unwrap(),
            y: (self.y * q.y - Fr::from(A) * self.x * q.x) * (Fr::ONE - dt).inverse().unwrap(),
        }
    }

    /// `k * self` for a non-negative integer k, given as little-endian bits.
    pub fn mul_bits(&self, bits_le: &[bool]) -> Point {
        let k = <Fr as PrimeField>::BigInt::from_bits_le(bits_le);
        Point::from_ark(&self.to_ark().mul_bigint(k).into_affine())
    }

    /// `k * self` for the integer representative (in [0, p)) of a field element, as the suite's
    /// commitments take v and r.
    pub fn mul(&self, k: &Fr) -> Point {
        Point::from_ark(&self.to_ark().mul_bigint(k.into_bigint()).into_affine())
    }
}

/// Pedersen's second generator H: SHA-256 of the domain string and a counter, read as a
/// big-endian integer mod p, is tried as y; the first y with a square `x^2 = (1 - y^2) / (A -
/// D y^2)` gives the point (smaller root x), which times the cofactor 8 lands in the prime-order
/// subgroup. Nobody knows log_G(H).
pub fn pedersen_h() -> Point {
    static H: OnceLock<Point> = OnceLock::new();
    *H.get_or_init(|| {
        for ctr in 0u64.. {
            let digest = Sha256::digest(format!("{H_DOMAIN}{ctr}").as_bytes());
            let y = Fr::from_be_bytes_mod_order(&digest);
            let yy = y.square();
            let den = Fr::from(A) - Fr::from(D) * yy;
            if den.is_zero() {
                continue;
            }
            let Some(x) = ((Fr::ONE - yy) * den.inverse().unwrap()).sqrt() else {
                continue;
            };
            let x = if x.into_bigint() < (-x).into_bigint() {
                x
            } else {
                -x
            };
            let h = Point { x, y }.mul(&Fr::from(8u8));
            if !h.x.is_zero() {
                return h;
            }
        }
        unreachable!("the counter space is not exhausted")
    })
}

/// Baby Jubjub's Montgomery form `v^2 = u^3 + MONT_A u^2 + u` (B = 1), the birational image of
/// the Edwards curve under `u = (1 + y) / (1 - y)`, `v = u / x`. Its addition of two points with
/// different u is 3 constraints instead of 6, at the price of exceptional cases (equal or
/// opposite points, the identity) that the fixed-base layout below rules out.
pub const MONT_A: u64 = 168698;

/// An affine point `(u, v)` of the Montgomery form ([`MONT_A`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MontPoint {
    /// The u coordinate.
    pub u: Fr,
    /// The v coordinate.
    pub v: Fr,
}

impl Point {
    /// The Montgomery image; None for the identity and the 2-torsion point (0, -1), which have
    /// no affine one.
    pub fn to_montgomery(&self) -> Option<MontPoint> {
        let u = (Fr::ONE + self.y) * (Fr::ONE - self.y).inverse()?;
        Some(MontPoint {
            u,
            v: u * self.x.inverse()?,
        })
    }
}

impl MontPoint {
    /// Whether `v^2 = u^3 + MONT_A u^2 + u` holds.
    pub fn is_on_curve(&self) -> bool {
        self.v.square() == self.u * (self.u.square() + Fr::from(MONT_A) * self.u + Fr::ONE)
    }

    /// Back to Edwards: `x = u / v`, `y = (u - 1) / (u + 1)` (v != 0 and u != -1 off the
    /// 2-torsion, since `u = -1` would need `v^2 = MONT_A - 2 = D`, a non-square).
    pub fn to_edwards(&self) -> Point {
        Point {
            x: self.u * self.v.inverse().unwrap(),
            y: (self.u - Fr::ONE) * (self.u + Fr::ONE).inverse().unwrap(),
        }
    }
}

/// Window width of the fixed-base multiplication: 3 bits cost 3 constraints to look up, the
/// fewest per bit of any width once an addition is paid per window (see the gadget's notes).
pub const WINDOW: usize = 3;

/// Windows summed in Montgomery form: every addition's two multipliers are distinct and sum to
/// less than L (see [`FixedBase`]).
pub const SEGMENT_WINDOWS: usize = 83;

/// The order L of the prime-order subgroup (about 2^250.597; the whole group has 8 L points and
/// the field has p, about 8 L, elements), in decimal.
pub const SUBGROUP_ORDER: &str =
    "2736030358979909402780800718157159386076813972158567259200215660948447373041";

/// Bits of a value below L: 251.
pub const SUBGROUP_BITS: usize = 251;

/// L as an integer.
pub fn subgroup_order() -> <Fr as PrimeField>::BigInt {
    Fr::from_str(SUBGROUP_ORDER).unwrap().into_bigint()
}

/// A uniform integer in [0, L) as a field element: how the suite draws set values and
/// commitment randomness, so that every value has exactly one class mod L (a commitment fixes
/// its value only mod L).
pub fn random_below_l<R: rand::Rng + ?Sized>(rng: &mut R) -> Fr {
    let l = subgroup_order();
    loop {
        let mut bytes = [0u8; 32];
        rng.fill_bytes(&mut bytes);
        bytes[31] &= 0x07; // 251 bits, little-endian
        let mut candidate = <Fr as PrimeField>::BigInt::from(0u64);
        for (i, limb) in candidate.0.iter_mut().enumerate() {
            *limb = u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap());
        }
        if candidate < l {
            return Fr::from_bigint(candidate).expect("below L, so below p");
        }
    }
}

/// The tables of one fixed base B for scalars of `bits` bits, digits `d_j` of 3 bits:
///
/// * the low `SEGMENT_WINDOWS` windows, in Montgomery form: `M_j[d] = ((d + 1) 8^j + [j = 0] c) B`
///   with `c = 8^83`. Summed from j = 0 up, the accumulator before window j is
///   `(c + s) B` with `0 < s < 8^83 * 8/7` and window j adds `(d + 1) 8^j B` with multiplier in
///   `[1, 8^(j+1)]`, at most `8^83`: the multipliers differ (the accumulator's exceeds c = 8^83)
///   and their sum is at most `c + sum_{i <= j} 8^(i+1) <= 8^83 (1 + 8/7) - 8/7`, about
///   `2^250.10`, which is below `L` (about `2^250.60`). Both multipliers and their sum and
///   difference are therefore nonzero mod L, so the two points are neither equal, opposite nor
///   the identity for any digits (the test `segment_multipliers_stay_below_l` checks the
///   bound). The segment ends at `(c + sum (d_j + 1) 8^j) B`.
/// * the remaining high windows, in Edwards form, `E_j[d] = d 8^j B`, where the first also
///   subtracts the segment's offset `(c + sum_j 8^j) B`, so that the sum of all lookups is
///   `k B` exactly; the complete Edwards law adds them, whatever the points.
#[derive(Clone, Debug)]
pub struct FixedBase {
    /// The Montgomery segment's tables, window by window: entry `d` of window `j` is
    /// `(d + 1) 8^j B`, and window 0's also adds the offset `c B`.
    pub segment: Vec<Vec<MontPoint>>,
    /// The high windows' tables, in Edwards form: entry `d` of window `j` is `d 8^j B`, the
    /// first less the segment's offset.
    pub top: Vec<Vec<Point>>,
}

impl FixedBase {
    /// The tables for multiplying `base` by scalars of `bits` bits (above 249), in 3-bit
    /// windows.
    pub fn new(base: &Point, bits: usize) -> Self {
        let n_windows = bits.div_ceil(WINDOW);
        assert!(
            n_windows > SEGMENT_WINDOWS,
            "the layout assumes scalars above 249 bits"
        );
        // units[j] = 8^j B, for every window and one more (c B).
        let mut units = vec![base.to_ark().into_group()];
        for _ in 0..n_windows {
            let last = *units.last().unwrap();
            units.push(last.double().double().double());
        }
        let c = units[SEGMENT_WINDOWS];
        let mut projective = Vec::with_capacity(n_windows << WINDOW);
        for (j, unit) in units[..SEGMENT_WINDOWS].iter().enumerate() {
            let mut acc = if j == 0 { c } else { EdwardsProjective::zero() };
            for _ in 0..1 << WINDOW {
                acc += unit;
                projective.push(acc);
            }
        }
        let offset = units[..SEGMENT_WINDOWS].iter().fold(c, |acc, u| acc + u);
        for (t, unit) in units[SEGMENT_WINDOWS..n_windows].iter().enumerate() {
            let mut acc = if t == 0 {
                -offset
            } else {
                EdwardsProjective::zero()
            };
            for _ in 0..1 << WINDOW {
                projective.push(acc);
                acc += unit;
            }
        }
        let affine: Vec<Point> = EdwardsProjective::normalize_batch(&projective)
            .iter()
            .map(Point::from_ark)
            .collect();
        let (low, high) = affine.split_at(SEGMENT_WINDOWS << WINDOW);
        FixedBase {
            segment: low
                .chunks(1 << WINDOW)
                .map(|w| {
                    w.iter()
                        .map(|p| p.to_montgomery().expect("no segment entry is the identity"))
                        .collect()
                })
                .collect(),
            top: high.chunks(1 << WINDOW).map(|w| w.to_vec()).collect(),
        }
    }

    /// `k B` from the tables as the circuit sums them (the tests' check of the layout).
    pub fn mul_bits(&self, bits_le: &[bool]) -> Point {
        let digit = |j: usize| {
            bits_le
                .iter()
                .skip(j * WINDOW)
                .take(WINDOW)
                .rev()
                .fold(0usize, |d, &b| 2 * d + b as usize)
        };
        let segment = (0..SEGMENT_WINDOWS)
            .map(|j| self.segment[j][digit(j)].to_edwards())
            .fold(Point::identity(), |acc, p| acc.add(&p));
        self.top.iter().enumerate().fold(segment, |acc, (t, w)| {
            acc.add(&w[digit(SEGMENT_WINDOWS + t)])
        })
    }
}

/// The little-endian bits of a field element's integer representative, `n` of them.
pub fn bits_le(x: &Fr, n: usize) -> Vec<bool> {
    let mut bits = x.into_bigint().to_bits_le();
    bits.resize(n, false);
    bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::fr;

    #[test]
    fn generator_and_h_are_in_the_subgroup() {
        let g = Point::generator();
        assert!(g.is_in_subgroup());
        let h = pedersen_h();
        assert!(h.is_in_subgroup());
        assert_ne!(h, g);
        // The suite's JS derivation gives this H (lib/babyjubjub.mjs, derivePedersenH).
        assert_eq!(h, known_h());
    }

    pub(crate) fn known_h() -> Point {
        Point {
            x: fr(KNOWN_H.0),
            y: fr(KNOWN_H.1),
        }
    }

    pub(crate) const KNOWN_H: (&str, &str) = (
        "8902632373552402717227441581497366378055429721336826694991801390433973662037",
        "2838289253229570870914316474544891860669636164081281453597165272103483780639",
    );

    #[test]
    fn affine_formula_agrees_with_ark_ed_on_bn254() {
        let g = Point::generator();
        let h = pedersen_h();
        for (a, b) in [(3u64, 5u64), (1, 1), (7, 0)] {
            let p = g.mul(&Fr::from(a));
            let q = h.mul(&Fr::from(b));
            let want = Point::from_ark(&(p.to_ark() + q.to_ark()).into_affine());
            assert_eq!(p.add(&q), want);
            assert!(want.is_on_curve());
        }
        assert_eq!(g.add(&Point::identity()), g);
        // The order-2 point (0, -1) is on the curve but outside the subgroup.
        let t = Point {
            x: Fr::ZERO,
            y: -Fr::ONE,
        };
        assert!(t.is_on_curve() && !t.is_in_subgroup());
    }

    #[test]
    fn montgomery_images_round_trip() {
        let g = Point::generator();
        let m = g.to_montgomery().unwrap();
        assert!(m.is_on_curve());
        assert_eq!(m.to_edwards(), g);
        assert_eq!(Point::identity().to_montgomery(), None);
    }

    #[test]
    fn fixed_base_tables_sum_to_the_product() {
        let base = pedersen_h();
        let table = FixedBase::new(&base, 254);
        assert_eq!((table.segment.len(), table.top.len()), (SEGMENT_WINDOWS, 2));
        let mut p_minus_1 = bits_le(&(-Fr::ONE), 254);
        for k in [
            fr("0"),
            fr("1"),
            -Fr::ONE,
            fr("987654321987654321987654321"),
        ] {
            let bits = bits_le(&k, 254);
            assert_eq!(table.mul_bits(&bits), base.mul(&k), "k = {k}");
        }
        // All ones below the top: the largest digits everywhere in the segment.
        p_minus_1.iter_mut().take(249).for_each(|b| *b = true);
        assert_eq!(table.mul_bits(&p_minus_1), base.mul_bits(&p_minus_1));
    }

    /// The largest sum of the two multipliers of a segment addition (the accumulator's before
    /// window j plus window j's largest), over every j: below L, as the layout needs.
    #[test]
    fn segment_multipliers_stay_below_l() {
        use ark_ff::BigInteger;
        type Big = <Fr as PrimeField>::BigInt;
        let eight_to = |k: u32| {
            let mut x = Big::from(1u64);
            x.muln(3 * k);
            x
        };
        let c = eight_to(SEGMENT_WINDOWS as u32);
        let mut largest = Big::from(0u64);
        for j in 1..SEGMENT_WINDOWS as u32 {
            let mut sum = c;
            for i in 0..j {
                sum.add_with_carry(&eight_to(i + 1)); // the accumulator: every digit 7
            }
            sum.add_with_carry(&eight_to(j + 1)); // window j's largest multiplier
            largest = largest.max(sum);
        }
        assert!(largest < subgroup_order());
        // About 2^250.10: 251 bits, and far above L / 2 (so "below L / 2" would be false).
        assert_eq!(largest.num_bits(), 251);
        let mut half = subgroup_order();
        half.div2();
        assert!(largest > half);
        // L is the subgroup's order: ark-ed-on-bn254's scalar field, and L G is the identity.
        assert_eq!(subgroup_order(), ark_ed_on_bn254::Fr::MODULUS);
        let g = Point::generator().to_ark();
        assert!(g.mul_bigint(subgroup_order()).is_zero());
    }

    #[test]
    fn values_below_l_are_uniform_and_below_l() {
        let mut rng = rand::thread_rng();
        let l = subgroup_order();
        let xs: Vec<Fr> = (0..200).map(|_| random_below_l(&mut rng)).collect();
        assert!(xs.iter().all(|x| x.into_bigint() < l));
        // The top bit of L's 251 is set in about 2 / 3 of draws below L: not all values are
        // small.
        assert!(xs.iter().any(|x| x.into_bigint().get_bit(250)));
    }

    #[test]
    fn mul_bits_is_mul() {
        let g = Point::generator();
        let k = fr("123456789012345678901234567890");
        assert_eq!(g.mul_bits(&bits_le(&k, 254)), g.mul(&k));
    }
}
