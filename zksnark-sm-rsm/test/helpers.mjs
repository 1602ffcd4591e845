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

/** Runs run.mjs end to end, keeping the build directory, and loads what it wrote. */
export function runDriver({ statement, hash = "poseidon", n, seed, provers, circuits = ["zokrates"] }) {
  const out = mkdtempSync(path.join(os.tmpdir(), `zksnark-${statement}-`));
  const args = [RUN, "--statement", statement, "--n", String(n), "--hash", hash, "--threads", "1"];
  args.push("--out", out, "--seed", String(seed), "--provers", provers.join(","), "--circuits", circuits.join(","), "--keep-build");
  const r = spawnSync(process.execPath, args, { encoding: "utf8", timeout: 15 * 60 * 1000 });
  const read = (f) => readFileSync(path.join(out, f), "utf8");
  const build = path.join(out, "build");
  return {
    status: r.status,
    stderr: r.stderr,
    out,
    build,
    read,
    json: () => JSON.parse(read("report.json")),
    buildJson: (f) => JSON.parse(readFileSync(path.join(build, f), "utf8")),
    buildText: (f) => readFileSync(path.join(build, f), "utf8"),
  };
}

/** A field element (decimal string) plus one: a different value, still below p for random inputs. */
export const bump = (s) => (BigInt(s) + 1n).toString();
