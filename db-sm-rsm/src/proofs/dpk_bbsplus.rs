//! DPK_BBS+: the distributed proof of knowledge behind DB-RSM (docs/protocol.md §7.5-§7.6, the paper's
//! Figure 9). For every output j the mixers hold additive shares of the blinding factors
//! (bS, bc, br) of a blinded BBS+ signature (S̃_j, c̃_j, r̃_j) on msgs_out_j, plus shares of δ0
//! (random), δ1 = bS·bc and δ2 = δ0·bc (Beaver products), and prove
//!
//! ```text
//! DPK{(bS, bc, br, δ0, δ1, δ2):
//!       z2 = geng1^{bc}·geng2^{bS}·genh1^{br}·genh2^{δ1}
//!    ∧  z1 = genh2^{bS}·genh3^{δ0}
//!    ∧  1_T = z1^{−bc}·genh2^{δ1}·genh3^{δ2}}
//! ```
//!
//! with `geng1 = e(S̃, f2)`, `geng2 = e(g1, y″)·e(g1, f2)^{c̃}`, `genh1 = e(h1, f2)⁻¹`,
//! `genh2 = e(g1, f2)⁻¹`, `genh3 = fT` and
//! `z2 = e(S̃, y″·f2^{c̃}) / (e(f1, f2)·e(g1, f2)^{msg}·e(h1, f2)^{r̃})`: the unblinded
//! (S̃·g1^{−bS}, c̃ − bc, r̃ − br) is then a valid BBS+ signature on msg.
//!
//! GT is written additively by arkworks: "z1^{−bc}" is `z1 * (−bc)`. The challenge hashes the
//! whole per-entry statement (generators, y″, S̃, c̃, r̃, msg, z1, and T1..T3; geng1/geng2/z2
//! are functions of those), fixing F1/F2.
//!
//! Degenerate statements. Unlike DPK_BB's, this relation stays sound for every blinding value:
//! `z2 = geng1^{bc}·geng2^{bS}·genh1^{br}·genh2^{bS·bc}` is an identity in (S̃, c̃, r̃) that holds
//! exactly when the unblinded triple is a BBS+ signature, also for S̃ = 1 or bS = 0, and the
//! GT Pedersen commitment z1 binds δ1 to bS·bc whatever the values. What a zero total blinding
//! does break is privacy: bS = 0 makes S̃_j the verifier's own S_{π(j)}, which links the output
//! to its input. The verifier rejects the two degenerate values it can see, S̃_j = 1 and
//! z1_j = 1 (bS = δ0 = 0); honest mixers draw bS ≠ 0, so with one honest mixer the total is
//! uniform and never 0 but with probability 1/q.

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{PrimeField, UniformRand, Zero};
use ark_serialize::CanonicalSerialize;
use std::ops::Range;

use rand::{CryptoRng, RngCore};
use rayon::prelude::*;

use crate::primitives::counters::vmul;
use crate::primitives::group::{Generators, Gt};
use crate::primitives::wire::{ark_get_own, ark_put, Wire};
use crate::proofs::{dpk_entry_transcript, multiply_entries, same_entries, CommitmentFactors};
use crate::storage::{Column, ColumnWriter, CHUNK};
use crate::{Error, Result};

/// The public statement of all n proofs (output order).
pub struct Statement<'a, E: Pairing> {
    /// The verifier's BBS+ public key y″ = f2^{x″}.
    pub y: &'a E::G2Affine,
    /// The outputs msgs_out_j.
    pub msgs: &'a [E::ScalarField],
    /// The blinded S̃_j.
    pub s: &'a [E::G1Affine],
    /// The blinded c̃_j.
    pub c: &'a [E::ScalarField],
    /// The blinded r̃_j.
    pub r: &'a [E::ScalarField],
}

/// One entry's generators, which both the mixers and the verifier derive from the statement.
#[derive(Clone, Copy, Debug)]
pub struct DerivedRow<E: Pairing> {
    /// geng1_j = e(S̃_j, f2).
    pub geng1: Gt<E>,
    /// geng2_j = e(g1, y)·e(g1, f2)^{c̃_j}.
    pub geng2: Gt<E>,
    /// z2_j, the pairing equation's target.
    pub z2: Gt<E>,
}

