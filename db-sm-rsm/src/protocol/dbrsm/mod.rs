//! `reverse set membership`, DB-RSM (docs/protocol.md §7, the paper's Figure 9): for every
//! output j, the mixers prove that msgs_out_j is committed in some γ_i, without revealing which.
//! The verifier BBS+-quasi-signs every commitment γ_i; the mixers shuffle the encrypted
//! signatures forward into output order, blind and decrypt them, and prove with
//! [`crate::proofs::dpk_bbsplus`] that each blinded signature unblinds to a BBS+ signature on the
//! output.

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{One, PrimeField, UniformRand, Zero};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use rug::Integer;

use crate::measurement::report::{Party, Totals};
use crate::primitives::bbsplus::{self, QuasiSig, SigningKey};
use crate::primitives::elgamal::{self, Ciphertext};
use crate::primitives::group::{random_nonzero, scalar_to_integer, Generators, Gt};
use crate::primitives::pedersen::commit_gt;
use crate::primitives::sharing::{beaver_finish, beaver_open, TripleShare};
use crate::primitives::thpaillier::ThresholdPublicKey;
use crate::primitives::wire::Ark;
use crate::proofs::dpk_bbsplus::{self, WitnessShares};
use crate::proofs::elgamal_shuffle::{
    self, prove_shuffle, verify_shuffle, ShuffleProof, ShuffleWitness,
};
use crate::proofs::paillier_shuffle::{self, PaillierShuffleProof};
use crate::proofs::perm::Direction;
use crate::proofs::plaintext::{PlaintextPok, PlaintextProof};
use crate::proofs::sigma::{
    pk_enc_blrev_prove, pk_enc_blrev_verify, pkcomm_gt_prove, pkcomm_gt_verify, pkcomm_verify,
    EncBlRevProof, PkcommGtProof,
};
use crate::protocol::config::Config;
use crate::protocol::dbsm::{elgamal_shares, ElGamalShares};
use crate::protocol::inputs::Inputs;
use crate::protocol::membership::{
    check_verfsigs, dpk_nizkverifs, dpk_rounds, get_verfsigs, Labels, Scheme,
};
use crate::protocol::mix::{
    combine_column, paillier_shares, paillier_step_holds, prove_paillier_shuffle, Mixed,
    PaillierShares, PaillierStep,
};
use crate::protocol::setup::{Mixer, Mixers, Public, Verifier};
use crate::protocol::steps::{
    each_mixer, each_mixer_checks_the_others, each_mixer_multiplies_in, each_mixer_private,
    each_mixer_split, mixer_turn, threshold_decryption, try_each_mixer_same,
    try_each_mixer_then_checks_others, verifier_check_section, Decrypted,
};
use crate::protocol::tamper::{Cheater, Tamper};
use crate::storage::{Column, ColumnWriter, CHUNK};
use crate::transport::Ctx;
use crate::{Error, Result};

mod blinding;
mod decryption;
mod dpk;
mod shuffle;
mod verfsigs;

use blinding::generate_encrypted_blinded_signatures;
use decryption::{decryption_of_blinded_signatures, BlindedSigs};
use dpk::dpk_bbsplussig_nizkproofs;
use shuffle::reencrypt_and_permute;
pub(crate) use verfsigs::{BbsPlus, VerfSigs};

/// What the size lines need from DB-RSM.
pub struct RsmOutput {
    /// Bytes of one verifier-uploaded BBS+ quasi-signature (S, c, r̂).
    pub sig_bytes: usize,
    /// Bytes of one entry's DPK_BBS+ proof.
    pub dpk_entry_bytes: usize,
}

/// The three encrypted lists that travel through the mixers: Enc_ElG(S), Enc_th(c), Enc_th(r)
/// (the Paillier lists in the run's store).
#[derive(Clone)]
struct SigLists<E: Pairing> {
    s: Vec<Ciphertext<E>>,
    c: Column<Integer>,
    r: Column<Integer>,
}

