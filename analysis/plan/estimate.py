"""How long each job will take and how much memory it will need, before it runs.

The model of each experiment is a sum of measured per-unit costs times the run's sizes
(`features`, which the experiment's descriptor computes: for example seconds per entry and mixer,
per entry and mixer pair, and a fixed part). The coefficients live in `analysis/data/costs.yaml`, fitted by
`python -m analysis costs RESULTS_DIR...` from the CPU time and peak memory Snakemake measured for
real runs (each job's `benchmark.tsv`), on the machine whose speed probe the file records.

On another machine, or on this one at a busier moment, times scale by the ratio of the speed
probe (a few big-number exponentiations, about 0.3 s in all) to the recorded one. Threads divide the
parallel part of a job by min(threads, cores). Memory does not scale with speed.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from analysis import experiments
from analysis.plan.runs import Run, min_threads

COSTS_PATH = Path(__file__).resolve().parents[1] / "data" / "costs.yaml"
# RESULTS/PLANNED_NAME: every measured run's estimate as printed before it ran (record_planned).
PLANNED_NAME = "estimates.json"

# A job claims this much more time than estimated before a scheduler may kill it, plus a floor:
# the estimate is a median, the machine's speed drifts, and a killed run measures nothing.
RUNTIME_FACTOR = 3.0
RUNTIME_FLOOR_MIN = 10
MEMORY_FACTOR = 1.5
MEMORY_FLOOR_MB = 512


def probe_seconds(rounds: int = 3) -> float:
    """Best of `rounds` timings of 6 modular exponentiations with 2048-bit numbers.

    Best-of, because other processes only ever make a round slower; Python's own big integers,
    so the probe needs nothing built.
    """
    rng = random.Random(20240101)
    modulus = rng.getrandbits(2048) | (1 << 2047) | 1
    bases = [rng.getrandbits(2040) for _ in range(6)]
    exponent = rng.getrandbits(2048)
    best = math.inf
    for _ in range(rounds):
        start = time.process_time()
        for b in bases:
            pow(b, exponent, modulus)
        best = min(best, time.process_time() - start)
    return best


@dataclass(frozen=True)
class Estimate:
    run: Run
    cpu_s: float  # CPU seconds on this machine
    wall_s: float  # wall seconds at the run's thread count
    memory_mb: float

    @property
    def runtime_min(self) -> int:
        """Minutes a scheduler should allow the job."""
        return math.ceil(self.wall_s * RUNTIME_FACTOR / 60) + RUNTIME_FLOOR_MIN

    @property
    def mem_mb(self) -> int:
        """Memory a scheduler should reserve for the job."""
        return max(MEMORY_FLOOR_MB, math.ceil(self.memory_mb * MEMORY_FACTOR))


def features(run: Run) -> dict[str, float]:
    """The sizes a run's cost grows with (the names used in costs.yaml), from its experiment's
    descriptor."""
    return experiments.get(run.experiment).features(run)


def variant_keys(run: Run) -> list[str]:
    """Multipliers in costs.yaml that apply to this run (mode, curve, security, hash, circuit,
    transport, network)."""
    p = run.params
    keys = []
    for k in ("mode", "curve", "security", "hash", "circuit", "transport", "network"):
        if k in p:
            keys.append(f"{k}={p[k]}")
    return keys


@dataclass
class CostModel:
    costs: dict[str, Any]
    probe_s: float  # this machine's probe, now

    @classmethod
    def load(cls, path: Path = COSTS_PATH, probe_s: float | None = None) -> CostModel:
        with path.open(encoding="utf-8") as f:
            costs = yaml.safe_load(f)
        return cls(costs, probe_s if probe_s is not None else probe_seconds())

    @property
    def speed_ratio(self) -> float:
        """This machine's time over the reference machine's, for the same CPU work."""
        ref = float(self.costs["reference"]["probe_s"])
        return self.probe_s / ref if ref > 0 else 1.0

    def estimate(self, run: Run) -> Estimate:
        model = self.costs["experiments"][run.experiment]
        f = features(run)
        cpu = sum(float(model["time"].get(k, 0.0)) * v for k, v in f.items())
        mem = sum(float(model["memory_mb"].get(k, 0.0)) * v for k, v in f.items())
        for key in variant_keys(run):
            cpu *= float(model.get("variants", {}).get(key, 1.0))
        cpu *= self.speed_ratio
        threads = min_threads(run)
        parallel = float(model.get("parallel_fraction", 0.9))
        usable = max(1, min(threads, os.cpu_count() or 1))
        wall = cpu * ((1 - parallel) + parallel / usable)
        return Estimate(run, cpu, wall, mem)

    def estimate_all(self, runs: Sequence[Run]) -> list[Estimate]:
        return [self.estimate(r) for r in runs]


def machine_memory_mb() -> float:
    """Total memory of this machine (from /proc/meminfo; the page count elsewhere)."""
    try:
        with Path("/proc/meminfo").open(encoding="ascii") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20


def human_time(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def table(estimates: Sequence[Estimate], model: CostModel, limit_mb: float, reused: int = 0) -> str:
    """The table the workflow prints before it runs anything: the runs it will measure (`reused`
    more are results of earlier invocations, counted in a line of their own)."""
    rows = [("job", "threads", "time", "peak memory")]
    for e in estimates:
        rows.append((e.run.dir, str(e.run.params.get("threads", 1)), human_time(e.wall_s),
                     f"{e.memory_mb:,.0f} MB"))  # fmt: skip
    total = sum(e.wall_s for e in estimates)
    peak = max((e.memory_mb for e in estimates), default=0.0)
    rows.append(("total (one job at a time)", "", human_time(total), f"{peak:,.0f} MB at most"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.insert(len(lines) - 1, "  ".join("-" * w for w in widths))
    if reused:
        lines.append(f"({reused} more run(s) of this configuration reused from earlier invocations)")
    ref = model.costs["reference"]
    lines.append(
        f"Estimated from per-unit costs measured on {ref['machine']} (analysis/data/costs.yaml), "
        f"scaled by this machine's speed probe ({model.probe_s * 1000:.0f} ms against "
        f"{float(ref['probe_s']) * 1000:.0f} ms there: x{model.speed_ratio:.2f}); memory limit "
        f"{limit_mb / 1024:.1f} GiB."
    )
    return "\n".join(lines)


def too_big(estimates: Sequence[Estimate], limit_mb: float) -> list[Estimate]:
    return [e for e in estimates if e.memory_mb > limit_mb]


def write_text_atomically(path: Path, text: str) -> None:
    """Write text to path through a temporary file beside it, so no reader sees half of it."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def record_planned(results: Path, estimates: Sequence[Estimate], probe_s: float) -> Path:
    """Write RESULTS/estimates.json: each run about to be measured, with the estimate printed
    before it and the speed probe behind that estimate.

    A run measured earlier (its benchmark.tsv exists) keeps the record of the invocation that
    ran it, so a later check compares every run with the estimate made when it ran, not with one
    scaled by a probe taken afterwards on a machine whose load has changed since.
    """
    path = results / PLANNED_NAME
    try:
        recorded = json.loads(path.read_text(encoding="utf-8")).get("runs", {})
    except (OSError, ValueError, AttributeError):
        recorded = {}
    runs = {k: v for k, v in recorded.items() if (results / "raw" / k / "benchmark.tsv").exists()}
    for e in estimates:
        if e.run.dir not in runs:
            runs[e.run.dir] = {
                "estimated_one_thread_s": round(e.cpu_s, 3),
                "estimated_wall_s": round(e.wall_s, 3),
                "estimated_memory_mb": round(e.memory_mb, 1),
                "probe_s": round(probe_s, 5),
            }
    results.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, json.dumps({"runs": runs}, indent=2, sort_keys=True) + "\n")
    return path
