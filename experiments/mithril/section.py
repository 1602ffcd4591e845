"""mithril: Mithril's mergeable multisignatures, natively on BLS12-381 beside the lower bounds, and
the randomised aggregation proven in a halo2 circuit over BN254, beside the reference's published
figures (its curves, machines and thread counts stated); the fitted lines drawn, extrapolations
labelled as such."""

from __future__ import annotations

import math
from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis.experiments.mithril.derive import (
    _ours,
    _reference,
    _time,
    extrapolated_table,
    fit_text,
    native_table,
    proof_table,
    reference_table,
    size_table,
    stm_table,
    target_table,
)
from analysis.experiments.mithril.parser import BATCH_OPERATIONS, EXPERIMENT, OPERATIONS
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.sections.common import (
    Compact,
    Overview,
    PageFigure,
    count,
    log_axes,
    machines_and_failures,
    median,
    page,
    ratio,
)

INTRO = (
    "Mithril certifies that a stake-weighted quorum signed a message with mergeable multisignatures "
    "(MSP): BLS signatures whose keys and signatures add up. MSP.A aggregates by plain sums; MSP.B "
    "weights each key and signature by e_i, a 128-bit hash of all the signatures and i, so that errors "
    "cannot cancel across signatures (the cancellation check below: valid s1, s2 submitted as s1 + D, "
    "s2 - D pass plain aggregation and fail the weighted one). MSP.Ver is one two-pair pairing check. "
    "Native: BLS12-381 with blst, keys in G2 and signatures in G1 as in Mithril. In the circuit: MSP.B "
    "over BN254 with halo2-base / halo2-ecc 0.5.5 (the curve those libraries provide, and the reference's): "
    "public inputs H(m), the aggregate and a commitment to the signers' keys; weights from an "
    "in-circuit Poseidon of the signatures; one multi-scalar multiplication per group with 128-bit "
    "weights; one BLS check whose result is constrained to hold (by a residue witness instead of the "
    "final exponentiation, unless the run says final-exp)."
)
ASSUMPTIONS = (
    "What the circuit assumes: (1) the keys were checked for membership of G2's order-r subgroup (and "
    "for possession) when they were registered, as in Mithril: the circuit checks that each key is on "
    "the curve and bound to the commitment, not its order, and its G2 arithmetic assumes points of "
    "order r (a key moved off the subgroup is refused by the BLS check in the tests, by nothing else); "
    "(2) the verifier computes H(m) from the message and the key commitment from the registered keys "
    "itself: the circuit takes H(m) as given, and the commitment binds the proof to the registered "
    "keys only when it is the verifier's own. The tests refuse, under halo2's MockProver, a "
    "non-canonical signature coordinate, a wrong residue witness and a key outside the subgroup, each "
    "checked against the relation with the constraint it meets left out."
)
STM_NOTE = (
    "mithril-stm (crates.io, Mithril's own implementation) at the same signer counts in the same run. "
    "verify_aggregate is like for like: its BlsSignature::verify_aggregate (BLAKE2b weights, two 128-bit "
    "multi-scalar multiplications, H(m), one pairing check) against our BKey + BSig + Ver on the same "
    "keys, signatures and message, timed in alternation; both call blst's Pippenger and pairing, so "
    "the ratio stays near 1. stm_verify is a different workload, shown for scale: its full STM "
    "verification (each included signature's lottery indices, the Merkle batch path of the "
    "registrations, the quorum of k = 357 of m = 2642, the multisignature over the included "
    "signatures only). Its multi-scalar multiplications run on blst's own pool, one thread per CPU the "
    "process may use (CPU time counts them all)."
)
REFERENCE = (
    "Compared with: the report 'Mithril MSP and Benchmark' (Zhejiang University, 2024), which proves the "
    "same aggregation with halo2-lib over BN254: 254-bit weights and one independent scalar "
    "multiplication per signature in each group, summed (window 4). Its machines: a "
    "server with a 48-core Xeon Silver 4214 and 128 GB (MSP.B, k = 19), and an Apple M1 laptop with 16 GB "
    "(three circuit shapes, keys in G1 and in G2); MSP.A's machine is not stated. It states no thread "
    "count (halo2's prover uses every core by default). Its proving time is its benchmark's proof step; "
    "ours (prove) is witness generation and the prover, with the parameters and keys timed apart."
)
NATIVE_NOTE = (
    "CPU time (process, all threads) per call, median [min-max] over the repetitions of one run; wall "
    "time per call, median. lower bound = the same library's counted operations on the same data, timed "
    "in alternation with the operation: n - 1 additions for akey and asig; BLAKE2b over the signatures "
    "for the weights; one blst Pippenger multi-scalar multiplication with 128-bit scalars for bkey and "
    "bsig; a two-pair Miller loop and one final exponentiation for ver; their sums for the totals; a "
    "(b + 1)-pair Miller loop for a batch of b aggregates. b_total = BKey + BSig + Ver with the weights "
    "computed once. batch_verify and ver_each: b aggregates of 4 signers each, checked at once or one "
    "by one (their n column is b)."
)
SIZE_NOTE = (
    "advice cells: cells of halo2-base's main gate; lookup cells: cells copied into the range-check "
    "lookup columns; k: log2 of the rows, the smallest k >= 17 with at most the run's column budget. "
    "per signature: the advice cells added per signer from the previous n. The reference's design row: one "
    "254-bit scalar multiplication per group per signature (window 4), counted with the same chips in "
    "the same run, i.e. what each signature costs the reference's circuit."
)
PROOF_NOTE = (
    "Ours: a real proof per n (KZG over BN254, made in a child process of its own), verified, and "
    "refused with any public input changed and with a bit of the proof flipped. keys = verifying and "
    "proving key; prove = witness generation + prover (CPU: all threads; wall: on a shared machine, "
    "inflated by its load); peak memory = the child's peak RSS (parameters, keys and proof). Reference: its "
    "published proving and verification times at the same n, on its own machines (above), thread count "
    "not stated; its curve and limbs are the same as ours (BN254, 3 limbs of 88 or 90 bits)."
)


