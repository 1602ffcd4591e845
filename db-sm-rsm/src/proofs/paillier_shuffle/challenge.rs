//! The sub-proofs' Fiat–Shamir challenges, the same for prover and verifier: the statement's
//! transcript, then b1, b2, z_t and the sub-proof's own first message.

use super::*;

/// A labelled G1 element of a sub-proof's first message.
type Point<'a, E> = (&'static [u8], &'a <E as Pairing>::G1Affine);
/// A labelled integer of a sub-proof's first message.
type Int<'a> = (&'static [u8], &'a Integer);

/// The challenge of a sub-proof: the statement's transcript, then the sub-proof's name and its
/// first message (its G1 elements, then its integers), κ_c bits.
pub(super) fn sub_challenge<E: Pairing>(
    statement: &Transcript,
    bits: u32,
    sub: &[u8],
    points: &[Point<'_, E>],
    ints: &[Int<'_>],
) -> Integer {
    let mut t = statement.clone();
    t.append_bytes(b"sub", sub);
    for (label, p) in points {
        t.append_ark(label, *p);
    }
    for (label, x) in ints {
        t.append_integer(label, x);
    }
    t.challenge_bits(b"chal", bits)
}

/// What both sub-proofs' challenges hash besides their own first message: the statement's
/// transcript, b1, b2 and z_t; `bits`, the challenge's length κ_c.
pub(super) struct Shared<'a, E: Pairing> {
    transcript: &'a Transcript,
    bits: u32,
    b1: &'a E::G1Affine,
    b2: &'a Integer,
    z_t: &'a Integer,
}

impl<'a, E: Pairing> Shared<'a, E> {
    /// The values both sides hash, whoever holds them (the prover's common values or the
    /// verifier's proof): the challenges depend on no prover module.
    pub(super) fn new(
        transcript: &'a Transcript,
        bits: u32,
        b1: &'a E::G1Affine,
        b2: &'a Integer,
        z_t: &'a Integer,
    ) -> Self {
        Shared {
            transcript,
            bits,
            b1,
            b2,
            z_t,
        }
    }
}

impl<E: Pairing> PaillierShuffleProof<E> {
    /// What the verifier's sub-proof challenges share, from the proof and the statement's
    /// transcript.
    pub(super) fn shared<'a>(&'a self, transcript: &'a Transcript, bits: u32) -> Shared<'a, E> {
        Shared::new(transcript, bits, &self.b1, &self.b2, &self.z_t)
    }
}

/// (a)'s challenge, for prover and verifier alike: the shared values, then its first message
/// (Ca, Cb1; z1, Cb2, Cz1, Cz2).
pub(super) fn equal_exponent_challenge<E: Pairing>(
    sh: &Shared<'_, E>,
    [ca, cb1]: [&E::G1Affine; 2],
    [z1, cb2, cz1, cz2]: [&Integer; 4],
) -> Integer {
    sub_challenge::<E>(
        sh.transcript,
        sh.bits,
        b"equal-exponent",
        &[(b"b1", sh.b1), (b"Ca", ca), (b"Cb1", cb1)],
        &[
            (b"b2", sh.b2),
            (b"z_t", sh.z_t),
            (b"z1", z1),
            (b"Cb2", cb2),
            (b"Cz1", cz1),
            (b"Cz2", cz2),
        ],
    )
}

/// (b)'s challenge, for prover and verifier alike: the shared values, c = ∏ c_i^{e_i}, then its
/// first message (Cb1; z1, Cb2c, Cz1, Cz2).
pub(super) fn reencryption_challenge<E: Pairing>(
    sh: &Shared<'_, E>,
    c_e: &Integer,
    cb1: &E::G1Affine,
    [z1, cb2c, cz1, cz2]: [&Integer; 4],
) -> Integer {
    sub_challenge::<E>(
        sh.transcript,
        sh.bits,
        b"re-encryption",
        &[(b"b1", sh.b1), (b"Cb1", cb1)],
        &[
            (b"b2", sh.b2),
            (b"z_t", sh.z_t),
            (b"c", c_e),
            (b"z1", z1),
            (b"Cb2c", cb2c),
            (b"Cz1", cz1),
            (b"Cz2", cz2),
        ],
    )
}
