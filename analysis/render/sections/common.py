"""What the sections of the seed experiments share: their runs and the seed's figures in the tidy
table, the runs that failed, medians of a metric, number formats and log-log axes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from analysis.derive.spread import NAN
from analysis.render.context import Context


def ours_rows(df: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """Our rows of `experiment`, with a column `host` naming each row's machine where the runs come
    from several (None where they come from one)."""
    d = df[(df["experiment"] == experiment) & (df["source"] == "ours")]
    hosts = d["machine"].fillna("").str.split(":").str[0]
    return d.assign(host=hosts if hosts.nunique() > 1 else None)


def seed_rows(df: pd.DataFrame, experiment: str, source: str) -> pd.DataFrame:
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
    return "-" if math.isnan(v) else f"{v:,.0f}"


def ratio(v: float) -> str:
    """Two decimals; whole numbers, thousands separated, from 100 on (in magnitude)."""
    return "-" if math.isnan(v) else (f"{v:.2f}" if abs(v) < 100 else f"{v:,.0f}")


# Units of time, largest first: unit -> (the smallest value shown in it, its factor from seconds).
TIME_UNITS = {"s": (1, 1), "ms": (1e-3, 1e3), "us": (1e-6, 1e6), "ns": (1e-9, 1e9)}


def seconds(v: float, smallest: str = "ns", whole_from: float = math.inf) -> str:
    """Seconds with three significant digits in the largest unit down to `smallest` that shows
    them at 1 or more; from `whole_from` seconds on, whole seconds with thousands separated."""
    if math.isnan(v):
        return "-"
    if v >= whole_from:
        return f"{v:,.0f} s"
    for unit, (least, factor) in TIME_UNITS.items():
        if v >= least or unit == smallest:
            return f"{v * factor:.3g} {unit}"
    raise ValueError(f"no unit of time {smallest!r}")


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
