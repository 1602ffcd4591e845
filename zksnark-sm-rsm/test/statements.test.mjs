// End-to-end SM and RSM at small n: run.mjs proves and verifies (wasm, and native when built),
// and the negative cases fail: a wrong path or a wrong v gives no witness, and a tampered proof
// or public input does not verify.
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import * as zok from "../lib/zokrates.mjs";
import { NATIVE, NATIVE_SKIP, bump, runDriver } from "./helpers.mjs";

const SECTIONS = ["COMPUTATION", "TRUSTED SETUP", "PROVER", "VERIFIER"];

function checkTextReport(text, { constraints, status }) {
  let at = 0;
  for (const s of SECTIONS) {
    const i = text.indexOf(`${s}:\n`, at);
    assert.ok(i >= at, `section ${s} missing or out of order`);
    at = i;
  }
  assert.match(text, new RegExp(`^Number of constraints: ${constraints}$`, "m"));
  assert.equal(text.match(/^real\t\d+m\d+\.\d{3}s\nuser\t\d+m\d+\.\d{3}s\nsys\t\d+m\d+\.\d{3}s$/gm)?.length, 4);
  assert.match(text.slice(text.indexOf("VERIFIER:")), new RegExp(`^${status}$`, "m"));
}

function checkJson(rep, { statement, n, depth, provers }) {
  assert.equal(rep.experiment, "zksnark-sm-rsm");
  assert.equal(rep.statement, statement);
  assert.equal(rep.hash, "poseidon");
  assert.equal(rep.n, n);
  assert.equal(rep.depth, depth);
  assert.equal(rep.curve, "bn254");
  assert.equal(rep.threads, 1);
  assert.ok(Number.isInteger(rep.constraints) && rep.constraints > 25000);
  assert.deepEqual(Object.keys(rep.provers).sort(), provers.slice().sort());
  for (const p of provers) {
    const r = rep.provers[p];
    assert.equal(r.status, "PASSED");
    for (const s of SECTIONS) for (const k of ["real", "user", "sys"]) assert.ok(r.sections[s][k] >= 0, `${p} ${s} ${k}`);
    assert.ok(r.prover_components.witness.real > 0 && r.prover_components.proof.real > 0);
    // PROVER is witness + proof, as the paper timed it.
    assert.ok(Math.abs(r.sections.PROVER.real - r.prover_components.witness.real - r.prover_components.proof.real) < 1e-9);
  }
  assert.ok(rep.provers.wasm.peak_rss_mib > 10);
  for (const k of ["hostname", "cpu_model", "logical_cpus", "mem_total_gib", "os", "load_avg_1m"]) assert.ok(k in rep.machine, k);
  assert.equal(rep.versions["zokrates-js"], "1.1.9");
  assert.equal(rep.versions.circomlibjs, "0.1.7");
}

for (const [statement, n, depth] of [
  ["sm", 5, 3],
  ["rsm", 9, 4],
]) {
  describe(`${statement.toUpperCase()} (n = ${n})`, { timeout: 20 * 60 * 1000 }, () => {
    const provers = NATIVE ? ["wasm", "native"] : ["wasm"];
    let run;
    let rep;
    let artifacts;
    let args;
    before(async () => {
      run = runDriver({ statement, n, seed: 20240 + n, provers });
      assert.equal(run.status, 0, run.stderr);
      rep = run.json();
      args = run.buildJson("inputs.json");
      artifacts = await zok.compile(run.buildText(`${statement}.zok`));
    });

    test("run.mjs proves and verifies; reports are in the paper's format", () => {
      checkJson(rep, { statement, n, depth, provers });
      checkTextReport(run.read("report-wasm.txt"), { constraints: rep.constraints, status: "PASSED" });
      assert.equal(artifacts.constraintCount, rep.constraints);
    });

    test("native prover proves and verifies the same R1CS", { skip: NATIVE_SKIP }, () => {
      checkTextReport(run.read("report-native.txt"), { constraints: rep.constraints, status: "PASSED" });
    });

    test("the honest inputs give a witness (control for the negative cases)", async () => {
      await zok.computeWitness(artifacts, args);
    });

    // Index of the first sibling in the ABI arguments, and of v for each statement.
    const SIBLINGS = statement === "sm" ? 6 : 5;
    const V = statement === "sm" ? 4 : 1;

    test("a wrong path gives no witness", async () => {
      const wrongSibling = structuredClone(args);
      // The top sibling: the leaf-level ones may be pads, this one is a hash.
      wrongSibling[SIBLINGS][depth - 1] = bump(wrongSibling[SIBLINGS][depth - 1]);
      await assert.rejects(zok.computeWitness(artifacts, wrongSibling));
      const wrongDirection = structuredClone(args);
      wrongDirection[SIBLINGS + 1][0] = !wrongDirection[SIBLINGS + 1][0];
      await assert.rejects(zok.computeWitness(artifacts, wrongDirection));
    });

    test("a wrong v gives no witness", async () => {
      const wrongV = structuredClone(args);
      wrongV[V] = bump(wrongV[V]);
      await assert.rejects(zok.computeWitness(artifacts, wrongV));
    });

    test("a tampered proof does not verify", async () => {
      const vk = run.buildJson("verification.key");
      const proof = run.buildJson("proof.json");
      assert.equal(await zok.verify(vk, proof), true);
      // Swapping A and C keeps both valid curve points, so only the pairing check can reject.
      const swapped = structuredClone(proof);
      [swapped.proof.a, swapped.proof.c] = [proof.proof.c, proof.proof.a];
      assert.equal(await zok.verify(vk, swapped), false);
      // A coordinate changed by one is (almost surely) off the curve: rejected, never accepted.
      const offCurve = structuredClone(proof);
      offCurve.proof.a[1] = `0x${(BigInt(proof.proof.a[1]) + 1n).toString(16).padStart(64, "0")}`;
      assert.equal(await zok.verify(vk, offCurve), false);
    });

    test("a tampered public input does not verify", async () => {
      const vk = run.buildJson("verification.key");
      const proof = run.buildJson("proof.json");
      for (let i = 0; i < proof.inputs.length; i++) {
        const tampered = structuredClone(proof);
        tampered.inputs[i] = `0x${(BigInt(proof.inputs[i]) + 1n).toString(16).padStart(64, "0")}`;
        assert.equal(await zok.verify(vk, tampered), false, `public input ${i}`);
      }
    });
  });
}
