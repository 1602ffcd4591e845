//! `forward set membership`, DB-SM (docs/protocol.md §6, the paper's Figure 8): for every input
//! i, the mixers prove that γ_i commits to a value in the published output list, without
//! revealing which. The verifier BB-signs every output; the mixers shuffle the encrypted
//! signatures back into input order, blind them, decrypt, and prove with
//! [`crate::proofs::dpk_bb`] that each blinded signature unblinds to a signature on γ_i's value.

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{One, UniformRand};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

use crate::measurement::report::{Party, Totals};
use crate::primitives::bbsig::{self, SigningKey};
use crate::primitives::elgamal::{self, Ciphertext};
use crate::primitives::group::{random_nonzero, Generators};
use crate::primitives::wire::Ark;
use crate::proofs::dpk_bb;
use crate::proofs::elgamal_shuffle::{
    prove_shuffle, reverse_witness, shuffle, verify_shuffle, ShuffleProof, ShuffleWitness,
};
use crate::proofs::perm::Direction;
use crate::proofs::sigma::{pk_enc_bl_prove, pk_enc_bl_verify, EncBlProof};
use crate::protocol::config::Config;
use crate::protocol::inputs::Inputs;
use crate::protocol::journaled::journaled;
use crate::protocol::membership::{
    check_verfsigs, dpk_nizkverifs, dpk_rounds, get_verfsigs, Labels, Scheme,
};
use crate::protocol::mix::Mixed;
use crate::protocol::setup::{Mixer, Mixers, Public, Verifier};
use crate::protocol::steps::{
    each_mixer_checks_the_others, each_mixer_multiplies_in, mixer_turn, threshold_decryption,
};
use crate::protocol::tamper::{Cheater, Tamper};
use crate::transport::Ctx;
use crate::Result;

/// What the size lines need from DB-SM.
pub struct SmOutput {
    /// Bytes of one verifier-uploaded BB signature.
    pub sig_bytes: usize,
    /// Bytes of one entry's DPK_BB proof.
    pub dpk_entry_bytes: usize,
}

/// The verifier's BB signatures on the outputs and their ElGamal encryptions, with the
/// encryption randomness revealed (B17 in docs/fixes.md).
#[derive(Clone)]
pub(crate) struct VerifierSigs<E: Pairing> {
    /// The verification key y = f2^{x′}.
    y: E::G2Affine,
    sigs: Vec<E::G1Affine>,
    cts: Vec<Ciphertext<E>>,
    rho: Vec<E::ScalarField>,
}

crate::wire_struct!(impl[E: Pairing] VerifierSigs<E> { ark y, ark sigs, wire cts, ark rho });

/// One mixer's re-encrypt-and-reverse-permute step, with its proof.
struct ReverseStep<E: Pairing> {
    /// The list it received (in mixer k+1's order).
    old: Vec<Ciphertext<E>>,
    /// The list it published.
    new: Vec<Ciphertext<E>>,
    proof: ShuffleProof<E>,
}

/// One mixer's blinding of every signature ciphertext, with its proofs of knowledge.
#[derive(Clone)]
struct Blinding<E: Pairing> {
    cts: Vec<Ciphertext<E>>,
    proofs: Vec<EncBlProof<E>>,
}

crate::wire_struct!(impl[E: Pairing] Blinding<E> { wire cts, wire proofs });

/// One mixer's ElGamal decryption shares of a list, with their batched proof.
#[derive(Clone)]
pub(crate) struct ElGamalShares<E: Pairing> {
    pub shares: Vec<E::G1Affine>,
    pub proof: elgamal::SharesProof<E>,
}

crate::wire_struct!(impl[E: Pairing] ElGamalShares<E> { ark shares, wire proof });

impl<E: Pairing> ElGamalShares<E> {
    /// Every mixer's share list (`columns[k][i]`), borrowed.
    pub(crate) fn columns(shares: &[ElGamalShares<E>]) -> Vec<&[E::G1Affine]> {
        shares.iter().map(|s| &s.shares[..]).collect()
    }
}

