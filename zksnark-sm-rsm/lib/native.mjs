// The native Groth16 prover (zksnark-sm-rsm/prover, ark-groth16), run on the R1CS and witness
// that zokrates-js exports in circom format; its command line and JSON are in prover/README.md.
import { spawnSync } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { FORMAT } from "./envelope.mjs";

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

/**
 * The phases `names` of a report body that `tool` wrote, each `{ real, user, sys }` checked to be
 * non-negative numbers.
 */
export function checkPhases(json, names, tool) {
  const phases = {};
  for (const name of names) {
    const p = json?.phases?.[name];
    for (const k of ["real", "user", "sys"]) {
      if (typeof p?.[k] !== "number" || !Number.isFinite(p[k]) || p[k] < 0) {
        throw new Error(`${tool} report: phases.${name}.${k} missing or not a non-negative number`);
      }
    }
    phases[name] = { real: p.real, user: p.user, sys: p.sys };
  }
  return phases;
}

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

/** The body of a report that one of the suite's binaries wrote through the envelope. */
export function readEnveloped(file, tool) {
  const report = JSON.parse(readFileSync(file, "utf8"));
  if (report?.format !== FORMAT || report.tool !== tool || typeof report.body !== "object") {
    throw new Error(`${file}: not a ${tool} report (the suite's envelope)`);
  }
  return report;
}

/**
 * `zksnark-prover run`: setup + prove + verify in one process, with an explicit thread count;
 * `files` (proof, vk, public) receive the proof and key in snarkjs's JSON form and the public
 * inputs (the witness's). With `expectPublic` (a JSON file of the verifier's public inputs) its
 * verifier checks the proof against those, not the witness's. Returns the report's body with
 * the phases checked.
 */
export function runNativeProver({ r1cs, wtns, threads, seed, out, files, expectPublic, bin = nativeProverPath() }) {
  requireNativeProver(bin);
  const args = ["run", "--r1cs", r1cs, "--wtns", wtns, "--threads", String(threads), "--out", out];
  if (files) args.push("--proof", files.proof, "--vk", files.vk, "--public", files.public);
  if (expectPublic) args.push("--expect-public", expectPublic);
  if (seed !== null && seed !== undefined) args.push("--seed", seed);
  const res = spawnSync(bin, args, {
    // All its output goes to our stderr (our stdout stays clean); rayon also honours
    // RAYON_NUM_THREADS, a second guard on the thread count.
    stdio: ["ignore", 2, 2],
    env: { ...process.env, RAYON_NUM_THREADS: String(threads) },
  });
  if (res.error) throw new Error(`could not run ${bin}: ${res.error.message}`);
  let report;
  try {
    report = readEnveloped(out, "zksnark-prover");
  } catch (e) {
    throw new Error(`${bin} exited with ${res.status ?? res.signal} and wrote no readable ${out}: ${e.message}`);
  }
  const json = report.body;
  const phases = checkPhases(json, ["setup", "prove", "verify"], "zksnark-prover");
  if (json.status !== "PASSED" && json.status !== "FAILED") {
    throw new Error(`zksnark-prover: status must be PASSED or FAILED, got ${JSON.stringify(json.status)}`);
  }
  // The exit status and the report must agree: trust neither otherwise.
  if ((json.status === "PASSED") !== (res.status === 0) || report.passed !== (json.status === "PASSED")) {
    throw new Error(`${bin} exited with ${res.status ?? res.signal} but reported ${json.status}`);
  }
  if (expectPublic && (json.verified_against !== "expected" || typeof json.witness_public_inputs_as_expected !== "boolean")) {
    throw new Error(`${bin} was given the expected public inputs but says it verified against ${JSON.stringify(json.verified_against)}`);
  }
  return { ...json, phases };
}

/** The native verifier (`zksnark-prover verify`) on a proof and key in snarkjs's JSON form. */
export function nativeVerifies({ vk, proof, publicFile, bin = nativeProverPath() }) {
  const res = spawnSync(bin, ["verify", "--vk", vk, "--proof", proof, "--public", publicFile], {
    stdio: ["ignore", "pipe", 2],
    encoding: "utf8",
  });
  if (res.error) throw new Error(`could not run ${bin}: ${res.error.message}`);
  if (res.status === 2) throw new Error(`${bin} verify refused its input (exit 2)`);
  return res.status === 0 && res.stdout.trim() === "PASSED";
}
