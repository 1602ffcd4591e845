//! The composed cpSNARK-Set membership proof `membership_hash`: CP_Root, CP_ModEq and
//! CP_HashToPrime glued by one Fiat-Shamir transcript.
//!
//! Statement (A, c_e_q): "c_e_q commits to H2P(x) for some x, and H2P(x) is accumulated in A".
//! Witness (x, r_q, W).

use ark_ec::{pairing::Pairing, CurveGroup};
use ark_serialize::CanonicalSerialize;
use blake2::{Blake2s256, Digest};
use legogroth16::ProofWithLink;
use rand::{CryptoRng, RngCore};
use rug::Integer;

use crate::{
    commitments::{IntegerCommitment, Pedersen},
    hash_to_prime::hash_to_prime,
    modeq::{self, ModEqProof},
    params::{Parameters, Security},
    random,
    root::{self, RootProof, RootStatement, RootWitness},
    rsa_group::{GroupElem, RsaGroup},
    snark::{self, SnarkCrs},
    transcript::ProofTranscript,
    Error,
};

/// Everything prover and verifier share.
pub struct Crs<E: Pairing> {
    /// The security and size parameters every sub-proof follows.
    pub params: Parameters,
    /// The commitment to the prime in the RSA group (CP_Root, CP_ModEq).
    pub integer_commitment: IntegerCommitment,
    /// The commitment to the prime on the curve, which links CP_ModEq to the SNARK.
    pub pedersen: Pedersen<E>,
    /// The hash-to-prime SNARK's keys.
    pub snark: SnarkCrs<E>,
    /// Digest of all of the above, absorbed first into every transcript.
    digest: [u8; 32],
}

impl<E: Pairing> Crs<E> {
    /// [`Crs::setup_with`] the default security setting (128-bit challenges).
    pub fn setup<R: RngCore + CryptoRng>(rng: &mut R) -> Result<Self, Error> {
        Self::setup_with(Security::default(), rng)
    }

    /// Parameters from the curve and the security `setting`, G = 2 and H = G^k, random Pedersen
    /// bases, and the LegoGroth16 setup of the hash-to-prime circuit (the slow part: seconds).
    pub fn setup_with<R: RngCore + CryptoRng>(
        setting: Security,
        rng: &mut R,
    ) -> Result<Self, Error> {
        let params = Parameters::from_curve_with::<E::ScalarField>(setting)?;
        let integer_commitment = IntegerCommitment::setup(RsaGroup::rsa2048(), rng);
        let pedersen = Pedersen::<E>::setup(rng);
        let snark = snark::setup(&params, &pedersen, rng)?;

        let mut h = Blake2s256::new();
        h.update(
            integer_commitment
                .group
                .modulus()
                .to_digits::<u8>(rug::integer::Order::Msf),
        );
        h.update(integer_commitment.g.to_bytes());
        h.update(integer_commitment.h.to_bytes());
        let mut bytes = Vec::new();
        (pedersen.g, pedersen.h)
            .serialize_compressed(&mut bytes)
            .and_then(|_| snark.vk.serialize_compressed(&mut bytes))
            .map_err(|e| Error::Snark(format!("serialising the CRS: {e}")))?;
        h.update(&bytes);
        let digest = h.finalize().into();
        Ok(Crs {
            params,
            integer_commitment,
            pedersen,
            snark,
            digest,
        })
    }

    /// The digest of the CRS every transcript starts from.
    pub fn digest(&self) -> &[u8; 32] {
        &self.digest
    }

    /// The RSA group of the accumulator and the integer commitments.
    pub fn group(&self) -> &RsaGroup {
        &self.integer_commitment.group
    }

    /// c_e_q = g·e + h·r_q for a prime e: how a statement's commitment is formed.
    pub fn commit_prime(&self, e: &Integer, r_q: &E::ScalarField) -> E::G1Affine {
        self.pedersen.commit_int(e, r_q).into_affine()
    }
}

/// Public input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement<E: Pairing> {
    /// The accumulator value A.
    pub acc: GroupElem,
    /// Pedersen commitment to the prime H2P(x).
    pub c_e_q: E::G1Affine,
}

/// Secret input.
#[derive(Clone, Debug)]
pub struct Witness<E: Pairing> {
    /// The raw set element.
    pub x: Integer,
    /// Randomness of c_e_q.
    pub r_q: E::ScalarField,
    /// Membership witness: W^{H2P(x)} = A.
    pub w: GroupElem,
}

/// A membership proof: the integer commitment to the prime and the three sub-proofs over it.
#[derive(Clone, Debug, PartialEq)]
pub struct Proof<E: Pairing> {
    /// c_e = G^e H^r, the prime e committed in the RSA group.
    pub c_e: GroupElem,
    /// CP_Root: e is an exponent under which the accumulator has a known root.
    pub root: RootProof,
    /// CP_ModEq: c_e and the statement's c_e_q hold the same value mod q.
    pub modeq: ModEqProof<E>,
    /// The SNARK: the value in c_e_q is the hash to a prime of an element.
    pub snark: ProofWithLink<E>,
}

