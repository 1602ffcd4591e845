//! Cheats that need a hook into the prover's witness, under halo2's MockProver: each is refused
//! by the full relation, and satisfies it once the one constraint it targets is left out (so each
//! test fails if that constraint is removed).

use halo2_base::halo2_proofs::halo2curves::bn256::{Fq, Fq12, Fq2, Fr, G2Affine, G2};
use halo2_base::halo2_proofs::halo2curves::ff::Field;
use halo2_base::halo2_proofs::halo2curves::group::{Curve, Group};
use halo2_base::halo2_proofs::halo2curves::CurveAffine;
use halo2_base::utils::{decompose_biguint, fe_to_biguint, modulus};
use num_bigint::BigUint;
use num_traits::One;
use rand_chacha::ChaCha20Rng;
use rand_core::{OsRng, RngCore, SeedableRng};

use super::{Cheat, Omit, Statement};
use crate::circuit::bn254::{self, Signing};
use crate::circuit::{poseidon, proof, Shape, LIMB_BITS, NUM_LIMBS};

fn rng() -> ChaCha20Rng {
    let mut seed = [0u8; 32];
    OsRng.fill_bytes(&mut seed);
    ChaCha20Rng::from_seed(seed)
}

/// One MockProver at a time: each holds about 4 GB.
static MOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// How many constraints the MockProver finds unsatisfied (k = 19 holds n ≤ 2).
fn failures(st: &Statement) -> usize {
    let _one = MOCK.lock().unwrap_or_else(|e| e.into_inner());
    proof::mock_check(st, &Shape::with_k(19), st.instances())
        .err()
        .unwrap_or(0)
}

fn satisfied(st: &Statement) -> bool {
    failures(st) == 0
}

/// Refused as it is; satisfied with `omit` left out.
fn refused_by(mut st: Statement, omit: Omit) {
    assert!(!satisfied(&st), "the cheat is refused");
    st.omit = Some(omit);
    assert!(
        satisfied(&st),
        "without {omit:?} the cheat satisfies the rest of the relation"
    );
}

/// σ_1's y coordinate held as its value plus q (below 2^254, so its limbs pass the range check a
/// loaded coordinate gets), with the aggregate made from the weights those limbs give. It is
/// refused twice: by constraint 1's canonicity check, and inside halo2-ecc's multi-scalar
/// multiplication, which reduces every input point's y (its test for the point at infinity) and
/// x (its strict additions). So left out, constraint 1 still leaves it refused, with fewer
/// constraints failing: the test asserts both, and fails if constraint 1 is removed.
#[test]
fn a_non_canonical_signature_coordinate_is_refused() {
    let mut r = rng();
    let q = modulus::<Fq>();
    let room = (BigUint::one() << 254u32) - &q;
    let y = true;
    let signing = loop {
        let s = Signing::new(2, b"non-canonical", &mut r);
        if fe_to_biguint(&s.signatures[0].y) < room {
            break s;
        }
    };
    let mut st = Statement::honest(&signing);
    let coordinate = if y {
        st.signatures[0].y
    } else {
        st.signatures[0].x
    };
    let mut limbs: Vec<Fr> = st.signatures.iter().flat_map(bn254::g1_limbs).collect();
    let at = if y { NUM_LIMBS } else { 0 };
    limbs[at..at + NUM_LIMBS].copy_from_slice(&decompose_biguint::<Fr>(
        &(fe_to_biguint(&coordinate) + &q),
        NUM_LIMBS,
        LIMB_BITS,
    ));
    let seed = poseidon::hash(&limbs);
    let e: Vec<u128> = (0..st.n())
        .map(|i| bn254::low_bits(&bn254::weight_digest(&seed, i)))
        .collect();
    assert_ne!(
        e,
        bn254::weights(&st.signatures),
        "other limbs, other weights"
    );
    st.aggregate = bn254::aggregate_signatures(&st.signatures, &e);
    st.cheat = Some(Cheat::NonCanonicalSignature { index: 0, y });
    let all = failures(&st);
    st.omit = Some(Omit::SignatureCanonicity);
    let rest = failures(&st);
    assert!(rest > 0, "the multi-scalar multiplication refuses it too");
    assert!(all > rest, "constraint 1 refuses it ({all} against {rest})");
}

/// The residue witness c of an honest statement multiplied by a random element: the residue
/// equation fails and only "the BLS check holds" refuses it.
#[test]
fn a_wrong_residue_witness_is_refused() {
    let mut r = rng();
    let mut st = Statement::honest(&Signing::new(1, b"residue", &mut r));
    st.cheat = Some(Cheat::ResidueFactor(Box::new(Fq12::random(&mut r))));
    refused_by(st, Omit::BlsCheck);
}

/// k·P for an integer k of any size, by doubling and adding.
fn mul_int(p: &G2, k: &BigUint) -> G2 {
    (0..k.bits()).rev().fold(G2::identity(), |acc, i| {
        let acc = acc.double();
        if k.bit(i) {
            acc + p
        } else {
            acc
        }
    })
}

/// A point of the twist G2 lies on that is not in the order-r subgroup: r·P for a random point P
/// of the curve, which keeps only P's component of order dividing the cofactor.
fn outside_the_subgroup(rng: &mut impl RngCore) -> G2Affine {
    let g = G2Affine::generator();
    let b = g.y.square() - g.x.square() * g.x;
    let r = modulus::<Fr>();
    loop {
        let x = Fq2::random(&mut *rng);
        let Some(y) = Option::<Fq2>::from((x.square() * x + b).sqrt()) else {
            continue;
        };
        let t = mul_int(&G2::from(G2Affine { x, y }), &r);
        if !bool::from(t.is_identity()) {
            let t = t.to_affine();
            assert!(bool::from(t.is_on_curve()));
            assert!(
                !bool::from(mul_int(&G2::from(t), &r).is_identity()),
                "not of order r"
            );
            return t;
        }
    }
}

/// A key moved off the order-r subgroup (vk + T, T of order dividing the cofactor), committed to
/// as the prover's key: it is on the curve, so only the BLS check refuses it. Registration's
/// subgroup check is what keeps such keys out of the verifier's commitment.
#[test]
fn a_key_outside_the_subgroup_is_refused() {
    let mut r = rng();
    let mut st = Statement::honest(&Signing::new(2, b"subgroup", &mut r));
    let t = outside_the_subgroup(&mut r);
    st.keys[0] = (st.keys[0] + t).to_affine();
    assert!(bool::from(st.keys[0].is_on_curve()));
    st.key_commitment = bn254::key_commitment(&st.keys);
    refused_by(st, Omit::BlsCheck);
}
