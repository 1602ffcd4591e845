//! What the driver of a `tls` run takes from the other parties for its report, and on whose
//! word.
//!
//! At its end every party process posts its records: its timers, the bytes it posted by scope
//! and the digest of every value it posted ([`PartyRecords`]), signed with the key of the
//! certificate it is on the roster with ([`SignedRecords`]). The driver checks the signature
//! against the roster ([`open`]), so the records are that party's claims, attributable to it.
//! What it takes from them, and how:
//!
//! * **Timers** (wall and CPU time, operation counts, traffic per step) cannot be checked by
//!   anybody else: they are kept as that party's claims, labelled so in the report
//!   (`claimed_by`), and a party may claim only its own steps ([`check_timers`]): a timer of
//!   another party in its records fails the run, naming it.
//! * **Bytes posted and the values' digests** the board saw itself: they come from the board's
//!   record ([`Ledger`]), never from a party's word. A party's records that contradict the
//!   record (other bytes, another digest, a post it did not make) fail the run naming it
//!   ([`Ledger::check`]). The run's transcript (`transcript_sha256`) is the record's.
//!
//! A lying party can thus still misstate how long its own steps took (which no one else can
//! measure), but not another party's figures, the bytes on the board or the transcript.

use std::collections::BTreeMap;
use std::path::Path;

use sha2::{Digest, Sha256};
use tls_link::{Certificate, Identity};

use crate::measurement::report::TimerRecord;
use crate::primitives::wire::{decode, encode};
use crate::transport::board::{frame_bytes, STAMP};
use crate::transport::record::Record;
use crate::transport::{roster, scope_of, transcript_digest, Posted, Resumed};
use crate::{Error, Result};

/// Where the driver checks the parties' records, as failures name it.
const STEP: &str = "checking the parties' records";

/// What a party's process posts at its end for the driver's report: its timers, what its
/// party posted, its transcript, and what it read back from its journal (resumed runs).
#[derive(Clone, Debug)]
pub struct PartyRecords {
    /// Its timers.
    pub timers: Vec<TimerRecord>,
    /// Its party's posts, by scope.
    pub posted: Vec<Posted>,
    /// Every value its party made public: tag and digest.
    pub transcript: Vec<(String, [u8; 32])>,
    /// What it made of an earlier attempt's journal (None: it did every step).
    pub resumed: Option<Resumed>,
}

crate::wire_struct!(impl PartyRecords { wire timers, wire posted, wire transcript, wire resumed });

/// A party's records as it posts them: their encoding and its signature of them.
#[derive(Clone, Debug)]
pub struct SignedRecords {
    /// The encoding of its [`PartyRecords`].
    pub body: Vec<u8>,
    /// [`Identity::sign`] of [`message`] of the body.
    pub signature: Vec<u8>,
}

crate::wire_struct!(impl SignedRecords { wire body, wire signature });

/// What party `name` signs: the context, its name and its records' encoding.
fn message(name: &str, body: &[u8]) -> Vec<u8> {
    let mut m = b"db-sm-rsm/party-records/v1\0".to_vec();
    m.extend_from_slice(&encode(&name.to_string()));
    m.extend_from_slice(body);
    m
}

fn failure(party: &str, why: String) -> Error {
    Error::Stopped {
        party: party.to_string(),
        step: STEP.into(),
        why,
    }
}

/// Party `name`'s records, signed with `identity`.
pub fn sign(identity: &Identity, name: &str, records: &PartyRecords) -> Result<SignedRecords> {
    let body = encode(records);
    let signature = identity
        .sign(&message(name, &body))
        .map_err(|e| failure(name, format!("it could not sign its records ({e})")))?;
    Ok(SignedRecords { body, signature })
}

/// Party `name`'s records, once their signature holds for the certificate `cert` it is on the
/// roster with; else a failure naming it.
pub fn open(
    cert: Option<&Certificate<'_>>,
    name: &str,
    signed: &SignedRecords,
) -> Result<PartyRecords> {
    let cert = cert.ok_or_else(|| failure(name, "it is not on the roster".into()))?;
    if !tls_link::verify(cert, &message(name, &signed.body), &signed.signature) {
        return Err(failure(
            name,
            "its records' signature does not hold for its roster certificate".into(),
        ));
    }
    decode(&signed.body).map_err(|e| failure(name, format!("its records do not decode: {e}")))
}

