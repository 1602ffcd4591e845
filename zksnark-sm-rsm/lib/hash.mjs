// The two tree hashes. Poseidon: circomlibjs's, which equals the ZoKrates stdlib's
// hashes/poseidon/poseidon (t = inputs + 1, output state[0]); the tests check both against the
// spec's vectors. SHA-256: the full (padded) hash of two 32-byte words, as the stdlib's
// hashes/sha256/512bitPadded computes it on u32[8] pairs.
import { createHash } from "node:crypto";
import { buildPoseidon } from "circomlibjs";
import { toBytes32 } from "./field.mjs";

let poseidonPromise = null;

/** Poseidon over BigInts: hashPair(a, b) and hashOne(a) as BigInt. */
export async function poseidonHasher() {
  poseidonPromise ??= buildPoseidon();
  const poseidon = await poseidonPromise;
  const F = poseidon.F;
  const hash = (xs) => F.toObject(poseidon(xs));
  return {
    name: "poseidon",
    hash,
    pair: (a, b) => hash([a, b]),
  };
}

function sha256Pair(a, b) {
  return createHash("sha256").update(a).update(b).digest();
}

/** SHA-256 over 32-byte Buffers; field elements enter as 32-byte big-endian words. */
export function sha256Hasher() {
  return {
    name: "sha256",
    pair: sha256Pair,
    field: toBytes32,
  };
}

/** The hasher for a --hash value, with the leaf functions of both statements. */
export async function treeHash(name) {
  if (name === "poseidon") {
    const h = await poseidonHasher();
    return {
      name,
      node: h.pair,
      // SM leaf: Poseidon(0, v); RSM leaf: Poseidon(C.x, C.y). Pads are the same functions at
      // v = 0 and at the identity (0, 1), so a pad never equals a real element's leaf unless
      // that element is 0 or a commitment to the identity.
      smLeaf: (v) => h.pair(0n, v),
      rsmLeaf: ([x, y]) => h.pair(x, y),
      // How a node appears in ZoKrates ABI JSON.
      abi: (x) => x.toString(),
      show: (x) => x.toString(),
    };
  }
  if (name === "sha256") {
    const h = sha256Hasher();
    return {
      name,
      node: h.pair,
      smLeaf: (v) => h.pair(h.field(0n), h.field(v)),
      rsmLeaf: ([x, y]) => h.pair(h.field(x), h.field(y)),
      abi: (buf) => u32Words(buf),
      show: (buf) => buf.toString("hex"),
    };
  }
  throw new Error(`unknown hash '${name}' (allowed: poseidon, sha256)`);
}

/** A 32-byte digest as ZoKrates u32[8] ABI values ("0x" and 8 hex digits each). */
export function u32Words(buf) {
  const words = [];
  for (let i = 0; i < 32; i += 4) words.push(`0x${buf.subarray(i, i + 4).toString("hex")}`);
  return words;
}
