// The suite's one report envelope (measure/schema/envelope.schema.json, written by the Rust
// programs through measure::envelope), around the driver's body (docs/report.schema.json):
//
//   format, tool, tool_version, body_version, passed, parameters, seed, inputs_sha256,
//   machine, provenance, runner, load, resources, started_unix, body
//
// `passed` is the run's only verdict. `inputs_sha256` digests the generated inputs item by item,
// as measure::envelope::Inputs does: len(label) || label || len(bytes) || bytes (lengths as 8
// bytes big-endian), so two runs of one seed have the same digest and two unseeded runs differ.
// The provenance comes from SUITE_GIT_COMMIT / SUITE_GIT_DIRTY when the workflow sets them, else
// from git; the runner from SUITE_RUNNER / SUITE_IMAGE / SUITE_IMAGE_ID.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const FORMAT = "tmbench-report/1";

const PKG_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function read(file) {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** The labelled digest of a run's generated inputs (measure::envelope::Inputs). */
export class Inputs {
  constructor() {
    this.hash = createHash("sha256");
  }

  /** Adds one labelled item; `bytes` is a Buffer or a string (hashed as UTF-8). */
  add(label, bytes) {
    const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(String(bytes), "utf8");
    const len = (n) => {
      const x = Buffer.alloc(8);
      x.writeBigUInt64BE(BigInt(n));
      return x;
    };
    this.hash.update(len(Buffer.byteLength(label))).update(label).update(len(b.length)).update(b);
    return this;
  }

  hex() {
    return this.hash.copy().digest("hex");
  }
}

function osName() {
  const pretty = (read("/etc/os-release") ?? "").match(/^PRETTY_NAME="?([^"\n]*)"?/m)?.[1] ?? os.type();
  const kernel = read("/proc/sys/kernel/osrelease");
  return kernel ? `${pretty} (kernel ${kernel.trim()})` : pretty;
}

/** The machine block, as measure::machine writes it (without the load, which is in `load`). */
export function machine() {
  const cpus = os.cpus();
  return {
    hostname: (read("/proc/sys/kernel/hostname") ?? os.hostname()).trim(),
    cpu_model: cpus[0]?.model?.trim() || "unknown",
    logical_cpus: Math.max(1, os.availableParallelism?.() ?? cpus.length),
    mem_total_gib: os.totalmem() / 2 ** 30,
    os: osName(),
  };
}

function git(args) {
  const r = spawnSync("git", args, { cwd: PKG_DIR, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** {commit, dirty}: from the workflow's environment, else from git, else "unknown". */
export function provenance(env = process.env) {
  if (env.SUITE_GIT_COMMIT) {
    const d = env.SUITE_GIT_DIRTY;
    const dirty = d === "1" || d === "true" ? true : d === "0" || d === "false" ? false : null;
    return { commit: env.SUITE_GIT_COMMIT, dirty };
  }
  const commit = git(["rev-parse", "HEAD"]);
  if (commit === null) return { commit: "unknown", dirty: null };
  const status = git(["status", "--porcelain", "--untracked-files=no"]);
  return { commit, dirty: status === null ? null : status.length > 0 };
}

/** {kind, image, image_id} from SUITE_RUNNER, SUITE_IMAGE, SUITE_IMAGE_ID. */
export function runner(env = process.env) {
  const v = (k) => (env[k] ? env[k] : null);
  return { kind: v("SUITE_RUNNER") ?? "native", image: v("SUITE_IMAGE"), image_id: v("SUITE_IMAGE_ID") };
}

/**
 * CPU seconds of the children this process has waited for (the native binaries it spawned):
 * cutime + cstime of /proc/self/stat, in the kernel's USER_HZ ticks (100 a second on Linux).
 * 0 where the system does not say.
 */
export function childrenCpuSeconds() {
  const stat = read("/proc/self/stat");
  if (!stat) return 0;
  // The fields after the command name, which is in parentheses and may hold spaces.
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state); cutime and cstime are fields 16 and 17.
  const ticks = Number(rest[13]) + Number(rest[14]);
  return Number.isFinite(ticks) ? ticks / 100 : 0;
}

/** The tool's version: this package's. */
export function toolVersion() {
  try {
    return JSON.parse(readFileSync(path.join(PKG_DIR, "package.json"), "utf8")).version;
  } catch {
    return "unknown";
  }
}

/** A run being measured: begin before the work (reads the load, starts the clocks). */
export class Envelope {
  constructor({ tool, toolVersion: version, bodyVersion, parameters, seed }) {
    this.tool = tool;
    this.toolVersion = version;
    this.bodyVersion = bodyVersion;
    this.parameters = parameters;
    this.seed = seed ?? null;
    this.loadStart = os.loadavg();
    this.startedUnix = Date.now() / 1000;
    this.t0 = process.hrtime.bigint();
  }

  /** The whole report around `body`. */
  close({ passed, inputs, body }) {
    // The whole process's CPU time, every thread, as measure::clock::usage counts it.
    const cpu = process.cpuUsage();
    return {
      format: FORMAT,
      tool: this.tool,
      tool_version: this.toolVersion,
      body_version: this.bodyVersion,
      passed: passed === true,
      parameters: this.parameters,
      seed: this.seed,
      inputs_sha256: inputs.hex(),
      machine: machine(),
      provenance: provenance(),
      runner: runner(),
      load: { start: this.loadStart, end: os.loadavg() },
      resources: {
        wall_s: Number(process.hrtime.bigint() - this.t0) / 1e9,
        cpu_s: (cpu.user + cpu.system) / 1e6,
        cpu_children_s: childrenCpuSeconds(),
        peak_rss_mib: process.resourceUsage().maxRSS / 1024,
      },
      started_unix: this.startedUnix,
      body,
    };
  }
}
