//! The board's record: every post of a `tls` run, appended to a file as it arrives, in a hash
//! chain that starts at a header holding the run's parameters and roster. `db-sm-rsm
//! verify-board FILE` re-checks a finished run from this file alone
//! ([`crate::protocol::audit`]); the board also serves a party that joins late from it, so the
//! board keeps no post in memory once it has passed it on.
//!
//! **Format, version 1** (docs/protocol.md §12). The file is a sequence of entries:
//!
//! | field | bytes | what |
//! | --- | --- | --- |
//! | length | 4 | little-endian length of the rest of the entry |
//! | kind | 1 | 0 header, 1 post, 2 close |
//! | index | 8 | little-endian position of the entry in the file, from 0 |
//! | payload | length − 41 | by kind, below |
//! | hash | 32 | SHA-256 of the previous entry's hash (32 zero bytes before the header), the length, the kind, the index and the payload |
//!
//! Payloads are [`crate::primitives::wire`] values: the header (entry 0) is the text
//! `db-sm-rsm/board-record`, the format version (u32), the run's parameters as JSON text, and the
//! roster as a list of (name, certificate in hexadecimal); a post is its author, its tag and its
//! body as the author sent it (the 8-byte stamp of [`crate::transport::board`] first); the close
//! (the last entry) is why the board closed the record and the number of posts. A reader
//! recomputes every hash, so one byte changed names its entry, a missing or moved entry names
//! the position where the indices stop counting up, and a file that ends early names the entry
//! cut short or the missing close. The chain detects damage, not forgery: whoever rewrites the
//! whole file can recompute it; a deployment would publish or sign the last hash.
//!
//! The board writes to `FILE.partial`, flushes at the end of every section the posts belong to
//! (their stamps' epoch) and on close, and renames the file to `FILE` when it closes it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub use crate::error::RecordError;
use crate::primitives::wire::{decode, Wire};
use crate::transport::roster;

/// The text that opens every record.
pub const MAGIC: &str = "db-sm-rsm/board-record";
/// The format version this program writes and reads.
pub const VERSION: u32 = 1;

const HEADER: u8 = 0;
const POST: u8 = 1;
const CLOSE: u8 = 2;
/// Kind, index and hash: the bytes of an entry besides its payload (after the length).
const FRAMING: usize = 1 + 8 + 32;

/// The first entry: the run's parameters and its roster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The run's parameters (n, m, curve, mode, security, ...), a JSON object as text.
    pub parameters: String,
    /// Every member's name and certificate (hexadecimal DER), in roster order.
    pub roster: Vec<(String, String)>,
}

impl Header {
    fn payload(&self) -> Vec<u8> {
        let mut out = Vec::new();
        MAGIC.to_string().put(&mut out);
        VERSION.put(&mut out);
        self.parameters.put(&mut out);
        self.roster.put(&mut out);
        out
    }
}

/// The path of the file being written, renamed to `path` when the record is closed.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".partial");
    PathBuf::from(p)
}

/// The board's side: appends entries, chaining their hashes.
pub struct Writer {
    file: BufWriter<File>,
    path: PathBuf,
    partial: PathBuf,
    hash: [u8; 32],
    next: u64,
    posts: u64,
    bytes: u64,
}

impl Writer {
    /// Starts the record `path` (written as `path.partial` until closed) with its header.
    pub fn create(path: &Path, header: &Header) -> io::Result<Writer> {
        let partial = partial_path(path);
        // Owner-only, as everything a run writes beside its report.
        let file = crate::storage::private_file(&partial)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", partial.display())))?;
        let mut w = Writer {
            file: BufWriter::with_capacity(1 << 16, file),
            path: path.to_path_buf(),
            partial,
            hash: [0; 32],
            next: 0,
            posts: 0,
            bytes: 0,
        };
        w.append(HEADER, &[&header.payload()])?;
        w.flush()?;
        Ok(w)
    }

    /// Appends one entry of `kind` whose payload is the concatenation of `parts`.
    fn append(&mut self, kind: u8, parts: &[&[u8]]) -> io::Result<()> {
        let payload: usize = parts.iter().map(|p| p.len()).sum();
        let len = u32::try_from(FRAMING + payload)
            .map_err(|_| io::Error::other(format!("an entry of {payload} bytes is too long")))?;
        let head = {
            let mut h = Vec::with_capacity(13);
            h.extend_from_slice(&len.to_le_bytes());
            h.push(kind);
            h.extend_from_slice(&self.next.to_le_bytes());
            h
        };
        let mut hasher = Sha256::new();
        hasher.update(self.hash);
        hasher.update(&head);
        self.file.write_all(&head)?;
        for p in parts {
            hasher.update(p);
            self.file.write_all(p)?;
        }
        self.hash = hasher.finalize().into();
        self.file.write_all(&self.hash)?;
        self.next += 1;
        self.bytes += 4 + u64::from(len);
        Ok(())
    }

