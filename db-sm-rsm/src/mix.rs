//! Mixing (spec §2.4): the mixers re-encrypt and permute the threshold-Paillier ciphertexts cv
//! in turn, each proving its shuffle against its permutation commitment (Wikström's
//! commitment-consistent proof of shuffle); then they threshold-decrypt the final list with
//! batched proofs of correct decryption shares, and each decrypts its own share ciphertexts.

use ark_ec::pairing::Pairing;
use rayon::prelude::*;
use rug::Integer;

use crate::group::integer_to_scalar;
use crate::inputs::Inputs;
use crate::pshuffle;
use crate::report::{Report, Totals};
use crate::run::Config;
use crate::setup::{Mixer, Public};
use crate::tamper::Tamper;
use crate::Result;

/// Mixer k's Wikström proof that `output` re-encrypts `input` permuted by its committed π.
pub(crate) fn pshuffle_prove<E: Pairing>(
    public: &Public<E>,
    mx: &mut Mixer<E>,
    input: &[Integer],
    output: &[Integer],
    rho: &[Integer],
) -> Result<pshuffle::PaillierShuffleProof<E>> {
    let st = pshuffle_statement(public, mx.k, input, output);
    let w = pshuffle::ShuffleWitness {
        perm: &mx.perm,
        s: &mx.s,
        rho,
    };
    pshuffle::prove_shuffle(&st, &w, &mut mx.rng)
}

/// Checks mixer k's proof of shuffle.
pub(crate) fn pshuffle_verify<E: Pairing>(
    public: &Public<E>,
    k: usize,
    input: &[Integer],
    output: &[Integer],
    proof: &pshuffle::PaillierShuffleProof<E>,
) -> bool {
    pshuffle::verify_shuffle(&pshuffle_statement(public, k, input, output), proof).is_ok()
}

fn pshuffle_statement<'a, E: Pairing>(
    public: &'a Public<E>,
    k: usize,
    input: &'a [Integer],
    output: &'a [Integer],
) -> pshuffle::ShuffleStatement<'a, E> {
    pshuffle::ShuffleStatement {
        gens: &public.gens,
        ck: &public.ck,
        perm_commitment: &public.permcomms[k],
        pk: &public.th,
        fo: &public.ck_fo,
        input,
        output,
    }
}

/// The mixnet's output: the messages in output order (reduced into Zq).
pub struct Mixed<E: Pairing> {
    pub msgs: Vec<E::ScalarField>,
}

