//! `decryption of blinded BBS+ signatures` (docs/protocol.md §7.4.3): threshold decryption of
//! the three blinded lists with share proofs.

use super::*;

/// One mixer's decryption shares of the three blinded lists, with their proofs.
#[derive(Clone)]
struct RsmShares<E: Pairing> {
    s: ElGamalShares<E>,
    c: PaillierShares,
    r: PaillierShares,
}

crate::wire_struct!(impl[E: Pairing] RsmShares<E> { wire s, wire c, wire r });

/// The decrypted blinded signatures (S̃_j, c̃_j, r̃_j), in output order.
pub(super) struct BlindedSigs<E: Pairing> {
    pub s: Vec<E::G1Affine>,
    pub c: Vec<E::ScalarField>,
    pub r: Vec<E::ScalarField>,
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
pub(super) fn decryption_of_blinded_signatures<E: Pairing>(
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
