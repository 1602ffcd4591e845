#!/usr/bin/env node
// zkSNARK set membership (SM) / reverse set membership (RSM) baseline, the paper's experiment 2.
// Usage (see README.md):
//   node zksnark-sm-rsm/run.mjs --statement sm|rsm --n N --hash poseidon|sha256 --threads T \
//        --out DIR [--seed S] [--provers wasm,native] [--circuits zokrates,optimized] [--keep-build]
// Exit: 0 every verification PASSED; 1 a verification FAILED; 2 bad command line; 3 other error.
import { parseArgs } from "node:util";
import { CIRCUITS, PROVERS, runExperiment, selectCircuits } from "./lib/driver.mjs";
import { HASHES, STATEMENTS } from "./lib/circuits.mjs";

const USAGE =
  "usage: node run.mjs --statement sm|rsm --n N --hash poseidon|sha256 --threads T --out DIR " +
  "[--seed S] [--provers wasm,native] [--circuits zokrates,optimized] [--keep-build]";

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
        provers: { type: "string", default: "wasm,native" },
        circuits: { type: "string" },
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
  if (!values.out) throw new UsageError("--out is required");
  let seed = null;
  if (values.seed !== undefined) {
    if (!/^[0-9]+$/.test(values.seed) || BigInt(values.seed) > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new UsageError(`--seed must be an integer in 0..${Number.MAX_SAFE_INTEGER}, got '${values.seed}'`);
    }
    seed = BigInt(values.seed);
  }
  const provers = values.provers.split(",").map((p) => p.trim());
  for (const p of provers) {
    if (!PROVERS.includes(p)) throw new UsageError(`--provers takes a comma-separated list of: ${PROVERS.join(", ")}; got '${p}'`);
  }
  if (new Set(provers).size !== provers.length) throw new UsageError("--provers lists a prover twice");
  const statement = oneOf("statement", values.statement, STATEMENTS);
  const hash = oneOf("hash", values.hash, HASHES);
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
    provers,
    circuits,
    keepBuild: values["keep-build"],
  };
}

async function main() {
  let opts;
  try {
    opts = parseCommandLine(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`error: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    const { passed, report } = await runExperiment(opts);
    for (const [c, circuit] of Object.entries(report.circuits)) {
      for (const [p, r] of Object.entries(circuit.provers)) {
        const proof = r.prover_components.proof.user.toFixed(3);
        process.stderr.write(
          `${c} ${p}: ${r.status}, PROVER user ${r.sections.PROVER.user.toFixed(3)} s (proof ${proof} s), ${circuit.constraints} constraints\n`,
        );
      }
    }
    return passed ? 0 : 1;
  } catch (e) {
    process.stderr.write(`error: ${e.message}\n`);
    return 3;
  }
}

// zokrates-js and ffjavascript keep handles open; exit explicitly once done.
main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`error: ${e.stack ?? e}\n`);
    process.exit(3);
  },
);