    /// Appends a post of `author` under `tag`, its body as sent; returns its entry index.
    pub fn post(&mut self, author: &str, tag: &str, body: &[u8]) -> io::Result<u64> {
        let mut head = Vec::with_capacity(32 + author.len() + tag.len());
        author.to_string().put(&mut head);
        tag.to_string().put(&mut head);
        (body.len() as u64).put(&mut head);
        let index = self.next;
        self.append(POST, &[&head, body])?;
        self.posts += 1;
        Ok(index)
    }

    /// Hands what is buffered to the operating system.
    pub fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }

    /// The file being written (readable once flushed).
    pub fn partial(&self) -> &Path {
        &self.partial
    }

    /// Entries written so far (the header included).
    pub fn entries(&self) -> u64 {
        self.next
    }

    /// Appends the close entry (`reason`), writes everything to disk and renames the file to its
    /// final name.
    pub fn close(mut self, reason: &str) -> io::Result<PathBuf> {
        let mut payload = Vec::new();
        reason.to_string().put(&mut payload);
        self.posts.put(&mut payload);
        self.append(CLOSE, &[&payload])?;
        self.file.flush()?;
        self.file.get_ref().sync_all()?;
        std::fs::rename(&self.partial, &self.path)?;
        Ok(self.path)
    }
}

/// Every post of a record file written so far (`upto` entries, header included), in order, as
/// (author, tag, body): what the board sends a party that joins late. No check beyond the framing:
/// the board reads back its own file.
pub fn posts_so_far(path: &Path, upto: u64) -> io::Result<Vec<(String, String, Vec<u8>)>> {
    let mut r = BufReader::new(File::open(path)?);
    let mut out = Vec::new();
    for _ in 0..upto {
        let Some(entry) = read_entry(&mut r)? else {
            break;
        };
        if entry.kind == POST {
            let (author, tag, body) = decode_post(&entry.payload).map_err(io::Error::other)?;
            out.push((author, tag, body.to_vec()));
        }
    }
    Ok(out)
}

/// One entry as read from a file.
struct RawEntry {
    len: u32,
    kind: u8,
    index: u64,
    payload: Vec<u8>,
    hash: [u8; 32],
}

/// Reads the next entry; `None` at the end of the file; an `UnexpectedEof` error when the file
/// ends inside an entry.
fn read_entry(r: &mut impl Read) -> io::Result<Option<RawEntry>> {
    let mut len = [0u8; 4];
    match r.read(&mut len[..1])? {
        0 => return Ok(None),
        _ => r.read_exact(&mut len[1..])?,
    }
    let len = u32::from_le_bytes(len);
    if (len as usize) < FRAMING {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a length of {len} bytes, shorter than any entry"),
        ));
    }
    let mut kind = [0u8; 1];
    r.read_exact(&mut kind)?;
    let mut index = [0u8; 8];
    r.read_exact(&mut index)?;
    let mut payload = Vec::new();
    let want = len as usize - FRAMING;
    r.by_ref().take(want as u64).read_to_end(&mut payload)?;
    if payload.len() < want {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    let mut hash = [0u8; 32];
    r.read_exact(&mut hash)?;
    Ok(Some(RawEntry {
        len,
        kind: kind[0],
        index: u64::from_le_bytes(index),
        payload,
        hash,
    }))
}

/// The entry at `position`: the end of the file before the close entry, or an entry cut short
/// or unreadable, is the record's error.
fn next_entry(r: &mut impl Read, position: u64) -> Result<RawEntry, RecordError> {
    let at = |why: String| RecordError {
        entry: Some(position),
        why,
    };
    match read_entry(r) {
        Ok(Some(e)) => Ok(e),
        Ok(None) => {
            let last = position.checked_sub(1);
            Err(RecordError {
                entry: last,
                why: match last {
                    None => "the file is empty".into(),
                    Some(_) => "the record ends here without its close entry: it is truncated \
                                (or the run stopped before the board closed it)"
                        .into(),
                },
            })
        }
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            Err(at("cut short: the record is truncated".into()))
        }
        Err(e) => Err(at(format!("damaged: {e}"))),
    }
}

/// What a record's entries read so far hold: its header, its posts and where each tag is.
#[derive(Default)]
struct Reading {
    header: Option<Header>,
    posts: Vec<PostRef>,
    by_tag: HashMap<String, usize>,
}