/// `forward set membership`: every step of DB-SM; records each step's status and
/// `status_forward_set_membership`, the AND of all of them (B2).
pub fn forward_set_membership<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    verifier: &mut Option<Verifier>,
    inputs: &Inputs<E>,
    mixed: &Mixed<E>,
) -> Result<SmOutput> {
    c.section("forward set membership", Totals::MixersAndVerifier, |c| {
        let scheme = Bb { msgs: mixed.msgs() };
        let vs = get_verfsigs(cfg, c, public, verifier, &scheme)?;
        let mut ok = check_verfsigs(c, public, mixers, &scheme, &vs)?;
        let (sigmas, blsigs_ok) = get_blsigs(cfg, c, public, mixers, &vs.cts)?;
        ok &= blsigs_ok;
        let st = dpk_bb::Statement {
            y: &vs.y,
            gammas: &inputs.gammas,
            sigmas: &sigmas,
        };
        let proof = dpk_bbsig_nizkproofs(cfg, c, &public.gens, mixers, &st)?;
        ok &= dpk_nizkverifs::<E, Bb<E>>(c, st.gammas.len(), || {
            dpk_bb::verify(&public.gens, &st, &proof)
        })?;
        c.status("status_forward_set_membership", ok);
        Ok(SmOutput {
            sig_bytes: bbsig::signature_size::<E>(),
            dpk_entry_bytes: proof.entry_size_bytes(),
        })
    })
}

/// DB-SM's signature scheme: BB signatures on the outputs msgs_out_j.
pub(crate) struct Bb<'a, E: Pairing> {
    msgs: &'a [E::ScalarField],
}

impl<E: Pairing> Scheme<E> for Bb<'_, E> {
    type VerfSigs = VerifierSigs<E>;

    const LABELS: Labels = Labels {
        get_verfsigs: ["get_verfsigs", "creating BB signatures and encryptions"],
        check_verfsigs: [
            "check_verfsigs",
            "checking verifier's signatures and encryptions",
            "status_verfsigs",
        ],
        dpk_rounds: [
            "creating dpk_bbsig commit message",
            "creating dpk_bbsig challenge",
            "creating dpk_bbsig response message",
        ],
        dpk_verifs: [
            "dpk_bbsig_nizkverifs",
            "verifying dpk_bbsig proof",
            "status_dpk_bbsig",
        ],
    };

    /// σ_j = g1^{1/(msg_j+x′)} under a fresh key x′, each encrypted under ElGamal.
    fn sign(
        &self,
        cfg: &Config,
        public: &Public<E>,
        rng: &mut ChaCha20Rng,
    ) -> Result<VerifierSigs<E>> {
        let (gens, eg) = (&public.gens, &public.eg);
        let sk = SigningKey::<E>::generate(gens, rng);
        let mut sigs = bbsig::sign_many(gens, &sk, self.msgs)?;
        if cfg.cheats(Tamper::VerfSig, Cheater::Verifier) {
            sigs[0] = (sigs[0].into_group() + gens.g1.point()).into_affine();
        }
        let (cts, mut rho) = elgamal::encrypt_many(gens, eg, &sigs, rng);
        if cfg.cheats(Tamper::VerfSigEnc, Cheater::Verifier) {
            // The revealed randomness is not the one used.
            rho[0] += E::ScalarField::one();
        }
        Ok(VerifierSigs {
            y: sk.y,
            sigs,
            cts,
            rho,
        })
    }

    fn verfsigs_hold(
        &self,
        public: &Public<E>,
        vs: &VerifierSigs<E>,
        rng: &mut ChaCha20Rng,
    ) -> bool {
        let (gens, eg) = (&public.gens, &public.eg);
        bbsig::batch_verify(gens, &vs.y, self.msgs, &vs.sigs, rng).is_ok()
            && encryptions_match(gens, eg, &vs.sigs, &vs.rho, &vs.cts)
    }
}

