// The two tree hashes. Poseidon: circomlibjs's, which equals the ZoKrates stdlib's
// hashes/poseidon/poseidon (t = inputs + 1, output state[0]); the tests check both against the
// spec's vectors. SHA-256: the full (padded) hash of two 32-byte words, as the stdlib's
// hashes/sha256/512bitPadded computes it on u32[8] pairs.
import { createHash } from "node:crypto";
import { buildPoseidon } from "circomlibjs";
import { P, toBytes32 } from "./field.mjs";

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
      // SM leaf: Poseidon(0, v); RSM leaf: Poseidon(C.x, C.y).
      smLeaf: (v) => h.pair(0n, v),
      rsmLeaf: ([x, y]) => h.pair(x, y),
      // The sound padding leaf: SHA-256(PAD_DOMAIN) mod p, no Poseidon output anybody can open.
      soundPad: () => BigInt(`0x${padDigest().toString("hex")}`) % P,
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
      // The sound padding leaf: SHA-256(PAD_DOMAIN), a digest of 45 bytes where every leaf is a
      // digest of 64.
      soundPad: () => padDigest(),
      abi: (buf) => u32Words(buf),
      show: (buf) => buf.toString("hex"),
    };
  }
  throw new Error(`unknown hash '${name}' (allowed: poseidon, sha256)`);
}

/** The string whose SHA-256 is the sound variant's padding leaf (the optimized crate has it too). */
export const PAD_DOMAIN = "traceable-mixnets/zksnark-sm-rsm/padding-leaf";

export function padDigest() {
  return createHash("sha256").update(PAD_DOMAIN).digest();
}

/**
 * The leaf that fills positions n .. 2^depth - 1. Sound: a hashed, domain-separated constant
 * that no value or commitment opens. As published: the leaf of v = 0 (SM) or of the identity
 * point (RSM), so that 0 is a member of every set whose size is not a power of two.
 */
export function padLeaf(th, statement, variant) {
  if (variant === "sound") return th.soundPad();
  if (variant !== "as-published") throw new Error(`unknown variant '${variant}'`);
  return statement === "sm" ? th.smLeaf(0n) : th.rsmLeaf([0n, 1n]);
}

/** A 32-byte digest as ZoKrates u32[8] ABI values ("0x" and 8 hex digits each). */
export function u32Words(buf) {
  const words = [];
  for (let i = 0; i < 32; i += 4) words.push(`0x${buf.subarray(i, i + 4).toString("hex")}`);
  return words;
}
