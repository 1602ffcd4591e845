"""The parallel fraction of each db-sm-rsm section, measured: runs at 1 and at T threads in pairs.

A pair is two runs of the same parameters and seed (the same work) at 1 and at T threads, one
right after the other; the benchmark (`snakemake dbsm_parallel`) alternates them (1, T, 1, T, ...)
so that a drift of the shared machine's speed touches both thread counts alike. Per section (the
report's timer rows at path ["main"]: key generation, preprocessing, input preparation, checking
inputs, mixing, forward and reverse set membership), with T1 and TT its wall seconds summed over
the pairs, Amdahl's law at T threads, TT = T1 ((1 - f) + f / T), gives the parallel fraction

    f = (1 - TT / T1) / (1 - 1 / T)        (T = 2: f = 2 (1 - T2 / T1)),

clamped to [0, 1]: noise can push a serial section's speed-up below 1 or a parallel one's above
T. The section's share of the job's CPU time comes from the same runs (the 1-thread runs' CPU
seconds), or, with `shares_from`, from the largest runs of another results directory (at large
n the fixed parts, such as key generation, weigh less than at the benchmark's small n).
The estimator (analysis/plan/estimate.py) reads the result from costs.yaml's `parallel` block.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.config import for_results
from analysis.errors import ConfigError, ReportError
from analysis.experiments import plan
from analysis.experiments.db_sm_rsm.parser import EXPERIMENT, TOOL
from analysis.parse.common import Enveloped, load_enveloped, need
from analysis.runs import Run

# The report's sections: its timer rows directly under the whole run's ("main") timer.
SECTION_PATH = ["main"]
# The parameter that differs within a pair.
THREADS = "threads"


@dataclass(frozen=True)
class Section:
    wall_s: float
    cpu_s: float


@dataclass
class Measured:
    """One run's report: its parameters, sections, load and machine."""

    run: Run
    env: Enveloped
    sections: dict[str, Section]

    @property
    def threads(self) -> int:
        return int(self.run.params[THREADS])


def sections_of(env: Enveloped) -> dict[str, Section]:
    """The wall and CPU seconds of each section of a db-sm-rsm report (body.timers rows whose path
    is ["main"]); a report without them is an error naming the file."""
    out: dict[str, Section] = {}
    p = env.path
    for i, t in enumerate(need(env.body, "timers", list, p, "body.")):
        where = f"body.timers[{i}]."
        if not isinstance(t, dict) or t.get("path") != SECTION_PATH or t.get("party") is not None:
            continue
        label = need(t, "label", str, p, where)
        wall = float(need(t, "seconds", (int, float), p, where))
        cpu = float(need(t, "cpu_seconds", (int, float), p, where))
        prev = out.get(label)
        out[label] = Section(wall + (prev.wall_s if prev else 0.0), cpu + (prev.cpu_s if prev else 0.0))
    if not out:
        raise ReportError(p, None, 'body.timers rows with path ["main"] (the run\'s sections)')
    return out


def measured_runs(dirs: Sequence[Path]) -> list[Measured]:
    """Every db-sm-rsm run with a report in the given results directories (their config.json
    says which runs belong to them)."""
    out = []
    for d in dirs:
        rc = for_results(d)
        if not rc.config or rc.runs is None:
            raise ConfigError(f"{d}: no config.json of a workflow run (needed to know the runs' parameters)")
        for run in plan(rc.config).get(EXPERIMENT, []):
            report = d / "raw" / run.dir / "report.json"
            if report.exists():
                env = load_enveloped(report, TOOL)
                if not env.passed:
                    raise ConfigError(f"{report}: the run did not pass; a failed run measures nothing")
                out.append(Measured(run, env, sections_of(env)))
    return out


@dataclass(frozen=True)
class SectionFraction:
    name: str
    one_thread_s: float  # wall seconds at 1 thread, summed over the pairs
    many_threads_s: float  # the same at T threads
    cpu_share: float  # the section's share of the CPU time
    fraction: float  # Amdahl's parallel fraction, clamped to [0, 1]
    per_pair: tuple[float, ...]  # the unclamped fraction of each pair alone

    @property
    def speedup(self) -> float:
        return self.one_thread_s / self.many_threads_s if self.many_threads_s > 0 else float("nan")