/// `get_blsigs`: the signatures back in input order, blinded and decrypted: σ̃_i = σ^{b_i} with
/// b_i = Σ_k b_{i,k}. Returns them with the AND of the three steps' statuses.
fn get_blsigs<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    cts: &[Ciphertext<E>],
) -> Result<(Vec<E::G1Affine>, bool)> {
    c.section("get_blsigs", Totals::Mixers, |c| {
        let (list, a) = reencrypt_and_reverse_permute(cfg, c, public, mixers, cts)?;
        let (blinded, b) = generate_encrypted_blinded_signatures(cfg, c, public, mixers, &list)?;
        let (sigmas, d) = decrypt_blinded_signatures(cfg, c, public, mixers, &blinded)?;
        Ok((sigmas, a && b && d))
    })
}

/// `re-encrypt and reverse-permute BB signatures`: mixers m−1..0 re-encrypt and apply π_k⁻¹, so
/// the list returns to input order; each proves its step with the TW shuffle proof, roles
/// swapped, which lets it reuse permcomm_k for the inverse permutation. Records
/// `status_shuffle_blsigs`.
fn reencrypt_and_reverse_permute<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    cts: &[Ciphertext<E>],
) -> Result<(Vec<Ciphertext<E>>, bool)> {
    let (gens, eg) = (&public.gens, &public.eg);
    let label = "re-encrypt and reverse-permute BB signatures";
    c.section(label, Totals::Mixers, |c| {
        let mut list = cts.to_vec();
        let mut steps: Vec<Option<ReverseStep<E>>> = (0..mixers.m()).map(|_| None).collect();
        let labels = [
            "reencrypting encrypted BB signatures",
            "creating proof of shuffle of encrypted BB signatures",
        ];
        for k in (0..mixers.m()).rev() {
            let (new, proof): (Vec<Ciphertext<E>>, ShuffleProof<E>) =
                mixer_turn(c, mixers, k, &labels, |c, mx| {
                    let (mut new, rho) =
                        c.time_entries(mx.party(), labels[0], list.len(), || {
                            shuffle(gens, eg, &mx.perm, Direction::Reverse, &list, &mut mx.rng)
                        })?;
                    if cfg.cheats(Tamper::ShuffleBb, mx.cheater()) {
                        new[0].c1 = (new[0].c1.into_group() + gens.g1.point()).into_affine();
                    }
                    let proof = c.time(mx.party(), labels[1], || -> Result<_> {
                        let rho = reverse_witness::<E>(&mx.perm, &rho)?;
                        let (perm, s) = (&mx.perm, &mx.s);
                        let w = ShuffleWitness { perm, s, rho: &rho };
                        prove_shuffle(&public.elgamal_shuffle(mx.k, &new, &list), &w, &mut mx.rng)
                    })?;
                    Ok((new, proof))
                })?;
            let old = std::mem::replace(&mut list, new.clone());
            steps[k] = Some(ReverseStep { old, new, proof });
        }
        let label = "verifying others' proofs of shuffle of encrypted BB signatures";
        let ok = each_mixer_checks_the_others(c, mixers, label, |k| {
            let s = steps[k].as_ref().expect("every mixer made its step");
            verify_shuffle(&public.elgamal_shuffle(k, &s.new, &s.old), &s.proof).is_ok()
        })?;
        c.status("status_shuffle_blsigs", ok);
        Ok((list, ok))
    })
}

/// Mixer k's blinding of every signature ciphertext c_i: `Reenc(c_i^{b_{i,k}}; ρ)` with a proof
/// of knowledge of b and ρ per entry, made in parallel from one 32-byte seed per entry.
fn blind<E: Pairing>(
    public: &Public<E>,
    mx: &mut Mixer<E>,
    list: &[Ciphertext<E>],
    draws: &[(E::ScalarField, E::ScalarField)],
) -> Blinding<E> {
    let (gens, eg) = (&public.gens, &public.eg);
    let seeds: Vec<[u8; 32]> = (0..list.len())
        .map(|_| rand::Rng::gen(&mut mx.rng))
        .collect();
    let (cts, proofs) = (0..list.len())
        .into_par_iter()
        .map(|i| {
            let (b, rho) = draws[i];
            let c = &list[i];
            let ct = elgamal::reencrypt(gens, eg, &elgamal::exp(c, &b), &rho);
            let mut prng = ChaCha20Rng::from_seed(seeds[i]);
            let pf = pk_enc_bl_prove(gens, eg, c, &ct, &rho, &b, &mut prng);
            crate::primitives::counters::tick(1);
            (ct, pf)
        })
        .unzip();
    Blinding { cts, proofs }
}

