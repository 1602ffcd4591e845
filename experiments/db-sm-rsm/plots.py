"""The paper's Figure 10 comparisons as plots: per-prover time against n (DB-SM, DB-RSM, and the
series a study sets beside them: the single-prover systems' n proofs), against m, and the
per-step breakdown. Where every series has
one n (or one m), a bar chart per entry takes the line plot's place (analysis.render.plots)."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis import units
from analysis.experiments.db_sm_rsm.beside import NOTHING, Beside
from analysis.experiments.db_sm_rsm.figure10 import (
    DBRSM_BREAKDOWN,
    DBSM_BREAKDOWN,
    FSM,
    RSM,
    Row,
    db_groups,
    group_median,
    group_ok,
    group_spread,
    row_fn,
    total_fn,
)
from analysis.render.plots import bars, per_entry_label

LANDSCAPE = (11.69, 8.27)
MARKERS = ("s", "^", "D", "v", "P", "X")  # one per m (m=4, the paper's, keeps "o")
SERIES = ["approach", "source", "n", "m", "threads", "value", "lo", "hi", "ok"]


def db_series(df: pd.DataFrame) -> pd.DataFrame:
    """Per-prover DB-SM/DB-RSM totals of every db run."""
    rows = []
    for g in db_groups(df):
        ok = group_ok(df, g)
        for approach, sec in (("DB-SM", FSM), ("DB-RSM", RSM)):
            sp = group_spread(df, g, total_fn(sec, "M"))
            rows.append(
                {"approach": approach, "source": g.source, "n": g.n, "m": g.m, "threads": g.threads,
                 "value": sp.median, "lo": sp.lo, "hi": sp.hi, "ok": ok}
            )  # fmt: skip
    return pd.DataFrame(rows, columns=SERIES)


COLORS = {"DB-SM": "tab:blue", "DB-RSM": "tab:orange"}


def _error_bars(ax: plt.Axes, g: pd.DataFrame, x: str, color: str | None) -> None:
    """min-max of the repetitions around each median (only where there is a spread)."""
    spread = g[(g["hi"] > g["lo"]).fillna(False).astype(bool)]
    if spread.empty:
        return
    ax.errorbar(spread[x], spread["value"],
                yerr=[spread["value"] - spread["lo"], spread["hi"] - spread["value"]],
                fmt="none", ecolor=color or "gray", capsize=3, lw=1)  # fmt: skip


def _mark_failed(ax: plt.Axes, d: pd.DataFrame, x: str) -> None:
    bad = d[~d["ok"].astype(bool)]
    if not bad.empty:
        ax.scatter(bad[x], bad["value"], s=160, facecolors="none", edgecolors="red", linewidths=1.5, zorder=5)


def _series_label(approach: object, source: object, m: float, t: float) -> str:
    label = f"{approach}, {source}"
    if m != -1:
        label += f", m={int(m)}"
    if source == "ours" and t != -1:
        label += f", t={int(t)}"
    return label


def per_entry_bars(data: pd.DataFrame, title: str) -> Figure:
    """Each approach's per-prover time per entry (time for n proofs / n), one bar per source, m
    and n: what the line plots show when every series has one n (or one m)."""
    groups: dict[str, dict[str, float]] = {}
    for r in data.sort_values(["source", "n"]).itertuples(index=False):
        m = -1 if pd.isna(r.m) else r.m
        t = -1 if pd.isna(r.threads) else r.threads
        series = per_entry_label(_series_label("", r.source, m, t).lstrip(", "), r.n)
        groups.setdefault(str(r.approach), {})[series] = float(r.value) / float(r.n)
    return bars(groups, "per-prover time per entry [s] (time for n proofs / n)", title)


def plot_vs_n(df: pd.DataFrame, beside: Beside = NOTHING) -> Figure:
    """DB-SM's and DB-RSM's per-prover time against n, and the series set beside them."""
    data = pd.concat([db_series(df), *([beside.series] if len(beside.series) else [])], ignore_index=True)
    colors = {**beside.colors, **COLORS}
    if data.empty:
        fig, ax = plt.subplots(figsize=(9, 6))
        return fig  # nothing drawn: the writer says so
    keys = ["approach", "source", data["m"].fillna(-1), data["threads"].fillna(-1)]
    if data.groupby(keys)["n"].nunique().max() < 2:
        return per_entry_bars(
            data, "Per-prover time per entry, each at its own n (collab-zkSNARK, cpSNARK: n x one proof)"
        )
    fig, ax = plt.subplots(figsize=(11, 5.2))
    for (approach, source, m, t), g in data.groupby(keys):
        g = g.sort_values("n")
        style: dict[str, Any] = {
            "marker": ("o" if m in (-1, 4) else MARKERS[int(m) % len(MARKERS)]) if source == "ours" else "*",
            "ls": "-" if source == "ours" else "none",
            "ms": 7 if source == "ours" else 14,
            "color": colors.get(str(approach), "gray"),
        }
        if source == "paper":
            style["mfc"] = "none"
        ax.plot(g["n"], g["value"], label=_series_label(approach, source, m, t), **style)
        _error_bars(ax, g, "n", style["color"])
    _mark_failed(ax, data, "n")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (ciphertexts = set size)")
    ax.set_ylabel("per-prover time for n proofs [s]")
    ax.set_title("Per-prover time against n (collab-zkSNARK and cpSNARK: n x one proof, extrapolated)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    ax.text(
        0.99,
        0.01,
        "stars: paper's sample reports; bars: min-max of repetitions; red ring: a FAILED status",
        transform=ax.transAxes,
        ha="right",
        va="bottom",
        fontsize=7,
    )
    fig.tight_layout()
    return fig


def plot_vs_m(df: pd.DataFrame) -> Figure:
    """Per-prover time against m; series of different n per entry, labelled with their n."""
    data = db_series(df)
    if data.empty:
        fig, ax = plt.subplots(figsize=(9, 6))
        return fig  # nothing drawn: the writer says so
    keys = ["approach", "source", "n", data["threads"].fillna(-1)]
    if data.groupby(keys)["m"].nunique().max() < 2:
        return per_entry_bars(data, "Per-prover time per entry, each at its own m and n (largest mixer)")
    mixed = data["n"].nunique() > 1
    fig, ax = plt.subplots(figsize=(11, 5.2))
    for (approach, source, n, t), g in data.groupby(keys):
        g = g.sort_values("m")
        label = f"{approach}, {source}" + (f", t={int(t)}" if source == "ours" and t != -1 else "")
        g = g.assign(value=g["value"] / n, lo=g["lo"] / n, hi=g["hi"] / n) if mixed else g
        ax.plot(
            g["m"],
            g["value"],
            marker="o" if source == "ours" else "*",
            ms=7 if source == "ours" else 14,
            ls="-" if source == "ours" else "none",
            color=COLORS.get(str(approach)),
            label=per_entry_label(label, n),
            mfc="none" if source == "paper" else None,
        )
        _error_bars(ax, g, "m", COLORS.get(str(approach)))
    _mark_failed(ax, data, "m")
    ax.set_yscale("log")
    ax.set_xlabel("m (mix-servers)")
    ax.set_ylabel("per-prover time per entry [s]" if mixed else "per-prover time [s]")
    ax.set_xticks(sorted(data["m"].unique()))
    ax.set_title("Per-prover time against m (DB-SM and DB-RSM, largest mixer)"
                 + (", per entry: the series have different n" if mixed else ""))  # fmt: skip
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_breakdown(df: pd.DataFrame) -> Figure:
    """Stacked per-step shares of the per-prover time, one bar per db run (README mapping)."""
    fig, axes = plt.subplots(1, 2, figsize=(11.5, 6.5))
    groups = db_groups(df)
    for ax, (title, rows, sec) in zip(
        axes, (("DB-SM", DBSM_BREAKDOWN, FSM), ("DB-RSM", DBRSM_BREAKDOWN, RSM)), strict=True
    ):
        mrows: list[Row] = [r for r in rows if r.party == "M"]
        if not groups:
            continue
        labels, totals, parts = [], [], []
        for g in groups:
            total = group_median(df, g, total_fn(sec, "M"))
            vals = [group_median(df, g, row_fn(r)) for r in mrows]
            other = total - float(np.nansum(vals))
            parts.append([*(0.0 if np.isnan(v) else v for v in vals), max(other, 0.0)])
            totals.append(total)
            labels.append(
                f"{g.source}\nm={g.m} n={g.n}" + (f"\nt={g.threads}" if g.source != "paper" else "")
            )
        arr = np.array(parts)
        # Per-step maxima over mixers can sum slightly above the largest mixer's total (and the
        # paper prints 2 significant digits), so normalise by whichever is larger.
        denom = np.maximum(np.array(totals), arr.sum(axis=1))
        share = 100 * arr / np.where(denom > 0, denom, 1)[:, None]
        bottom = np.zeros(len(labels))
        names = [r.label.replace("(M_k) ", "") for r in mrows] + ["other (not in the README mapping)"]
        cmap = plt.get_cmap("tab10")
        for i, name in enumerate(names):
            ax.bar(labels, share[:, i], bottom=bottom, label=name, color=cmap(i % 10))
            bottom += share[:, i]
        for i, t in enumerate(totals):
            ax.text(i, 101, units.seconds(t), ha="center", va="bottom", fontsize=8)
        ax.set_ylim(0, 112)
        ax.set_ylabel("share of per-prover time [%]")
        ax.set_title(f"{title}: per-step breakdown (largest mixer per step)")
        ax.legend(fontsize=6.5, loc="lower center", bbox_to_anchor=(0.5, -0.42), ncol=2)
        ax.tick_params(axis="x", labelsize=7)
    fig.tight_layout()
    return fig
