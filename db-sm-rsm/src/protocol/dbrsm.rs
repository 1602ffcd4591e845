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

/// What the size lines need from DB-RSM.
pub struct RsmOutput {
    /// Bytes of one verifier-uploaded BBS+ quasi-signature (S, c, r̂).
    pub sig_bytes: usize,
    /// Bytes of one entry's DPK_BBS+ proof.
    pub dpk_entry_bytes: usize,
}

/// The verifier's BBS+ quasi-signatures on the γ_i and their encryptions (S under ElGamal, c
/// and r̂ under threshold Paillier), with the randomness revealed (B17 in docs/fixes.md).
#[derive(Clone)]
pub(crate) struct VerfSigs<E: Pairing> {
    pub y: E::G2Affine,
    pub sigs: Vec<QuasiSig<E>>,
    pub s_ct: Vec<Ciphertext<E>>,
    pub s_rho: Vec<E::ScalarField>,
    pub c_ct: Column<Integer>,
    pub c_rand: Column<Integer>,
    pub r_ct: Column<Integer>,
    pub r_rand: Column<Integer>,
}

crate::wire_struct!(impl[E: Pairing] VerfSigs<E> {
    ark y, wire sigs, wire s_ct, ark s_rho, wire c_ct, wire c_rand, wire r_ct, wire r_rand
});

impl<E: Pairing> VerfSigs<E> {
    /// True iff all three encryptions of every signature are what the revealed randomness
    /// gives: the mixers' check that the verifier encrypted what it signed. Reads the Paillier
    /// lists a chunk at a time; false if the store cannot give them back.
    pub(crate) fn encryptions_match(
        &self,
        gens: &Generators<E>,
        eg: &elgamal::PublicKey<E>,
        th: &ThresholdPublicKey,
    ) -> bool {
        let n = self.sigs.len();
        let lengths = [self.s_ct.len(), self.s_rho.len()]
            .into_iter()
            .chain([&self.c_ct, &self.c_rand, &self.r_ct, &self.r_rand].map(Column::len));
        if !lengths.into_iter().all(|l| l == n) {
            return false;
        }
        let (mut c_ct, mut c_rand) = (self.c_ct.chunks(CHUNK), self.c_rand.chunks(CHUNK));
        let (mut r_ct, mut r_rand) = (self.r_ct.chunks(CHUNK), self.r_rand.chunks(CHUNK));
        let mut start = 0;
        while start < n {
            let (Ok(c_ct), Ok(c_rand), Ok(r_ct), Ok(r_rand)) = (
                c_ct.next_in_step(),
                c_rand.next_in_step(),
                r_ct.next_in_step(),
                r_rand.next_in_step(),
            ) else {
                return false;
            };
            let ok = (0..c_ct.len()).into_par_iter().all(|j| {
                let (i, q) = (start + j, &self.sigs[start + j]);
                elgamal::encrypt(gens, eg, &q.s, &self.s_rho[i]) == self.s_ct[i]
                    && th.encrypt_with(&scalar_to_integer(&q.c), &c_rand[j]) == c_ct[j]
                    && th.encrypt_with(&scalar_to_integer(&q.r_hat), &r_rand[j]) == r_ct[j]
            });
            if !ok {
                return false;
            }
            start += c_ct.len();
        }
        true
    }
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

/// One mixer's shuffle of the three lists, with its proofs.
struct ShuffleStep<E: Pairing> {
    s_input: Vec<Ciphertext<E>>,
    s_output: Vec<Ciphertext<E>>,
    s_proof: ShuffleProof<E>,
    c: PaillierStep<E>,
    r: PaillierStep<E>,
}

/// What a mixer posts of its shuffle of the three lists: the lists it output and the proofs
/// (its input is the previous mixer's output).
#[derive(Clone)]
struct ShuffleTurn<E: Pairing> {
    out: SigLists<E>,
    s_proof: ShuffleProof<E>,
    c_proof: PaillierShuffleProof<E>,
    r_proof: PaillierShuffleProof<E>,
}

crate::wire_struct!(impl[E: Pairing] ShuffleTurn<E> {
    wire out, wire s_proof, wire c_proof, wire r_proof
});

/// One mixer's encrypted blinding factors with proofs.
#[derive(Clone)]
struct BlindingStep<E: Pairing> {
    s: Vec<Ciphertext<E>>,
    s_pf: Vec<EncBlRevProof<E>>,
    c: Column<Integer>,
    c_pf: Column<PlaintextProof>,
    r: Column<Integer>,
    r_pf: Column<PlaintextProof>,
}

crate::wire_struct!(impl[E: Pairing] BlindingStep<E> {
    wire s, wire s_pf, wire c, wire c_pf, wire r, wire r_pf
});

/// One entry of a mixer's blinding step: its blinding shares (bS, bc, br), the ElGamal
/// encryption of g1^{bS} with its proof, and the Paillier encryptions of bc′ and br′ with theirs.
struct BlindingEntry<E: Pairing> {
    shares: [E::ScalarField; 3],
    s: Ciphertext<E>,
    s_pf: EncBlRevProof<E>,
    c: (Integer, PlaintextProof),
    r: (Integer, PlaintextProof),
}

/// One mixer's decryption shares of the three blinded lists, with their proofs.
#[derive(Clone)]
struct RsmShares<E: Pairing> {
    s: ElGamalShares<E>,
    c: PaillierShares,
    r: PaillierShares,
}

crate::wire_struct!(impl[E: Pairing] RsmShares<E> { wire s, wire c, wire r });

/// The decrypted blinded signatures (S̃_j, c̃_j, r̃_j), in output order.
struct BlindedSigs<E: Pairing> {
    s: Vec<E::G1Affine>,
    c: Vec<E::ScalarField>,
    r: Vec<E::ScalarField>,
}

/// One mixer's z1 factors and the proofs of knowledge of their openings (in the run's store).
#[derive(Clone)]
struct Z1Shares<E: Pairing> {
    z: Column<Ark<Gt<E>>>,
    proofs: Column<PkcommGtProof<E>>,
}

crate::wire_struct!(impl[E: Pairing] Z1Shares<E> { wire z, wire proofs });

/// A uniform integer in [0, q] (inclusive), for the offsets bc′ = bc + q·U.
fn offset<F: PrimeField>(rng: &mut ChaCha20Rng) -> Integer {
    let q = scalar_to_integer(&-F::one()) + 1u32;
    let bound = Integer::from(&q + 1u32);
    crate::primitives::bigint::random_below(rng, &bound)
}

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
        let st = dpk_bbsplus::Statement {
            y: &vs.y,
            msgs: &mixed.msgs,
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
            sig_bytes: vs.sigs[0].size_bytes(),
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

/// DB-RSM's signature scheme: BBS+ quasi-signatures on the senders' commitments γ_i.
pub(crate) struct BbsPlus<'a, E: Pairing> {
    gammas: &'a [E::G1Affine],
}

impl<E: Pairing> Scheme<E> for BbsPlus<'_, E> {
    type VerfSigs = VerfSigs<E>;

