"""zksnark-sm-rsm: every prover's run of each statement, beside the paper's ZoKrates runs."""

from __future__ import annotations

import math

import pandas as pd
from matplotlib.figure import Figure

from analysis import units
from analysis.derive.claims import fmt_value
from analysis.experiments.zksnark_sm_rsm.parser import EXPERIMENT
from analysis.experiments.zksnark_sm_rsm.tables import zk_table
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.plots import bars
from analysis.render.sections.common import Compact, Overview, PageFigure, count, page, ratio

ZK_NOTE = (
    "Paper: ZoKrates 0.8 CLI, its single-threaded ark prover, on its circuit as published. Ours: zokrates-js "
    "compiles the ZoKrates circuit; 'wasm' is zokrates-js's own prover, 'native' proves the exported R1CS "
    "with ark-groth16 at the stated thread count, 'snarkjs' proves the same files with snarkjs (the circom "
    "ecosystem's prover, the reference). The claims use the native prover. prove = witness computation + "
    "proof (as the paper timed it); CPU = user + sys (the paper's user + sys equals its real time, "
    "2.178/2.179 s). 'variant' is the circuits' statement: 'sound' (v < L enforced, padding leaves nobody "
    "opens; fixes Z1 and Z2 below) or 'as-published' (the paper's statement, which accepts v + kL in RSM "
    "and 0 through a padding leaf). Every verifier checks every proof against public inputs the suite "
    "computes (its Baby Jubjub parameters and H, C or v, the root), never the prover's: the ZoKrates "
    "program takes the curve's parameters and H as inputs nothing constrains, so a proof made with other "
    "ones is rejected."
)

SHA256_NOTE = (
    "SHA-256 trees: the paper's ZoKrates SHA-256 circuit is measured only up to n = 16 (depth 4). "
    "zokrates-js is ZoKrates compiled to 32-bit WebAssembly, whose memory cannot exceed 4 GiB, and compiling "
    "the SHA-256 program of a deeper tree exceeds it: the compiler traps ('unreachable') after minutes of "
    "CPU (measured at depth 5, 8 and 14); at depth 4 the node process already peaks at about 4.6 GB. The "
    "planner therefore runs SHA-256 trees deeper than 4 levels with our optimised circuit only."
)

PTAU = "powers of tau: 2^k, generator, generation CPU [s]"

FIXES_NOTE = "Fixes in force in our sound runs, as their reports list them (zksnark-sm-rsm/docs/fixes.md)."


def _zk(v: float) -> str:
    return "-" if math.isnan(v) else fmt_value(v)


def _summed(h: pd.DataFrame, section: str, label: str, metric: str) -> float:
    """The sum of a (section, label, metric)'s values in `h` (NaN without any)."""
    hit = h[(h["section"] == section) & (h["label"] == label) & (h["metric"] == metric)]["value"]
    return float(hit.sum()) if len(hit) else math.nan


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
            return _summed(by[c], section, label, metric)

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


def variants(df: pd.DataFrame) -> dict[tuple[str, str], str]:
    """The circuits' variant of each (run, circuit) of ours: sound or as-published."""
    z = df[(df["experiment"] == EXPERIMENT) & (df["source"] == "ours")]
    out: dict[tuple[str, str], str] = {}
    for (run, circuit), g in z.groupby([z["run"], z["variant"].fillna("zokrates")], sort=False):
        modes = g["mode"].dropna().unique()
        out[(str(run), str(circuit))] = str(modes[0]) if len(modes) else "-"
    return out


