// One run of the experiment, as the paper's run.sh does it: COMPUTATION, TRUSTED SETUP, PROVER,
// VERIFIER, for each circuit of the same statement on the same instance:
//   * zokrates: the paper's ZoKrates program, proven by the wasm prover (zokrates-js), the
//     native one (ark-groth16 binary) and snarkjs on its circom-format export;
//   * optimized: the constraint-minimal arkworks circuit (zksnark-optimized), proven by the
//     same native binary and by snarkjs with the same thread count, after the ZoKrates circuit.
// Every verifier checks every proof against the public inputs the suite expects (its own Baby
// Jubjub parameters and H, the statement's C or v, the root: lib/verifier.mjs), never against
// the prover's. Where the native prover and snarkjs both ran on a circuit, each verifier checks
// the other's proof: a disagreement fails the run.
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as zok from "./zokrates.mjs";
import { Rng } from "./rng.mjs";
import { buildInstance } from "./statement.mjs";
import { nativeVerifies, requireNativeProver, runNativeProver } from "./native.mjs";
import { buildOptimized, optimizedInputs, requireOptimizedBuilder } from "./optimized.mjs";
import { PKG_DIR, jsVersions, textReport, writeAtomic } from "./report.mjs";
import { powersOfTau, ptauPower, r1csInfo, runSnarkjs, snarkjsVerifies, snarkjsVersion } from "./snarkjs.mjs";
import { sumTimes, timed } from "./timing.mjs";
import { VARIANTS } from "./circuits.mjs";
import { expectedPublicInputs, sameInputs } from "./verifier.mjs";

export const PROVERS = ["wasm", "native", "snarkjs"];
export const CIRCUITS = ["zokrates", "optimized"];
export { VARIANTS };

/** The version of the body's schema (docs/report.schema.json). */
export const BODY_VERSION = 4;

/**
 * The fixes in force, one line each, `"<code>: <what this run does>"`; docs/fixes.md defines
 * every code (the optimized crate's Variant::fixes prints the same lines).
 */
export function fixes(variant) {
  if (variant === "as-published") return [];
  return [
    "Z1: set values and v are in [0, L), and the circuit enforces v < L (a commitment fixes v only mod L)",
    "Z2: padding leaves are a hashed, domain-separated constant that no value or commitment opens",
  ];
}

/** What each circuit is, which provers can prove it, and for which tree hashes it exists. */
export const CIRCUIT_INFO = {
  zokrates: {
    description:
      "the paper's ZoKrates program: variable-base 256-step scalar multiplications, both branches " +
      "hashed per Poseidon level",
    provers: ["wasm", "native", "snarkjs"],
    hashes: ["poseidon", "sha256"],
  },
  optimized: {
    description:
      "constraint-minimal arkworks circuit: fixed-base 3-bit windows for G and H, strict scalars, " +
      "one hash per tree level",
    provers: ["native", "snarkjs"],
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

/** What the VERIFIER section says about the public inputs it checked the proof against. */
const publicInputsLine = (asExpected) =>
  "Public inputs: the suite's (its Baby Jubjub parameters and H, the statement, the root)" +
  (asExpected ? "; the prover's were the same" : "; the prover's differ");

/** One prover's four sections in the paper's text layout. */
function proverText({ computationLines, computation, setupLines, setupTime, proverLines, proverTime, verifyTime, status, asExpected }) {
  return textReport([
    ["COMPUTATION", { lines: computationLines, time: computation }],
    ["TRUSTED SETUP", { lines: setupLines, time: setupTime }],
    ["PROVER", { lines: proverLines, time: proverTime }],
    ["VERIFIER", { lines: ["Performing verification...", publicInputsLine(asExpected), status], time: verifyTime }],
  ]);
}

/**
 * The native prover on one circuit's files, its verifier given the expected public inputs
 * (`expected.file`); the entry of report.json and its text.
 */
function nativeEntry({ circuit, r1cs, wtns, threads, seed, build, compile, witness, constraints, log, text, expected }) {
  log(`circuit ${circuit}: TRUSTED SETUP + PROVER + VERIFIER: zksnark-prover run, ${threads} thread(s)`);
  const jsRss = maxRssMib();
  const files = {
    proof: path.join(build, `${circuit}-native-proof.json`),
    vk: path.join(build, `${circuit}-native-vk.json`),
    public: path.join(build, `${circuit}-native-public.json`),
  };
  const nat = runNativeProver({ r1cs, wtns, threads, seed, out: path.join(build, `${circuit}-native.json`), files, expectPublic: expected.file });
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
    public_inputs_as_expected: nat.witness_public_inputs_as_expected,
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
    asExpected: entry.public_inputs_as_expected,
  });
  return { entry, text: body, versions: nat.versions ?? {}, files };
}