    const LABELS: Labels = Labels {
        get_verfsigs: [
            "get_verfsigs_rev",
            "creating BBS+ signatures and encryptions",
        ],
        check_verfsigs: [
            "check_verfsigs_rev",
            "checking verifier's signatures and encryptions",
            "status_verfsigs_rev",
        ],
        dpk_rounds: [
            "creating dpk_bbsplussig commit message",
            "creating dpk_bbsplussig challenge",
            "creating dpk_bbsplussig response message",
        ],
        dpk_verifs: [
            "dpk_bbsplussig_nizkverifs",
            "verifying dpk_bbsplussig proofs",
            "status_dpk_bbsplussig",
        ],
    };

    /// A quasi-signature (S, c, r̂) on every γ_i under a fresh key, S encrypted under ElGamal, c
    /// and r̂ under threshold Paillier.
    fn sign(&self, cfg: &Config, public: &Public<E>, rng: &mut ChaCha20Rng) -> Result<VerfSigs<E>> {
        let (gens, eg, th, n) = (&public.gens, &public.eg, &public.th, public.n);
        let sk = SigningKey::<E>::generate(gens, rng);
        let mut sigs = bbsplus::sign_commitments(gens, &sk, self.gammas, rng);
        if cfg.cheats(Tamper::VerfSigRev, Cheater::Verifier) {
            sigs[0].s = (sigs[0].s.into_group() + gens.g1.point()).into_affine();
        }
        let s: Vec<E::G1Affine> = sigs.iter().map(|q| q.s).collect();
        let (s_ct, s_rho) = elgamal::encrypt_many(gens, eg, &s, rng);
        let mut c_rand: Vec<Integer> = (0..n).map(|_| th.random_r(rng)).collect();
        let r_rand: Vec<Integer> = (0..n).map(|_| th.random_r(rng)).collect();
        // Each encryption goes to the store as it is made, a chunk at a time.
        let encrypt = |name: &str, part: fn(&QuasiSig<E>) -> &E::ScalarField, rand: &[Integer]| {
            let mut w = ColumnWriter::new(name)?;
            for (chunk, rand) in sigs.chunks(CHUNK).zip(rand.chunks(CHUNK)) {
                let cts: Vec<Integer> = chunk
                    .par_iter()
                    .zip(rand)
                    .map(|(q, x)| th.encrypt_with(&scalar_to_integer(part(q)), x))
                    .collect();
                w.extend(&cts)?;
            }
            w.finish()
        };
        let c_ct = encrypt("verifier c encryptions", |q| &q.c, &c_rand)?;
        if cfg.cheats(Tamper::VerfSigRevEnc, Cheater::Verifier) {
            // The revealed randomness of c's encryption is not the one used.
            c_rand[0] += 1;
        }
        let r_ct = encrypt("verifier r encryptions", |q| &q.r_hat, &r_rand)?;
        let c_rand = Column::from_slice("verifier c randomness", &c_rand)?;
        let r_rand = Column::from_slice("verifier r randomness", &r_rand)?;
        Ok(VerfSigs {
            y: sk.y,
            sigs,
            s_ct,
            s_rho,
            c_ct,
            c_rand,
            r_ct,
            r_rand,
        })
    }

