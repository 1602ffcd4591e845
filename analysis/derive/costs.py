"""Fit the per-unit costs of the workflow's estimates from real runs.

For every run of the given results directories that has Snakemake's `benchmark.tsv`, the CPU time
and peak memory are regressed on the run's features (analysis/plan/estimate.py) by non-negative
least squares: a coefficient that would come out negative is dropped and the rest refitted.
Peak memory is the program's own figure from its report's envelope (`resources.peak_rss_mib`)
where it has one (Snakemake's sampled maximum otherwise), and the memory fit uses only the runs
the experiment's memory model describes (its descriptor's `memory_modelled`).
Runs of the default variant (fast mode, BN254, 128-bit security, Poseidon, the paper's circuit)
fit the base coefficients (or, when the runs cannot tell the features apart, correct their level
only); every other variant gets a multiplier, the median of its runs' measured over
predicted time. Every run's time is first brought to the file's reference speed by the speed
probe recorded when the workflow planned it (results/estimates.json; a run without a record is
scaled by the probe now, so fit such runs soon after making them, on the same machine).
With `parallel` results directories (pairs of runs at 1 and more threads), the `parallel` block
of the experiment whose descriptor fits one (its `fit_parallel` field) is refitted too.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from analysis import experiments
from analysis.config import for_results
from analysis.errors import ConfigError, ReportError
from analysis.experiments import plan
from analysis.parse.common import load_json, num, parse_benchmark
from analysis.plan.estimate import (
    COSTS_PATH,
    FOLDER_COSTS,
    PLANNED_NAME,
    features,
    load_cost_files,
    probe_seconds,
    variant_keys,
    write_text_atomically,
)
from analysis.runs import Run

DEFAULT_VARIANTS = {
    "mode=fast", "curve=bn254", "security=128", "hash=poseidon", "circuit=zokrates",
    "transport=local", "network=none",
}  # fmt: skip


@dataclass
class Sample:
    run: Run
    time_s: float  # the experiment's measure of time (`measure` in costs.yaml): CPU or wall seconds
    rss_mib: float
    planned: dict[str, float]  # the estimate printed before the run, and its probe (may be empty)


def load_planned(results: Path) -> dict[str, dict[str, float]]:
    """RESULTS/estimates.json's runs (empty when the workflow never started a job there)."""
    path = results / PLANNED_NAME
    if not path.exists():
        return {}
    try:
        runs = json.loads(path.read_text(encoding="utf-8"))["runs"]
        return {str(k): {str(f): float(x) for f, x in v.items()} for k, v in runs.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ConfigError(f"{path}: not an estimates record of the workflow ({e})") from e


def time_measure(costs: dict[str, Any], experiment: str) -> str:
    """ "cpu" (the job's CPU time, the default) or "wall": for jobs of many short-lived processes
    (node provers, party and node processes), whose CPU time Snakemake's sampling partly misses,
    the wall time of the job, which then also counts waiting on a busy machine."""
    return str(costs["experiments"].get(experiment, {}).get("measure", "cpu"))


def own_resources(report: Path) -> dict[str, float]:
    """The program's own figures from its report's envelope (`resources`): wall, CPU (its own and
    its children's) and peak RSS, by the names parse_benchmark uses; empty for a report without
    them (a program that writes no envelope)."""
    if not report.exists():
        return {}
    try:
        res = load_json(report).get("resources")
    except ReportError:
        return {}
    if not isinstance(res, dict):
        return {}
    out: dict[str, float] = {}
    if (wall := num(res.get("wall_s"))) is not None:
        out["wall"] = wall
    if (cpu := num(res.get("cpu_s"))) is not None:
        out["cpu"] = cpu + (num(res.get("cpu_children_s")) or 0.0)
    if (rss := num(res.get("peak_rss_mib"))) is not None and rss > 0:
        out["peak_rss"] = rss
    return out


def samples(dirs: Sequence[Path], costs: dict[str, Any]) -> dict[str, list[Sample]]:
    """Every run with a measured time: Snakemake's (benchmark.tsv), else the report's own; peak
    memory from the report where it has it (the program's own high-water mark), else Snakemake's."""
    out: dict[str, list[Sample]] = {}
    for d in dirs:
        rc = for_results(d)
        if not rc.config or rc.runs is None:
            raise ConfigError(f"{d}: no config.json of a workflow run (needed to know the runs' parameters)")
        planned = load_planned(d)
        for experiment, runs in plan(rc.config).items():
            for run in runs:
                bench = d / "raw" / run.dir / "benchmark.tsv"
                b = parse_benchmark(bench) if bench.exists() else {}
                own = own_resources(d / "raw" / run.dir / "report.json")
                measure = time_measure(costs, experiment)
                time_s = b.get(measure, own.get(measure))
                if time_s is None:
                    continue
                rss = own.get("peak_rss", b.get("peak_rss", float("nan")))
                out.setdefault(experiment, []).append(Sample(run, time_s, rss, planned.get(run.dir, {})))
    return out


def nnls(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least squares with every coefficient >= 0 (drop the negative ones and refit)."""
    active = list(range(x.shape[1]))
    coef = np.zeros(x.shape[1])
    while active:
        sol, *_ = np.linalg.lstsq(x[:, active], y, rcond=None)
        if (sol >= 0).all():
            coef[active] = sol
            return coef
        active = [a for a, s in zip(active, sol, strict=True) if s >= 0]
    return coef


@dataclass
class Fitted:
    coef: dict[str, float]
    how: str  # "least squares" or "scaled xF" (the runs do not tell the features apart)


def fit(samples_: list[Sample], value: str, prior: dict[str, float], scale: dict[str, float]) -> Fitted:
    """Coefficients of `value` (time_s or rss_mib) over the features `prior` names, each run's
    value times its `scale` (by run dir; 1 when absent).

    When the runs' feature vectors determine every coefficient (full column rank), relative least
    squares: each run's row divided by its value, so a smoke run's seconds weigh as much as a
    default run's hour. Otherwise (e.g. runs of one size only) the prior's shape is kept and only
    its level corrected: every coefficient times the median of measured over predicted.
    """
    base = [s for s in samples_ if set(variant_keys(s.run)) <= DEFAULT_VARIANTS] or samples_
    names = sorted(prior) or sorted({k for s in base for k in features(s.run)})
    x = np.array([[features(s.run).get(k, 0.0) for k in names] for s in base])
    y = np.array([getattr(s, value) * scale.get(s.run.dir, 1.0) for s in base])
    ok = ~np.isnan(y) & (y > 0)
    x, y = x[ok], y[ok]
    if len(y) and np.linalg.matrix_rank(x) == len(names):
        coef = nnls(x / y[:, None], np.ones(len(y)))
        return Fitted(
            {k: float(round(c, 9)) for k, c in zip(names, coef, strict=True) if c > 0}, "least squares"
        )
    predicted = x @ np.array([float(prior.get(k, 0.0)) for k in names])
    ratios = y[predicted > 0] / predicted[predicted > 0]
    factor = float(np.median(ratios)) if len(ratios) else 1.0
    coef_s = {k: float(round(float(c) * factor, 9)) for k, c in prior.items()}
    return Fitted(coef_s, f"scaled x{factor:.3g}")


def predict(coef: dict[str, float], run: Run) -> float:
    return sum(coef.get(k, 0.0) * v for k, v in features(run).items())


def variants(samples_: list[Sample], coef: dict[str, float], scale: dict[str, float]) -> dict[str, float]:
    """Each non-default variant's multiplier: the median of its runs' measured over predicted time."""
    out: dict[str, float] = {}
    keys = {k for s in samples_ for k in variant_keys(s.run)} - DEFAULT_VARIANTS
    for key in sorted(keys):
        ratios = [
            s.time_s * scale.get(s.run.dir, 1.0) / p
            for s in samples_
            if key in variant_keys(s.run) and (p := predict(coef, s.run)) > 0
        ]
        if ratios:
            out[key] = float(round(np.median(ratios), 3))
    return out


def machine_line() -> str:
    """This machine in one line: CPU model, logical CPUs and memory."""
    import os

    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    from analysis.plan.estimate import machine_memory_mb

    return f"{model}, {os.cpu_count()} logical CPUs, {machine_memory_mb() / 1024:.0f} GiB"


def load_costs(costs_path: Path = COSTS_PATH) -> dict[str, Any]:
    """The cost model: the reference of `costs_path`, each experiment's block from its folder."""
    return load_cost_files(costs_path)


FOLDER_HEADER = (
    "# {name}'s cost model: seconds at one thread and peak memory (MB) per unit of the features its\n"
    "# descriptor's `features(run)` gives, on the reference machine of analysis/data/costs.yaml.\n"
    "# Refitted by `python -m analysis costs --in-place RESULTS_DIR...` from real runs.\n"
)


def write_in_place(
    costs: dict[str, Any], costs_path: Path = COSTS_PATH, folders: Path | None = None
) -> list[Path]:
    """Write a cost model where the estimator reads it: each experiment's block into its folder
    (under `folders` instead, named by the experiment, for a test), the reference (and nothing
    else) into `costs_path`."""
    written = []
    for name, block in costs.get("experiments", {}).items():
        folder = experiments.get(name).folder if folders is None else folders / name
        folder.mkdir(parents=True, exist_ok=True)
        own = folder / FOLDER_COSTS
        write_text_atomically(own, FOLDER_HEADER.format(name=name) + yaml.safe_dump(block, sort_keys=False))
        written.append(own)
    shared = {k: v for k, v in costs.items() if k != "experiments"}
    write_text_atomically(costs_path, costs_text(shared, costs_path))
    written.append(costs_path)
    return written


def costs_text(costs: dict[str, Any], costs_path: Path = COSTS_PATH) -> str:
    """costs.yaml's text: the file's comment header, then the costs."""
    header = "".join(
        line for line in costs_path.read_text(encoding="utf-8").splitlines(True) if line.startswith("#")
    )
    return header + yaml.safe_dump(costs, sort_keys=False, allow_unicode=True)


@dataclass
class Refitted:
    text: str  # the new cost model as one file (the reference and every experiment's block)
    summary: list[str]  # what was fitted, for the terminal
    costs: dict[str, Any]  # the same, to write in place (`write_in_place`)


def refit_costs(dirs: Sequence[Path], costs_path: Path = COSTS_PATH, parallel: Sequence[Path] = (),
                shares_from: Sequence[Path] = ()) -> Refitted:  # fmt: skip
    """The costs.yaml text with every experiment that has runs in `dirs` refitted (time, memory,
    variants), and with `parallel` directories, the parallel block of the experiment that fits
    one (fractions from their pairs, CPU shares from theirs or from the largest runs in
    `shares_from`)."""
    if not dirs and not parallel:
        raise ConfigError("give results directories to fit, or --parallel directories of paired runs")
    costs = load_costs(costs_path)
    summary = []
    if dirs:
        summary.append(fit_into(costs, dirs))
    if parallel:
        fitters = [(e.name, e.fit_parallel) for e in experiments.all_experiments() if e.fit_parallel]
        if len(fitters) != 1:
            raise ConfigError(f"--parallel: {len(fitters)} experiments fit a parallel block, not one")
        name, fit = fitters[0]
        block, text = fit(parallel, shares_from)
        costs["experiments"].setdefault(name, {})["parallel"] = block
        summary.append(text)
    return Refitted(costs_text(costs, costs_path), summary, costs)


def fit_costs(dirs: Sequence[Path], costs_path: Path = COSTS_PATH) -> str:
    """The costs.yaml text: the current file with every experiment that has runs refitted."""
    return refit_costs(dirs, costs_path).text


def fit_into(costs: dict[str, Any], dirs: Sequence[Path]) -> str:
    """Refit, in `costs`, every experiment that has runs in `dirs`; a line per experiment says how."""
    found = samples(dirs, costs)
    if not found:
        where = ", ".join(map(str, dirs))
        raise ConfigError(f"no run with a benchmark.tsv or a report's resources in {where}")
    # Every run's time brought to the file's reference speed by the probe taken when the run
    # was planned (a run with no record: the probe now), so experiments not refitted keep theirs.
    now = probe_seconds()
    reference = float(costs["reference"]["probe_s"])
    scale = {s.run.dir: reference / s.planned.get("probe_s", now) for ss in found.values() for s in ss}
    for experiment, ss in found.items():
        model = costs["experiments"].setdefault(experiment, {})
        time_fit = fit(ss, "time_s", model.get("time", {}), scale)
        model["time"] = time_fit.coef
        memory_how = "kept (the sampling misses short-lived processes)"
        if time_measure(costs, experiment) == "cpu":
            modelled = [s for s in ss if experiments.get(experiment).memory_modelled(s.run)]
            if modelled:
                memory_fit = fit(modelled, "rss_mib", model.get("memory_mb", {}), {})
                model["memory_mb"] = memory_fit.coef
                memory_how = f"{memory_fit.how} on the {len(modelled)} run(s) the memory model describes"
            else:
                memory_how = "kept (no run the memory model describes)"
        v = variants(ss, model["time"], scale)
        if v:
            model["variants"] = {**model.get("variants", {}), **v}
        model["fitted"] = f"{len(ss)} runs; time {time_fit.how}, memory {memory_how}"
        model.pop("fitted_runs", None)
    costs["reference"]["machine"] = machine_line()
    runs = sum(len(s) for s in found.values())
    costs["reference"]["fitted_from"] = f"{runs} runs in {len(dirs)} results directories ({dt.date.today()})"
    return "\n".join(
        f"{e}: {costs['experiments'][e]['fitted']}; time {costs['experiments'][e]['time']}, "
        f"memory_mb {costs['experiments'][e]['memory_mb']}"
        for e in found
    )


@dataclass
class Check:
    """One run's estimate beside what Snakemake measured for its job."""

    run: Run
    measure: str  # "cpu" or "wall" (time_measure)
    estimated_s: float
    measured_s: float

    @property
    def ratio(self) -> float:
        """Measured over estimated time (1 = exact)."""
        return self.measured_s / self.estimated_s if self.estimated_s > 0 else float("inf")


def check_estimates(dirs: Sequence[Path], costs_path: Path = COSTS_PATH) -> list[Check]:
    """Every measured run of the given results directories beside the time estimated for it
    (one thread's, in its experiment's measure): the estimate the workflow printed before the run
    (RESULTS/estimates.json), or for a run with no record, the estimate on this machine now."""
    from analysis.plan.estimate import CostModel

    costs = load_costs(costs_path)
    found = [s for ss in samples(dirs, costs).values() for s in ss]
    unrecorded = any("estimated_one_thread_s" not in s.planned for s in found)
    model = CostModel(costs, probe_seconds()) if unrecorded else None

    def estimated(s: Sample) -> float:
        if "estimated_one_thread_s" in s.planned:
            return s.planned["estimated_one_thread_s"]
        assert model is not None
        return model.estimate(s.run).cpu_s

    return [Check(s.run, time_measure(costs, s.run.experiment), estimated(s), s.time_s) for s in found]


def estimates_text(checks: Sequence[Check]) -> str:
    """A table of runs: estimated and measured seconds (CPU, or wall where the experiment's
    measure is wall) and their ratio."""
    from analysis.text import text_table

    rows = [
        [c.run.dir, c.measure, f"{c.estimated_s:,.1f}", f"{c.measured_s:,.1f}", f"{c.ratio:.2f}"]
        for c in sorted(checks, key=lambda c: c.run.dir)
    ]
    return text_table(["run", "time", "estimated s", "measured s", "measured/estimated"], rows)
