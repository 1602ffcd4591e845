"""artifact-db-sm-rsm: the paper's own DB-SM/DB-RSM code rerun from its pinned sources, its
statuses, and its figures beside ours of the same workflow run (same n, m and repetition)."""

from __future__ import annotations

import math

import pandas as pd

from analysis import units
from analysis.derive.spread import median_of
from analysis.experiments.artifact_db_sm_rsm.pairs import (
    FIGURES,
    SETTINGS,
    Pair,
    pairs,
    published,
    ratio_table,
)
from analysis.experiments.artifact_db_sm_rsm.parser import EXPERIMENT
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.plots import bars
from analysis.render.sections.common import Compact, Overview, PageFigure, page, seconds

MEASURES = (
    "The paper's own code for DB-SM and DB-RSM (its artifact's db_sm_rsm.py: Python, charm-crypto on "
    "PBC's BN254, gmpy2), built here from its pinned sources and run at its own n and the configured m, "
    "alternated with our db-sm-rsm at the same n and m, in the paper's mode with its challenge lengths "
    "(like for like) and in our defaults (fast, 128-bit). Its 18 statuses must all be True."
)
NOTE = (
    "CPU seconds, one thread: the artifact's timers on the process's CPU clock (the code is "
    "single-threaded), ours from its CPU timers; per mixer is the slowest mixer's total of the section. "
    "The ratios are artifact over ours within each pair of the same workflow run; a cell with a spread "
    "shows the median [min-max] over the pairs (x k)."
)


def _fmt(col: object) -> object:
    return units.ratio if str(col).startswith("artifact /") else seconds


def table(ps: list[Pair]) -> pd.DataFrame:
    return ratio_table(ps)


def statuses_text(ctx: Context) -> list[str]:
    """Per run: how many statuses it printed, and which were not True."""
    out = []
    for r in ctx.col.runs:
        if r.experiment != EXPERIMENT or r.source != "ours":
            continue
        d = ctx.df[
            (ctx.df["experiment"] == EXPERIMENT) & (ctx.df["run"] == r.run) & (ctx.df["metric"] == "status")
        ]
        bad = sorted(d[d["value"] < 0.5]["label"])
        said = (
            f"all {len(d)} True"
            if not bad and len(d)
            else f"{len(d)} printed, not True: {', '.join(bad) or '-'}"
        )
        how = ", ".join(f"{k} {v}" for k, v in sorted(r.settings.items()))
        out.append(
            f"{r.run}: statuses {said}{f' ({how})' if how else ''}"
            + ("" if r.ok else f"; FAILED: {'; '.join(r.failed + r.problems)}")
        )
    return out


def section(doc: Doc, ctx: Context) -> None:
    doc.h1("artifact-db-sm-rsm: the paper's own DB-SM and DB-RSM code, rerun")
    doc.para(MEASURES)
    doc.bullets(statuses_text(ctx) or ["No run of the paper's code here."])
    ps = pairs(ctx.df)
    if ps:
        frame = table(ps)
        ctx.table(
            doc,
            "artifact_db_pairs",
            "The paper's code beside ours, same workflow run [s]",
            frame,
            {str(c): _fmt(c) for c in frame.columns},
            index_name="figure",
        )
        doc.para(NOTE, small=True)
    pub, n, m = published(ctx.df)
    if n:
        rows = {
            k: {f"published (n = {n}, m = {m}) [s]": v, "published, per entry [s]": v / n}
            for k, v in pub.items()
        }
        ctx.table(
            doc,
            "artifact_db_published",
            "The paper's sample report (the authors' machine, wall clock)",
            pd.DataFrame.from_dict(rows, orient="index"),
            seconds,
            index_name="figure",
        )


def overview(ctx: Context) -> Overview:
    ps = pairs(ctx.df)
    said = []
    if ps:
        frame = table(ps)
        for col, _, _ in SETTINGS:
            key = f"artifact / {col}"
            vals = {name: median_of(frame.loc[name, key]) for name, _, _ in FIGURES}
            known = {k: v for k, v in vals.items() if not math.isnan(v)}
            if known:
                lo, hi = min(known, key=known.__getitem__), max(known, key=known.__getitem__)
                said.append(
                    f"Against {col}: the artifact takes {units.ratio(known[lo])} ({lo}) to "
                    f"{units.ratio(known[hi])} ({hi}) the CPU time of ours."
                )
        compact = Compact(
            "artifact_db_summary",
            "The paper's code beside ours, same run [s]",
            frame,
            {str(c): _fmt(c) for c in frame.columns},
            index_name="figure",
        )
    else:
        compact = None
    groups = (
        {
            name: {
                "artifact": median_of(frame.loc[name, "artifact [s]"]),
                **{col: median_of(frame.loc[name, f"{col} [s]"]) for col, _, _ in SETTINGS},
            }
            for name, _, _ in FIGURES
        }
        if ps
        else {}
    )
    figure = (
        PageFigure(
            "artifact_db_pairs_plot",
            "CPU time per section: the paper's code and ours, same workflow run.",
            lambda: bars(groups, "CPU time [s]", "The paper's DB-SM/DB-RSM code beside ours"),
        )
        if groups
        else None
    )
    ov = page(ctx, EXPERIMENT, MEASURES, said, compact, figure)
    ov.notes = [NOTE]
    return ov