    fn verfsigs_hold(&self, public: &Public<E>, vs: &VerfSigs<E>, rng: &mut ChaCha20Rng) -> bool {
        let (gens, eg, th) = (&public.gens, &public.eg, &public.th);
        bbsplus::batch_verify_commitments(gens, &vs.y, self.gammas, &vs.sigs, rng).is_ok()
            && vs.encryptions_match(gens, eg, th)
    }
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

/// `re-encrypt and permute BBS+ signatures`: every mixer first computes Enc(r̂)·cr = Enc(r̂ + r),
/// the r component of the BBS+ signature on v (identical results, as upstream); then the
/// mixers shuffle the three lists forward in turn, each with an ElGamal and two Paillier shuffle
/// proofs, checked by every other mixer. Records `status_shuffle_blsigs_rev`.
fn reencrypt_and_permute<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    inputs: &Inputs<E>,
    vs: &VerfSigs<E>,
) -> Result<(SigLists<E>, bool)> {
    let th = &public.th;
    c.section(
        "re-encrypt and permute BBS+ signatures",
        Totals::Mixers,
        |c| {
            let label = "homomorphically obtain the r component of BBS+ sig";
            let er = try_each_mixer_same(c, mixers, label, || {
                let mut cr = inputs.cr.chunks(CHUNK);
                vs.r_ct.map_chunks("r components", CHUNK, |_, r_ct| {
                    let cr = cr.next_in_step().unwrap_or_default();
                    r_ct.par_iter()
                        .zip(&cr)
                        .map(|(a, b)| th.add(a, b))
                        .collect()
                })
            })?;
            if er.len() != vs.r_ct.len() {
                return Err(Error::Storage("the r components are short".into()));
            }
            let mut list = SigLists {
                s: vs.s_ct.clone(),
                c: vs.c_ct.clone(),
                r: er,
            };
            let mut steps: Vec<ShuffleStep<E>> = Vec::new();
            let labels = [
                "reencrypting encrypted BBS+ signatures",
                "creating proof of shuffle of encrypted BBS+ signatures",
            ];
            for k in 0..mixers.m() {
                let turn = mixer_turn(c, mixers, k, &labels, |c, mx| {
                    shuffle_three_lists(cfg, c, public, mx, &list)
                })?;
                let step = |input: &Column<Integer>, output, proof| PaillierStep {
                    input: input.clone(),
                    output,
                    proof,
                };
                let next = turn.out.clone();
                steps.push(ShuffleStep {
                    s_input: list.s.clone(),
                    s_output: turn.out.s,
                    s_proof: turn.s_proof,
                    c: step(&list.c, turn.out.c, turn.c_proof),
                    r: step(&list.r, turn.out.r, turn.r_proof),
                });
                list = next;
            }
            let label = "verifying others' proofs of shuffle of encrypted BBS+ signatures";
            let ok = each_mixer_checks_the_others(c, mixers, label, |k| {
                let s = &steps[k];
                let st = public.elgamal_shuffle(k, &s.s_input, &s.s_output);
                verify_shuffle(&st, &s.s_proof).is_ok()
                    && paillier_step_holds(public, k, &s.c)
                    && paillier_step_holds(public, k, &s.r)
            })?;
            c.status("status_shuffle_blsigs_rev", ok);
            Ok((list, ok))
        },
    )
}

/// One mixer's forward shuffle of the three lists, timed as its two leaves.
fn shuffle_three_lists<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mx: &mut Mixer<E>,
    list: &SigLists<E>,
) -> Result<ShuffleTurn<E>> {
    let (gens, eg, th) = (&public.gens, &public.eg, &public.th);
    let label = "reencrypting encrypted BBS+ signatures";
    let total = 3 * list.c.len();
    let k = mx.k;
    let name = |what: &str| format!("{label}: {what} of mixer {k}");
    // Each Paillier list is read, shuffled and written back to the store in turn; only its
    // randomness stays for the proof.
    let (out, rho_s, rho_c, rho_r) =
        c.time_entries(mx.party(), label, total, || -> Result<_> {
            let (mut s, rho_s) = elgamal_shuffle::shuffle(
                gens,
                eg,
                &mx.perm,
                Direction::Forward,
                &list.s,
                &mut mx.rng,
            )?;
            if cfg.cheats(Tamper::ShuffleBbsPlus, mx.cheater()) {
                s[0].c1 = (s[0].c1.into_group() + gens.g1.point()).into_affine();
            }
            let (c, rho_c) = paillier_shuffle::shuffle(th, &mx.perm, &list.c.load()?, &mut mx.rng)?;
            let c = Column::from_slice(&name("c"), &c)?;
            let (rr, rho_r) =
                paillier_shuffle::shuffle(th, &mx.perm, &list.r.load()?, &mut mx.rng)?;
            let rr = Column::from_slice(&name("r"), &rr)?;
            Ok((SigLists { s, c, r: rr }, rho_s, rho_c, rho_r))
        })?;
    let label = "creating proof of shuffle of encrypted BBS+ signatures";
    let (s_proof, c_proof, r_proof) = c.time(mx.party(), label, || -> Result<_> {
        let (perm, s) = (&mx.perm, &mx.s);
        let w = ShuffleWitness {
            perm,
            s,
            rho: &rho_s,
        };
        let st = public.elgamal_shuffle(mx.k, &list.s, &out.s);
        let s_proof = prove_shuffle(&st, &w, &mut mx.rng)?;
        let pc = prove_paillier_shuffle(public, mx, &list.c.load()?, &out.c.load()?, &rho_c)?;
        let pr = prove_paillier_shuffle(public, mx, &list.r.load()?, &out.r.load()?, &rho_r)?;
        Ok((s_proof, pc, pr))
    })?;
    Ok(ShuffleTurn {
        out,
        s_proof,
        c_proof,
        r_proof,
    })
}

