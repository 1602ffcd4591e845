//! Forward set membership, DB-SM (spec §2.5, the paper's Figure 8): for every input i, the
//! mixers prove that γ_i commits to a value in the published output list, without revealing
//! which. The verifier BB-signs every output; the mixers shuffle the encrypted signatures back
//! into input order, blind them, decrypt, and prove with [`crate::dpkbb`] that each blinded
//! signature unblinds to a signature on γ_i's value.

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{One, UniformRand, Zero};
use rayon::prelude::*;

use crate::bbsig::{self, SigningKey};
use crate::dpkbb;
use crate::elgamal::{self, Ciphertext};
use crate::group::random_nonzero;
use crate::inputs::Inputs;
use crate::mix::Mixed;
use crate::report::{Party, Report, Totals};
use crate::run::Config;
use crate::setup::{Mixer, Public, Verifier};
use crate::shuffle::{
    prove_shuffle, reverse_shuffle, reverse_witness, verify_shuffle, ShuffleProof,
};
use crate::sigma::{pk_enc_bl_prove, pk_enc_bl_verify, EncBlProof};
use crate::tamper::Tamper;
use crate::Result;

/// Mixer k's re-encrypt-and-reverse-permute step: (k, new list, old list, proof).
type ReverseStep<E> = (
    usize,
    Vec<Ciphertext<E>>,
    Vec<Ciphertext<E>>,
    ShuffleProof<E>,
);
/// Mixer k's blinded ciphertexts and proofs of knowledge of the blinding factors.
type BlindingFactors<E> = (Vec<Ciphertext<E>>, Vec<EncBlProof<E>>);

/// What the size lines need from DB-SM.
pub struct SmOutput {
    /// Bytes of one verifier-uploaded BB signature.
    pub sig_bytes: usize,
    /// Bytes of one entry's DPK_BB proof.
    pub dpk_entry_bytes: usize,
}

