//! `get_verfsigs_rev` and `check_verfsigs_rev` (docs/protocol.md §7.2-§7.3): the verifier's
//! BBS+ quasi-signatures on the commitments γ_i, their encryptions with the randomness revealed,
//! and the mixers' check of both.

use super::*;

/// The verifier's BBS+ quasi-signatures on the γ_i and their encryptions (S under ElGamal, c
/// and r̂ under threshold Paillier), with the randomness revealed (B17 in docs/fixes.md).
#[derive(Clone)]
pub(crate) struct VerfSigs<E: Pairing> {
    pub y: E::G2Affine,
    pub sigs: Vec<QuasiSig<E>>,
    pub s_ct: Vec<Ciphertext<E>>,
    pub s_rho: Vec<E::ScalarField>,
    pub c_ct: Column<Integer>,
    pub c_rand: Column<Integer>,
    pub r_ct: Column<Integer>,
    pub r_rand: Column<Integer>,
}

crate::wire_struct!(impl[E: Pairing] VerfSigs<E> {
    ark y, wire sigs, wire s_ct, ark s_rho, wire c_ct, wire c_rand, wire r_ct, wire r_rand
});

impl<E: Pairing> VerfSigs<E> {
    /// True iff all three encryptions of every signature are what the revealed randomness
    /// gives: the mixers' check that the verifier encrypted what it signed. Reads the Paillier
    /// lists a chunk at a time; false if the store cannot give them back.
    pub(crate) fn encryptions_match(
        &self,
        gens: &Generators<E>,
        eg: &elgamal::PublicKey<E>,
        th: &ThresholdPublicKey,
    ) -> bool {
        let n = self.sigs.len();
        let lengths = [self.s_ct.len(), self.s_rho.len()]
            .into_iter()
            .chain([&self.c_ct, &self.c_rand, &self.r_ct, &self.r_rand].map(Column::len));
        if !lengths.into_iter().all(|l| l == n) {
            return false;
        }
        let (mut c_ct, mut c_rand) = (self.c_ct.chunks(CHUNK), self.c_rand.chunks(CHUNK));
        let (mut r_ct, mut r_rand) = (self.r_ct.chunks(CHUNK), self.r_rand.chunks(CHUNK));
        let mut start = 0;
        while start < n {
            let (Ok(c_ct), Ok(c_rand), Ok(r_ct), Ok(r_rand)) = (
                c_ct.next_in_step(),
                c_rand.next_in_step(),
                r_ct.next_in_step(),
                r_rand.next_in_step(),
            ) else {
                return false;
            };
            let ok = (0..c_ct.len()).into_par_iter().all(|j| {
                let (i, q) = (start + j, &self.sigs[start + j]);
                elgamal::encrypt(gens, eg, &q.s, &self.s_rho[i]) == self.s_ct[i]
                    && th.encrypt_with(&scalar_to_integer(&q.c), &c_rand[j]) == c_ct[j]
                    && th.encrypt_with(&scalar_to_integer(&q.r_hat), &r_rand[j]) == r_ct[j]
            });
            if !ok {
                return false;
            }
            start += c_ct.len();
        }
        true
    }
}

/// DB-RSM's signature scheme: BBS+ quasi-signatures on the senders' commitments γ_i.
pub(crate) struct BbsPlus<'a, E: Pairing> {
    pub(super) gammas: &'a [E::G1Affine],
}