/// Mixer k's blinding factors for every output: g1^{bS} under ElGamal with its proof, and
/// bc′ = bc + q·U, br′ = br + q·U′ under threshold Paillier (the offsets hide bc, br inside the
/// plaintexts) with proofs of knowledge bound to the mixer, the entry and the role. Made in
/// parallel, one 32-byte seed per entry; k's shares go to its DB-RSM witness.
fn blinding_factors<E: Pairing>(
    public: &Public<E>,
    mx: &mut Mixer<E>,
) -> Result<(BlindingStep<E>, WitnessShares<E::ScalarField>)> {
    let (gens, eg, th, n) = (&public.gens, &public.eg, &public.th, public.n);
    let q = scalar_to_integer(&-E::ScalarField::one()) + 1u32;
    let seeds: Vec<[u8; 32]> = (0..n).map(|_| mx.rng.gen()).collect();
    let party = mx.party().to_string();
    let entry = |j: usize, seed: [u8; 32]| {
        let rng = &mut ChaCha20Rng::from_seed(seed);
        // bS ≠ 0: a zero total would leave S̃ = S, the verifier's own.
        let bs: E::ScalarField = random_nonzero(rng);
        let bc = E::ScalarField::rand(rng);
        let br = E::ScalarField::rand(rng);
        let rho = E::ScalarField::rand(rng);
        let s = elgamal::encrypt(gens, eg, &gens.g1.mul(&bs).into_affine(), &rho);
        let s_pf = pk_enc_blrev_prove(gens, eg, &s, &rho, &bs, rng);
        let mut pai = |b: &E::ScalarField, role: &str| {
            let plain = scalar_to_integer(b) + &q * offset::<E::ScalarField>(rng);
            let (c, rr) = th.encrypt(&plain, rng);
            let ctx = public.context(&party, j, role);
            let p = th.prove_plaintext(&ctx, &c, &plain, &rr, rng);
            (c, p)
        };
        let c = pai(&bc, "bc");
        let r = pai(&br, "br");
        crate::primitives::counters::tick(1);
        BlindingEntry {
            shares: [bs, bc, br],
            s,
            s_pf,
            c,
            r,
        }
    };
    let name = |what: &str| format!("blinding {what} of mixer {}", mx.k);
    let (mut c, mut c_pf) = (
        ColumnWriter::new(&name("c"))?,
        ColumnWriter::new(&name("c pok"))?,
    );
    let (mut r, mut r_pf) = (
        ColumnWriter::new(&name("r"))?,
        ColumnWriter::new(&name("r pok"))?,
    );
    let (mut s, mut s_pf) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut w = WitnessShares::default();
    for (start, seeds) in (0..n).step_by(CHUNK).zip(seeds.chunks(CHUNK)) {
        let entries: Vec<BlindingEntry<E>> = seeds
            .par_iter()
            .enumerate()
            .map(|(j, seed)| entry(start + j, *seed))
            .collect();
        for e in entries {
            let [bs, bc, br] = e.shares;
            w.bs.push(bs);
            w.bc.push(bc);
            w.br.push(br);
            s.push(e.s);
            s_pf.push(e.s_pf);
            c.push(&e.c.0)?;
            c_pf.push(&e.c.1)?;
            r.push(&e.r.0)?;
            r_pf.push(&e.r.1)?;
        }
    }
    let step = BlindingStep {
        s,
        s_pf,
        c: c.finish()?,
        c_pf: c_pf.finish()?,
        r: r.finish()?,
        r_pf: r_pf.finish()?,
    };
    Ok((step, w))
}

