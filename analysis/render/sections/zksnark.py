"""zksnark-sm-rsm: every prover's run of each statement, beside the paper's ZoKrates runs."""

from __future__ import annotations

import math

from analysis.derive.claims import fmt_value
from analysis.derive.details import zk_table
from analysis.render.context import Context
from analysis.render.pdf import Doc

ZK_NOTE = (
    "Paper: ZoKrates 0.8 CLI, its single-threaded ark prover. Ours: zokrates-js compiles the same circuit; "
    "'wasm' is zokrates-js's own prover, 'native' proves the exported R1CS with ark-groth16 at the stated "
    "thread count. The claims use the native prover. prove = witness computation + proof (as the paper "
    "timed it); CPU = user + sys (the paper's user + sys equals its real time, 2.178/2.179 s)."
)


def _zk(v: float) -> str:
    return "-" if math.isnan(v) else fmt_value(v)


def section(doc: Doc, ctx: Context) -> None:
    doc.h1("zksnark-sm-rsm: single-prover Groth16 proofs of (reverse) set membership")
    table = zk_table(ctx.df)
    if "passed" in table:
        table["passed"] = [
            "-" if math.isnan(v) else ("PASSED" if v == 1 else "FAILED") for v in table["passed"]
        ]
    for col in ("n", "threads", "constraints"):
        if col in table:
            table[col] = ["-" if math.isnan(v) else f"{v:.0f}" for v in table[col]]
    failed = {i for i, v in enumerate(table.get("passed", [])) if v == "FAILED"}
    ctx.table(doc, "zksnark_runs", "zkSNARK runs: every prover, one proof [s]", table, _zk, flagged=failed,
              index_name="run")  # fmt: skip
    doc.para(ZK_NOTE, small=True)
