//! The hidden-order group Z_N^* / {±1} for the RSA-2048 challenge modulus.
//!
//! Nobody knows the factorisation of the RSA-2048 challenge number, so the order of Z_N^* is
//! unknown: that is what makes e-th roots (accumulator witnesses) hard to forge. Quotienting by
//! {±1} removes the one element of known order 2. An element is stored as its representative in
//! [1, ⌊N/2⌋], so equality of representatives is equality in the group.

use rug::{ops::RemRounding, Integer};

use crate::Error;

/// The RSA-2048 challenge number (RSA Laboratories' factoring challenge, 617 decimal digits).
pub const RSA_2048_DECIMAL: &str = concat!(
    "2519590847565789349402718324004839857142928212620403202777713783604366202070",
    "7595556264018525880784406918290641249515082189298559149176184502808489120072",
    "8449926873928072877767359714183472702618963750149718246911650776133798590957",
    "0009733045974880842840179742910064245869181719511874612151517265463228221686",
    "9987549182422433637259085141865462043576798423387184774447920739934236584823",
    "8242811981638150106748104516603773060562016196762561338441436038339044149526",
    "3443219011465754445417842402092461651572335077870774981712577246796292638635",
    "6373289912154831438167899885040445364023527381951378636564391212010397122822",
    "120720357",
);

/// An element of Z_N^* / {±1}, held as its representative in [1, ⌊N/2⌋].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupElem(Integer);

impl GroupElem {
    /// The canonical representative.
    pub fn value(&self) -> &Integer {
        &self.0
    }

    /// Minimal big-endian bytes of the representative (what the transcript absorbs).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.0.to_digits::<u8>(rug::integer::Order::Msf)
    }
}

/// The group itself: the modulus and ⌊N/2⌋ (the largest representative).
#[derive(Clone, Debug)]
pub struct RsaGroup {
    modulus: Integer,
    half: Integer,
}

impl Default for RsaGroup {
    fn default() -> Self {
        Self::rsa2048()
    }
}

impl RsaGroup {
    /// The group for the RSA-2048 challenge modulus.
    pub fn rsa2048() -> Self {
        let modulus = Integer::from_str_radix(RSA_2048_DECIMAL, 10)
            .expect("the RSA-2048 constant is a decimal number");
        debug_assert_eq!(modulus.significant_bits(), 2048);
        Self::with_modulus(modulus)
    }

    /// A group for another modulus of unknown factorisation (used by tests with small moduli
    /// only to exercise edge cases; never for real proofs).
    pub fn with_modulus(modulus: Integer) -> Self {
        let half = Integer::from(&modulus >> 1);
        RsaGroup { modulus, half }
    }

    /// The modulus N.
    pub fn modulus(&self) -> &Integer {
        &self.modulus
    }

    /// ⌊N/2⌋, the range of representatives and of the integer-commitment randomness.
    pub fn half_modulus(&self) -> &Integer {
        &self.half
    }

    /// Map any integer to its class: reduce mod N, then pick the smaller of x and N − x.
    pub fn elem(&self, x: Integer) -> GroupElem {
        let mut r = x.rem_euc(&self.modulus);
        if r > self.half {
            r = Integer::from(&self.modulus - &r);
        }
        GroupElem(r)
    }

    /// Accept an element received from someone else: it must already be a canonical
    /// representative in [1, ⌊N/2⌋] (otherwise two encodings of one element would exist).
    pub fn parse(&self, x: Integer) -> Result<GroupElem, Error> {
        if x < 1 || x > self.half {
            return Err(Error::InvalidGroupElement);
        }
        Ok(GroupElem(x))
    }

    /// The group operation.
    pub fn op(&self, a: &GroupElem, b: &GroupElem) -> GroupElem {
        self.elem(Integer::from(&a.0 * &b.0))
    }

    /// base^exp for any integer exponent; a negative exponent inverts the base first (GMP does
    /// that inside mpz_powm). Every representative is a unit for an honest N, so the inverse
    /// exists; a non-unit would be a factor of N and is reported as an error.
    pub fn exp(&self, base: &GroupElem, exp: &Integer) -> Result<GroupElem, Error> {
        let r = base
            .0
            .pow_mod_ref(exp, &self.modulus)
            .ok_or(Error::InvalidGroupElement)?;
        Ok(self.elem(Integer::from(r)))
    }

    /// a^x · b^y, the shape of every integer commitment and Σ-protocol check.
    pub fn exp2(
        &self,
        a: &GroupElem,
        x: &Integer,
        b: &GroupElem,
        y: &Integer,
    ) -> Result<GroupElem, Error> {
        Ok(self.op(&self.exp(a, x)?, &self.exp(b, y)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modulus_is_the_2048_bit_challenge() {
        let g = RsaGroup::rsa2048();
        assert_eq!(RSA_2048_DECIMAL.len(), 617);
        assert_eq!(g.modulus().significant_bits(), 2048);
        assert!(g.modulus().get_bit(0));
    }

    #[test]
    fn plus_minus_one_classes_coincide() {
        let g = RsaGroup::rsa2048();
        let x = g.elem(Integer::from(12345));
        let minus_x = g.elem(Integer::from(g.modulus() - 12345u32));
        assert_eq!(x, minus_x);
        assert!(x.value() <= g.half_modulus());
    }

    #[test]
    fn negative_exponents_invert() {
        let g = RsaGroup::rsa2048();
        let two = g.elem(Integer::from(2));
        let e = Integer::from(987654321u64);
        let a = g.exp(&two, &e).unwrap();
        let b = g.exp(&two, &Integer::from(-&e)).unwrap();
        assert_eq!(g.op(&a, &b), g.elem(Integer::from(1)));
    }

    #[test]
    fn non_canonical_encodings_are_rejected() {
        let g = RsaGroup::rsa2048();
        assert!(g.parse(Integer::from(0)).is_err());
        assert!(g.parse(Integer::from(g.half_modulus() + 1u32)).is_err());
        assert!(g.parse(Integer::from(5)).is_ok());
    }
}
