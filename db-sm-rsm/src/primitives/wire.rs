//! The encoding of every value a party sends to another process (the `tls` transport): one
//! [`Wire`] implementation per type, over a few rules.
//!
//! * Integers of fixed width are little-endian; `usize` travels as 64 bits; `bool` as one byte
//!   0 or 1.
//! * A big integer is a sign byte (0 or 1), a 32-bit byte length and the magnitude big-endian.
//! * Group elements and field elements are arkworks' compressed canonical encodings, checked
//!   on the way in (on the curve, in the prime-order subgroup, canonical): a party never
//!   computes with a point another party made up.
//! * A list is a 64-bit count and its items; an option a byte 0 or 1 and the value.
//! * A struct is its fields in order ([`wire_struct!`]).
//!
//! Decoding refuses trailing bytes and anything malformed with [`Error::Input`] naming what.

use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use rug::{integer::Order, Integer};

use crate::{Error, Result};

/// A value that can be sent to another process.
pub trait Wire: Sized {
    /// Appends the encoding of `self` to `out`.
    fn put(&self, out: &mut Vec<u8>);
    /// Reads one value from the front of `inp`, advancing it.
    fn get(inp: &mut &[u8]) -> Result<Self>;
}

/// The encoding of `x`.
pub fn encode<T: Wire>(x: &T) -> Vec<u8> {
    let mut out = Vec::new();
    x.put(&mut out);
    out
}

/// The value encoded in `bytes`, which must hold exactly one.
pub fn decode<T: Wire>(bytes: &[u8]) -> Result<T> {
    let mut inp = bytes;
    let x = T::get(&mut inp)?;
    if !inp.is_empty() {
        return Err(malformed(format!("{} bytes left over", inp.len())));
    }
    Ok(x)
}

fn malformed(why: impl std::fmt::Display) -> Error {
    Error::Input(format!("malformed message: {why}"))
}

fn take<'a>(inp: &mut &'a [u8], n: usize) -> Result<&'a [u8]> {
    if inp.len() < n {
        return Err(malformed(format!("{n} bytes expected, {} left", inp.len())));
    }
    let (head, rest) = inp.split_at(n);
    *inp = rest;
    Ok(head)
}

/// Appends the compressed encoding of an arkworks value.
pub fn ark_put<T: CanonicalSerialize>(x: &T, out: &mut Vec<u8>) {
    x.serialize_with_mode(&mut *out, Compress::Yes)
        .expect("serialising into a Vec cannot fail");
}

/// Reads a compressed arkworks value, checking it.
pub fn ark_get<T: CanonicalDeserialize>(inp: &mut &[u8]) -> Result<T> {
    T::deserialize_with_mode(&mut *inp, Compress::Yes, Validate::Yes)
        .map_err(|e| malformed(format!("group or field element: {e}")))
}

/// Reads a compressed arkworks value without the group checks: only for a value a party wrote
/// into its own store and reads back itself (never one received), whose file the store keeps
/// intact (a reopened file is checked against its SHA-256). A GT element's subgroup check is a
/// full exponentiation; a party re-reading its own working values need not pay it.
pub fn ark_get_own<T: CanonicalDeserialize>(inp: &mut &[u8]) -> Result<T> {
    T::deserialize_with_mode(&mut *inp, Compress::Yes, Validate::No)
        .map_err(|e| malformed(format!("group or field element: {e}")))
}

impl Wire for () {
    fn put(&self, _: &mut Vec<u8>) {}
    fn get(_: &mut &[u8]) -> Result<Self> {
        Ok(())
    }
}

impl Wire for bool {
    fn put(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        match take(inp, 1)?[0] {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(malformed(format!("{b} is not a boolean"))),
        }
    }
}

/// Fixed-width unsigned integers travel little-endian.
macro_rules! wire_le {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(inp: &mut &[u8]) -> Result<Self> {
                let bytes = take(inp, std::mem::size_of::<$t>())?;
                Ok(<$t>::from_le_bytes(bytes.try_into().expect("the type's width")))
            }
        }
    )*};
}

wire_le!(u32, u64, u128);

impl Wire for f64 {
    fn put(&self, out: &mut Vec<u8>) {
        self.to_bits().put(out)
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        Ok(f64::from_bits(u64::get(inp)?))
    }
}

impl Wire for usize {
    fn put(&self, out: &mut Vec<u8>) {
        (*self as u64).put(out)
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        usize::try_from(u64::get(inp)?).map_err(|_| malformed("a count beyond this machine's"))
    }
}

impl Wire for [u8; 32] {
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self)
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        Ok(take(inp, 32)?.try_into().expect("32 bytes"))
    }
}

impl Wire for String {
    fn put(&self, out: &mut Vec<u8>) {
        self.len().put(out);
        out.extend_from_slice(self.as_bytes());
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        let n = usize::get(inp)?;
        String::from_utf8(take(inp, n)?.to_vec()).map_err(|_| malformed("text that is not UTF-8"))
    }
}

