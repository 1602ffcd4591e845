//! Message bodies: values written one after another with ark-serialize, uncompressed (points are
//! few, field vectors are long, and decompression would cost a square root per point), and
//! validated on reading (field elements below the modulus, points on the curve and in the
//! prime-order subgroup), so a malformed message is an error, not a wrong result.

use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};

use crate::Error;

/// Builds a message body.
#[derive(Default)]
pub struct Writer(Vec<u8>);

impl Writer {
    /// An empty body.
    pub fn new() -> Self {
        Writer(Vec::new())
    }

    /// Appends `value`, uncompressed; returns the writer for chaining.
    pub fn put<T: CanonicalSerialize + ?Sized>(&mut self, value: &T) -> &mut Self {
        value
            .serialize_with_mode(&mut self.0, Compress::No)
            .expect("serialising into a Vec cannot fail");
        self
    }

    /// The body, ready to be framed and sent.
    pub fn finish(self) -> Vec<u8> {
        self.0
    }
}

/// Reads a message body in the order it was written; `what` names the message in errors.
pub struct Reader<'a> {
    rest: &'a [u8],
    what: String,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `body`.
    pub fn new(body: &'a [u8], what: impl Into<String>) -> Self {
        Reader {
            rest: body,
            what: what.into(),
        }
    }

    /// The next value, validated (see the module docs); a short or malformed body is an
    /// [`Error::Decode`] naming the message.
    pub fn get<T: CanonicalDeserialize>(&mut self) -> Result<T, Error> {
        T::deserialize_with_mode(&mut self.rest, Compress::No, Validate::Yes)
            .map_err(|e| Error::Decode(format!("{}: {e}", self.what)))
    }

    /// A vector that must have exactly `len` entries.
    pub fn get_vec<T: CanonicalDeserialize>(&mut self, len: usize) -> Result<Vec<T>, Error> {
        let v: Vec<T> = self.get()?;
        if v.len() != len {
            return Err(Error::Decode(format!(
                "{}: {} values where {len} were expected",
                self.what,
                v.len()
            )));
        }
        Ok(v)
    }

    /// Fails if bytes are left over: a message longer than its parts is malformed.
    pub fn finish(self) -> Result<(), Error> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(Error::Decode(format!(
                "{}: {} trailing bytes",
                self.what,
                self.rest.len()
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::{Fr, G1Projective};
    use ark_ec::Group;

    #[test]
    fn round_trip_and_malformed_messages() {
        let v: Vec<Fr> = (0..5u64).map(Fr::from).collect();
        let g = G1Projective::generator();
        let mut w = Writer::new();
        w.put(&v).put(&g).put(&7u64);
        let body = w.finish();
        let mut r = Reader::new(&body, "test");
        assert_eq!(r.get_vec::<Fr>(5).unwrap(), v);
        assert_eq!(r.get::<G1Projective>().unwrap(), g);
        assert_eq!(r.get::<u64>().unwrap(), 7);
        r.finish().unwrap();

        let mut r = Reader::new(&body, "test");
        assert!(r.get_vec::<Fr>(4).is_err());
        let mut r = Reader::new(&body[..body.len() - 1], "test");
        r.get_vec::<Fr>(5).unwrap();
        let _ = r.get::<G1Projective>().unwrap();
        assert!(r.get::<u64>().is_err());
        let mut r = Reader::new(&body, "test");
        r.get_vec::<Fr>(5).unwrap();
        assert!(r.finish().is_err());
    }
}
