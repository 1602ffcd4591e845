// The native Groth16 prover (zksnark-sm-rsm/prover, ark-groth16), run on the R1CS and witness
// that zokrates-js exports in circom format; its command line and JSON are in prover/README.md.
import { spawnSync } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export function nativeProverPath() {
  return process.env.ZKSNARK_PROVER || path.join(REPO_ROOT, "target", "release", "zksnark-prover");
}

export function nativeProverAvailable(bin = nativeProverPath()) {
  try {
    accessSync(bin, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export class NativeProverMissing extends Error {}

function checkPhase(json, name) {
  const p = json?.phases?.[name];
  for (const k of ["real", "user", "sys"]) {
    if (typeof p?.[k] !== "number" || !Number.isFinite(p[k]) || p[k] < 0) {
      throw new Error(`zksnark-prover --json: phases.${name}.${k} missing or not a non-negative number`);
    }
  }
  return { real: p.real, user: p.user, sys: p.sys };
}

/**
 * setup + prove + verify in one process (`zksnark-prover run`), with an explicit thread count.
 * Returns the parsed --json output with the phases checked.
 */
/** Throws a NativeProverMissing that says how to get the binary, unless it is there. */
export function requireNativeProver(bin = nativeProverPath()) {
  if (!nativeProverAvailable(bin)) {
    throw new NativeProverMissing(
      `native prover not found or not executable at ${bin}: build it with ` +
        "`cargo build --release -p zksnark-prover` at the repository root, set ZKSNARK_PROVER " +
        "to its path, or run with --provers wasm",
    );
  }
}

export function runNativeProver({ r1cs, wtns, threads, seed, jsonPath, bin = nativeProverPath() }) {
  requireNativeProver(bin);
  const args = ["run", "--r1cs", r1cs, "--wtns", wtns, "--threads", String(threads), "--json", jsonPath];
  if (seed !== null && seed !== undefined) args.push("--seed", String(seed));
  const res = spawnSync(bin, args, {
    // All its output goes to our stderr (our stdout stays clean); rayon also honours
    // RAYON_NUM_THREADS, a second guard on the thread count.
    stdio: ["ignore", 2, 2],
    env: { ...process.env, RAYON_NUM_THREADS: String(threads) },
  });
  if (res.error) throw new Error(`could not run ${bin}: ${res.error.message}`);
  let json;
  try {
    json = JSON.parse(readFileSync(jsonPath, "utf8"));
  } catch (e) {
    throw new Error(`${bin} exited with ${res.status ?? res.signal} and wrote no readable ${jsonPath}: ${e.message}`);
  }
  const phases = { setup: checkPhase(json, "setup"), prove: checkPhase(json, "prove"), verify: checkPhase(json, "verify") };
  if (json.status !== "PASSED" && json.status !== "FAILED") {
    throw new Error(`zksnark-prover --json: status must be PASSED or FAILED, got ${JSON.stringify(json.status)}`);
  }
  // A PASSED with a failing exit code means the run went wrong after verifying: trust neither.
  if (json.status === "PASSED" && res.status !== 0) {
    throw new Error(`${bin} exited with ${res.status ?? res.signal} but reported ${json.status}`);
  }
  return { ...json, phases };
}
