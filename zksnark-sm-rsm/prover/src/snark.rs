//! Groth16 on BN254 over an imported R1CS: setup, prove, verify, and the files they exchange
//! (keys and proofs via ark-serialize, public inputs as JSON decimal strings).

use std::path::Path;

use ark_bn254::{Bn254, Fr};
use ark_ff::PrimeField;
use ark_groth16::{prepare_verifying_key, Groth16, Proof, ProvingKey, VerifyingKey};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use measure::seed::Seed;
use rand::{CryptoRng, RngCore};
use rand_chacha::ChaCha20Rng;

use crate::{Error, R1cs, R1csCircuit};

/// Randomness for setup and proving: ChaCha20 keyed by the OS, or, for reproducible runs, from
/// the public `seed` and the stream's name (`setup`, `prove`), as `measure::seed::stream` keys
/// every stream of the suite. A seeded setup's trapdoor is derived from the public seed, so
/// anybody who knows the seed can forge proofs for its keys: seeds are for measurements and
/// tests only.
pub fn rng(seed: Option<&Seed>, stream: &str) -> ChaCha20Rng {
    measure::seed::stream(&format!("zksnark-prover/{stream}"), seed)
}

/// Groth16 keys for `r1cs`, from `rng` (a circuit-specific set-up).
pub fn setup<R: RngCore + CryptoRng>(
    r1cs: &R1cs<Fr>,
    rng: &mut R,
) -> Result<ProvingKey<Bn254>, Error> {
    Ok(Groth16::<Bn254>::generate_random_parameters_with_reduction(
        R1csCircuit::for_setup(r1cs),
        rng,
    )?)
}

/// Proves that `assignment` (wire order) satisfies `r1cs`. An unsatisfying witness is rejected
/// before any proving work: ark-groth16 would otherwise output a proof that merely fails to
/// verify, which hides the real problem.
pub fn prove<R: RngCore + CryptoRng>(
    r1cs: &R1cs<Fr>,
    assignment: &[Fr],
    pk: &ProvingKey<Bn254>,
    rng: &mut R,
) -> Result<Proof<Bn254>, Error> {
    check_key_fits(r1cs, pk)?;
    if let Some(index) = r1cs.first_unsatisfied(assignment) {
        return Err(Error::Unsatisfied {
            index,
            total: r1cs.constraints.len(),
        });
    }
    Ok(Groth16::<Bn254>::create_random_proof_with_reduction(
        R1csCircuit::for_proving(r1cs, assignment),
        pk,
        rng,
    )?)
}

/// Whether `proof` verifies under `vk` for `public`; a count of public inputs the key does not
/// expect is an error, not a rejection.
pub fn verify(
    vk: &VerifyingKey<Bn254>,
    proof: &Proof<Bn254>,
    public: &[Fr],
) -> Result<bool, Error> {
    let expected = vk.gamma_abc_g1.len() - 1;
    if public.len() != expected {
        return Err(Error::Invalid(format!(
            "the verification key expects {expected} public inputs, {} given",
            public.len()
        )));
    }
    let pvk = prepare_verifying_key(vk);
    Ok(Groth16::<Bn254>::verify_proof(&pvk, proof, public)?)
}

/// The proving key records how many instance and witness variables its circuit had; a key made
/// for another circuit would silently produce garbage.
fn check_key_fits(r1cs: &R1cs<Fr>, pk: &ProvingKey<Bn254>) -> Result<(), Error> {
    let key_public = pk.vk.gamma_abc_g1.len() - 1;
    if key_public != r1cs.num_public() || pk.a_query.len() != r1cs.n_wires {
        return Err(Error::Invalid(format!(
            "the proving key is for a circuit with {key_public} public inputs and {} variables, \
             but the R1CS has {} and {}",
            pk.a_query.len(),
            r1cs.num_public(),
            r1cs.n_wires
        )));
    }
    Ok(())
}

/// Writes `bytes` to `path` via a temporary file and a rename ([`measure::output::write_atomic`]),
/// so a crash never leaves a half-written key, proof or report behind; an error names `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    measure::output::write_atomic(path, bytes).map_err(|e| Error::io(path, e))
}

/// Proving keys are stored uncompressed (much faster to load), verification keys and proofs
/// compressed (small, and point decompression checks them anyway).
pub fn save<T: CanonicalSerialize>(
    path: &Path,
    value: &T,
    compress: Compress,
) -> Result<(), Error> {
    let mut bytes = Vec::with_capacity(value.serialized_size(compress));
    value
        .serialize_with_mode(&mut bytes, compress)
        .expect("serialising into a Vec cannot fail");
    write_atomic(path, &bytes)
}

/// Loads and fully validates (on curve, in the prime-order subgroup) a key or proof.
pub fn load<T: CanonicalDeserialize>(
    path: &Path,
    compress: Compress,
    what: &str,
) -> Result<T, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let mut reader = bytes.as_slice();
    let value = T::deserialize_with_mode(&mut reader, compress, Validate::Yes)
        .map_err(|e| Error::format(path, format!("not a valid {what}: {e}")))?;
    if !reader.is_empty() {
        return Err(Error::format(
            path,
            format!("not a valid {what}: {} trailing bytes", reader.len()),
        ));
    }
    Ok(value)
}

/// A field element as its canonical decimal string, as snarkjs writes it.
pub fn decimal(x: &Fr) -> String {
    x.into_bigint().to_string()
}

/// JSON array of decimal strings, the same shape as snarkjs's public.json.
pub fn public_json(values: &[Fr]) -> String {
    let strings: Vec<String> = values.iter().map(decimal).collect();
    serde_json::to_string_pretty(&strings).expect("strings serialise")
}

/// Public inputs from snarkjs's public.json text (`path` names it in errors): each a
/// canonical decimal below the scalar field's modulus.
pub fn parse_public_json(path: &Path, text: &str) -> Result<Vec<Fr>, Error> {
    let strings: Vec<String> = serde_json::from_str(text).map_err(|e| {
        Error::format(
            path,
            format!("expected a JSON array of decimal strings: {e}"),
        )
    })?;
    strings
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // Fr::from_str reduces silently; a value that does not round-trip was not canonical.
            s.parse::<Fr>()
                .ok()
                .filter(|x| &decimal(x) == s)
                .ok_or_else(|| {
                    Error::format(
                        path,
                        format!(
                            "public input {i} ({s:?}) is not a canonical decimal below the \
                             BN254 scalar field modulus"
                        ),
                    )
                })
        })
        .collect()
}

/// [`parse_public_json`] of the file at `path`.
pub fn read_public_json(path: &Path) -> Result<Vec<Fr>, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_public_json(path, &text)
}
