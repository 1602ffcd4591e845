"""artifact-cpsnark-sm: the paper's own fork of cpsnarks-set rerun from its pinned sources, its
criterion means beside the published ones (the study of the paper sets them beside ours)."""

from __future__ import annotations

import pandas as pd

from analysis.derive.spread import NAN, Spread, median_of
from analysis.experiments.artifact_cpsnark_sm.parser import EXPERIMENT, FORK_N
from analysis.parse.criterion import PROVE, VERIFY, WITNESS
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.plots import bars
from analysis.render.sections.common import Compact, Overview, PageFigure, page, seconds

MEASURES = (
    "The paper's own fork of cpsnarks-set (its artifact's cpsnark-sm), built here with cargo from its own "
    "lock file and its pinned git trees, runs its criterion bench membership_hash: one proof, one "
    "verification, and a membership witness over 10 000 copies of one prime. Beside it: the published "
    "output (the authors' machine)."
)
NOTE = (
    "Criterion means of one iteration, medians over the runs. The published proving figure used all of the "
    "authors' machine's hardware threads; the rerun's thread count is the run's."
)
STEPS = (("prove", PROVE), ("verify", VERIFY), ("witness", WITNESS))


def _means(df: pd.DataFrame, source: str, group: str) -> list[float]:
    d = df[(df["experiment"] == EXPERIMENT) & (df["source"] == source) & (df["section"] == group)]
    return [float(v) for v in d[d["metric"] == "mean"]["value"]]


def table(df: pd.DataFrame) -> pd.DataFrame:
    """Per step: the rerun (Spread over runs) and the published mean, and their ratio."""
    rows: dict[str, dict[str, object]] = {}
    for name, group in STEPS:
        pub = _means(df, "paper", group)
        rerun = Spread.of(_means(df, "ours", group))
        p = pub[0] if pub else NAN
        rows[name] = {
            "rerun [s]": rerun,
            "published [s]": p,
            "rerun / published": rerun.median / p if rerun.count and pub else NAN,
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def section(doc: Doc, ctx: Context) -> None:
    doc.h1("artifact-cpsnark-sm: the paper's fork of cpsnarks-set, rerun")
    doc.para(MEASURES)
    ctx.table(
        doc,
        "artifact_cpsnark",
        "membership_hash: the fork rerun here and published [s]",
        table(ctx.df),
        {"rerun [s]": seconds, "published [s]": seconds},
        index_name="step",
    )
    doc.para(NOTE, small=True)
    runs = [r for r in ctx.col.runs if r.experiment == EXPERIMENT and r.source == "ours"]
    doc.bullets(
        [
            f"{r.run}: {'verified' if r.ok else 'FAILED: ' + '; '.join(r.failed + r.problems)}; "
            + ", ".join(f"{k} {v}" for k, v in sorted(r.versions.items()))
            for r in runs
        ]
        or ["No run here."]
    )


def overview(ctx: Context) -> Overview:
    frame = table(ctx.df)
    groups = {
        str(step): {
            "published": median_of(frame.loc[step, "published [s]"]),
            "rerun here": median_of(frame.loc[step, "rerun [s]"]),
        }
        for step in frame.index
    }
    compact = Compact(
        "artifact_cpsnark_summary",
        "membership_hash, one iteration [s]",
        frame,
        {"rerun [s]": seconds, "published [s]": seconds},
        index_name="step",
    )
    figure = PageFigure(
        "artifact_cpsnark_plot",
        "The fork's bench: published, and rerun here.",
        lambda: bars(groups, "time of one [s]", "cpSNARK-Set membership: the paper's fork"),
    )
    ov = page(ctx, EXPERIMENT, MEASURES, [], compact, figure)
    ov.notes = [NOTE, f"The fork's witness covers n = {FORK_N} (fixed in its bench)."]
    return ov
