// The verifier's side of every proof: the public inputs a verifier expects, computed by the suite
// from its own parameters and the statement, never read from a prover's output.
//
// Why: the paper's ZoKrates program takes the Baby Jubjub parameters (the curve's constants and
// the generator G) and the second generator H as public inputs that nothing in the circuit
// constrains. A proof checked against the public inputs its prover chose therefore only says
// "true for the prover's own parameters": with an H whose discrete logarithm to G it knows, a
// prover opens any commitment to any member of the set. So every proof of the suite (each
// prover's, on either circuit) is checked against these values: the stdlib's Baby Jubjub
// parameters, the suite's H (hashed to the curve, lib/babyjubjub.mjs), the statement's C (SM) or
// v (RSM), and the set's root. A proof made for other values fails.
import { G, ZOKRATES_PARAMS, derivePedersenH } from "./babyjubjub.mjs";
import { u32Words } from "./hash.mjs";

/** The suite's H, computed once: the verifier's own, not the instance's copy. */
let suiteH = null;
const pedersenH = () => (suiteH ??= derivePedersenH());

/**
 * The Baby Jubjub parameter struct as the ZoKrates stdlib declares it (ecc/babyjubjubParams):
 * its members in declaration order, which is the order the compiled program takes them as
 * public inputs.
 */
function paramsInputs() {
  const p = ZOKRATES_PARAMS;
  if (p.Gu !== G[0].toString() || p.Gv !== G[1].toString()) throw new Error("internal error: the parameters' G is not the suite's");
  return [p.JUBJUB_C, p.JUBJUB_A, p.JUBJUB_D, p.MONT_A, p.MONT_B, ...p.INFINITY, p.Gu, p.Gv];
}

/**
 * The root as public inputs: one field element (Poseidon tree), or the digest's eight
 * big-endian 32-bit words (SHA-256 tree), as both circuits take it.
 */
function rootInputs(hash, root) {
  if (hash === "poseidon") return [BigInt(root).toString()];
  if (hash === "sha256") return u32Words(Buffer.from(root, "hex")).map((w) => BigInt(w).toString());
  throw new Error(`unknown hash '${hash}'`);
}

/**
 * The public inputs (decimal strings, in the circuit's order) a verifier of `circuit` expects
 * for the statement of `inst` (buildInstance's: statement, hash, commitment, v, root).
 *   zokrates  SM: params, C, H, root;  RSM: params, v, H, root.
 *   optimized SM: C, root;             RSM: v, root  (G and H are constants of its circuit).
 */
export function expectedPublicInputs(inst, circuit) {
  const claim = inst.statement === "sm" ? inst.commitment.map((x) => BigInt(x).toString()) : [BigInt(inst.v).toString()];
  const root = rootInputs(inst.hash, inst.root);
  if (circuit === "zokrates") return [...paramsInputs(), ...claim, ...pedersenH().map(String), ...root];
  if (circuit === "optimized") return [...claim, ...root];
  throw new Error(`unknown circuit '${circuit}'`);
}

/** Whether two lists of public inputs (decimal or 0x-hex strings) hold the same values. */
export function sameInputs(a, b) {
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => BigInt(x) === BigInt(b[i]));
}

/** A public input as zokrates-js writes it in a proof: 0x and 64 hex digits. */
export const zokratesHex = (x) => `0x${BigInt(x).toString(16).padStart(64, "0")}`;
