//! Per-entry lists on disk: a [`Column`] holds n values (ciphertexts, proofs, shares) in a file
//! of the run's store ([`super::Store`]) instead of in memory, so that a run keeps in RAM only
//! what the step at hand works on.
//!
//! A column is written once, front to back ([`ColumnWriter`]), and read as often as needed:
//! whole ([`Column::load`], for a step that needs every value at once, such as a shuffle proof)
//! or a chunk at a time ([`Column::chunks`], for the per-entry steps: input preparation, the
//! checks of the inputs' proofs, decryptions). A chunk is [`CHUNK`] values: large enough that a
//! batch verification's fixed costs and the thread pool's start-up disappear in it, small enough
//! that every step's working set stays a few megabytes whatever n (256 senders' inputs are about
//! 6 MB at m = 4).
//!
//! The file is the values' [`Wire`] encodings, each after its length (32 bits, little-endian).
//! A column travels (a post on the bulletin board, a checkpoint) as the encoding of a list,
//! exactly as a `Vec` of the same values would ([`Wire`] for `Column`): the transcript does not
//! depend on where a party kept its values. Values read back are checked as any post is
//! (arkworks points on the curve and in the subgroup), except a party's own working values that
//! never travel (DPK_BBS+'s generators and nonces, `wire::ark_get_own`): their GT subgroup
//! checks would cost an exponentiation each.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::{store, Store};
use crate::primitives::wire::{decode, encode, Wire};
use crate::{Error, Result};

/// Values per chunk of the chunked steps.
pub const CHUNK: usize = 256;

/// An immutable list of values of type `T` in a file of the run's store.
pub struct Column<T> {
    file: Arc<ColumnFile>,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Column<T> {
    fn clone(&self) -> Self {
        Column {
            file: self.file.clone(),
            _t: PhantomData,
        }
    }
}

/// The file behind a column; removed when the last handle goes, unless the store keeps its
/// files (a run that can be resumed).
struct ColumnFile {
    path: PathBuf,
    len: usize,
    bytes: u64,
    sha256: [u8; 32],
    keep: bool,
    store: &'static Store,
}

impl Drop for ColumnFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
            self.store.released();
        }
    }
}

fn io_error(what: &str, path: &std::path::Path, e: io::Error) -> Error {
    Error::Storage(format!("{what} {}: {e}", path.display()))
}

/// Writes a column front to back.
pub struct ColumnWriter<T> {
    out: BufWriter<File>,
    path: PathBuf,
    len: usize,
    bytes: u64,
    hash: Sha256,
    buf: Vec<u8>,
    keep: bool,
    store: &'static Store,
    _t: PhantomData<fn(T)>,
}

impl<T: Wire> ColumnWriter<T> {
    /// A new, empty column named after `name` (for a reader of the store's directory) in the
    /// run's store.
    pub fn new(name: &str) -> Result<Self> {
        let store = store();
        let path = store.fresh_path(name)?;
        let file = super::private_file(&path).map_err(|e| {
            store.released();
            io_error("cannot create", &path, e)
        })?;
        Ok(ColumnWriter {
            out: BufWriter::with_capacity(1 << 20, file),
            path,
            len: 0,
            bytes: 0,
            hash: Sha256::new(),
            buf: Vec::new(),
            keep: store.keeps_files(),
            store,
            _t: PhantomData,
        })
    }

    /// Appends one value.
    pub fn push(&mut self, x: &T) -> Result<()> {
        self.buf.clear();
        x.put(&mut self.buf);
        let len = u32::try_from(self.buf.len())
            .map_err(|_| Error::Storage("a value of more than 4 GiB in a column".into()))?;
        let head = len.to_le_bytes();
        self.hash.update(head);
        self.hash.update(&self.buf);
        self.out
            .write_all(&head)
            .and_then(|()| self.out.write_all(&self.buf))
            .map_err(|e| io_error("cannot write", &self.path, e))?;
        self.len += 1;
        self.bytes += 4 + self.buf.len() as u64;
        Ok(())
    }

