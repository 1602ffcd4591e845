"""Fit the per-unit costs of the workflow's estimates from real runs.

For every run of the given results directories that has Snakemake's `benchmark.tsv`, the CPU time
and peak memory are regressed on the run's features (analysis/plan/estimate.py) by non-negative
least squares: a coefficient that would come out negative is dropped and the rest refitted.
Runs of the default variant (fast mode, BN254, 128-bit security, Poseidon) fit the base
coefficients; every other variant gets a multiplier, the median of its runs' measured over
predicted time. The fit records this machine's speed probe as the reference: run it on the
machine that made the runs, soon after them.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from analysis.config import for_results
from analysis.errors import ConfigError
from analysis.parse.common import parse_benchmark
from analysis.plan.estimate import COSTS_PATH, PLANNED_NAME, features, probe_seconds, variant_keys
from analysis.plan.runs import Run, plan

DEFAULT_VARIANTS = {"mode=fast", "curve=bn254", "security=128", "hash=poseidon"}


@dataclass
class Sample:
    run: Run
    cpu_s: float
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


def samples(dirs: Sequence[Path]) -> dict[str, list[Sample]]:
    out: dict[str, list[Sample]] = {}
    for d in dirs:
        rc = for_results(d)
        if not rc.config or rc.runs is None:
            raise ConfigError(f"{d}: no config.json of a workflow run (needed to know the runs' parameters)")
        planned = load_planned(d)
        for experiment, runs in plan(rc.config).items():
            for run in runs:
                bench = d / "raw" / run.dir / "benchmark.tsv"
                if not bench.exists():
                    continue
                b = parse_benchmark(bench)
                if "cpu" not in b:
                    continue
                rss = b.get("peak_rss", float("nan"))
                out.setdefault(experiment, []).append(Sample(run, b["cpu"], rss, planned.get(run.dir, {})))
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


def fit(samples_: list[Sample], value: str, scale: dict[str, float] | None = None) -> dict[str, float]:
    """Coefficients of `value` (cpu_s or rss_mib) over the runs' features, each run's value times
    its `scale` (by run dir; 1 when absent). Relative least squares: each run's row is divided by
    its value, so a smoke run's seconds weigh as much as a default run's hour."""
    base = [s for s in samples_ if set(variant_keys(s.run)) <= DEFAULT_VARIANTS] or samples_
    names = sorted({k for s in base for k in features(s.run)})
    x = np.array([[features(s.run).get(k, 0.0) for k in names] for s in base])
    y = np.array([getattr(s, value) * (scale or {}).get(s.run.dir, 1.0) for s in base])
    ok = ~np.isnan(y) & (y > 0)
    coef = nnls(x[ok] / y[ok, None], np.ones(int(ok.sum()))) if ok.any() else np.zeros(len(names))
    return {k: float(round(c, 9)) for k, c in zip(names, coef, strict=True) if c > 0}


def predict(coef: dict[str, float], run: Run) -> float:
    return sum(coef.get(k, 0.0) * v for k, v in features(run).items())


def variants(samples_: list[Sample], coef: dict[str, float], scale: dict[str, float]) -> dict[str, float]:
    """Each non-default variant's multiplier: the median of its runs' measured over predicted time."""
    out: dict[str, float] = {}
    keys = {k for s in samples_ for k in variant_keys(s.run)} - DEFAULT_VARIANTS
    for key in sorted(keys):
        ratios = [
            s.cpu_s * scale.get(s.run.dir, 1.0) / p
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


def fit_costs(dirs: Sequence[Path], costs_path: Path = COSTS_PATH) -> str:
    """The costs.yaml text: the current file with every experiment that has runs refitted."""
    with costs_path.open(encoding="utf-8") as f:
        costs = yaml.safe_load(f)
    found = samples(dirs)
    if not found:
        raise ConfigError("no run with a benchmark.tsv in " + ", ".join(map(str, dirs)))
    # Every run's CPU time brought to one speed: the median of the probes taken when the runs
    # were planned (a run with no record: the probe now).
    now = probe_seconds()
    probes = {s.run.dir: s.planned.get("probe_s", now) for ss in found.values() for s in ss}
    reference = float(np.median(list(probes.values())))
    scale = {k: reference / p for k, p in probes.items()}
    for experiment, ss in found.items():
        model = costs["experiments"].setdefault(experiment, {})
        model["time"] = fit(ss, "cpu_s", scale)
        model["memory_mb"] = fit(ss, "rss_mib")
        v = variants(ss, model["time"], scale)
        if v:
            model["variants"] = {**model.get("variants", {}), **v}
        model["fitted_runs"] = len(ss)
    costs["reference"]["probe_s"] = round(reference, 4)
    costs["reference"]["machine"] = machine_line()
    costs["reference"]["fitted_from"] = (
        f"{sum(len(s) for s in found.values())} runs in {', '.join(d.name for d in dirs)} "
        f"({dt.date.today().isoformat()})"
    )
    header = "".join(
        line for line in costs_path.read_text(encoding="utf-8").splitlines(True) if line.startswith("#")
    )
    return header + yaml.safe_dump(costs, sort_keys=False)


@dataclass
class Check:
    """One run's estimate beside what Snakemake measured for its job."""

    run: Run
    estimated_cpu_s: float
    measured_cpu_s: float

    @property
    def ratio(self) -> float:
        """Measured over estimated CPU time (1 = exact)."""
        return self.measured_cpu_s / self.estimated_cpu_s if self.estimated_cpu_s > 0 else float("inf")


def check_estimates(dirs: Sequence[Path], costs_path: Path = COSTS_PATH) -> list[Check]:
    """Every measured run of the given results directories beside the CPU time estimated for it:
    the estimate the workflow printed before the run (RESULTS/estimates.json), or for a run with
    no record, the estimate on this machine now."""
    from analysis.plan.estimate import CostModel

    found = [s for ss in samples(dirs).values() for s in ss]
    model = CostModel.load(costs_path) if any("estimated_cpu_s" not in s.planned for s in found) else None

    def estimated(s: Sample) -> float:
        if "estimated_cpu_s" in s.planned:
            return s.planned["estimated_cpu_s"]
        assert model is not None
        return model.estimate(s.run).cpu_s

    return [Check(s.run, estimated(s), s.cpu_s) for s in found]


def estimates_text(checks: Sequence[Check]) -> str:
    """A table of runs: estimated and measured CPU seconds and their ratio."""
    from analysis.cli import text_table

    rows = [
        [c.run.dir, f"{c.estimated_cpu_s:,.1f}", f"{c.measured_cpu_s:,.1f}", f"{c.ratio:.2f}"]
        for c in sorted(checks, key=lambda c: c.run.dir)
    ]
    return text_table(["run", "estimated CPU s", "measured CPU s", "measured/estimated"], rows)
