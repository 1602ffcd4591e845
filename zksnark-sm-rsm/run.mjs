#!/usr/bin/env node
// zkSNARK set membership (SM) / reverse set membership (RSM) baseline, the paper's experiment 2.
// Usage (see README.md):
//   node zksnark-sm-rsm/run.mjs --statement sm|rsm --n N --hash poseidon|sha256 --threads T \
//        --out PATH [--seed HEX64] [--variant sound|as-published] [--provers wasm,native,snarkjs] \
//        [--circuits zokrates,optimized] [--ptau native|snarkjs] [--keep-build]
// Exit: 0 every verification PASSED; 1 a verification FAILED (the report is written); 2 bad
// input or a run that could not complete (a missing tool, a witness that fails, an unwritable
// output), with no report.
import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { BODY_VERSION, CIRCUITS, PROVERS, VARIANTS, runExperiment, selectCircuits } from "./lib/driver.mjs";
import { HASHES, STATEMENTS } from "./lib/circuits.mjs";
import { Envelope, Inputs, toolVersion } from "./lib/envelope.mjs";
import { writeAtomic } from "./lib/report.mjs";
import { parseSeed } from "./lib/rng.mjs";
import { PTAU_GENERATORS } from "./lib/snarkjs.mjs";

const USAGE =
  "usage: node run.mjs --statement sm|rsm --n N --hash poseidon|sha256 --threads T --out PATH " +
  "[--seed HEX64] [--variant sound|as-published] [--provers wasm,native,snarkjs] " +
  "[--circuits zokrates,optimized] [--ptau native|snarkjs] [--keep-build]";

class UsageError extends Error {}

function positiveInt(name, s, max) {
  if (s === undefined) throw new UsageError(`--${name} is required`);
  if (!/^[0-9]+$/.test(s)) throw new UsageError(`--${name} must be a positive integer, got '${s}'`);
  const v = Number(s);
  if (v < 1 || v > max) throw new UsageError(`--${name} must be between 1 and ${max}, got ${s}`);
  return v;
}

function oneOf(name, s, allowed) {
  if (s === undefined) throw new UsageError(`--${name} is required (one of: ${allowed.join(", ")})`);
  if (!allowed.includes(s)) throw new UsageError(`--${name} must be one of: ${allowed.join(", ")}; got '${s}'`);
  return s;
}

export function parseCommandLine(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        statement: { type: "string" },
        n: { type: "string" },
        hash: { type: "string" },
        threads: { type: "string" },
        out: { type: "string" },
        seed: { type: "string" },
        provers: { type: "string" },
        variant: { type: "string", default: "sound" },
        circuits: { type: "string" },
        ptau: { type: "string", default: "native" },
        "keep-build": { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    }));
  } catch (e) {
    throw new UsageError(e.message);
  }
  if (values.help) return { help: true };
  const n = positiveInt("n", values.n, 2 ** 24);
  if (n < 2) throw new UsageError("--n must be at least 2 (the tree needs depth >= 1)");
  if (!values.out) throw new UsageError("--out is required (the JSON report's path)");
  let seed = null;
  if (values.seed !== undefined) {
    try {
      seed = parseSeed(values.seed);
    } catch (e) {
      throw new UsageError(e.message);
    }
  }
  const variant = oneOf("variant", values.variant, VARIANTS);
  const ptau = oneOf("ptau", values.ptau, PTAU_GENERATORS);
  const statement = oneOf("statement", values.statement, STATEMENTS);
  const hash = oneOf("hash", values.hash, HASHES);
  // snarkjs runs on the Poseidon circuits only: a SHA-256 tree's circuit needs powers of tau of
  // 2^19 and more, hours of CPU in snarkjs.
  const provers = (values.provers ?? (hash === "poseidon" ? "wasm,native,snarkjs" : "wasm,native")).split(",").map((p) => p.trim());
  for (const p of provers) {
    if (!PROVERS.includes(p)) throw new UsageError(`--provers takes a comma-separated list of: ${PROVERS.join(", ")}; got '${p}'`);
  }
  if (new Set(provers).size !== provers.length) throw new UsageError("--provers lists a prover twice");
  if (hash === "sha256" && provers.includes("snarkjs")) {
    throw new UsageError("--provers: snarkjs runs on the Poseidon circuits only (--hash sha256 needs powers of tau of 2^19 and more)");
  }
  // Without --circuits: every circuit that exists for the hash and that a requested prover proves.
  let circuits = null;
  if (values.circuits !== undefined) {
    circuits = values.circuits.split(",").map((c) => c.trim());
    for (const c of circuits) {
      if (!CIRCUITS.includes(c)) throw new UsageError(`--circuits takes a comma-separated list of: ${CIRCUITS.join(", ")}; got '${c}'`);
    }
    if (new Set(circuits).size !== circuits.length) throw new UsageError("--circuits lists a circuit twice");
  }
  try {
    circuits = selectCircuits({ circuits, provers, hash });
  } catch (e) {
    throw new UsageError(`--circuits: ${e.message}`);
  }
  return {
    statement,
    hash,
    n,
    threads: positiveInt("threads", values.threads, 1024),
    out: values.out,
    seed,
    variant,
    provers,
    circuits,
    ptau,
    keepBuild: values["keep-build"],
  };
}

/** The report's path must be a writable file (its directory is created): checked before any work. */
function checkWritable(out) {
  const dir = path.dirname(path.resolve(out));
  try {
    if (statSync(out, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${out} is a directory`);
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new UsageError(`--out: cannot write ${out}: ${e.message}`);
  }
}

async function main() {
  let opts;
  try {
    opts = parseCommandLine(process.argv.slice(2));
    if (!opts.help) checkWritable(opts.out);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`error: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const parameters = {
    statement: opts.statement,
    hash: opts.hash,
    n: opts.n,
    threads: opts.threads,
    variant: opts.variant,
    provers: opts.provers,
    circuits: opts.circuits,
    ptau: opts.provers.includes("snarkjs") ? opts.ptau : null,
    keep_build: opts.keepBuild,
  };
  const envelope = new Envelope({
    tool: "zksnark-sm-rsm",
    toolVersion: toolVersion(),
    bodyVersion: BODY_VERSION,
    parameters,
    seed: opts.seed,
  });
  const inputs = new Inputs();
  let result;
  try {
    result = await runExperiment({ ...opts, inputs });
  } catch (e) {
    process.stderr.write(`zksnark-sm-rsm: error: ${e.message}\n`);
    return 2;
  }
  const report = envelope.close({ passed: result.passed, inputs, body: result.body });
  writeAtomic(opts.out, `${JSON.stringify(report, null, 2)}\n`);
  for (const [c, circuit] of Object.entries(result.body.circuits)) {
    for (const [p, r] of Object.entries(circuit.provers)) {
      const proof = r.prover_components.proof.user.toFixed(3);
      process.stderr.write(
        `${c} ${p}: ${r.status}, PROVER user ${r.sections.PROVER.user.toFixed(3)} s (proof ${proof} s), ${circuit.constraints} constraints\n`,
      );
    }
  }
  process.stderr.write(`zksnark-sm-rsm: wrote ${opts.out}${result.passed ? "" : "; SOME CHECKS FAILED"}\n`);
  return result.passed ? 0 : 1;
}

// zokrates-js and ffjavascript keep handles open; exit explicitly once done.
main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`error: ${e.stack ?? e}\n`);
    process.exit(2);
  },
);
