"""cmix's synthetic report for the tests: the crate's sample report, cut to the run."""

from __future__ import annotations

import json
from pathlib import Path

from analysis.runs import Run
from analysis.synthetic import MACHINE, write_sample

CMIX_SAMPLE = Path(__file__).resolve().parents[2] / "cmix/data/sample-report.json"


def cmix_json(out: Path, run: Run, fail: str | None) -> Path:
    """The crate's sample report (a real cmix-bench run at 500 clients, one and two threads),
    cut to the run's groups and thread counts and relabelled with its number of clients; `fail`
    names a group whose first run lost a message."""
    ref = json.loads(CMIX_SAMPLE.read_text())
    body = ref["body"]
    clients, groups, threads = run.params["clients"], run.extra["groups"], run.extra["threads"]
    keep = [r for r in body["runs"] if r["group"] in groups and r["threads"] in threads]
    for r in keep:
        r["clients"] = clients
    if fail is not None:
        bad = next(r for r in keep if r["group"] == fail)
        bad["status"] = "FAILED"
        bad["checks"]["delivered_exactly_once"] = False
        bad["checks"]["problems"] = ["slot 3: delivered twice"]
        ref["passed"] = False
    body["runs"] = keep
    body["groups"] = [g for g in body["groups"] if g["label"] in groups]
    body["comparison"] = [
        dict(c, clients=clients)
        for c in body["comparison"]
        if c["threads"] in threads and c["mg_variant"] in groups
    ]
    ref["parameters"].update(clients=[clients], groups=groups, threads=threads)
    ref["machine"] = {k: v for k, v in MACHINE.items() if k != "load_avg_1m"}
    return write_sample(out, ref)


def write(out: Path, run: Run, paper_dir: Path, fail: str | None) -> None:
    """One run's report; `fail` names a group whose first run lost a message."""
    cmix_json(out, run, fail)
