"""How long each job will take and how much memory it will need, before it runs.

The model of each experiment is a sum of measured per-unit costs times the run's sizes
(`features`, which the experiment's descriptor computes: for example seconds per entry and mixer,
per entry and mixer pair, and a fixed part). The coefficients live in each experiment's folder
(`costs.yaml`), fitted by `python -m analysis costs --in-place RESULTS_DIR...` from the CPU
time and peak memory Snakemake measured for real runs (each job's `benchmark.tsv`), on the
machine whose speed probe analysis/data/costs.yaml records.

On another machine, or on this one at a busier moment, times scale by the ratio of the speed
probe (a few big-number exponentiations, about 0.3 s in all) to the recorded one. Threads divide the
parallel part of a job by min(threads, cores) (Amdahl's law): where costs.yaml holds a measured
`parallel` block, per section, each section's share of the CPU time with its own measured parallel
fraction; otherwise one assumed `parallel_fraction` for the whole job. Memory does not scale with
speed.
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
from analysis.runs import Run, min_threads

COSTS_PATH = Path(__file__).resolve().parents[1] / "data" / "costs.yaml"
FOLDER_COSTS = "costs.yaml"  # an experiment's own block, in its folder


def load_cost_files(path: Path = COSTS_PATH) -> dict[str, Any]:
    """The cost model: the reference machine of `path` (analysis/data/costs.yaml) and each
    experiment's block from its folder (`experiments/<name>/costs.yaml`). A block `path` itself
    holds under `experiments` wins over the folder's (a whole file given to try a refit)."""
    try:
        with path.open(encoding="utf-8") as f:
            costs: dict[str, Any] = yaml.safe_load(f) or {}
    except (OSError, yaml.YAMLError) as e:
        raise ValueError(f"{path}: cannot be read as a cost model ({e})") from None
    blocks = costs.setdefault("experiments", {}) or {}
    costs["experiments"] = blocks
    for e in experiments.all_experiments():
        own = e.folder / FOLDER_COSTS
        if e.name in blocks or not own.is_file():
            continue
        try:
            block = yaml.safe_load(own.read_text(encoding="utf-8"))
        except yaml.YAMLError as err:
            raise ValueError(f"{own}: not valid YAML ({err})") from None
        if not isinstance(block, dict) or "time" not in block or "memory_mb" not in block:
            raise ValueError(f"{own}: an experiment's cost block needs `time` and `memory_mb`")
        blocks[e.name] = block
    return costs
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


@dataclass(frozen=True)
class Parallel:
    """How a job's CPU time spreads over threads: each part's share of the CPU time and its
    parallel fraction (the share of that part's one-thread time that threads divide), by name;
    `measured` says where the fractions were measured (None: one assumed fraction)."""

    parts: dict[str, tuple[float, float]]  # name -> (share of the CPU time, parallel fraction)
    measured: str | None

    def wall_factor(self, usable: int) -> float:
        """Wall time over one-thread CPU time on `usable` threads with a core each (Amdahl's law,
        part by part)."""
        return sum(share * ((1 - f) + f / usable) for share, f in self.parts.values())