impl Reading {
    /// Files the post `entry` (its body at `body_start` in the file, after its framing): its
    /// author must be on the roster and own its tag, and the tag must be new.
    fn file_post(&mut self, entry: &RawEntry, body_start: u64) -> Result<(), RecordError> {
        let h = self.header.as_ref().expect("a post after the header");
        let (author, tag, body) = decode_post(&entry.payload)?;
        if !h.roster.iter().any(|(n, _)| *n == author) {
            return refuse(format!("a post by {author:?}, who is not on the roster"));
        }
        let owner = roster::owner(&tag);
        if owner != author {
            return refuse(format!("{author} posted under {tag:?}, a tag of {owner}'s"));
        }
        let body_offset = body_start + (entry.payload.len() - body.len()) as u64;
        if self.by_tag.insert(tag.clone(), self.posts.len()).is_some() {
            return refuse(format!("the tag {tag:?} is posted a second time"));
        }
        self.posts.push(PostRef {
            index: entry.index,
            author,
            tag,
            offset: body_offset,
            len: body.len() as u64,
        });
        Ok(())
    }

    /// Checks the close entry's `payload` (ending at `offset` of a file of `bytes`): it counts
    /// every post and nothing follows it. Why the board closed the record.
    fn close(&self, payload: &[u8], offset: u64, bytes: u64) -> Result<String, RecordError> {
        let mut inp = payload;
        let reason = String::get(&mut inp).map_err(|e| RecordError::new(e.to_string()))?;
        let count: u64 = decode(inp).map_err(|e| RecordError::new(e.to_string()))?;
        if count != self.posts.len() as u64 {
            return refuse(format!(
                "the close counts {count} posts, the record holds {}",
                self.posts.len()
            ));
        }
        if offset != bytes {
            return refuse(format!(
                "{} bytes follow the close entry",
                bytes.saturating_sub(offset)
            ));
        }
        Ok(reason)
    }
}

impl RawEntry {
    /// Checks that this entry sits at `position` and chains to an entry whose hash is `prev`.
    fn check_link(&self, position: u64, prev: &[u8; 32]) -> Result<(), RecordError> {
        if self.index != position {
            return refuse(format!(
                "this position holds entry {}: an entry is missing, repeated or out of order",
                self.index
            ));
        }
        if self.expected_hash(prev) != self.hash {
            return refuse("damaged: its hash does not match its contents and the entry before it");
        }
        Ok(())
    }

    /// The hash this entry must carry after an entry whose hash is `prev`.
    fn expected_hash(&self, prev: &[u8; 32]) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(prev);
        h.update(self.len.to_le_bytes());
        h.update([self.kind]);
        h.update(self.index.to_le_bytes());
        h.update(&self.payload);
        h.finalize().into()
    }
}

/// A refusal of the record, its entry named by the caller ([`RecordError::at`]).
fn refuse<T>(why: impl Into<String>) -> Result<T, RecordError> {
    Err(RecordError::new(why))
}

fn decode_post(payload: &[u8]) -> Result<(String, String, &[u8]), RecordError> {
    let mut inp = payload;
    let author = String::get(&mut inp).map_err(|e| RecordError::new(e.to_string()))?;
    let tag = String::get(&mut inp).map_err(|e| RecordError::new(e.to_string()))?;
    let n = u64::get(&mut inp).map_err(|e| RecordError::new(e.to_string()))?;
    if n != inp.len() as u64 {
        return refuse(format!("a body of {n} bytes in {} bytes", inp.len()));
    }
    Ok((author, tag, inp))
}

/// Where one post sits in the file.
#[derive(Clone, Debug)]
pub struct PostRef {
    /// Its entry index.
    pub index: u64,
    /// Who posted it.
    pub author: String,
    /// Its tag.
    pub tag: String,
    /// Where its body starts in the file, and its length.
    offset: u64,
    len: u64,
}

