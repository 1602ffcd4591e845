"""artifact-db-sm-rsm's synthetic report for the tests: the paper's sample report (the same
program's output) cut to the run's m mixers, its times scaled to the run's n, under the envelope
the driver writes. Its figures exercise the parser and the renderer; they are not measurements."""

from __future__ import annotations

import json
import re
from pathlib import Path

from analysis.runs import Run
from analysis.synthetic import envelope

from .parser import PAPER_FILE

TIME_RE = re.compile(r"^(?P<head>.* time: )(?P<t>[0-9.eE+-]+)(?P<tail> s)$")
MIXER_RE = re.compile(r"^\s+mixer (?P<k>\d+)[: ]")


def report_text(paper_text: str, n: int, m: int, scale: float, fail: str | None) -> str:
    """The sample report at n entries and m mixers: other mixers' lines dropped, times scaled,
    the status `fail` (if any) False."""
    out = []
    for line in paper_text.splitlines():
        if (mk := MIXER_RE.match(line)) is not None and int(mk.group("k")) >= m:
            continue
        if line.strip().startswith("number of entries:"):
            line = line.split(":")[0] + f": {n}"
        elif line.strip().startswith("number of mix-servers:"):
            line = line.split(":")[0] + f": {m}"
        elif (mt := TIME_RE.match(line)) is not None:
            line = f"{mt.group('head')}{float(mt.group('t')) * scale:.2g}{mt.group('tail')}"
        elif fail is not None and line.strip().startswith(fail):
            line = line.replace("True", "False")
        out.append(line)
    return "\n".join(out) + "\n"


def write(out: Path, run: Run, paper_dir: Path, fail: str | None) -> None:
    """One run's report.txt and report.json; `fail` names a status to print False."""
    p = run.params
    scale = p["n"] / 10000 * (0.5 + p["m"] / 8) * 3 * (1 + 0.05 * (run.rep - 1))
    out.mkdir(parents=True, exist_ok=True)
    text = report_text((paper_dir / PAPER_FILE).read_text(encoding="utf-8"), p["n"], p["m"], scale, fail)
    (out / "report.txt").write_text(text, encoding="utf-8")
    statuses = {
        line.split()[0].rstrip(":"): line.split()[-1] == "True"
        for line in text.splitlines()
        if line.strip().startswith("status_")
    }
    failed = [f"{k} is False" for k, v in statuses.items() if not v]
    body = {
        "program": "db-sm-rsm/db_sm_rsm.py",
        "clock": p.get("clock", "cpu"),
        "report": "report.txt",
        "exit_status": 0,
        "statuses": statuses,
        "failed": failed,
        "stderr_tail": [],
        "artifact": {"commit": "c22a0319853b19cce69be264f2250e92dbabeee1", "verified": "synthetic"},
        "build": {
            "part": "python",
            "key": "0" * 64,
            "trees": {},
            "packages": [],
            "patches": [],
            "interpreter": "3.11",
        },
    }
    params = {
        "n": p["n"],
        "m": p["m"],
        "precomputing": p.get("precomputing", "on"),
        "clock": p.get("clock", "cpu"),
        "threads": 1,
    }
    report = envelope("artifact-db-sm-rsm", params, body, passed=not failed, seed=None)
    (out / "report.json").write_text(json.dumps(report), encoding="utf-8")
