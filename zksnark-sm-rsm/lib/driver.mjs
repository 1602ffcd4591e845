// One run of the experiment, as the paper's run.sh does it: COMPUTATION, TRUSTED SETUP, PROVER,
// VERIFIER, for each circuit of the same statement on the same instance:
//   * zokrates: the paper's ZoKrates program, proven by the wasm prover (zokrates-js) and/or the
//     native one (ark-groth16 binary) on its circom-format export;
//   * optimized: the constraint-minimal arkworks circuit (zksnark-optimized), proven by the
//     same native binary with the same thread count, right after the ZoKrates circuit.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as zok from "./zokrates.mjs";
import { Rng } from "./rng.mjs";
import { buildInstance } from "./statement.mjs";
import { requireNativeProver, runNativeProver } from "./native.mjs";
import { buildOptimized, optimizedInputs, requireOptimizedBuilder } from "./optimized.mjs";
import { jsVersions, machine, textReport, writeAtomic } from "./report.mjs";
import { sumTimes, timed } from "./timing.mjs";

export const PROVERS = ["wasm", "native"];
export const CIRCUITS = ["zokrates", "optimized"];

/** What each circuit is, which provers can prove it, and for which tree hashes it exists. */
export const CIRCUIT_INFO = {
  zokrates: {
    description:
      "the paper's ZoKrates program: variable-base 256-step scalar multiplications, non-strict " +
      "scalars, both branches hashed per Poseidon level",
    provers: ["wasm", "native"],
    hashes: ["poseidon", "sha256"],
  },
  optimized: {
    description:
      "constraint-minimal arkworks circuit: fixed-base 3-bit windows for G and H, strict 254-bit " +
      "scalars, one hash per tree level",
    provers: ["native"],
    hashes: ["poseidon", "sha256"],
  },
};

/**
 * The circuits to run. Without an explicit list: every circuit that exists for the hash and
 * that one of the requested provers can prove. An explicit list that cannot run is an error
 * (a message for the command line).
 */
export function selectCircuits({ circuits, provers, hash }) {
  const runnable = (c) => CIRCUIT_INFO[c].hashes.includes(hash) && CIRCUIT_INFO[c].provers.some((p) => provers.includes(p));
  if (circuits === undefined || circuits === null) return CIRCUITS.filter(runnable);
  for (const c of circuits) {
    const info = CIRCUIT_INFO[c];
    if (!info) throw new Error(`unknown circuit '${c}' (allowed: ${CIRCUITS.join(", ")})`);
    if (!info.hashes.includes(hash)) throw new Error(`the ${c} circuit has no ${hash} variant (it exists for: ${info.hashes.join(", ")})`);
    if (!info.provers.some((p) => provers.includes(p))) {
      throw new Error(`the ${c} circuit is proven by: ${info.provers.join(", ")}; add one of them to --provers`);
    }
  }
  return circuits;
}

const fmtSec = (t) => `${t.real.toFixed(6)} sec`;

/**
 * The Groth16 prover's counted work on a circuit (ark-groth16 0.4): 7 FFTs of the QAP domain
 * (the smallest power of two holding the constraints plus one per public input and the
 * constant), G1 MSMs over A and B (every wire), H (domain - 1 powers) and L (private wires), and
 * one G2 MSM over B (every wire). Proof time cannot fall below these operations' cost.
 */
export function grothOperations({ constraints, wires, publicInputs }) {
  if (![constraints, wires, publicInputs].every(Number.isInteger)) return null;
  let domain = 1;
  while (domain < constraints + publicInputs + 1) domain *= 2;
  const privateWires = wires - publicInputs - 1;
  return {
    fft_size: domain,
    ffts: 7,
    g1_msm_terms: 2 * wires + (domain - 1) + privateWires,
    g2_msm_terms: wires,
  };
}
const maxRssMib = () => process.resourceUsage().maxRSS / 1024;

/** One prover's four sections in the paper's text layout. */
function proverText({ computationLines, computation, setupLines, setupTime, proverLines, proverTime, verifyTime, status }) {
  return textReport([
    ["COMPUTATION", { lines: computationLines, time: computation }],
    ["TRUSTED SETUP", { lines: setupLines, time: setupTime }],
    ["PROVER", { lines: proverLines, time: proverTime }],
    ["VERIFIER", { lines: ["Performing verification...", status], time: verifyTime }],
  ]);
}