/// True iff mixer k's blinding step verifies: every ElGamal blinding proof, and the Paillier
/// proofs under k's contexts (batched in fast mode).
fn blinding_holds<E: Pairing>(
    cfg: &Config,
    public: &Public<E>,
    k: usize,
    st: &BlindingStep<E>,
) -> bool {
    let (gens, eg, th, n) = (&public.gens, &public.eg, &public.th, public.n);
    let eg_ok = st.s.len() == n
        && st.s_pf.len() == n
        && (0..n)
            .into_par_iter()
            .all(|j| pk_enc_blrev_verify(gens, eg, &st.s[j], &st.s_pf[j]).is_ok());
    let party = Party::Mixer(k).to_string();
    let batched = cfg.mode.batches();
    // A chunk at a time, each chunk one batch in fast mode; false if the store fails.
    let pai_ok = |role: &str, cts: &Column<Integer>, proofs: &Column<PlaintextProof>| {
        let mut proofs = proofs.chunks(CHUNK);
        cts.len() == n
            && cts
                .all_chunks(CHUNK, |start, cts| {
                    let ctxs: Vec<Vec<u8>> = (start..start + cts.len())
                        .map(|i| public.context(&party, i, role))
                        .collect();
                    proofs.next_in_step().is_ok_and(|proofs| {
                        th.verify_plaintexts(batched, &ctxs, &cts, &proofs).is_ok()
                    })
                })
                .unwrap_or(false)
    };
    eg_ok && pai_ok("bc", &st.c, &st.c_pf) && pai_ok("br", &st.r, &st.r_pf)
}

/// `generate encrypted blinded BBS+ signatures`: each mixer's encrypted blinding factors with
/// proofs, checked by every other mixer (`status_pk_blrev`, the AND over every mixer's checks:
/// B1); then the homomorphic aggregation: with one process each mixer's timer multiplies in its
/// own factors (as upstream); a mixer in its own process computes the whole product.
fn generate_encrypted_blinded_signatures<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    lists: &SigLists<E>,
) -> Result<(SigLists<E>, bool)> {
    let th = &public.th;
    c.section(
        "generate encrypted blinded BBS+ signatures",
        Totals::Mixers,
        |c| {
            let labels = [
                "generate encrypted blinding factors and proofs of knowledge of blinding factors",
                "verifying others' proofs of knowledge of blinding factors",
            ];
            let make = |mx: &mut Mixer<E>| -> Result<_> {
                let (mut step, w) = blinding_factors(public, mx)?;
                if cfg.cheats(Tamper::BlindingRev, mx.cheater()) {
                    step.s_pf[0].z1 += E::ScalarField::one();
                }
                Ok((step, w))
            };
            // The encrypted factors are posted; each mixer keeps its shares as its witness.
            let (steps, witnesses) = each_mixer_split(c, mixers, labels[0], public.n, make)?;
            for (k, w) in witnesses.into_iter().enumerate() {
                if let (Some(w), Some(mx)) = (w, mixers.get_mut(k)) {
                    mx.w_rsm = w;
                }
            }
            let ok = each_mixer_checks_the_others(c, mixers, labels[1], |k| {
                blinding_holds(cfg, public, k, &steps[k])
            })?;
            c.status("status_pk_blrev", ok);
            let mut acc_s: Vec<(E::G1, E::G1)> = lists
                .s
                .iter()
                .map(|c| (c.c0.into_group(), c.c1.into_group()))
                .collect();
            let mut acc_c = lists.c.load()?;
            let mut acc_r = lists.r.load()?;
            // Every mixer's factors, a chunk at a time from the store (the first failure kept).
            let mut failed = None;
            let multiply_in = |k: usize| {
                let st = &steps[k];
                acc_s.par_iter_mut().zip(&st.s).for_each(|(a, c)| {
                    a.0 += c.c0;
                    a.1 += c.c1;
                });
                for (acc, factors) in [(&mut acc_c, &st.c), (&mut acc_r, &st.r)] {
                    let read = factors.try_for_each_chunk(CHUNK, |start, chunk| {
                        acc[start..start + chunk.len()]
                            .par_iter_mut()
                            .zip(&chunk)
                            .for_each(|(a, c)| *a = th.add(a, c));
                        Ok(())
                    });
                    if let Err(e) = read {
                        failed.get_or_insert(e);
                    }
                }
            };
            let label = "generate encrypted blinded BBS+ signatures";
            each_mixer_multiplies_in(c, mixers, label, 0, multiply_in, |_| ())?;
            if let Some(e) = failed {
                return Err(e);
            }
            let blinded = SigLists {
                s: elgamal::normalize(&acc_s),
                c: Column::from_slice("blinded c", &acc_c)?,
                r: Column::from_slice("blinded r", &acc_r)?,
            };
            Ok((blinded, ok))
        },
    )
}

/// Mixer k's decryption shares of the three blinded lists, with proofs (the tamper changes one
/// ElGamal share).
fn rsm_shares<E: Pairing>(
    cfg: &Config,
    public: &Public<E>,
    mx: &mut Mixer<E>,
    blinded: &SigLists<E>,
) -> Result<RsmShares<E>> {
    let cheat = cfg.cheats(Tamper::DecShareBbsPlus, mx.cheater());
    let s = elgamal_shares(&public.gens, &public.eg, mx, &blinded.s, cheat)?;
    let c = paillier_shares(&public.th, mx, &blinded.c.load()?, false)?;
    let r = paillier_shares(&public.th, mx, &blinded.r.load()?, false)?;
    Ok(RsmShares { s, c, r })
}

