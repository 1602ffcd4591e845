// End-to-end SM and RSM at small n: run.mjs proves and verifies (wasm, and native when built),
// and the negative cases fail: a wrong path or a wrong v gives no witness, and a tampered proof
// or public input does not verify.
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as zok from "../lib/zokrates.mjs";
import { Pedersen } from "../lib/babyjubjub.mjs";
import { nativeProverPath } from "../lib/native.mjs";
import { optimizedBuilderPath } from "../lib/optimized.mjs";
import { NATIVE, NATIVE_SKIP, OPTIMIZED, OPTIMIZED_SKIP, bump, runDriver, schemaViolations } from "./helpers.mjs";

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

function checkJson(report, { statement, n, depth, provers, circuits }) {
  // The envelope: the run's verdict, its seed and the digest of its inputs.
  assert.equal(report.format, "tmbench-report/1");
  assert.equal(report.tool, "zksnark-sm-rsm");
  assert.equal(report.passed, true);
  assert.match(report.seed, /^[0-9a-f]{64}$/);
  assert.match(report.inputs_sha256, /^[0-9a-f]{64}$/);
  for (const k of ["hostname", "cpu_model", "logical_cpus", "mem_total_gib", "os"]) assert.ok(k in report.machine, k);
  const rep = report.body;
  assert.equal(rep.statement, statement);
  assert.equal(rep.hash, "poseidon");
  assert.equal(rep.variant, "sound");
  assert.deepEqual(rep.fixes.map((f) => f.split(":")[0]), ["Z1", "Z2"]);
  assert.equal(rep.n, n);
  assert.equal(rep.depth, depth);
  assert.equal(rep.curve, "bn254");
  assert.equal(rep.threads, 1);
  const zk = rep.circuits.zokrates;
  assert.ok(Number.isInteger(zk.constraints) && zk.constraints > 25000);
  assert.deepEqual(Object.keys(zk.provers).sort(), provers.slice().sort());
  // Every verifier was given the suite's public inputs: its parameters, C or v, H, the root.
  assert.equal(zk.expected_public_inputs.length, statement === "sm" ? 14 : 13);
  for (const p of provers) {
    const r = zk.provers[p];
    assert.equal(r.status, "PASSED");
    assert.equal(r.public_inputs_as_expected, true, p);
    for (const s of SECTIONS) for (const k of ["real", "user", "sys"]) assert.ok(r.sections[s][k] >= 0, `${p} ${s} ${k}`);
    assert.ok(r.prover_components.witness.real > 0 && r.prover_components.proof.real > 0);
    // PROVER is witness + proof, as the paper timed it.
    assert.ok(Math.abs(r.sections.PROVER.real - r.prover_components.witness.real - r.prover_components.proof.real) < 1e-9);
  }
  assert.ok(zk.provers.wasm.peak_rss_mib > 10);
  assert.equal(rep.versions["zokrates-js"], "1.1.9");
  assert.equal(rep.versions.circomlibjs, "0.1.7");
  assert.deepEqual(Object.keys(rep.circuits).sort(), circuits.slice().sort());
  assert.equal(zk.name, "zokrates");
  if (circuits.includes("optimized")) {
    const o = rep.circuits.optimized;
    assert.equal(o.name, "optimized");
    assert.ok(Number.isInteger(o.constraints) && o.constraints < zk.constraints / 4, `${o.constraints} constraints`);
    assert.equal(o.components.reduce((a, c) => a + c.constraints, 0), o.constraints);
    assert.deepEqual(Object.keys(o.provers), ["native"]);
    assert.equal(o.provers.native.status, "PASSED");
    assert.equal(o.provers.native.public_inputs, statement === "sm" ? 3 : 2);
    assert.equal(o.expected_public_inputs.length, o.provers.native.public_inputs);
    assert.equal(o.provers.native.public_inputs_as_expected, true);
    assert.equal(rep.comparison.prover, "native");
    assert.equal(rep.comparison.constraints_ratio, o.constraints / zk.constraints);
    assert.ok(rep.comparison.proof_user_ratio > 0);
  } else {
    assert.equal(rep.comparison, null);
  }
}

function exec(bin, args) {
  return spawnSync(bin, args, { encoding: "utf8", timeout: 300000 });
}

