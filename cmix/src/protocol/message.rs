//! A client's message in its slot: the recipient, a check value and the body, spread over the
//! slot's elements.
//!
//! ```text
//! | recipient (4 bytes, LE) | check (16 bytes) | body (slot bytes - 20) |
//! ```
//!
//! The 20-byte header is as long as the thesis's SHA-1 destination prefix. The check value is
//! the first 16 bytes of `SHA-256("cmix message check" || recipient || body)`: a slot that a
//! node tagged (multiplied by anything but the identity) decodes to bytes whose check fails
//! with probability `1 - 2^-128`, which is how the last node finds a tagged slot once the
//! output is committed. (A deployment would carry an end-to-end MAC between sender and
//! recipient here; for detecting a tag, any check the nodes cannot fix without knowing the
//! plaintext serves.)

use sha2::{Digest, Sha256};

use crate::group::Group;
use crate::Error;

/// The bytes before a slot's body: the recipient and the check value.
pub const HEADER: usize = 20;

/// Bytes a slot of `width` elements carries, header included.
pub fn slot_bytes<G: Group>(g: &G, width: usize) -> usize {
    width * g.payload_bytes()
}

/// Payload bytes of a slot (header excluded): what "per payload byte" divides by.
pub fn body_bytes<G: Group>(g: &G, width: usize) -> usize {
    slot_bytes(g, width) - HEADER
}

fn check_value(recipient: u32, body: &[u8]) -> [u8; 16] {
    let mut h = Sha256::new();
    h.update(b"cmix message check");
    h.update(recipient.to_le_bytes());
    h.update(body);
    let d = h.finalize();
    let mut c = [0u8; 16];
    c.copy_from_slice(&d[..16]);
    c
}

/// The slot's elements for a message to `recipient` (`body` of exactly [`body_bytes`]).
pub fn encode<G: Group>(
    g: &G,
    width: usize,
    recipient: u32,
    body: &[u8],
) -> Result<Vec<G::Elem>, Error> {
    assert_eq!(body.len(), body_bytes(g, width), "body length");
    let mut bytes = Vec::with_capacity(slot_bytes(g, width));
    bytes.extend_from_slice(&recipient.to_le_bytes());
    bytes.extend_from_slice(&check_value(recipient, body));
    bytes.extend_from_slice(body);
    bytes
        .chunks(g.payload_bytes())
        .map(|c| g.encode_payload(c))
        .collect()
}

/// The recipient and body of an output slot, or why it is not a message ([`Error::SlotElement`],
/// [`Error::SlotCheck`]).
pub fn decode<G: Group>(g: &G, elems: &[G::Elem]) -> Result<(u32, Vec<u8>), Error> {
    let mut bytes = Vec::with_capacity(elems.len() * g.payload_bytes());
    for e in elems {
        bytes.extend(
            g.decode_payload(e)
                .map_err(|e| Error::SlotElement(Box::new(e)))?,
        );
    }
    let recipient = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"));
    let body = bytes[HEADER..].to_vec();
    if bytes[4..HEADER] != check_value(recipient, &body) {
        return Err(Error::SlotCheck);
    }
    Ok((recipient, body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::modp::{ExpLen, Modp};
    use crate::group::ristretto::Ristretto;

    fn round_trip<G: Group>(g: &G, width: usize) {
        let body: Vec<u8> = (0..body_bytes(g, width)).map(|i| i as u8).collect();
        let elems = encode(g, width, 42, &body).unwrap();
        assert_eq!(elems.len(), width);
        assert_eq!(decode(g, &elems).unwrap(), (42, body.clone()));
        // The same header with one body byte changed: the check fails.
        let mut bytes = 42u32.to_le_bytes().to_vec();
        bytes.extend_from_slice(&check_value(42, &body));
        let mut changed = body.clone();
        changed[body.len() - 1] ^= 1;
        bytes.extend_from_slice(&changed);
        let forged: Vec<G::Elem> = bytes
            .chunks(g.payload_bytes())
            .map(|c| g.encode_payload(c).unwrap())
            .collect();
        assert!(matches!(decode(g, &forged), Err(Error::SlotCheck)));
    }

    #[test]
    fn messages_round_trip_and_a_changed_body_fails_its_check() {
        round_trip(&Ristretto::new(), 8);
        round_trip(&Ristretto::new(), 1);
        round_trip(&Modp::new(ExpLen::Short), 1);
    }
}
