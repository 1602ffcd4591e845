"""artifact-db-sm-rsm: the paper's own DB-SM/DB-RSM code rerun from its pinned sources: its
statuses, and its figures per section beside the published ones (the study of the paper sets them
beside ours)."""

from __future__ import annotations

import pandas as pd

from analysis.derive.spread import NAN, Spread, median_of
from analysis.experiments.artifact_db_sm_rsm.parser import EXPERIMENT
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.plots import bars
from analysis.render.sections.common import Compact, Overview, PageFigure, page, seconds

MEASURES = (
    "The paper's own code for DB-SM and DB-RSM (its artifact's db_sm_rsm.py: Python, charm-crypto on "
    "PBC's BN254, gmpy2), built here from its pinned sources and run at its own n and the configured m. "
    "Its 18 statuses must all be True; its figures per section are set beside the published ones, per "
    "entry (the published run had n = 10000)."
)
NOTE = (
    "The rerun's timers run on the process's CPU clock (the code is single-threaded) unless "
    "artifact_clock is wall; the published ones are wall seconds on the authors' machine. Per mixer "
    "is the slowest mixer's total of the section."
)
# The README's Figure 10 rows: (row, section of the report, whose total).
FIGURES = (
    ("mixing, per mixer", "main > mixing", "mixer"),
    ("DB-SM, per mixer", "main > forward set membership", "mixer"),
    ("DB-SM, verifier", "main > forward set membership", "verifier"),
    ("DB-RSM, per mixer", "main > reverse set membership", "mixer"),
    ("DB-RSM, verifier", "main > reverse set membership", "verifier"),
)


def figures(g: pd.DataFrame) -> dict[str, float]:
    """One run's figures: per section, the largest mixer total and the verifier's total (CPU
    seconds where the run has them, else wall seconds)."""
    metric = "cpu" if (g["metric"] == "cpu").any() else "time"
    t = g[(g["metric"] == metric) & g["label"].astype(str).str.endswith(" total")]
    out = {}
    for name, section, who in FIGURES:
        hit = t[(t["section"] == section) & t["label"].astype(str).str.startswith(who)]["value"]
        out[name] = float(hit.max()) if len(hit) else NAN
    return out


def table(df: pd.DataFrame) -> pd.DataFrame:
    """Per figure: the rerun (over its repetitions) and the published, both per entry, and in all."""
    d = df[df["experiment"] == EXPERIMENT]
    ours = d[d["source"] == "ours"]
    pub = d[d["source"] == "paper"]
    runs = [(int(g["n"].iloc[0]), figures(g)) for _, g in ours.groupby("run", sort=True)]
    pn = int(pub["n"].iloc[0]) if len(pub) else 0
    published = figures(pub) if len(pub) else {}
    rows: dict[str, dict[str, object]] = {}
    for name, _, _ in FIGURES:
        rows[name] = {
            "rerun [s]": Spread.of(f[name] for _, f in runs),
            "rerun, per entry [s]": Spread.of(f[name] / n for n, f in runs),
            "published [s]": published.get(name, NAN),
            "published, per entry [s]": published.get(name, NAN) / pn if pn else NAN,
        }
    return pd.DataFrame.from_dict(rows, orient="index")


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
        failed = "" if r.ok else f"; FAILED: {'; '.join(r.failed + r.problems)}"
        out.append(f"{r.run}: statuses {said}{f' ({how})' if how else ''}{failed}")
    return out


def section(doc: Doc, ctx: Context) -> None:
    doc.h1("artifact-db-sm-rsm: the paper's own DB-SM and DB-RSM code, rerun")
    doc.para(MEASURES)
    doc.bullets(statuses_text(ctx) or ["No run of the paper's code here."])
    ctx.table(
        doc,
        "artifact_db_figures",
        "The paper's code, rerun here and published [s]",
        table(ctx.df),
        seconds,
        index_name="figure",
    )
    doc.para(NOTE, small=True)


def overview(ctx: Context) -> Overview:
    frame = table(ctx.df)
    statuses = ctx.df[
        (ctx.df["experiment"] == EXPERIMENT) & (ctx.df["metric"] == "status") & (ctx.df["source"] == "ours")
    ]
    said = (
        [f"Its statuses: {int((statuses['value'] > 0.5).sum())} of {len(statuses)} True."]
        if len(statuses)
        else []
    )
    groups = {
        name: {
            "rerun, per entry": median_of(frame.loc[name, "rerun, per entry [s]"]),
            "published, per entry": median_of(frame.loc[name, "published, per entry [s]"]),
        }
        for name, _, _ in FIGURES
    }
    compact = Compact(
        "artifact_db_summary",
        "The paper's code, rerun here and published [s]",
        frame,
        seconds,
        index_name="figure",
    )
    figure = PageFigure(
        "artifact_db_plot",
        "Per entry: the paper's code rerun here, and published.",
        lambda: bars(groups, "time per entry [s]", "The paper's DB-SM/DB-RSM code"),
    )
    ov = page(ctx, EXPERIMENT, MEASURES, said, compact, figure)
    ov.notes = [NOTE]
    return ov
