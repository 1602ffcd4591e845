//! `mixing` (docs/protocol.md §5): the mixers re-encrypt and permute the threshold-Paillier
//! ciphertexts cv in turn, each proving its shuffle against its permutation commitment
//! (Wikström's commitment-consistent proof of shuffle); then they threshold-decrypt the final
//! list with batched proofs of correct decryption shares, and each decrypts its own share
//! ciphertexts.

use ark_ec::pairing::Pairing;
use rayon::prelude::*;
use rug::Integer;

use crate::measurement::report::{Party, Totals};
use crate::primitives::group::integer_to_scalar;
use crate::primitives::paillier::PaillierKey;
use crate::primitives::thpaillier::{ShareProof, ThresholdPublicKey};
use crate::proofs::paillier_shuffle::{self, PaillierShuffleProof, ShuffleWitness};
use crate::protocol::config::Config;
use crate::protocol::inputs::Inputs;
use crate::protocol::setup::{Mixer, Mixers, Public};
use crate::protocol::steps::{
    agree, all_mixers, each_mixer_checks_the_others, each_mixer_private, mixer_turn,
    threshold_decryption, Decrypted,
};
use crate::protocol::tamper::Tamper;
use crate::transport::Ctx;
use crate::Result;

/// The mixnet's output: the messages in output order (reduced into Zq).
pub struct Mixed<E: Pairing> {
    /// msgs_out_j.
    pub msgs: Vec<E::ScalarField>,
}

/// One mixer's step of a Paillier re-encryption chain: what it received, what it published and
/// its proof.
pub(crate) struct PaillierStep<E: Pairing> {
    pub input: Vec<Integer>,
    pub output: Vec<Integer>,
    pub proof: PaillierShuffleProof<E>,
}

/// One mixer's decryption shares of a list with their batched proof.
#[derive(Clone)]
pub(crate) struct PaillierShares {
    pub shares: Vec<Integer>,
    pub proof: ShareProof,
}

crate::wire_struct!(impl PaillierShares { wire shares, wire proof });

impl PaillierShares {
    /// Every mixer's share list (`columns[k][i]`), borrowed.
    pub(crate) fn columns(shares: &[PaillierShares]) -> Vec<&[Integer]> {
        shares.iter().map(|s| &s.shares[..]).collect()
    }
}

/// Mixer k's Wikström proof that `output` re-encrypts `input` permuted by its committed π.
pub(crate) fn prove_paillier_shuffle<E: Pairing>(
    public: &Public<E>,
    mx: &mut Mixer<E>,
    input: &[Integer],
    output: &[Integer],
    rho: &[Integer],
) -> Result<PaillierShuffleProof<E>> {
    let w = ShuffleWitness {
        perm: &mx.perm,
        s: &mx.s,
        rho,
    };
    paillier_shuffle::prove_shuffle(
        &public.paillier_shuffle(mx.k, input, output),
        &w,
        &mut mx.rng,
    )
}

/// True iff mixer k's Paillier shuffle step verifies.
pub(crate) fn paillier_step_holds<E: Pairing>(
    public: &Public<E>,
    k: usize,
    step: &PaillierStep<E>,
) -> bool {
    let st = public.paillier_shuffle(k, &step.input, &step.output);
    paillier_shuffle::verify_shuffle(&st, &step.proof).is_ok()
}

/// `mixing`: the re-encryption chain, the threshold decryption of its output, and each mixer's
/// decryption of its own share ciphertexts.
pub fn mixing<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    inputs: &Inputs<E>,
) -> Result<Mixed<E>> {
    c.section("mixing", Totals::Mixers, |c| {
        let list = reencryption_and_permutation(cfg, c, public, mixers, inputs)?;
        let msgs = decryption_of_output_messages(cfg, c, public, mixers, &list)?;
        decryption_of_individual_shares(c, mixers, inputs)?;
        Ok(Mixed { msgs })
    })
}

/// `re-encryption and permutation`: mixer k's output is mixer k+1's input; each proves its step
/// and every mixer checks the others' proofs. Records `status_shuffle`.
fn reencryption_and_permutation<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    inputs: &Inputs<E>,
) -> Result<Vec<Integer>> {
    let th = &public.th;
    c.section("re-encryption and permutation", Totals::Mixers, |c| {
        let mut list = inputs.cv.clone();
        let mut steps: Vec<PaillierStep<E>> = Vec::new();
        let labels = ["re-encryption", "creating proof of correct shuffle"];
        for k in 0..mixers.m() {
            // The turn posts the output and its proof; its input is the previous output.
            let (out, proof): (Vec<Integer>, PaillierShuffleProof<E>) =
                mixer_turn(c, mixers, k, &labels, |c, mx| {
                    let (mut out, rho) =
                        c.time_entries(mx.party(), labels[0], list.len(), || {
                            paillier_shuffle::shuffle(th, &mx.perm, &list, &mut mx.rng)
                        })?;
                    if cfg.cheats(Tamper::Shuffle, mx.cheater()) {
                        // Adds 1 to the plaintext of one output: no longer a re-encryption.
                        out[0] = th.add(
                            &out[0],
                            &th.encrypt_with(&Integer::from(1), &Integer::from(1)),
                        );
                    }
                    let proof = c.time(mx.party(), labels[1], || {
                        prove_paillier_shuffle(public, mx, &list, &out, &rho)
                    })?;
                    Ok((out, proof))
                })?;
            let input = std::mem::replace(&mut list, out.clone());
            steps.push(PaillierStep {
                input,
                output: out,
                proof,
            });
        }
        let label = "verifying others' proofs of shuffle";
        let ok = each_mixer_checks_the_others(c, mixers, label, |k| {
            paillier_step_holds(public, k, &steps[k])
        })?;
        c.status("status_shuffle", ok);
        Ok(list)
    })
}