/** Who made the powers of tau, and when, in words for the reports. */
export function ptauSource(ptau) {
  const when = ptau.generated_in_this_run ? "in this run" : "in an earlier run (cached)";
  return `generated by ${ptau.by} ${when}; one participant: a benchmark's setup, not a trusted one`;
}

/**
 * One snarkjs entry of report.json and its text (setup, prove, and verify against the expected
 * public inputs, on the circuit's files).
 */
async function snarkjsEntry({ circuit, r1cs, wtns, threads, build, compile, witness, log, text, ptau, entropy, expected }) {
  log(`circuit ${circuit}: TRUSTED SETUP + PROVER + VERIFIER: snarkjs, ${threads === 1 ? "1 thread" : "all CPUs"}`);
  const s = await runSnarkjs({ name: circuit, r1cs, wtns, ptau: ptau.file, build, threads, entropy: entropy(), expected: expected.inputs });
  const asExpected = sameInputs(s.publicSignals, expected.inputs);
  const status = s.verified ? "PASSED" : "FAILED";
  log(`circuit ${circuit}: snarkjs: ${status}`);
  const sections = {
    COMPUTATION: text.computation,
    "TRUSTED SETUP": sumTimes(compile, s.setup),
    PROVER: sumTimes(witness, s.proof),
    VERIFIER: s.verify,
  };
  const entry = {
    prover: `snarkjs ${snarkjsVersion(PKG_DIR)} (groth16, ${threads === 1 ? "single-threaded prover" : "worker per CPU"})`,
    sections,
    setup_components: { compile, setup: s.setup, powers_of_tau: ptau.time },
    prover_components: { witness, proof: s.proof },
    status,
    public_inputs_as_expected: asExpected,
    peak_rss_mib: maxRssMib(),
    threads: s.threads,
  };
  const body = proverText({
    computationLines: text.computationLines,
    computation: text.computation,
    setupLines: [
      ...text.compileLines,
      `Powers of tau (2^${ptau.power}, ${ptauSource(ptau)}; not in this section's time): generation took ${fmtSec(ptau.time)}`,
      "Performing setup (snarkjs zkey new + one contribution)...",
      `Time setup: ${fmtSec(s.setup)}`,
      "Setup completed",
    ],
    setupTime: sections["TRUSTED SETUP"],
    proverLines: [
      ...text.witnessLines,
      `Generating proof (snarkjs groth16 prove, ${threads === 1 ? "1 thread" : "worker per CPU"})...`,
      `Time proof: ${fmtSec(s.proof)}`,
      "Proof generated",
    ],
    proverTime: sections.PROVER,
    verifyTime: sections.VERIFIER,
    status,
    asExpected,
  });
  return { entry, text: body, files: s.files, publicSignals: s.publicSignals };
}

/**
 * Each verifier on the other prover's proof, both against the expected public inputs: snarkjs on
 * the native proof and key (converted to its JSON form by zksnark-prover), the native verifier
 * on snarkjs's; and both provers had the same public inputs. Records the outcome in both
 * entries; returns whether everything agreed.
 */
