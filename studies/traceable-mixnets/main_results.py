"""The paper's Main Results 1 and 2 made like with like (analysis.studies.traceable_mixnets
.comparisons), on the report's first page and in its appendix."""

from __future__ import annotations

from analysis import units
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.tables import write_table
from analysis.studies.traceable_mixnets.comparisons import Pairing, pairings, pairings_frame


def pair_row(p: Pairing) -> list[str]:
    return [p.kind, p.statement, f"{p.n:,}", p.zk_text, units.seconds(p.zk_s), p.db_text,
            units.seconds(p.db_s), units.ratio(p.ratio)]  # fmt: skip


PAIR_HEADER = ["pair", "", "n", "collaborative zkSNARK, n proofs", "time", "DB side", "time", "ratio"]
PAIR_WIDTHS = [0.09, 0.03, 0.045, 0.4, 0.055, 0.28, 0.05, 0.05]


def summary(doc: Doc, ctx: Context) -> None:
    """Page 1: the like-for-like pairs under the claims."""
    ps = pairings(ctx.df)
    if ps:
        doc.table(PAIR_HEADER, [pair_row(p) for p in ps], PAIR_WIDTHS, left={1, 3, 5},
                  caption="Main Results 1 and 2, like with like: each ratio divides two figures built the "
                  "same way, at one n (how to read them: 'How to read this report').")  # fmt: skip


def appendix(doc: Doc, ctx: Context) -> None:
    """The appendix's section: what each pair divides, and every pair (also as a table file)."""
    ps = pairings(ctx.df)
    doc.h2("Main Results 1 and 2, like with like")
    doc.para(
        "The paper divides a collaborative zkSNARK's per-prover time for n proofs by DB-SM's (DB-RSM's). "
        "Each row below makes that division with both sides built the same way: the paper's figures "
        "against each other; ours made the paper's way (paper mode, the paper's ZoKrates circuit, the 2x "
        "rule); the same with the collaborative factor measured by the collaborative Groth16 experiment; and "
        "our best against "
        "the strongest baseline (fast mode at 128-bit security against our optimised circuit with the "
        "measured factor). A pair is only formed at one set size n."
    )
    if not ps:
        doc.para("No pair could be formed from these runs.")
        return
    frame = pairings_frame(ps).set_index("pair")
    rows = [pair_row(p) for p in ps]
    ctx.written += write_table(frame, PAIR_HEADER, rows, "comparisons", ctx.results_dir / "tables",
                               "Main Results 1 and 2, like with like")  # fmt: skip
    doc.table(PAIR_HEADER, rows, PAIR_WIDTHS, left={1, 3, 5})