impl PostRef {
    /// Bytes of the body as posted (stamp included).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True iff the body is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A record whose chain, roster and closing entry were checked ([`Record::open`]); the bodies
/// stay in the file until asked for.
#[derive(Debug)]
pub struct Record {
    path: PathBuf,
    /// The header.
    pub header: Header,
    /// Every post, in order.
    pub posts: Vec<PostRef>,
    by_tag: HashMap<String, usize>,
    /// Why the board closed the record.
    pub closed_because: String,
    /// Bytes of the file.
    pub bytes: u64,
    /// The last entry's hash: the head of the chain.
    pub head: [u8; 32],
}

impl Record {
    /// Reads the record at `path` entry by entry (one in memory at a time) and checks it: the
    /// header's text and version, every entry's index and hash, that every post's author is on
    /// the roster and owns its tag ([`roster::owner`]), that no tag repeats, and that the file
    /// ends with its close entry, counting the posts.
    pub fn open(path: &Path) -> Result<Record, RecordError> {
        let file_err = |e: io::Error| RecordError {
            entry: None,
            why: format!("{}: {e}", path.display()),
        };
        let file = File::open(path).map_err(file_err)?;
        let bytes = file.metadata().map_err(file_err)?.len();
        let mut r = BufReader::with_capacity(1 << 16, file);
        let (mut offset, mut prev, mut position) = (0u64, [0u8; 32], 0u64);
        let mut read = Reading::default();
        loop {
            let at = |why: String| RecordError {
                entry: Some(position),
                why,
            };
            let entry = next_entry(&mut r, position)?;
            entry
                .check_link(position, &prev)
                .map_err(|e| e.at(position))?;
            let body_start = offset + 4 + 1 + 8;
            offset += 4 + u64::from(entry.len);
            prev = entry.hash;
            match (entry.kind, &read.header) {
                (HEADER, None) => {
                    read.header = Some(read_header(&entry.payload).map_err(|e| e.at(position))?)
                }
                (HEADER, Some(_)) => return Err(at("a second header".into())),
                (_, None) => return Err(at("the record does not start with its header".into())),
                (POST, Some(_)) => read
                    .file_post(&entry, body_start)
                    .map_err(|e| e.at(position))?,
                (CLOSE, Some(_)) => {
                    let closed_because = read
                        .close(&entry.payload, offset, bytes)
                        .map_err(|e| e.at(position))?;
                    return Ok(Record {
                        path: path.to_path_buf(),
                        header: read.header.expect("matched Some"),
                        posts: read.posts,
                        by_tag: read.by_tag,
                        closed_because,
                        bytes,
                        head: prev,
                    });
                }
                (kind, _) => return Err(at(format!("an entry of unknown kind {kind}"))),
            }
            position += 1;
        }
    }

    /// The post under `tag`, if any.
    pub fn post(&self, tag: &str) -> Option<&PostRef> {
        self.by_tag.get(tag).map(|&i| &self.posts[i])
    }

    /// The body of `post` as posted, read from the file.
    pub fn body(&self, post: &PostRef) -> io::Result<Vec<u8>> {
        let mut f = File::open(&self.path)?;
        f.seek(SeekFrom::Start(post.offset))?;
        let mut body = vec![0u8; post.len as usize];
        f.read_exact(&mut body)?;
        Ok(body)
    }

