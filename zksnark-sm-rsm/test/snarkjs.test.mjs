// snarkjs beside the native ark-groth16 prover on the same circuit files in one run: each
// verifier accepts the other prover's proof on the same public inputs, and a tampered proof or
// public input is rejected by both. (The optimized circuit at n = 5 keeps the powers of tau small,
// 2^12; the driver's code is the same for the ZoKrates circuit.)
import { after, describe, test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { nativeVerifies } from "../lib/native.mjs";
import { snarkjsVerifies } from "../lib/snarkjs.mjs";
import { OPTIMIZED_SKIP, runDriver, schemaViolations } from "./helpers.mjs";

describe("snarkjs and the native prover cross-verify (RSM, n = 5)", { skip: OPTIMIZED_SKIP, timeout: 30 * 60 * 1000 }, () => {
  let run;
  let rep;
  const f = (name) => path.join(run.build, name);
  const json = (name) => JSON.parse(readFileSync(f(name), "utf8"));
  // snarkjs's curve keeps worker threads alive; end them so that the test process exits.
  after(async () => {
    await globalThis.curve_bn128?.terminate();
  });
  before(() => {
    run = runDriver({ statement: "rsm", n: 5, seed: 31, provers: ["native", "snarkjs"], circuits: ["optimized"] });
    assert.equal(run.status, 0, run.stderr);
    rep = run.json();
  });

  test("both prove and verify, each verifier accepts the other's proof, the report says so", () => {
    assert.equal(schemaViolations(run.report), "");
    const { native, snarkjs } = rep.circuits.optimized.provers;
    assert.equal(native.status, "PASSED");
    assert.equal(snarkjs.status, "PASSED");
    assert.deepEqual(native.checked_by, { snarkjs: true });
    assert.deepEqual(snarkjs.checked_by, { native: true });
    assert.equal(native.same_public_inputs, true);
    assert.equal(rep.cross_verification, true);
    assert.ok(rep.powers_of_tau.power >= 12);
    assert.equal(snarkjs.setup_components.powers_of_tau.user, rep.powers_of_tau.time.user);
    const ref = rep.references.optimized;
    assert.equal(ref.reference, "snarkjs");
    assert.ok(ref.proof_user_ratio > 0 && ref.setup_user_ratio > 0);
    assert.match(run.read("report-optimized-snarkjs.txt"), /^PASSED$/m);
    assert.match(run.read("report-optimized-snarkjs.txt"), /^Powers of tau \(2\^\d+, generated locally by snarkjs/m);
  });

  test("a tampered proof or public input is rejected by both verifiers", async () => {
    for (const prover of ["native", "snarkjs"]) {
      const proof = json(`optimized-${prover}-proof.json`);
      const vk = f(`optimized-${prover}-vk.json`);
      const publicFile = f(prover === "native" ? "optimized-native-public.json" : "optimized-public.json");
      const publicSignals = JSON.parse(readFileSync(publicFile, "utf8"));
      const both = async (p, pub, tag) => {
        const pf = f(`tampered-${prover}-${tag}-proof.json`);
        const pubf = f(`tampered-${prover}-${tag}-public.json`);
        writeFileSync(pf, JSON.stringify(p));
        writeFileSync(pubf, JSON.stringify(pub));
        return [await snarkjsVerifies({ vk, proof: pf, publicSignals: pub }), nativeVerifies({ vk, proof: pf, publicFile: pubf })];
      };
      assert.deepEqual(await both(proof, publicSignals, "control"), [true, true], `${prover}: control`);
      // A and C swapped: both still points of G1, so only the pairing equation can object.
      const swapped = { ...proof, pi_a: proof.pi_c, pi_c: proof.pi_a };
      assert.deepEqual(await both(swapped, publicSignals, "swapped"), [false, false], `${prover}: swapped A and C`);
      const bumped = publicSignals.map((x, i) => (i === 0 ? (BigInt(x) + 1n).toString() : x));
      assert.deepEqual(await both(proof, bumped, "public"), [false, false], `${prover}: public input + 1`);
    }
  });
});