/// The rows a mixer derives stay in its own store and never travel: they are read back without
/// the subgroup checks of a received GT element ([`ark_get_own`]).
impl<E: Pairing> Wire for DerivedRow<E> {
    fn put(&self, out: &mut Vec<u8>) {
        ark_put(&self.geng1, out);
        ark_put(&self.geng2, out);
        ark_put(&self.z2, out);
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        Ok(DerivedRow {
            geng1: ark_get_own(inp)?,
            geng2: ark_get_own(inp)?,
            z2: ark_get_own(inp)?,
        })
    }
}

/// The generators of the entries in `range`, given `eg1y` = e(g1, y″): per entry 2 pairings, 1
/// G2 and 3 GT fixed-base exponentiations.
fn derive_rows<E: Pairing>(
    gens: &Generators<E>,
    st: &Statement<E>,
    eg1y: Gt<E>,
    range: Range<usize>,
) -> Vec<DerivedRow<E>> {
    let y = st.y.into_group();
    range
        .into_par_iter()
        .map(|j| {
            let geng1 = crate::primitives::counters::pairing::<E>(st.s[j], gens.f2.base());
            let egc = gens.eg1f2.mul(&st.c[j]);
            let lhs = crate::primitives::counters::pairing::<E>(
                st.s[j],
                (y + gens.f2.mul(&st.c[j])).into_affine(),
            );
            let rhs = gens.ef1f2.point() + gens.eg1f2.mul(&st.msgs[j]) + gens.eh1f2.mul(&st.r[j]);
            crate::primitives::counters::tick(1);
            DerivedRow {
                geng1,
                geng2: eg1y + egc,
                z2: lhs - rhs,
            }
        })
        .collect()
}

/// "Computing generators": e(g1, y″) once, then every entry's row, a chunk of [`CHUNK`] at a
/// time (`f(start, rows)`), so that no party holds n rows of GT elements.
pub fn derive_chunks<E: Pairing>(
    gens: &Generators<E>,
    st: &Statement<E>,
    mut f: impl FnMut(usize, Vec<DerivedRow<E>>) -> Result<()>,
) -> Result<()> {
    let n = st.s.len();
    let eg1y = crate::primitives::counters::pairing::<E>(gens.g1.base(), *st.y);
    for start in (0..n).step_by(CHUNK) {
        f(
            start,
            derive_rows(gens, st, eg1y, start..(start + CHUNK).min(n)),
        )?;
    }
    Ok(())
}

/// Every entry's generators in one list (for small statements).
pub fn derive<E: Pairing>(gens: &Generators<E>, st: &Statement<E>) -> Result<Vec<DerivedRow<E>>> {
    let mut rows = Vec::with_capacity(st.s.len());
    derive_chunks(gens, st, |_, chunk| {
        rows.extend(chunk);
        Ok(())
    })?;
    Ok(rows)
}

/// Mixer k's shares of the six witnesses, one per entry.
#[derive(Clone, Debug, Default)]
pub struct WitnessShares<F> {
    /// Shares of bS.
    pub bs: Vec<F>,
    /// Shares of bc.
    pub bc: Vec<F>,
    /// Shares of br.
    pub br: Vec<F>,
    /// Shares of δ0.
    pub d0: Vec<F>,
    /// Shares of δ1 = bS·bc.
    pub d1: Vec<F>,
    /// Shares of δ2 = δ0·bc.
    pub d2: Vec<F>,
}

/// Mixer k's nonces (secret until the response round), in its store from the commit round to
/// the response round: one row per entry, the six in the order of [`WitnessShares`].
pub struct Nonces<F>(Column<NonceRow<F>>);

/// One entry's six nonces.
#[derive(Clone, Copy)]
pub struct NonceRow<F>([F; 6]);

impl<F: PrimeField> Wire for NonceRow<F> {
    fn put(&self, out: &mut Vec<u8>) {
        self.0.iter().for_each(|x| ark_put(x, out));
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        let mut row = [F::zero(); 6];
        for x in &mut row {
            *x = ark_get_own(inp)?;
        }
        Ok(NonceRow(row))
    }
}

/// One entry's T1, T2, T3: a mixer's factors, or their product.
#[derive(Clone, Copy)]
pub struct CommitRow<E: Pairing>(pub [Gt<E>; 3]);

