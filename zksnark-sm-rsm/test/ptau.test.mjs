// The native powers of tau (`zksnark-prover ptau`) as snarkjs judges them: its own verifier
// accepts the file, its own phase-2 preparation of the file's phase-1 sections rewrites the file
// byte for byte, the contribution's response hash is what snarkjs's encodings and BLAKE2b give,
// and a file with two points swapped is rejected. One seed gives one file; no seed, another.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { blake2b } from "@noble/hashes/blake2b";
import * as snarkjs from "snarkjs";
import { nativeProverPath } from "../lib/native.mjs";
import { NATIVE_SKIP, seedHex } from "./helpers.mjs";

const POWER = 8;

/** `zksnark-prover ptau`: its exit status and its summary (stdout JSON). */
function generate(out, { power = POWER, seed } = {}) {
  const args = ["ptau", "--power", String(power), "--out", out, "--threads", "1"];
  if (seed !== undefined) args.push("--seed", seedHex(seed));
  const r = spawnSync(nativeProverPath(), args, { encoding: "utf8" });
  return { status: r.status, stderr: r.stderr, summary: r.status === 0 ? JSON.parse(r.stdout) : null };
}

/** The sections of a circom-style binary file: type -> [{start, size}]. */
function sections(bytes) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.equal(Buffer.from(bytes.subarray(0, 4)).toString(), "ptau");
  const count = v.getUint32(8, true);
  const out = {};
  let pos = 12;
  for (let i = 0; i < count; i++) {
    const type = v.getUint32(pos, true);
    const size = Number(v.getBigUint64(pos + 4, true));
    (out[type] ??= []).push({ start: pos + 12, size });
    pos += 12 + size;
  }
  assert.equal(pos, bytes.length);
  return out;
}

describe("native powers of tau, judged by snarkjs 0.7.6", { skip: NATIVE_SKIP, timeout: 10 * 60 * 1000 }, () => {
  let dir;
  let file;
  let summary;
  let curve;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "zksnark-ptau-"));
    file = path.join(dir, "pot.ptau");
    const r = generate(file, { seed: 5 });
    assert.equal(r.status, 0, r.stderr);
    summary = r.summary;
    curve = await snarkjs.curves.getCurveFromName("bn128");
  });
  after(async () => {
    await curve?.terminate();
    await globalThis.curve_bn128?.terminate();
    rmSync(dir, { recursive: true, force: true });
  });

  test("snarkjs's verifier accepts it; the summary says what it is", async () => {
    assert.equal(await snarkjs.powersOfTau.verify(file), true);
    assert.equal(summary.power, POWER);
    assert.equal(summary.participants, 1);
    assert.equal(summary.seeded, true);
    assert.equal(summary.bytes, readFileSync(file).length);
    for (const k of ["real", "user", "sys"]) assert.ok(summary.time[k] >= 0);
  });

  test("snarkjs's phase-2 preparation of its phase-1 sections rewrites it byte for byte", async () => {
    const again = path.join(dir, "prepared.ptau");
    await snarkjs.powersOfTau.preparePhase2(file, again);
    assert.ok(readFileSync(again).equals(readFileSync(file)), "the Lagrange sections differ from snarkjs's");
  });

  test("the response hash is BLAKE2b of the challenge, the compressed points and the key", async () => {
    const bytes = readFileSync(file);
    const s = sections(bytes);
    const h = blake2b.create({ dkLen: 64 });
    h.update(Buffer.from(summary.first_challenge, "hex"));
    for (const [type, group] of [[2, curve.G1], [3, curve.G2], [4, curve.G1], [5, curve.G1], [6, curve.G2]]) {
      const { start, size } = s[type][0];
      h.update(await group.batchLEMtoC(bytes.subarray(start, start + size)));
    }
    // The public key follows the five points of the contribution record (after its count).
    const key = s[7][0].start + 4 + 3 * 64 + 2 * 128;
    const keyBytes = bytes.subarray(key, key + 6 * 64 + 3 * 128);
    const uncompressed = new Uint8Array(keyBytes.length);
    for (let i = 0, at = 0; i < 9; i++) {
      const group = i < 6 ? curve.G1 : curve.G2;
      const n = group.F.n8 * 2;
      group.toRprUncompressed(uncompressed, at, group.fromRprLEM(keyBytes, at));
      at += n;
    }
    h.update(uncompressed);
    assert.equal(Buffer.from(h.digest()).toString("hex"), summary.response_hash);
  });

  test("two points swapped in a powers or a Lagrange section: snarkjs's verifier rejects the file", async () => {
    const bytes = readFileSync(file);
    const s = sections(bytes);
    for (const [type, size] of [[2, 64], [12, 64], [13, 128]]) {
      const bad = Buffer.from(bytes);
      const at = s[type][0].start + 5 * size; // points 5 and 6: inside the 2^2 basis in 12 and 13
      const a = Buffer.from(bad.subarray(at, at + size));
      bad.copy(bad, at, at + size, at + 2 * size);
      a.copy(bad, at + size);
      const f = path.join(dir, `bad-${type}.ptau`);
      writeFileSync(f, bad);
      assert.equal(await snarkjs.powersOfTau.verify(f), false, `section ${type}`);
    }
  });

  test("one seed gives one file; without a seed, another", () => {
    const same = path.join(dir, "same.ptau");
    const fresh = path.join(dir, "fresh.ptau");
    assert.equal(generate(same, { seed: 5 }).status, 0);
    assert.equal(generate(fresh).status, 0);
    assert.ok(readFileSync(same).equals(readFileSync(file)));
    assert.ok(!readFileSync(fresh).equals(readFileSync(file)));
  });

  test("a power out of range is refused (exit 2) and writes nothing", () => {
    for (const power of [0, 28]) {
      const f = path.join(dir, `p${power}.ptau`);
      const r = generate(f, { power });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /--power must be between 1 and 27/);
      assert.ok(!existsSync(f));
    }
  });
});
