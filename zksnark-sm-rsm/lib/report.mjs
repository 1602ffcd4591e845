// The run's outputs: paper-format text reports (one per prover) and the JSON report, each
// written atomically (temp file in the same directory, then rename).
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { timeLines } from "./timing.mjs";

export const PKG_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function writeAtomic(file, content) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  writeFileSync(tmp, content);
  renameSync(tmp, file);
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