/// True iff mixer k's decryption shares of the three lists verify (the ElGamal ones against
/// verification keys that must combine to Y).
fn rsm_shares_hold<E: Pairing>(
    th: &ThresholdPublicKey,
    public: &Public<E>,
    k: usize,
    blinded: &SigLists<E>,
    sh: &RsmShares<E>,
) -> bool {
    let (gens, eg) = (&public.gens, &public.eg);
    let (Ok(c), Ok(r)) = (blinded.c.load(), blinded.r.load()) else {
        return false;
    };
    eg.check().is_ok()
        && elgamal::verify_shares(gens, &eg.vks[k], &blinded.s, &sh.s.shares, &sh.s.proof).is_ok()
        && sh.c.hold(th, k, &c)
        && sh.r.hold(th, k, &r)
}

/// Every mixer's combination of all mixers' decryption shares of the three lists.
#[allow(clippy::type_complexity)]
fn rsm_combine<E: Pairing>(
    th: &ThresholdPublicKey,
    blinded: &SigLists<E>,
    shares: &[RsmShares<E>],
) -> Result<(
    Ark<Vec<E::G1Affine>>,
    Decrypted<E::ScalarField>,
    Decrypted<E::ScalarField>,
)> {
    let ds: Vec<&[E::G1Affine]> = shares.iter().map(|s| &s.s.shares[..]).collect();
    let dc: Vec<PaillierShares> = shares.iter().map(|s| s.c.clone()).collect();
    let dr: Vec<PaillierShares> = shares.iter().map(|s| s.r.clone()).collect();
    Ok((
        Ark(elgamal::combine_many(&blinded.s, &ds)?),
        combine_column::<E>(th, &dc)?,
        combine_column::<E>(th, &dr)?,
    ))
}

/// `decryption of blinded BBS+ signatures`: threshold decryption of the three blinded lists,
/// every share proof checked by every other mixer, then combined by every mixer. Records
/// `status_decshares_blsigs_rev`, False also when a combination fails.
fn decryption_of_blinded_signatures<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    blinded: &SigLists<E>,
) -> Result<(BlindedSigs<E>, bool)> {
    let th = &public.th;
    c.section(
        "decryption of blinded BBS+ signatures",
        Totals::Mixers,
        |c| {
            let labels = [
                "obtain decryption shares",
                "verifying others' decryption shares",
                "combining decryption shares",
            ];
            let ((s, cc, rr), ok) = threshold_decryption(
                c,
                mixers,
                labels,
                3 * blinded.c.len(),
                |mx| rsm_shares(cfg, public, mx, blinded),
                |k, sh| rsm_shares_hold(th, public, k, blinded, sh),
                |shares| rsm_combine(th, blinded, shares),
            )?;
            let ([cc, rr], ok) =
                Decrypted::with_status(c, "status_decshares_blsigs_rev", ok, [cc, rr]);
            Ok((
                BlindedSigs {
                    s: s.0,
                    c: cc,
                    r: rr,
                },
                ok,
            ))
        },
    )
}

/// `creating additive shares for delta0`: each mixer draws its shares of δ0 (secret).
fn delta0_shares<E: Pairing>(c: &mut Ctx, mixers: &mut Mixers<E>) -> Result<()> {
    let made = each_mixer_private(c, mixers, "creating additive shares for delta0", 0, |mx| {
        let n = mx.w_rsm.bs.len();
        Ark((0..n)
            .map(|_| E::ScalarField::rand(&mut mx.rng))
            .collect::<Vec<_>>())
    })?;
    for (k, d0) in made.into_iter().enumerate() {
        if let (Some(d0), Some(mx)) = (d0, mixers.get_mut(k)) {
            mx.w_rsm.d0 = d0.0;
        }
    }
    Ok(())
}

/// Which Beaver product a mixer computes: δ1 = bS·bc or δ2 = δ0·bc.
#[derive(Clone, Copy)]
enum Delta {
    D1,
    D2,
}

impl Delta {
    fn labels(self) -> [&'static str; 2] {
        match self {
            Delta::D1 => [
                "creating multiplicative shares for delta1 step 1",
                "creating multiplicative shares for delta1 step 2",
            ],
            Delta::D2 => [
                "creating multiplicative shares for delta2 step 1",
                "creating multiplicative shares for delta2 step 2",
            ],
        }
    }

    /// The mixer's share of the left factor, and its triples for this product.
    fn operands<E: Pairing>(
        self,
        mx: &Mixer<E>,
    ) -> (&[E::ScalarField], &[TripleShare<E::ScalarField>]) {
        match self {
            Delta::D1 => (&mx.w_rsm.bs, &mx.triples_d1),
            Delta::D2 => (&mx.w_rsm.d0, &mx.triples_d2),
        }
    }
}