/** The native prover on one circuit's files; the entry of report.json and its text. */
function nativeEntry({ circuit, r1cs, wtns, threads, seed, build, compile, witness, constraints, log, text }) {
  log(`circuit ${circuit}: TRUSTED SETUP + PROVER + VERIFIER: zksnark-prover run, ${threads} thread(s)`);
  const jsRss = maxRssMib();
  const nat = runNativeProver({ r1cs, wtns, threads, seed, jsonPath: path.join(build, `${circuit}-native.json`) });
  if (nat.constraints !== undefined && nat.constraints !== constraints) {
    // The circuit's builder counts the constraints it wrote; the file must hold the same.
    throw new Error(`native prover read ${nat.constraints} constraints of the ${circuit} circuit, its builder wrote ${constraints}`);
  }
  log(`circuit ${circuit}: native: ${nat.status}`);
  const sections = {
    COMPUTATION: text.computation,
    "TRUSTED SETUP": sumTimes(compile, nat.phases.setup),
    PROVER: sumTimes(witness, nat.phases.prove),
    VERIFIER: nat.phases.verify,
  };
  const entry = {
    prover: `zksnark-prover (ark-groth16, ${threads} thread(s))`,
    sections,
    setup_components: { compile, setup: nat.phases.setup },
    prover_components: { witness, proof: nat.phases.prove },
    status: nat.status,
    peak_rss_mib: typeof nat.peak_rss_mib === "number" ? nat.peak_rss_mib : null,
    js_peak_rss_mib: jsRss,
    threads,
    public_inputs: nat.public_inputs ?? null,
    wires: nat.wires ?? null,
    operations: grothOperations({ constraints, wires: nat.wires, publicInputs: nat.public_inputs }),
  };
  const body = proverText({
    computationLines: text.computationLines,
    computation: text.computation,
    setupLines: [
      ...text.compileLines,
      `Performing setup (zksnark-prover, ark-groth16, ${threads} thread(s))...`,
      `Time setup: ${fmtSec(nat.phases.setup)}`,
      "Setup completed",
    ],
    setupTime: sections["TRUSTED SETUP"],
    proverLines: [
      ...text.witnessLines,
      `Generating proof (zksnark-prover, ark-groth16, ${threads} thread(s))...`,
      `Time proof: ${fmtSec(nat.phases.prove)}`,
      "Proof generated",
    ],
    proverTime: sections.PROVER,
    verifyTime: sections.VERIFIER,
    status: nat.status,
  });
  return { entry, text: body, versions: nat.versions ?? {} };
}

/** The ZoKrates circuit: compile, witness, then each requested prover. */
async function runZokrates({ inst, build, provers, threads, seed, rng, log, shared }) {
  const wantWasm = provers.includes("wasm");
  const wantNative = provers.includes("native");
  const zokFile = path.join(build, `${inst.statement}.zok`);
  log(`circuit zokrates: TRUSTED SETUP: compiling ${zokFile}`);
  const r1csFile = path.join(build, "circuit.r1cs");
  const compiled = await timed(async () => {
    let a;
    try {
      a = await zok.compile(inst.program, { snarkjs: wantNative });
    } catch (e) {
      // A trap ("unreachable") is what zokrates-js's 32-bit WebAssembly does when it runs out of
      // its 4 GiB; the SHA-256 programs of deep trees need more.
      throw new Error(`zokrates-js could not compile the ${inst.statement} program (depth ${inst.depth}): ${e.message ?? e}; ` +
        "zokrates-js runs in 32-bit WebAssembly, limited to 4 GiB, which large SHA-256 trees exceed");
    }
    if (wantNative) writeFileSync(r1csFile, a.snarkjs.program);
    return a;
  });
  const artifacts = compiled.value;
  const constraints = artifacts.constraintCount;
  log(`circuit zokrates: Number of constraints: ${constraints}`);

  log("circuit zokrates: PROVER: computing witness");
  const wtnsFile = path.join(build, "witness.wtns");
  const witnessed = await timed(async () => {
    const w = await zok.computeWitness(artifacts, inst.args, { snarkjs: wantNative, log });
    if (wantNative) writeFileSync(wtnsFile, w.snarkjs.witness);
    return w;
  });
  const witness = witnessed.value;

  const entry = { name: "zokrates", description: CIRCUIT_INFO.zokrates.description, constraints, provers: {} };
  const texts = {};
  const versions = {};
  const text = {
    ...shared,
    compileLines: [`Compiling ${zokFile}`, "", `Number of constraints: ${constraints}`, `Time compile: ${fmtSec(compiled.time)}`],
    witnessLines: ["Computing witness...", `Time witness: ${fmtSec(witnessed.time)}`],
  };

  if (wantWasm) {
    log("circuit zokrates: TRUSTED SETUP: wasm setup");
    const entropy = () => (seed === null ? undefined : rng.entropy());
    const setup = await timed(async () => zok.setup(artifacts.program, entropy()));
    log("circuit zokrates: PROVER: wasm proving");
    const proving = await timed(async () => zok.prove(artifacts.program, witness.witness, setup.value.pk, entropy()));
    writeFileSync(path.join(build, "proof.json"), JSON.stringify(proving.value));
    writeFileSync(path.join(build, "verification.key"), JSON.stringify(setup.value.vk));
    log("circuit zokrates: VERIFIER: wasm verifying");
    const verifying = await timed(async () => zok.verify(setup.value.vk, proving.value));
    const status = verifying.value ? "PASSED" : "FAILED";
    log(`circuit zokrates: wasm: ${status}`);
    const sections = {
      COMPUTATION: shared.computation,
      "TRUSTED SETUP": sumTimes(compiled.time, setup.time),
      PROVER: sumTimes(witnessed.time, proving.time),
      VERIFIER: verifying.time,
    };
    entry.provers.wasm = {
      prover: "zokrates-js (ark, g16, bn128; single-threaded WebAssembly)",
      sections,
      setup_components: { compile: compiled.time, setup: setup.time },
      prover_components: { witness: witnessed.time, proof: proving.time },
      status,
      peak_rss_mib: maxRssMib(),
      threads: 1,
    };
    texts.wasm = proverText({
      computationLines: shared.computationLines,
      computation: shared.computation,
      setupLines: [...text.compileLines, "Performing setup (zokrates-js, ark g16 bn128)...", `Time setup: ${fmtSec(setup.time)}`, "Setup completed"],
      setupTime: sections["TRUSTED SETUP"],
      proverLines: [...text.witnessLines, "Generating proof (zokrates-js wasm, 1 thread)...", `Time proof: ${fmtSec(proving.time)}`, "Proof generated"],
      proverTime: sections.PROVER,
      verifyTime: sections.VERIFIER,
      status,
    });
  }

  if (wantNative) {
    const nat = nativeEntry({
      circuit: "zokrates",
      r1cs: r1csFile,
      wtns: wtnsFile,
      threads,
      seed,
      build,
      compile: compiled.time,
      witness: witnessed.time,
      constraints,
      log,
      text,
    });
    entry.provers.native = nat.entry;
    texts.native = nat.text;
    Object.assign(versions, nat.versions);
  }
  versions.zokrates = (await import("zokrates-js")).metadata?.version ?? null;
  return { entry, texts, versions };
}

