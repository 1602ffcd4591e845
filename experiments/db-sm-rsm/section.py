"""db-sm-rsm: the paper's Figure 10 (top table and breakdowns), sizes, and time against n and m;
with the figures a study sets beside them (analysis.experiments.db_sm_rsm.beside) where it draws
these pages."""

from __future__ import annotations

from analysis import units
from analysis.experiments.db_sm_rsm.beside import NOTHING, Beside
from analysis.experiments.db_sm_rsm.details import sizes_table
from analysis.experiments.db_sm_rsm.figure10 import (
    DBRSM_BREAKDOWN,
    DBSM_BREAKDOWN,
    HBC_NOTE,
    TOP_ROWS,
    breakdown_table,
    figure10_top,
)
from analysis.experiments.db_sm_rsm.network import local_only
from analysis.experiments.db_sm_rsm.parser import EXPERIMENT
from analysis.experiments.db_sm_rsm.plots import plot_breakdown, plot_vs_m, plot_vs_n
from analysis.experiments.db_sm_rsm.section_capacity import capacity_section
from analysis.experiments.db_sm_rsm.section_network import network_section
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.sections.common import Compact, Overview, PageFigure, runs_verdict

BREAKDOWN_NOTE = (
    "(M_k) rows: the largest mixer; (Q): the verifier. The rows follow the paper README's mapping of "
    "report lines to Figure 10 (its Experiment 1, step {step}). Times in seconds, wall clock per party."
)
SIZES_NOTE = (
    "As sent: the bytes of every post that carries a line's values (frames whole, TLS records aside), as "
    "a tls run's parties post them and a one-process run counts them: the verifier's posts carry each "
    "signature with its encryption and the encryption's randomness, the mixers' posts in the NIZK sections "
    "each mixer's commit messages and shares. Payload only (paper's lines): the report's size lines, "
    "computed from entry 0 and scaled by n, so bytes per entry compare across n. Paper: PBC serialisation; "
    "ours: compressed points and big-endian integers."
)


_size = units.sig3


KEY_SOURCES = {
    "generated": "generated for the run from the operating system's generator (secret)",
    "seed": "derived from the public seed (not secret), in the run",
    "seed-cache": "derived from the public seed (not secret), read from the key cache",
    "test": "the FIXED TEST KEYS (public constants: insecure, for quick runs only)",
}
# Sources whose runs are few and worth naming one by one.
NAMED_SOURCES = {"test"}
TRANSPORTS = {
    "local": "every party in one process, one after another (as the paper's artifact)",
    "tls": "each mix-server and the verifier in a process of its own, every message a post on a bulletin "
    "board over TLS 1.3",
}


def transport_words(t: str) -> str:
    """A run's transport (`local`, `tls`, `tls/<profile>`) in words."""
    kind, _, profile = t.partition("/")
    words = TRANSPORTS.get(kind, kind)
    if not profile:
        return words
    return words + (", on the host's loopback" if profile == "none" else f", on network profile {profile}")


SEEDED_NOTE = (
    "A run with a seed derives every key and secret (key shares, permutations, blindings, the "
    "verifier's signing keys) from that public seed: it is a reproducible measurement, not a private run."
)


def keys_and_fixes(doc: Doc, ctx: Context) -> None:
    """Where our runs' Paillier keys came from, and what our implementation fixes in the paper's
    artifact, as every run's report lists it."""
    ours = [r for r in ctx.col.runs if r.experiment == "db-sm-rsm" and r.source == "ours"]
    if not ours:
        return
    sources: dict[str, list[str]] = {}
    for r in ours:
        sources.setdefault(r.settings.get("keys", "not stated"), []).append(r.run)
    doc.h2("Keys and fixes")
    lines = [
        f"{len(runs)} run(s): {KEY_SOURCES.get(src, src)}"
        + (": " + ", ".join(runs) if src in NAMED_SOURCES or src not in KEY_SOURCES else "")
        for src, runs in sorted(sources.items())
    ]
    seeded = " " + SEEDED_NOTE if {"seed", "seed-cache"} & sources.keys() else ""
    doc.para(
        "Paillier keys (a 2050-bit threshold key and one 2048-bit key per mixer): "
        + "; ".join(lines)
        + ". Key generation is timed on its own line ('key generation'), outside every party's time "
        "(the paper's artifact loads fixed keys, so its reports have no such line)." + seeded
    )
    transports: dict[str, list[str]] = {}
    for r in ours:
        transports.setdefault(r.settings.get("transport", "local"), []).append(r.run)
    doc.para(
        "Transport: "
        + "; ".join(f"{len(runs)} run(s): {transport_words(t)}" for t, runs in sorted(transports.items()))
        + ". Figure 10's tables and plots above are drawn from the one-process runs only (a tls run's "
        "steps include waiting for other processes); the tls runs are in 'Over the network'."
    )
    fixes: dict[str, str] = {}
    for r in ours:
        for f in r.fixes:
            code, _, what = f.partition(": ")
            fixes.setdefault(code if what else "", what or f)
    if fixes:
        rows = [[code, what] for code, what in fixes.items()]
        doc.table(
            ["code", "what our implementation does differently from the paper's artifact"],
            rows,
            [0.13, 0.87],
            left={1},
            caption="Fixes applied in our runs, as their reports list them (db-sm-rsm/docs/fixes.md).",
        )