    /// Appends every value of `xs`.
    pub fn extend<'a>(&mut self, xs: impl IntoIterator<Item = &'a T>) -> Result<()>
    where
        T: 'a,
    {
        xs.into_iter().try_for_each(|x| self.push(x))
    }

    /// The finished column. A store that keeps its files (a resumable run) also has the file
    /// on the disk before this returns.
    pub fn finish(self) -> Result<Column<T>> {
        let ColumnWriter {
            out,
            path,
            len,
            bytes,
            hash,
            keep,
            store,
            ..
        } = self;
        let file = out
            .into_inner()
            .map_err(|e| io_error("cannot write", &path, e.into_error()))?;
        if keep {
            file.sync_data()
                .map_err(|e| io_error("cannot sync", &path, e))?;
        }
        Ok(Column {
            file: Arc::new(ColumnFile {
                path,
                len,
                bytes,
                sha256: hash.finalize().into(),
                keep,
                store,
            }),
            _t: PhantomData,
        })
    }
}

impl<T: Wire> Column<T> {
    /// A column of `values`.
    pub fn from_slice(name: &str, values: &[T]) -> Result<Self> {
        let mut w = ColumnWriter::new(name)?;
        w.extend(values)?;
        w.finish()
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.file.len
    }

    /// True iff the column holds no value.
    pub fn is_empty(&self) -> bool {
        self.file.len == 0
    }

    /// Bytes of the file (the values' encodings and their lengths).
    pub fn bytes(&self) -> u64 {
        self.file.bytes
    }

    /// SHA-256 of the file.
    pub fn sha256(&self) -> [u8; 32] {
        self.file.sha256
    }

    /// Bytes of the values' encodings alone: what the column adds to a post.
    pub fn encoded_bytes(&self) -> u64 {
        self.file.bytes - 4 * self.file.len as u64
    }

    /// The first value (refused for an empty column).
    pub fn first(&self) -> Result<T> {
        self.chunks(1)
            .next()
            .unwrap_or_else(|| Err(Error::Storage("the first value of an empty column".into())))
            .map(|mut c| c.remove(0))
    }

    /// Every value, in order.
    pub fn load(&self) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(self.len());
        for chunk in self.chunks(CHUNK.max(1)) {
            out.extend(chunk?);
        }
        Ok(out)
    }

    /// The values in chunks of `size` (the last may be shorter).
    pub fn chunks(&self, size: usize) -> Chunks<T> {
        Chunks {
            reader: None,
            column: self.clone(),
            size: size.max(1),
            read: 0,
        }
    }

    /// `f(start, chunk)` for every chunk of `size` values, `start` the index of its first.
    pub fn try_for_each_chunk(
        &self,
        size: usize,
        mut f: impl FnMut(usize, Vec<T>) -> Result<()>,
    ) -> Result<()> {
        let mut start = 0;
        for chunk in self.chunks(size) {
            let chunk = chunk?;
            let n = chunk.len();
            f(start, chunk)?;
            start += n;
        }
        Ok(())
    }

    /// The column of `f(start, chunk)` over every chunk of `size` values (`f` returns one value
    /// per value of its chunk, in order), written as it is made.
    pub fn map_chunks<U: Wire>(
        &self,
        name: &str,
        size: usize,
        mut f: impl FnMut(usize, Vec<T>) -> Vec<U>,
    ) -> Result<Column<U>> {
        let mut w = ColumnWriter::new(name)?;
        self.try_for_each_chunk(size, |start, chunk| w.extend(&f(start, chunk)))?;
        w.finish()
    }

    /// True iff `f(start, chunk)` holds for every chunk; stops at the first that fails.
    pub fn all_chunks(
        &self,
        size: usize,
        mut f: impl FnMut(usize, Vec<T>) -> bool,
    ) -> Result<bool> {
        let mut all = true;
        self.try_for_each_chunk(size, |start, chunk| {
            if all {
                all = f(start, chunk);
            }
            Ok(())
        })?;
        Ok(all)
    }

    /// Where the file is.
    pub fn path(&self) -> &std::path::Path {
        &self.file.path
    }

    /// A column of an existing file of `len` values whose SHA-256 is `sha256` (a checkpoint's
    /// reference); refused if the file is missing or is not that file.
    pub(crate) fn reopen(path: PathBuf, len: usize, sha256: [u8; 32]) -> Result<Self> {
        let mut f = File::open(&path).map_err(|e| io_error("cannot open", &path, e))?;
        let mut hash = Sha256::new();
        let bytes = io::copy(&mut f, &mut hash).map_err(|e| io_error("cannot read", &path, e))?;
        if <[u8; 32]>::from(hash.finalize()) != sha256 {
            return Err(Error::Storage(format!(
                "{} is not the file the checkpoint names (its SHA-256 differs)",
                path.display()
            )));
        }
        Ok(Column {
            file: Arc::new(ColumnFile {
                path,
                len,
                bytes,
                sha256,
                keep: true,
                store: store(),
            }),
            _t: PhantomData,
        })
    }
}