def parallel_of(experiment: str, model: dict[str, Any]) -> Parallel:
    """An experiment's parallel model from its costs.yaml block: the measured `parallel` block's
    sections where it has one, else the single assumed `parallel_fraction`."""
    block = model.get("parallel") or {}
    sections = block.get("sections") or {}
    if not sections:
        return Parallel({"job": (1.0, float(model.get("parallel_fraction", 0.9)))}, None)
    parts: dict[str, tuple[float, float]] = {}
    for name, sec in sections.items():
        try:
            share, f = float(sec["cpu_share"]), float(sec["fraction"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(
                f"{COSTS_PATH.name}: {experiment}'s parallel section {name!r} needs the numbers "
                "cpu_share and fraction"
            ) from None
        if share < 0 or not 0 <= f <= 1:
            raise ValueError(
                f"{COSTS_PATH.name}: {experiment}'s parallel section {name!r}: cpu_share must be >= 0 and "
                f"fraction within [0, 1], not {share} and {f}"
            )
        parts[str(name)] = (share, f)
    total = sum(share for share, _ in parts.values())
    if total <= 0:
        raise ValueError(f"{COSTS_PATH.name}: {experiment}'s parallel sections have no CPU share")
    return Parallel({k: (share / total, f) for k, (share, f) in parts.items()}, measured_words(block))


def measured_words(block: dict[str, Any]) -> str:
    """Where a measured parallel block comes from, in a few words for the estimate's footer."""
    load = block.get("load") or {}
    load_text = (
        f", one-minute load {float(load['min']):.1f} to {float(load['max']):.1f}"
        if isinstance(load, dict) and {"min", "max"} <= load.keys()
        else ""
    )
    threads = " and ".join(map(str, block.get("threads") or ["?"]))
    machine = block.get("machine", "an unrecorded machine")
    return (
        f"{block.get('pairs', '?')} pair(s) of runs at {threads} threads, n = {block.get('n', '?')}, "
        f"m = {block.get('m', '?')}, on {machine} ({block.get('date', 'undated')}{load_text})"
    )


@dataclass
class CostModel:
    costs: dict[str, Any]
    probe_s: float  # this machine's probe, now

    @classmethod
    def load(cls, path: Path = COSTS_PATH, probe_s: float | None = None) -> CostModel:
        return cls(load_cost_files(path), probe_s if probe_s is not None else probe_seconds())

    @property
    def speed_ratio(self) -> float:
        """This machine's time over the reference machine's, for the same CPU work."""
        ref = float(self.costs["reference"]["probe_s"])
        return self.probe_s / ref if ref > 0 else 1.0

    def parallel(self, experiment: str) -> Parallel:
        return parallel_of(experiment, self.costs["experiments"][experiment])

    def estimate(self, run: Run, cores: int | None = None) -> Estimate:
        """A run's CPU time, wall time at its (smallest) thread count with `cores` cores (this
        machine's by default), and peak memory."""
        model = self.costs["experiments"].get(run.experiment)
        if model is None:
            raise ValueError(
                f"{run.experiment} has no cost model: write its first guess into experiments/"
                f"{run.experiment}/costs.yaml (see the other folders'), refit after a run with "
                "`python -m analysis costs --in-place RESULTS_DIR`"
            )
        f = features(run)
        cpu = sum(float(model["time"].get(k, 0.0)) * v for k, v in f.items())
        mem = sum(float(model["memory_mb"].get(k, 0.0)) * v for k, v in f.items())
        for key in variant_keys(run):
            cpu *= float(model.get("variants", {}).get(key, 1.0))
        cpu *= self.speed_ratio
        threads = min_threads(run)
        usable = max(1, min(threads, cores if cores is not None else os.cpu_count() or 1))
        wall = cpu * self.parallel(run.experiment).wall_factor(usable)
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
    """A duration in the largest unit that keeps it readable: 38 s, 12.5 min, 30.2 h, 4.7 d."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:,.1f} d"


def parallel_note(model: CostModel, experiments_: Sequence[str]) -> str:
    """Which of these experiments' thread scaling is measured (and where), which is assumed."""
    measured, assumed = [], []
    for name in dict.fromkeys(experiments_):
        p = model.parallel(name)
        if p.measured is None:
            assumed.append(name)
        else:
            measured.append(f"{name}'s per section, measured ({p.measured})")
    parts = [*measured]
    if assumed:
        parts.append(f"assumed, one per experiment (costs.yaml parallel_fraction): {', '.join(assumed)}")
    return "Parallel fractions: " + "; ".join(parts) + "."


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
        f"Estimated from per-unit costs measured on {ref['machine']} (experiments/*/costs.yaml), "
        f"scaled by this machine's speed probe ({model.probe_s * 1000:.0f} ms against "
        f"{float(ref['probe_s']) * 1000:.0f} ms there: x{model.speed_ratio:.2f}); memory limit "
        f"{limit_mb / 1024:.1f} GiB."
    )
    if estimates:
        lines.append(parallel_note(model, [e.run.experiment for e in estimates]))
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