    /// Entries in the file: the header, the posts and the close.
    pub fn entries(&self) -> u64 {
        self.posts.len() as u64 + 2
    }
}

fn read_header(payload: &[u8]) -> Result<Header, RecordError> {
    let mut inp = payload;
    let magic = String::get(&mut inp).map_err(|_| RecordError::new("not a board record"))?;
    if magic != MAGIC {
        return refuse("not a board record");
    }
    let version = u32::get(&mut inp).map_err(|e| RecordError::new(e.to_string()))?;
    if version != VERSION {
        return refuse(format!(
            "a record of format version {version}; this program reads version {VERSION}"
        ));
    }
    let parameters = String::get(&mut inp).map_err(|e| RecordError::new(e.to_string()))?;
    let roster: Vec<(String, String)> = decode(inp).map_err(|e| RecordError::new(e.to_string()))?;
    Ok(Header { parameters, roster })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            parameters: r#"{"n": 3, "m": 2}"#.into(),
            roster: ["driver", "mixer 0", "mixer 1", "verifier"]
                .iter()
                .map(|n| (n.to_string(), format!("cert of {n}")))
                .collect(),
        }
    }

    /// A closed record of `posts` (author, tag, body) in a fresh directory.
    fn written(name: &str, posts: &[(&str, &str, &[u8])]) -> (PathBuf, Vec<u8>) {
        let dir = std::env::temp_dir().join(format!("dbsm-record-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("board.log");
        let mut w = Writer::create(&path, &header()).unwrap();
        for (a, t, b) in posts {
            w.post(a, t, b).unwrap();
        }
        assert!(partial_path(&path).exists() && !path.exists());
        let closed = w.close("the driver shut the board down").unwrap();
        assert_eq!(closed, path);
        assert!(!partial_path(&path).exists());
        let bytes = std::fs::read(&path).unwrap();
        (path, bytes)
    }

    const POSTS: [(&str, &str, &[u8]); 3] = [
        ("driver", "preprocessing/keys", b"keys"),
        (
            "mixer 0",
            "main/mixing/x/mixer 0",
            b"a longer body of mixer 0",
        ),
        ("mixer 1", "main/mixing/x/mixer 1", b"mixer 1's"),
    ];

    /// The byte ranges of every entry of a record file.
    fn entry_ranges(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
            out.push(at..at + 4 + len);
            at += 4 + len;
        }
        out
    }

    #[test]
    fn a_written_record_reads_back_with_its_posts() {
        let (path, _) = written("roundtrip", &POSTS);
        let r = Record::open(&path).unwrap();
        assert_eq!(r.header, header());
        assert_eq!(r.entries(), 5);
        assert_eq!(r.closed_because, "the driver shut the board down");
        let p = r.post("main/mixing/x/mixer 0").unwrap();
        assert_eq!((p.index, p.author.as_str()), (2, "mixer 0"));
        assert_eq!(r.body(p).unwrap(), b"a longer body of mixer 0");
        assert!(r.post("nothing").is_none());
        let so_far = posts_so_far(&path, 3).unwrap();
        assert_eq!(so_far.len(), 2);
        assert_eq!(so_far[1].2, b"a longer body of mixer 0");
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// One byte changed anywhere, an entry removed, two entries swapped, the file cut anywhere:
    /// refused, naming the entry.
    #[test]
    fn damage_removal_reordering_and_truncation_name_the_entry() {
        let (path, good) = written("damage", &POSTS);
        let ranges = entry_ranges(&good);
        assert_eq!(ranges.len(), 5);
        let check = |bytes: &[u8], entry: Option<u64>, what: &str| {
            std::fs::write(&path, bytes).unwrap();
            let e = Record::open(&path)
                .err()
                .unwrap_or_else(|| panic!("{what}: accepted"));
            assert_eq!(e.entry, entry, "{what}: {e}");
        };
        // Every single byte, flipped: the entry it lies in is named.
        for (i, range) in ranges.iter().enumerate() {
            for at in range.clone() {
                let mut bad = good.clone();
                bad[at] ^= 0x01;
                std::fs::write(&path, &bad).unwrap();
                let e = Record::open(&path).expect_err("a flipped byte");
                // A length grown past the end reads as this entry cut short; shrunk, as this
                // entry damaged: either way this entry, or (a length that swallows the next
                // entries) nothing later than it.
                let named = e.entry.expect("an entry is named");
                assert!(named == i as u64, "byte {at} of entry {i}: {e}");
            }
        }
        // Entry 2 removed: position 2 holds entry 3.
        let mut bad = good[..ranges[2].start].to_vec();
        bad.extend_from_slice(&good[ranges[2].end..]);
        check(&bad, Some(2), "removed");
        // Entries 1 and 2 swapped.
        let mut bad = good[..ranges[1].start].to_vec();
        bad.extend_from_slice(&good[ranges[2].clone()]);
        bad.extend_from_slice(&good[ranges[1].clone()]);
        bad.extend_from_slice(&good[ranges[3].start..]);
        check(&bad, Some(1), "swapped");
        // Cut inside entry 3, and right after it (no close).
        check(&good[..ranges[3].start + 20], Some(3), "cut inside");
        check(&good[..ranges[3].end], Some(3), "cut after entry 3");
        check(&[], None, "empty");
        // Something after the close.
        let mut bad = good.clone();
        bad.push(0);
        check(&bad, Some(4), "trailing byte");
        std::fs::write(&path, &good).unwrap();
        assert!(Record::open(&path).is_ok());
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// A post under another party's tag, by someone off the roster, or a tag posted twice: the
    /// entry is named even with its hashes right.
    #[test]
    fn a_record_with_a_foreign_tag_a_stranger_or_a_repeated_tag_is_refused() {
        for (posts, entry, why) in [
            (
                vec![("mixer 0", "main/x/mixer 1", &b"forged"[..])],
                1,
                "a tag of mixer 1's",
            ),
            (vec![("mallory", "x", &b""[..])], 1, "not on the roster"),
            (
                vec![("driver", "a", &b"1"[..]), ("driver", "a", &b"2"[..])],
                2,
                "second time",
            ),
        ] {
            let (path, _) = written("foreign", &posts);
            let e = Record::open(&path).expect_err("refused");
            assert_eq!(e.entry, Some(entry), "{e}");
            assert!(e.why.contains(why), "{e}");
            let _ = std::fs::remove_dir_all(path.parent().unwrap());
        }
    }
}
