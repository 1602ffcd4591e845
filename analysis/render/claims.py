"""A chapter's claims as the report shows them: the table of page one and of the terminal summary
(the claims our runs cover: the published figure, ours, the verdict), the claims in full in the
appendix (the stated figure, the published one recomputed with the statement's rounding and
exactly, ours, ours with a measured factor, the verdict and how ours was made), and the text of
`python -m analysis claims`. The words come from the chapter (analysis.render.chapter.ClaimWords).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from analysis import units
from analysis.derive.claims import Claim, claims_frame, verdict
from analysis.render.chapter import ClaimWords
from analysis.render.context import Context, cell
from analysis.render.pdf import Doc
from analysis.render.tables import write_table
from analysis.text import text_table


def unit_format(unit: str) -> Callable[[float], str]:
    def fmt(v: float) -> str:
        return units.value(v, unit)

    return fmt


def with_unit_format(unit: str) -> Callable[[float], str]:
    def fmt(v: float) -> str:
        return units.with_unit(v, unit)

    return fmt


def covered_claims(claims: list[Claim]) -> list[Claim]:
    """The claims our runs give a figure for."""
    return [c for c in claims if not math.isnan(c.ours)]


def claim_row(c: Claim) -> list[str]:
    """claim, published, ours, verdict: as page 1 and the terminal summary show it."""
    fmt = with_unit_format(c.unit)
    ours = cell(c.ours_spread if c.ours_spread else c.ours, fmt)
    if c.ours_failed:
        ours += " FAILED"
    return [c.text, cell(c.paper_exact, fmt), ours, verdict(c)]


def page_one_table(doc: Doc, claims: list[Claim], words: ClaimWords) -> None:
    """The claims our runs cover, on page 1 (or a line saying that they cover none)."""
    covered = covered_claims(claims)
    if not covered:
        doc.para(f"{words.none} (see the sections).", small=True)
        return
    rows = [claim_row(c) for c in covered]
    flagged = {i for i, c in enumerate(covered) if c.ours_failed}
    doc.table([words.claims, words.published, "ours", "verdict"], rows, [0.3, 0.08, 0.2, 0.42],
              flagged=flagged, left={3}, caption=words.caption)  # fmt: skip


def terminal_lines(claims: list[Claim], words: ClaimWords) -> list[str]:
    """The claims our runs cover, as the summary at the end of a workflow run prints them."""
    covered = covered_claims(claims)
    if not covered:
        return ["", f"{words.none} (see the PDF's sections)."]
    width = max(len(c.text) for c in covered)
    lines = ["", f"{words.claims.ljust(width)}  {words.published:>12}  {'ours':>26}  verdict"]
    for c in covered:
        text, published, ours, says = claim_row(c)
        lines.append(f"{text.ljust(width)}  {published:>12}  {ours:>26}  {says}")
    return lines


def in_full(doc: Doc, ctx: Context, claims: list[Claim], words: ClaimWords, key: str) -> None:
    """The appendix's section of every claim: stated, recomputed (with the statement's rounding
    and exactly), ours, ours with a measured factor, the verdict and how ours was made; also
    written as results/tables/<key>.* (`key` is the section's anchor too)."""
    doc.h1(words.title, key=key)
    doc.para(words.intro)
    s, p = words.stated, words.published
    header = ["claim", s, f"{p} ({s} rounding)", f"{p} (exact)", "ours", words.measured, "verdict",
              "how ours was made"]  # fmt: skip
    rows, flagged = [], set()
    for i, c in enumerate(claims):
        fmt = unit_format(c.unit)
        ours = cell(c.ours_spread if c.ours_spread else c.ours, fmt)
        if not c.comparable and c.per_entry and not math.isnan(c.ours):
            per_ours, per_published = c.per_entry_values()
            ours += f" (per entry {units.value(per_ours)}; {p} {units.value(per_published)})"
        if c.ours_failed:
            ours += " FAILED"
            flagged.add(i)
        stated = units.stated(c.readme if c.readme is not None else math.nan, c.unit)
        measured = "" if math.isnan(c.ours_measured) else f"{cell(c.ours_measured, fmt)}, {c.measured_note}"
        quoted, exact = units.stated(c.paper_quoted, c.unit), units.stated(c.paper_exact, c.unit)
        rows.append([c.text, stated, quoted, exact, ours, measured, verdict(c), c.note])
    frame = claims_frame(claims).set_index("claim")
    ctx.written += write_table(frame, header, rows, key, ctx.results_dir / "tables", words.table)
    doc.para(words.note, small=True)
    doc.table(header, rows, [0.18, 0.05, 0.07, 0.07, 0.14, 0.12, 0.17, 0.2], flagged=flagged, left={5, 6, 7})


def _figure(c: Claim, v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.4g}x" if c.unit == "x" else f"{v:,.6g} s"


def claims_text(claims: list[Claim], words: ClaimWords, published_only: bool) -> str:
    """`python -m analysis claims`: the claims recomputed from the published figures alone (with
    the statement's rounding and exactly), or beside ours with the verdict."""
    s = words.stated
    if published_only:
        headers = ["claim", s, f"recomputed ({s} rounding)", "recomputed (exact)"]
        rows = [[c.text, _figure(c, c.readme), _figure(c, c.paper_quoted), _figure(c, c.paper_exact)]
                for c in claims]  # fmt: skip
        return text_table(headers, rows) + "\n" + words.arithmetic
    headers = ["claim", s, f"{words.published} (exact)", "ours", "verdict", "note"]
    rows = []
    for c in claims:
        ours = _figure(c, c.ours) + (" FAILED" if c.ours_failed else "")
        rows.append([c.text, _figure(c, c.readme), _figure(c, c.paper_exact), ours, verdict(c), c.note])
    return text_table(headers, rows)
