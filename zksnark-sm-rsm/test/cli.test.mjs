// The command line rejects bad input with exit code 2 and a message naming the problem.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { NATIVE_SKIP, seedHex } from "./helpers.mjs";

const RUN = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "run.mjs");

function run(args) {
  return spawnSync(process.execPath, [RUN, ...args], { encoding: "utf8", timeout: 60000 });
}

const GOOD = ["--statement", "sm", "--n", "5", "--hash", "poseidon", "--threads", "1"];

test("bad command lines exit 2 with a message naming the option", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "zksnark-cli-"));
  const out = path.join(dir, "report.json");
  const cases = [
    [["--statement", "xm", "--n", "5", "--hash", "poseidon", "--threads", "1", "--out", out], /--statement must be one of: sm, rsm/],
    [["--statement", "sm", "--n", "1", "--hash", "poseidon", "--threads", "1", "--out", out], /--n must be at least 2/],
    [["--statement", "sm", "--n", "ten", "--hash", "poseidon", "--threads", "1", "--out", out], /--n must be a positive integer/],
    [["--statement", "sm", "--n", "5", "--hash", "md5", "--threads", "1", "--out", out], /--hash must be one of: poseidon, sha256/],
    [["--statement", "sm", "--n", "5", "--hash", "poseidon", "--threads", "0", "--out", out], /--threads must be between 1/],
    [[...GOOD], /--out is required/],
    [[...GOOD, "--out", out, "--provers", "wasm,gpu"], /--provers takes a comma-separated list of: wasm, native, snarkjs/],
    [[...GOOD, "--out", out, "--seed", "-3"], /--seed/],
    [[...GOOD, "--out", out, "--seed", "42"], /--seed must be 64 hexadecimal digits/],
    [[...GOOD, "--out", out, "--variant", "paper"], /--variant must be one of: sound, as-published/],
    [[...GOOD, "--out", out, "--ptau", "download"], /--ptau must be one of: native, snarkjs/],
    [[...GOOD, "--out", dir], /--out: cannot write .* is a directory/],
    [["--statement", "sm", "--n", "5", "--hash", "sha256", "--threads", "1", "--out", out, "--provers", "snarkjs"], /snarkjs runs on the Poseidon circuits only/],
    [[...GOOD, "--out", out, "--bogus"], /bogus/],
    [[...GOOD, "--out", out, "--circuits", "zokrates,circom"], /--circuits takes a comma-separated list of: zokrates, optimized; got 'circom'/],
    [[...GOOD, "--out", out, "--circuits", "optimized,optimized"], /--circuits lists a circuit twice/],
    [[...GOOD, "--out", out, "--circuits", "optimized", "--provers", "wasm"], /--circuits: the optimized circuit is proven by: native/],
  ];
  for (const [args, msg] of cases) {
    const r = run(args);
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, msg);
  }
  assert.equal(existsSync(out), false);
});

test("a missing native prover is a clear error, not a crash", { timeout: 300000 }, () => {
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), "zksnark-cli-")), "report.json");
  const r = spawnSync(process.execPath, [RUN, ...GOOD, "--out", out, "--provers", "native", "--seed", seedHex(1)], {
    encoding: "utf8",
    env: { ...process.env, ZKSNARK_PROVER: path.join(out, "no-such-prover") },
    timeout: 300000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /native prover not found or not executable at .*no-such-prover/);
  assert.equal(existsSync(out), false);
});

test("a missing optimized-circuit builder is a clear error before any work", { skip: NATIVE_SKIP, timeout: 300000 }, () => {
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), "zksnark-cli-")), "report.json");
  const r = spawnSync(process.execPath, [RUN, ...GOOD, "--out", out, "--provers", "native", "--circuits", "optimized", "--seed", seedHex(1)], {
    encoding: "utf8",
    env: { ...process.env, ZKSNARK_OPTIMIZED: path.join(out, "no-such-builder") },
    timeout: 300000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /optimized circuit builder not found or not executable at .*no-such-builder/);
  assert.doesNotMatch(r.stderr, /COMPUTATION/);
  assert.equal(existsSync(out), false);
});
