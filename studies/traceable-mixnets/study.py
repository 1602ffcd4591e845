"""traceable-mixnets: the PETS 2024 paper "Traceable mixnets" beside our runs. Its README's claims
recomputed from its sample reports and from ours; its Main Results 1 and 2 made like with like;
Figure 10 with the single-prover baselines beside DB-SM and DB-RSM, and the collaborative prover
beside their latency over the network; the paper's own code rerun here beside its published
figures and ours (the reproduction); its terms in the reading guide."""

from __future__ import annotations

import math
from collections.abc import Mapping

from analysis.derive.claims import verdict
from analysis.experiments.db_sm_rsm import section as dbsm
from analysis.render.chapter import Claims, Guide, Pages, Part, Place
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.studies import Study
from analysis.studies.traceable_mixnets import guide, main_results, reproduction
from analysis.studies.traceable_mixnets.baselines import beside_dbsm
from analysis.studies.traceable_mixnets.claims import claims


def said(ctx: Context, labels: Mapping[str, str | None]) -> list[str]:
    """What the claims say of an experiment's figures: the verdict of each claim our runs cover,
    under its label (its own text where the label is None)."""
    found = {c.key: c for c in claims(ctx.df, ctx.rc.config)}
    return [f"{label or found[k].text}: {verdict(found[k])}." for k, label in labels.items()
            if not math.isnan(found[k].ours)]  # fmt: skip


def dbsm_details(doc: Doc, ctx: Context) -> None:
    """db-sm-rsm's details, with the baselines in Figure 10 and beside the latency."""
    dbsm.section(doc, ctx, beside_dbsm(ctx.df, float(ctx.setting("collab_factor"))))


STUDY = Study(
    name="traceable-mixnets",
    title="the paper's claims and comparisons beside our runs",
    experiments=("db-sm-rsm", "zksnark-sm-rsm", "collab-groth16", "cpsnark-sm", *reproduction.ARTIFACTS),
    claims=Claims(claims, published=("zksnark-sm-rsm", "db-sm-rsm", "cpsnark-sm"), words=guide.CLAIM_WORDS),
    guide=Guide(guide.INTRO, guide.terms),
    parts=(
        Part(Place.SUMMARY, reproduction.summary),
        Part(Place.SUMMARY, main_results.summary),
        Part(Place.OPENING, reproduction.section, key=reproduction.KEY, title=reproduction.TITLE),
        Part(Place.APPENDIX, main_results.appendix),
    ),
    pages={"db-sm-rsm": Pages(overview=dbsm.overview, details=dbsm_details)},
    verdicts={
        "db-sm-rsm": lambda ctx: said(ctx, {"db_sm": "DB-SM per prover", "db_rsm": "DB-RSM per prover"}),
        "cpsnark-sm": lambda ctx: said(ctx, {"cp_total": None, "cp_verify": None}),
    },
)
