"""Runs the paper's own `db_sm_rsm.py` (its artifact's DB-SM and DB-RSM, Python with charm on
PBC) from its pinned tree with the environment built from its pinned sources, and writes the
suite's report around what it printed.

    python3 -m analysis.experiments.artifact_db_sm_rsm.driver --build DIR --tree DIR --n N --m M
        [--precomputing on|off] [--clock cpu|wall] --out report.json

The program's own report (its standard output, the format of the published sample reports) goes
to `report.txt` beside `--out`, and is parsed by the parser that reads the published reports. The
run passed when the program exited 0 and printed every status the published report has, each
True; otherwise the report is still written and the exit status is 1 (2: bad input, no report).

`--clock cpu` runs the program with its timers on the process's CPU clock: its timing module
reads `time.perf_counter`, which is pointed at `time.process_time` before the program starts
(the program is single-threaded, so that is its own CPU time); nothing of its code changes.
`--clock wall` leaves its wall clock, as in the published reports.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from analysis.errors import ReportError
from analysis.parse.timer_report import parse_db_text
from analysis.plan import upstream_run
from analysis.plan.upstream import TREE_STAMP

TOOL = "artifact-db-sm-rsm"
BODY_VERSION = 1
# The program, in the artifact's tree.
SCRIPT = Path("db-sm-rsm") / "db_sm_rsm.py"
PAPER_DIR = Path(__file__).resolve().parents[2] / "analysis" / "data" / "paper"
PAPER_FILE = "report-db-sm-rsm-n10000-m4"
# Starts the program as `python db_sm_rsm.py N M` would, its timers on the chosen clock.
LAUNCH = (
    "import runpy, sys, time\n"
    "if sys.argv[1] == 'cpu':\n"
    "    time.perf_counter = time.process_time\n"
    "script = sys.argv[2]\n"
    "sys.argv = [script, *sys.argv[3:]]\n"
    "sys.path.insert(0, script.rsplit('/', 1)[0])\n"
    "runpy.run_path(script, run_name='__main__')\n"
)


def expected_statuses() -> list[str]:
    """The statuses the published report of the paper's code has (every one must be True)."""
    return list(parse_db_text(PAPER_DIR / PAPER_FILE, source="paper").statuses)


def verdict(report: Path, returncode: int) -> tuple[bool, dict[str, bool], list[str]]:
    """Whether the run passed, its statuses, and why not: it must exit 0, its report must parse,
    and every expected status must be there and True."""
    why: list[str] = []
    if returncode != 0:
        why.append(f"the program exited with status {returncode}")
    try:
        statuses = parse_db_text(report, source="ours").statuses
    except ReportError as e:
        return False, {}, [*why, f"its report does not parse: {e}"]
    expected = expected_statuses()
    why += [f"{k} missing" for k in expected if k not in statuses]
    why += [f"{k} is False" for k, v in statuses.items() if not v]
    return not why, statuses, why


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python3 -m analysis.experiments.artifact_db_sm_rsm.driver",
        description="Run the paper's own db_sm_rsm.py and report it.",
    )
    ap.add_argument("--build", type=Path, required=True, help="the python part's build directory")
    ap.add_argument("--tree", type=Path, required=True, help="the artifact's tree")
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--m", type=int, required=True)
    ap.add_argument("--precomputing", choices=["on", "off"], default="on")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    script = args.tree / SCRIPT
    try:
        build = upstream_run.read_build(args.build / "built.json")
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return upstream_run.BAD_INPUT
    problem = (
        f"--n must be at least 4, not {args.n}"
        if args.n < 4
        else f"--m must be at least 2, not {args.m}"
        if args.m < 2
        else None
        if script.is_file()
        else f"{script}: no such file (is --tree the artifact's?)"
    )
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return upstream_run.BAD_INPUT
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = args.out.parent / "report.txt"
    python, lib = args.build / build["python"], args.build / build["library_path"]
    argv_run = [python, "-B", "-c", LAUNCH, args.clock, script.resolve(), str(args.n), str(args.m)]
    env = {
        "LD_LIBRARY_PATH": str(lib),
        "precomputing": "1" if args.precomputing == "on" else "0",
        "PYTHONUNBUFFERED": "1",
    }
    print(
        f"[artifact] db_sm_rsm.py {args.n} {args.m} (precomputing {args.precomputing}, clock {args.clock})",
        file=sys.stderr,
        flush=True,
    )
    measured = upstream_run.run_measured(argv_run, args.out.parent, env, text, "[artifact] ")
    passed, statuses, why = verdict(text, measured.returncode)
    tree = build.get("trees", {})
    body = {
        "program": str(SCRIPT),
        "clock": args.clock,
        "report": text.name,
        "exit_status": measured.returncode,
        "statuses": statuses,
        "failed": why,
        "stderr_tail": measured.stderr_tail,
        "artifact": _tree_stamp(args.tree),
        "build": {
            "part": build.get("part"),
            "key": build.get("key"),
            "trees": tree,
            "packages": build.get("packages"),
            "patches": build.get("patches"),
            "interpreter": build.get("interpreter"),
        },
    }
    parameters = {
        "n": args.n,
        "m": args.m,
        "precomputing": args.precomputing,
        "clock": args.clock,
        "threads": 1,
    }
    version = str(body["artifact"].get("commit", "unknown"))[:12]
    upstream_run.write_report(
        args.out, upstream_run.envelope(TOOL, version, BODY_VERSION, passed, parameters, measured, body)
    )
    print(
        f"[artifact] {'PASSED' if passed else 'FAILED: ' + '; '.join(why)} ({len(statuses)} statuses)",
        file=sys.stderr,
        flush=True,
    )
    return upstream_run.PASSED if passed else upstream_run.FAILED


def _tree_stamp(tree: Path) -> dict[str, str]:
    """The artifact tree's record (its commit, and how it was checked)."""
    try:
        data = json.loads((tree / TREE_STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"commit": "unknown", "verified": "no record"}
    return {str(k): str(v) for k, v in data.items()}


if __name__ == "__main__":
    sys.exit(main())
