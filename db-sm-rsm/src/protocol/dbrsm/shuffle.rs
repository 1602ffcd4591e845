//! `re-encrypt and permute BBS+ signatures` (docs/protocol.md §7.4.1): the r components, then
//! each mixer's forward shuffle of the three encrypted lists with an ElGamal and two Paillier
//! shuffle proofs.

use super::*;

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

/// `re-encrypt and permute BBS+ signatures`: every mixer first computes Enc(r̂)·cr = Enc(r̂ + r),
/// the r component of the BBS+ signature on v (identical results, as upstream); then the
/// mixers shuffle the three lists forward in turn, each with an ElGamal and two Paillier shuffle
/// proofs, checked by every other mixer. Records `status_shuffle_blsigs_rev`.
pub(super) fn reencrypt_and_permute<E: Pairing>(
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