/// The tag of mixer k's blinding shares handed to the colluding last mixer (`zero-blinding`).
fn collusion_tag(k: usize) -> String {
    format!("collusion/blinding shares/mixer {k}")
}

/// `generate encrypted blinded BB signatures`: each mixer blinds every signature ciphertext with
/// its own b_{i,k} ≠ 0 and proves knowledge of the blinding; the others check the proofs
/// (`status_pk_bl`, the AND over every mixer's checks: B1); the homomorphic product of all
/// mixers' factors encrypts σ^b.
fn generate_encrypted_blinded_signatures<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    list: &[Ciphertext<E>],
) -> Result<(Vec<Ciphertext<E>>, bool)> {
    let (gens, eg, n) = (&public.gens, &public.eg, public.n);
    let labels = [
        "generate encrypted blinded BB signatures and proofs of knowledge of blinding factors",
        "verifying others' proofs of knowledge of blinding factors",
    ];
    c.section(
        "generate encrypted blinded BB signatures",
        Totals::Mixers,
        |c| {
            // The colluding mixers of `zero-blinding` hand their shares to the last one, which
            // makes them cancel: through the in-process list or the board.
            let colluders = (cfg.tamper == Some(Tamper::ZeroBlinding)).then(|| {
                (0..mixers.m())
                    .filter(|k| !cfg.cheats(Tamper::ZeroBlinding, Cheater::Mixer(*k)))
                    .collect::<Vec<usize>>()
            });
            let mut made: Vec<Option<Blinding<E>>> = vec![None; mixers.m()];
            for (k, slot) in made.iter_mut().enumerate() {
                let Some(mx) = mixers.get_mut(k) else {
                    continue;
                };
                let cheat = cfg.cheats(Tamper::ZeroBlinding, mx.cheater());
                let others: Vec<Vec<E::ScalarField>> = match (&colluders, cheat) {
                    (Some(ks), true) => ks
                        .iter()
                        .map(|j| c.fetch::<Ark<Vec<E::ScalarField>>>(&collusion_tag(*j)))
                        .map(|r| r.map(|a| a.0))
                        .collect::<Result<_>>()?,
                    _ => Vec::new(),
                };
                // The factors are posted; the mixer keeps its blinding shares (its witness).
                let (step, b) = journaled(c, Some(mx.party()), labels[0], mx, |c, mx| {
                    let step = c.time_entries(mx.party(), labels[0], n, || {
                        blinding_step(cfg, public, mx, list, &others)
                    });
                    Ok((step, Ark(mx.b_sm.clone())))
                })?;
                mx.b_sm = b.0;
                if colluders.as_ref().is_some_and(|ks| ks.contains(&k)) {
                    c.publish(&collusion_tag(k), &Ark(mx.b_sm.clone()))?;
                }
                let tag = c.tag(Some(Party::Mixer(k)), labels[0]);
                c.post(&tag, &step)?;
                *slot = Some(step);
            }
            let mut factors = Vec::with_capacity(mixers.m());
            for (k, step) in made.into_iter().enumerate() {
                factors.push(match step {
                    Some(s) => s,
                    None => {
                        c.remote(Party::Mixer(k), labels[0]);
                        let tag = c.tag(Some(Party::Mixer(k)), labels[0]);
                        c.fetch(&tag)?
                    }
                });
            }
            let ok = each_mixer_checks_the_others(c, mixers, labels[1], |k| {
                let f = &factors[k];
                (0..n)
                    .into_par_iter()
                    .all(|i| pk_enc_bl_verify(gens, eg, &list[i], &f.cts[i], &f.proofs[i]).is_ok())
            })?;
            c.status("status_pk_bl", ok);
            // The homomorphic product of every mixer's factors.
            let mut acc: Vec<(E::G1, E::G1)> = vec![Default::default(); n];
            let multiply_in = |k: usize| {
                acc.par_iter_mut().zip(&factors[k].cts).for_each(|(a, c)| {
                    a.0 += c.c0;
                    a.1 += c.c1;
                })
            };
            let label = "generate encrypted blinded BB signatures";
            each_mixer_multiplies_in(c, mixers, label, 0, multiply_in, |_| ())?;
            Ok((elgamal::normalize(&acc), ok))
        },
    )
}