/// The chunks of a column ([`Column::chunks`]).
pub struct Chunks<T> {
    reader: Option<BufReader<File>>,
    column: Column<T>,
    size: usize,
    read: usize,
}

impl<T: Wire> Chunks<T> {
    fn next_chunk(&mut self) -> Result<Vec<T>> {
        let path = &self.column.file.path;
        if self.reader.is_none() {
            let f = File::open(path).map_err(|e| io_error("cannot open", path, e))?;
            self.reader = Some(BufReader::with_capacity(1 << 20, f));
        }
        let r = self.reader.as_mut().expect("opened above");
        let n = self.size.min(self.column.len() - self.read);
        let mut out = Vec::with_capacity(n);
        let mut buf = Vec::new();
        for _ in 0..n {
            let mut head = [0u8; 4];
            r.read_exact(&mut head)
                .map_err(|e| io_error("cannot read", path, e))?;
            buf.resize(u32::from_le_bytes(head) as usize, 0);
            r.read_exact(&mut buf)
                .map_err(|e| io_error("cannot read", path, e))?;
            out.push(decode(&buf)?);
        }
        self.read += n;
        Ok(out)
    }
}

impl<T: Wire> Chunks<T> {
    /// The next chunk of a column read in step with others of the same length: refused if
    /// this one has ended.
    pub fn next_in_step(&mut self) -> Result<Vec<T>> {
        self.next().unwrap_or_else(|| {
            Err(Error::Storage(format!(
                "{} ends before the columns read with it",
                self.column.file.path.display()
            )))
        })
    }
}

impl<T: Wire> Iterator for Chunks<T> {
    type Item = Result<Vec<T>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.read >= self.column.len() {
            return None;
        }
        let chunk = self.next_chunk();
        if chunk.is_err() {
            // A read that failed once ends the iteration.
            self.read = self.column.len();
        }
        Some(chunk)
    }
}

/// How a column is encoded: as its values (a post), as a reference to its file (the journal),
/// as its content's digest alone (the transcript), or as its length only while the bytes of its
/// values are counted ([`encoded_len`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Values,
    Reference,
    Digest,
    Counted,
}