impl Wire for Integer {
    fn put(&self, out: &mut Vec<u8>) {
        let digits = self.to_digits::<u8>(Order::Msf);
        out.push(u8::from(*self < 0));
        (digits.len() as u32).put(out);
        out.extend_from_slice(&digits);
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        let negative = bool::get(inp)?;
        let n = u32::get(inp)? as usize;
        let x = Integer::from_digits(take(inp, n)?, Order::Msf);
        Ok(if negative { -x } else { x })
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn put(&self, out: &mut Vec<u8>) {
        self.len().put(out);
        for x in self {
            x.put(out);
        }
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        let n = usize::get(inp)?;
        // Every item takes at least one byte: a count beyond the bytes left is malformed, not a
        // request for a huge allocation.
        if n > inp.len() {
            return Err(malformed(format!("{n} items in {} bytes", inp.len())));
        }
        (0..n).map(|_| T::get(inp)).collect()
    }
}

/// Bytes travel as their count and themselves.
impl Wire for Vec<u8> {
    fn put(&self, out: &mut Vec<u8>) {
        self.len().put(out);
        out.extend_from_slice(self);
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        let n = usize::get(inp)?;
        if n > inp.len() {
            return Err(malformed(format!("{n} bytes expected, {} left", inp.len())));
        }
        let (head, rest) = inp.split_at(n);
        *inp = rest;
        Ok(head.to_vec())
    }
}

impl<T: Wire> Wire for Option<T> {
    fn put(&self, out: &mut Vec<u8>) {
        self.is_some().put(out);
        if let Some(x) = self {
            x.put(out);
        }
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        Ok(if bool::get(inp)? {
            Some(T::get(inp)?)
        } else {
            None
        })
    }
}

impl<A: Wire, B: Wire> Wire for (A, B) {
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out);
        self.1.put(out);
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        Ok((A::get(inp)?, B::get(inp)?))
    }
}

impl<A: Wire, B: Wire, C: Wire> Wire for (A, B, C) {
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out);
        self.1.put(out);
        self.2.put(out);
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        Ok((A::get(inp)?, B::get(inp)?, C::get(inp)?))
    }
}

/// An arkworks value (a group or field element, or a list of them) as a [`Wire`] value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ark<T>(pub T);

impl<T: CanonicalSerialize + CanonicalDeserialize> Wire for Ark<T> {
    fn put(&self, out: &mut Vec<u8>) {
        ark_put(&self.0, out)
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        Ok(Ark(ark_get(inp)?))
    }
}

/// `impl Wire` for a struct from the list of its fields in order, each marked `ark` (an
/// arkworks value, [`ark_put`]) or `wire` (a [`Wire`] value):
///
/// ```ignore
/// wire_struct!(impl[E: Pairing] PkcommProof<E> { ark chal, ark z1, ark z2 });
/// ```
#[macro_export]
macro_rules! wire_struct {
    (impl[$($g:tt)*] $ty:ty { $($kind:ident $field:ident),* $(,)? }) => {
        impl<$($g)*> $crate::primitives::wire::Wire for $ty {
            fn put(&self, out: &mut Vec<u8>) {
                $( $crate::wire_struct!(@put $kind, &self.$field, out); )*
            }
            fn get(inp: &mut &[u8]) -> $crate::Result<Self> {
                Ok(Self { $( $field: $crate::wire_struct!(@get $kind, inp), )* })
            }
        }
    };
    (impl $ty:ty { $($kind:ident $field:ident),* $(,)? }) => {
        impl $crate::primitives::wire::Wire for $ty {
            fn put(&self, out: &mut Vec<u8>) {
                $( $crate::wire_struct!(@put $kind, &self.$field, out); )*
            }
            fn get(inp: &mut &[u8]) -> $crate::Result<Self> {
                Ok(Self { $( $field: $crate::wire_struct!(@get $kind, inp), )* })
            }
        }
    };
    (@put ark, $v:expr, $out:ident) => { $crate::primitives::wire::ark_put($v, $out) };
    (@put wire, $v:expr, $out:ident) => { $crate::primitives::wire::Wire::put($v, $out) };
    (@get ark, $inp:ident) => { $crate::primitives::wire::ark_get($inp)? };
    (@get wire, $inp:ident) => { $crate::primitives::wire::Wire::get($inp)? };
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ec::pairing::Pairing;
    use ark_std::UniformRand;
    use rand::SeedableRng;

    #[derive(Debug, PartialEq)]
    struct Sample<E: Pairing> {
        p: E::G1Affine,
        x: Integer,
        v: Vec<E::ScalarField>,
        flags: Vec<bool>,
    }
    wire_struct!(impl[E: Pairing] Sample<E> { ark p, wire x, ark v, wire flags });

    #[test]
    fn values_round_trip_and_malformed_ones_are_refused() {
        type E = ark_bn254::Bn254;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let s = Sample::<E> {
            p: ark_bn254::G1Affine::rand(&mut rng),
            x: -(Integer::from(1) << 300u32) + 7,
            v: (0..3).map(|_| ark_bn254::Fr::rand(&mut rng)).collect(),
            flags: vec![true, false],
        };
        let b = encode(&s);
        assert_eq!(decode::<Sample<E>>(&b).unwrap(), s);
        let pair = (Some(5u64), String::from("tag"));
        assert_eq!(
            decode::<(Option<u64>, String)>(&encode(&pair)).unwrap(),
            pair
        );
        // Truncated, extended, or a point off the curve: refused.
        assert!(decode::<Sample<E>>(&b[..b.len() - 1]).is_err());
        let mut longer = b.clone();
        longer.push(0);
        assert!(decode::<Sample<E>>(&longer).is_err());
        // The point's x coordinate (32 bytes, little-endian, flags in the top bits) set to
        // 2^254 - 1, above the field's modulus.
        let mut bad = b.clone();
        bad[..31].fill(0xff);
        bad[31] = 0x3f;
        assert!(decode::<Sample<E>>(&bad).is_err());
        assert!(decode::<bool>(&[2]).is_err());
        // A huge count in a short message is refused before any allocation.
        assert!(decode::<Vec<u64>>(&u64::MAX.to_le_bytes()).is_err());
    }
}
