"""Helpers for the workflow tests (the fixture is registered in conftest.py).

`workflow_copy` makes a throw-away copy of the workflow (Snakefile, config, rules/, the
experiments' folders and the planning layer analysis/plan that the workflow imports) with tiny
stand-in programs: a `cargo` and an `npm` on PATH, a node driver, a db-sm-rsm binary and an
analysis command line that write small files of the right names. They exercise Snakemake's
rules, file names, command lines, messages and re-run behaviour only, never the experiments: the
real programs are tested by their own suites and by the smoke run of scripts/test, and the real
pipeline never sees these.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

FAKE_CARGO = r"""#!/bin/sh
# stand-in for cargo: "build ... --bin X" makes target/release/X
set -e
case "$1" in
build)
    bin=$(echo "$@" | sed -E 's/.*--bin ([^ ]+).*/\1/')
    mkdir -p target/release
    cp "fake/$bin" "target/release/$bin"
    chmod +x "target/release/$bin"
    ;;
*) echo "fake cargo: unexpected $*" >&2; exit 2 ;;
esac
"""

FAKE_CPSNARK = r"""#!/bin/sh
# stand-in for cpsnark-bench --n N ... --threads T --out FILE
n=$(echo "$@" | sed -E 's/.*--n ([^ ]+).*/\1/')
t=$(echo "$@" | sed -E 's/.*--threads ([^ ]+).*/\1/')
out=$(echo "$@" | sed -E 's/.*--out ([^ ]+).*/\1/')
echo "membership_hash protocol proving"
printf '{"n": %s, "threads": %s, "groups": [{"group": "g", "mean_s": 1.1}]}\n' "$n" "$t" > "$out"
"""

FAKE_NPM = r"""#!/bin/sh
# stand-in for npm ci
set -e
mkdir -p node_modules
echo '{}' > node_modules/.package-lock.json
"""

FAKE_DBSMRSM = r"""#!/bin/sh
# stand-in for db-sm-rsm N M ... --out FILE: report on stdout, JSON to FILE
json=$(echo "$@" | sed -E 's/.*--out ([^ ]+).*/\1/')
if [ -n "$FAKE_DB_CRASH" ]; then echo "fake crash" >&2; exit 3; fi
echo "status_fake: True"
printf '{"params": {"n": %s, "m": %s}, "statuses": {"status_fake": true}}\n' "$1" "$2" > "$json"
echo "progress" >&2
"""


def fake_bench(tool: str, check: str = "") -> str:
    """A stand-in for a program run as `TOOL ... --out FILE`: it runs `check` (a shell line that
    may refuse the arguments), says it progresses and writes a passed report envelope to FILE."""
    return f"""#!/bin/sh
# stand-in for {tool} ... --out FILE
out=$(echo "$@" | sed -E 's/.*--out ([^ ]+).*/\\1/')
{check}
echo "[progress] {tool}" >&2
printf '{{"tool": "{tool}", "passed": true}}\\n' > "$out"
"""


# collab-groth16 run --r1cs R ...: the circuit files it is given must exist (the zkSNARK run keeps them)
COLLAB_CHECK = """r1cs=$(echo "$@" | sed -E 's/.*--r1cs ([^ ]+).*/\\1/')
test -f "$r1cs" || { echo "no $r1cs" >&2; exit 2; }"""


FAKE_RUN_MJS = r"""
// stand-in for the zkSNARK node driver: writes the files it is told to
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
const args = process.argv.slice(2);
const get = (k) => args[args.indexOf(k) + 1];
const report = get("--out");
const out = dirname(report);
const provers = get("--provers").split(",");
mkdirSync(out, { recursive: true });
const result = {};
for (const p of provers) {
  writeFileSync(`${out}/report-${p}.txt`, "VERIFIER:\nPASSED\n");
  result[p] = { status: process.env.FAKE_ZK_STATUS ?? "PASSED" };
}
writeFileSync(report, JSON.stringify({ n: Number(get("--n")), provers: result }));
if (args.includes("--keep-build")) {
  mkdirSync(`${out}/build`, { recursive: true });
  for (const f of ["circuit.r1cs", "witness.wtns", "optimized.r1cs", "optimized.wtns"]) {
    writeFileSync(`${out}/build/${f}`, "stand-in\n");
  }
}
process.exit(result[provers[0]].status === "PASSED" ? 0 : 1);
"""

FAKE_ANALYSIS = r"""
import json
import os
import sys
from pathlib import Path