@dataclass
class ParallelFit:
    sections: list[SectionFraction]
    threads: int  # T
    pairs: int
    n: int
    m: int
    machine: str
    date: str
    load: tuple[float, float] | None  # the lowest and highest one-minute load at the runs' starts and ends
    shares_from: str

    def block(self) -> dict[str, Any]:
        """costs.yaml's `parallel` block."""
        out: dict[str, Any] = {
            "method": f"{self.pairs} pair(s) of runs at 1 and {self.threads} threads, alternated; "
            f"f = (1 - T{self.threads}/T1) / (1 - 1/{self.threads}) from wall times, clamped to [0, 1]",
            "machine": self.machine,
            "date": self.date,
            "n": self.n,
            "m": self.m,
            "threads": [1, self.threads],
            "pairs": self.pairs,
        }
        if self.load is not None:
            out["load"] = {"min": round(self.load[0], 2), "max": round(self.load[1], 2)}
        out["shares_from"] = self.shares_from
        out["sections"] = {
            s.name: {
                "cpu_share": round(s.cpu_share, 4),
                "fraction": round(s.fraction, 3),
                "speedup": round(s.speedup, 3),
                "fraction_per_pair": [round(f, 3) for f in s.per_pair],
            }
            for s in self.sections
        }
        return out


def amdahl_fraction(one: float, many: float, threads: int) -> float:
    """The parallel fraction that turns `one` seconds at 1 thread into `many` at `threads`
    (unclamped: noise may put it outside [0, 1])."""
    if one <= 0 or threads < 2:
        return float("nan")
    return (1 - many / one) / (1 - 1 / threads)


def machine_words(env: Enveloped) -> str:
    """A report's machine as costs.yaml's `reference` names one: CPU, logical CPUs, memory."""
    m = env.machine or {}
    mem = m.get("mem_total_gib")
    mem_text = f"{float(mem):.0f} GiB" if isinstance(mem, int | float) else "? GiB"
    return f"{m.get('cpu_model', 'unknown CPU')}, {m.get('logical_cpus', '?')} logical CPUs, {mem_text}"


def pairs_of(runs: Sequence[Measured]) -> list[tuple[Measured, Measured]]:
    """(1-thread run, T-thread run) of the same parameters and repetition (seed)."""
    groups: dict[tuple[Any, ...], dict[int, Measured]] = {}
    for r in runs:
        key = (*sorted((k, str(v)) for k, v in r.run.params.items() if k != THREADS), r.run.rep)
        groups.setdefault(key, {})[r.threads] = r
    out = []
    for by_threads in groups.values():
        many = [t for t in by_threads if t > 1]
        if 1 in by_threads and len(many) == 1:
            out.append((by_threads[1], by_threads[many[0]]))
    return out


def shares(runs: Sequence[Measured]) -> dict[str, float]:
    """Each section's share of the runs' CPU seconds."""
    cpu: dict[str, float] = {}
    for r in runs:
        for name, s in r.sections.items():
            cpu[name] = cpu.get(name, 0.0) + s.cpu_s
    total = sum(cpu.values())
    if total <= 0:
        raise ConfigError("the runs' sections took no CPU time")
    return {k: v / total for k, v in cpu.items()}


def largest_runs(runs: Sequence[Measured]) -> tuple[list[Measured], str]:
    """The runs at the largest n (then m), and those words for costs.yaml."""
    if not runs:
        raise ConfigError("no db-sm-rsm run with a report to take the sections' CPU shares from")
    top = max((int(r.run.params["n"]), int(r.run.params["m"])) for r in runs)
    chosen = [r for r in runs if (int(r.run.params["n"]), int(r.run.params["m"])) == top]
    threads = sorted({r.threads for r in chosen})
    return chosen, (
        f"CPU seconds of {len(chosen)} run(s) at n = {top[0]}, m = {top[1]}, "
        f"{'/'.join(map(str, threads))} thread(s)"
    )


