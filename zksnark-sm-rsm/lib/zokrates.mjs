// zokrates-js (ZoKrates 0.8.8 compiled to WebAssembly) with the paper's defaults:
// backend ark, scheme g16, curve bn128. Its prover is single-threaded wasm.
import { initialize } from "zokrates-js";
import { zokratesHex } from "./verifier.mjs";

export const OPTIONS = { backend: "ark", scheme: "g16", curve: "bn128" };

let providerPromise = null;

export async function zokrates() {
  providerPromise ??= initialize().then((zk) => zk.withOptions(OPTIONS));
  return providerPromise;
}

/** Compile; with snarkjs the artifacts also hold the circom-format R1CS (.r1cs bytes). */
export async function compile(source, { snarkjs = false } = {}) {
  const zk = await zokrates();
  return zk.compile(source, { snarkjs });
}

/**
 * Witness for ABI arguments; throws if an assertion of the program fails (for instance a
 * wrong path or a wrong v). With snarkjs the result also holds the .wtns bytes.
 */
export async function computeWitness(artifacts, args, { snarkjs = false, log = () => {} } = {}) {
  const zk = await zokrates();
  return zk.computeWitness(artifacts, args, { snarkjs, logCallback: log });
}

export async function setup(program, entropy) {
  const zk = await zokrates();
  return entropy === undefined ? zk.setup(program) : zk.setup(program, entropy);
}

export async function prove(program, witness, pk, entropy) {
  const zk = await zokrates();
  return entropy === undefined ? zk.generateProof(program, witness, pk) : zk.generateProof(program, witness, pk, entropy);
}

/**
 * true iff the proof verifies for the public inputs `inputs` (decimal strings: the verifier's
 * own, lib/verifier.mjs), whatever inputs the proof carries.
 */
export async function verifyAgainst(vk, proof, inputs) {
  return verify(vk, { ...proof, inputs: inputs.map(zokratesHex) });
}

/**
 * true iff the proof verifies for the public inputs it carries (its prover's); a malformed proof
 * (say a point off the curve) counts as false.
 */
export async function verify(vk, proof) {
  const zk = await zokrates();
  try {
    return zk.verify(vk, proof) === true;
  } catch {
    return false;
  }
}
