"""The paper's own DB-SM/DB-RSM code beside ours, from the tidy table: each artifact run with our
db-sm-rsm runs of the same n, m and repetition (one thread, one process, BN254), in the paper's
mode with its challenge lengths and in our defaults, made alternately in the same workflow run.

The figures compared are the paper's (its README's Figure 10 rows): per section (mixing, DB-SM,
DB-RSM), the slowest mixer's total and the verifier's total, in CPU seconds (the artifact timed
on the CPU clock, ours from its CPU timers; wall seconds where a run has only those).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from analysis.derive.spread import NAN, Spread
from analysis.experiments.artifact_db_sm_rsm.pairing import OURS, SETTINGS
from analysis.experiments.artifact_db_sm_rsm.parser import EXPERIMENT
from analysis.experiments.artifact_db_sm_rsm.section import FIGURES, figures


@dataclass
class Pair:
    """One artifact run and ours beside it (same n, m, repetition)."""

    rep: int
    n: int
    m: int
    artifact: dict[str, float]
    ours: dict[str, dict[str, float]] = field(default_factory=dict)
    ok: bool = True


def _ours(df: pd.DataFrame, n: int, m: int, rep: int, mode: str, security: str) -> pd.DataFrame:
    d = df[(df["experiment"] == OURS) & (df["source"] == "ours")]
    sel = (
        (d["n"] == n) & (d["m"] == m) & (d["rep"] == rep) & (d["mode"] == mode) & (d["security"] == security)
    )
    sel &= (d["threads"] == 1) & (d["curve"] == "bn254") & (d["variant"].fillna("local") == "local")
    return d[sel]


def pairs(df: pd.DataFrame) -> list[Pair]:
    """Every artifact run of ours with its paired runs, by repetition."""
    a = df[(df["experiment"] == EXPERIMENT) & (df["source"] == "ours")]
    out = []
    for (_run, rep), g in a.groupby(["run", "rep"], sort=True):
        n, m = int(g["n"].iloc[0]), int(g["m"].iloc[0])
        p = Pair(int(rep), n, m, figures(g), ok=bool(g["run_ok"].all()))
        for col, mode, security in SETTINGS:
            o = _ours(df, n, m, int(rep), mode, security)
            if len(o):
                p.ours[col] = figures(o)
                p.ok = p.ok and bool(o["run_ok"].all())
        out.append(p)
    return out


def published(df: pd.DataFrame) -> tuple[dict[str, float], int, int]:
    """The published figures (the paper's sample report, wall seconds) with its n and m."""
    g = df[(df["experiment"] == EXPERIMENT) & (df["source"] == "paper")]
    if not len(g):
        return dict.fromkeys((f[0] for f in FIGURES), NAN), 0, 0
    return figures(g), int(g["n"].iloc[0]), int(g["m"].iloc[0])


def _ratio(a: float, b: float) -> float:
    return a / b if b and not math.isnan(a) and not math.isnan(b) else NAN


def ratio_table(ps: list[Pair]) -> pd.DataFrame:
    """Per figure: the artifact's, ours in each setting (Spreads over the repetitions), and the
    same-run ratios artifact / ours (Spreads over the pairs)."""
    rows: dict[str, dict[str, object]] = {}
    for name, _, _ in FIGURES:
        r: dict[str, object] = {"artifact [s]": Spread.of(p.artifact[name] for p in ps)}
        for col, _, _ in SETTINGS:
            r[f"{col} [s]"] = Spread.of(p.ours[col][name] for p in ps if col in p.ours)
        for col, _, _ in SETTINGS:
            r[f"artifact / {col}"] = Spread.of(
                _ratio(p.artifact[name], p.ours[col][name]) for p in ps if col in p.ours
            )
        rows[name] = r
    return pd.DataFrame.from_dict(rows, orient="index")