/// Runs DB-SM inside the `forward set membership` section.
pub fn run<E: Pairing>(
    cfg: &Config,
    r: &mut Report,
    public: &Public<E>,
    mixers: &mut [Mixer<E>],
    verifier: &mut Verifier,
    inputs: &Inputs<E>,
    mixed: &Mixed<E>,
) -> Result<SmOutput> {
    let gens = &public.gens;
    let eg = &public.eg;
    let n = public.n;
    let mut statuses = Vec::new();

    // §2.5.1: the verifier signs every output and encrypts the signatures, revealing the
    // encryption randomness (B17) so that the mixers can check the encryptions.
    let (bb, sigs, cts, rho) = r.section("get_verfsigs", Totals::Verifier, |r| {
        r.time(
            Party::Verifier,
            "creating BB signatures and encryptions",
            || -> Result<_> {
                {
                    let sk = SigningKey::<E>::generate(gens, &mut verifier.rng);
                    let mut sigs = bbsig::sign_many(gens, &sk, &mixed.msgs)?;
                    if cfg.tampers(Tamper::VerfSig) {
                        sigs[0] = (sigs[0].into_group() + gens.g1.point()).into_affine();
                    }
                    let (cts, mut rho) = elgamal::encrypt_many(gens, eg, &sigs, &mut verifier.rng);
                    if cfg.tampers(Tamper::VerfSigEnc) {
                        // The revealed randomness is not the one used.
                        rho[0] += E::ScalarField::one();
                    }
                    Ok((sk.y, sigs, cts, rho))
                }
            },
        )
    })?;

    // §2.5.2: every mixer batch-verifies the signatures and re-computes the encryptions.
    let ok = r.section("check_verfsigs", Totals::Mixers, |r| {
        let mut all = true;
        for mx in mixers.iter_mut() {
            let label = "checking verifier's signatures and encryptions";
            all &= r.time(mx.party(), label, || {
                let sig_ok =
                    bbsig::batch_verify(gens, &bb, &mixed.msgs, &sigs, &mut mx.rng).is_ok();
                sig_ok && encryptions_match(gens, eg, &sigs, &rho, &cts)
            });
        }
        all
    });
    r.status("status_verfsigs", ok);
    statuses.push(ok);

    let sigmas = r.section("get_blsigs", Totals::Mixers, |r| -> Result<_> {
        // §2.5.3 (i): mixers m-1..0 re-encrypt and apply π_k⁻¹, so the list returns to input
        // order; each proves its step with the TW shuffle proof, roles swapped, which lets it
        // reuse permcomm_k for the inverse permutation.
        let blsig_cts = r.section(
            "re-encrypt and reverse-permute BB signatures",
            Totals::Mixers,
            |r| -> Result<_> {
                let mut list = cts.clone();
                let mut steps: Vec<ReverseStep<E>> = Vec::new();
                for mx in mixers.iter_mut().rev() {
                    let (mut new, rho) = r.time(
                        mx.party(),
                        "reencrypting encrypted BB signatures",
                        || reverse_shuffle(gens, eg, &mx.perm, &list, &mut mx.rng),
                    )?;
                    if mx.k == 0 && cfg.tampers(Tamper::ShuffleBb) {
                        new[0].c1 = (new[0].c1.into_group() + gens.g1.point()).into_affine();
                    }
                    let proof = r.time(
                        mx.party(),
                        "creating proof of shuffle of encrypted BB signatures",
                        || -> Result<_> {
                            let w = reverse_witness::<E>(&mx.perm, &rho)?;
                            prove_shuffle(
                                gens,
                                &public.ck,
                                &public.permcomms[mx.k],
                                eg,
                                &new,
                                &list,
                                &mx.perm,
                                &mx.s,
                                &w,
                                &mut mx.rng,
                            )
                        },
                    )?;
                    let old = std::mem::replace(&mut list, new.clone());
                    steps.push((mx.k, new, old, proof));
                }
                let mut all = true;
                for mx in mixers.iter() {
                    let label = "verifying others' proofs of shuffle of encrypted BB signatures";
                    all &= r.time(mx.party(), label, || {
                        steps.par_iter().filter(|s| s.0 != mx.k).all(|(k, new, old, proof)| {
                            verify_shuffle(gens, &public.ck, &public.permcomms[*k], eg, new, old, proof)
                                .is_ok()
                        })
                    });
                }
                r.status("status_shuffle_blsigs", all);
                statuses.push(all);
                Ok(list)
            },
        )?;

        // §2.5.3 (ii): each mixer blinds every signature ciphertext with its own b_{i,k} and
        // proves knowledge of the blinding; the product of all mixers' factors encrypts σ^b.
        let blinded: Vec<Ciphertext<E>> = r.section(
            "generate encrypted blinded BB signatures",
            Totals::Mixers,
            |r| -> Result<_> {
                let mut factors: Vec<BlindingFactors<E>> = Vec::new();
                // Σ_k b_{i,k} so far: what colluding mixers need to make the total 0.
                let mut b_sum = vec![E::ScalarField::zero(); n];
                let m = public.m;
                for mx in mixers.iter_mut() {
                    let label = "generate encrypted blinded BB signatures and proofs of knowledge of blinding factors";
                    let (cs, proofs, bs) = r.time(mx.party(), label, || {
                        // b ≠ 0: σ̃ = σ^b must be invertible back to σ.
                        let mut draws: Vec<(E::ScalarField, E::ScalarField)> = (0..n)
                            .map(|_| (random_nonzero(&mut mx.rng), E::ScalarField::rand(&mut mx.rng)))
                            .collect();
                        if mx.k == m - 1 && cfg.tampers(Tamper::ZeroBlinding) {
                            // The mixers collude: the last one cancels the others' blinding.
                            for (d, s) in draws.iter_mut().zip(&b_sum) {
                                d.0 = -*s;
                            }
                        }
                        // One 32-byte seed per entry: the proofs are made in parallel, each from its
                        // own stream.
                        let seeds: Vec<[u8; 32]> = (0..n).map(|_| rand::Rng::gen(&mut mx.rng)).collect();
                        let out: Vec<(Ciphertext<E>, EncBlProof<E>)> = (0..n)
                            .into_par_iter()
                            .map(|i| {
                                let (b, rho) = draws[i];
                                let c = &blsig_cts[i];
                                let ct = elgamal::reencrypt(gens, eg, &elgamal::exp(c, &b), &rho);
                                let mut prng = <rand_chacha::ChaCha20Rng as rand::SeedableRng>::from_seed(seeds[i]);
                                let pf = pk_enc_bl_prove(gens, eg, c, &ct, &rho, &b, &mut prng);
                                (ct, pf)
                            })
                            .collect();
                        let (cs, proofs): (Vec<_>, Vec<_>) = out.into_iter().unzip();
                        (cs, proofs, draws.into_iter().map(|d| d.0).collect::<Vec<_>>())
                    });
                    let mut proofs = proofs;
                    if mx.k == 0 && cfg.tampers(Tamper::Blinding) {
                        proofs[0].z1 += E::ScalarField::one();
                    }
                    factors.push((cs, proofs));
                    for (s, b) in b_sum.iter_mut().zip(&bs) {
                        *s += b;
                    }
                    mx.b_sm = bs;
                }
                let mut all = true;
                for mx in mixers.iter() {
                    let label = "verifying others' proofs of knowledge of blinding factors";
                    all &= r.time(mx.party(), label, || {
                        factors.par_iter().enumerate().filter(|(k, _)| *k != mx.k).all(|(_, (cs, proofs))| {
                            (0..n).into_par_iter().all(|i| {
                                pk_enc_bl_verify(gens, eg, &blsig_cts[i], &cs[i], &proofs[i]).is_ok()
                            })
                        })
                    });
                }
                // Fix B1: the AND over every mixer's verifications, not only the last one's.
                r.status("status_pk_bl", all);
                statuses.push(all);
                // The homomorphic product is computed once; each mixer's timer multiplies in
                // its own factor (as upstream, §4.4).
                let mut acc: Vec<(E::G1, E::G1)> = vec![Default::default(); n];
                for mx in mixers.iter() {
                    r.time(mx.party(), "generate encrypted blinded BB signatures", || {
                        acc.par_iter_mut().zip(&factors[mx.k].0).for_each(|(a, c)| {
                            a.0 += c.c0;
                            a.1 += c.c1;
                        })
                    });
                }
                Ok(elgamal::normalize(&acc))
            },
        )?;

        // §2.5.3 (iii): threshold decryption of the blinded signatures.
        let sigmas = r.section("decrypt blinded signatures", Totals::Mixers, |r| -> Result<_> {
            let mut shares: Vec<Vec<E::G1Affine>> = Vec::new();
            let mut proofs = Vec::new();
            for mx in mixers.iter_mut() {
                let (d, p) = r.time(mx.party(), "obtain decryption shares", || -> Result<_> {
                    let mut d: Vec<E::G1Affine> = elgamal::decryption_shares(&blinded, &mx.x);
                    if mx.k == 0 && cfg.tampers(Tamper::DecShareBb) {
                        d[0] = (d[0].into_group() + gens.g1.point()).into_affine();
                    }
                    let p = elgamal::prove_shares(gens, &eg.vks[mx.k], &mx.x, &blinded, &d, &mut mx.rng)?;
                    Ok((d, p))
                })?;
                shares.push(d);
                proofs.push(p);
            }
            let mut all = true;
            for mx in mixers.iter() {
                all &= r.time(mx.party(), "verifying others' decryption shares", || {
                    // The shares are proved against the verification keys Y_k; they decrypt
                    // only if those combine to Y.
                    eg.check().is_ok()
                        && (0..public.m).into_par_iter().filter(|k| *k != mx.k).all(|k| {
                            elgamal::verify_shares(gens, &eg.vks[k], &blinded, &shares[k], &proofs[k])
                                .is_ok()
                        })
                });
            }
            let mut sigmas = Vec::new();
            for mx in mixers.iter() {
                sigmas = r.time(mx.party(), "combine decryption shares", || {
                    elgamal::combine_many(&blinded, &shares)
                })?;
            }
            r.status("status_decshares_blsigs", all);
            statuses.push(all);
            Ok(sigmas)
        })?;
        Ok(sigmas)
    })?;

    // §2.5.4: the distributed proof, one per input.
    let st = dpkbb::Statement {
        y: &bb,
        gammas: &inputs.gammas,
        sigmas: &sigmas,
    };
    let proof = r.section("dpk_bbsig_nizkproofs", Totals::Mixers, |r| {
        let mut acc = dpkbb::Commitments::<E>::empty(n);
        let mut nonces = Vec::new();
        for mx in mixers.iter_mut() {
            nonces.push(r.time(mx.party(), "creating dpk_bbsig commit message", || {
                dpkbb::commit(gens, &st, &mut acc, &mut mx.rng)
            }));
        }
        let mut ch = Vec::new();
        for mx in mixers.iter() {
            ch = r.time(mx.party(), "creating dpk_bbsig challenge", || {
                dpkbb::challenges(gens, &st, &acc)
            });
        }
        let mut proof = dpkbb::Proof {
            ch,
            zv: Vec::new(),
            zr: Vec::new(),
            zb: Vec::new(),
        };
        for mx in mixers.iter() {
            let w = dpkbb::WitnessShares {
                v: mx.v.clone(),
                r: mx.r.clone(),
                b: mx.b_sm.clone(),
            };
            let (mut zv, zr, zb) =
                r.time(mx.party(), "creating dpk_bbsig response message", || {
                    dpkbb::respond(&nonces[mx.k], &w, &proof.ch)
                });
            if mx.k == 0 && cfg.tampers(Tamper::DpkBb) {
                zv[0] += E::ScalarField::one();
            }
            proof.zv.push(zv);
            proof.zr.push(zr);
            proof.zb.push(zb);
        }
        proof
    });

    // §2.5.5: the verifier checks every proof.
    let ok = r.section("dpk_bbsig_nizkverifs", Totals::Verifier, |r| {
        r.time(
            Party::Verifier,
            "verifying dpk_bbsig proof",
            || matches!(dpkbb::verify(gens, &st, &proof), Ok(bad) if bad.is_empty()),
        )
    });
    r.status("status_dpk_bbsig", ok);
    statuses.push(ok);
    // Fix B2: the overall status covers every sub-status of the section.
    r.status("status_forward_set_membership", statuses.iter().all(|s| *s));

    Ok(SmOutput {
        sig_bytes: bbsig::signature_size::<E>(),
        dpk_entry_bytes: proof.entry_size_bytes(),
    })
}

/// True iff every ciphertext is the encryption of its signature with the revealed randomness:
/// the mixers' check that the verifier encrypted what it signed.
pub(crate) fn encryptions_match<E: Pairing>(
    gens: &crate::group::Generators<E>,
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
    use crate::group::Generators;
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