for (const [statement, n, depth] of [
  ["sm", 5, 3],
  ["rsm", 9, 4],
]) {
  describe(`${statement.toUpperCase()} (n = ${n})`, { timeout: 20 * 60 * 1000 }, () => {
    const provers = NATIVE ? ["wasm", "native"] : ["wasm"];
    const circuits = OPTIMIZED ? ["zokrates", "optimized"] : ["zokrates"];
    let run;
    let rep;
    let report;
    let artifacts;
    let args;
    before(async () => {
      run = runDriver({ statement, n, seed: 20240 + n, provers, circuits });
      assert.equal(run.status, 0, run.stderr);
      report = run.envelope();
      rep = report.body;
      args = run.buildJson("inputs.json");
      artifacts = await zok.compile(run.buildText(`${statement}.zok`));
    });

    test("run.mjs proves and verifies; reports are in the paper's format", () => {
      checkJson(report, { statement, n, depth, provers, circuits });
      checkTextReport(run.read("report-wasm.txt"), { constraints: rep.circuits.zokrates.constraints, status: "PASSED" });
      assert.equal(artifacts.constraintCount, rep.circuits.zokrates.constraints);
      assert.match(run.read("report-wasm.txt"), /^variant=sound$/m);
    });

    test("the report validates against the envelope and body schemas", () => {
      assert.equal(schemaViolations(run.report), "");
      // A report without the envelope's verdict does not.
      const broken = { ...report };
      delete broken.passed;
      const f = path.join(run.out, "broken.json");
      writeFileSync(f, JSON.stringify(broken));
      assert.match(schemaViolations(f), /envelope: 'passed' is a required property/);
    });

    test("native prover proves and verifies the same R1CS", { skip: NATIVE_SKIP }, () => {
      checkTextReport(run.read("report-native.txt"), { constraints: rep.circuits.zokrates.constraints, status: "PASSED" });
    });

    test("the optimized circuit: same report format, and its proof verifies for the ZoKrates proof's public values", { skip: OPTIMIZED_SKIP }, () => {
      checkTextReport(run.read("report-optimized-native.txt"), { constraints: rep.circuits.optimized.constraints, status: "PASSED" });
      // The ZoKrates proof's public inputs: the 9 parameters, then SM (C, H, root) or RSM (v, H, root).
      const inputs = run.buildJson("proof.json").inputs.map((x) => BigInt(x).toString());
      const ours = run.buildJson("optimized-inputs.json");
      const shared = statement === "sm" ? [inputs[9], inputs[10], inputs[13]] : [inputs[9], inputs[12]];
      assert.deepEqual(shared, statement === "sm" ? [...ours.C, ours.root] : [ours.v, ours.root]);
      const f = (name) => path.join(run.build, name);
      const native = nativeProverPath();
      const steps = [
        ["setup", "--r1cs", f("optimized.r1cs"), "--pk", f("opt.pk"), "--vk", f("opt.vk")],
        ["prove", "--r1cs", f("optimized.r1cs"), "--wtns", f("optimized.wtns"), "--pk", f("opt.pk"), "--proof", f("opt.proof"), "--threads", "1"],
      ];
      for (const args of steps) assert.equal(exec(native, args).status, 0, args[0]);
      const verify = (values) => {
        writeFileSync(f("zokrates-public.json"), JSON.stringify(values));
        return exec(native, ["verify", "--vk", f("opt.vk"), "--proof", f("opt.proof"), "--public", f("zokrates-public.json")]);
      };
      const ok = verify(shared);
      assert.equal(ok.status, 0, ok.stdout + ok.stderr);
      assert.match(ok.stdout, /^PASSED$/m);
      for (let i = 0; i < shared.length; i++) {
        const tampered = shared.slice();
        tampered[i] = bump(tampered[i]);
        const r = verify(tampered);
        assert.equal(r.status, 1, `public input ${i}: ${r.stdout}`);
        assert.match(r.stdout, /^FAILED$/m);
      }
    });

    test("the optimized circuit: a wrong leaf, path bit or r has no witness", { skip: OPTIMIZED_SKIP }, () => {
      const honest = run.buildJson("optimized-inputs.json");
      const f = (name) => path.join(run.build, name);
      const build = (inputs, tag) => {
        writeFileSync(f(`${tag}.json`), JSON.stringify(inputs));
        const args = ["build", "--inputs", f(`${tag}.json`), "--r1cs", f(`${tag}.r1cs`), "--wtns", f(`${tag}.wtns`), "--out", f(`${tag}-report.json`)];
        return exec(optimizedBuilderPath(), args);
      };
      assert.equal(build(honest, "control").status, 0, "control");
      const pedersen = new Pedersen();
      const path_ = "Merkle path: bits, selections, Poseidons";
      // A wrong leaf: another v, with its own commitment in SM, so that only the tree objects.
      const v2 = BigInt(honest.v) + 1n;
      const wrongLeaf = { ...honest, v: v2.toString() };
      if (statement === "sm") wrongLeaf.C = pedersen.commit(v2, BigInt(honest.r)).map(String);
      const wrongBit = { ...honest, right: honest.right.map((b, k) => (k === 0 ? !b : b)) };
      const wrongR = { ...honest, r: bump(honest.r) };
      for (const [inputs, part, tag] of [
        [wrongLeaf, path_, "leaf"],
        [wrongBit, path_, "bit"],
        [wrongR, statement === "sm" ? "C == v G + r H, fixed-base windows" : path_, "r"],
      ]) {
        const r = build(inputs, `wrong-${tag}`);
        assert.equal(r.status, 2, `${tag}: ${r.stderr}`);
        assert.ok(r.stderr.includes(`do not satisfy the ${statement.toUpperCase()} statement`) && r.stderr.includes(`in "${part}"`), `${tag}: ${r.stderr}`);
        assert.equal(existsSync(f(`wrong-${tag}.wtns`)), false);
      }
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