# ---- the plots -------------------------------------------------------------------------------


def plot_native(df: pd.DataFrame) -> Figure:
    """CPU per call of each native operation against n (smallest thread count), with the bounds."""
    d = _ours(df)
    d = d[(d["variant"] == "native") & d["section"].isin(OPERATIONS) & ~d["section"].isin(BATCH_OPERATIONS)]
    fig, ax = plt.subplots(figsize=(10, 5.5))
    if len(d):
        t = int(d["threads"].min())
        d = d[d["threads"] == t]
        for op in [o for o in OPERATIONS if o in set(d["section"])]:
            g = d[d["section"] == op]
            ns = sorted({int(n) for n in g["n"]})
            cpu = [median(g[g["n"] == n], "cpu_median") for n in ns]
            bound = [median(g[g["n"] == n], "lower_bound_cpu") for n in ns]
            (line,) = ax.plot(ns, cpu, marker="o", ms=4, label=op)
            ax.plot(ns, bound, ls=":", color=line.get_color(), lw=1)
        ax.axhline(0.010, color="red", ls="--", lw=1, label="target for b_total at n = 64 (10 ms)")
        ax.set_title(
            f"native MSP on BLS12-381, {'one thread' if t == 1 else f'{t} threads'}: "
            "CPU per call (lines), lower bounds (dotted)"
        )
    log_axes(ax, "signers n", "CPU time per call [s]", ncol=2)
    fig.tight_layout()
    return fig


def _fit(d: pd.DataFrame, label: str) -> tuple[float, float]:
    g = d[(d["section"] == "fit") & (d["label"] == label)]
    return median(g, "intercept"), median(g, "slope")


