//! Hash-to-prime: native nonce search and the R1CS circuit that recomputes one candidate.
//!
//! A candidate is Blake2s-256 of (padding ‖ nonce ‖ element); its first μ−1 digest bits, with a
//! leading 1, give a μ-bit integer. The native search tries nonces 0, 1, … until the candidate is
//! a probable prime. The circuit only recomputes the candidate for a given nonce: primality is
//! ensured by the honest search and by the accumulator holding only primes.

use ark_ff::PrimeField;
use ark_r1cs_std::{
    boolean::Boolean, eq::EqGadget, fields::fp::FpVar, prelude::AllocVar, ToBitsGadget,
};
use ark_relations::r1cs::{ConstraintSynthesizer, ConstraintSystemRef, SynthesisError};
use blake2::{Blake2s256, Digest};
use rug::{integer::IsPrime, Integer};

use crate::{commitments::int_to_field, params::Parameters, Error};

/// The message bits hashed for one candidate, in order: zero padding to a whole number of bytes,
/// the nonce (least significant bit first), then the element (most significant bit first).
fn message_bits(params: &Parameters, value: &Integer, index: u32) -> Vec<bool> {
    let nonce_bits = params.nonce_bits() as usize;
    let value_bits = params.message_bits() as usize;
    let pad = (8 - (nonce_bits + value_bits) % 8) % 8;
    let mut bits = vec![false; pad];
    bits.extend((0..nonce_bits).map(|i| (index >> i) & 1 == 1));
    bits.extend((0..value_bits).rev().map(|i| value.get_bit(i as u32)));
    bits
}

/// Bit k of the message is bit (k mod 8), least significant first, of byte ⌊k/8⌋: the order the
/// Blake2s gadget reads its input words in.
fn pack_bits(bits: &[bool]) -> Vec<u8> {
    bits.chunks(8)
        .map(|byte| {
            byte.iter()
                .enumerate()
                .fold(0u8, |acc, (i, &b)| acc | (u8::from(b) << i))
        })
        .collect()
}

/// The μ-bit candidate for one nonce: 2^{μ−1} + the first μ−1 digest bits read big-endian, where
/// digest bit j is bit (j mod 8) of digest byte ⌊j/8⌋.
pub fn candidate(params: &Parameters, value: &Integer, index: u32) -> Integer {
    let digest = Blake2s256::digest(pack_bits(&message_bits(params, value, index)));
    let mu = params.hash_to_prime_bits;
    let mut p = Integer::from(1) << (mu - 1);
    for j in 0..mu - 1 {
        if (digest[(j / 8) as usize] >> (j % 8)) & 1 == 1 {
            p.set_bit(mu - 2 - j, true);
        }
    }
    p
}

/// Search for the first nonce whose candidate is a probable prime; returns (prime, nonce).
pub fn hash_to_prime(params: &Parameters, value: &Integer) -> Result<(Integer, u32), Error> {
    if *value < 0 || value.significant_bits() > params.message_bits() {
        return Err(Error::InvalidInput(format!(
            "set element must be in [0, 2^{})",
            params.message_bits()
        )));
    }
    for index in 0..(1u32 << params.nonce_bits()) {
        let p = candidate(params, value, index);
        if p.is_probably_prime(params.primality_reps()) != IsPrime::No {
            return Ok((p, index));
        }
    }
    Err(Error::HashToPrimeNotFound)
}

/// The hash-to-prime relation as a circuit. The prime is the first witness so LegoGroth16's
/// commitment D (and the CP_link commitment) open to exactly it.
#[derive(Clone, Debug)]
pub struct HashToPrimeCircuit<F: PrimeField> {
    params: Parameters,
    prime: Option<F>,
    value: Option<F>,
    index: Option<u32>,
}

impl<F: PrimeField> HashToPrimeCircuit<F> {
    /// Shape only, for the trusted setup.
    pub fn blank(params: Parameters) -> Self {
        HashToPrimeCircuit {
            params,
            prime: None,
            value: None,
            index: None,
        }
    }

    /// With an assignment: the element, the nonce, and the claimed prime.
    pub fn new(params: Parameters, value: &Integer, index: u32, prime: &Integer) -> Self {
        HashToPrimeCircuit {
            params,
            prime: Some(int_to_field(prime)),
            value: Some(int_to_field(value)),
            index: Some(index),
        }
    }
}