/// Runs the `mixing` section.
pub fn run<E: Pairing>(
    cfg: &Config,
    r: &mut Report,
    public: &Public<E>,
    mixers: &mut [Mixer<E>],
    inputs: &Inputs<E>,
) -> Result<Mixed<E>> {
    let th = &public.th;
    let n = public.n;

    // §2.4.1: the re-encryption chain (mixer k's output is mixer k+1's input).
    let list = r.section(
        "re-encryption and permutation",
        Totals::Mixers,
        |r| -> Result<_> {
            let mut list = inputs.cv.clone();
            let mut steps: Vec<(
                Vec<Integer>,
                Vec<Integer>,
                pshuffle::PaillierShuffleProof<E>,
            )> = Vec::new();
            for mx in mixers.iter_mut() {
                let (out, rho) = r.time(mx.party(), "re-encryption", || -> Result<_> {
                    let rho: Vec<Integer> = (0..n).map(|_| th.random_r(&mut mx.rng)).collect();
                    let re: Vec<Integer> = list
                        .par_iter()
                        .zip(&rho)
                        .map(|(c, r)| th.reencrypt_with(c, r))
                        .collect();
                    let mut out = mx.perm.apply(&re)?;
                    if mx.k == 0 && cfg.tampers(Tamper::Shuffle) {
                        // Adds 1 to the plaintext of one output: no longer a re-encryption.
                        out[0] = th.add(
                            &out[0],
                            &th.encrypt_with(&Integer::from(1), &Integer::from(1)),
                        );
                    }
                    Ok((out, rho))
                })?;
                let proof = r.time(mx.party(), "creating proof of correct shuffle", || {
                    pshuffle_prove(public, mx, &list, &out, &rho)
                })?;
                let input = std::mem::replace(&mut list, out.clone());
                steps.push((input, out, proof));
            }
            let mut all = true;
            for mx in mixers.iter() {
                all &= r.time(mx.party(), "verifying others' proofs of shuffle", || {
                    steps
                        .par_iter()
                        .enumerate()
                        .filter(|(k, _)| *k != mx.k)
                        .all(|(k, (i, o, p))| pshuffle_verify(public, k, i, o, p))
                });
            }
            r.status("status_shuffle", all);
            Ok(list)
        },
    )?;

    // §2.4.2: threshold decryption with batched share proofs.
    let msgs = r.section(
        "decryption of output messages",
        Totals::Mixers,
        |r| -> Result<_> {
            let mut shares = Vec::new();
            let mut proofs = Vec::new();
            for mx in mixers.iter_mut() {
                let (s, p) = r.time(mx.party(), "threshold decryption", || -> Result<_> {
                    let mut s = mx.th_share.decryption_shares(th, &list);
                    if mx.k == 0 && cfg.tampers(Tamper::DecShare) {
                        s[0] = th.add(
                            &s[0],
                            &th.encrypt_with(&Integer::from(1), &Integer::from(1)),
                        );
                    }
                    let p = mx.th_share.prove_shares(th, &list, &s, &mut mx.rng)?;
                    Ok((s, p))
                })?;
                shares.push(s);
                proofs.push(p);
            }
            let mut all = true;
            for mx in mixers.iter() {
                let label = "verifying others' decryption shares (batched)";
                all &= r.time(mx.party(), label, || {
                    (0..public.m)
                        .into_par_iter()
                        .filter(|k| *k != mx.k)
                        .all(|k| th.verify_shares(k, &list, &shares[k], &proofs[k]).is_ok())
                });
            }
            // Every mixer combines all shares itself (identical results, §4.4).
            let mut combined = Combined::default();
            for mx in mixers.iter() {
                combined = r.time(mx.party(), "combining decryption shares", || {
                    combine_column::<E>(th, &shares)
                });
            }
            // A combination that fails (shares not of the form 1 + xN) is a failed decryption,
            // whatever the share proofs said.
            r.status("status_decshares", all && combined.failed.is_empty());
            Ok(combined.values)
        },
    )?;

    // §2.4.3: each mixer decrypts its own share ciphertexts (CRT), learning v_{i,k}, r_{i,k}.
    r.section(
        "decryption of individual message/randomness shares",
        Totals::Mixers,
        |r| {
            let mut all = true;
            for mx in mixers.iter_mut() {
                let label = "decryption of individual message/randomness shares";
                let (v, rr) = r.time(mx.party(), label, || {
                    let own = &inputs.shares[mx.k];
                    let sk = &mx.sk;
                    let v = decrypt_column::<E>(sk, own.iter().map(|s| &s.cv));
                    let rr = decrypt_column::<E>(sk, own.iter().map(|s| &s.cr));
                    (v, rr)
                });
                all &= v.failed.is_empty() && rr.failed.is_empty();
                mx.v = v.values;
                mx.r = rr.values;
            }
            // A share ciphertext that does not decrypt leaves the mixer without its share of
            // that sender's witness: a failed step, never a made-up value.
            r.status("status_share_decryption", all);
        },
    );
    Ok(Mixed { msgs })
}

/// Decrypted values of a list, and the positions whose decryption failed. A failed position
/// holds zero only so that the lists keep their length; the step's status is False whenever
/// `failed` is not empty.
#[derive(Default)]
pub(crate) struct Combined<F> {
    pub values: Vec<F>,
    pub failed: Vec<usize>,
}

impl<F: Default> FromIterator<Option<F>> for Combined<F> {
    fn from_iter<I: IntoIterator<Item = Option<F>>>(it: I) -> Self {
        let mut c = Combined {
            values: Vec::new(),
            failed: Vec::new(),
        };
        for (i, x) in it.into_iter().enumerate() {
            match x {
                Some(v) => c.values.push(v),
                None => {
                    c.failed.push(i);
                    c.values.push(F::default());
                }
            }
        }
        c
    }
}

/// Combines the m threshold-Paillier decryption shares of every ciphertext
/// (`shares[k][i]`), reduced into Zq.
pub(crate) fn combine_column<E: Pairing>(
    th: &crate::thpaillier::ThresholdPublicKey,
    shares: &[Vec<Integer>],
) -> Combined<E::ScalarField> {
    let n = shares.first().map_or(0, Vec::len);
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
    sk: &crate::paillier::PaillierKey,
    cts: impl Iterator<Item = &'a Integer>,
) -> Combined<E::ScalarField> {
    let cts: Vec<&Integer> = cts.collect();
    let out: Vec<Option<E::ScalarField>> = cts
        .par_iter()
        .map(|c| sk.decrypt(c).ok().map(|x| integer_to_scalar(&x)))
        .collect();
    out.into_iter().collect()
}
