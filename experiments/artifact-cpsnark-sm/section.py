"""artifact-cpsnark-sm: the paper's own fork of cpsnarks-set rerun from its pinned sources, its
criterion means beside the published ones and ours (cpsnark-sm) of the same workflow run."""

from __future__ import annotations

import math

import pandas as pd

from analysis import units
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
    "output (the authors' machine) and our cpsnark-sm of the same workflow run."
)
NOTE = (
    "Criterion means of one iteration. The witness is per accumulated element (the fork's covers "
    "10 000 copies of one prime; ours n at the run's n), so that different n compare. Ratios: the "
    "artifact over ours, medians of the runs of this workflow run at the same thread count."
)
# Our implementation, run in the same workflow run.
OURS = "cpsnark-sm"
STEPS = (("prove", PROVE), ("verify", VERIFY), ("witness, per element", WITNESS))


def _means(df: pd.DataFrame, experiment: str, source: str, group: str, threads: int | None) -> list[float]:
    d = df[
        (df["experiment"] == experiment)
        & (df["source"] == source)
        & (df["section"] == group)
        & (df["metric"] == "mean")
    ]
    if threads is not None:
        d = d[d["threads"] == threads]
    out = []
    for _, r in d.iterrows():
        v = float(r["value"])
        out.append(v / float(r["n"]) if group == WITNESS and not pd.isna(r["n"]) and r["n"] else v)
    return out


def table(df: pd.DataFrame) -> pd.DataFrame:
    """Per step: published, the artifact rerun, ours (Spreads over runs), artifact / ours."""
    threads = sorted(
        {int(t) for t in df[(df["experiment"] == EXPERIMENT) & (df["source"] == "ours")]["threads"].dropna()}
    )
    rows: dict[str, dict[str, object]] = {}
    for t in threads or [None]:
        for name, group in STEPS:
            pub = _means(df, EXPERIMENT, "paper", group, None)
            art = Spread.of(_means(df, EXPERIMENT, "ours", group, t))
            ours = Spread.of(_means(df, OURS, "ours", group, t))
            ratio = art.median / ours.median if ours.count and art.count and ours.median else NAN
            key = name if len(threads) <= 1 else f"{name}, {t} thread(s)"
            rows[key] = {
                "published [s]": pub[0] if pub else NAN,
                "artifact rerun [s]": art,
                "ours [s]": ours,
                "artifact / ours": ratio,
            }
    return pd.DataFrame.from_dict(rows, orient="index")


FMT = {
    "published [s]": seconds,
    "artifact rerun [s]": seconds,
    "ours [s]": seconds,
    "artifact / ours": units.ratio,
}


def section(doc: Doc, ctx: Context) -> None:
    doc.h1("artifact-cpsnark-sm: the paper's fork of cpsnarks-set, rerun")
    doc.para(MEASURES)
    frame = table(ctx.df)
    ctx.table(
        doc,
        "artifact_cpsnark",
        "membership_hash: published, the artifact rerun here, ours [s]",
        frame,
        FMT,
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
    said = []
    for step in frame.index:
        r = median_of(frame.loc[step, "artifact / ours"])
        if not math.isnan(r):
            said.append(f"{step}: the artifact takes {units.ratio(r)} ours.")
    groups = {
        str(step): {
            "published": median_of(frame.loc[step, "published [s]"]),
            "artifact rerun": median_of(frame.loc[step, "artifact rerun [s]"]),
            "ours": median_of(frame.loc[step, "ours [s]"]),
        }
        for step in frame.index
    }
    compact = Compact(
        "artifact_cpsnark_summary", "membership_hash, one iteration [s]", frame, FMT, index_name="step"
    )
    figure = PageFigure(
        "artifact_cpsnark_plot",
        "The fork's bench: published, rerun here, and ours.",
        lambda: bars(groups, "time of one [s]", "cpSNARK-Set membership: the paper's fork and ours"),
    )
    ov = page(ctx, EXPERIMENT, MEASURES, said, compact, figure)
    ov.notes = [NOTE, f"The fork's witness covers n = {FORK_N} (fixed in its bench)."]
    return ov
