#!/usr/bin/env node
// The paper's own zkSNARK circuits: its artifact's generators (sm.py, rsm.py and their .zok
// templates, Python with bitstring from the artifact's build) write the ZoKrates program and its
// inputs at n; the suite's ZoKrates (zokrates-js, ZoKrates 0.8 as WebAssembly, the one
// zksnark-sm-rsm uses: the ZoKrates command line the paper ran is on no package registry reachable
// here) compiles, sets up, proves and verifies it, in the sections of the paper's run.sh; then our
// ZoKrates program of the same statement (zksnark-sm-rsm/lib/circuits.mjs) is compiled at the same
// depth, and its constraint count and public inputs are set beside the artifact's.
//
//   node experiments/artifact-circuits/run.mjs --python PY --tree DIR --statement sm|rsm --n N
//        --hash poseidon|sha256 --out report.json
//
// The proof is verified against the public inputs of the generator's instance (its zok.inp), not
// the proof's own, and must fail against the same inputs with one changed. Exit: 0 verified (and
// the tampered inputs refused); 1 not (the report is written); 2 bad input, no report.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { zokratesProgram } from "../../zksnark-sm-rsm/lib/circuits.mjs";
import { Envelope, Inputs } from "../../zksnark-sm-rsm/lib/envelope.mjs";
import { jsVersions, textReport, writeAtomic } from "../../zksnark-sm-rsm/lib/report.mjs";
import { startTimer, timed } from "../../zksnark-sm-rsm/lib/timing.mjs";
import * as zok from "../../zksnark-sm-rsm/lib/zokrates.mjs";
import { publicInputs } from "./abi.mjs";

const TOOL = "artifact-circuits";
const BODY_VERSION = 1;
const GENERATORS = "zksnark-sm-rsm";

class UsageError extends Error {}

function parse(argv) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      python: { type: "string" }, tree: { type: "string" }, statement: { type: "string" },
      n: { type: "string" }, hash: { type: "string", default: "poseidon" }, out: { type: "string" },
    },
  });
  for (const k of ["python", "tree", "statement", "n", "out"]) if (!values[k]) throw new UsageError(`--${k} is required`);
  if (!["sm", "rsm"].includes(values.statement)) throw new UsageError(`--statement must be sm or rsm`);
  if (!["poseidon", "sha256"].includes(values.hash)) throw new UsageError(`--hash must be poseidon or sha256`);
  if (!/^[0-9]+$/.test(values.n) || Number(values.n) < 4) throw new UsageError(`--n must be an integer >= 4 (the generators prove index 3)`);
  return { ...values, n: Number(values.n) };
}

/** CPU seconds of the waited-for children: cutime and cstime of /proc/self/stat (USER_HZ 100). */
function childTimes() {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(rest[13]) / 100, sys: Number(rest[14]) / 100 };
}

/** The artifact's generator, as its run.sh runs it (COMPUTATION), in a copy of its folder. */
function generate({ python, tree, statement, n, hash, work, log }) {
  const src = path.join(tree, GENERATORS);
  for (const f of readdirSync(src)) if (f.endsWith(".py") || f.endsWith(".tmpl")) copyFileSync(path.join(src, f), path.join(work, f));
  mkdirSync(path.join(work, "build"));
  const c0 = childTimes();
  const stop = startTimer();
  log(`COMPUTATION: ${statement}.py ${n} ${hash}`);
  const r = spawnSync(python, ["-B", `${statement}.py`, String(n), hash], { cwd: work, encoding: "utf8", maxBuffer: 1 << 26 });
  const t = stop();
  const c1 = childTimes();
  if (r.status !== 0) throw new Error(`${statement}.py exited with status ${r.status}: ${(r.stderr || "").trim().split("\n").slice(-3).join(" / ")}`);
  const time = { real: t.real, user: c1.user - c0.user, sys: c1.sys - c0.sys };
  return { lines: r.stdout.trimEnd().split("\n"), time };
}

/** Compile, set up, prove and verify one ZoKrates program with zokrates-js. */
async function prove({ program, args, log }) {
  const logged = [];
  const compiled = await timed(async () => zok.compile(program));
  const artifacts = compiled.value;
  const setup = await timed(async () => zok.setup(artifacts.program));
  const witness = await timed(async () => zok.computeWitness(artifacts, args, { log: (l) => logged.push(String(l)) }));
  const proof = await timed(async () => zok.prove(artifacts.program, witness.value.witness, setup.value.pk));
  const expected = publicInputs(artifacts.abi, args);
  const verify = await timed(async () => zok.verifyAgainst(setup.value.vk, proof.value, expected));
  const tampered = [...expected];
  tampered[tampered.length - 1] = (BigInt(tampered[tampered.length - 1]) + 1n).toString();
  const refused = !(await zok.verifyAgainst(setup.value.vk, proof.value, tampered));
  log(`constraints ${artifacts.constraintCount}; ${verify.value ? "PASSED" : "FAILED"}; tampered inputs ${refused ? "refused" : "ACCEPTED"}`);
  return { artifacts, compiled, setup, witness, proof, verify, refused, expected, logged };
}