/// Read without the subgroup check, also from another mixer: the commitments enter only the
/// challenge's hash (the verifier recomputes T1'..T3' from the responses and compares
/// challenges), so a factor outside GT's subgroup makes the proof fail, as any wrong factor
/// does; it cannot make a false statement pass. A check would cost three GT exponentiations per
/// entry and mixer.
impl<E: Pairing> Wire for CommitRow<E> {
    fn put(&self, out: &mut Vec<u8>) {
        self.0.iter().for_each(|t| ark_put(t, out));
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        Ok(CommitRow([
            ark_get_own(inp)?,
            ark_get_own(inp)?,
            ark_get_own(inp)?,
        ]))
    }
}

/// T1, T2, T3 of every entry, in the run's store (a mixer's factors, or the running product of
/// every mixer's): 3 GT elements per entry never all in memory.
#[derive(Clone)]
pub struct Commitments<E: Pairing> {
    /// One row per entry.
    pub rows: Column<CommitRow<E>>,
}

impl<E: Pairing> CommitmentFactors for Commitments<E> {
    fn entries(&self) -> usize {
        self.rows.len()
    }

    /// The product is a new column, written a chunk at a time.
    fn add(&mut self, other: &Commitments<E>) -> Result<()> {
        same_entries("dpk_bbsplussig", self.rows.len(), other.rows.len())?;
        let mut out = ColumnWriter::new("dpk_bbsplussig commitments")?;
        let mut theirs = other.rows.chunks(CHUNK);
        self.rows.try_for_each_chunk(CHUNK, |_, mut rows| {
            let theirs = theirs.next_in_step()?;
            for (a, b) in rows.iter_mut().zip(&theirs) {
                multiply_entries(&mut a.0, &b.0);
            }
            out.extend(&rows)
        })?;
        self.rows = out.finish()?;
        Ok(())
    }
}

/// One proof per entry: z1 (the product of the mixers' z1 shares), the challenge, and every
/// mixer's six response shares (`z[k]` holds mixer k's, as a [`WitnessShares`] of responses).
#[derive(Clone, Debug)]
pub struct Proof<E: Pairing> {
    /// z1_j = genh2^{bS}·genh3^{δ0}.
    pub z1: Vec<Gt<E>>,
    /// The challenges.
    pub ch: Vec<E::ScalarField>,
    /// Every mixer's response shares.
    pub z: Vec<WitnessShares<E::ScalarField>>,
}

impl<E: Pairing> Proof<E> {
    /// Bytes of one entry's proof: z1, the challenge and 6m response shares.
    pub fn entry_size_bytes(&self) -> usize {
        match (self.z1.first(), self.ch.first()) {
            (Some(z1), Some(ch)) => {
                z1.compressed_size() + ch.compressed_size() * (1 + 6 * self.z.len())
            }
            _ => 0,
        }
    }
}