crate::wire_struct!(impl[E: Pairing] SigLists<E> { wire s, wire c, wire r });

/// `reverse set membership`: every step of DB-RSM; records each step's status and
/// `status_reverse_set_membership`, the AND of all of them (B2).
pub fn reverse_set_membership<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    verifier: &mut Option<Verifier>,
    inputs: &Inputs<E>,
    mixed: &Mixed<E>,
) -> Result<RsmOutput> {
    c.section("reverse set membership", Totals::MixersAndVerifier, |c| {
        let mut ok = pkcommverifs(c, public, inputs)?;
        let scheme = BbsPlus {
            gammas: &inputs.gammas,
        };
        let vs = get_verfsigs(cfg, c, public, verifier, &scheme)?;
        ok &= check_verfsigs(c, public, mixers, &scheme, &vs)?;
        let (blsigs, blsigs_ok) = get_blsigs_rev(cfg, c, public, mixers, inputs, &vs)?;
        ok &= blsigs_ok;
        // The verifier's signatures are spent: they leave memory before the proof's rounds.
        let (sig_bytes, y) = (vs.sigs[0].size_bytes(), vs.y);
        drop(vs);
        let st = dpk_bbsplus::Statement {
            y: &y,
            msgs: mixed.msgs(),
            s: &blsigs.s,
            c: &blsigs.c,
            r: &blsigs.r,
        };
        let (proof, z1_ok) = dpk_bbsplussig_nizkproofs(cfg, c, &public.gens, mixers, &st)?;
        ok &= z1_ok;
        ok &= dpk_nizkverifs::<E, BbsPlus<E>>(c, 2 * st.s.len(), || {
            dpk_bbsplus::verify(&public.gens, &st, &proof)
        })?;
        c.status("status_reverse_set_membership", ok);
        Ok(RsmOutput {
            sig_bytes,
            dpk_entry_bytes: proof.entry_size_bytes(),
        })
    })
}

/// `pkcommverifs`: the verifier checks the senders' proofs of knowledge of their commitments,
/// each made by its sender in this run, and that no commitment is resubmitted. Records
/// `status_pkcomms`.
fn pkcommverifs<E: Pairing>(c: &mut Ctx, public: &Public<E>, inputs: &Inputs<E>) -> Result<bool> {
    let (gens, n) = (&public.gens, public.n);
    let labels = [
        "pkcommverifs",
        "verifying proof of knowledge of commitment openings",
        "status_pkcomms",
    ];
    verifier_check_section(c, labels, 0, || {
        let distinct = inputs
            .gammas
            .iter()
            .collect::<std::collections::HashSet<_>>()
            .len()
            == n;
        // A store that cannot be read is no verdict: the check fails.
        distinct
            && inputs
                .pkcomm
                .all_chunks(CHUNK, |start, proofs| {
                    proofs.par_iter().enumerate().all(|(j, proof)| {
                        let i = start + j;
                        let ctx = public.context("sender", i, "gamma");
                        pkcomm_verify(gens, &ctx, &inputs.gammas[i], proof).is_ok()
                    })
                })
                .unwrap_or(false)
    })
}

/// `get_blsigs_rev`: the three encrypted lists shuffled into output order, blinded and
/// decrypted. Returns the blinded signatures with the AND of the three steps' statuses.
fn get_blsigs_rev<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    inputs: &Inputs<E>,
    vs: &VerfSigs<E>,
) -> Result<(BlindedSigs<E>, bool)> {
    c.section("get_blsigs_rev", Totals::Mixers, |c| {
        let (lists, a) = reencrypt_and_permute(cfg, c, public, mixers, inputs, vs)?;
        let (blinded, b) = generate_encrypted_blinded_signatures(cfg, c, public, mixers, &lists)?;
        let (sigs, d) = decryption_of_blinded_signatures(cfg, c, public, mixers, &blinded)?;
        Ok((sigs, a && b && d))
    })
}