impl<E: Pairing> Proof<E> {
    /// Size on the wire: group elements at 256 B, signed integers as sign + magnitude bytes,
    /// curve points compressed.
    pub fn size_bytes(&self) -> usize {
        let elem = |_: &GroupElem| 256usize;
        let int = |x: &Integer| 1 + (x.significant_bits() as usize).div_ceil(8);
        let r = &self.root;
        elem(&self.c_e)
            + [&r.c_w, &r.c_r, &r.alpha1, &r.alpha2, &r.alpha3, &r.alpha4]
                .iter()
                .map(|x| elem(x))
                .sum::<usize>()
            + [&r.s_e, &r.s_r, &r.s_r2, &r.s_r3, &r.s_beta, &r.s_delta]
                .iter()
                .map(|x| int(x))
                .sum::<usize>()
            + elem(&self.modeq.alpha1)
            + self.modeq.alpha2.compressed_size()
            + int(&self.modeq.s_e)
            + int(&self.modeq.s_r)
            + self.modeq.s_r_q.compressed_size()
            + self.snark.compressed_size()
    }
}

/// The transcript prefix both sides build: CRS digest, statement, SNARK proof. Binding the
/// statement and the SNARK proof is our addition (upstream binds neither).
fn start_transcript<E: Pairing>(
    crs: &Crs<E>,
    stmt: &Statement<E>,
    snark_proof: &ProofWithLink<E>,
) -> ProofTranscript {
    let mut t = ProofTranscript::new(b"membership", crs.params.challenge_bits());
    t.domain(b"membership");
    t.append_bytes(b"crs", &crs.digest);
    t.append_elem(b"acc", &stmt.acc);
    t.append_serializable(b"c_e_q", &stmt.c_e_q);
    t.append_serializable(b"snark", snark_proof);
    t
}

/// Prove membership. Refuses (instead of producing a proof that would not verify) when the
/// witness does not open the statement.
pub fn prove<E: Pairing, R: RngCore + CryptoRng>(
    crs: &Crs<E>,
    stmt: &Statement<E>,
    wit: &Witness<E>,
    rng: &mut R,
) -> Result<Proof<E>, Error> {
    let (e, index) = hash_to_prime(&crs.params, &wit.x)?;
    if crs.commit_prime(&e, &wit.r_q) != stmt.c_e_q {
        return Err(Error::InvalidInput(
            "c_e_q is not a commitment to H2P(x) with r_q".into(),
        ));
    }
    if crs.group().exp(&wit.w, &e)? != stmt.acc {
        return Err(Error::NotAMember);
    }
    prove_unchecked(crs, stmt, wit, &e, index, rng)
}

/// The prover's computation without the consistency checks (what a cheating prover would run;
/// tests use it to show the verifier, not the prover, is what rejects).
pub(crate) fn prove_unchecked<E: Pairing, R: RngCore + CryptoRng>(
    crs: &Crs<E>,
    stmt: &Statement<E>,
    wit: &Witness<E>,
    e: &Integer,
    index: u32,
    rng: &mut R,
) -> Result<Proof<E>, Error> {
    let params = &crs.params;
    let ic = &crs.integer_commitment;
    // The SNARK comes first: it does not depend on any challenge, and the challenges must
    // depend on it.
    let snark_proof = snark::prove(&crs.snark, params, &wit.x, index, e, &wit.r_q, rng)?;
    let mut t = start_transcript(crs, stmt, &snark_proof);

    let r = random::below(ic.group.half_modulus(), rng);
    let c_e = ic.commit(e, &r)?;
    t.append_elem(b"c_e", &c_e);

    let root = root::prove(
        params,
        ic,
        RootWitness {
            e,
            r: &r,
            w: &wit.w,
        },
        &mut t,
        rng,
    )?;
    let modeq = modeq::prove(params, ic, &crs.pedersen, e, &r, &wit.r_q, &mut t, rng)?;
    Ok(Proof {
        c_e,
        root,
        modeq,
        snark: snark_proof,
    })
}

/// Verify a membership proof against the statement.
pub fn verify<E: Pairing>(
    crs: &Crs<E>,
    stmt: &Statement<E>,
    proof: &Proof<E>,
) -> Result<(), Error> {
    let mut t = start_transcript(crs, stmt, &proof.snark);
    t.append_elem(b"c_e", &proof.c_e);
    root::verify(
        &crs.params,
        &crs.integer_commitment,
        RootStatement {
            c_e: &proof.c_e,
            acc: &stmt.acc,
        },
        &proof.root,
        &mut t,
    )?;
    modeq::verify(
        &crs.integer_commitment,
        &crs.pedersen,
        &proof.c_e,
        &stmt.c_e_q,
        &proof.modeq,
        &mut t,
    )?;
    snark::verify(&crs.snark, &proof.snark, &stmt.c_e_q)
}