def fit_parallel(dirs: Sequence[Path], shares_from: Sequence[Path] = ()) -> ParallelFit:
    """Each section's parallel fraction from the pairs in `dirs` (see the module's docstring)."""
    runs = measured_runs(dirs)
    pairs = pairs_of(runs)
    where = ", ".join(map(str, dirs))
    if not pairs:
        raise ConfigError(
            f"no pair of db-sm-rsm runs at 1 and at more threads with the same parameters in {where} "
            "(snakemake dbsm_parallel makes them)"
        )
    many = {b.threads for _, b in pairs}
    sizes = {(int(a.run.params["n"]), int(a.run.params["m"])) for a, _ in pairs}
    if len(many) != 1 or len(sizes) != 1:
        raise ConfigError(
            f"the pairs in {where} differ in thread count or size: {sorted(many)}, {sorted(sizes)}"
        )
    threads, (n, m) = many.pop(), sizes.pop()
    if shares_from:
        chosen, shares_words = largest_runs(measured_runs(shares_from))
    else:
        chosen = [a for a, _ in pairs]
        shares_words = f"CPU seconds of the pairs' 1-thread runs (n = {n}, m = {m})"
    share = shares(chosen)
    names = [name for name in pairs[0][0].sections if all(name in r.sections for p in pairs for r in p)]
    sections = []
    for name in names:
        one = sum(a.sections[name].wall_s for a, _ in pairs)
        many_s = sum(b.sections[name].wall_s for _, b in pairs)
        f = amdahl_fraction(one, many_s, threads)
        per_pair = tuple(
            amdahl_fraction(a.sections[name].wall_s, b.sections[name].wall_s, threads) for a, b in pairs
        )
        sections.append(SectionFraction(name, one, many_s, share.get(name, 0.0),
                                        min(1.0, max(0.0, f)) if f == f else 0.0, per_pair))  # fmt: skip
    loads = [v for a, b in pairs for r in (a, b) for v in r.env.load.values() if v is not None]
    started = [r.env.envelope.get("started_unix") for p in pairs for r in p]
    stamps = [float(s) for s in started if isinstance(s, int | float) and not isinstance(s, bool)]
    date = (
        dt.datetime.fromtimestamp(min(stamps), dt.UTC).date().isoformat()
        if stamps
        else dt.date.today().isoformat()
    )
    machines = {machine_words(r.env) for p in pairs for r in p}
    if len(machines) != 1:
        raise ConfigError(f"the pairs in {where} ran on different machines: {', '.join(sorted(machines))}")
    return ParallelFit(sections, threads, len(pairs), n, m, machines.pop(), date,
                       (min(loads), max(loads)) if loads else None, shares_words)  # fmt: skip


def parallel_text(fit: ParallelFit) -> str:
    """The fit as a table: per section, the wall seconds at 1 and T threads, speed-up, fraction."""
    from analysis.text import text_table

    t = fit.threads
    rows = [
        [s.name, f"{s.one_thread_s:,.2f}", f"{s.many_threads_s:,.2f}", f"{s.speedup:.2f}",
         f"{s.fraction:.2f}", " ".join(f"{f:.2f}" for f in s.per_pair), f"{100 * s.cpu_share:.1f} %"]
        for s in fit.sections
    ]  # fmt: skip
    one = sum(s.one_thread_s for s in fit.sections)
    many = sum(s.many_threads_s for s in fit.sections)
    f = amdahl_fraction(one, many, t)
    rows.append(["all sections", f"{one:,.2f}", f"{many:,.2f}", f"{one / many:.2f}" if many else "-",
                 f"{f:.2f}", "", "100 %"])  # fmt: skip
    load = f"one-minute load {fit.load[0]:.1f} to {fit.load[1]:.1f}" if fit.load else "load not recorded"
    head = (
        f"db-sm-rsm parallel fractions: {fit.pairs} pair(s) at 1 and {t} threads, n = {fit.n}, m = {fit.m}, "
        f"on {fit.machine}, {fit.date}, {load}\nCPU shares: {fit.shares_from}"
    )
    table = text_table(
        ["section", "T1 wall s", f"T{t} wall s", "speed-up", "fraction", "fraction per pair", "CPU share"],
        rows,
    )
    return (
        f"{head}\n{table}\nfraction per pair: unclamped; the spread between pairs is the measurement's noise."
    )
