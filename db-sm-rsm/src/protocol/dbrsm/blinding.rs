//! `generate encrypted blinded BBS+ signatures` (docs/protocol.md §7.4.2): each mixer's
//! encrypted blinding factors with proofs of knowledge, checked by the others, and their
//! homomorphic combination with the shuffled signatures.

use super::*;

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

/// A uniform integer in [0, q] (inclusive), for the offsets bc′ = bc + q·U.
fn offset<F: PrimeField>(rng: &mut ChaCha20Rng) -> Integer {
    let q = scalar_to_integer(&-F::one()) + 1u32;
    let bound = Integer::from(&q + 1u32);
    crate::primitives::bigint::random_below(rng, &bound)
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
pub(super) fn generate_encrypted_blinded_signatures<E: Pairing>(
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
