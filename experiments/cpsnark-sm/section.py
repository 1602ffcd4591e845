"""cpsnark-sm: Benarroch et al.'s cpSNARK-Set membership, criterion means and confidence intervals."""

from __future__ import annotations

import pandas as pd

from analysis import units
from analysis.experiments.cpsnark_sm.parser import EXPERIMENT
from analysis.experiments.cpsnark_sm.tables import cp_table
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.plots import bars
from analysis.render.sections.common import Compact, Overview, PageFigure, count, page, seconds

CP_NOTE = (
    "One proof each; the claims multiply prove and witness by n (as the paper's README does); the witness is "
    "computed over n copies of one prime, as the paper's benchmark does ('hashed primes': over n real "
    "hash-to-prime outputs, ours only). The paper's proving figure used all hardware threads; verify and "
    "witness are effectively single-threaded."
)


SECURITY = {
    "128": "128-bit Fiat-Shamir challenges (lambda_s = 128, lambda_z = 121)",
    "paper": "the paper's 120-bit Fiat-Shamir challenges (lambda_s = 125, lambda_z = 124)",
}
SECURITY_NOTE = (
    "Security setting of our runs: {settings}. Both settings have masks and responses of the same length "
    "(lambda_z + lambda_s = 249 bits); the paper's code uses 120-bit challenges."
)


_cp = units.sig3


def section(doc: Doc, ctx: Context) -> None:
    doc.h1("cpsnark-sm: cpSNARK-Set membership (Benarroch et al.)")
    table = cp_table(ctx.df)
    for col in ("n", "threads"):
        if col in table:
            table[col] = [units.count(v) for v in table[col]]
    ctx.table(doc, "cpsnark_runs", "cpSNARK-Set runs: criterion mean and 95% CI, one proof [s]", table, _cp,
              index_name="run")  # fmt: skip
    doc.para(CP_NOTE, small=True)
    df = ctx.df
    ours = df[(df["experiment"] == "cpsnark-sm") & (df["source"] == "ours")]
    settings = sorted({str(v) for v in ours["security"].dropna()})
    if settings:
        doc.para(SECURITY_NOTE.format(settings="; ".join(SECURITY.get(v, v) for v in settings)), small=True)


# ---- the experiment's page (before the appendix) ----------------------------------------------

MEASURES = (
    "One prover proves membership of a committed prime in an RSA-accumulated set with Benarroch et "
    "al.'s cpSNARK-Set; the paper's claims multiply one proof, one verification and one witness "
    "computation by n. The table gives one proof's times, the paper's beside ours."
)
ONE_PROOF = {"prove mean [s]": "prove", "verify mean [s]": "verify", "witness mean [s]": "witness",
             "witness, hashed primes, mean [s]": "witness, hashed primes"}  # fmt: skip


def one_proof(df: pd.DataFrame) -> pd.DataFrame:
    """Each run's mean time of one proof, one verification and one witness (rows: the step)."""
    t = cp_table(df)
    frame = t[[c for c in ONE_PROOF if c in t]].rename(columns=ONE_PROOF).T
    frame.columns = [f"{c} (n={count(n)})" for c, n in zip(t.index, t["n"], strict=True)]
    return frame.dropna(how="all")


def overview(ctx: Context) -> Overview:
    frame = one_proof(ctx.df)
    groups = {str(step): {str(c): float(v) for c, v in row.items()} for step, row in frame.iterrows()}
    table = Compact("cpsnark_summary", "One proof: criterion mean", frame, seconds, index_name="step")
    figure = PageFigure(
        "cpsnark_one_proof",
        "Mean time of one proof, one verification and one witness, the paper's beside ours.",
        lambda: bars(groups, "time of one [s]", "cpSNARK-Set: one proof, verification and witness"),
    )
    return page(ctx, EXPERIMENT, MEASURES, [], table, figure)
