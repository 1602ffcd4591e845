// snarkjs (0.7.6), the circom ecosystem's Groth16 prover, as a reference measured in the same
// run: it reads the very .r1cs and .wtns files the native prover reads. Nothing is downloaded:
// the powers of tau are generated here by snarkjs (a new accumulator, one contribution of fresh
// entropy, the phase-2 preparation) for the power the circuits need, and timed on their own:
// they are circuit-independent, not part of a circuit's setup. Their phase-2 preparation is
// slow in snarkjs (Lagrange bases by FFTs over G1 and G2: about 3 CPU minutes at 2^13, about
// an hour at 2^16), so a generated file is kept in a cache directory ($ZKSNARK_PTAU_DIR,
// else <repo>/target/snarkjs-ptau) with the time its generation took, and later runs reuse it
// (the report says whether this run generated it). The circuit's setup is snarkjs's
// `zkey new` and one phase-2 contribution; then prove and verify.
//
// Threads: snarkjs's prover runs on one thread when asked (`singleThread`); its setup steps
// and its verifier have no such option and use a worker per logical CPU. Their CPU time is the
// process's, which counts every worker thread.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as snarkjs from "snarkjs";
import { timed } from "./timing.mjs";

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
  return { file: path.join(dir, `pot${p}_final.ptau`), power: p, time: meta.time, generated_in_this_run: false, generated_unix: meta.generated_unix };
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
 * Powers of tau of at least 2^power: from the cache, or generated locally by snarkjs (`new`,
 * `contribute` with the caller's entropy, `prepare phase2`), timed, and cached. Returns the
 * file, its power, the time its generation took and whether this run generated it.
 */
export async function powersOfTau({ power, entropy, dir = ptauDir() }) {
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
    const meta = { power, time: run.time, generated_unix: generatedUnix, by: `snarkjs ${snarkjsVersion(path.join(REPO_ROOT, "zksnark-sm-rsm"))}` };
    writeFileSync(path.join(dir, `pot${power}.json`), `${JSON.stringify(meta, null, 2)}\n`);
    return { file: final, power, time: run.time, generated_in_this_run: true, generated_unix: generatedUnix };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * snarkjs on one circuit's files: setup (zkey new + one contribution), prove, verify; the
 * proof, the public signals and the verification key written to `build` for cross-checks.
 */
export async function runSnarkjs({ name, r1cs, wtns, ptau, build, threads, entropy }) {
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
  const verifying = await timed(async () => snarkjs.groth16.verify(vk, publicSignals, proof, quiet));
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
