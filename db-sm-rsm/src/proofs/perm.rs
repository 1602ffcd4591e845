//! Permutations, permutation commitments and the Terelius-Wikström proof of knowledge of a
//! commitment's opening.
//!
//! Convention: applying π to a list gives `out_j = in_{π(j)}`; a mixer's forward
//! shuffle is `out_j = Reenc(in_{π(j)})`.
//!
//! The commitment is TW's column-wise commitment to the permutation matrix,
//! `a_i = h^{s_i} · G_{π⁻¹(i)}`. The proof shows knowledge of π and s with respect to a
//! Fiat-Shamir challenge vector e (80-bit entries): with `e′_j = e_{π(j)}`,
//! `∏ a_i^{e_i} = h^{Σ s_i e_i} · ∏ G_j^{e′_j}`, `∏ a_i / ∏ G_i = h^{Σ s_i}`, and a chain
//! `B_j = h^{s′_j} · B_{j-1}^{e′_j}` (B_{-1} = g1) shows `∏ e′_j = ∏ e_i`. Unlike upstream (F1, S6)
//! e is derived by hashing the generators, the key and the commitment, and the challenge hashes
//! the whole statement.
//!
//! The prover knows the discrete logarithms of every B_j with respect to (h1, g1), so it computes
//! B_j and the commitments CB_j as two fixed-base exponentiations each instead of a chained
//! variable-base one, and does them in parallel.

use ark_ec::pairing::Pairing;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{One, UniformRand, Zero};
use ark_serialize::CanonicalSerialize;
use rand::{CryptoRng, Rng, RngCore};
use rayon::prelude::*;

use crate::error::ensure;
use crate::primitives::group::{
    challenge_short_vec, msm, msm_short, mul_var, mul_var_joint, Generators,
};
use crate::primitives::pedersen::CommitmentKey;
use crate::primitives::transcript::Transcript;
use crate::{Error, Result};

/// Which way a mixer's permutation is applied: forward (mixing and DB-RSM, `out_j = in_{π(j)}`)
/// or backward (DB-SM's return to input order, `out_i = in_{π⁻¹(i)}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Apply π.
    Forward,
    /// Apply π⁻¹.
    Reverse,
}

/// A permutation π of 0..n-1 and its inverse (`inv[pi[i]] = i`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permutation {
    /// π: `pi[j]` is the input position of output j.
    pub pi: Vec<usize>,
    /// π⁻¹.
    pub inv: Vec<usize>,
}

/// A permutation travels (into its mixer's own journal only: it is secret) as π; the inverse
/// is recomputed, and a list that is no permutation refused.
impl crate::primitives::wire::Wire for Permutation {
    fn put(&self, out: &mut Vec<u8>) {
        self.pi.put(out)
    }
    fn get(inp: &mut &[u8]) -> Result<Self> {
        Permutation::from_vec(Vec::get(inp)?)
    }
}

