//! The container shared by circom's binary files (`.r1cs`, `.wtns`): a 4-byte magic, a u32
//! version, a u32 section count, then sections of (u32 type, u64 byte size, body), all
//! little-endian. Section order is not fixed (zokrates-js writes `.r1cs` sections as 2, 1, 3), so
//! the whole file is indexed first and sections are looked up by type.

use std::path::Path;

use ark_ff::{BigInteger, PrimeField};

use crate::Error;

pub(crate) struct Container<'a> {
    path: &'a Path,
    kind: &'static str,
    data: &'a [u8],
    /// (section type, start offset, length)
    sections: Vec<(u32, usize, usize)>,
}

impl<'a> Container<'a> {
    pub(crate) fn parse(
        path: &'a Path,
        data: &'a [u8],
        kind: &'static str,
        magic: &[u8; 4],
        versions: &[u32],
    ) -> Result<Self, Error> {
        let mut cur = Cursor::new(path, data, 0, data.len(), "file preamble");
        let found = cur.take(4, "the 4-byte magic")?;
        if found != magic {
            return Err(Error::format(
                path,
                format!(
                    "not a {kind} file: expected magic {:?}, found {:?}",
                    String::from_utf8_lossy(magic),
                    String::from_utf8_lossy(found)
                ),
            ));
        }
        let version = cur.u32("the format version")?;
        if !versions.contains(&version) {
            return Err(Error::format(
                path,
                format!("unsupported {kind} version {version}, expected one of {versions:?}"),
            ));
        }
        let count = cur.u32("the section count")?;
        let mut sections = Vec::new();
        for i in 0..count {
            let ty = cur.u32("a section type")?;
            let size = cur.u64("a section size")?;
            let start = cur.pos;
            let remaining = data.len() - start;
            let len = usize::try_from(size)
                .ok()
                .filter(|&len| len <= remaining)
                .ok_or_else(|| {
                    Error::format(
                        path,
                        format!(
                            "truncated {kind} file: section {} of {count} (type {ty}) declares \
                             {size} bytes at byte offset {start}, but only {remaining} bytes remain",
                            i + 1
                        ),
                    )
                })?;
            cur.pos += len;
            sections.push((ty, start, len));
        }
        if cur.pos != data.len() {
            return Err(Error::format(
                path,
                format!(
                    "{} unexpected bytes after the last of {count} sections",
                    data.len() - cur.pos
                ),
            ));
        }
        Ok(Container {
            path,
            kind,
            data,
            sections,
        })
    }

    /// The section of type `ty`, which must occur exactly once.
    pub(crate) fn section(&self, ty: u32, name: &'static str) -> Result<Cursor<'a>, Error> {
        self.optional_section(ty, name)?.ok_or_else(|| {
            Error::format(
                self.path,
                format!("{} file has no {name} section (type {ty})", self.kind),
            )
        })
    }

    pub(crate) fn optional_section(
        &self,
        ty: u32,
        name: &'static str,
    ) -> Result<Option<Cursor<'a>>, Error> {
        let mut found = self.sections.iter().filter(|(t, _, _)| *t == ty);
        let first = found.next();
        if found.next().is_some() {
            return Err(Error::format(
                self.path,
                format!(
                    "{} file has more than one {name} section (type {ty})",
                    self.kind
                ),
            ));
        }
        Ok(first
            .map(|&(_, start, len)| Cursor::new(self.path, self.data, start, start + len, name)))
    }
}

/// Reads little-endian values inside one section; errors say what was expected and where.
pub(crate) struct Cursor<'a> {
    path: &'a Path,
    data: &'a [u8],
    pos: usize,
    end: usize,
    context: &'static str,
}

impl<'a> Cursor<'a> {
    fn new(path: &'a Path, data: &'a [u8], pos: usize, end: usize, context: &'static str) -> Self {
        Cursor {
            path,
            data,
            pos,
            end,
            context,
        }
    }

    pub(crate) fn error(&self, msg: impl std::fmt::Display) -> Error {
        Error::format(self.path, format!("{} section: {msg}", self.context))
    }

    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], Error> {
        let remaining = self.end - self.pos;
        if remaining < n {
            return Err(self.error(format_args!(
                "truncated: expected {what} ({n} bytes) at byte offset {}, but only {remaining} \
                 bytes remain",
                self.pos
            )));
        }
        let bytes = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, Error> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }

    pub(crate) fn u64(&mut self, what: &str) -> Result<u64, Error> {
        let b = self.take(8, what)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    /// A field element in canonical (non-Montgomery) little-endian form, as circom and
    /// zokrates-js write it. Values at or above the modulus are rejected, not reduced, because
    /// no honest writer produces them.
    pub(crate) fn field<F: PrimeField>(&mut self, what: &str) -> Result<F, Error> {
        let bytes = self.take(field_bytes::<F>(), what)?;
        let mut repr = F::BigInt::default();
        for (limb, chunk) in repr.as_mut().iter_mut().zip(bytes.chunks_exact(8)) {
            *limb = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        }
        F::from_bigint(repr).ok_or_else(|| {
            self.error(format_args!(
                "{what} ending at byte offset {} is not reduced modulo the field prime",
                self.pos
            ))
        })
    }

    pub(crate) fn remaining(&self) -> usize {
        self.end - self.pos
    }

    /// Every section must be consumed exactly; leftovers mean the counts in the file disagree.
    pub(crate) fn finish(self) -> Result<(), Error> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(self.error(format_args!(
                "{n} unexpected trailing bytes (the declared counts do not fill the section)"
            ))),
        }
    }
}

/// Byte width of a field element in the circom formats (32 for BN254).
pub(crate) fn field_bytes<F: PrimeField>() -> usize {
    F::BigInt::NUM_LIMBS * 8
}

/// Reads and checks the (field size, prime) pair that both formats put at the start of their
/// header section.
pub(crate) fn check_field<F: PrimeField>(cur: &mut Cursor<'_>) -> Result<(), Error> {
    let n8 = cur.u32("the field element size")? as usize;
    if n8 != field_bytes::<F>() {
        return Err(cur.error(format_args!(
            "field elements are {n8} bytes, expected {} (BN254 scalar field)",
            field_bytes::<F>()
        )));
    }
    let prime = cur.take(n8, "the field prime")?;
    if prime != F::MODULUS.to_bytes_le().as_slice() {
        return Err(cur.error("the field prime is not the BN254 scalar field modulus"));
    }
    Ok(())
}
