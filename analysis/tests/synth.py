"""Small synthetic results directories, laid out as the workflow lays them out, for tests.

`make_results` plans the runs of a configuration with the workflow's own planner and writes, for
each, the synthetic report its experiment's folder makes (`experiments/<name>/synthetic.py`),
plus `config.json`. They exercise the parsers and the renderer; they are not measurements.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from analysis import experiments
from analysis import runs as plan_runs
from analysis.plan import settings
from analysis.synthetic import PROVENANCE, SEED

__all__ = ["PROVENANCE", "SEED", "config", "make_results", "write_run"]


def config(**overrides: Any) -> dict[str, Any]:
    """A checked configuration: the schema's defaults with the given keys changed."""
    cfg: dict[str, Any] = dict(overrides)
    settings.check(cfg)
    return cfg


def write_run(raw: Path, run: plan_runs.Run, paper_dir: Path, fail: Mapping[str, str]) -> None:
    """One run's report, by its experiment's folder; `fail` maps run ids to what to fail there
    (a status, a prover's status, a group, a part: see each folder's `synthetic.write`)."""
    module = experiments.get(run.experiment).synthetic
    try:
        writer = importlib.import_module(module)
    except ModuleNotFoundError:
        raise LookupError(f"experiment {run.experiment} has no synthetic report ({module})") from None
    writer.write(raw / run.experiment / run.id, run, paper_dir, fail.get(run.id))


def make_results(root: Path, paper_dir: Path, cfg: dict[str, Any] | None = None,
                 fail: Mapping[str, str] | None = None) -> Path:  # fmt: skip
    """A results/ tree of every run of the configuration, and its config.json."""
    cfg = cfg if cfg is not None else config(entries=100, sweep_entries=[200], sweep_mixers=[2])
    planned = experiments.plan(cfg)
    for runs in planned.values():
        for run in runs:
            write_run(root / "raw", run, paper_dir, fail or {})
    (root / "config.json").write_text(json.dumps({
        "config": cfg, "runs": {e: [r.id for r in rs] for e, rs in planned.items()}, "provenance": PROVENANCE,
    }))  # fmt: skip
    return root
