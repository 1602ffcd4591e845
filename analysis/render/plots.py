"""What every plot of the report shares: saving (PDF and PNG, atomically), the rule that a plot
showing no trend is not drawn, grouped bar charts (what a section draws instead), and the rule
for series of different sizes.

The rules, for every section's figures:
- A line plot against m or n (or any x) in which every series has one x value shows no trend:
  `degenerate` says why, and `Context.plot` then writes a sentence instead of the figure. A
  section that has such data draws a bar chart (`bars`) instead.
- Series of different sizes n are put on one axis only per entry (value / n) and labelled with
  their n (`per_entry_label`); a time for n proofs at n = 16 beside one at n = 10 000 compares
  workloads, not implementations.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from analysis import units

LANDSCAPE = (11.69, 8.27)
# The size of one figure of a section's page: wide and low, so that a compact table fits above it.
PAGE_FIGURE = (11.0, 4.6)


def _data_x(ax: Axes) -> list[set[float]]:
    """The distinct finite x values of each line drawn in data coordinates (not axhline/axvline)."""
    out = []
    for line in ax.get_lines():
        if line.get_transform() != ax.transData:
            continue
        x = np.asarray(line.get_xdata(), dtype=float)
        y = np.asarray(line.get_ydata(), dtype=float)
        keep = np.isfinite(x) & np.isfinite(y) if len(x) == len(y) else np.isfinite(x)
        if keep.any():
            out.append(set(x[keep].tolist()))
    return out


def degenerate(fig: Figure) -> str | None:
    """Why `fig` shows no trend, or None. A line plot whose every series has one x value is
    degenerate (one dot per series says nothing against m or n); a figure with nothing drawn at
    all is too. Bar charts are not line plots. In a figure of several panels, a degenerate panel
    is emptied and says so, and the figure is kept while one panel shows a trend."""
    drawn, flat = 0, []
    for ax in fig.axes:
        if ax.patches:
            drawn += 1  # a bar chart (with, perhaps, marks on its bars)
            continue
        xs = _data_x(ax)
        if not xs:
            continue
        if max(len(x) for x in xs) >= 2:
            drawn += 1
        else:
            flat.append((ax, sorted(set().union(*xs))))
    if not drawn and not flat:
        return "nothing to plot"
    if not drawn:
        ax, values = flat[0]
        what = ax.get_xlabel() or "x"
        shown = ", ".join(units.sig3(v) for v in values)
        return f"every series has one value of {what} ({shown})"
    for ax, _values in flat:
        what = ax.get_xlabel() or "x"
        ax.clear()
        ax.set_axis_off()
        ax.text(0.5, 0.5, f"not drawn: one value of {what} per series", ha="center", va="center",
                transform=ax.transAxes, fontsize=9, wrap=True)  # fmt: skip
    return None


def per_entry_label(label: str, n: int | float | None) -> str:
    """A series' label with its size, for plots that put several n on one axis per entry."""
    return label if n is None or (isinstance(n, float) and math.isnan(n)) else f"{label}, n={int(n):,}"


def bars(
    groups: Mapping[str, Mapping[str, float]],
    ylabel: str,
    title: str,
    fmt: Callable[[float], str] = units.seconds,
    log: bool | None = None,
    colors: Mapping[str, str] | None = None,
    figsize: tuple[float, float] = PAGE_FIGURE,
) -> Figure:
    """Grouped bars: one group per key of `groups` (on the x axis), one bar per series inside it,
    each bar labelled with its value; logarithmic when the values span more than 100x (or as
    `log` says). Missing values leave a gap."""
    series = list(dict.fromkeys(s for g in groups.values() for s in g))
    fig, ax = plt.subplots(figsize=figsize)
    vals = [v for g in groups.values() for v in g.values() if v is not None and not math.isnan(v) and v > 0]
    if log is None:
        log = bool(vals) and max(vals) / min(vals) > 100
    x = np.arange(len(groups))
    width = 0.8 / max(1, len(series))
    cmap = plt.get_cmap("tab10")
    for i, s in enumerate(series):
        ys = [groups[g].get(s, math.nan) for g in groups]
        off = (i - (len(series) - 1) / 2) * width
        colour = (colors or {}).get(s, cmap(i % 10))
        rects = ax.bar(x + off, [0 if math.isnan(y) else y for y in ys], width, label=s, color=colour)
        for r, y in zip(rects, ys, strict=True):
            if not math.isnan(y):
                ax.annotate(fmt(y), (r.get_x() + r.get_width() / 2, r.get_height()), ha="center",
                            va="bottom", fontsize=6.5, xytext=(0, 1), textcoords="offset points")  # fmt: skip
    ax.set_xticks(x, list(groups), fontsize=8)
    # Room above the highest bar for its label and the legend.
    if log:
        ax.set_yscale("log")
        if vals:
            ax.set_ylim(min(vals) / 2, max(vals) * 12)
    else:
        ax.set_ylim(0, (max(vals) if vals else 1) * 1.4)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    if len(series) > 1:
        ax.legend(fontsize=7, ncol=min(4, len(series)), loc="upper center")
    fig.tight_layout()
    return fig


def save_plot(fig: Figure, name: str, outdir: Path) -> list[Path]:
    outdir.mkdir(parents=True, exist_ok=True)
    out = []
    for ext in ("pdf", "png"):
        f = outdir / f"{name}.{ext}"
        tmp = outdir / f"{name}.tmp.{ext}"
        fig.savefig(tmp, dpi=150)
        tmp.replace(f)
        out.append(f)
    return out
