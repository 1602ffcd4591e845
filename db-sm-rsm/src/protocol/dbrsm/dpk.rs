//! `dpk_bbsplussig_nizkproofs` (docs/protocol.md §7.5): the witness shares δ0, δ1 = bS·bc and
//! δ2 = δ0·bc, the shared z1 with proofs of knowledge of its factors, the per-entry generators
//! and the three rounds of the distributed proof.

use super::*;

/// One mixer's z1 factors and the proofs of knowledge of their openings (in the run's store).
#[derive(Clone)]
struct Z1Shares<E: Pairing> {
    z: Column<Ark<Gt<E>>>,
    proofs: Column<PkcommGtProof<E>>,
}

crate::wire_struct!(impl[E: Pairing] Z1Shares<E> { wire z, wire proofs });

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
            // The triples are spent: each is used for one product only.
            match delta {
                Delta::D1 => {
                    mx.w_rsm.d1 = z.0;
                    mx.triples_d1 = Vec::new();
                }
                Delta::D2 => {
                    mx.w_rsm.d2 = z.0;
                    mx.triples_d2 = Vec::new();
                }
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
pub(super) fn dpk_bbsplussig_nizkproofs<E: Pairing>(
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
        // copy is kept, in the store, a chunk at a time as it is made.
        let mut kept = false;
        let mut failed_derive = None;
        let derived = each_mixer_multiplies_in(c, mixers, label, n, multiply_in, |_| {
            let keep = !std::mem::replace(&mut kept, true);
            let made = derive_generators(gens, st, keep);
            made.unwrap_or_else(|e| {
                failed_derive.get_or_insert(e);
                None
            })
        })?;
        if let Some(e) = failed.or(failed_derive) {
            return Err(e);
        }
        let derived = derived.into_iter().flatten().flatten().next();
        // A mixer whose nonces cannot be read back from the store ends the run (the first
        // failure kept).
        let mut failed_respond = None;
        let (ch, z) = dpk_rounds::<E, BbsPlus<E>, _, _, _>(
            c,
            mixers,
            n,
            |mx| {
                let d = derived.as_ref().expect("a hosted mixer derived them");
                dpk_bbsplus::commit_share(gens, d.chunks(CHUNK), &z1, &mut mx.rng)
            },
            |acc| dpk_bbsplus::challenges(gens, st, &z1, acc),
            |mx, nonces, ch| {
                let made = dpk_bbsplus::respond(nonces, &mx.w_rsm, ch);
                let mut z = made.unwrap_or_else(|e| {
                    failed_respond.get_or_insert(e);
                    WitnessShares::default()
                });
                if cfg.cheats(Tamper::DpkBbsPlus, mx.cheater()) {
                    if let Some(d2) = z.d2.first_mut() {
                        *d2 += E::ScalarField::one();
                    }
                }
                z
            },
        )?;
        if let Some(e) = failed_respond {
            return Err(e);
        }
        Ok((dpk_bbsplus::Proof { z1, ch, z }, ok))
    })
}

/// One mixer's `computing generators`: every entry's row, a chunk at a time, written to the
/// store if `keep` (the first mixer's copy), else dropped as it is made.
fn derive_generators<E: Pairing>(
    gens: &Generators<E>,
    st: &dpk_bbsplus::Statement<E>,
    keep: bool,
) -> Result<Option<Column<dpk_bbsplus::DerivedRow<E>>>> {
    let mut w = keep
        .then(|| ColumnWriter::new("dpk_bbsplussig generators"))
        .transpose()?;
    dpk_bbsplus::derive_chunks(gens, st, |_, rows| match w.as_mut() {
        Some(w) => w.extend(&rows),
        None => Ok(()),
    })?;
    w.map(ColumnWriter::finish).transpose()
}
