// The run's outputs: paper-format text reports (one per prover) and report.json, each written
// atomically (temp file in the same directory, then rename), plus the machine block.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { timeLines } from "./timing.mjs";

const PKG_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function writeAtomic(file, content) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

function osName() {
  try {
    const m = readFileSync("/etc/os-release", "utf8").match(/^PRETTY_NAME="?([^"\n]*)"?/m);
    if (m) return `${m[1]} (${os.type()} ${os.release()})`;
  } catch {
    // not Linux, or no os-release: fall through
  }
  return `${os.type()} ${os.release()}`;
}

export function machine() {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    cpu_model: cpus[0]?.model?.trim() ?? "unknown",
    logical_cpus: cpus.length,
    mem_total_gib: Math.round((os.totalmem() / 2 ** 30) * 100) / 100,
    os: osName(),
    load_avg_1m: os.loadavg()[0],
  };
}

function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(path.join(PKG_DIR, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

export function jsVersions() {
  return {
    node: process.versions.node,
    "zokrates-js": packageVersion("zokrates-js"),
    circomlibjs: packageVersion("circomlibjs"),
  };
}

/**
 * One prover's text report in the paper's layout: four sections, each a few lines of what ran
 * and bash-`time`-style real/user/sys lines.
 */
export function textReport(sections) {
  const out = [];
  for (const [name, { lines, time }] of sections) {
    out.push(`${name}:`, ...lines, "", ...timeLines(time), "");
  }
  return out.join("\n");
}