/// Mixer k's blinding step: its factors b_{i,k} ≠ 0 (kept as its DPK_BB witness), the blinded
/// ciphertexts with their proofs ([`blind`]). The `zero-blinding` tamper makes the last mixer's
/// factors cancel the others' (`others`, their shares).
fn blinding_step<E: Pairing>(
    cfg: &Config,
    public: &Public<E>,
    mx: &mut Mixer<E>,
    list: &[Ciphertext<E>],
    others: &[Vec<E::ScalarField>],
) -> Blinding<E> {
    // b ≠ 0: σ̃ = σ^b must be invertible back to σ.
    let mut draws: Vec<(E::ScalarField, E::ScalarField)> = (0..list.len())
        .map(|_| {
            (
                random_nonzero(&mut mx.rng),
                E::ScalarField::rand(&mut mx.rng),
            )
        })
        .collect();
    if cfg.cheats(Tamper::ZeroBlinding, mx.cheater()) {
        // The mixers collude: the last one cancels the others' blinding.
        for (i, d) in draws.iter_mut().enumerate() {
            d.0 = -others.iter().map(|b| b[i]).sum::<E::ScalarField>();
        }
    }
    mx.b_sm = draws.iter().map(|d| d.0).collect();
    let mut blinding = blind(public, mx, list, &draws);
    if cfg.cheats(Tamper::Blinding, mx.cheater()) {
        blinding.proofs[0].z1 += E::ScalarField::one();
    }
    blinding
}

/// `decrypt blinded signatures`: threshold decryption of the blinded signatures, with proofs of
/// the shares checked by every other mixer against keys that must combine to Y. Records
/// `status_decshares_blsigs`.
fn decrypt_blinded_signatures<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    blinded: &[Ciphertext<E>],
) -> Result<(Vec<E::G1Affine>, bool)> {
    let (gens, eg) = (&public.gens, &public.eg);
    c.section("decrypt blinded signatures", Totals::Mixers, |c| {
        let labels = [
            "obtain decryption shares",
            "verifying others' decryption shares",
            "combine decryption shares",
        ];
        let (sigmas, ok) = threshold_decryption(
            c,
            mixers,
            labels,
            blinded.len(),
            |mx| {
                let cheat = cfg.cheats(Tamper::DecShareBb, mx.cheater());
                elgamal_shares(gens, eg, mx, blinded, cheat)
            },
            |k, sh: &ElGamalShares<E>| {
                // The shares are proved against the verification keys Y_k; they decrypt only
                // if those combine to Y.
                eg.check().is_ok()
                    && elgamal::verify_shares(gens, &eg.vks[k], blinded, &sh.shares, &sh.proof)
                        .is_ok()
            },
            |shares| elgamal::combine_many(blinded, &ElGamalShares::columns(shares)).map(Ark),
        )?;
        c.status("status_decshares_blsigs", ok);
        Ok((sigmas.0, ok))
    })
}

/// Mixer k's ElGamal decryption shares of `cts` and their batched proof (the tamper changes
/// one share).
pub(crate) fn elgamal_shares<E: Pairing>(
    gens: &Generators<E>,
    eg: &elgamal::PublicKey<E>,
    mx: &mut Mixer<E>,
    cts: &[Ciphertext<E>],
    cheat: bool,
) -> Result<ElGamalShares<E>> {
    let mut d = elgamal::decryption_shares(cts, &mx.x);
    if cheat {
        d[0] = (d[0].into_group() + gens.g1.point()).into_affine();
    }
    let p = elgamal::prove_shares(gens, &eg.vks[mx.k], &mx.x, cts, &d, &mut mx.rng)?;
    Ok(ElGamalShares {
        shares: d,
        proof: p,
    })
}

