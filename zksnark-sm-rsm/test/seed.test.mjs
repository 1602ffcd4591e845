// One seed, one set of inputs: two runs with the same --seed draw the same set, tree, proven
// index and commitments (the envelope's inputs_sha256 digests them), two runs without a seed
// draw different ones.
import { test } from "node:test";
import assert from "node:assert/strict";
import { OPTIMIZED_SKIP, runDriver, schemaViolations } from "./helpers.mjs";

test("one seed gives the same inputs; no seed gives fresh ones", { skip: OPTIMIZED_SKIP, timeout: 10 * 60 * 1000 }, () => {
  const runs = [7, 7, null, null].map((seed) => {
    const run = runDriver({ statement: "rsm", n: 5, seed, provers: ["native"], circuits: ["optimized"], keepBuild: false });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(schemaViolations(run.report), "");
    return run.envelope();
  });
  const [a, b, c, d] = runs;
  assert.equal(a.inputs_sha256, b.inputs_sha256);
  assert.equal(a.body.root, b.body.root);
  assert.equal(a.body.proven_index, b.body.proven_index);
  assert.equal(a.seed, b.seed);
  assert.notEqual(c.inputs_sha256, d.inputs_sha256);
  assert.notEqual(c.body.root, d.body.root);
  assert.equal(c.seed, null);
  assert.notEqual(a.inputs_sha256, c.inputs_sha256);
});
