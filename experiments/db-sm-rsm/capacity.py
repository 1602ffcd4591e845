"""Capacity of db-sm-rsm: how long a mixnet of m mix-servers takes for an election of n ballots on
C cores, and how much memory it needs, from the workflow's cost model (its costs.yaml).

The model is the estimator's (analysis/plan/estimate.py), at the speed of the machine the costs
were fitted on (costs.yaml's `reference`): CPU time from the per-unit costs, wall time on C cores
from it by Amdahl's law with each section's measured parallel fraction and CPU share (the
`parallel` block; one assumed fraction without it), the run using C threads; peak memory from the
memory model. Beside it, the measured runs of a results directory and the model's estimate for
each: its own CPU, wall and peak memory (the report's `resources`, else Snakemake's benchmark),
the model at the run's size and thread count, and the model's error on them.

One code path for the terminal (`python -m analysis capacity`) and the PDF (db-sm-rsm's section):
both draw the same frames and format every cell with the same functions.
"""

from __future__ import annotations

import math
import statistics
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis import experiments, units
from analysis.derive.costs import load_costs, load_planned
from analysis.experiments.db_sm_rsm.capacity_nodes import Overlap, nodes_column, nodes_wall
from analysis.experiments.db_sm_rsm.parser import EXPERIMENT
from analysis.plan.estimate import COSTS_PATH, CostModel
from analysis.runs import Run

DEFAULT_ENTRIES = (100_000, 1_000_000, 10_000_000)
DEFAULT_MIXERS = (4,)
DEFAULT_CORES = (1, 16, 64)
# The run whose capacity is modelled: the suite's default variant, in one process.
DEFAULT_RUN = {"curve": "bn254", "mode": "fast", "security": "128", "transport": "local", "network": "none"}

Formats = dict[str, Callable[[float], str]]


def reference_model(costs_path: Path = COSTS_PATH) -> CostModel:
    """The cost model at the speed of the machine its costs were fitted on (no probe of this one:
    the figures then do not depend on where or when they are printed)."""
    costs = load_costs(costs_path)
    return CostModel(costs, float(costs["reference"]["probe_s"]))


def model_run(n: int, m: int, threads: int) -> Run:
    """A db-sm-rsm run of the default variant, named by the experiment's own scheme."""
    scheme = experiments.get(EXPERIMENT).scheme
    params = {"n": n, "m": m, "threads": threads, **DEFAULT_RUN}
    return Run(EXPERIMENT, scheme.name(params), params)


def wall_column(cores: int) -> str:
    return f"wall, {cores} core{'s' if cores != 1 else ''}"


def capacity_frame(
    model: CostModel,
    entries: Sequence[int] = DEFAULT_ENTRIES,
    mixers: Sequence[int] = DEFAULT_MIXERS,
    cores: Sequence[int] = DEFAULT_CORES,
    overlap: Overlap | None = None,
) -> pd.DataFrame:
    """One row per (n, m): CPU time (one core), wall time on each number of cores (as many threads),
    with `overlap` (runs placed on nodes measured) on m + 1 nodes of that many cores, peak memory
    (GiB)."""
    rows = {}
    for m in mixers:
        for n in entries:
            one = model.estimate(model_run(n, m, 1), cores=1)
            r: dict[str, float] = {"CPU time": one.cpu_s}
            for c in cores:
                r[wall_column(c)] = model.estimate(model_run(n, m, c), cores=c).wall_s
            for c in cores if overlap is not None else ():
                r[nodes_column(c)] = nodes_wall(model, overlap, n, m, c, model_run)
            r["peak memory"] = one.memory_mb / 1024
            rows[f"n = {n:,}, m = {m}"] = r
    return pd.DataFrame.from_dict(rows, orient="index")


def capacity_formats(frame: pd.DataFrame) -> Formats:
    """How each column of capacity_frame prints."""
    out: Formats = {c: units.duration for c in frame.columns if c == "CPU time" or c.startswith("wall")}
    out["peak memory"] = units.gib
    return out


# ---- the model beside measured runs ------------------------------------------------------------------

# Columns of the comparison: each measured figure beside the model's estimate of it.
FIGURES = (("cpu", "CPU"), ("wall", "wall"), ("peak_rss", "memory"))


@dataclass(frozen=True)
class Checked:
    """One measured run beside the model's estimate of it."""

    run: str
    n: int
    m: int
    threads: int
    measured: dict[str, float]  # cpu, wall (s), peak_rss (MiB)
    model: dict[str, float]
    memory_modelled: bool  # whether the memory model describes the run (n large enough)


def _measured(g: pd.DataFrame) -> dict[str, float]:
    """A run's own figures (the report's resources), else Snakemake's (the job's benchmark)."""
    out = {}
    for metric, _ in FIGURES:
        for section, label in (("run", "resources"), ("job", "job")):
            v = g[(g["section"] == section) & (g["label"] == label) & (g["metric"] == metric)]["value"]
            if len(v):
                out[metric] = float(v.iloc[0])
                break
    return out


def _planned_probes(results_dir: Path | None) -> dict[str, float]:
    """The speed probe each run was planned with (results/estimates.json), by run directory."""
    if results_dir is None:
        return {}
    return {k: v["probe_s"] for k, v in load_planned(results_dir).items() if "probe_s" in v}