impl Permutation {
    /// A uniformly random permutation (Fisher-Yates driven by the caller's CSPRNG).
    pub fn random(n: usize, rng: &mut (impl RngCore + CryptoRng)) -> Self {
        let mut pi: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            pi.swap(i, rng.gen_range(0..=i));
        }
        Self::from_vec(pi).expect("a shuffled range is a permutation")
    }

    /// Checks that `pi` is a permutation of 0..n-1 and builds the inverse.
    pub fn from_vec(pi: Vec<usize>) -> Result<Self> {
        let n = pi.len();
        let mut inv = vec![usize::MAX; n];
        for (i, &p) in pi.iter().enumerate() {
            if p >= n || inv[p] != usize::MAX {
                return Err(Error::Input("not a permutation".into()));
            }
            inv[p] = i;
        }
        Ok(Permutation { pi, inv })
    }

    /// The identity permutation of 0..n-1.
    pub fn identity(n: usize) -> Self {
        Self::from_vec((0..n).collect()).expect("identity is a permutation")
    }

    /// n.
    pub fn len(&self) -> usize {
        self.pi.len()
    }

    /// True for the permutation of nothing.
    pub fn is_empty(&self) -> bool {
        self.pi.is_empty()
    }

    /// The inverse permutation π⁻¹.
    pub fn inverse(&self) -> Self {
        Permutation {
            pi: self.inv.clone(),
            inv: self.pi.clone(),
        }
    }

    /// `out_j = input_{π(j)}`.
    pub fn apply<T: Clone>(&self, input: &[T]) -> Result<Vec<T>> {
        self.check_len(input.len())?;
        Ok(self.pi.iter().map(|&p| input[p].clone()).collect())
    }

    /// `out_i = input_{π⁻¹(i)}`, which undoes [`Permutation::apply`].
    pub fn apply_inverse<T: Clone>(&self, input: &[T]) -> Result<Vec<T>> {
        self.check_len(input.len())?;
        Ok(self.inv.iter().map(|&p| input[p].clone()).collect())
    }

    /// [`Permutation::apply`] or [`Permutation::apply_inverse`], by direction.
    pub fn arrange<T: Clone>(&self, dir: Direction, input: &[T]) -> Result<Vec<T>> {
        match dir {
            Direction::Forward => self.apply(input),
            Direction::Reverse => self.apply_inverse(input),
        }
    }

    fn check_len(&self, n: usize) -> Result<()> {
        if n != self.len() {
            return Err(Error::Input(format!(
                "list of length {n} for a permutation of {}",
                self.len()
            )));
        }
        Ok(())
    }
}

/// A permutation commitment `a_i = h^{s_i} · G_{π⁻¹(i)}` with its opening.
#[derive(Clone, Debug)]
pub struct PermCommitment<E: Pairing> {
    /// a_0, ..., a_{n-1}.
    pub a: Vec<E::G1Affine>,
}

/// Commits to π with randomness s (one fixed-base exponentiation per entry, in parallel).
pub fn commit_perm<E: Pairing>(
    gens: &Generators<E>,
    ck: &CommitmentKey<E>,
    perm: &Permutation,
    s: &[E::ScalarField],
) -> Result<PermCommitment<E>> {
    ck.check_h(gens)?;
    let n = perm.len();
    if s.len() != n || n > ck.len() {
        return Err(Error::Input(format!(
            "permutation of {n}, {} randomisers, key of {}",
            s.len(),
            ck.len()
        )));
    }
    let a: Vec<E::G1> = (0..n)
        .into_par_iter()
        .map(|i| gens.h1.mul(&s[i]) + ck.gens[perm.inv[i]])
        .collect();
    Ok(PermCommitment {
        a: E::G1::normalize_batch(&a),
    })
}

/// Fresh commitment randomness and the commitment, for a dealer or a mixer.
pub fn commit_perm_random<E: Pairing>(
    gens: &Generators<E>,
    ck: &CommitmentKey<E>,
    perm: &Permutation,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<(PermCommitment<E>, Vec<E::ScalarField>)> {
    let s: Vec<E::ScalarField> = (0..perm.len()).map(|_| E::ScalarField::rand(rng)).collect();
    Ok((commit_perm(gens, ck, perm, &s)?, s))
}

/// The TW proof of knowledge of a permutation commitment's opening:
/// `(B⃗, c, z_t, z_k, z⃗_{e′}, z⃗_{s′}, z_w)` with responses `z = x̂ − c·x`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermProof<E: Pairing> {
    /// The B-chain B_0, ..., B_{n-1}.
    pub b: Vec<E::G1Affine>,
    /// The challenge.
    pub c: E::ScalarField,
    /// Response for t = Σ s_i.
    pub z_t: E::ScalarField,
    /// Response for k = Σ s_i e_i.
    pub z_k: E::ScalarField,
    /// Responses for e′⃗.
    pub z_e: Vec<E::ScalarField>,
    /// Responses for the B-chain's exponents s′⃗.
    pub z_s: Vec<E::ScalarField>,
    /// Response for w, the h1-exponent of the B-chain's last element.
    pub z_w: E::ScalarField,
}

