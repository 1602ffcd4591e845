// The SHA-256 variant at the smallest tree (n = 2, depth 1; ~130k constraints): the JS tree and
// the circuit agree (the honest witness exists) and a wrong path or wrong v has no witness.
// Setup and proving at this size take minutes in wasm, so they are left to run.mjs.
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import * as zok from "../lib/zokrates.mjs";
import { Rng } from "../lib/rng.mjs";
import { buildInstance } from "../lib/statement.mjs";

const flipWord = (w) => `0x${(Number.parseInt(w, 16) ^ 1).toString(16).padStart(8, "0")}`;

for (const statement of ["sm", "rsm"]) {
  describe(`${statement.toUpperCase()} with SHA-256 (n = 2)`, { timeout: 20 * 60 * 1000 }, () => {
    let inst;
    let artifacts;
    before(async () => {
      inst = await buildInstance({ statement, hash: "sha256", n: 2, rng: new Rng(5n) });
      artifacts = await zok.compile(inst.program);
    });

    test("the honest inputs give a witness", async () => {
      await zok.computeWitness(artifacts, inst.args);
    });

    test("a wrong sibling, a wrong root or a wrong v gives no witness", async () => {
      const SIBLINGS = statement === "sm" ? 6 : 5;
      const ROOT = 3;
      const V = statement === "sm" ? 4 : 1;
      const wrongSibling = structuredClone(inst.args);
      wrongSibling[SIBLINGS][0][7] = flipWord(wrongSibling[SIBLINGS][0][7]);
      await assert.rejects(zok.computeWitness(artifacts, wrongSibling));
      const wrongRoot = structuredClone(inst.args);
      wrongRoot[ROOT][0] = flipWord(wrongRoot[ROOT][0]);
      await assert.rejects(zok.computeWitness(artifacts, wrongRoot));
      const wrongV = structuredClone(inst.args);
      wrongV[V] = (BigInt(wrongV[V]) + 1n).toString();
      await assert.rejects(zok.computeWitness(artifacts, wrongV));
    });
  });
}
