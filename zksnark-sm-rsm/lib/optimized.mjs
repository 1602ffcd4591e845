// The constraint-minimal circuit (zksnark-sm-rsm/optimized, arkworks gadgets): the
// `zksnark-optimized` binary builds its circom-format .r1cs and .wtns from the instance the
// driver draws, which the native prover then proves like the ZoKrates export.
import { spawnSync } from "node:child_process";
import { accessSync, constants, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkPhases } from "./native.mjs";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export function optimizedBuilderPath() {
  return process.env.ZKSNARK_OPTIMIZED || path.join(REPO_ROOT, "target", "release", "zksnark-optimized");
}

export class OptimizedBuilderMissing extends Error {}

/** Throws an OptimizedBuilderMissing that says how to get the binary, unless it is there. */
export function requireOptimizedBuilder(bin = optimizedBuilderPath()) {
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    throw new OptimizedBuilderMissing(
      `optimized circuit builder not found or not executable at ${bin}: build it with ` +
        "`cargo build --release -p zksnark-optimized` at the repository root, set " +
        "ZKSNARK_OPTIMIZED to its path, or run with --circuits zokrates",
    );
  }
}

/** The binary's input file: the same values the ZoKrates program gets (decimal strings). */
export function optimizedInputs(inst) {
  const common = { statement: inst.statement, hash: inst.hash, H: inst.H, root: inst.root, v: inst.v, r: inst.r };
  const path = { siblings: inst.path.siblings.map(String), right: inst.path.right };
  return inst.statement === "sm" ? { ...common, C: inst.commitment, ...path } : { ...common, ...path };
}

/**
 * `zksnark-optimized build`: circuit (.r1cs) and witness (.wtns) of the variant, each phase
 * timed by the binary (getrusage of its own process). A witness that does not satisfy the
 * circuit is an error naming the failing part.
 */
export function buildOptimized({ inputs, inputsFile, r1cs, wtns, out, variant, bin = optimizedBuilderPath() }) {
  requireOptimizedBuilder(bin);
  writeFileSync(inputsFile, JSON.stringify(inputs));
  const args = ["build", "--inputs", inputsFile, "--r1cs", r1cs, "--wtns", wtns, "--out", out, "--variant", variant];
  const res = spawnSync(bin, args, { stdio: ["ignore", 2, "pipe"], encoding: "utf8" });
  if (res.error) throw new Error(`could not run ${bin}: ${res.error.message}`);
  process.stderr.write(res.stderr ?? "");
  if (res.status !== 0) {
    const msg = (res.stderr ?? "").trim().split("\n").pop();
    throw new Error(`${path.basename(bin)} exited with ${res.status ?? res.signal}: ${msg}`);
  }
  const report = JSON.parse(readFileSync(out, "utf8"));
  const json = report.body ?? {};
  if (!Number.isInteger(json.constraints) || !Number.isInteger(json.wires)) {
    throw new Error("zksnark-optimized report: constraints and wires must be integers");
  }
  return {
    ...json,
    versions: { "zksnark-optimized": report.tool_version },
    phases: checkPhases(json, ["compile", "witness"], "zksnark-optimized"),
  };
}