impl<E: Pairing> PermProof<E> {
    /// Serialised size (compressed points and scalars).
    pub fn size_bytes(&self) -> usize {
        let g = E::G1Affine::zero().compressed_size();
        let f = self.c.compressed_size();
        self.b.len() * g + (4 + self.z_e.len() + self.z_s.len()) * f
    }
}

/// The commitments of the opening proof (first message), shared with the shuffle proof.
pub(crate) struct PermCommit<E: Pairing> {
    pub b: Vec<E::G1Affine>,
    pub c1: E::G1Affine,
    pub c2: E::G1Affine,
    pub cb: Vec<E::G1Affine>,
    pub cu: E::G1Affine,
}

/// The prover's state between commitment and response.
pub(crate) struct PermProverState<E: Pairing> {
    t: E::ScalarField,
    k: E::ScalarField,
    e_perm: Vec<E::ScalarField>,
    s_prime: Vec<E::ScalarField>,
    w: E::ScalarField,
    t_hat: E::ScalarField,
    k_hat: E::ScalarField,
    /// ê′_j, also used by the shuffle proof's ciphertext commitment.
    pub e_hat: Vec<E::ScalarField>,
    s_hat: Vec<E::ScalarField>,
    w_hat: E::ScalarField,
}

/// The statement's e-vector: n κ_e-bit scalars from a transcript that already holds the
/// statement (generators, key, commitment, and for a shuffle the ciphertexts).
pub(crate) fn derive_e<E: Pairing>(
    gens: &Generators<E>,
    t: &mut Transcript,
    n: usize,
) -> Vec<E::ScalarField> {
    challenge_short_vec(t, b"e", n, gens.batch_bits())
}

/// Absorbs the common statement: generators, key, commitment.
pub(crate) fn append_statement<E: Pairing>(
    t: &mut Transcript,
    gens: &Generators<E>,
    ck: &CommitmentKey<E>,
    a: &PermCommitment<E>,
) {
    gens.append_to(t);
    ck.append_to(t);
    t.append_ark_slice(b"permcomm", &a.a);
}

pub(crate) fn append_commit<E: Pairing>(t: &mut Transcript, pc: &PermCommit<E>) {
    t.append_ark_slice(b"B", &pc.b);
    t.append_ark(b"C1", &pc.c1);
    t.append_ark(b"C2", &pc.c2);
    t.append_ark_slice(b"CB", &pc.cb);
    t.append_ark(b"CU", &pc.cu);
}

