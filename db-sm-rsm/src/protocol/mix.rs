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
use crate::protocol::inputs::{Inputs, ShareCt};
use crate::protocol::setup::{Mixer, Mixers, Public};
use crate::protocol::steps::{
    all_mixers, each_mixer_checks_the_others, mixer_turn, threshold_decryption,
    try_each_mixer_checks_private, Decrypted,
};
use crate::protocol::tamper::Tamper;
use crate::protocol::verdicts::agree;
use crate::storage::{Column, CHUNK};
use crate::transport::Ctx;
use crate::Result;

/// The mixnet's output: the messages in output order (reduced into Zq). Only [`mixing`] makes
/// one, and DB-SM and DB-RSM take it: neither can run before the mixing, a fact the compiler
/// checks rather than the order of the calls.
pub struct Mixed<E: Pairing> {
    /// msgs_out_j.
    msgs: Vec<E::ScalarField>,
}

impl<E: Pairing> Mixed<E> {
    /// msgs_out_j, in output order.
    pub fn msgs(&self) -> &[E::ScalarField] {
        &self.msgs
    }
}

/// One mixer's step of a Paillier re-encryption chain: what it received, what it published and
/// its proof. The lists stay in the run's store; a check reads them back.
pub(crate) struct PaillierStep<E: Pairing> {
    pub input: Column<Integer>,
    pub output: Column<Integer>,
    pub proof: PaillierShuffleProof<E>,
}

/// One mixer's decryption shares of a list (in the run's store) with their batched proof.
#[derive(Clone)]
pub(crate) struct PaillierShares {
    pub shares: Column<Integer>,
    pub proof: ShareProof,
}

crate::wire_struct!(impl PaillierShares { wire shares, wire proof });