def plot_circuit(df: pd.DataFrame) -> Figure:
    """Left: advice cells against n, the fitted line and its extrapolations, and the reference's design
    at the same intercept. Right: proving time against n, ours (CPU and wall) with the fitted lines
    and extrapolations, the reference's on its server and M1."""
    d = _ours(df)
    d = d[d["variant"] == "circuit"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12.5, 5.5))
    sizes = d[(d["section"] == "size") & (d["metric"] == "advice_cells")]
    main_mode = sizes["mode"].mode()
    sizes = sizes[sizes["mode"] == main_mode.iloc[0]] if len(main_mode) else sizes
    ext = d[d["section"] == "extrapolated"]
    ns = sorted({int(n) for n in sizes["n"].dropna()})
    if ns:
        cells = [median(sizes[sizes["n"] == n], "advice_cells") / 1e6 for n in ns]
        left.plot(ns, cells, "o", color="tab:blue", label="ours, counted")
        a, b = _fit(d, "advice_cells")
        xn = sorted({*ns, *(int(n) for n in ext["n"].dropna())})
        if not math.isnan(b):
            xs = np.linspace(min(xn), max(xn), 100)
            left.plot(
                xs,
                (a + b * xs) / 1e6,
                "-",
                color="tab:blue",
                lw=1,
                label=f"fit: {a / 1e6:.2f} M + {b / 1e3:.0f} k x n",
            )
            reference_per = median(d[d["section"] == "reference design"], "cells_per_signature")
            if not math.isnan(reference_per):
                left.plot(
                    xs,
                    (a + reference_per * xs) / 1e6,
                    "--",
                    color="tab:red",
                    lw=1,
                    label=f"the reference's design: {reference_per / 1e3:.0f} k per signature (same chips)",
                )
        en = sorted({int(n) for n in ext["n"].dropna()})
        ev = [median(ext[ext["n"] == n], "advice_cells") / 1e6 for n in en]
        if en:
            left.plot(en, ev, "o", mfc="none", color="tab:blue", label="ours, extrapolated (fit)")
    log_axes(left, "signers n", "advice cells [millions]", "MSP.B circuit size (BN254)")

    proved = d[d["section"] == "prove_total"]
    pn = sorted({int(n) for n in proved["n"].dropna()})
    en = sorted({int(n) for n in ext["n"].dropna()})
    for metric, label, colour in (("cpu", "CPU", "tab:blue"), ("wall", "wall", "tab:green")):
        if not pn:
            break
        v = [median(proved[proved["n"] == n], metric) for n in pn]
        threads = sorted({int(t) for t in proved["threads"].dropna()})
        tt = "/".join(map(str, threads))
        right.plot(pn, v, "o", color=colour, label=f"ours, prove {label} ({tt} threads)")
        a, b = _fit(d, f"prove_{metric}_s")
        if not math.isnan(b):
            xs = np.linspace(min(pn), max(pn), 50)
            right.plot(xs, a + b * xs, "-", lw=1, color=colour)
            if en:
                xe = np.linspace(max(pn), max(en), 50)
                right.plot(xe, a + b * xe, ":", lw=1, color=colour)
                ev = [median(ext[ext["n"] == n], f"prove_{metric}_s") for n in en]
                right.plot(en, ev, "o", mfc="none", color=colour, label=f"ours, {label} extrapolated (fit)")
    s = _reference(df)
    s = s[s["variant"] == "msp_b"]
    for word, marker, colour, name in (
        ("Xeon", "*", "tab:red", "reference, 48-core server"),
        ("M1", "^", "tab:purple", "reference, M1 16 GB (fastest shape)"),
    ):
        g = s[s["machine"].str.contains(word, regex=False)]
        ok = g[g["metric"] == "prove_published"]
        xs = sorted({int(n) for n in ok["n"]})
        if xs:
            right.plot(
                xs,
                [float(ok[ok["n"] == n]["value"].min()) for n in xs],
                marker,
                ms=10,
                ls="none",
                mfc="none",
                color=colour,
                label=name,
            )
        killed = g[(g["metric"] == "status") & (g["value"] == 0)]
        for n in sorted({int(n) for n in killed["n"]}):
            right.axvline(n, color=colour, ls="--", lw=0.8)
            right.annotate(
                f"{name.split(',')[1].strip()}: killed at n = {n} (out of memory)",
                (n, 0.98),
                xycoords=("data", "axes fraction"),
                rotation=90,
                va="top",
                ha="right",
                fontsize=6,
                color=colour,
            )
    log_axes(right, "signers n", "proving time [s]", "MSP.B proofs: ours against the reference's")
    fig.tight_layout()
    return fig


