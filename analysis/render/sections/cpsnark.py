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
