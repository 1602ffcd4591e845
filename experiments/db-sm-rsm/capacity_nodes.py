"""Capacity across nodes: db-sm-rsm with each mix-server on a node of its own.

The one-process model (capacity.py) gives a run's CPU time and its wall time on C cores of one
machine. A run whose parties SLURM placed on nodes of their own (dbsm_placement: nodes, the
variant `tls/nodes`) measures what one machine cannot: each process's CPU time on its own host,
and how much of the run's work its processes did at once. From each such run of a results
directory:

    overlap = (CPU time of every process, summed) / (the run's wall time x S(T))

where S(T) is the model's speed-up of one process on T threads (the run's threads per party). An
overlap of 1 means the processes took turns (the mix-servers' shuffles are a chain); m + 1 would
mean every node was busy all the time. The wall time of a run of n ballots and m mix-servers on
m + 1 nodes of C cores is then the one-process CPU time over overlap x S(C).

What is extrapolated, and said so beside the table: the overlap is measured at the runs' n and m
and taken as it is for every other n and m; S(C) beyond the threads measured is Amdahl's law,
as in the one-process columns; where the hosts shared one machine's cores (a test cluster), the
processes competed for them, so the overlap measured there is a lower bound.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.plan.estimate import CostModel

# The run directories of runs placed on nodes end so (the descriptor's run scheme).
PLACED_SUFFIX = "-tls-nodes"


@dataclass(frozen=True)
class Placed:
    """One run placed on nodes: its size, threads, wall time, and each process's CPU time and host."""

    run: str
    n: int
    m: int
    threads: int
    wall_s: float
    cpu_s: dict[str, float]  # by process (driver, mixers, verifier)
    hosts: dict[str, str]  # process -> host name (as it read it)
    cpu_models: tuple[str, ...]


def _placed(report: dict[str, Any], run: str) -> Placed | None:
    body, params = report.get("body") or {}, report.get("parameters") or {}
    net = body.get("network") or {}
    if not report.get("passed") or not net.get("hosts"):
        return None
    summary = {s["party"]: s for s in net.get("summary", [])}
    wall = float(summary.get("driver", {}).get("wall_s", 0.0))
    if wall <= 0:
        return None
    hosts = {h["party"]: str(h["machine"].get("hostname", h["node"])) for h in net["hosts"]}
    models = tuple(sorted({str(h["machine"].get("cpu_model", "?")) for h in net["hosts"]}))
    return Placed(run, int(params["n"]), int(params["m"]), int(params.get("threads", 1)), wall,
                  {p: float(s["cpu_s"]) for p, s in summary.items()}, hosts, models)  # fmt: skip


def placed_runs(results_dir: Path | None) -> list[Placed]:
    """The passed runs of a results directory whose parties were placed on nodes."""
    if results_dir is None:
        return []
    out = []
    for path in sorted((results_dir / "raw" / "db-sm-rsm").glob(f"*{PLACED_SUFFIX}*/report.json")):
        try:
            placed = _placed(json.loads(path.read_text()), path.parent.name)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if placed is not None:
            out.append(placed)
    return out


def speedup(model: CostModel, run: Any, threads: int) -> float:
    """S(threads): the model's one-process wall time on one core over that on `threads` cores."""
    one = model.estimate(run(1), cores=1).wall_s
    return one / model.estimate(run(threads), cores=threads).wall_s


@dataclass(frozen=True)
class Overlap:
    """How much of the placed runs' work their processes did at once (median over the runs)."""

    value: float
    runs: tuple[Placed, ...]

    def hosts(self) -> set[str]:
        return {h for p in self.runs for h in p.hosts.values()}

    def words(self) -> str:
        """Where the nodes columns come from and what in them is extrapolated."""
        sizes = sorted({(p.n, p.m, p.threads) for p in self.runs})
        at = ", ".join(f"n = {n}, m = {m}, {t} thread(s) per process" for n, m, t in sizes)
        models = sorted({c for p in self.runs for c in p.cpu_models})
        shares = []
        for p in self.runs[-1:]:
            total = sum(p.cpu_s.values())
            shares = [f"{k} {100 * v / total:.0f} %" for k, v in sorted(p.cpu_s.items())]
        return (
            f"Nodes columns: m mix-servers on m nodes of C cores and a first node for the driver, the "
            f"board and the verifier, from {len(self.runs)} run(s) placed by SLURM on "
            f"{len(self.hosts())} hosts ({at}; {', '.join(models)}): the processes' CPU time over the "
            f"run's wall time at one thread's speed, {self.value:.2f} (1: they took turns; m + 1: all "
            f"busy at once); each process's share of the CPU in the last: {', '.join(shares)}. "
            "Extrapolated: that overlap at every other n and m, and C cores beyond the threads "
            "measured (Amdahl's law); hosts that shared one machine's cores (a test cluster) give a "
            "lower bound."
        )


def overlap(model: CostModel, placed: list[Placed], model_run: Any) -> Overlap | None:
    """The overlap of the placed runs (None without any)."""
    values = []
    for p in placed:
        s = speedup(model, lambda t, p=p: model_run(p.n, p.m, t), p.threads)
        values.append(sum(p.cpu_s.values()) / (p.wall_s * s))
    if not values:
        return None
    return Overlap(statistics.median(values), tuple(placed))


def nodes_column(cores: int) -> str:
    return f"wall, m nodes of {cores} core{'s' if cores != 1 else ''}"


def nodes_wall(model: CostModel, ov: Overlap, n: int, m: int, cores: int, model_run: Any) -> float:
    """A run's wall time on m + 1 nodes of `cores` cores: its one-process CPU time over the
    overlap times S(cores)."""
    cpu = model.estimate(model_run(n, m, 1), cores=1).cpu_s
    s = speedup(model, lambda t: model_run(n, m, t), cores)
    return cpu / (ov.value * s) if ov.value > 0 else math.nan