/// Mixer k's commit round: fresh nonces and its factors of every entry's three commitments
/// (what it publishes; the commitments are the products of every mixer's factors,
/// [`Commitments::add`]), both written to its store a chunk at a time. `d` gives the
/// generators' rows in order, a chunk at a time (refused if they are not one per entry). The
/// six nonces of an entry are drawn together, entry after entry.
pub fn commit_share<E: Pairing>(
    gens: &Generators<E>,
    d: impl IntoIterator<Item = Result<Vec<DerivedRow<E>>>>,
    z1: &[Gt<E>],
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<(Commitments<E>, Nonces<E::ScalarField>)> {
    let n = z1.len();
    let mut factors = ColumnWriter::new("dpk_bbsplussig commitment factors")?;
    let mut nonces = ColumnWriter::new("dpk_bbsplussig nonces")?;
    let mut start = 0;
    for rows in d {
        let rows = rows?;
        if start + rows.len() > n {
            break;
        }
        let w: Vec<NonceRow<E::ScalarField>> = (0..rows.len())
            .map(|_| NonceRow(std::array::from_fn(|_| E::ScalarField::rand(rng))))
            .collect();
        let t: Vec<CommitRow<E>> = rows
            .par_iter()
            .zip(&w)
            .enumerate()
            .map(|(i, (d, w))| {
                let [bs, bc, br, d0, d1, d2] = &w.0;
                // genh1 = e(h1,f2)^{-1} and genh2 = e(g1,f2)^{-1}: negated exponents on the tables.
                let h2d1 = gens.eg1f2.mul(&-*d1);
                let t1 = vmul(d.geng1, bc) + vmul(d.geng2, bs) + gens.eh1f2.mul(&-*br) + h2d1;
                let t2 = gens.eg1f2.mul(&-*bs) + gens.ft.mul(d0);
                let t3 = vmul(z1[start + i], &-*bc) + h2d1 + gens.ft.mul(d2);
                crate::primitives::counters::tick(1);
                CommitRow([t1, t2, t3])
            })
            .collect();
        factors.extend(&t)?;
        nonces.extend(&w)?;
        start += rows.len();
    }
    if start != n {
        return Err(Error::Input(
            "dpk_bbsplussig: the generators are not one row per entry".into(),
        ));
    }
    Ok((
        Commitments {
            rows: factors.finish()?,
        },
        Nonces(nonces.finish()?),
    ))
}

#[allow(clippy::too_many_arguments)]
fn challenge<E: Pairing>(
    gens: &Generators<E>,
    st: &Statement<E>,
    j: usize,
    z1: &Gt<E>,
    t1: &Gt<E>,
    t2: &Gt<E>,
    t3: &Gt<E>,
) -> E::ScalarField {
    let mut t = dpk_entry_transcript(b"db-sm-rsm/dpk_bbsplussig", gens, st.y, (b"j", j));
    t.append_ark(b"msg", &st.msgs[j]);
    t.append_ark(b"S", &st.s[j]);
    t.append_ark(b"c", &st.c[j]);
    t.append_ark(b"r", &st.r[j]);
    t.append_ark(b"z1", z1);
    t.append_ark(b"T1", t1);
    t.append_ark(b"T2", t2);
    t.append_ark(b"T3", t3);
    t.challenge_scalar(b"ch")
}

/// The challenge round (every mixer computes all n challenges), the commitments read a chunk
/// at a time.
pub fn challenges<E: Pairing>(
    gens: &Generators<E>,
    st: &Statement<E>,
    z1: &[Gt<E>],
    acc: &Commitments<E>,
) -> Result<Vec<E::ScalarField>> {
    same_entries("dpk_bbsplussig", z1.len(), acc.rows.len())?;
    let mut out = Vec::with_capacity(z1.len());
    acc.rows.try_for_each_chunk(CHUNK, |start, rows| {
        out.par_extend(rows.par_iter().enumerate().map(|(i, t)| {
            let j = start + i;
            let [t1, t2, t3] = &t.0;
            challenge(gens, st, j, &z1[j], t1, t2, t3)
        }));
        Ok(())
    })?;
    Ok(out)
}

/// Mixer k's response round: `x̂ − ch·x_k` for each of the six witnesses, the nonces read a chunk
/// at a time (refused if they are not one row per entry).
pub fn respond<F: PrimeField>(
    nonces: &Nonces<F>,
    w: &WitnessShares<F>,
    ch: &[F],
) -> Result<WitnessShares<F>> {
    let n = ch.len();
    let x = [&w.bs, &w.bc, &w.br, &w.d0, &w.d1, &w.d2];
    if nonces.0.len() != n || x.iter().any(|x| x.len() != n) {
        return Err(Error::Input(
            "dpk_bbsplussig: nonces, witness shares and challenges differ in length".into(),
        ));
    }
    let mut out: [Vec<F>; 6] = Default::default();
    nonces.0.try_for_each_chunk(CHUNK, |start, rows| {
        for (i, row) in rows.iter().enumerate() {
            let j = start + i;
            for (t, out) in out.iter_mut().enumerate() {
                // x̂ − x·ch, as [`crate::primitives::sharing::response_shares`] computes it for whole lists.
                out.push(row.0[t] - x[t][j] * ch[j]);
            }
        }
        Ok(())
    })?;
    let [bs, bc, br, d0, d1, d2] = out;
    Ok(WitnessShares {
        bs,
        bc,
        br,
        d0,
        d1,
        d2,
    })
}

/// The verifier: derives the generators itself, sums the shares, recomputes T1'..T3' and
/// re-hashes. Returns the indices of the failing entries.
pub fn verify<E: Pairing>(
    gens: &Generators<E>,
    st: &Statement<E>,
    proof: &Proof<E>,
) -> Result<Vec<usize>> {
    let n = st.s.len();
    let shapes_ok = [
        st.msgs.len(),
        st.c.len(),
        st.r.len(),
        proof.z1.len(),
        proof.ch.len(),
    ]
    .iter()
    .all(|&l| l == n)
        && proof.z.iter().all(|z| {
            [&z.bs, &z.bc, &z.br, &z.d0, &z.d1, &z.d2]
                .iter()
                .all(|v| v.len() == n)
        });
    if !shapes_ok {
        return Err(Error::Input(
            "dpk_bbsplussig: proof and statement lengths differ".into(),
        ));
    }
    // The generators a chunk at a time: the verifier never holds n rows of them.
    let mut bad = Vec::new();
    derive_chunks(gens, st, |start, rows| {
        bad.extend(
            rows.par_iter()
                .enumerate()
                .filter_map(|(i, d)| {
                    let j = start + i;
                    (!entry_holds(gens, st, proof, j, d)).then_some(j)
                })
                .collect::<Vec<_>>(),
        );
        Ok(())
    })?;
    Ok(bad)
}

/// True iff entry j's proof verifies against its generators' row `d`: neither S̃_j nor z1_j the
/// identity, and the challenge recomputed from T1'..T3' is the proof's.
fn entry_holds<E: Pairing>(
    gens: &Generators<E>,
    st: &Statement<E>,
    proof: &Proof<E>,
    j: usize,
    d: &DerivedRow<E>,
) -> bool {
    crate::primitives::counters::tick(1);
    if st.s[j].is_zero() || proof.z1[j].is_zero() {
        // A blinded signature or a z1 that is the identity: a zero blinding.
        return false;
    }
    let sum = |f: fn(&WitnessShares<E::ScalarField>) -> &Vec<E::ScalarField>| {
        proof.z.iter().map(|z| f(z)[j]).sum::<E::ScalarField>()
    };
    let zbs = sum(|z| &z.bs);
    let zbc = sum(|z| &z.bc);
    let zbr = sum(|z| &z.br);
    let zd0 = sum(|z| &z.d0);
    let zd1 = sum(|z| &z.d1);
    let zd2 = sum(|z| &z.d2);
    let ch = proof.ch[j];
    let z1 = proof.z1[j];
    let h2d1 = gens.eg1f2.mul(&-zd1);
    let t1 =
        vmul(d.z2, &ch) + vmul(d.geng1, &zbc) + vmul(d.geng2, &zbs) + gens.eh1f2.mul(&-zbr) + h2d1;
    let t2 = vmul(z1, &ch) + gens.eg1f2.mul(&-zbs) + gens.ft.mul(&zd0);
    // Upstream also exponentiated the identity by ch here (B11); 1_T^ch is 1_T.
    let t3 = vmul(z1, &-zbc) + h2d1 + gens.ft.mul(&zd2);
    challenge(gens, st, j, &z1, &t1, &t2, &t3) == ch
}

/// z1_{j,k} = genh2^{bS_k}·genh3^{δ0_k} for mixer k's shares (2 GT fixed-base exponentiations).
pub fn z1_shares<E: Pairing>(
    gens: &Generators<E>,
    bs: &[E::ScalarField],
    d0: &[E::ScalarField],
) -> Vec<Gt<E>> {
    bs.par_iter()
        .zip(d0)
        .map(|(b, d)| gens.eg1f2.mul(&-*b) + gens.ft.mul(d))
        .collect()
}

crate::wire_struct!(impl[F: ark_ff::PrimeField] WitnessShares<F> {
    ark bs, ark bc, ark br, ark d0, ark d1, ark d2
});
crate::wire_struct!(impl[E: Pairing] Commitments<E> { wire rows });

/// Nonces are a mixer's secret; they travel only into its own journal (as a reference to their
/// file in its store).
impl<F: PrimeField> Wire for Nonces<F> {
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out)
    }
    fn get(inp: &mut &[u8]) -> crate::Result<Self> {
        Ok(Nonces(Column::get(inp)?))
    }
}
crate::wire_struct!(impl[E: Pairing] Proof<E> { ark z1, ark ch, wire z });

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::sharing::share;
    use ark_ff::{Field, UniformRand};
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// Builds blinded BBS+ signatures directly (the protocol gets them by threshold decryption)
    /// and runs the three rounds; returns the failing entries.
    fn run<E: Pairing>(tamper: bool) -> Vec<usize> {
        run_with::<E>(tamper, None)
    }

    /// [`run`], with entry `zero` (if any) blinded by bS = δ0 = 0, so that its z1 is the
    /// identity and S̃ is the unblinded S.
    fn run_with<E: Pairing>(tamper: bool, zero: Option<usize>) -> Vec<usize> {
        run_changed::<E>(if tamper { "d2" } else { "" }, zero)
    }

    /// [`run_with`] with one change after the proof is made: `d2` (a response share), or a
    /// statement element: `msg` (msg_0), `s` (S̃_1), `c` (c̃_2), `r` (r̃_3), `y`, or the proof's
    /// `z1` (entry 0).
    fn run_changed<E: Pairing>(change: &str, zero: Option<usize>) -> Vec<usize> {
        type F<E> = <E as Pairing>::ScalarField;
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        let gens = Generators::<E>::new(&mut rng);
        let (n, m) = (4, 3);
        let x = F::<E>::rand(&mut rng);
        let y = gens.f2.mul(&x).into_affine();
        let (mut msgs, mut ss, mut cs, mut rs) = (vec![], vec![], vec![], vec![]);
        let mut w: Vec<WitnessShares<F<E>>> = vec![WitnessShares::default(); m];
        for j in 0..n {
            let (v, c, r) = (
                F::<E>::rand(&mut rng),
                F::<E>::rand(&mut rng),
                F::<E>::rand(&mut rng),
            );
            let base = gens.f1.point() + gens.g1.mul(&v) + gens.h1.mul(&r);
            let s = base * (c + x).inverse().unwrap();
            let (mut bs, bc, br, mut d0) = (
                F::<E>::rand(&mut rng),
                F::<E>::rand(&mut rng),
                F::<E>::rand(&mut rng),
                F::<E>::rand(&mut rng),
            );
            if zero == Some(j) {
                bs = F::<E>::zero();
                d0 = F::<E>::zero();
            }
            msgs.push(v);
            ss.push((s + gens.g1.mul(&bs)).into_affine());
            cs.push(c + bc);
            rs.push(r + br);
            let vals = [bs, bc, br, d0, bs * bc, d0 * bc];
            for (idx, val) in vals.into_iter().enumerate() {
                for (k, sh) in share(&val, m, &mut rng).into_iter().enumerate() {
                    let t = &mut w[k];
                    [
                        &mut t.bs, &mut t.bc, &mut t.br, &mut t.d0, &mut t.d1, &mut t.d2,
                    ][idx]
                        .push(sh);
                }
            }
        }
        let st = Statement {
            y: &y,
            msgs: &msgs,
            s: &ss,
            c: &cs,
            r: &rs,
        };
        let d = derive(&gens, &st).unwrap();
        let mut z1 = vec![Gt::<E>::zero(); n];
        for wk in &w {
            for (acc, s) in z1.iter_mut().zip(z1_shares(&gens, &wk.bs, &wk.d0)) {
                *acc += s;
            }
        }
        let mut acc: Option<Commitments<E>> = None;
        let nonces: Vec<_> = (0..m)
            .map(|_| {
                let (factors, nonces) =
                    commit_share(&gens, [Ok(d.clone())], &z1, &mut rng).unwrap();
                crate::proofs::multiply_into(&mut acc, factors).unwrap();
                nonces
            })
            .collect();
        let ch = challenges(&gens, &st, &z1, &acc.unwrap()).unwrap();
        let z = (0..m)
            .map(|k| respond(&nonces[k], &w[k], &ch).unwrap())
            .collect();
        let mut proof = Proof { z1, ch, z };
        let one = F::<E>::from(1u64);
        let (mut y2, mut msgs2, mut ss2, mut cs2, mut rs2) =
            (y, msgs.clone(), ss.clone(), cs.clone(), rs.clone());
        match change {
            "d2" => proof.z[2].d2[3] += one,
            "msg" => msgs2[0] += one,
            "s" => ss2[1] = (ss2[1] + gens.g1.base()).into_affine(),
            "c" => cs2[2] += one,
            "r" => rs2[3] += one,
            "y" => y2 = (y2 + gens.f2.base()).into_affine(),
            "z1" => proof.z1[0] += gens.ft.point(),
            _ => {}
        }
        let st = Statement {
            y: &y2,
            msgs: &msgs2,
            s: &ss2,
            c: &cs2,
            r: &rs2,
        };
        verify(&gens, &st, &proof).unwrap()
    }

    /// The proof is bound to its statement: every changed element fails the entries it touches.
    #[test]
    fn rejects_a_changed_statement() {
        type E = ark_bn254::Bn254;
        assert_eq!(run_changed::<E>("msg", None), vec![0]);
        assert_eq!(run_changed::<E>("s", None), vec![1]);
        assert_eq!(run_changed::<E>("c", None), vec![2]);
        assert_eq!(run_changed::<E>("r", None), vec![3]);
        assert_eq!(run_changed::<E>("z1", None), vec![0]);
        assert_eq!(run_changed::<E>("y", None), vec![0, 1, 2, 3]);
    }

    #[test]
    fn zero_blinding_is_rejected() {
        // bS = δ0 = 0: z1 = 1 and S̃ = S, a valid proof of a degenerate statement.
        assert_eq!(run_with::<ark_bn254::Bn254>(false, Some(1)), vec![1]);
        assert_eq!(
            run_with::<ark_bls12_381::Bls12_381>(false, Some(2)),
            vec![2]
        );
    }

    #[test]
    fn identity_blinded_signature_is_rejected() {
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        let gens = Generators::<ark_bn254::Bn254>::new(&mut rng);
        let y = gens.f2.mul(&ark_bn254::Fr::rand(&mut rng)).into_affine();
        let one = [ark_bn254::Fr::rand(&mut rng)];
        let s = [ark_bn254::G1Affine::zero()];
        let st = Statement {
            y: &y,
            msgs: &one,
            s: &s,
            c: &one,
            r: &one,
        };
        let proof = Proof {
            z1: vec![gens.ft.point()],
            ch: one.to_vec(),
            z: vec![WitnessShares {
                bs: one.to_vec(),
                bc: one.to_vec(),
                br: one.to_vec(),
                d0: one.to_vec(),
                d1: one.to_vec(),
                d2: one.to_vec(),
            }],
        };
        assert_eq!(verify(&gens, &st, &proof).unwrap(), vec![0]);
    }

    fn completes_and_rejects_a_tampered_share<E: Pairing>() {
        assert!(run::<E>(false).is_empty());
        assert_eq!(run::<E>(true), vec![3]);
    }

    crate::curve_tests!(completes_and_rejects_a_tampered_share);

    /// The running product is entry by entry, over chunks; factors of other entries than the
    /// product's, and commitments of other entries than z1's, are refused.
    #[test]
    fn commitments_multiply_entrywise_and_refuse_other_lengths() {
        type E = ark_bn254::Bn254;
        let mut rng = ChaCha20Rng::seed_from_u64(13);
        let gens = Generators::<E>::new(&mut rng);
        let n = CHUNK + 3;
        let row = |j: u64| CommitRow::<E>([gens.ft.point() * ark_bn254::Fr::from(j); 3]);
        let column = |rows: Vec<CommitRow<E>>| Commitments {
            rows: Column::from_slice("test commitments", &rows).unwrap(),
        };
        let mut acc = column((0..n as u64).map(row).collect());
        acc.add(&column((0..n as u64).map(|j| row(2 * j)).collect()))
            .unwrap();
        let got = acc.rows.load().unwrap();
        assert_eq!(got.len(), n);
        assert!((0..n).all(|j| got[j].0 == row(3 * j as u64).0));
        let short = column((0..n as u64 - 1).map(row).collect());
        assert!(matches!(acc.add(&short), Err(Error::Input(_))));
        let st_y = gens.f2.base();
        let one = vec![ark_bn254::Fr::from(1u64); n];
        let s = vec![gens.g1.base(); n];
        let st = Statement {
            y: &st_y,
            msgs: &one,
            s: &s,
            c: &one,
            r: &one,
        };
        let z1 = vec![gens.ft.point(); n - 1];
        assert!(challenges(&gens, &st, &z1, &acc).is_err());
    }
}