/// Checks that party `name` claims only its own timers (and the sections it ran): a timer of
/// another party fails the run naming `name`.
pub fn check_timers(name: &str, timers: &[TimerRecord]) -> Result<()> {
    match timers
        .iter()
        .find(|t| t.party.as_deref().is_some_and(|p| p != name))
    {
        None => Ok(()),
        Some(t) => Err(failure(
            name,
            format!(
                "its records claim a timer of {}'s ({:?} in {})",
                t.party.as_deref().unwrap_or_default(),
                t.name,
                t.path.join(" > ")
            ),
        )),
    }
}

/// What one party said it posted: its name, bytes by scope, and the digest of every value.
pub type Claimed = (String, Vec<Posted>, Vec<(String, [u8; 32])>);

/// The ledger of the board's record at `record`, once what every process said it posted
/// (`claimed`) was checked against it ([`Ledger::check`]).
pub fn settled(record: &Path, claimed: &[Claimed]) -> Result<Ledger> {
    let ledger = Ledger::of(record)?;
    for c in claimed {
        ledger.check(c)?;
    }
    Ok(ledger)
}

/// What the board's record shows of every post but the end-of-run records: who posted what, in
/// bytes as sent by scope, and the SHA-256 of every value as posted.
pub struct Ledger {
    /// Bytes and posts by party and scope, in that order.
    pub posted: Vec<Posted>,
    /// The digest of every value, by tag.
    pub digests: BTreeMap<String, [u8; 32]>,
}

impl Ledger {
    /// The ledger of the record at `path`.
    pub fn of(path: &Path) -> Result<Ledger> {
        let board = |why: String| failure(crate::transport::board::BOARD, why);
        let record = Record::open(path).map_err(|e| board(format!("its record: {e}")))?;
        let mut by: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
        let mut digests: BTreeMap<String, [u8; 32]> = BTreeMap::new();
        for post in record
            .posts
            .iter()
            .filter(|p| !p.tag.starts_with("records/"))
        {
            let body = record
                .body(post)
                .map_err(|e| board(format!("its record's post {:?}: {e}", post.tag)))?;
            let value = body.get(STAMP..).unwrap_or_default();
            digests.insert(post.tag.clone(), Sha256::digest(value).into());
            let e = by
                .entry((post.author.clone(), scope_of(&post.tag)))
                .or_default();
            e.0 += frame_bytes(&post.tag, value.len());
            e.1 += 1;
        }
        let posted = by
            .into_iter()
            .map(|((party, scope), (bytes, posts))| Posted {
                party,
                scope,
                bytes,
                posts,
            })
            .collect();
        Ok(Ledger { posted, digests })
    }

    /// The run's transcript digest, over the record's values.
    pub fn transcript_sha256(&self) -> [u8; 32] {
        transcript_digest(self.digests.iter())
    }

    /// Checks what one party said it posted against the record: the same bytes and posts by
    /// scope, and the same value under every tag it posted, no more and no less. A difference
    /// fails the run naming the party (the board itself, for the driver's own word: the driver
    /// knows what it sent).
    pub fn check(&self, (party, posted, transcript): &Claimed) -> Result<()> {
        let blamed = if party == roster::DRIVER {
            crate::transport::board::BOARD
        } else {
            party.as_str()
        };
        let mut said: Vec<&Posted> = posted.iter().collect();
        said.sort_by(|a, b| (&a.party, &a.scope).cmp(&(&b.party, &b.scope)));
        let seen: Vec<&Posted> = self.posted.iter().filter(|p| p.party == *party).collect();
        if said != seen {
            let show = |ps: &[&Posted]| {
                ps.iter()
                    .map(|p| format!("{} {}: {} bytes", p.party, p.scope, p.bytes))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(failure(
                blamed,
                format!(
                    "its records claim posts ({}) that the board's record does not show ({})",
                    show(&said),
                    show(&seen)
                ),
            ));
        }
        let said: BTreeMap<&str, &[u8; 32]> =
            transcript.iter().map(|(t, d)| (t.as_str(), d)).collect();
        let seen: BTreeMap<&str, &[u8; 32]> = self
            .digests
            .iter()
            .filter(|(t, _)| roster::owner(t) == party)
            .map(|(t, d)| (t.as_str(), d))
            .collect();
        if let Some(tag) = said
            .keys()
            .chain(seen.keys())
            .find(|t| said.get(*t) != seen.get(*t))
        {
            return Err(failure(
                blamed,
                format!("its records' digest of {tag:?} is not the board's record's"),
            ));
        }
        Ok(())
    }
}