/** The optimized circuit: zksnark-optimized builds circuit and witness, the native prover proves. */
function runOptimized({ inst, build, threads, seed, log, shared }) {
  const r1csFile = path.join(build, "optimized.r1cs");
  const wtnsFile = path.join(build, "optimized.wtns");
  log("circuit optimized: TRUSTED SETUP + PROVER: zksnark-optimized builds the circuit and the witness");
  const built = buildOptimized({
    inputs: optimizedInputs(inst),
    inputsFile: path.join(build, "optimized-inputs.json"),
    r1cs: r1csFile,
    wtns: wtnsFile,
    jsonPath: path.join(build, "optimized.json"),
  });
  log(`circuit optimized: Number of constraints: ${built.constraints}`);
  const text = {
    ...shared,
    compileLines: [
      `Building the optimized ${inst.statement.toUpperCase()} circuit (zksnark-optimized)`,
      "",
      `Number of constraints: ${built.constraints}`,
      `Time compile: ${fmtSec(built.phases.compile)}`,
    ],
    witnessLines: ["Computing witness (zksnark-optimized)...", `Time witness: ${fmtSec(built.phases.witness)}`],
  };
  const nat = nativeEntry({
    circuit: "optimized",
    r1cs: r1csFile,
    wtns: wtnsFile,
    threads,
    seed,
    build,
    compile: built.phases.compile,
    witness: built.phases.witness,
    constraints: built.constraints,
    log,
    text,
  });
  const entry = {
    name: "optimized",
    description: CIRCUIT_INFO.optimized.description,
    constraints: built.constraints,
    wires: built.wires,
    components: built.components,
    provers: { native: nat.entry },
  };
  return { entry, texts: { native: nat.text }, versions: { ...nat.versions, ...built.versions } };
}

/** Ratios of the optimized circuit to the ZoKrates one on the native prover (same run, threads). */
function comparison(circuits, threads) {
  const z = circuits.zokrates?.provers?.native;
  const o = circuits.optimized?.provers?.native;
  if (!z || !o) return null;
  const ratio = (a, b) => (b > 0 ? a / b : null);
  return {
    prover: "native",
    threads,
    constraints_ratio: ratio(circuits.optimized.constraints, circuits.zokrates.constraints),
    proof_user_ratio: ratio(o.prover_components.proof.user, z.prover_components.proof.user),
    proof_real_ratio: ratio(o.prover_components.proof.real, z.prover_components.proof.real),
    prover_user_ratio: ratio(o.sections.PROVER.user, z.sections.PROVER.user),
    // The counted-operation floor of proof_user_ratio.
    g1_msm_terms_ratio: o.operations && z.operations ? ratio(o.operations.g1_msm_terms, z.operations.g1_msm_terms) : null,
    g2_msm_terms_ratio: o.operations && z.operations ? ratio(o.operations.g2_msm_terms, z.operations.g2_msm_terms) : null,
    fft_size_ratio: o.operations && z.operations ? ratio(o.operations.fft_size, z.operations.fft_size) : null,
  };
}

