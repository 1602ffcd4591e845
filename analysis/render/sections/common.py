"""What every section shares: the page an experiment gets before the appendix (`Overview`), and
for the sections' details their runs and the reference figures in the tidy table, the runs that
failed, medians of a metric, number formats (from analysis.units) and log-log axes.

A section module (`experiments/<name>/section.py`) provides:
- `overview(ctx) -> Overview`: what its one or two pages show, in this order: what the
  experiment measures (two sentences), the verdict, one compact table of the comparisons that
  matter (ours against the paper or the reference figures, the reference measured in the same
  run, the counted lower bound), and one figure; `page(ctx, experiment, measures, said)` makes
  the least of them, the runs' verdict under a sentence of what it measures;
- `section(doc, ctx)`: its details, which the renderer puts in the appendix (every per-party,
  per-phase, per-node table; each also written to results/tables/ as CSV).
A study that sets other figures beside an experiment's draws its pages instead (its `pages`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from analysis import units
from analysis.derive.spread import NAN
from analysis.render.context import Context
from analysis.render.pdf import Doc


@dataclass
class Compact:
    """The compact table of an experiment's page: a frame whose cells are numbers, Spreads or
    text, written to results/tables/<name>.csv too."""

    name: str
    caption: str
    frame: pd.DataFrame
    fmt: Callable[[float], str] | dict[str, Callable[..., str]] = units.value
    index_name: str = ""
    widths: list[float] | None = None
    flagged: set[int] | None = None


@dataclass
class PageFigure:
    """The figure of an experiment's page: `draw` makes it; without `draw`, it is the plot the
    section's details draw under `name` (shown on the page, not again in the appendix)."""

    name: str
    caption: str = ""
    draw: Callable[[], Figure] | None = None


@dataclass
class Overview:
    """What an experiment's one or two pages before the appendix show."""

    measures: str  # what the experiment measures, two sentences
    verdict: str  # what the comparisons say, one or two sentences
    ok: bool | None = None  # the verdict's colour: True green, False red, None grey (no target)
    table: Compact | None = None
    figure: PageFigure | None = None
    notes: list[str] = field(default_factory=list)  # short notes under the table


def page(
    ctx: Context,
    experiment: str,
    measures: str,
    said: list[str],
    table: Compact | None = None,
    figure: PageFigure | None = None,
    met: bool = True,
) -> Overview:
    """An experiment's page: what it `measures`, its runs' verdict followed by what the comparisons
    `said`, red when a run failed or a target was not `met`."""
    runs, ok = runs_verdict(ctx, experiment)
    return Overview(measures, " ".join([runs, *said]), ok and met, table, figure)


def runs_verdict(ctx: Context, experiment: str) -> tuple[str, bool]:
    """'All k runs verified.' or what failed, and whether all verified."""
    ours = [r for r in ctx.col.runs if r.experiment == experiment and r.source == "ours"]
    failed = failed_runs(ctx, experiment)
    if failed:
        return f"FAILED: {len(failed)} of {len(ours)} runs did not verify ({'; '.join(failed)}).", False
    return f"All {len(ours)} runs verified.", True


def machines_and_failures(doc: Doc, ctx: Context, experiment: str, others: str, failed_says: str) -> None:
    """The machines our runs of `experiment` ran on, then `others` (the reference's, say), and a red
    box that lists the runs that failed under `failed_says`."""
    doc.para(f"<b>Machines.</b> Ours: {ctx.machines(experiment)}. {others}", markup=True)
    failed = failed_runs(ctx, experiment)
    if failed:
        doc.box([failed_says, *failed], ok=False)


def ours_rows(df: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """Our rows of `experiment`, with a column `host` naming each row's machine where the runs come
    from several (None where they come from one)."""
    d = df[(df["experiment"] == experiment) & (df["source"] == "ours")]
    hosts = d["machine"].fillna("").str.split(":").str[0]
    return d.assign(host=hosts if hosts.nunique() > 1 else None)


def reference_rows(df: pd.DataFrame, experiment: str, source: str) -> pd.DataFrame:
    """The published figures `experiment` compares with (their `source`)."""
    return df[(df["experiment"] == experiment) & (df["source"] == source)]


def failed_runs(ctx: Context, experiment: str) -> list[str]:
    """Each of our runs of `experiment` that failed, with why (sorted, each once)."""
    return sorted(
        {
            r.run + ": " + "; ".join(r.failed)
            for r in ctx.col.runs
            if r.experiment == experiment and r.source == "ours" and not r.ok
        }
    )


def median(g: pd.DataFrame, metric: str) -> float:
    """The median of a metric's values (NaN without any)."""
    v = g[g["metric"] == metric]["value"]
    return float(np.median(v)) if len(v) else NAN


def count(v: float) -> str:
    """A whole number, thousands separated."""
    return units.count(v)


def ratio(v: float) -> str:
    """A ratio in a column whose header says what it divides: three significant digits."""
    return units.factor(v)


TIME_UNITS = units.TIME_UNITS


def seconds(v: float, smallest: str = "ns", whole_from: float = math.inf) -> str:
    """Seconds with three significant digits in the largest unit down to `smallest` that shows
    them at 1 or more (`whole_from` is kept for callers: from 100 s on, every time is whole)."""
    return units.seconds(v, smallest)


def log_axes(
    ax: Axes, xlabel: str, ylabel: str, title: str | None = None, legend: float = 7, ncol: int = 1
) -> None:
    """Both axes logarithmic, labelled, gridded, with a legend of that font size (and a title)."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=legend, ncol=ncol)