# ---- the section -----------------------------------------------------------------------------


def _fmts(frame: pd.DataFrame, default: Callable[[float], str]) -> dict[str, Callable[..., str]]:
    out: dict[str, Callable[..., str]] = {}
    for c in frame.columns:
        name = str(c)
        if name in ("threads", "shape", "machine", "keys in", "met", "measured", "bound"):
            out[name] = str
        elif "/" in name or name.endswith("[s]"):
            out[name] = ratio
        elif "[" in name or name in ("k", "advice cells", "lookup cells", "advice columns", "per signature"):
            out[name] = count
        else:
            out[name] = default
    return out


def section(doc: Doc, ctx: Context) -> None:
    doc.h1("mithril: Mithril's multisignature aggregation, native and proven in a circuit")
    doc.para(INTRO)
    doc.para(ASSUMPTIONS)
    doc.para(REFERENCE)
    if _ours(ctx.df).empty:
        doc.para("No mithril results.")
        return
    machines_and_failures(
        doc,
        ctx,
        EXPERIMENT,
        "The thread count is stated in every table.",
        "FAILED: a mithril check, proof or circuit run failed:",
    )
    _targets(doc, ctx)
    _native(doc, ctx)
    _stm(doc, ctx)
    doc.h2("The MSP.B circuit: size and proofs, beside the reference's")
    _circuit_sizes(doc, ctx)
    _circuit_proofs(doc, ctx)
    _reference_figures(doc, ctx)


def _targets(doc: Doc, ctx: Context) -> None:
    """The crate's targets against the measurements."""
    doc.h2("The targets")
    t, bad = target_table(ctx.df)
    if t.empty:
        doc.para("The runs evaluated no target (no native run at n = 64 and no circuit run).")
        return
    ctx.table(
        doc,
        "mithril_targets",
        "mithril: the crate's targets against the measurements (compared in the analysis)",
        t,
        _fmts(t, str),
        [0.46, 0.14, 0.1, 0.08, 0.14, 0.08],
        flagged=bad,
        index_name="target",
    )
    doc.para(
        "The cells per signature are the slope of the line fitted to the counted circuits; n = 8's "
        "proving time is wall time (the reference's figure is one, on 16 GB M1 with all its cores), "
        "so it depends on this machine's load, given above; its CPU time is in the proof table.",
        small=True,
    )


def _native(doc: Doc, ctx: Context) -> None:
    """Native MSP on BLS12-381: every operation beside its bound, the cancellation check, the plot."""
    doc.h2("Native MSP on BLS12-381")
    nt = native_table(ctx.df)
    if nt.empty:
        return
    ctx.table(
        doc,
        "mithril_native",
        "mithril: native operations, CPU time per call",
        nt,
        _fmts(nt, _time),
        [0.34, 0.26, 0.13, 0.14, 0.13],
        index_name="operation, size, threads",
    )
    doc.para(NATIVE_NOTE, small=True)
    ours = _ours(ctx.df)
    canc = ours[(ours["section"] == "cancellation") & (ours["metric"] == "passed")]
    if len(canc):
        held = bool((canc["value"] == 1).all())
        doc.para(
            "Cancellation check (valid s1, s2 submitted as s1 + D, s2 - D): "
            + (
                "plain aggregation accepts, weighted aggregation rejects, in every run."
                if held
                else "FAILED in a run (see the run list)."
            ),
            small=True,
        )
    ctx.plot(
        doc,
        "mithril_native",
        plot_native(ctx.df),
        "mithril: native CPU time per call against the signer count (log-log), each operation's "
        "counted-operation lower bound dotted.",
    )