/// `creating multiplicative shares for deltaX step 1/2`: Beaver multiplication of the shared
/// left factor by the shared bc on the dealer's triples: every mixer opens its masked shares
/// (step 1, public), then computes its share of the product from the sums (step 2, secret).
fn beaver_product<E: Pairing>(c: &mut Ctx, mixers: &mut Mixers<E>, delta: Delta) -> Result<()> {
    let [step1, step2] = delta.labels();
    let opened = each_mixer(c, mixers, step1, |mx| {
        let (x, triples) = delta.operands(mx);
        Ark((0..x.len())
            .map(|j| beaver_open(&x[j], &mx.w_rsm.bc[j], &triples[j]))
            .collect::<Vec<(E::ScalarField, E::ScalarField)>>())
    })?;
    let made = each_mixer_private(c, mixers, step2, 0, |mx| {
        let (_, triples) = delta.operands(mx);
        Ark((0..triples.len())
            .map(|j| {
                let d: E::ScalarField = opened.iter().map(|o| o.0[j].0).sum();
                let e: E::ScalarField = opened.iter().map(|o| o.0[j].1).sum();
                beaver_finish(mx.k, &d, &e, &triples[j])
            })
            .collect::<Vec<E::ScalarField>>())
    })?;
    for (k, z) in made.into_iter().enumerate() {
        if let (Some(z), Some(mx)) = (z, mixers.get_mut(k)) {
            match delta {
                Delta::D1 => mx.w_rsm.d1 = z.0,
                Delta::D2 => mx.w_rsm.d2 = z.0,
            }
        }
    }
    Ok(())
}

/// `computing shares of z1 and proof of knowledge of their openings`: z1 = genh2^{bS}·genh3^{δ0}
/// shared multiplicatively: each mixer publishes its factor with a proof of knowledge of its
/// opening (made in parallel, one 32-byte seed per entry); every other mixer checks them.
/// Records `status_pk_z1`.
fn z1_shares<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    gens: &Generators<E>,
    mixers: &mut Mixers<E>,
    n: usize,
) -> Result<(Vec<Z1Shares<E>>, bool)> {
    let labels = [
        "computing shares of z1 and proof of knowledge of their openings",
        "verifying others' proof of knowledge of openings of shares of z1",
    ];
    let make = |mx: &mut Mixer<E>| -> Result<Z1Shares<E>> {
        let w = &mx.w_rsm;
        let seeds: Vec<[u8; 32]> = (0..w.bs.len()).map(|_| mx.rng.gen()).collect();
        let name = |what: &str| format!("z1 {what} of mixer {}", mx.k);
        let mut zs = ColumnWriter::new(&name("shares"))?;
        let mut proofs = ColumnWriter::new(&name("proofs"))?;
        for (start, seeds) in (0..seeds.len()).step_by(CHUNK).zip(seeds.chunks(CHUNK)) {
            let (z, mut pf): (Vec<_>, Vec<_>) = seeds
                .par_iter()
                .enumerate()
                .map(|(i, seed)| {
                    let j = start + i;
                    let z = commit_gt(gens, &w.bs[j], &w.d0[j]);
                    let rng = &mut ChaCha20Rng::from_seed(*seed);
                    let pf = pkcomm_gt_prove(gens, &z, &w.bs[j], &w.d0[j], rng);
                    crate::primitives::counters::tick(1);
                    (Ark(z), pf)
                })
                .unzip();
            if start == 0 && cfg.cheats(Tamper::PkZ1, mx.cheater()) {
                pf[0].z1 += E::ScalarField::one();
            }
            zs.extend(&z)?;
            proofs.extend(&pf)?;
        }
        Ok(Z1Shares {
            z: zs.finish()?,
            proofs: proofs.finish()?,
        })
    };
    // Each chunk of shares checked as it is read; false if the store fails.
    let holds = |_: usize, s: &Z1Shares<E>| {
        let mut proofs = s.proofs.chunks(CHUNK);
        s.z.all_chunks(CHUNK, |_, z| {
            proofs.next_in_step().is_ok_and(|pf| {
                z.len() == pf.len()
                    && (0..z.len())
                        .into_par_iter()
                        .all(|j| pkcomm_gt_verify(gens, &z[j].0, &pf[j]).is_ok())
            })
        })
        .unwrap_or(false)
    };
    let (shares, ok) = try_each_mixer_then_checks_others(c, mixers, labels, n, make, holds)?;
    c.status("status_pk_z1", ok);
    Ok((shares, ok))
}