impl<F: PrimeField> ConstraintSynthesizer<F> for HashToPrimeCircuit<F> {
    fn generate_constraints(self, cs: ConstraintSystemRef<F>) -> Result<(), SynthesisError> {
        let params = self.params;
        let mu = params.hash_to_prime_bits as usize;
        let field_bits = params.field_size_bits as usize;
        let value_bits = params.message_bits() as usize;
        let nonce_bits = params.nonce_bits() as usize;

        // Allocation order matters: the prime must be witness number 0 (committed in D).
        let prime = FpVar::new_witness(cs.clone(), || {
            self.prime.ok_or(SynthesisError::AssignmentMissing)
        })?;
        let value = FpVar::new_witness(cs.clone(), || {
            self.value.ok_or(SynthesisError::AssignmentMissing)
        })?;
        let index = (0..nonce_bits)
            .map(|i| {
                Boolean::new_witness(cs.clone(), || {
                    self.index
                        .map(|n| (n >> i) & 1 == 1)
                        .ok_or(SynthesisError::AssignmentMissing)
                })
            })
            .collect::<Result<Vec<_>, _>>()?;

        // Canonical little-endian bits of the element; the low `value_bits` are hashed, most
        // significant first. (The field's top bit is not hashed, as in the reference design.)
        let value_le = value.to_bits_le()?;
        let pad = (8 - (nonce_bits + value_bits) % 8) % 8;
        let mut message = vec![Boolean::constant(false); pad];
        message.extend(index);
        message.extend(value_le[..value_bits].iter().rev().cloned());

        let digest = ark_crypto_primitives::prf::blake2s::constraints::evaluate_blake2s(&message)?;
        let digest_bits: Vec<Boolean<F>> = digest.iter().flat_map(|w| w.to_bits_le()).collect();

        // prime = 2^{μ−1} + digest bits 0..μ−2 read big-endian, and nothing above μ bits.
        let prime_le = prime.to_bits_le()?;
        debug_assert_eq!(prime_le.len(), field_bits);
        for bit in &prime_le[mu..] {
            bit.enforce_equal(&Boolean::constant(false))?;
        }
        prime_le[mu - 1].enforce_equal(&Boolean::constant(true))?;
        for j in 0..mu - 1 {
            prime_le[mu - 2 - j].enforce_equal(&digest_bits[j])?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bls12_381::Fr;
    use ark_relations::r1cs::ConstraintSystem;

    fn params() -> Parameters {
        Parameters::from_curve::<Fr>().unwrap()
    }

    fn int(s: &str) -> Integer {
        Integer::from_str_radix(s, 10).unwrap()
    }

    #[test]
    fn native_search_matches_the_spec_vectors() {
        let p = params();
        let vectors = [
            (
                Integer::from(0),
                21,
                "3910742063363984636646967048599523383706783477483586442389284459259254426057",
            ),
            (
                Integer::from(12),
                152,
                "5304251842926156816898979016451777640040448718901133648489123259686208249339",
            ),
            (
                Integer::from(24928329),
                70,
                "4725613136027183379450820289029181523668266347228898517499200997608035607339",
            ),
            (
                (Integer::from(1) << 253u32) + 77u32,
                59,
                "6069789992191245569973910915356737549206597494155795101607936670633226542883",
            ),
            (
                int("240948605777706143348388482537969825237863899456156108073117053951076324510"),
                229,
                "5044116590787471169443273953276061421039491500700257243735493409769887281299",
            ),
        ];
        for (x, idx, prime) in vectors {
            let (e, i) = hash_to_prime(&p, &x).unwrap();
            assert_eq!((e, i), (int(prime), idx), "x = {x}");
        }
    }

    #[test]
    fn out_of_range_elements_are_rejected() {
        let p = params();
        assert!(hash_to_prime(&p, &(Integer::from(1) << 254u32)).is_err());
        assert!(hash_to_prime(&p, &Integer::from(-1)).is_err());
    }

    fn synthesize(c: HashToPrimeCircuit<Fr>) -> (bool, usize) {
        let cs = ConstraintSystem::<Fr>::new_ref();
        c.generate_constraints(cs.clone()).unwrap();
        (cs.is_satisfied().unwrap(), cs.num_constraints())
    }

    #[test]
    fn circuit_accepts_the_native_hash_and_has_22814_constraints() {
        let p = params();
        let x = Integer::from(24928329);
        let (e, idx) = hash_to_prime(&p, &x).unwrap();
        let (ok, n) = synthesize(HashToPrimeCircuit::new(p, &x, idx, &e));
        assert!(ok);
        assert_eq!(n, 22_814);
    }

    #[test]
    fn circuit_rejects_a_wrong_nonce_or_prime() {
        let p = params();
        let x = Integer::from(12);
        let (e, idx) = hash_to_prime(&p, &x).unwrap();
        // The prime of nonce idx does not hash from nonce idx − 1.
        assert!(!synthesize(HashToPrimeCircuit::new(p, &x, idx - 1, &e)).0);
        // Nor is the candidate of nonce idx − 1 accepted as the output for nonce idx.
        let other = candidate(&p, &x, idx - 1);
        assert!(!synthesize(HashToPrimeCircuit::new(p, &x, idx, &other)).0);
        // Nor does another element give this prime.
        assert!(!synthesize(HashToPrimeCircuit::new(p, &Integer::from(13), idx, &e)).0);
    }

    #[test]
    fn circuit_and_native_agree_on_bn254_too() {
        // ν = 254 there: 253-bit elements, 4 padding bits, same μ = 252 and 15-bit nonce.
        type F = ark_bn254::Fr;
        let p = Parameters::from_curve::<F>().unwrap();
        assert_eq!(
            (p.message_bits(), p.nonce_bits(), p.hash_to_prime_bits),
            (253, 15, 252)
        );
        let x = (Integer::from(1) << 252u32) + 99u32;
        let (e, idx) = hash_to_prime(&p, &x).unwrap();
        let cs = ConstraintSystem::<F>::new_ref();
        HashToPrimeCircuit::<F>::new(p, &x, idx, &e)
            .generate_constraints(cs.clone())
            .unwrap();
        assert!(cs.is_satisfied().unwrap());
        let cs = ConstraintSystem::<F>::new_ref();
        HashToPrimeCircuit::<F>::new(p, &x, idx + 1, &e)
            .generate_constraints(cs.clone())
            .unwrap();
        assert!(!cs.is_satisfied().unwrap());
    }
}
