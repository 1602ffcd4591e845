// The paper's ZoKrates program takes the Baby Jubjub parameters (with G) and H as public inputs
// that nothing constrains. A prover that picks its own can "prove" that a commitment to a value
// outside the set commits to a member:
//   * its own H: H' = C - v G for a member v, so that C = v G + 1 H';
//   * its own G: G' = v^-1 (C - r H), so that C = v G' + r H.
// The circuit has a witness for both and the proofs verify for their provers' own public inputs
// (the control: what a verifier that takes the prover's inputs accepts). The driver's verifiers
// check every proof against the suite's public inputs (lib/verifier.mjs) and reject them all:
// zokrates-js (wasm), the native prover (zksnark-prover run --expect-public) and snarkjs's
// verifier (the cross-verification's). The honest case is checked by every driver run in
// statements.test.mjs (status PASSED against the suite's inputs, public_inputs_as_expected).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as zok from "../lib/zokrates.mjs";
import { G, L, Pedersen, ZOKRATES_PARAMS, add, mul } from "../lib/babyjubjub.mjs";
import { P } from "../lib/field.mjs";
import { Rng } from "../lib/rng.mjs";
import { buildInstance } from "../lib/statement.mjs";
import { expectedPublicInputs, sameInputs } from "../lib/verifier.mjs";
import { nativeVerifies, runNativeProver } from "../lib/native.mjs";
import { snarkjsVerifies } from "../lib/snarkjs.mjs";
import { NATIVE_SKIP, seedHex } from "./helpers.mjs";

const neg = ([x, y]) => [x === 0n ? 0n : P - x, y];

/** k^-1 mod L. */
function invL(k) {
  let [r0, r1, s0, s1] = [((k % L) + L) % L, L, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  return ((s0 % L) + L) % L;
}

describe("a proof made with other parameters than the suite's is rejected", { timeout: 20 * 60 * 1000 }, () => {
  const rng = new Rng(seedHex(31), "test/parameters");
  let inst;
  let artifacts;
  let keys;
  let expected;
  let cheats;
  const dir = mkdtempSync(path.join(os.tmpdir(), "zksnark-parameters-"));

  before(async () => {
    inst = await buildInstance({ statement: "sm", hash: "poseidon", n: 4, rng });
    artifacts = await zok.compile(inst.program, { snarkjs: true });
    keys = await zok.setup(artifacts.program, rng.entropy());
    writeFileSync(path.join(dir, "circuit.r1cs"), artifacts.snarkjs.program);
    // The statement to reject: C commits (under the suite's H) to w, which is not in the set.
    const pedersen = new Pedersen();
    const w = rng.belowL();
    const C = pedersen.commit(w, rng.belowL());
    const v = BigInt(inst.v);
    // The verifier's public inputs for that statement: the suite's parameters and H, C, the root.
    expected = expectedPublicInputs({ ...inst, commitment: C.map(String) }, "zokrates");
    const withC = (args) => {
      args[1] = C.map(String);
      return args;
    };
    const ownH = withC(structuredClone(inst.args));
    ownH[2] = add(C, neg(mul(G, v))).map(String);
    ownH[5] = "1";
    const r = rng.belowL();
    const ownG = withC(structuredClone(inst.args));
    const G2 = mul(add(C, neg(mul(pedersen.H, r))), invL(v));
    ownG[0] = { ...ZOKRATES_PARAMS, Gu: G2[0].toString(), Gv: G2[1].toString() };
    ownG[5] = r.toString();
    cheats = { "its own H": ownH, "its own G": ownG };
  });

  // One wasm proof (wasm proving is slow); both cheats on the native prover.
  test("a prover with its own H: zokrates-js's proof is rejected", async () => {
    const { witness } = await zok.computeWitness(artifacts, cheats["its own H"]);
    const proof = await zok.prove(artifacts.program, witness, keys.pk, rng.entropy());
    assert.equal(await zok.verify(keys.vk, proof), true, "control: it verifies for its own inputs");
    assert.equal(sameInputs(proof.inputs, expected), false);
    assert.equal(await zok.verifyAgainst(keys.vk, proof, expected), false);
  });

  for (const which of ["its own H", "its own G"]) {
    test(`a prover with ${which}: the native prover's and snarkjs's verifiers reject it`, { skip: NATIVE_SKIP }, async () => {
      const tag = which.replaceAll(" ", "-");
      const f = (name) => path.join(dir, `${tag}-${name}`);
      const w = await zok.computeWitness(artifacts, cheats[which], { snarkjs: true });
      writeFileSync(f("witness.wtns"), w.snarkjs.witness);
      writeFileSync(f("expected.json"), JSON.stringify(expected));
      const files = { proof: f("proof.json"), vk: f("vk.json"), public: f("public.json") };
      const checked = runNativeProver({
        r1cs: path.join(dir, "circuit.r1cs"),
        wtns: f("witness.wtns"),
        threads: 1,
        out: f("native.json"),
        files,
        expectPublic: f("expected.json"),
      });
      assert.equal(checked.status, "FAILED");
      assert.equal(checked.witness_public_inputs_as_expected, false);
      // Controls: the same proof verifies for its prover's own inputs, natively and in snarkjs.
      assert.equal(nativeVerifies({ vk: files.vk, proof: files.proof, publicFile: files.public }), true);
      const own = JSON.parse(readFileSync(files.public, "utf8"));
      assert.equal(await snarkjsVerifies({ vk: files.vk, proof: files.proof, publicSignals: own }), true);
      assert.equal(await snarkjsVerifies({ vk: files.vk, proof: files.proof, publicSignals: expected }), false);
    });
  }

  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    // snarkjs's curve keeps worker threads alive; end them so that the test process exits.
    await globalThis.curve_bn128?.terminate();
  });
});
