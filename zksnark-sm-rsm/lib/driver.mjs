// One run of the experiment, as the paper's run.sh does it: COMPUTATION, TRUSTED SETUP, PROVER,
// VERIFIER, for the wasm prover (zokrates-js) and/or the native one (ark-groth16 binary).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as zok from "./zokrates.mjs";
import { Rng } from "./rng.mjs";
import { buildInstance } from "./statement.mjs";
import { requireNativeProver, runNativeProver } from "./native.mjs";
import { jsVersions, machine, textReport, writeAtomic } from "./report.mjs";
import { sumTimes, timed } from "./timing.mjs";

export const PROVERS = ["wasm", "native"];

const fmtSec = (t) => `${t.real.toFixed(6)} sec`;
const maxRssMib = () => process.resourceUsage().maxRSS / 1024;

/**
 * @param {{statement, hash, n, threads, out, seed: bigint|null, provers: string[], keepBuild?: boolean,
 *          log?: (msg: string) => void}} opts
 * @returns {Promise<{report: object, texts: Record<string, string>, passed: boolean}>}
 */
export async function runExperiment(opts) {
  const { statement, hash, n, threads, out, seed = null, provers, keepBuild = false } = opts;
  const log = opts.log ?? ((m) => process.stderr.write(`[zksnark-sm-rsm ${new Date().toISOString()}] ${m}\n`));
  const wantWasm = provers.includes("wasm");
  const wantNative = provers.includes("native");
  // Fail before minutes of work, not after.
  if (wantNative) requireNativeProver();
  const machineInfo = machine();
  const rng = new Rng(seed);

  mkdirSync(out, { recursive: true });
  const build = keepBuild ? path.join(out, "build") : mkdtempSync(path.join(os.tmpdir(), "zksnark-sm-rsm-"));
  mkdirSync(build, { recursive: true });
  try {
    // Loading the wasm module is one-time process start-up, like the CLI's own start; untimed.
    await zok.zokrates();
    log(`statement=${statement} hash=${hash} n=${n} provers=${provers.join(",")} threads=${threads} build=${build}`);

    // ---- COMPUTATION
    const zokFile = path.join(build, `${statement}.zok`);
    const inputsFile = path.join(build, "inputs.json");
    const computation = await timed(async () => {
      const inst = await buildInstance({ statement, hash, n, rng, log });
      writeFileSync(zokFile, inst.program);
      writeFileSync(inputsFile, JSON.stringify(inst.args));
      return inst;
    });
    const inst = computation.value;
    const computationLines = [
      `n=${n}`,
      `treedepth=${inst.depth}`,
      `hashfunc=${hash}`,
      `statement=${statement}`,
      `Written ${zokFile}`,
      ...Object.entries(inst.steps).map(([k, s]) => `Time ${k}: ${s} sec`),
      `proven index: ${inst.index}`,
      `root hash: ${inst.root}`,
      `Written ${inputsFile}`,
    ];

    // ---- TRUSTED SETUP, part 1: compile (shared by both provers).
    log(`compiling ${zokFile}`);
    const r1csFile = path.join(build, "circuit.r1cs");
    const compiled = await timed(async () => {
      const a = await zok.compile(inst.program, { snarkjs: wantNative });
      if (wantNative) writeFileSync(r1csFile, a.snarkjs.program);
      return a;
    });
    const artifacts = compiled.value;
    const constraints = artifacts.constraintCount;
    log(`Number of constraints: ${constraints}`);

    // ---- PROVER, part 1: the witness (shared by both provers).
    log("computing witness");
    const wtnsFile = path.join(build, "witness.wtns");
    const witnessed = await timed(async () => {
      const w = await zok.computeWitness(artifacts, inst.args, { snarkjs: wantNative, log });
      if (wantNative) writeFileSync(wtnsFile, w.snarkjs.witness);
      return w;
    });
    const witness = witnessed.value;

    const report = {
      experiment: "zksnark-sm-rsm",
      statement,
      hash,
      n,
      depth: inst.depth,
      curve: "bn254",
      threads,
      seed: seed === null ? null : Number(seed),
      constraints,
      proven_index: inst.index,
      root: inst.root,
      provers: {},
      machine: machineInfo,
      versions: { ...jsVersions(), zokrates: null, "zksnark-prover": null, "ark-groth16": null },
    };
    const texts = {};
    const compileLines = [`Compiling ${zokFile}`, "", `Number of constraints: ${constraints}`, `Time compile: ${fmtSec(compiled.time)}`];
    const witnessLines = ["Computing witness...", `Time witness: ${fmtSec(witnessed.time)}`];

    if (wantWasm) {
      log("wasm: setup");
      const entropy = () => (seed === null ? undefined : rng.entropy());
      const setup = await timed(async () => zok.setup(artifacts.program, entropy()));
      log("wasm: proving");
      const proving = await timed(async () => zok.prove(artifacts.program, witness.witness, setup.value.pk, entropy()));
      writeFileSync(path.join(build, "proof.json"), JSON.stringify(proving.value));
      writeFileSync(path.join(build, "verification.key"), JSON.stringify(setup.value.vk));
      log("wasm: verifying");
      const verifying = await timed(async () => zok.verify(setup.value.vk, proving.value));
      const status = verifying.value ? "PASSED" : "FAILED";
      log(`wasm: ${status}`);
      const sections = {
        COMPUTATION: computation.time,
        "TRUSTED SETUP": sumTimes(compiled.time, setup.time),
        PROVER: sumTimes(witnessed.time, proving.time),
        VERIFIER: verifying.time,
      };
      report.provers.wasm = {
        prover: "zokrates-js (ark, g16, bn128; single-threaded WebAssembly)",
        sections,
        setup_components: { compile: compiled.time, setup: setup.time },
        prover_components: { witness: witnessed.time, proof: proving.time },
        status,
        peak_rss_mib: maxRssMib(),
        threads: 1,
      };
      texts.wasm = textReport([
        ["COMPUTATION", { lines: computationLines, time: sections.COMPUTATION }],
        [
          "TRUSTED SETUP",
          {
            lines: [...compileLines, "Performing setup (zokrates-js, ark g16 bn128)...", `Time setup: ${fmtSec(setup.time)}`, "Setup completed"],
            time: sections["TRUSTED SETUP"],
          },
        ],
        [
          "PROVER",
          {
            lines: [...witnessLines, "Generating proof (zokrates-js wasm, 1 thread)...", `Time proof: ${fmtSec(proving.time)}`, "Proof generated"],
            time: sections.PROVER,
          },
        ],
        ["VERIFIER", { lines: ["Performing verification...", status], time: sections.VERIFIER }],
      ]);
    }

    if (wantNative) {
      log(`native: zksnark-prover run, ${threads} thread(s)`);
      const jsRss = maxRssMib();
      const nat = runNativeProver({ r1cs: r1csFile, wtns: wtnsFile, threads, seed, jsonPath: path.join(build, "native.json") });
      if (nat.constraints !== undefined && nat.constraints !== constraints) {
        // zokrates-js counts the constraints it compiled; the exported file must hold the same.
        throw new Error(`native prover read ${nat.constraints} constraints, zokrates-js compiled ${constraints}`);
      }
      log(`native: ${nat.status}`);
      const sections = {
        COMPUTATION: computation.time,
        "TRUSTED SETUP": sumTimes(compiled.time, nat.phases.setup),
        PROVER: sumTimes(witnessed.time, nat.phases.prove),
        VERIFIER: nat.phases.verify,
      };
      report.provers.native = {
        prover: `zksnark-prover (ark-groth16, ${threads} thread(s))`,
        sections,
        setup_components: { compile: compiled.time, setup: nat.phases.setup },
        prover_components: { witness: witnessed.time, proof: nat.phases.prove },
        status: nat.status,
        peak_rss_mib: typeof nat.peak_rss_mib === "number" ? nat.peak_rss_mib : null,
        js_peak_rss_mib: jsRss,
        threads,
        public_inputs: nat.public_inputs ?? null,
      };
      for (const [k, v] of Object.entries(nat.versions ?? {})) report.versions[k] = v;
      texts.native = textReport([
        ["COMPUTATION", { lines: computationLines, time: sections.COMPUTATION }],
        [
          "TRUSTED SETUP",
          {
            lines: [...compileLines, `Performing setup (zksnark-prover, ark-groth16, ${threads} thread(s))...`, `Time setup: ${fmtSec(nat.phases.setup)}`, "Setup completed"],
            time: sections["TRUSTED SETUP"],
          },
        ],
        [
          "PROVER",
          {
            lines: [...witnessLines, `Generating proof (zksnark-prover, ark-groth16, ${threads} thread(s))...`, `Time proof: ${fmtSec(nat.phases.prove)}`, "Proof generated"],
            time: sections.PROVER,
          },
        ],
        ["VERIFIER", { lines: ["Performing verification...", nat.status], time: sections.VERIFIER }],
      ]);
    }

    report.versions.zokrates = (await import("zokrates-js")).metadata?.version ?? null;
    for (const [p, text] of Object.entries(texts)) writeAtomic(path.join(out, `report-${p}.txt`), text);
    writeAtomic(path.join(out, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
    const passed = Object.values(report.provers).every((p) => p.status === "PASSED");
    return { report, texts, passed };
  } finally {
    if (!keepBuild) rmSync(build, { recursive: true, force: true });
  }
}