cmd, results = sys.argv[1], Path(sys.argv[2])
if cmd == "report":
    print("analysis: rendering", file=sys.stderr)
    for name in ("report.pdf", "tidy.csv", "tidy.parquet"):
        (results / name).write_text("stand-in\n")
    for d in ("plots", "tables"):
        (results / d).mkdir(exist_ok=True)
    (results / "plots" / "time_vs_n.png").write_text("stand-in\n")
    (results / "tables" / "claims.csv").write_text("stand-in\n")
    (results / "summary.txt").write_text(f"==== summary ====\nReport: {results / 'report.pdf'}\n")
elif cmd == "verify":
    bad = os.environ.get("FAKE_VERIFY_PROBLEM")
    if bad:
        print(f"verify: {bad}", file=sys.stderr)
        sys.exit(1)
    print("all runs verified")
"""


@dataclass
class Workflow:
    root: Path
    env: dict

    def configfile(self, **values: object) -> tuple[str, str]:
        """--configfile arguments for a small YAML file with these values."""
        import yaml

        path = self.root / f"override-{len(list(self.root.glob('override-*')))}.yaml"
        path.write_text(yaml.safe_dump(values))
        return ("--configfile", path.name)

    def snakemake(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [sys.executable, "-m", "snakemake", *args],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
        return proc


def _write(path: Path, text: str, executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    if executable:
        path.chmod(0o755)


@pytest.fixture
def workflow_copy(tmp_path: Path) -> Workflow:
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copy(REPO / "Snakefile", root)
    shutil.copy(REPO / "config.yaml", root)
    shutil.copy(REPO / "requirements.txt", root)
    shutil.copytree(REPO / "config", root / "config")
    shutil.copytree(REPO / "rules", root / "rules")
    shutil.copytree(REPO / "envs", root / "envs")
    # the sources the build rules depend on
    for name in (
        "Cargo.toml",
        "Cargo.lock",
        "db-sm-rsm/src/main.rs",
        "cpsnark-sm/src/lib.rs",
        "zksnark-sm-rsm/prover/src/main.rs",
        "zksnark-sm-rsm/package.json",
        "zksnark-sm-rsm/package-lock.json",
        "analysis/__init__.py",
        "measure/src/lib.rs",
        "veccom/src/lib.rs",
        "cmix/src/lib.rs",
        "mithril/src/lib.rs",
    ):
        _write(root / name, "\n")
    # The workflow plans its runs and estimates with the real planning layer and descriptors.
    for package in ("analysis/plan", "analysis/experiments", "experiments", "upstream"):
        shutil.copytree(REPO / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "analysis/runs.py", root / "analysis/runs.py")
    shutil.copy(REPO / "analysis/folders.py", root / "analysis/folders.py")
    _write(root / "analysis/data/costs.yaml", (REPO / "analysis/data/costs.yaml").read_text())
    _write(root / "zksnark-sm-rsm/run.mjs", FAKE_RUN_MJS)
    _write(root / "analysis/__main__.py", FAKE_ANALYSIS)
    _write(root / "fake/db-sm-rsm", FAKE_DBSMRSM, executable=True)
    _write(root / "fake/zksnark-prover", "#!/bin/sh\n", executable=True)
    _write(root / "fake/veccom-bench", fake_bench("veccom-bench"), executable=True)
    _write(root / "fake/collab-groth16", fake_bench("collab-groth16", COLLAB_CHECK), executable=True)
    _write(root / "fake/zksnark-optimized", "#!/bin/sh\n", executable=True)
    _write(root / "fake/cmix-bench", fake_bench("cmix-bench"), executable=True)
    _write(root / "fake/cpsnark-bench", FAKE_CPSNARK, executable=True)
    _write(root / "fake/mithril-bench", fake_bench("mithril-bench"), executable=True)
    _write(root / "fakebin/cargo", FAKE_CARGO, executable=True)
    _write(root / "fakebin/npm", FAKE_NPM, executable=True)
    env = dict(os.environ)
    env["PATH"] = f"{root / 'fakebin'}{os.pathsep}{env['PATH']}"
    # The paper's own code: no sources here (an empty cache, no network), so its experiments are
    # left out, whatever this machine's cache and network hold.
    env["TMBENCH_UPSTREAM_CACHE"] = str(tmp_path / "upstream-cache")
    env["TMBENCH_UPSTREAM_OFFLINE"] = "1"
    env.pop("TMBENCH_UPSTREAM_SOURCES", None)
    return Workflow(root, env)
