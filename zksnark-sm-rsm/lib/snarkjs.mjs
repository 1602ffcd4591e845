// snarkjs (0.7.6), the circom ecosystem's Groth16 prover, as a reference measured in the same
// run: it reads the very .r1cs and .wtns files the native prover reads. Its setup needs powers of
// tau ("prepared" for phase 2) of the circuit's size; nothing is downloaded. Two generators:
//   * native (the default): `zksnark-prover ptau`, which writes the file snarkjs's own ceremony
//     writes (one contribution, phase 2 prepared) from secrets it knows, in seconds; generated
//     in every run, from the run's seed (stream zksnark-prover/ptau/...) or the OS;
//   * snarkjs: snarkjs itself (a new accumulator, one contribution of fresh entropy, the phase-2
//     preparation), whose Lagrange step runs group FFTs in WebAssembly: about 3 CPU minutes at
//     2^13 and an hour at 2^16. Its file is kept in a cache directory ($ZKSNARK_PTAU_DIR, else
//     <repo>/target/snarkjs-ptau) with the time its generation took, and later runs reuse it
//     (the report says whether this run generated it).
// Either way the ceremony has one participant: a benchmark's setup, not a trusted one. The
// generation is timed on its own: it is circuit-independent, not part of a circuit's setup. The
// circuit's setup is snarkjs's `zkey new` and one phase-2 contribution; then prove and verify.
//
// Threads: snarkjs's prover runs on one thread when asked (`singleThread`); its setup steps
// and its verifier have no such option and use a worker per logical CPU. Their CPU time is the
// process's, which counts every worker thread. The native generator runs with the run's
// thread count.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as snarkjs from "snarkjs";
import { nativeProverPath, requireNativeProver } from "./native.mjs";
import { timed } from "./timing.mjs";

/** Who generates the powers of tau (--ptau). */
export const PTAU_GENERATORS = ["native", "snarkjs"];

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where generated powers of tau are kept for later runs. */
export function ptauDir() {
  return process.env.ZKSNARK_PTAU_DIR || path.join(REPO_ROOT, "target", "snarkjs-ptau");
}

/** The cached powers of tau of the smallest power >= `power`, or null. */
function cachedPtau(dir, power) {
  if (!existsSync(dir)) return null;
  const powers = readdirSync(dir)
    .map((f) => f.match(/^pot(\d+)\.json$/))
    .filter(Boolean)
    .map((m) => Number(m[1]))
    .filter((p) => p >= power && existsSync(path.join(dir, `pot${p}_final.ptau`)))
    .sort((a, b) => a - b);
  if (powers.length === 0) return null;
  const p = powers[0];
  const meta = JSON.parse(readFileSync(path.join(dir, `pot${p}.json`), "utf8"));
  return {
    file: path.join(dir, `pot${p}_final.ptau`),
    power: p,
    time: meta.time,
    generated_in_this_run: false,
    generated_unix: meta.generated_unix,
    generator: "snarkjs",
    by: meta.by ?? "snarkjs",
    threads: null,
  };
}

/** Quiet logger (snarkjs logs at debug level when given one). */
const quiet = undefined;

/** The smallest power of two snarkjs's Groth16 domain needs: constraints + public inputs + 1. */
export function ptauPower({ constraints, publicInputs }) {
  let power = 1;
  while (2 ** power < constraints + publicInputs + 1) power++;
  return power;
}

/** Reads the constraint and public-input counts of a circom .r1cs (for the ptau's power). */
export async function r1csInfo(r1cs) {
  const info = await snarkjs.r1cs.info(r1cs, quiet);
  return { constraints: info.nConstraints, publicInputs: info.nPubInputs + info.nOutputs };
}

/**
 * Powers of tau of at least 2^power by `generator` (PTAU_GENERATORS). Returns the file, its
 * power, the time its generation took, whether this run generated it, the generator and the
 * program that ran (`by`).
 */
export async function powersOfTau({ power, generator, build, threads, seed, entropy }) {
  if (generator === "native") return nativePowersOfTau({ power, dir: build, threads, seed });
  if (generator === "snarkjs") return snarkjsPowersOfTau({ power, entropy });
  throw new Error(`unknown powers-of-tau generator '${generator}' (allowed: ${PTAU_GENERATORS.join(", ")})`);
}

function checkTime(t, bin) {
  for (const k of ["real", "user", "sys"]) {
    if (typeof t?.[k] !== "number" || !Number.isFinite(t[k]) || t[k] < 0) {
      throw new Error(`${bin} ptau: its summary's time.${k} is missing or not a non-negative number`);
    }
  }
  return { real: t.real, user: t.user, sys: t.sys };
}

/**
 * `zksnark-prover ptau`: the file of 2^power in `dir`, generated now with `threads` threads,
 * from the run's seed (64 hex digits) or the OS. Its time is the binary's own (whole process,
 * every thread).
 */