thread_local! {
    static ENCODING: std::cell::Cell<Encoding> = const { std::cell::Cell::new(Encoding::Values) };
    /// The bytes of column values left out of an encoding made by [`encoded_len`].
    static LEFT_OUT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn encoding_as<R>(e: Encoding, f: impl FnOnce() -> R) -> R {
    let before = ENCODING.with(|c| c.replace(e));
    let out = f();
    ENCODING.with(|c| c.set(before));
    out
}

/// Runs `f` with every column encoded (or decoded) as a reference to its file in the run's
/// store, as the journal keeps it, instead of as its values.
pub fn as_references<R>(f: impl FnOnce() -> R) -> R {
    encoding_as(Encoding::Reference, f)
}

/// Runs `f` with every column encoded as its length and its content's SHA-256 (what a
/// transcript digests: the same values give the same bytes wherever they are kept).
pub fn as_digests<R>(f: impl FnOnce() -> R) -> R {
    encoding_as(Encoding::Digest, f)
}

/// The length of `x`'s encoding as values (what a post of it takes) without reading a column's
/// values: a column counts as its file's bytes less their length prefixes.
pub fn encoded_len<T: Wire>(x: &T) -> usize {
    let before = LEFT_OUT.with(|c| c.replace(0));
    let head = encoding_as(Encoding::Counted, || encode(x)).len();
    let left_out = LEFT_OUT.with(|c| c.replace(before));
    head + left_out as usize
}

/// A column travels as the list of its values: the count, then each value; in the journal
/// ([`as_references`]), as its file's name in the store, its length and its SHA-256.
impl<T: Wire> Wire for Column<T> {
    fn put(&self, out: &mut Vec<u8>) {
        match ENCODING.with(std::cell::Cell::get) {
            Encoding::Values => {}
            Encoding::Reference => {
                let name = self
                    .file
                    .path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned());
                name.unwrap_or_default().put(out);
                self.len().put(out);
                self.file.sha256.put(out);
                return;
            }
            Encoding::Digest => {
                self.len().put(out);
                self.file.sha256.put(out);
                return;
            }
            Encoding::Counted => {
                self.len().put(out);
                LEFT_OUT.with(|c| c.set(c.get() + self.encoded_bytes()));
                return;
            }
        }
        self.len().put(out);
        for chunk in self.chunks(CHUNK) {
            // A column whose file cannot be read any more cannot be sent: the run is over.
            let chunk = chunk.unwrap_or_else(|e| panic!("a column to send: {e}"));
            for x in &chunk {
                x.put(out);
            }
        }
    }

    fn get(inp: &mut &[u8]) -> Result<Self> {
        if ENCODING.with(std::cell::Cell::get) == Encoding::Reference {
            let name = String::get(inp)?;
            let (len, sha256) = (usize::get(inp)?, <[u8; 32]>::get(inp)?);
            if name.contains('/') || name.starts_with('.') {
                return Err(Error::Storage(format!(
                    "{name:?} is not a file of the store"
                )));
            }
            return Column::reopen(store().dir().join(name), len, sha256);
        }
        let n = usize::get(inp)?;
        if n > inp.len() {
            return Err(Error::Input(format!(
                "malformed message: {n} items in {} bytes",
                inp.len()
            )));
        }
        let mut w = ColumnWriter::new("received")?;
        for _ in 0..n {
            w.push(&T::get(inp)?)?;
        }
        w.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::wire::encode;
    use rug::Integer;

    #[test]
    fn a_column_reads_back_whole_and_in_chunks_and_travels_as_a_list() {
        let values: Vec<Integer> = (0..2500).map(|i| Integer::from(i) << (i % 700)).collect();
        let col = Column::from_slice("test", &values).unwrap();
        assert_eq!(col.len(), 2500);
        assert_eq!(col.load().unwrap(), values);
        let sizes: Vec<usize> = col.chunks(1000).map(|c| c.unwrap().len()).collect();
        assert_eq!(sizes, [1000, 1000, 500]);
        let doubled = col
            .map_chunks("doubled", 300, |start, chunk| {
                assert_eq!(chunk[0], values[start]);
                chunk.into_iter().map(|x| x * 2u32).collect()
            })
            .unwrap();
        assert_eq!(doubled.load().unwrap()[2499], values[2499].clone() * 2u32);
        // The same bytes as the list, and back.
        assert_eq!(encode(&col), encode(&values));
        // Its post's length, counted without reading the values, nested in other values too.
        assert_eq!(encoded_len(&col), encode(&values).len());
        let pair = (7u64, col.clone());
        assert_eq!(encoded_len(&pair), encode(&(7u64, values.clone())).len());
        let back: Column<Integer> = decode(&encode(&values)).unwrap();
        assert_eq!(back.load().unwrap(), values);
    }

    #[test]
    fn a_damaged_file_is_refused_on_reopening() {
        let col = Column::from_slice("test", &[Integer::from(5), Integer::from(7)]).unwrap();
        let path = col.path().to_path_buf();
        let copy = path.with_extension("copy");
        std::fs::copy(&path, &copy).unwrap();
        assert!(Column::<Integer>::reopen(copy.clone(), 2, col.sha256()).is_ok());
        let mut bytes = std::fs::read(&copy).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&copy, bytes).unwrap();
        let err = Column::<Integer>::reopen(copy.clone(), 2, col.sha256())
            .err()
            .unwrap();
        assert!(err.to_string().contains("SHA-256 differs"), "{err}");
        let _ = std::fs::remove_file(copy);
    }
}