/// `dpk_bbsig_nizkproofs`: the distributed proof, one per input, in three rounds: every mixer's
/// commitments, the challenges (each mixer derives them), every mixer's response shares.
fn dpk_bbsig_nizkproofs<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    gens: &Generators<E>,
    mixers: &mut Mixers<E>,
    st: &dpk_bb::Statement<E>,
) -> Result<dpk_bb::Proof<E::ScalarField>> {
    let n = st.gammas.len();
    c.section("dpk_bbsig_nizkproofs", Totals::Mixers, |c| {
        let (ch, responses) = dpk_rounds::<E, Bb<E>, _, _, _>(
            c,
            mixers,
            n,
            |mx| Ok(dpk_bb::commit_share(gens, st, &mut mx.rng)),
            |acc| Ok(dpk_bb::challenges(gens, st, acc)),
            |mx, nonces, ch| {
                // The mixer's last use of its shares of v, r and b: they leave its memory here.
                let w = dpk_bb::WitnessShares {
                    v: std::mem::take(&mut mx.v),
                    r: std::mem::take(&mut mx.r),
                    b: std::mem::take(&mut mx.b_sm),
                };
                let (mut zv, zr, zb) = dpk_bb::respond(nonces, &w, ch);
                if cfg.cheats(Tamper::DpkBb, mx.cheater()) {
                    zv[0] += E::ScalarField::one();
                }
                Ark((zv, zr, zb))
            },
        )?;
        let mut proof = dpk_bb::Proof {
            ch,
            zv: Vec::new(),
            zr: Vec::new(),
            zb: Vec::new(),
        };
        for Ark((zv, zr, zb)) in responses {
            proof.zv.push(zv);
            proof.zr.push(zr);
            proof.zb.push(zb);
        }
        Ok(proof)
    })
}

/// True iff every ciphertext is the encryption of its signature with the revealed randomness:
/// the mixers' check that the verifier encrypted what it signed.
pub(crate) fn encryptions_match<E: Pairing>(
    gens: &Generators<E>,
    eg: &elgamal::PublicKey<E>,
    sigs: &[E::G1Affine],
    rho: &[E::ScalarField],
    cts: &[Ciphertext<E>],
) -> bool {
    sigs.len() == cts.len()
        && rho.len() == cts.len()
        && (0..cts.len())
            .into_par_iter()
            .all(|j| elgamal::encrypt(gens, eg, &sigs[j], &rho[j]) == cts[j])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::group::Generators;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn encryption_check_rejects_a_wrong_randomness_signature_or_ciphertext() {
        type E = ark_bn254::Bn254;
        let mut rng = ChaCha20Rng::seed_from_u64(31);
        let gens = Generators::<E>::new(&mut rng);
        let (eg, _) = elgamal::keygen(&gens, 2, &mut rng).unwrap();
        let sigs: Vec<_> = (0..3)
            .map(|_| elgamal::random_message::<E>(&mut rng))
            .collect();
        let (cts, rho) = elgamal::encrypt_many(&gens, &eg, &sigs, &mut rng);
        assert!(encryptions_match(&gens, &eg, &sigs, &rho, &cts));
        let mut bad = rho.clone();
        bad[2] += ark_bn254::Fr::one();
        assert!(!encryptions_match(&gens, &eg, &sigs, &bad, &cts));
        let mut bad = sigs.clone();
        bad[0] = (bad[0] + gens.g1.base()).into_affine();
        assert!(!encryptions_match(&gens, &eg, &bad, &rho, &cts));
        let mut bad = cts.clone();
        bad.swap(0, 1);
        assert!(!encryptions_match(&gens, &eg, &sigs, &rho, &bad));
        assert!(!encryptions_match(&gens, &eg, &sigs[1..], &rho, &cts));
    }
}
