// Shared pieces of the circuit tests.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nativeProverAvailable, nativeProverPath } from "../lib/native.mjs";
import { optimizedBuilderPath, requireOptimizedBuilder } from "../lib/optimized.mjs";

export const RUN = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "run.mjs");
export const NATIVE = nativeProverAvailable();
export const NATIVE_SKIP = NATIVE
  ? false
  : `native prover not built (${nativeProverPath()}); build it with cargo build --release -p zksnark-prover`;

/** The optimized circuit runs where both its builder and the native prover are built. */
export const OPTIMIZED = NATIVE && (() => {
  try {
    requireOptimizedBuilder();
    return true;
  } catch {
    return false;
  }
})();
export const OPTIMIZED_SKIP = OPTIMIZED
  ? false
  : `optimized circuit not runnable (${optimizedBuilderPath()}, ${nativeProverPath()}); build them with ` +
    "cargo build --release -p zksnark-optimized -p zksnark-prover";

/** A seed for --seed (64 hex digits) from a small number, for readable tests. */
export const seedHex = (k) => BigInt(k).toString(16).padStart(64, "0");

/**
 * Runs run.mjs end to end, keeping the build directory, and loads what it wrote. `seed` null:
 * no --seed (fresh randomness); `keepBuild` false: no build/ kept.
 */
export function runDriver({ statement, hash = "poseidon", n, seed, provers, circuits = ["zokrates"], variant, keepBuild = true, env }) {
  const out = mkdtempSync(path.join(os.tmpdir(), `zksnark-${statement}-`));
  const args = [RUN, "--statement", statement, "--n", String(n), "--hash", hash, "--threads", "1"];
  args.push("--out", path.join(out, "report.json"), "--provers", provers.join(","), "--circuits", circuits.join(","));
  if (seed !== null && seed !== undefined) args.push("--seed", seedHex(seed));
  if (variant) args.push("--variant", variant);
  if (keepBuild) args.push("--keep-build");
  const r = spawnSync(process.execPath, args, { encoding: "utf8", timeout: 15 * 60 * 1000, env: env ?? process.env });
  const read = (f) => readFileSync(path.join(out, f), "utf8");
  const build = path.join(out, "build");
  return {
    status: r.status,
    stderr: r.stderr,
    out,
    build,
    read,
    report: path.join(out, "report.json"),
    envelope: () => JSON.parse(read("report.json")),
    json: () => JSON.parse(read("report.json")).body,
    buildJson: (f) => JSON.parse(readFileSync(path.join(build, f), "utf8")),
    buildText: (f) => readFileSync(path.join(build, f), "utf8"),
  };
}

/** A field element (decimal string) plus one: a different value, still below p for random inputs. */
export const bump = (s) => (BigInt(s) + 1n).toString();

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const ENVELOPE_SCHEMA = path.join(REPO, "measure", "schema", "envelope.schema.json");
export const BODY_SCHEMA = path.join(REPO, "zksnark-sm-rsm", "docs", "report.schema.json");

/**
 * Checks a report against the suite's envelope schema and its body against the driver's body
 * schema (Python's jsonschema, draft 2020-12, as the Rust crates' tests do); returns the
 * violations ("" if none).
 */
export function schemaViolations(report) {
  const code = [
    "import json, sys, jsonschema",
    "V = jsonschema.Draft202012Validator",
    "env, body, rep = (json.load(open(f)) for f in sys.argv[1:4])",
    "V.check_schema(env); V.check_schema(body)",
    "errs = [f'envelope: {e.message}' for e in V(env).iter_errors(rep)]",
    "errs += [f'body: {e.message}' for e in V(body).iter_errors(rep.get('body', {}))]",
    "print('\\n'.join(errs))",
  ].join("\n");
  const r = spawnSync("python3", ["-c", code, ENVELOPE_SCHEMA, BODY_SCHEMA, report], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`python3 with jsonschema (requirements.txt) is needed: ${r.stderr}`);
  return r.stdout.trim();
}
