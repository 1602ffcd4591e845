"""The one tidy results table: every measurement of every run, ours and the published ones.

Everything the PDF shows is derived from this table: the paper's sample reports (and each
experiment's published reference figures) enter it with their own `source`, so "paper beside
ours" is a selection, not a special case. Only the runs the configuration asked for
(results/config.json) are read; other runs lying in `results/raw` are listed, not mixed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.config import RunConfig
from analysis.errors import ConfigError, ReportError
from analysis.experiments import parse_run_id
from analysis.parse.common import COLUMNS, Parsed, RunInfo, runner_of
from analysis.registry import EXPERIMENTS, PARSERS

INT_COLUMNS = ("n", "m", "threads", "rep")
FLOAT_COLUMNS = ("value",)
BOOL_COLUMNS = ("run_ok",)


@dataclass
class Collection:
    df: pd.DataFrame
    runs: list[RunInfo]
    notes: list[str]
    present: dict[str, list[str]]  # experiment -> sources present ("ours", "paper", ...)
    # Run directories found under results/raw that this configuration did not ask for.
    unconfigured: list[str]


def to_frame(rows: list[dict]) -> pd.DataFrame:  # type: ignore[type-arg]
    for r in rows:
        r.setdefault("rep", 1)
    df = pd.DataFrame(rows, columns=COLUMNS)
    for c in INT_COLUMNS:
        df[c] = pd.array(df[c].tolist(), dtype="Int64")
    df["value"] = df["value"].astype(float)
    df["run_ok"] = df["run_ok"].astype(bool)
    for c in COLUMNS:
        if c not in INT_COLUMNS + FLOAT_COLUMNS + BOOL_COLUMNS:
            df[c] = df[c].astype("string")
    return df


def _run_dirs(raw: Path, experiment: str) -> list[str]:
    root = raw / experiment
    return sorted(d.name for d in root.iterdir() if d.is_dir()) if root.is_dir() else []


def collect_ours(results_dir: Path, rc: RunConfig) -> tuple[Parsed, list[str]]:
    """The configured runs (or, without a config.json, every run present) and the others."""
    raw = results_dir / "raw"
    out = Parsed()
    unconfigured: list[str] = []
    for experiment in EXPERIMENTS:
        present = _run_dirs(raw, experiment)
        if rc.runs is None:
            wanted = [r for r in present if parse_run_id(experiment, r) is not None]
        else:
            wanted = rc.runs.get(experiment, [])
        unconfigured += [f"{experiment}/{r}" for r in present if r not in wanted]
        for run_id in wanted:
            params = parse_run_id(experiment, run_id)
            if params is None:
                raise ConfigError(f"{experiment}: {run_id!r} is not a run directory name of this suite")
            parsed = PARSERS[experiment].load_run(raw / experiment / run_id, run_id, params)
            for r in parsed.rows:
                r["rep"] = params["rep"]
            runner = runner_of(raw / experiment / run_id / "report.json")
            for info in parsed.runs:
                info.runner = runner
            out.add(parsed)
    return out, unconfigured


def collect_reference(experiments: list[str], paper_dir: Path) -> Parsed:
    out = Parsed()
    for experiment in experiments:
        out.add(PARSERS[experiment].load_reference(paper_dir))
    return out


def collect(results_dir: Path | None, paper_dir: Path | None, rc: RunConfig | None = None,
            experiments: list[str] | None = None) -> Collection:  # fmt: skip
    """Parse the configured runs and the published figures of their experiments.

    A malformed report raises ReportError (file, line, expected); a missing published file too.
    Without a paper_dir, only our runs are read (tests of the parsers use that).
    """
    rc = rc or RunConfig()
    if experiments is None:
        experiments = list(rc.config.get("experiments") or EXPERIMENTS)
    if results_dir is not None and not (results_dir / "raw").is_dir() and rc.runs is None:
        raise ConfigError(f"{results_dir}: no raw/ directory of runs")
    parsed = collect_reference(experiments, paper_dir) if paper_dir is not None else Parsed()
    unconfigured: list[str] = []
    if results_dir is not None:
        ours, unconfigured = collect_ours(results_dir, rc)
        parsed.add(ours)
        if not ours.runs:
            raise ConfigError(f"{results_dir}: no finished run of ours in {results_dir / 'raw'}")
    df = to_frame(parsed.rows)
    present = {e: sorted({r.source for r in parsed.runs if r.experiment == e}) for e in experiments}
    return Collection(df, parsed.runs, parsed.notes, present, unconfigured)


def write_tidy(df: pd.DataFrame, results_dir: Path) -> tuple[Path, Path]:
    """Write tidy.csv and tidy.parquet atomically (temp file, then rename)."""
    results_dir.mkdir(parents=True, exist_ok=True)
    csv = results_dir / "tidy.csv"
    pq = results_dir / "tidy.parquet"
    tmp_csv = csv.with_suffix(".csv.tmp")
    tmp_pq = pq.with_suffix(".parquet.tmp")
    df.to_csv(tmp_csv, index=False)
    df.to_parquet(tmp_pq, index=False)
    tmp_csv.replace(csv)
    tmp_pq.replace(pq)
    return csv, pq


__all__ = ["Collection", "ReportError", "RunInfo", "collect", "to_frame", "write_tidy"]