def references_table(df: pd.DataFrame) -> pd.DataFrame:
    """snarkjs (the reference) beside our native ark-groth16 prover: same run, circuit, files and
    threads; both proofs checked by both verifiers."""
    z = df[(df["experiment"] == EXPERIMENT) & (df["source"] == "ours")]
    rows: dict[str, dict[str, object]] = {}
    for (run, circuit), g in z.groupby([z["run"], z["variant"].fillna("zokrates")], sort=True):
        by = {p: h for p, h in g.groupby("prover")}
        if not {"native", "snarkjs"} <= set(by):
            continue

        def get(p: str, section: str, label: str, metric: str, by: dict = by) -> float:
            return _summed(by[p], section, label, metric)

        def cpu(p: str, section: str, label: str) -> float:
            return get(p, section, label, "user") + get(p, section, label, "sys")

        def ptau(metric: str) -> float:
            return get("snarkjs", "TRUSTED SETUP", "powers of tau", metric)

        checked = [get("native", "VERIFIER", "checked by snarkjs", "cross_verified"),
                   get("snarkjs", "VERIFIER", "checked by native", "cross_verified")]  # fmt: skip
        mode = by["native"]["mode"].dropna()
        rows[f"{run} {circuit}"] = {
            "variant": str(mode.iloc[0]) if len(mode) else "-",
            "constraints": get("native", "TRUSTED SETUP", "constraints", "constraints"),
            "proof CPU, native [s]": cpu("native", "PROVER", "proof"),
            "proof CPU, snarkjs [s]": cpu("snarkjs", "PROVER", "proof"),
            "snarkjs / native (proof)": cpu("snarkjs", "PROVER", "proof") / cpu("native", "PROVER", "proof"),
            "snarkjs / native (setup)": cpu("snarkjs", "TRUSTED SETUP", "setup")
            / cpu("native", "TRUSTED SETUP", "setup"),
            "snarkjs / native (verify)": cpu("snarkjs", "VERIFIER", "VERIFIER")
            / cpu("native", "VERIFIER", "VERIFIER"),
            "cross-verified": "yes" if all(v == 1 for v in checked) else "NO",
            PTAU: f"2^{ptau('ptau_power'):.0f}, {'native' if ptau('ptau_native') == 1 else 'snarkjs'}, "
            f"{ptau('ptau_cpu'):.1f}",
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def fixes_rows(ctx: Context) -> list[list[str]]:
    fixes: dict[str, str] = {}
    for r in ctx.col.runs:
        if r.experiment == EXPERIMENT and r.source == "ours":
            for f in r.fixes:
                code, _, what = f.partition(": ")
                fixes.setdefault(code if what else "", what or f)
    return [[code, what] for code, what in fixes.items()]


def section(doc: Doc, ctx: Context) -> None:
    doc.h1("zksnark-sm-rsm: single-prover Groth16 proofs of (reverse) set membership")
    table = with_variant(ctx, zk_table(ctx.df))
    var = variants(ctx.df)
    if "passed" in table:
        table["passed"] = [
            "-" if math.isnan(v) else ("PASSED" if v == 1 else "FAILED") for v in table["passed"]
        ]
    for col in ("n", "threads", "constraints"):
        if col in table:
            table[col] = [units.count(v) for v in table[col]]
    failed = {i for i, v in enumerate(table.get("passed", [])) if v == "FAILED"}
    ctx.table(doc, "zksnark_runs", "zkSNARK runs: every prover, one proof [s]", table,
              {"variant": str, **{c: _zk for c in table.columns if c != "variant"}}, flagged=failed,
              index_name="run")  # fmt: skip
    doc.para(ZK_NOTE, small=True)
    rows = fixes_rows(ctx)
    if rows:
        doc.table(["code", "what the sound variant does differently from the paper's statement"], rows,
                  [0.13, 0.87], left={1}, caption=FIXES_NOTE)  # fmt: skip
    ref = references_table(ctx.df)
    if not ref.empty:
        fmts: dict[str, object] = {c: str for c in ("variant", "cross-verified", PTAU)}
        fmts["constraints"] = units.count
        fmts.update({c: units.factor for c in ref.columns if "/" in c})
        caption = "snarkjs, the reference, beside our native prover in the same run"
        ctx.table(doc, "zksnark_references", caption, ref, {**{c: _zk for c in ref.columns}, **fmts},  # type: ignore[dict-item]
                  index_name="run, circuit")  # fmt: skip
        doc.para(
            "snarkjs 0.7.6 sets up (zkey new + one contribution), proves (single-threaded at one thread) and "
            "verifies the very .r1cs and .wtns files the native prover reads, in the same run. The native "
            "verifier checks snarkjs's proof and snarkjs checks the native one, on the same public inputs; a "
            "disagreement fails the run. Ratios above 1: snarkjs is slower. The powers of tau (snarkjs's "
            "prepared .ptau, one participant: a benchmark's setup, not a trusted one) are generated in the "
            "run, nothing is downloaded: 'native' by zksnark-prover ptau, which knows the secrets and "
            "computes every point as a fixed-base multiple (seconds at 2^16), 'snarkjs' by snarkjs's own "
            "ceremony (an hour at 2^16; cached between runs). Their generation time is not in the setup "
            "(it is the same for every circuit up to that size).",
            small=True,
        )
    doc.para(SHA256_NOTE, small=True)
    ct = circuits_table(ctx.df)
    if not ct.empty:
        ct.insert(0, "variant", [var.get((str(r), "optimized"), "-") for r in ct.index])
        ints = {c: units.count for c in ct.columns if "constraints" in c}
        ratios = {c: units.factor for c in ct.columns if "/" in c}
        caption = "The strongest single-prover baseline beside the paper's circuit"
        ctx.table(doc, "zksnark_circuits", caption, ct, {"variant": str, **ints, **ratios},
                  index_name="run (native prover)")  # fmt: skip
        doc.para(
            "Ours proves the same two statements with the fewest constraints we could build: fixed-base "
            "windowed scalar multiplication for G and H, one Poseidon hash per tree level (select, then "
            "hash), scalars range-checked strictly. Same curve, hash, tree and leaf encoding, so the same "
            "set, root and commitment serve both circuits; both are proven by the same native prover, one "
            "after the other in the same run, in the same variant. Proof CPU excludes the witness "
            "computation. The proof's floor is its multi-scalar multiplications, whose sizes follow the "
            "number of wires.",
            small=True,
        )


# ---- the experiment's page (before the appendix) ----------------------------------------------

MEASURES = (
    "One prover proves with Groth16 that a committed value is a leaf of a Merkle tree of n entries "
    "(SM), or that a leaf opens to a committed value (RSM); the paper timed the ZoKrates CLI's prover. "
    "We prove the paper's ZoKrates circuit with zokrates-js's wasm prover and a native ark-groth16 "
    "prover, and our optimised circuit with the native prover, one proof each; snarkjs, the circom "
    "ecosystem's prover, proves both in the same run as the reference. 'variant' says which statement "
    "each figure proves: 'sound' (v < L, padding nobody opens) or 'as-published' (the paper's)."
)
PAGE_COLUMNS = ["variant", "n", "threads", "constraints", "prove CPU [s]", "verify CPU [s]", "passed"]


def with_variant(ctx: Context, table: pd.DataFrame) -> pd.DataFrame:
    """zk_table with the circuits' variant of each row first (the paper's runs: as published)."""
    var = variants(ctx.df)
    out = table.copy()
    out.insert(0, "variant", [
        "as-published" if k.startswith("paper ") else var.get((k.split(" ")[1], k.split(" ")[2]), "-")
        for k in out.index
    ])  # fmt: skip
    return out


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
    table = with_variant(ctx, zk_table(ctx.df))
    frame = table[[c for c in PAGE_COLUMNS if c in table]].copy()
    failed = set()
    if "passed" in frame:
        failed = {i for i, v in enumerate(frame["passed"]) if v != 1}
        frame["passed"] = ["-" if math.isnan(v) else ("yes" if v == 1 else "FAILED") for v in frame["passed"]]
    for col in ("n", "threads", "constraints"):
        if col in frame:
            frame[col] = [count(v) for v in frame[col]]
    ct = circuits_table(ctx.df)
    said = []
    if not ct.empty:
        r = ct["ours / ZoKrates (proof)"]
        said.append(f"Our circuit's proof takes {ratio(r.min())}-{ratio(r.max())} of the ZoKrates circuit's "
                    f"CPU time on the same native prover.")  # fmt: skip
    caption = "One proof per statement, prover and circuit"
    table = Compact("zksnark_summary", caption, frame, _zk, flagged=failed, index_name="run")
    figure = PageFigure(
        "zksnark_prove",
        "CPU time of one proof: the paper's ZoKrates CLI and our provers (each bar labelled; n and threads "
        "in the table).",
        lambda: prove_bars(ctx.df),
    )
    return page(ctx, EXPERIMENT, MEASURES, said, table, figure)