def section(doc: Doc, ctx: Context, beside: Beside = NOTHING) -> None:
    """The details: Figure 10's tables and plots, the keys and fixes, the tls runs, the capacity."""
    df = local_only(ctx.df)
    doc.h1("db-sm-rsm: DB-SM and DB-RSM in a mixnet (the paper's Figure 10)")
    doc.para(
        "One column per parameter set: the paper's sample report, then ours (n, m, threads, curve, mode "
        "and security setting in the column name). 'fast' is our optimised implementation; 'paper' "
        "counts the operations the paper's artifact performs. Security '128' uses 128-bit challenges "
        "and 80-bit statistical slack; 'paper' the artifact's shorter lengths. Columns at another n "
        "than the paper's 10000 are a different workload: compare them per entry."
    )
    top = figure10_top(df, beside.top, beside.top_failed)
    flagged = {i for i, c in enumerate(top.table.columns) if c in top.failed}
    ctx.table(doc, "figure10_top", "Figure 10 (top): per-prover and verifier times [s]", top.table,
              index_name="row")  # fmt: skip
    if flagged:
        doc.para("FAILED STATUS in column(s): " + ", ".join(top.failed), small=True)
    doc.para(" ".join([HBC_NOTE, *([beside.top_note] if beside.top_note else [])]), small=True)
    ctx.table(doc, "figure10_dbsm", "Figure 10: DB-SM breakdown [s]", breakdown_table(df, DBSM_BREAKDOWN),
              index_name="step")  # fmt: skip
    doc.para(BREAKDOWN_NOTE.format(step=4), small=True)
    ctx.table(doc, "figure10_dbrsm", "Figure 10: DB-RSM breakdown [s]", breakdown_table(df, DBRSM_BREAKDOWN),
              index_name="step")  # fmt: skip
    doc.para(BREAKDOWN_NOTE.format(step=5), small=True)
    caption = "Sizes per entry [bytes] (MB x 2^20 / n): as sent, and payload only"
    ctx.table(doc, "sizes", caption, sizes_table(df), _size,
              index_name="size")  # fmt: skip
    doc.para(SIZES_NOTE, small=True)
    ctx.plot(
        doc,
        "time_vs_n",
        plot_vs_n(df, beside),
        "Per-prover time against n; collab-zkSNARK and cpSNARK-Set are n x one measured proof.",
    )
    ctx.plot(doc, "time_vs_m", plot_vs_m(df), "Per-prover time against the number of mix-servers m.")
    ctx.plot(
        doc, "breakdown", plot_breakdown(df), "Share of each step in the per-prover time (largest mixer)."
    )
    keys_and_fixes(doc, ctx)
    network_section(doc, ctx, beside)
    capacity_section(doc, ctx)


# ---- the experiment's page (before the appendix) ----------------------------------------------

MEASURES = (
    "The m mix-servers of a mixnet jointly prove, for each of the n ciphertexts, that its input is "
    "among the outputs (DB-SM) and that its output came from some input (DB-RSM). The table gives "
    "the time of one prover (M_k, the largest mixer) and of the verifier (Q) beside the paper's Figure "
    "10 (n = 10000, m = 4); at another n compare per entry."
)


def overview(ctx: Context) -> Overview:
    """The page: the per-prover and verifier times beside the paper's."""
    df = local_only(ctx.df)
    top = figure10_top(df).table
    frame = top.loc[list(TOP_ROWS[:5])].dropna(axis=1, how="all")
    runs, ok = runs_verdict(ctx, EXPERIMENT)
    caption = "Per-prover (M_k) and verifier (Q) time [s], the paper's beside ours"
    figure = (
        "Per-prover time against n (or per entry, where every series has one n); collab-zkSNARK and "
        "cpSNARK-Set are n x one measured proof."
    )
    return Overview(
        measures=MEASURES,
        verdict=runs,
        ok=ok,
        table=Compact("figure10_summary", caption, frame, index_name="row"),
        figure=PageFigure("time_vs_n", figure),
    )