impl<E: Pairing> Scheme<E> for BbsPlus<'_, E> {
    type VerfSigs = VerfSigs<E>;

    const LABELS: Labels = Labels {
        get_verfsigs: [
            "get_verfsigs_rev",
            "creating BBS+ signatures and encryptions",
        ],
        check_verfsigs: [
            "check_verfsigs_rev",
            "checking verifier's signatures and encryptions",
            "status_verfsigs_rev",
        ],
        dpk_rounds: [
            "creating dpk_bbsplussig commit message",
            "creating dpk_bbsplussig challenge",
            "creating dpk_bbsplussig response message",
        ],
        dpk_verifs: [
            "dpk_bbsplussig_nizkverifs",
            "verifying dpk_bbsplussig proofs",
            "status_dpk_bbsplussig",
        ],
    };

    /// A quasi-signature (S, c, r̂) on every γ_i under a fresh key, S encrypted under ElGamal, c
    /// and r̂ under threshold Paillier.
    fn sign(&self, cfg: &Config, public: &Public<E>, rng: &mut ChaCha20Rng) -> Result<VerfSigs<E>> {
        let (gens, eg, th, n) = (&public.gens, &public.eg, &public.th, public.n);
        let sk = SigningKey::<E>::generate(gens, rng);
        let mut sigs = bbsplus::sign_commitments(gens, &sk, self.gammas, rng);
        if cfg.cheats(Tamper::VerfSigRev, Cheater::Verifier) {
            sigs[0].s = (sigs[0].s.into_group() + gens.g1.point()).into_affine();
        }
        let s: Vec<E::G1Affine> = sigs.iter().map(|q| q.s).collect();
        let (s_ct, s_rho) = elgamal::encrypt_many(gens, eg, &s, rng);
        let mut c_rand: Vec<Integer> = (0..n).map(|_| th.random_r(rng)).collect();
        let r_rand: Vec<Integer> = (0..n).map(|_| th.random_r(rng)).collect();
        // Each encryption goes to the store as it is made, a chunk at a time.
        let encrypt = |name: &str, part: fn(&QuasiSig<E>) -> &E::ScalarField, rand: &[Integer]| {
            let mut w = ColumnWriter::new(name)?;
            for (chunk, rand) in sigs.chunks(CHUNK).zip(rand.chunks(CHUNK)) {
                let cts: Vec<Integer> = chunk
                    .par_iter()
                    .zip(rand)
                    .map(|(q, x)| th.encrypt_with(&scalar_to_integer(part(q)), x))
                    .collect();
                w.extend(&cts)?;
            }
            w.finish()
        };
        let c_ct = encrypt("verifier c encryptions", |q| &q.c, &c_rand)?;
        if cfg.cheats(Tamper::VerfSigRevEnc, Cheater::Verifier) {
            // The revealed randomness of c's encryption is not the one used.
            c_rand[0] += 1;
        }
        let r_ct = encrypt("verifier r encryptions", |q| &q.r_hat, &r_rand)?;
        let c_rand = Column::from_slice("verifier c randomness", &c_rand)?;
        let r_rand = Column::from_slice("verifier r randomness", &r_rand)?;
        Ok(VerfSigs {
            y: sk.y,
            sigs,
            s_ct,
            s_rho,
            c_ct,
            c_rand,
            r_ct,
            r_rand,
        })
    }

    fn verfsigs_hold(&self, public: &Public<E>, vs: &VerfSigs<E>, rng: &mut ChaCha20Rng) -> bool {
        let (gens, eg, th) = (&public.gens, &public.eg, &public.th);
        bbsplus::batch_verify_commitments(gens, &vs.y, self.gammas, &vs.sigs, rng).is_ok()
            && vs.encryptions_match(gens, eg, th)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::group::Generators;
    use crate::primitives::pedersen::commit_g1;
    use crate::primitives::thpaillier::ThresholdKey;
    use rand::SeedableRng;

    /// The mixers' check of the verifier's encryptions catches each of the three components.
    #[test]
    fn encryption_check_rejects_each_component() {
        type E = ark_bn254::Bn254;
        type F = ark_bn254::Fr;
        let mut rng = ChaCha20Rng::seed_from_u64(32);
        let gens = Generators::<E>::new(&mut rng);
        let (eg, _) = elgamal::keygen(&gens, 2, &mut rng).unwrap();
        let th = ThresholdKey::fixed_small_test_key(&mut rng, 2).pk;
        let sk = SigningKey::<E>::generate(&gens, &mut rng);
        let gammas: Vec<_> = (0..3)
            .map(|_| commit_g1(&gens, &F::rand(&mut rng), &F::rand(&mut rng)).into_affine())
            .collect();
        let sigs = bbsplus::sign_commitments(&gens, &sk, &gammas, &mut rng);
        let s: Vec<_> = sigs.iter().map(|q| q.s).collect();
        let (s_ct, s_rho) = elgamal::encrypt_many(&gens, &eg, &s, &mut rng);
        let enc = |x: &F, rng: &mut ChaCha20Rng| th.encrypt(&scalar_to_integer(x), rng);
        let (c_ct, c_rand): (Vec<_>, Vec<_>) = sigs.iter().map(|q| enc(&q.c, &mut rng)).unzip();
        let (r_ct, r_rand): (Vec<_>, Vec<_>) = sigs.iter().map(|q| enc(&q.r_hat, &mut rng)).unzip();
        let col = |v: &[Integer]| Column::from_slice("test", v).unwrap();
        let vs = VerfSigs {
            y: sk.y,
            sigs,
            s_ct,
            s_rho,
            c_ct: col(&c_ct),
            c_rand: col(&c_rand),
            r_ct: col(&r_ct),
            r_rand: col(&r_rand),
        };
        assert!(vs.encryptions_match(&gens, &eg, &th));
        // A copy of a stored list with one change.
        let edit = |c: &mut Column<Integer>, f: &dyn Fn(&mut Vec<Integer>)| {
            let mut v = c.load().unwrap();
            f(&mut v);
            *c = col(&v);
        };
        let changed = |f: &dyn Fn(&mut VerfSigs<E>)| {
            let mut v = vs.clone();
            f(&mut v);
            v.encryptions_match(&gens, &eg, &th)
        };
        assert!(!changed(&|v| v.s_rho[1] += F::one()), "S");
        assert!(!changed(&|v| edit(&mut v.c_rand, &|x| x[2] += 1)), "c");
        assert!(!changed(&|v| edit(&mut v.r_rand, &|x| x[0] += 1)), "r");
        assert!(!changed(&|v| v.sigs[0].c += F::one()), "signature's c");
        assert!(
            !changed(&|v| edit(&mut v.r_ct, &|x| {
                x.pop();
            })),
            "length"
        );
    }
}
