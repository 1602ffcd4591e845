"""cpsnark-sm: Benarroch et al.'s cpSNARK-Set membership, criterion means and confidence intervals."""

from __future__ import annotations

import math

from analysis.derive.details import cp_table
from analysis.render.context import Context
from analysis.render.pdf import Doc

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


def _cp(v: float) -> str:
    return "-" if math.isnan(v) else f"{v:.4g}"


def section(doc: Doc, ctx: Context) -> None:
    doc.h1("cpsnark-sm: cpSNARK-Set membership (Benarroch et al.)")
    table = cp_table(ctx.df)
    for col in ("n", "threads"):
        if col in table:
            table[col] = ["-" if math.isnan(v) else f"{v:.0f}" for v in table[col]]
    ctx.table(doc, "cpsnark_runs", "cpSNARK-Set runs: criterion mean and 95% CI, one proof [s]", table, _cp,
              index_name="run")  # fmt: skip
    doc.para(CP_NOTE, small=True)
    df = ctx.df
    ours = df[(df["experiment"] == "cpsnark-sm") & (df["source"] == "ours")]
    settings = sorted({str(v) for v in ours["security"].dropna()})
    if settings:
        doc.para(SECURITY_NOTE.format(settings="; ".join(SECURITY.get(v, v) for v in settings)), small=True)
