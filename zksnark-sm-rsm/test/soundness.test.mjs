// The two false claims the paper's statement accepts (docs/fixes.md, Z1 and Z2), on the ZoKrates
// programs: each is accepted by the as-published variant and rejected by the sound one.
//   * Z1: RSM proves v + L when the tree holds only Com(v, r) (a real Groth16 proof, zokrates-js);
//   * Z2: 0 is a member through a padding index of a set of n = 5 (SM: C = r H; RSM: v = 0, r = 0).
// The optimized circuit's versions of both are in optimized/tests/circuit.rs.
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import * as zok from "../lib/zokrates.mjs";
import { L, Pedersen, ZOKRATES_PARAMS } from "../lib/babyjubjub.mjs";
import { padLeaf, treeHash } from "../lib/hash.mjs";
import { MerkleTree } from "../lib/merkle.mjs";
import { zokratesProgram } from "../lib/circuits.mjs";
import { Rng } from "../lib/rng.mjs";
import { seedHex } from "./helpers.mjs";

const DEPTH = 3; // n = 5: positions 5, 6 and 7 are padding
const VARIANTS = ["as-published", "sound"];

/**
 * The ABI arguments that prove position `index` of a tree of 8 leaves: the set's 5 leaves
 * (with `leaf` at `index` if given) and the variant's 3 padding leaves.
 */
async function claim({ statement, variant, index, leaf, v, r, C, rng }) {
  const th = await treeHash("poseidon");
  const pedersen = new Pedersen();
  const leaves = Array.from({ length: 5 }, () => {
    const x = rng.belowL();
    return statement === "sm" ? th.smLeaf(x) : th.rsmLeaf(pedersen.commit(x, rng.belowL()));
  });
  if (leaf !== undefined) leaves[index] = leaf;
  const pad = padLeaf(th, statement, variant);
  const tree = new MerkleTree([...leaves, pad, pad, pad], pad, th.node);
  const path = tree.path(index);
  const H = pedersen.H.map(String);
  const pathArgs = [path.siblings.map(String), path.right];
  return statement === "sm"
    ? [ZOKRATES_PARAMS, C.map(String), H, tree.root.toString(), v.toString(), r.toString(), ...pathArgs]
    : [ZOKRATES_PARAMS, v.toString(), H, tree.root.toString(), r.toString(), ...pathArgs];
}

const compiled = {};
async function program(statement, variant) {
  compiled[`${statement}/${variant}`] ??= await zok.compile(zokratesProgram({ statement, hash: "poseidon", depth: DEPTH, variant }));
  return compiled[`${statement}/${variant}`];
}

/** Whether the program has a witness for `args` (every assertion holds). */
async function accepts(statement, variant, args) {
  try {
    await zok.computeWitness(await program(statement, variant), args);
    return true;
  } catch {
    return false;
  }
}

describe("Z1: RSM proves v + L when only v is in the set", { timeout: 20 * 60 * 1000 }, () => {
  const rng = new Rng(seedHex(28), "test/soundness");
  const pedersen = new Pedersen();
  let args;
  before(async () => {
    const th = await treeHash("poseidon");
    const v = rng.belowL();
    const r = rng.belowL();
    const C = pedersen.commit(v, r);
    assert.deepEqual(pedersen.commit(v + L, r), C, "v + L commits like v");
    args = {};
    for (const variant of VARIANTS) {
      args[variant] = await claim({ statement: "rsm", variant, index: 2, leaf: th.rsmLeaf(C), v: v + L, r, C, rng });
    }
  });

  test("as published: a real Groth16 proof that v + L is in the set verifies", async () => {
    const artifacts = await program("rsm", "as-published");
    const { witness } = await zok.computeWitness(artifacts, args["as-published"]);
    const entropy = rng.entropy();
    const keys = await zok.setup(artifacts.program, entropy);
    const proof = await zok.prove(artifacts.program, witness, keys.pk, rng.entropy());
    assert.equal(await zok.verify(keys.vk, proof), true);
    // The proof's public v is v + L (inputs: the 9 parameters, then v).
    assert.ok(BigInt(proof.inputs[9]) >= L);
  });

  test("sound: no witness for v + L (v < L is enforced)", async () => {
    assert.equal(await accepts("rsm", "sound", args.sound), false);
  });
});

describe("Z2: 0 is a member through a padding leaf (n = 5)", { timeout: 20 * 60 * 1000 }, () => {
  const rng = new Rng(seedHex(29), "test/soundness");
  const pedersen = new Pedersen();
  for (const statement of ["sm", "rsm"]) {
    test(`${statement.toUpperCase()}: accepted as published, rejected when sound`, async () => {
      // SM: a commitment to 0 with any r; RSM: v = 0 with r = 0, the identity point.
      const r = statement === "sm" ? rng.belowL() : 0n;
      const C = pedersen.commit(0n, r);
      const results = {};
      for (const variant of VARIANTS) {
        const args = await claim({ statement, variant, index: 5, v: 0n, r, C, rng });
        results[variant] = await accepts(statement, variant, args);
      }
      assert.deepEqual(results, { "as-published": true, sound: false });
    });
  }
});

test("honest instances of both variants have a witness (control)", { timeout: 20 * 60 * 1000 }, async () => {
  const rng = new Rng(seedHex(30), "test/soundness");
  const th = await treeHash("poseidon");
  const pedersen = new Pedersen();
  for (const statement of ["sm", "rsm"]) {
    for (const variant of VARIANTS) {
      const v = rng.belowL();
      const r = rng.belowL();
      const C = pedersen.commit(v, r);
      const leaf = statement === "sm" ? th.smLeaf(v) : th.rsmLeaf(C);
      const args = await claim({ statement, variant, index: 1, leaf, v, r, C, rng });
      assert.equal(await accepts(statement, variant, args), true, `${statement} ${variant}`);
    }
  }
});