/// First move of the opening proof: the B-chain and the commitments.
pub(crate) fn prove_commit<E: Pairing>(
    gens: &Generators<E>,
    ck: &CommitmentKey<E>,
    perm: &Permutation,
    s: &[E::ScalarField],
    e: &[E::ScalarField],
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<(PermCommit<E>, PermProverState<E>)> {
    let n = perm.len();
    if n == 0 || s.len() != n || e.len() != n || n > ck.len() {
        return Err(Error::Input(
            "permutation proof: inconsistent lengths".into(),
        ));
    }
    let e_perm = perm.apply(e)?;
    let t: E::ScalarField = s.iter().sum();
    let k: E::ScalarField = s.iter().zip(e).map(|(s, e)| *s * e).sum();
    let rand_vec = |rng: &mut _| -> Vec<E::ScalarField> {
        (0..n).map(|_| E::ScalarField::rand(rng)).collect()
    };
    let s_prime = rand_vec(rng);
    // w_j = s′_j + w_{j-1}·e′_j and the prefix products P_j = ∏_{l≤j} e′_l, so that
    // B_j = h^{w_j} · g^{P_j}.
    let mut w_pre = Vec::with_capacity(n);
    let mut p_pre = Vec::with_capacity(n);
    let (mut w, mut p) = (E::ScalarField::zero(), E::ScalarField::one());
    for j in 0..n {
        w = s_prime[j] + w * e_perm[j];
        p *= e_perm[j];
        w_pre.push(w);
        p_pre.push(p);
    }
    let (t_hat, k_hat, w_hat) = (
        E::ScalarField::rand(rng),
        E::ScalarField::rand(rng),
        E::ScalarField::rand(rng),
    );
    let e_hat = rand_vec(rng);
    let s_hat = rand_vec(rng);
    let b: Vec<E::G1> = (0..n)
        .into_par_iter()
        .map(|j| gens.h1.mul(&w_pre[j]) + gens.g1.mul(&p_pre[j]))
        .collect();
    // CB_j = h^{ŝ_j}·B_{j-1}^{ê_j} = h^{ŝ_j + w_{j-1}ê_j} · g^{P_{j-1}ê_j}, with w_{-1} = 0, P_{-1} = 1.
    let cb: Vec<E::G1> = (0..n)
        .into_par_iter()
        .map(|j| {
            let (wp, pp) = if j == 0 {
                (E::ScalarField::zero(), E::ScalarField::one())
            } else {
                (w_pre[j - 1], p_pre[j - 1])
            };
            gens.h1.mul(&(s_hat[j] + wp * e_hat[j])) + gens.g1.mul(&(pp * e_hat[j]))
        })
        .collect();
    let c1 = gens.h1.mul(&t_hat);
    let c2 = gens.h1.mul(&k_hat) + msm::<E::G1>(&ck.gens[..n], &e_hat)?;
    let cu = gens.h1.mul(&w_hat);
    let mut singles = E::G1::normalize_batch(&[c1, c2, cu]).into_iter();
    let pc = PermCommit {
        b: E::G1::normalize_batch(&b),
        c1: singles.next().unwrap(),
        c2: singles.next().unwrap(),
        cb: E::G1::normalize_batch(&cb),
        cu: singles.next().unwrap(),
    };
    let st = PermProverState {
        t,
        k,
        e_perm,
        s_prime,
        w,
        t_hat,
        k_hat,
        e_hat,
        s_hat,
        w_hat,
    };
    Ok((pc, st))
}

/// Responses `x̂ − c·x`.
pub(crate) fn prove_respond<E: Pairing>(
    pc: PermCommit<E>,
    st: PermProverState<E>,
    c: E::ScalarField,
) -> PermProof<E> {
    let resp = |hat: &[E::ScalarField], x: &[E::ScalarField]| -> Vec<E::ScalarField> {
        hat.iter().zip(x).map(|(h, x)| *h - c * x).collect()
    };
    PermProof {
        b: pc.b,
        c,
        z_t: st.t_hat - c * st.t,
        z_k: st.k_hat - c * st.k,
        z_e: resp(&st.e_hat, &st.e_perm),
        z_s: resp(&st.s_hat, &st.s_prime),
        z_w: st.w_hat - c * st.w,
    }
}

/// Recomputes the commitments from the proof as `L^c · Z` . The caller
/// hashes them and compares with `proof.c`.
pub(crate) fn recompute_commit<E: Pairing>(
    gens: &Generators<E>,
    ck: &CommitmentKey<E>,
    a: &PermCommitment<E>,
    e: &[E::ScalarField],
    proof: &PermProof<E>,
) -> Result<PermCommit<E>> {
    ck.check_h(gens)?;
    let n = a.a.len();
    ensure(
        n > 0
            && n <= ck.len()
            && e.len() == n
            && proof.b.len() == n
            && proof.z_e.len() == n
            && proof.z_s.len() == n,
        "permutation proof: lengths do not match the statement",
    )?;
    let c = proof.c;
    // LC1 = ∏a_i / ∏G_i, LC2 = ∏a_i^{e_i} (80-bit exponents), LW = B_{n-1} / g^{∏e_i}.
    let sum_a: E::G1 = a.a.par_iter().map(|x| x.into_group()).sum();
    let sum_g: E::G1 = ck.gens[..n].par_iter().map(|x| x.into_group()).sum();
    let lc1 = sum_a - sum_g;
    let lc2 = msm_short::<E::G1>(&a.a, e, gens.batch_bits() as usize)?;
    let prod_e: E::ScalarField = e.iter().product();
    let lw = proof.b[n - 1].into_group() - gens.g1.mul(&prod_e);

    let c1 = mul_var(lc1, &c) + gens.h1.mul(&proof.z_t);
    let c2 = mul_var(lc2, &c) + gens.h1.mul(&proof.z_k) + msm::<E::G1>(&ck.gens[..n], &proof.z_e)?;
    let cu = mul_var(lw, &c) + gens.h1.mul(&proof.z_w);
    let cb: Vec<E::G1> = (0..n)
        .into_par_iter()
        .map(|j| {
            let own = (proof.b[j].into_group(), c);
            let vars = if j == 0 {
                mul_var_joint(&[own]) + gens.g1.mul(&proof.z_e[0])
            } else {
                mul_var_joint(&[own, (proof.b[j - 1].into_group(), proof.z_e[j])])
            };
            vars + gens.h1.mul(&proof.z_s[j])
        })
        .collect();
    let mut singles = E::G1::normalize_batch(&[c1, c2, cu]).into_iter();
    Ok(PermCommit {
        b: proof.b.clone(),
        c1: singles.next().unwrap(),
        c2: singles.next().unwrap(),
        cb: E::G1::normalize_batch(&cb),
        cu: singles.next().unwrap(),
    })
}

const DOMAIN: &[u8] = b"db-sm-rsm/perm-opening/v1";

/// The transcript after the statement and the derived e-vector.
fn statement_transcript<E: Pairing>(
    gens: &Generators<E>,
    ck: &CommitmentKey<E>,
    a: &PermCommitment<E>,
) -> (Transcript, Vec<E::ScalarField>) {
    let mut t = Transcript::new(DOMAIN);
    append_statement(&mut t, gens, ck, a);
    let e = derive_e(gens, &mut t, a.a.len());
    t.append_ark_slice(b"e", &e);
    (t, e)
}

/// Proves knowledge of (π, s) opening the commitment `a` (TW Protocol 1, Fiat-Shamir).
pub fn prove_perm<E: Pairing>(
    gens: &Generators<E>,
    ck: &CommitmentKey<E>,
    a: &PermCommitment<E>,
    perm: &Permutation,
    s: &[E::ScalarField],
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<PermProof<E>> {
    if a.a.len() != perm.len() {
        return Err(Error::Input(
            "commitment and permutation lengths differ".into(),
        ));
    }
    let (mut t, e) = statement_transcript(gens, ck, a);
    let (pc, st) = prove_commit(gens, ck, perm, s, &e, rng)?;
    append_commit(&mut t, &pc);
    let c = t.challenge_scalar(b"c");
    Ok(prove_respond(pc, st, c))
}

/// Verifies a [`PermProof`] for the commitment `a`.
pub fn verify_perm<E: Pairing>(
    gens: &Generators<E>,
    ck: &CommitmentKey<E>,
    a: &PermCommitment<E>,
    proof: &PermProof<E>,
) -> Result<()> {
    let (mut t, e) = statement_transcript(gens, ck, a);
    let pc = recompute_commit(gens, ck, a, &e, proof)?;
    append_commit(&mut t, &pc);
    let c: E::ScalarField = t.challenge_scalar(b"c");
    ensure(
        c == proof.c,
        "permutation commitment proof: challenge mismatch",
    )
}

crate::wire_struct!(impl[E: Pairing] PermCommitment<E> { ark a });
crate::wire_struct!(impl[E: Pairing] PermProof<E> {
    ark b, ark c, ark z_t, ark z_k, ark z_e, ark z_s, ark z_w
});

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn permutation_conventions() {
        let mut rng = ChaCha20Rng::seed_from_u64(20);
        let p = Permutation::random(9, &mut rng);
        let input: Vec<usize> = (100..109).collect();
        let out = p.apply(&input).unwrap();
        for j in 0..9 {
            assert_eq!(out[j], input[p.pi[j]]);
            assert_eq!(p.inv[p.pi[j]], j);
        }
        assert_eq!(p.apply_inverse(&out).unwrap(), input);
        assert_eq!(p.inverse().apply(&out).unwrap(), input);
        assert!(Permutation::from_vec(vec![0, 0, 1]).is_err());
        assert!(Permutation::from_vec(vec![0, 3, 1]).is_err());
        assert!(p.apply(&input[..8]).is_err());
        // Every arrangement of 3 items shows up: the sampler is not stuck.
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            seen.insert(Permutation::random(3, &mut rng).pi);
        }
        assert_eq!(seen.len(), 6);
    }

    fn perm_proof<E: Pairing>() {
        let mut rng = ChaCha20Rng::seed_from_u64(21);
        let gens = Generators::<E>::new(&mut rng);
        for n in [1usize, 2, 7] {
            let ck = CommitmentKey::<E>::new(&gens, n, &mut rng);
            let perm = Permutation::random(n, &mut rng);
            let (a, s) = commit_perm_random(&gens, &ck, &perm, &mut rng).unwrap();
            // The commitment is a_i = h^{s_i} · G_{π⁻¹(i)}.
            for (i, (ai, si)) in a.a.iter().zip(&s).enumerate() {
                assert_eq!(
                    *ai,
                    (gens.h1.point() * si + ck.gens[perm.inv[i]]).into_affine()
                );
            }
            let proof = prove_perm(&gens, &ck, &a, &perm, &s, &mut rng).unwrap();
            verify_perm(&gens, &ck, &a, &proof).unwrap();
            assert!(proof.size_bytes() > 0);

            // Tampers: a response, a chain element, the challenge, the statement.
            let mut bad = proof.clone();
            bad.z_e[n - 1] += E::ScalarField::one();
            assert!(verify_perm(&gens, &ck, &a, &bad).is_err());
            let mut bad = proof.clone();
            bad.b[0] = (bad.b[0] + gens.g1.base()).into_affine();
            assert!(verify_perm(&gens, &ck, &a, &bad).is_err());
            let mut bad = proof.clone();
            bad.z_w += E::ScalarField::one();
            assert!(verify_perm(&gens, &ck, &a, &bad).is_err());
            let mut bad = proof.clone();
            bad.c += E::ScalarField::one();
            assert!(verify_perm(&gens, &ck, &a, &bad).is_err());
            let mut bad_a = a.clone();
            bad_a.a[0] = (bad_a.a[0] + gens.h1.base()).into_affine();
            assert!(verify_perm(&gens, &ck, &bad_a, &proof).is_err());
            let mut short = proof.clone();
            short.z_s.pop();
            assert!(verify_perm(&gens, &ck, &a, &short).is_err());
        }
        // A commitment to something that is not a permutation (a repeated column) cannot be
        // proved with the honest algorithm: the product check fails.
        let n = 3;
        let ck = CommitmentKey::<E>::new(&gens, n, &mut rng);
        let perm = Permutation::identity(n);
        let s: Vec<E::ScalarField> = (0..n).map(|_| E::ScalarField::rand(&mut rng)).collect();
        let mut a = commit_perm(&gens, &ck, &perm, &s).unwrap();
        a.a[2] = (gens.h1.point() * s[2] + ck.gens[1]).into_affine();
        let proof = prove_perm(&gens, &ck, &a, &perm, &s, &mut rng).unwrap();
        assert!(verify_perm(&gens, &ck, &a, &proof).is_err());
    }

    crate::curve_tests!(perm_proof);
}