def _stm(doc: Doc, ctx: Context) -> None:
    """Ours / mithril-stm, measured in the same run."""
    rt = stm_table(ctx.df)
    if rt.empty:
        return
    doc.h2("Beside mithril-stm, measured in the same run")
    ctx.table(
        doc,
        "mithril_stm",
        "mithril: ours / mithril-stm per operation, same run, CPU time per call",
        rt,
        {"workload": str, "ours": _time, "mithril-stm": _time, "ours / mithril-stm": ratio},
        [0.2, 0.44, 0.12, 0.12, 0.12],
        index_name="operation, n, threads",
    )
    doc.para(STM_NOTE, small=True)


def _circuit_sizes(doc: Doc, ctx: Context) -> None:
    """The circuit's size per signer count, and the fitted lines in words."""
    st = size_table(ctx.df)
    if not st.empty:
        ctx.table(
            doc,
            "mithril_sizes",
            "mithril: circuit size per signer count (BN254, 3 x 88-bit limbs, window 4)",
            st,
            _fmts(st, count),
            index_name="n, BLS check",
        )
        doc.para(SIZE_NOTE, small=True)
    fits = fit_text(ctx.df)
    if fits:
        doc.para(f"Fitted lines (least squares against n): {fits}.", small=True)


def _circuit_proofs(doc: Doc, ctx: Context) -> None:
    """The real proofs beside the reference's times, the extrapolations, the plot."""
    pt = proof_table(ctx.df)
    if not pt.empty:
        fmts = _fmts(pt, _time)
        fmts.update({"reference server": _time, "reference M1": _time})
        ctx.table(
            doc,
            "mithril_proofs",
            "mithril: real proofs per signer count, ours beside the reference's proving time at the same n",
            pt,
            fmts,
            index_name="n",
        )
        doc.para(PROOF_NOTE, small=True)
    et = extrapolated_table(ctx.df)
    if not et.empty:
        ctx.table(
            doc,
            "mithril_extrapolated",
            (
                "mithril: EXTRAPOLATED from the fitted lines, not measured (lines in n fitted over the "
                "measured n; a larger n needs a larger k, which these lines do not foresee)"
            ),
            et,
            _fmts(et, _time),
            index_name="n",
        )
    ctx.plot(
        doc,
        "mithril_circuit",
        plot_circuit(ctx.df),
        "mithril: left, advice cells against n, counted (dots), the fitted line, its extrapolations "
        "(hollow) and the reference's per-signature design; right, proving time (witness + prover) against "
        "n, ours in CPU and wall time with the fitted lines (dotted beyond the measured n, extrapolated "
        "points hollow), the reference's published times on its machines (thread counts not stated).",
    )


def _reference_figures(doc: Doc, ctx: Context) -> None:
    """Every figure the reference published."""
    sd = reference_table(ctx.df)
    if sd.empty:
        return
    ctx.table(
        doc,
        "mithril_reference",
        "mithril: every figure the reference published (its machines; thread counts not stated)",
        sd,
        _fmts(sd, _time),
        [0.14, 0.08, 0.12, 0.1, 0.1, 0.22, 0.24],
        index_name="reference",
    )


# ---- the experiment's page (before the appendix) ----------------------------------------------

MEASURES = (
    "Mithril certifies that a stake-weighted quorum signed a message with mergeable BLS "
    "multisignatures; we aggregate and verify natively on BLS12-381 beside each operation's counted "
    "lower bound, and prove the weighted aggregation in a halo2 circuit over BN254 beside the "
    "reference report's published proving times."
)


def overview(ctx: Context) -> Overview:
    t, bad = target_table(ctx.df)
    if t.empty:
        said = "The runs evaluated no target (no native run at n = 64 and no circuit run)."
        return page(ctx, EXPERIMENT, MEASURES, [said], None, PageFigure("mithril_circuit"))
    said = "Every target met." if not bad else f"{len(bad)} target(s) missed (shaded red)."
    table = Compact(
        "mithril_summary",
        "The targets, evaluated by the analysis on the measurements",
        t,
        _fmts(t, str),
        widths=[0.46, 0.14, 0.1, 0.08, 0.14, 0.08],
        flagged=bad,
        index_name="target",
    )
    return page(ctx, EXPERIMENT, MEASURES, [said], table, PageFigure("mithril_circuit"), met=not bad)