/// Mixer k's decryption shares of `list` and their batched proof (the `decshare` tamper
/// changes one share).
pub(crate) fn paillier_shares<E: Pairing>(
    th: &ThresholdPublicKey,
    mx: &mut Mixer<E>,
    list: &[Integer],
    cheat: bool,
) -> Result<PaillierShares> {
    let mut shares = mx.th_share.decryption_shares(th, list);
    if cheat {
        shares[0] = th.add(
            &shares[0],
            &th.encrypt_with(&Integer::from(1), &Integer::from(1)),
        );
    }
    let proof = mx.th_share.prove_shares(th, list, &shares, &mut mx.rng)?;
    Ok(PaillierShares { shares, proof })
}

/// `decryption of output messages`: threshold decryption with batched share proofs, checked by
/// every other mixer, then combined by every mixer. Records `status_decshares`, False also when
/// a combination fails whatever the share proofs said.
fn decryption_of_output_messages<E: Pairing>(
    cfg: &Config,
    c: &mut Ctx,
    public: &Public<E>,
    mixers: &mut Mixers<E>,
    list: &[Integer],
) -> Result<Vec<E::ScalarField>> {
    let th = &public.th;
    c.section("decryption of output messages", Totals::Mixers, |c| {
        let labels = [
            "threshold decryption",
            "verifying others' decryption shares (batched)",
            "combining decryption shares",
        ];
        let (last, ok) = threshold_decryption(
            c,
            mixers,
            labels,
            list.len(),
            |mx| paillier_shares(th, mx, list, cfg.cheats(Tamper::DecShare, mx.cheater())),
            |k, sh| th.verify_shares(k, list, &sh.shares, &sh.proof).is_ok(),
            |shares| Ok(combine_column::<E>(th, &PaillierShares::columns(shares))),
        )?;
        let ([msgs], _) = Decrypted::with_status(c, "status_decshares", ok, [last]);
        Ok(msgs)
    })
}

/// `decryption of individual message/randomness shares`: each mixer decrypts its own share
/// ciphertexts (CRT), learning v_{i,k}, r_{i,k}. A share ciphertext that does not decrypt leaves
/// the mixer without its share of that sender's witness: `status_share_decryption` False, never
/// a made-up value.
fn decryption_of_individual_shares<E: Pairing>(
    c: &mut Ctx,
    mixers: &mut Mixers<E>,
    inputs: &Inputs<E>,
) -> Result<()> {
    let label = "decryption of individual message/randomness shares";
    c.section(label, Totals::Mixers, |c| {
        let total = 2 * inputs.cv.len();
        let decrypted = each_mixer_private(c, mixers, label, total, |mx| {
            let own = &inputs.shares[mx.k];
            [
                decrypt_column::<E>(&mx.sk, own.iter().map(|s| &s.cv)),
                decrypt_column::<E>(&mx.sk, own.iter().map(|s| &s.cr)),
            ]
        });
        let mut verdicts = Vec::new();
        for (k, d) in decrypted.into_iter().enumerate() {
            if let Some([v, r]) = d {
                verdicts.push((Party::Mixer(k), v.complete() && r.complete()));
                let mx = mixers.get_mut(k).expect("a hosted mixer");
                mx.v = v.into_values();
                mx.r = r.into_values();
            }
        }
        let ok = agree(c, label, &all_mixers(mixers.m()), verdicts)?;
        c.status("status_share_decryption", ok);
        Ok(())
    })
}

/// Combines the m threshold-Paillier decryption shares of every ciphertext
/// (`shares[k][i]`), reduced into Zq.
pub(crate) fn combine_column<E: Pairing>(
    th: &ThresholdPublicKey,
    shares: &[&[Integer]],
) -> Decrypted<E::ScalarField> {
    let n = shares.first().map_or(0, |s| s.len());
    let out: Vec<Option<E::ScalarField>> = (0..n)
        .into_par_iter()
        .map(|i| {
            let col: Vec<Integer> = shares.iter().map(|s| s[i].clone()).collect();
            th.combine(&col).ok().map(|x| integer_to_scalar(&x))
        })
        .collect();
    out.into_iter().collect()
}

/// Decrypts a mixer's own share ciphertexts with its Paillier key (CRT), reduced into Zq.
fn decrypt_column<'a, E: Pairing>(
    sk: &PaillierKey,
    cts: impl Iterator<Item = &'a Integer>,
) -> Decrypted<E::ScalarField> {
    let cts: Vec<&Integer> = cts.collect();
    let out: Vec<Option<E::ScalarField>> = cts
        .par_iter()
        .map(|c| {
            let x = sk.decrypt(c).ok().map(|x| integer_to_scalar(&x));
            crate::primitives::counters::tick(1);
            x
        })
        .collect();
    out.into_iter().collect()
}