/**
 * @param {{statement, hash, n, threads, out, seed: bigint|null, provers: string[], circuits?: string[],
 *          keepBuild?: boolean, log?: (msg: string) => void}} opts
 * @returns {Promise<{report: object, texts: Record<string, string>, passed: boolean}>}
 */
export async function runExperiment(opts) {
  const { statement, hash, n, threads, out, seed = null, provers, keepBuild = false } = opts;
  const circuits = selectCircuits({ circuits: opts.circuits, provers, hash });
  const log = opts.log ?? ((m) => process.stderr.write(`[zksnark-sm-rsm ${new Date().toISOString()}] ${m}\n`));
  const wantZokrates = circuits.includes("zokrates");
  const wantOptimized = circuits.includes("optimized");
  // Fail before minutes of work, not after.
  if (provers.includes("native") || wantOptimized) requireNativeProver();
  if (wantOptimized) requireOptimizedBuilder();
  if (circuits.length === 0) throw new Error(`no circuit can run with --provers ${provers.join(",")} and --hash ${hash}`);
  const machineInfo = machine();
  const rng = new Rng(seed);

  mkdirSync(out, { recursive: true });
  const build = keepBuild ? path.join(out, "build") : mkdtempSync(path.join(os.tmpdir(), "zksnark-sm-rsm-"));
  mkdirSync(build, { recursive: true });
  try {
    // Loading the wasm module is one-time process start-up, like the CLI's own start; untimed.
    if (wantZokrates) await zok.zokrates();
    log(`statement=${statement} hash=${hash} n=${n} circuits=${circuits.join(",")} provers=${provers.join(",")} threads=${threads} build=${build}`);

    // ---- COMPUTATION (shared by every circuit and prover)
    log("COMPUTATION: set, tree, path");
    const zokFile = path.join(build, `${statement}.zok`);
    const inputsFile = path.join(build, "inputs.json");
    const computation = await timed(async () => {
      const inst = await buildInstance({ statement, hash, n, rng, log });
      writeFileSync(zokFile, inst.program);
      writeFileSync(inputsFile, JSON.stringify(inst.args));
      return inst;
    });
    const inst = computation.value;
    const shared = {
      computation: computation.time,
      computationLines: [
        `n=${n}`,
        `treedepth=${inst.depth}`,
        `hashfunc=${hash}`,
        `statement=${statement}`,
        `Written ${zokFile}`,
        ...Object.entries(inst.steps).map(([k, s]) => `Time ${k}: ${s} sec`),
        `proven index: ${inst.index}`,
        `root hash: ${inst.root}`,
        `Written ${inputsFile}`,
      ],
    };

    const report = {
      experiment: "zksnark-sm-rsm",
      statement,
      hash,
      n,
      depth: inst.depth,
      curve: "bn254",
      threads,
      seed: seed === null ? null : Number(seed),
      // The ZoKrates circuit's figures, where they always were; every circuit's are in `circuits`.
      constraints: null,
      proven_index: inst.index,
      root: inst.root,
      provers: {},
      circuits: {},
      comparison: null,
      machine: machineInfo,
      versions: { ...jsVersions(), zokrates: null, "zksnark-prover": null, "ark-groth16": null },
    };
    const files = {};
    const proverOpts = { inst, build, threads, seed, rng, log, shared };
    if (wantZokrates) {
      const z = await runZokrates({ ...proverOpts, provers });
      report.circuits.zokrates = z.entry;
      report.constraints = z.entry.constraints;
      report.provers = z.entry.provers;
      Object.assign(report.versions, z.versions);
      for (const [p, text] of Object.entries(z.texts)) files[`report-${p}.txt`] = text;
    }
    if (wantOptimized) {
      const o = runOptimized(proverOpts);
      report.circuits.optimized = o.entry;
      Object.assign(report.versions, o.versions);
      for (const [p, text] of Object.entries(o.texts)) files[`report-optimized-${p}.txt`] = text;
    }
    report.comparison = comparison(report.circuits, threads);

    for (const [name, text] of Object.entries(files)) writeAtomic(path.join(out, name), text);
    writeAtomic(path.join(out, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
    const passed = Object.values(report.circuits).every((c) => Object.values(c.provers).every((p) => p.status === "PASSED"));
    return { report, texts: files, passed };
  } finally {
    if (!keepBuild) rmSync(build, { recursive: true, force: true });
  }
}