async function crossVerify({ nat, snark, log, circuit, expected }) {
  const nativePublic = JSON.parse(readFileSync(nat.files.public, "utf8"));
  const samePublic = JSON.stringify(nativePublic) === JSON.stringify(snark.publicSignals);
  const bySnarkjs = await snarkjsVerifies({ vk: nat.files.vk, proof: nat.files.proof, publicSignals: expected.inputs });
  const byNative = nativeVerifies({ vk: snark.files.vk, proof: snark.files.proof, publicFile: expected.file });
  nat.entry.checked_by = { snarkjs: bySnarkjs };
  snark.entry.checked_by = { native: byNative };
  nat.entry.same_public_inputs = samePublic;
  snark.entry.same_public_inputs = samePublic;
  const ok = samePublic && bySnarkjs && byNative;
  log(`circuit ${circuit}: cross-verification: native proof by snarkjs ${bySnarkjs ? "PASSED" : "FAILED"}, ` +
      `snarkjs proof by the native verifier ${byNative ? "PASSED" : "FAILED"}${samePublic ? "" : ", public inputs differ"}`);
  return ok;
}

/** The ZoKrates circuit: compile, witness, then each requested prover. */
async function runZokrates({ inst, build, provers, threads, seed, rngs, log, shared, ptauFor, expected }) {
  const wantWasm = provers.includes("wasm");
  const wantNative = provers.includes("native");
  const wantSnarkjs = provers.includes("snarkjs");
  const wantFiles = wantNative || wantSnarkjs;
  const zokFile = path.join(build, `${inst.statement}.zok`);
  log(`circuit zokrates: TRUSTED SETUP: compiling ${zokFile}`);
  const r1csFile = path.join(build, "circuit.r1cs");
  const compiled = await timed(async () => {
    let a;
    try {
      a = await zok.compile(inst.program, { snarkjs: wantFiles });
    } catch (e) {
      // A trap ("unreachable") is what zokrates-js's 32-bit WebAssembly does when it runs out of
      // its 4 GiB; the SHA-256 programs of deep trees need more.
      throw new Error(`zokrates-js could not compile the ${inst.statement} program (depth ${inst.depth}): ${e.message ?? e}; ` +
        "zokrates-js runs in 32-bit WebAssembly, limited to 4 GiB, which large SHA-256 trees exceed");
    }
    if (wantFiles) writeFileSync(r1csFile, a.snarkjs.program);
    return a;
  });
  const artifacts = compiled.value;
  const constraints = artifacts.constraintCount;
  log(`circuit zokrates: Number of constraints: ${constraints}`);

  log("circuit zokrates: PROVER: computing witness");
  const wtnsFile = path.join(build, "witness.wtns");
  const witnessed = await timed(async () => {
    const w = await zok.computeWitness(artifacts, inst.args, { snarkjs: wantFiles, log });
    if (wantFiles) writeFileSync(wtnsFile, w.snarkjs.witness);
    return w;
  });
  const witness = witnessed.value;

  const entry = {
    name: "zokrates",
    description: CIRCUIT_INFO.zokrates.description,
    constraints,
    expected_public_inputs: expected.zokrates.inputs,
    provers: {},
  };
  const texts = {};
  const versions = {};
  const text = {
    ...shared,
    compileLines: [`Compiling ${zokFile}`, "", `Number of constraints: ${constraints}`, `Time compile: ${fmtSec(compiled.time)}`],
    witnessLines: ["Computing witness...", `Time witness: ${fmtSec(witnessed.time)}`],
  };

  if (wantWasm) {
    log("circuit zokrates: TRUSTED SETUP: wasm setup");
    const entropy = () => (seed === null ? undefined : rngs.zokrates.entropy());
    const setup = await timed(async () => zok.setup(artifacts.program, entropy()));
    log("circuit zokrates: PROVER: wasm proving");
    const proving = await timed(async () => zok.prove(artifacts.program, witness.witness, setup.value.pk, entropy()));
    writeFileSync(path.join(build, "proof.json"), JSON.stringify(proving.value));
    writeFileSync(path.join(build, "verification.key"), JSON.stringify(setup.value.vk));
    log("circuit zokrates: VERIFIER: wasm verifying");
    // The verifier's own public inputs, not the ones the proof carries.
    const verifying = await timed(async () => zok.verifyAgainst(setup.value.vk, proving.value, expected.zokrates.inputs));
    const status = verifying.value ? "PASSED" : "FAILED";
    const asExpected = sameInputs(proving.value.inputs, expected.zokrates.inputs);
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
      public_inputs_as_expected: asExpected,
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
      asExpected,
    });
  }

  const common = { circuit: "zokrates", expected: expected.zokrates, r1cs: r1csFile, wtns: wtnsFile, threads, build, compile: compiled.time, witness: witnessed.time, log, text };
  const more = await otherProvers({ ...common, wantNative, wantSnarkjs, seed, constraints, rngs, ptauFor });
  Object.assign(entry.provers, more.entries);
  Object.assign(texts, more.texts);
  Object.assign(versions, more.versions);
  versions.zokrates = (await import("zokrates-js")).metadata?.version ?? null;
  return { entry, texts, versions, agreed: more.agreed };
}