/// `dpk_bbsplussig_nizkproofs`: the witness shares (δ0, then δ1 and δ2 by Beaver
/// multiplication), the shared z1, the per-entry generators, and the three rounds of the
/// distributed proof. Returns the proof and `status_pk_z1`.
fn dpk_bbsplussig_nizkproofs<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    gens: &Generators<E>,
    mixers: &mut Mixers<E>,
    st: &dpk_bbsplus::Statement<E>,
) -> Result<(dpk_bbsplus::Proof<E>, bool)> {
    let n = st.s.len();
    c.section("dpk_bbsplussig_nizkproofs", Totals::Mixers, |c| {
        delta0_shares(c, mixers)?;
        beaver_product(c, mixers, Delta::D1)?;
        beaver_product(c, mixers, Delta::D2)?;
        let (z1s, ok) = z1_shares(cfg, c, gens, mixers, n)?;
        // Every mixer derives the per-entry generators itself; the running product z1 takes
        // one factor per mixer (as upstream, in this timer; a mixer in its own process takes
        // them all).
        let mut z1 = vec![Gt::<E>::zero(); n];
        let mut failed = None;
        let multiply_in = |k: usize| {
            let read = z1s[k].z.try_for_each_chunk(CHUNK, |start, chunk| {
                z1[start..start + chunk.len()]
                    .par_iter_mut()
                    .zip(&chunk)
                    .for_each(|(a, b)| *a += b.0);
                Ok(())
            });
            if let Err(e) = read {
                failed.get_or_insert(e);
            }
        };
        let label = "computing generators";
        // Every mixer derives the generators (as upstream); they are the same, so the first
        // copy is kept.
        let mut kept = false;
        let derived = each_mixer_multiplies_in(c, mixers, label, n, multiply_in, |_| {
            let d = dpk_bbsplus::derive(gens, st);
            (!std::mem::replace(&mut kept, true)).then_some(d)
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        let derived = derived.into_iter().flatten().flatten().next();
        let (ch, z) = dpk_rounds::<E, BbsPlus<E>, _, _, _>(
            c,
            mixers,
            n,
            |mx| {
                let d = derived.as_ref().expect("a hosted mixer derived them");
                dpk_bbsplus::commit_share(gens, d, &z1, &mut mx.rng)
            },
            |acc| dpk_bbsplus::challenges(gens, st, &z1, acc),
            |mx, nonces, ch| {
                let mut z = dpk_bbsplus::respond(nonces, &mx.w_rsm, ch);
                if cfg.cheats(Tamper::DpkBbsPlus, mx.cheater()) {
                    z.d2[0] += E::ScalarField::one();
                }
                z
            },
        )?;
        Ok((dpk_bbsplus::Proof { z1, ch, z }, ok))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::group::Generators;
    use crate::primitives::pedersen::commit_g1;
    use crate::primitives::thpaillier::ThresholdKey;
    use rand::SeedableRng;

    /// The mixers' check of the verifier's encryptions catches each of the three components.
    #[test]
    fn encryption_check_rejects_each_component() {
        type E = ark_bn254::Bn254;
        type F = ark_bn254::Fr;
        let mut rng = ChaCha20Rng::seed_from_u64(32);
        let gens = Generators::<E>::new(&mut rng);
        let (eg, _) = elgamal::keygen(&gens, 2, &mut rng).unwrap();
        let th = ThresholdKey::fixed_small_test_key(&mut rng, 2).pk;
        let sk = SigningKey::<E>::generate(&gens, &mut rng);
        let gammas: Vec<_> = (0..3)
            .map(|_| commit_g1(&gens, &F::rand(&mut rng), &F::rand(&mut rng)).into_affine())
            .collect();
        let sigs = bbsplus::sign_commitments(&gens, &sk, &gammas, &mut rng);
        let s: Vec<_> = sigs.iter().map(|q| q.s).collect();
        let (s_ct, s_rho) = elgamal::encrypt_many(&gens, &eg, &s, &mut rng);
        let enc = |x: &F, rng: &mut ChaCha20Rng| th.encrypt(&scalar_to_integer(x), rng);
        let (c_ct, c_rand): (Vec<_>, Vec<_>) = sigs.iter().map(|q| enc(&q.c, &mut rng)).unzip();
        let (r_ct, r_rand): (Vec<_>, Vec<_>) = sigs.iter().map(|q| enc(&q.r_hat, &mut rng)).unzip();
        let col = |v: &[Integer]| Column::from_slice("test", v).unwrap();
        let vs = VerfSigs {
            y: sk.y,
            sigs,
            s_ct,
            s_rho,
            c_ct: col(&c_ct),
            c_rand: col(&c_rand),
            r_ct: col(&r_ct),
            r_rand: col(&r_rand),
        };
        assert!(vs.encryptions_match(&gens, &eg, &th));
        // A copy of a stored list with one change.
        let edit = |c: &mut Column<Integer>, f: &dyn Fn(&mut Vec<Integer>)| {
            let mut v = c.load().unwrap();
            f(&mut v);
            *c = col(&v);
        };
        let changed = |f: &dyn Fn(&mut VerfSigs<E>)| {
            let mut v = vs.clone();
            f(&mut v);
            v.encryptions_match(&gens, &eg, &th)
        };
        assert!(!changed(&|v| v.s_rho[1] += F::one()), "S");
        assert!(!changed(&|v| edit(&mut v.c_rand, &|x| x[2] += 1)), "c");
        assert!(!changed(&|v| edit(&mut v.r_rand, &|x| x[0] += 1)), "r");
        assert!(!changed(&|v| v.sigs[0].c += F::one()), "signature's c");
        assert!(
            !changed(&|v| edit(&mut v.r_ct, &|x| {
                x.pop();
            })),
            "length"
        );
    }
}
