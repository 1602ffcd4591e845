"""zksnark-sm-rsm: every prover's run of each statement, beside the paper's ZoKrates runs."""

from __future__ import annotations

import math

import pandas as pd
from matplotlib.figure import Figure

from analysis.derive.claims import fmt_value
from analysis.derive.details import zk_table
from analysis.parse.zksnark import EXPERIMENT
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.plots import bars
from analysis.render.sections.common import Compact, Overview, PageFigure, count, ratio, runs_verdict

ZK_NOTE = (
    "Paper: ZoKrates 0.8 CLI, its single-threaded ark prover. Ours: zokrates-js compiles the same circuit; "
    "'wasm' is zokrates-js's own prover, 'native' proves the exported R1CS with ark-groth16 at the stated "
    "thread count. The claims use the native prover. prove = witness computation + proof (as the paper "
    "timed it); CPU = user + sys (the paper's user + sys equals its real time, 2.178/2.179 s)."
)


def _zk(v: float) -> str:
    return "-" if math.isnan(v) else fmt_value(v)


def circuits_table(df: pd.DataFrame) -> pd.DataFrame:
    """Our optimised circuit beside the paper's ZoKrates circuit: same statement, instance,
    native prover and threads, in the same run."""
    z = df[(df["experiment"] == EXPERIMENT) & (df["source"] == "ours") & (df["prover"] == "native")]
    rows: dict[str, dict[str, float]] = {}
    for run, g in z.groupby("run", sort=True):
        by = {c: h for c, h in g.groupby(g["variant"].fillna("zokrates"))}
        if not {"zokrates", "optimized"} <= set(by):
            continue

        def get(c: str, section: str, label: str, metric: str, by: dict = by) -> float:
            h = by[c]
            hit = h[(h["section"] == section) & (h["label"] == label) & (h["metric"] == metric)]["value"]
            return float(hit.sum()) if len(hit) else math.nan

        def prove(c: str) -> float:
            return get(c, "PROVER", "proof", "user") + get(c, "PROVER", "proof", "sys")

        rows[str(run)] = {
            "constraints, ZoKrates": get("zokrates", "TRUSTED SETUP", "constraints", "constraints"),
            "constraints, ours": get("optimized", "TRUSTED SETUP", "constraints", "constraints"),
            "proof CPU, ZoKrates [s]": prove("zokrates"),
            "proof CPU, ours [s]": prove("optimized"),
            "ours / ZoKrates (proof)": prove("optimized") / prove("zokrates"),
            "G1 MSM terms, ours / ZoKrates": get("optimized", "PROVER", "g1_msm_terms", "operations")
            / get("zokrates", "PROVER", "g1_msm_terms", "operations"),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


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
    ct = circuits_table(ctx.df)
    if not ct.empty:
        ints = {
            c: (lambda v: "-" if math.isnan(v) else f"{v:,.0f}") for c in ct.columns if "constraints" in c
        }
        ratios = {c: (lambda v: "-" if math.isnan(v) else f"{v:.3f}") for c in ct.columns if "/" in c}
        caption = "The strongest single-prover baseline beside the paper's circuit"
        ctx.table(doc, "zksnark_circuits", caption, ct, {**ints, **ratios}, index_name="run (native prover)")
        doc.para(
            "Ours proves the same two statements with the fewest constraints we could build: fixed-base "
            "windowed scalar multiplication for G and H, one Poseidon hash per tree level (select, then "
            "hash), scalars range-checked strictly. Same curve, hash, tree and leaf encoding, so the same "
            "set, root and commitment serve both circuits; both are proven by the same native prover, one "
            "after the other in the same run. Proof CPU excludes the witness computation. The proof's "
            "floor is its multi-scalar multiplications, whose sizes follow the number of wires.",
            small=True,
        )


# ---- the experiment's page (before the appendix) ----------------------------------------------

MEASURES = (
    "One prover proves with Groth16 that a committed value is a leaf of a Merkle tree of n entries "
    "(SM), or that a leaf opens to a committed value (RSM); the paper timed the ZoKrates CLI's prover. "
    "We prove the paper's ZoKrates circuit with zokrates-js's wasm prover and a native ark-groth16 "
    "prover, and our optimised circuit with the native prover, one proof each."
)
PAGE_COLUMNS = ["n", "threads", "constraints", "prove CPU [s]", "verify CPU [s]", "passed"]


def _who(run: str) -> str:
    """A row of zk_table as a bar's series: source, circuit and prover."""
    words = run.split()
    if words[0] == "paper":
        return "paper, ZoKrates CLI"
    circuit = "ZoKrates circuit" if words[2] == "zokrates" else "our circuit"
    return f"ours, {circuit}, {words[3]}"


def prove_bars(df: pd.DataFrame) -> Figure:
    t = zk_table(df)
    groups: dict[str, dict[str, float]] = {}
    for run, row in t.iterrows():
        words = str(run).split()
        statement = words[1] if words[0] == "paper" else words[1].split("-")[0]
        groups.setdefault(statement.upper(), {})[_who(str(run))] = float(row["prove CPU [s]"])
    return bars(groups, "CPU time of one proof [s]", "One Groth16 proof: the paper's prover beside ours")


def overview(ctx: Context) -> Overview:
    table = zk_table(ctx.df)
    frame = table[[c for c in PAGE_COLUMNS if c in table]].copy()
    failed = set()
    if "passed" in frame:
        failed = {i for i, v in enumerate(frame["passed"]) if v != 1}
        frame["passed"] = ["-" if math.isnan(v) else ("yes" if v == 1 else "FAILED") for v in frame["passed"]]
    for col in ("n", "threads", "constraints"):
        if col in frame:
            frame[col] = [count(v) for v in frame[col]]
    ct = circuits_table(ctx.df)
    runs, ok = runs_verdict(ctx, EXPERIMENT)
    said = [runs]
    if not ct.empty:
        r = ct["ours / ZoKrates (proof)"]
        said.append(f"Our circuit's proof takes {ratio(r.min())}-{ratio(r.max())} of the ZoKrates circuit's "
                    f"CPU time on the same native prover.")  # fmt: skip
    return Overview(
        measures=MEASURES,
        verdict=" ".join(said),
        ok=ok,
        table=Compact(
            "zksnark_summary",
            "One proof per statement, prover and circuit",
            frame,
            _zk,
            flagged=failed,
            index_name="run",
        ),
        figure=PageFigure(
            "zksnark_prove",
            "CPU time of one proof: the paper's ZoKrates CLI and our provers "
            "(each bar labelled; n and threads in the table).",
            lambda: prove_bars(ctx.df),
        ),
    )