/** Our ZoKrates program of the statement at the same depth: its constraints and public inputs. */
async function ours({ statement, hash, depth, variant }) {
  const a = await zok.compile(zokratesProgram({ statement, hash, depth, variant }));
  return { variant, constraints: a.constraintCount, public_inputs: publicShape(a.abi) };
}

/** The public inputs of an ABI: their types in order (names left out: ours are our own). */
function publicShape(abi) {
  return abi.inputs.filter((i) => i.public).map((i) => typeSig(i));
}

function typeSig(t) {
  if (t.type === "array") return `${typeSig(t.components)}[${t.components.size}]`;
  if (t.type === "struct") return `{${t.components.members.map(typeSig).join(",")}}`;
  return t.type;
}

async function main() {
  let o;
  try {
    o = parse(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`error: ${e.message}\n`);
    return 2;
  }
  const log = (s) => process.stderr.write(`[artifact] ${o.statement} n=${o.n}: ${s}\n`);
  const env = new Envelope({ tool: TOOL, toolVersion: "0", bodyVersion: BODY_VERSION,
    parameters: { statement: o.statement, hash: o.hash, n: o.n, threads: 1 }, seed: null });
  const work = mkdtempSync(path.join(os.tmpdir(), "artifact-circuits-"));
  try {
    const gen = generate({ ...o, work, log });
    const zokFile = path.join(work, "build", `${o.statement}.zok`);
    const program = readFileSync(zokFile, "utf8");
    const inp = readFileSync(path.join(work, "build", "zok.inp"), "utf8");
    const depth = Number((gen.lines.find((l) => l.startsWith("treedepth=")) ?? "=0").split("=")[1]);
    log("TRUSTED SETUP + PROVER + VERIFIER (zokrates-js)");
    const r = await prove({ program, args: JSON.parse(inp), log });
    const ourCircuits = [await ours({ ...o, depth, variant: "as-published" }), await ours({ ...o, depth, variant: "sound" })];
    const shape = publicShape(r.artifacts.abi);
    const paper = ourCircuits[0];
    const comparison = {
      constraints: r.artifacts.constraintCount, ours_as_published: paper.constraints, ours_sound: ourCircuits[1].constraints,
      same_constraints: paper.constraints === r.artifacts.constraintCount,
      constraint_difference: paper.constraints - r.artifacts.constraintCount,
      // The same public inputs (their types), and whether in the same order of arguments.
      same_public_inputs: JSON.stringify([...shape].sort()) === JSON.stringify([...paper.public_inputs].sort()),
      same_public_order: JSON.stringify(shape) === JSON.stringify(paper.public_inputs),
    };
    const order = comparison.same_public_order ? "" : " (in another order of arguments)";
    log(`ours (as published): ${paper.constraints} constraints, public inputs ${comparison.same_public_inputs ? `the same${order}` : "DIFFERENT"}`);
    const status = r.verify.value ? "PASSED" : "FAILED";
    const sum = (...ts) => ts.reduce((a, t) => ({ real: a.real + t.real, user: a.user + t.user, sys: a.sys + t.sys }), { real: 0, user: 0, sys: 0 });
    const sections = { COMPUTATION: gen.time, "TRUSTED SETUP": sum(r.compiled.time, r.setup.time),
      PROVER: sum(r.witness.time, r.proof.time), VERIFIER: r.verify.time };
    const text = textReport([
      ["COMPUTATION", { lines: gen.lines, time: sections.COMPUTATION }],
      ["TRUSTED SETUP", { lines: [`Compiling build/${o.statement}.zok (zokrates-js)`, "", `Number of constraints: ${r.artifacts.constraintCount}`, "Setup completed"], time: sections["TRUSTED SETUP"] }],
      ["PROVER", { lines: ["Computing witness...", ...r.logged, "Generating proof (zokrates-js wasm, 1 thread)..."], time: sections.PROVER }],
      ["VERIFIER", { lines: ["Performing verification...", status], time: sections.VERIFIER }],
    ]);
    const outDir = path.dirname(o.out);
    mkdirSync(outDir, { recursive: true });
    writeAtomic(path.join(outDir, "report.txt"), text);
    const passed = r.verify.value && r.refused;
    const body = {
      statement: o.statement, hash: o.hash, n: o.n, depth, report: "report.txt", status, tampered_inputs_refused: r.refused,
      constraints: r.artifacts.constraintCount, public_inputs: shape, public_input_count: r.expected.length,
      components: { compile: r.compiled.time, setup: r.setup.time, witness: r.witness.time, proof: r.proof.time },
      sections, ours: ourCircuits, comparison, versions: jsVersions(), python: o.python, tree: o.tree,
      zokrates: "zokrates-js (ZoKrates 0.8 in WebAssembly, the suite's; the ZoKrates command line the paper ran is on no package registry reachable here)",
    };
    const inputs = new Inputs().add("zok.inp", inp).add("program", program);
    writeAtomic(o.out, `${JSON.stringify(env.close({ passed, inputs, body }), null, 2)}\n`);
    log(passed ? "PASSED" : "FAILED");
    return passed ? 0 : 1;
  } catch (e) {
    process.stderr.write(`error: ${e.message ?? e}\n`);
    return 2;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = await main();