def checked_runs(df: pd.DataFrame, model: CostModel, results_dir: Path | None = None) -> list[Checked]:
    """Our one-process db-sm-rsm runs in the tidy table, each beside the model's estimate at its
    size and thread count (on as many cores), at the speed the workflow's probe measured when it
    planned the run (results/estimates.json), else at the reference machine's."""
    d = df[
        (df["experiment"] == EXPERIMENT)
        & (df["source"] == "ours")
        & (df["variant"].fillna("local") == "local")
    ]
    probes = _planned_probes(results_dir)
    exp = experiments.get(EXPERIMENT)
    out = []
    for run_id, g in d.groupby("run", sort=True):
        measured = _measured(g)
        params = exp.scheme.parse(str(run_id))
        if not measured or params is None:
            continue
        rep = int(params.pop("rep"))
        run = Run(EXPERIMENT, str(run_id), params, rep)
        probe = probes.get(run.dir)
        at = model if probe is None else CostModel(model.costs, probe)
        threads = int(params["threads"])
        e = at.estimate(run, cores=threads)
        estimated = {"cpu": e.cpu_s, "wall": e.wall_s, "peak_rss": e.memory_mb}
        out.append(Checked(str(run_id), int(params["n"]), int(params["m"]), threads, measured, estimated,
                           exp.memory_modelled(run)))  # fmt: skip
    return out


def checked_frame(checked: Sequence[Checked]) -> pd.DataFrame:
    """One row per run: each figure measured and modelled."""
    rows = {}
    for c in checked:
        r: dict[str, float] = {}
        for metric, words in FIGURES:
            r[f"{words} measured"] = c.measured.get(metric, math.nan)
            r[f"{words} model"] = c.model[metric]
        rows[c.run] = r
    return pd.DataFrame.from_dict(rows, orient="index")


def checked_formats(frame: pd.DataFrame) -> Formats:
    out: Formats = {}
    for c in frame.columns:
        if c.startswith(("CPU", "wall")):
            out[c] = units.duration
        elif c.startswith("memory"):
            out[c] = units.mib
    return out


@dataclass(frozen=True)
class Error:
    """The model's relative error on one figure over the runs it describes."""

    words: str
    runs: int
    median: float  # of |model / measured - 1|
    worst: float

    def text(self) -> str:
        if not self.runs:
            return f"{self.words}: no measured run the model describes"
        return (
            f"{self.words}: median {units.percent(100 * self.median)}, "
            f"largest {units.percent(100 * self.worst)} over {self.runs} run(s)"
        )


def errors(checked: Sequence[Checked]) -> list[Error]:
    """The model's relative error per figure: CPU and wall over every run, memory over the runs
    the memory model describes."""
    out = []
    for metric, words in FIGURES:
        rel = [
            abs(c.model[metric] / c.measured[metric] - 1)
            for c in checked
            if c.measured.get(metric, 0) > 0 and (metric != "peak_rss" or c.memory_modelled)
        ]
        name = words if metric != "peak_rss" else f"peak {words} (the runs it describes)"
        out.append(
            Error(name, len(rel), statistics.median(rel) if rel else math.nan, max(rel, default=math.nan))
        )
    return out


def errors_text(checked: Sequence[Checked]) -> str:
    return (
        "The model's relative error, |model / measured - 1|: "
        + "; ".join(e.text() for e in errors(checked))
        + "."
    )


# ---- words -------------------------------------------------------------------------------------------


def model_words(model: CostModel) -> str:
    """Where the model's figures come from, in one paragraph."""
    ref = model.costs["reference"]
    p = model.parallel(EXPERIMENT)
    threads = (
        f"each section's parallel fraction and CPU share measured ({p.measured})"
        if p.measured
        else "one assumed parallel fraction (no measurement in costs.yaml)"
    )
    fitted = model.costs["experiments"][EXPERIMENT].get("fitted", "")
    return (
        f"Costs fitted on {ref['machine']} ({ref.get('fitted_from', '')}; db-sm-rsm: {fitted}), at that "
        f"machine's speed; wall time on C cores with C threads by Amdahl's law, {threads}. "
        "Beyond the measured thread counts this is an extrapolation: memory bandwidth and the serial "
        "parts of a real machine of many cores may cost more."
    )


def cells(frame: pd.DataFrame, formats: Formats) -> list[list[str]]:
    """Every row of a frame as printed cells (its index first), as the PDF prints them."""
    out = []
    for index, r in frame.iterrows():
        row = [str(index)]
        for col, v in r.items():
            x = float(v)
            row.append(units.MISSING if math.isnan(x) else formats.get(str(col), units.sig3)(x))
        out.append(row)
    return out


def capacity_text(model: CostModel, entries: Sequence[int], mixers: Sequence[int], cores: Sequence[int],
                  checked: Sequence[Checked] | None = None,
                  overlap: Overlap | None = None) -> str:  # fmt: skip
    """What `python -m analysis capacity` prints."""
    from analysis.text import text_table

    frame = capacity_frame(model, entries, mixers, cores, overlap)
    out = [
        "db-sm-rsm capacity (fast mode, 128-bit security, BN254, one process"
        + (", and on nodes" if overlap is not None else "") + ")",
        text_table(["", *frame.columns], cells(frame, capacity_formats(frame))),
        textwrap.fill(model_words(model), 100),
    ]
    if overlap is not None:
        out.append(textwrap.fill(overlap.words(), 100))
    if checked is not None:
        cf = checked_frame(checked)
        out += ["", "Measured runs beside the model (own CPU, wall and peak memory of each run):"]
        out.append(text_table(["run", *cf.columns], cells(cf, checked_formats(cf))) if len(cf) else "(none)")
        out.append(textwrap.fill(errors_text(checked), 100))
    return "\n".join(out)