/** The native prover and snarkjs on one circuit's files, and their cross-verification. */
async function otherProvers({ wantNative, wantSnarkjs, seed, constraints, rngs, ptauFor, ...common }) {
  const entries = {};
  const texts = {};
  let versions = {};
  let nat = null;
  let snark = null;
  if (wantNative) {
    nat = nativeEntry({ ...common, seed, constraints });
    entries.native = nat.entry;
    texts.native = nat.text;
    versions = nat.versions;
  }
  if (wantSnarkjs) {
    const ptau = await ptauFor(common.r1cs);
    snark = await snarkjsEntry({ ...common, ptau, entropy: () => rngs.snarkjsEntropy() });
    entries.snarkjs = snark.entry;
    texts.snarkjs = snark.text;
  }
  const agreed = nat && snark ? await crossVerify({ nat, snark, log: common.log, circuit: common.circuit, expected: common.expected }) : true;
  return { entries, texts, versions, agreed };
}

/** The optimized circuit: zksnark-optimized builds circuit and witness; the native prover and snarkjs prove. */
async function runOptimized({ inst, build, provers, threads, seed, rngs, log, shared, ptauFor, expected }) {
  const r1csFile = path.join(build, "optimized.r1cs");
  const wtnsFile = path.join(build, "optimized.wtns");
  log("circuit optimized: TRUSTED SETUP + PROVER: zksnark-optimized builds the circuit and the witness");
  const built = buildOptimized({
    inputs: optimizedInputs(inst),
    inputsFile: path.join(build, "optimized-inputs.json"),
    r1cs: r1csFile,
    wtns: wtnsFile,
    out: path.join(build, "optimized.json"),
    variant: inst.variant,
  });
  log(`circuit optimized: Number of constraints: ${built.constraints}`);
  const text = {
    ...shared,
    compileLines: [
      `Building the optimized ${inst.statement.toUpperCase()} circuit, variant ${inst.variant} (zksnark-optimized)`,
      "",
      `Number of constraints: ${built.constraints}`,
      `Time compile: ${fmtSec(built.phases.compile)}`,
    ],
    witnessLines: ["Computing witness (zksnark-optimized)...", `Time witness: ${fmtSec(built.phases.witness)}`],
  };
  const common = {
    circuit: "optimized",
    expected: expected.optimized,
    r1cs: r1csFile,
    wtns: wtnsFile,
    threads,
    build,
    compile: built.phases.compile,
    witness: built.phases.witness,
    log,
    text,
  };
  const more = await otherProvers({
    ...common,
    wantNative: provers.includes("native"),
    wantSnarkjs: provers.includes("snarkjs"),
    seed,
    constraints: built.constraints,
    rngs,
    ptauFor,
  });
  const entry = {
    name: "optimized",
    description: CIRCUIT_INFO.optimized.description,
    constraints: built.constraints,
    wires: built.wires,
    components: built.components,
    expected_public_inputs: expected.optimized.inputs,
    provers: more.entries,
  };
  return { entry, texts: more.texts, versions: { ...more.versions, ...built.versions }, agreed: more.agreed };
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
 * snarkjs against the native ark-groth16 prover on each circuit, same run, same files, same
 * thread count (snarkjs over native: above 1, snarkjs is slower).
 */
function references(circuits) {
  const out = {};
  for (const [name, c] of Object.entries(circuits)) {
    const n = c.provers?.native;
    const s = c.provers?.snarkjs;
    if (!n || !s) continue;
    const ratio = (a, b) => (b > 0 ? a / b : null);
    out[name] = {
      reference: "snarkjs",
      ours: "native",
      proof_user_ratio: ratio(s.prover_components.proof.user, n.prover_components.proof.user),
      proof_real_ratio: ratio(s.prover_components.proof.real, n.prover_components.proof.real),
      setup_user_ratio: ratio(s.setup_components.setup.user, n.setup_components.setup.user),
      verify_user_ratio: ratio(s.sections.VERIFIER.user, n.sections.VERIFIER.user),
    };
  }
  return Object.keys(out).length ? out : null;
}

/**
 * COMPUTATION, shared by every circuit and prover: the set, the tree, the path, the program and
 * its inputs, written to `build`; returns the instance and the section's time and lines.
 */
async function computation({ statement, hash, variant, n, rngs, log, inputs, build }) {
  log("COMPUTATION: set, tree, path");
  const zokFile = path.join(build, `${statement}.zok`);
  const inputsFile = path.join(build, "inputs.json");
  const computed = await timed(async () => {
    const inst = await buildInstance({ statement, hash, variant, n, rng: rngs.inputs, log, inputs });
    writeFileSync(zokFile, inst.program);
    writeFileSync(inputsFile, JSON.stringify(inst.args));
    return inst;
  });
  const inst = computed.value;
  const shared = {
    computation: computed.time,
    computationLines: [
      `n=${n}`,
      `treedepth=${inst.depth}`,
      `hashfunc=${hash}`,
      `statement=${statement}`,
      `variant=${variant}`,
      `Written ${zokFile}`,
      ...Object.entries(inst.steps).map(([k, s]) => `Time ${k}: ${s} sec`),
      `proven index: ${inst.index}`,
      `root hash: ${inst.root}`,
      `Written ${inputsFile}`,
    ],
  };
  return { inst, shared };
}

/**
 * The public inputs every verifier of each circuit is given (lib/verifier.mjs), and the file the
 * native verifier reads them from.
 */
function expectations(inst, circuits, build) {
  const out = {};
  for (const circuit of circuits) {
    const inputs = expectedPublicInputs(inst, circuit);
    const file = path.join(build, `${circuit}-expected-public.json`);
    writeFileSync(file, JSON.stringify(inputs));
    out[circuit] = { inputs, file };
  }
  return out;
}

/**
 * snarkjs's powers of tau, generated once for the largest circuit of the run (the first asks):
 * `forCircuit(r1cs)` returns a file large enough for that circuit; `report()` is the body's
 * `powers_of_tau` (null if no circuit asked).
 */
function powersOfTauOnce({ generator, build, threads, seed, rngs, log }) {
  let ptau = null;
  const forCircuit = async (r1cs) => {
    const power = ptauPower(await r1csInfo(r1cs));
    if (ptau === null || ptau.power < power) {
      log(`snarkjs: powers of tau of 2^${power} by ${generator === "native" ? "zksnark-prover ptau" : "snarkjs (from its cache, or generated: minutes to an hour of CPU)"}`);
      ptau = await powersOfTau({ power, generator, build, threads, seed, entropy: rngs.snarkjsEntropy() });
      log(`snarkjs: powers of tau of 2^${ptau.power} ${ptau.generated_in_this_run ? "generated" : "taken from the cache"} ` +
          `by ${ptau.by} (generation took ${ptau.time.user.toFixed(1)} s user)`);
    }
    return ptau;
  };
  const report = () =>
    ptau === null
      ? null
      : {
          power: ptau.power,
          time: ptau.time,
          generated_in_this_run: ptau.generated_in_this_run,
          generator: ptau.generator,
          by: ptau.by,
          threads: ptau.threads,
          participants: 1,
          source: ptauSource(ptau),
        };
  return { forCircuit, report };
}

/**
 * @param {{statement, hash, n, threads, out, seed: string|null, variant: string, provers: string[],
 *          circuits?: string[], ptau?: "native"|"snarkjs", keepBuild?: boolean, log?: (msg: string) => void,
 *          inputs: Inputs}} opts
 *   `out` is the JSON report's path; the text reports and (with keepBuild) build/ go beside it.
 * @returns {Promise<{body: object, texts: Record<string, string>, passed: boolean}>}
 */
export async function runExperiment(opts) {
  const { statement, hash, n, threads, out, seed = null, variant = "sound", provers, keepBuild = false, inputs } = opts;
  const ptauGenerator = opts.ptau ?? "native";
  const circuits = selectCircuits({ circuits: opts.circuits, provers, hash });
  const log = opts.log ?? ((m) => process.stderr.write(`[zksnark-sm-rsm ${new Date().toISOString()}] ${m}\n`));
  const wantZokrates = circuits.includes("zokrates");
  const wantOptimized = circuits.includes("optimized");
  // Fail before minutes of work, not after.
  if (provers.includes("native") || wantOptimized || (provers.includes("snarkjs") && ptauGenerator === "native")) requireNativeProver();
  if (wantOptimized) requireOptimizedBuilder();
  if (circuits.length === 0) throw new Error(`no circuit can run with --provers ${provers.join(",")} and --hash ${hash}`);
  const rngs = {
    inputs: new Rng(seed, "zksnark-sm-rsm/inputs"),
    zokrates: new Rng(seed, "zksnark-sm-rsm/zokrates-js-entropy"),
    snarkjs: new Rng(seed, "zksnark-sm-rsm/snarkjs-entropy"),
    snarkjsEntropy() {
      return (seed === null ? randomBytes(32) : this.snarkjs.bytes(32)).toString("hex");
    },
  };

  const outDir = path.dirname(path.resolve(out));
  mkdirSync(outDir, { recursive: true });
  const build = keepBuild ? path.join(outDir, "build") : mkdtempSync(path.join(os.tmpdir(), "zksnark-sm-rsm-"));
  mkdirSync(build, { recursive: true });
  try {
    // Loading the wasm module is one-time process start-up, like the CLI's own start; untimed.
    if (wantZokrates) await zok.zokrates();
    log(`statement=${statement} hash=${hash} n=${n} variant=${variant} circuits=${circuits.join(",")} provers=${provers.join(",")} threads=${threads} build=${build}`);

    const { inst, shared } = await computation({ statement, hash, variant, n, rngs, log, inputs, build });
    const expected = expectations(inst, circuits, build);
    const ptau = powersOfTauOnce({ generator: ptauGenerator, build, threads, seed, rngs, log });
    const ptauFor = ptau.forCircuit;

    const body = {
      statement,
      hash,
      variant,
      fixes: fixes(variant),
      n,
      depth: inst.depth,
      curve: "bn254",
      threads,
      proven_index: inst.index,
      root: inst.root,
      circuits: {},
      powers_of_tau: null,
      comparison: null,
      references: null,
      versions: { ...jsVersions(), snarkjs: snarkjsVersion(PKG_DIR), zokrates: null, "zksnark-prover": null, "ark-groth16": null },
    };
    const files = {};
    const proverOpts = { inst, build, provers, threads, seed, rngs, log, shared, ptauFor, expected };
    let agreed = true;
    if (wantZokrates) {
      const z = await runZokrates(proverOpts);
      body.circuits.zokrates = z.entry;
      Object.assign(body.versions, z.versions);
      for (const [p, text] of Object.entries(z.texts)) files[`report-${p}.txt`] = text;
      agreed &&= z.agreed;
    }
    if (wantOptimized) {
      const o = await runOptimized(proverOpts);
      body.circuits.optimized = o.entry;
      Object.assign(body.versions, o.versions);
      for (const [p, text] of Object.entries(o.texts)) files[`report-optimized-${p}.txt`] = text;
      agreed &&= o.agreed;
    }
    body.powers_of_tau = ptau.report();
    body.comparison = comparison(body.circuits, threads);
    body.references = references(body.circuits);
    body.cross_verification = provers.includes("native") && provers.includes("snarkjs") ? agreed : null;

    for (const [name, text] of Object.entries(files)) writeAtomic(path.join(outDir, name), text);
    const passed =
      agreed && Object.values(body.circuits).every((c) => Object.values(c.provers).every((p) => p.status === "PASSED"));
    return { body, texts: files, passed };
  } finally {
    if (!keepBuild) rmSync(build, { recursive: true, force: true });
  }
}
