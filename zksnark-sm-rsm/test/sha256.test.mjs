// The SHA-256 variant at the smallest tree (n = 2, depth 1; ~130k constraints): the JS tree and
// the circuit agree (the honest witness exists) and a wrong path or wrong v has no witness.
// Setup and proving at this size take minutes in wasm, so they are left to run.mjs; the
// optimized circuit (about 90k constraints) proves natively in seconds.
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import * as zok from "../lib/zokrates.mjs";
import { Rng } from "../lib/rng.mjs";
import { buildInstance } from "../lib/statement.mjs";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as snarkjs from "snarkjs";
import { u32Words } from "../lib/hash.mjs";
import { optimizedBuilderPath } from "../lib/optimized.mjs";
import { expectedPublicInputs } from "../lib/verifier.mjs";
import { OPTIMIZED_SKIP, runDriver, seedHex } from "./helpers.mjs";

const flipWord = (w) => `0x${(Number.parseInt(w, 16) ^ 1).toString(16).padStart(8, "0")}`;

for (const statement of ["sm", "rsm"]) {
  describe(`${statement.toUpperCase()} with SHA-256 (n = 2)`, { timeout: 20 * 60 * 1000 }, () => {
    let inst;
    let artifacts;
    before(async () => {
      inst = await buildInstance({ statement, hash: "sha256", n: 2, rng: new Rng(seedHex(5)) });
      artifacts = await zok.compile(inst.program, { snarkjs: true });
    });

    test("the honest inputs give a witness, whose public inputs are the ones the verifier expects", async () => {
      const w = await zok.computeWitness(artifacts, inst.args, { snarkjs: true });
      // The root's eight u32 words are public inputs of their own, one field element each.
      const dir = mkdtempSync(path.join(os.tmpdir(), "zksnark-sha256-"));
      try {
        writeFileSync(path.join(dir, "c.r1cs"), artifacts.snarkjs.program);
        writeFileSync(path.join(dir, "c.wtns"), w.snarkjs.witness);
        const { nPubInputs, nOutputs } = await snarkjs.r1cs.info(path.join(dir, "c.r1cs"));
        const wires = await snarkjs.wtns.exportJson(path.join(dir, "c.wtns"));
        const expected = expectedPublicInputs(inst, "zokrates");
        assert.equal(nPubInputs + nOutputs, expected.length);
        assert.deepEqual(wires.slice(1, 1 + expected.length).map(String), expected);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await globalThis.curve_bn128?.terminate();
      }
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

// The optimized circuit's SHA-256 variant proves on the same instance, with the same root words
// as the ZoKrates program's public input, and a wrong sibling has no witness.
for (const statement of ["sm", "rsm"]) {
  test(`optimized ${statement.toUpperCase()} with SHA-256 (n = 2) proves; a wrong sibling has no witness`, { skip: OPTIMIZED_SKIP, timeout: 10 * 60 * 1000 }, () => {
    const run = runDriver({ statement, hash: "sha256", n: 2, seed: 11, provers: ["native"], circuits: ["optimized"] });
    assert.equal(run.status, 0, run.stderr);
    const rep = run.json();
    assert.equal(rep.circuits.optimized.provers.native.status, "PASSED");
    assert.equal(rep.circuits.optimized.provers.native.public_inputs, statement === "sm" ? 10 : 9);
    const ours = run.buildJson("optimized-inputs.json");
    const abi = run.buildJson("inputs.json");
    assert.deepEqual(u32Words(Buffer.from(ours.root, "hex")), abi[3]);
    const sib = ours.siblings[0];
    const wrong = { ...ours, siblings: [sib.slice(0, -1) + (Number.parseInt(sib.slice(-1), 16) ^ 1).toString(16)] };
    const f = (name) => path.join(run.build, name);
    writeFileSync(f("wrong.json"), JSON.stringify(wrong));
    const r = spawnSync(optimizedBuilderPath(), ["build", "--inputs", f("wrong.json"), "--r1cs", f("w.r1cs"), "--wtns", f("w.wtns"), "--out", f("w.json")], { encoding: "utf8" });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /in "Merkle path: digests, bits, selections, SHA-256s"/);
  });
}