export function nativePowersOfTau({ power, dir, threads, seed, bin = nativeProverPath() }) {
  requireNativeProver(bin);
  const file = path.join(dir, `pot${power}.ptau`);
  const args = ["ptau", "--power", String(power), "--out", file, "--threads", String(threads)];
  if (seed !== null && seed !== undefined) args.push("--seed", seed);
  const res = spawnSync(bin, args, {
    stdio: ["ignore", "pipe", 2],
    encoding: "utf8",
    env: { ...process.env, RAYON_NUM_THREADS: String(threads) },
  });
  if (res.error) throw new Error(`could not run ${bin}: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`${bin} ptau --power ${power} exited with ${res.status ?? res.signal}`);
  let summary;
  try {
    summary = JSON.parse(res.stdout.trim());
  } catch (e) {
    throw new Error(`${bin} ptau: its summary on stdout is not JSON: ${e.message}`);
  }
  if (summary.power !== power || summary.participants !== 1) {
    throw new Error(`${bin} ptau: asked for 2^${power}, its summary says 2^${summary.power} (${summary.participants} participants)`);
  }
  return {
    file,
    power,
    time: checkTime(summary.time, bin),
    generated_in_this_run: true,
    generator: "native",
    by: summary.generator,
    threads,
  };
}

/**
 * Powers of tau of at least 2^power: from the cache, or generated locally by snarkjs (`new`,
 * `contribute` with the caller's entropy, `prepare phase2`), timed, and cached.
 */
async function snarkjsPowersOfTau({ power, entropy, dir = ptauDir() }) {
  const cached = cachedPtau(dir, power);
  if (cached) return cached;
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(path.join(dir, `.pot${power}-`));
  try {
    const f = (name) => path.join(work, `pot${power}_${name}.ptau`);
    const run = await timed(async () => {
      const curve = await snarkjs.curves.getCurveFromName("bn128");
      await snarkjs.powersOfTau.newAccumulator(curve, power, f("0000"), quiet);
      await snarkjs.powersOfTau.contribute(f("0000"), f("0001"), "zksnark-sm-rsm", entropy, quiet);
      await snarkjs.powersOfTau.preparePhase2(f("0001"), f("final"), quiet);
    });
    const generatedUnix = Date.now() / 1000;
    const final = path.join(dir, `pot${power}_final.ptau`);
    renameSync(f("final"), final);
    const by = `snarkjs ${snarkjsVersion(path.join(REPO_ROOT, "zksnark-sm-rsm"))}`;
    const meta = { power, time: run.time, generated_unix: generatedUnix, by };
    writeFileSync(path.join(dir, `pot${power}.json`), `${JSON.stringify(meta, null, 2)}\n`);
    return { file: final, power, time: run.time, generated_in_this_run: true, generated_unix: generatedUnix, generator: "snarkjs", by, threads: null };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * snarkjs on one circuit's files: setup (zkey new + one contribution), prove, and verify against
 * `expected`, the verifier's public inputs (decimal strings, lib/verifier.mjs), not the
 * prover's; the proof, the prover's public signals and the verification key written to `build`
 * for cross-checks.
 */
export async function runSnarkjs({ name, r1cs, wtns, ptau, build, threads, entropy, expected }) {
  const zkey0 = path.join(build, `${name}-snarkjs-0.zkey`);
  const zkey = path.join(build, `${name}-snarkjs.zkey`);
  const setup = await timed(async () => {
    await snarkjs.zKey.newZKey(r1cs, ptau, zkey0, quiet);
    await snarkjs.zKey.contribute(zkey0, zkey, "zksnark-sm-rsm", entropy, quiet);
    return snarkjs.zKey.exportVerificationKey(zkey, quiet);
  });
  const vk = setup.value;
  const proving = await timed(async () =>
    snarkjs.groth16.prove(zkey, wtns, quiet, { singleThread: threads === 1 }),
  );
  const { proof, publicSignals } = proving.value;
  const verifying = await timed(async () => snarkjs.groth16.verify(vk, expected, proof, quiet));
  const files = {
    proof: path.join(build, `${name}-snarkjs-proof.json`),
    vk: path.join(build, `${name}-snarkjs-vk.json`),
    public: path.join(build, `${name}-public.json`),
  };
  writeFileSync(files.proof, JSON.stringify(proof));
  writeFileSync(files.vk, JSON.stringify(vk));
  writeFileSync(files.public, JSON.stringify(publicSignals));
  return {
    setup: setup.time,
    proof: proving.time,
    verify: verifying.time,
    verified: verifying.value === true,
    publicSignals,
    files,
    threads: threads === 1 ? 1 : null,
  };
}

/** snarkjs's verifier on a proof and key in its JSON form (the native prover's, converted). */
export async function snarkjsVerifies({ vk, proof, publicSignals }) {
  try {
    const read = (f) => JSON.parse(readFileSync(f, "utf8"));
    return (await snarkjs.groth16.verify(read(vk), publicSignals, read(proof), quiet)) === true;
  } catch {
    return false;
  }
}

/** The installed snarkjs version. */
export function snarkjsVersion(pkgDir) {
  try {
    return JSON.parse(readFileSync(path.join(pkgDir, "node_modules", "snarkjs", "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}
