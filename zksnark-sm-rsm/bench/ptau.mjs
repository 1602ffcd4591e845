#!/usr/bin/env node
// Powers of tau: the native generator (`zksnark-prover ptau`) against snarkjs's own ceremony
// (new, one contribution, prepare phase2), same machine, same run, alternating per power.
// Both write a prepared file of 2^power; snarkjs's verifier checks each native file.
// Usage: node bench/ptau.mjs [--powers 10,11,12,13] [--native-only 16] [--threads 1] [--out PATH]
// CPU time is user + sys of every thread: the native generator runs with --threads; snarkjs
// has no thread option for these steps and runs a worker per logical CPU.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import * as snarkjs from "snarkjs";
import { randomBytes } from "node:crypto";
import { nativePowersOfTau } from "../lib/snarkjs.mjs";
import { timed } from "../lib/timing.mjs";

const { values } = parseArgs({
  options: {
    powers: { type: "string", default: "10,11,12,13" },
    "native-only": { type: "string", default: "" },
    threads: { type: "string", default: "1" },
    out: { type: "string" },
  },
});
const list = (s) => (s ? s.split(",").map((p) => Number(p.trim())) : []);
const threads = Number(values.threads);
const dir = mkdtempSync(path.join(os.tmpdir(), "ptau-bench-"));
const cpu = (t) => t.user + t.sys;

async function snarkjsCeremony(power) {
  const f = (name) => path.join(dir, `snarkjs${power}_${name}.ptau`);
  const run = await timed(async () => {
    const curve = await snarkjs.curves.getCurveFromName("bn128");
    await snarkjs.powersOfTau.newAccumulator(curve, power, f("0"));
    await snarkjs.powersOfTau.contribute(f("0"), f("1"), "bench", randomBytes(32).toString("hex"));
    await snarkjs.powersOfTau.preparePhase2(f("1"), f("final"));
  });
  return run.time;
}

async function native(power) {
  const r = nativePowersOfTau({ power, dir, threads, seed: null });
  const verified = await snarkjs.powersOfTau.verify(r.file);
  rmSync(r.file);
  return { time: r.time, by: r.by, verified_by_snarkjs: verified };
}

const rows = [];
try {
  for (const power of list(values.powers)) {
    const ours = await native(power);
    const theirs = await snarkjsCeremony(power);
    rows.push({ power, native: ours.time, snarkjs: theirs, snarkjs_over_native_cpu: cpu(theirs) / cpu(ours.time), verified_by_snarkjs: ours.verified_by_snarkjs });
    process.stderr.write(`2^${power}: native ${cpu(ours.time).toFixed(2)} s CPU, snarkjs ${cpu(theirs).toFixed(1)} s CPU\n`);
  }
  for (const power of list(values["native-only"])) {
    const ours = await native(power);
    rows.push({ power, native: ours.time, snarkjs: null, snarkjs_over_native_cpu: null, verified_by_snarkjs: ours.verified_by_snarkjs });
    process.stderr.write(`2^${power}: native ${cpu(ours.time).toFixed(2)} s CPU\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await globalThis.curve_bn128?.terminate();
}

const fmt = (t) => (t ? `${t.real.toFixed(2)} | ${cpu(t).toFixed(2)}` : "- | -");
const lines = [
  `| power | native real [s] | native CPU [s] | snarkjs real [s] | snarkjs CPU [s] | snarkjs / native CPU | native file verified by snarkjs |`,
  "|---|---|---|---|---|---|---|",
  ...rows.map((r) => `| 2^${r.power} | ${fmt(r.native)} | ${fmt(r.snarkjs)} | ${r.snarkjs_over_native_cpu?.toFixed(0) ?? "-"} | ${r.verified_by_snarkjs} |`),
];
process.stdout.write(`${lines.join("\n")}\n`);
const report = { threads, machine_cpus: os.cpus().length, loadavg: os.loadavg(), rows };
if (values.out) writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
process.exit(0);