impl PaillierShares {
    /// True iff mixer k's shares of `list` and their proof verify (false if the store cannot
    /// give them back).
    pub(crate) fn hold(&self, th: &ThresholdPublicKey, k: usize, list: &[Integer]) -> bool {
        self.shares
            .load()
            .is_ok_and(|shares| th.verify_shares(k, list, &shares, &self.proof).is_ok())
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

/// True iff mixer k's Paillier shuffle step verifies (false if the store cannot give its lists
/// back).
pub(crate) fn paillier_step_holds<E: Pairing>(
    public: &Public<E>,
    k: usize,
    step: &PaillierStep<E>,
) -> bool {
    let (Ok(input), Ok(output)) = (step.input.load(), step.output.load()) else {
        return false;
    };
    let st = public.paillier_shuffle(k, &input, &output);
    paillier_shuffle::verify_shuffle(&st, &step.proof).is_ok()
}

/// Mixer k's turn in a chain of Paillier shuffles: the re-encryption and permutation of `input`
/// (leaf `labels[0]`; the `tamper`, if its, makes one output no re-encryption), then its proof
/// (leaf `labels[1]`). The output goes to the run's store under `name`.
pub(crate) fn paillier_turn<E: Pairing>(
    c: &mut Ctx,
    public: &Public<E>,
    mx: &mut Mixer<E>,
    input: &Column<Integer>,
    labels: [&str; 2],
    cheat: bool,
) -> Result<(Column<Integer>, PaillierShuffleProof<E>)> {
    let th = &public.th;
    let input = input.load()?;
    let (mut out, rho) = c.time_entries(mx.party(), labels[0], input.len(), || {
        paillier_shuffle::shuffle(th, &mx.perm, &input, &mut mx.rng)
    })?;
    if cheat {
        // Adds 1 to the plaintext of one output: no longer a re-encryption.
        out[0] = th.add(
            &out[0],
            &th.encrypt_with(&Integer::from(1), &Integer::from(1)),
        );
    }
    let proof = c.time(mx.party(), labels[1], || {
        prove_paillier_shuffle(public, mx, &input, &out, &rho)
    })?;
    let name = format!("{} of mixer {}", labels[0], mx.k);
    Ok((Column::from_slice(&name, &out)?, proof))
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
    c.section("re-encryption and permutation", Totals::Mixers, |c| {
        let mut list = inputs.cv.clone();
        let mut steps: Vec<PaillierStep<E>> = Vec::new();
        let labels = ["re-encryption", "creating proof of correct shuffle"];
        for k in 0..mixers.m() {
            // The turn posts the output and its proof; its input is the previous output.
            let (out, proof) = mixer_turn(c, mixers, k, &labels, |c, mx| {
                let cheat = cfg.cheats(Tamper::Shuffle, mx.cheater());
                paillier_turn(c, public, mx, &list, labels, cheat)
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
        list.load()
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
    let shares = Column::from_slice(&format!("decryption shares of mixer {}", mx.k), &shares)?;
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
            |k, sh| sh.hold(th, k, list),
            |shares| combine_column::<E>(th, shares),
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
        // Its verdict is a status's: a resumed run decrypts again and compares.
        let decrypted = try_each_mixer_checks_private(c, mixers, label, total, |mx| {
            decrypt_own_shares::<E>(&mx.sk, &inputs.shares[mx.k])
        })?;
        let mut verdicts = Vec::new();
        for (k, d) in decrypted.into_iter().enumerate() {
            if let Some((v, r)) = d {
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

/// A mixer's decryptions of its shares v_{i,k} and r_{i,k} of every sender.
type ShareDecryptions<F> = (Decrypted<F>, Decrypted<F>);

/// Mixer k's decryptions of its share ciphertexts of every sender, (v, r), a chunk of senders at
/// a time.
fn decrypt_own_shares<E: Pairing>(
    sk: &PaillierKey,
    own: &Column<ShareCt>,
) -> Result<ShareDecryptions<E::ScalarField>> {
    let (mut v, mut r) = (Vec::with_capacity(own.len()), Vec::with_capacity(own.len()));
    own.try_for_each_chunk(CHUNK, |_, chunk| {
        v.extend(decrypt_column::<E>(sk, chunk.iter().map(|s| &s.cv)));
        r.extend(decrypt_column::<E>(sk, chunk.iter().map(|s| &s.cr)));
        Ok(())
    })?;
    Ok((v.into_iter().collect(), r.into_iter().collect()))
}

/// Combines every mixer's threshold-Paillier decryption shares of every ciphertext, a chunk of
/// ciphertexts at a time, reduced into Zq.
pub(crate) fn combine_column<E: Pairing>(
    th: &ThresholdPublicKey,
    shares: &[PaillierShares],
) -> Result<Decrypted<E::ScalarField>> {
    let n = shares.first().map_or(0, |s| s.shares.len());
    let mut readers: Vec<_> = shares.iter().map(|s| s.shares.chunks(CHUNK)).collect();
    let mut out: Vec<Option<E::ScalarField>> = Vec::with_capacity(n);
    while out.len() < n {
        let columns: Vec<Vec<Integer>> = readers
            .iter_mut()
            .map(|r| r.next_in_step())
            .collect::<Result<_>>()?;
        let len = columns[0].len();
        out.par_extend((0..len).into_par_iter().map(|i| {
            let col: Vec<Integer> = columns.iter().map(|s| s[i].clone()).collect();
            th.combine(&col).ok().map(|x| integer_to_scalar(&x))
        }));
    }
    Ok(out.into_iter().collect())
}

/// Decrypts ciphertexts of a mixer's own key (CRT), reduced into Zq; None where one does not
/// decrypt.
fn decrypt_column<'a, E: Pairing>(
    sk: &PaillierKey,
    cts: impl Iterator<Item = &'a Integer>,
) -> Vec<Option<E::ScalarField>> {
    let cts: Vec<&Integer> = cts.collect();
    cts.par_iter()
        .map(|c| {
            let x = sk.decrypt(c).ok().map(|x| integer_to_scalar(&x));
            crate::primitives::counters::tick(1);
            x
        })
        .collect()
}
