"""The same configuration run natively and inside containers: the same runs, the same verdicts,
and what a container costs, per experiment, in CPU time.

Statuses are compared run by run from what the parsers say: whether the run verified and the
names of its failed statuses. CPU time is each program's own (its envelope's `resources`:
process and waited-for children), which a container does not hide the way it hides a job's
processes from the scheduler's sampling; a run without the envelope has no figure.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path

from analysis.config import for_results
from analysis.errors import ConfigError
from analysis.parse.common import ENVELOPE_FORMAT
from analysis.tidy import collect


@dataclass(frozen=True)
class RunnerComparison:
    experiment: str
    runs: int
    same_verdicts: bool
    differences: list[str]
    native_cpu_s: float | None
    container_cpu_s: float | None
    runner: str

    @property
    def overhead(self) -> float | None:
        """Container CPU time over native CPU time (1.0: no overhead)."""
        if not self.native_cpu_s or self.container_cpu_s is None:
            return None
        return self.container_cpu_s / self.native_cpu_s


def _verdicts(results: Path) -> dict[tuple[str, str], tuple[bool, tuple[str, ...]]]:
    """(experiment, run directory) -> (verified, the names of its failed statuses); a run may
    hold several provers' or parts' results."""
    col = collect(results, None, for_results(results))
    out: dict[tuple[str, str], tuple[bool, tuple[str, ...]]] = {}
    for r in col.runs:
        if r.source != "ours":
            continue
        key = (r.experiment, Path(r.path).parent.name)
        ok, failed = out.get(key, (True, ()))
        out[key] = (ok and r.ok, tuple(sorted({*failed, *(f"{r.run}: {f}" for f in r.failed)})))
    return out


def _cpu(report: Path) -> tuple[float | None, str]:
    """A report's own CPU seconds (process and children) and its runner's kind."""
    try:
        d = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, "?"
    if d.get("format") != ENVELOPE_FORMAT:
        return None, "?"
    res = d.get("resources") or {}
    cpu = float(res.get("cpu_s", 0.0)) + float(res.get("cpu_children_s", 0.0))
    return cpu, str((d.get("runner") or {}).get("kind", "?"))


def _compared(container: Path, a: dict, b: dict) -> set[tuple[str, str]]:
    """The runs to set side by side: those the container directory's configuration made (its
    config.json), where it says; a container run of a smaller configuration (e.g. `runs: first`)
    is held against the same run of the native directory, and the native runs it did not repeat
    are left out. Without a config.json, every run of either directory."""
    planned = for_results(container).runs
    if planned is None:
        return set(a) | set(b)
    return {(e, r) for e, ids in planned.items() for r in ids}


def compare(native: Path, container: Path) -> list[RunnerComparison]:
    """One row per experiment the comparison covers ([`_compared`]): a run missing on either
    side, or with another verdict, is a difference."""
    for d in (native, container):
        if not (d / "raw").is_dir():
            raise ConfigError(f"{d}: no raw/ directory of runs")
    a, b = _verdicts(native), _verdicts(container)
    compared = _compared(container, a, b)
    out = []
    for experiment in sorted({e for e, _ in compared}):
        runs = sorted(r for e, r in compared if e == experiment)
        diffs = []
        native_cpu: list[float] = []
        container_cpu: list[float] = []
        kind = "?"
        for run in runs:
            va, vb = a.get((experiment, run)), b.get((experiment, run))
            if va != vb:
                diffs.append(f"{experiment}/{run}: native {va}, container {vb}")
            ca, _ = _cpu(native / "raw" / experiment / run / "report.json")
            cb, kind_b = _cpu(container / "raw" / experiment / run / "report.json")
            if ca is not None and cb is not None:
                native_cpu.append(ca)
                container_cpu.append(cb)
                kind = kind_b
        out.append(RunnerComparison(
            experiment, len(runs), not diffs, diffs,
            sum(native_cpu) if native_cpu else None, sum(container_cpu) if container_cpu else None, kind,
        ))  # fmt: skip
    return out


def comparison_text(rows: list[RunnerComparison]) -> str:
    lines = [f"{'experiment':<16} {'runs':>4}  {'verdicts':<9} {'native CPU':>11} {'container CPU':>14} "
             f"{'container/native':>17}"]  # fmt: skip
    for r in rows:
        n = "-" if r.native_cpu_s is None else f"{r.native_cpu_s:.2f} s"
        c = "-" if r.container_cpu_s is None else f"{r.container_cpu_s:.2f} s"
        o = "-" if r.overhead is None else f"{r.overhead:.3f}x"
        lines.append(f"{r.experiment:<16} {r.runs:>4}  {'same' if r.same_verdicts else 'DIFFER':<9} {n:>11} "
                     f"{c:>14} {o:>17}")  # fmt: skip
    ratios = [r.overhead for r in rows if r.overhead is not None]
    if ratios:
        lines.append(f"median container/native CPU over experiments: {statistics.median(ratios):.3f}x "
                     "(each program's own CPU time, one run each side, same machine)")  # fmt: skip
    for r in rows:
        lines += [f"  {d}" for d in r.differences]
    return "\n".join(lines)
