"""The PDF as a flowing document (reportlab): headings that are bookmarks and table-of-contents
entries, paragraphs, tables that continue on the next page with their header repeated, figures
that shrink to the room left on a page, page-numbered cross-references, and a coloured box for
what must not be missed.

A report has two parts: the main part (what an evaluator reads: the answer, then one or two pages
per experiment) and the appendix (the configuration, every detail table, every run). Writers add
to whichever part `Doc.part` names; `build` puts the appendix after the main part. Headings of the
main part are numbered (1, 2, ...), those of the appendix lettered (A, B, ...).

Pages are A4 landscape: the comparison tables have a column per parameter set or party and the
figures two panels side by side, which fit a landscape page's 27 cm without wrapping every cell.

Every page carries a footer with the report's title, the commit of the code and the page number.
The document is written to a temporary file and renamed, so no reader sees half a report.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import cm
from reportlab.lib.utils import ImageReader
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Frame,
    ListFlowable,
    ListItem,
    LongTable,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.flowables import Flowable
from reportlab.platypus.tableofcontents import TableOfContents

PAGE = landscape(A4)
MARGIN = 1.4 * cm
WIDTH = PAGE[0] - 2 * MARGIN
HEIGHT = PAGE[1] - 2 * MARGIN
FOOTER_Y = 0.7 * cm  # the footer's baseline, inside the bottom margin

_styles = getSampleStyleSheet()
BODY = ParagraphStyle("body", parent=_styles["BodyText"], fontSize=9, leading=11.5, spaceAfter=4)
SMALL = ParagraphStyle("small", parent=BODY, fontSize=7.5, leading=9.2, spaceAfter=2)
CELL = ParagraphStyle("cell", parent=BODY, fontSize=7, leading=8.4, spaceAfter=0, alignment=TA_LEFT)
CELL_R = ParagraphStyle("cell_r", parent=CELL, alignment=TA_RIGHT)
HEAD = ParagraphStyle("head", parent=CELL, fontName="Helvetica-Bold")
H1 = ParagraphStyle("h1", parent=_styles["Heading1"], fontSize=16, spaceBefore=4, spaceAfter=6)
H2 = ParagraphStyle("h2", parent=_styles["Heading2"], fontSize=12, spaceBefore=8, spaceAfter=4)
TITLE = ParagraphStyle("title", parent=_styles["Title"], fontSize=20, alignment=TA_LEFT, spaceAfter=2)
CAPTION = ParagraphStyle("caption", parent=SMALL, alignment=TA_CENTER)
TOC_STYLES = [
    ParagraphStyle(
        "toc0", parent=BODY, fontName="Helvetica-Bold", fontSize=9, leading=11, spaceBefore=1, spaceAfter=0
    ),
    ParagraphStyle("toc1", parent=BODY, fontSize=8, leading=9.5, leftIndent=14, spaceBefore=0, spaceAfter=0),
]
TOC_TABLE = TableStyle([
    ("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
    ("RIGHTPADDING", (0, 0), (-1, -1), 0), ("TOPPADDING", (0, 0), (-1, -1), 0.5),
    ("BOTTOMPADDING", (0, 0), (-1, -1), 0.5),
])  # fmt: skip

RED = colors.HexColor("#fbdada")
GREEN = colors.HexColor("#dff3df")
GREY = colors.HexColor("#eeeeee")
HEADER_BG = colors.HexColor("#dde4ee")
GRID = colors.HexColor("#9aa5b4")
LINK = "#1f4e99"

# Headings a reader jumps to appear in the table of contents down to this level; deeper ones are
# bookmarks only.
TOC_DEPTH = 1


def text(s: str) -> str:
    """Plain text made safe for a reportlab paragraph (which reads a little HTML)."""
    return escape(s).replace("\n", "<br/>")


def link(key: str, label: str) -> str:
    """Paragraph markup: `label` (plain text) as a link to the heading `key`."""
    return f'<a href="#{key}" color="{LINK}">{text(label)}</a>'


class Heading(Paragraph):
    """A heading: a bookmark in the outline, an entry of the table of contents (to `TOC_DEPTH`)."""

    def __init__(self, title: str, style: ParagraphStyle, level: int, key: str, label: str) -> None:
        super().__init__(text(label), style)
        self.toc = (level, title, key)
        self.in_toc = True


class PageRefs(Flowable):
    """Lines 'title ... page N' linking to headings, each N the heading's page in the previous
    pass of the build (the document is built until every page number holds)."""

    def __init__(
        self, entries: Sequence[tuple[str, str]], columns: int = 2, style: ParagraphStyle = SMALL
    ) -> None:
        super().__init__()
        self.entries = list(entries)  # (key, title)
        self.columns = columns
        self.style = style
        self._pages: dict[str, int] = {}
        self._last: dict[str, int] = {}
        self._table: Table | None = None

    def isIndexing(self) -> int:
        return 1

    def isSatisfied(self) -> int:
        return int(self._pages == self._last)

    def beforeBuild(self) -> None:
        self._last, self._pages = self._pages, {}

    def afterBuild(self) -> None:
        pass

    def notify(self, kind: str, stuff: Any) -> None:
        if kind == "Anchor":
            key, page = stuff
            self._pages[key] = page

    def _build_table(self) -> Table:
        cells = []
        for key, title in self.entries:
            page = self._last.get(key)
            cells.append([Paragraph(link(key, title), self.style),
                          Paragraph(link(key, f"page {page if page else '?'}"), ParagraphStyle(
                              "ref_r", parent=self.style, alignment=TA_RIGHT))])  # fmt: skip
        per = -(-len(cells) // self.columns) if cells else 1
        rows = []
        for i in range(per):
            row: list[Any] = []
            for c in range(self.columns):
                k = c * per + i
                row += cells[k] if k < len(cells) else ["", ""]
            rows.append(row)
        col = WIDTH / self.columns
        t = Table(rows, colWidths=[col * 0.8, col * 0.2] * self.columns)
        t.setStyle(TableStyle([
            ("TOPPADDING", (0, 0), (-1, -1), 0.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 0.5),
            ("LEFTPADDING", (0, 0), (-1, -1), 2), ("RIGHTPADDING", (0, 0), (-1, -1), 8),
        ]))  # fmt: skip
        return t

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        self._table = self._build_table()
        return self._table.wrap(aw, ah)

    def draw(self) -> None:
        assert self._table is not None
        self._table.drawOn(self.canv, 0, 0)


SPARE = 6.0  # points below a figure's caption (the space before what follows)


class FitFigure(Flowable):
    """An image with its caption below, as large as `max_h` allows, shrunk to the room left on the
    page down to `min_h` (smaller than that it moves to the next page)."""

    def __init__(self, png: Path, caption: str, max_h: float, min_h: float) -> None:
        super().__init__()
        self.png = str(png)
        iw, ih = ImageReader(self.png).getSize()
        self.ratio = iw / ih
        self.caption = Paragraph(text(caption), CAPTION)
        self.max_h, self.min_h = max_h, min_h
        self.w = self.h = self.cap_h = 0.0

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        _, self.cap_h = self.caption.wrap(aw, ah)
        full = min(self.max_h, aw / self.ratio)
        room = ah - self.cap_h - 4 - SPARE
        self.h = full if room < min(self.min_h, full) else min(full, room)
        self.w = self.h * self.ratio
        self.width = aw
        return aw, self.h + self.cap_h + 4 + SPARE

    def split(self, aw: float, ah: float) -> list[Flowable]:
        return []  # never split: the whole figure moves to the next page

    def draw(self) -> None:
        x = (self.width - self.w) / 2
        self.canv.drawImage(self.png, x, SPARE + self.cap_h + 4, self.w, self.h)
        self.caption.drawOn(self.canv, 0, SPARE)


class _Template(BaseDocTemplate):
    """The document: one frame per page, headings bookmarked and announced to the indexing
    flowables (the table of contents, the page references)."""

    def __init__(self, filename: str, footer: str, appendix_from: list[int], **kw: Any) -> None:
        super().__init__(filename, **kw)
        self.footer = footer
        frame = Frame(MARGIN, MARGIN, WIDTH, HEIGHT, id="body", leftPadding=0, rightPadding=0,
                      topPadding=0, bottomPadding=0)  # fmt: skip
        self.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=self._footer)])
        self.appendix_from = appendix_from  # [page] once the appendix has started (this pass)

    def _footer(self, canvas: Any, doc: Any) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 7)
        canvas.drawString(MARGIN, FOOTER_Y, self.footer)
        part = " (appendix)" if self.appendix_from and doc.page >= self.appendix_from[0] else ""
        canvas.drawRightString(PAGE[0] - MARGIN, FOOTER_Y, f"page {doc.page}{part}")
        canvas.restoreState()

    def afterFlowable(self, flowable: Flowable) -> None:
        toc = getattr(flowable, "toc", None)
        if toc is None:
            return
        level, title, key = toc
        if key == "appendix" and not self.appendix_from:
            self.appendix_from.append(self.page)
        self.canv.bookmarkPage(key)
        self.canv.addOutlineEntry(title, key, level=level, closed=level >= 1)
        self.notify("Anchor", (key, self.page))
        if level <= TOC_DEPTH and getattr(flowable, "in_toc", True):
            self.notify("TOCEntry", (level, text(title), self.page, key))


@dataclass
class Doc:
    """A report under construction: add flowables to the current `part`, then `build` it."""

    path: Path
    title: str
    footer: str = ""
    story: list[Flowable] = field(default_factory=list)  # the main part
    appendix: list[Flowable] = field(default_factory=list)
    part: str = "main"  # "main" or "appendix": where the writers add
    _numbers: dict[str, int] = field(default_factory=lambda: {"main": 0, "appendix": 0})
    _anchor: str | None = None
    _keys: set[str] = field(default_factory=set)
    headings: list[tuple[str, int, str, str]] = field(default_factory=list)  # part, level, key, title

    @property
    def out(self) -> list[Flowable]:
        return self.appendix if self.part == "appendix" else self.story

    # ---- headings ------------------------------------------------------------------------------

    def anchor(self, key: str) -> None:
        """The key (for cross-references) of the next top heading of the current part."""
        self._anchor = key

    def _key(self, want: str | None, title: str) -> str:
        base = want or "h-" + "".join(ch if ch.isalnum() else "-" for ch in title.lower())[:40]
        key, k = base, 1
        while key in self._keys:
            k += 1
            key = f"{base}-{k}"
        self._keys.add(key)
        return key

    def _heading(self, s: str, style: ParagraphStyle, depth: int, key: str | None) -> str:
        level = depth + (1 if self.part == "appendix" else 0)
        label = s
        if depth == 0:
            self._numbers[self.part] += 1
            n = self._numbers[self.part]
            label = f"{n}. {s}" if self.part == "main" else f"{_letter(n)}. {s}"
        key = self._key(key, s)
        self.out.append(Heading(label, style, level, key, label))
        self.headings.append((self.part, level, key, label))
        return key

    def h1(self, s: str, new_page: bool = True, key: str | None = None) -> str:
        """A numbered top heading (a lettered one in the appendix), bookmarked; returns its key."""
        if new_page and self.out:
            self.out.append(PageBreak())
        key, self._anchor = key or self._anchor, None
        return self._heading(s, H1, 0, key)

    def h2(self, s: str, key: str | None = None) -> str:
        # A heading never sits alone at the foot of a page.
        self.out.append(CondPageBreak(4 * cm))
        return self._heading(s, H2, 1, key)

    def unnumbered(
        self, s: str, key: str, toc: str | None = None, new_page: bool = True, style: ParagraphStyle = H1
    ) -> str:
        """A top heading outside the numbering, bookmarked as `toc` (its text if None); an empty
        `toc` keeps it out of the table of contents (a bookmark only)."""
        if new_page and self.out:
            self.out.append(PageBreak())
        self._keys.add(key)
        title = s if toc is None else toc
        h = Heading(title or s, style, 0, key, s)
        h.in_toc = bool(title)
        self.out.append(h)
        self.headings.append((self.part, 0, key, title or s))
        return key

    # ---- text ----------------------------------------------------------------------------------

    def title_block(self, title: str, subtitle: str) -> None:
        self.out.extend([Paragraph(text(title), TITLE), Paragraph(text(subtitle), SMALL), Spacer(1, 4)])

    def para(self, s: str, small: bool = False, markup: bool = False) -> None:
        self.out.append(Paragraph(s if markup else text(s), SMALL if small else BODY))

    def bullets(self, items: Sequence[str], small: bool = False, markup: bool = False) -> None:
        style = SMALL if small else BODY
        self.out.append(
            ListFlowable(
                [ListItem(Paragraph(i if markup else text(i), style), leftIndent=12) for i in items],
                bulletType="bullet",
                start="•",
                leftIndent=12,
            )
        )

    def box(self, lines: Sequence[str], ok: bool | None, markup: bool = False) -> None:
        """A shaded box: green when all is well, red to list what failed, grey to inform."""
        cells = [[Paragraph(line if markup else text(line), BODY)] for line in lines]
        t = Table(cells, colWidths=[WIDTH])
        bg = GREY if ok is None else (GREEN if ok else RED)
        t.setStyle(TableStyle([
            ("BACKGROUND", (0, 0), (-1, -1), bg),
            ("BOX", (0, 0), (-1, -1), 0.8, colors.black),
            ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
        ]))  # fmt: skip
        self.out.extend([t, Spacer(1, 5)])

    def refs(self, entries: Sequence[tuple[str, str]], columns: int = 2) -> None:
        """Links to headings by key, each with its page number."""
        self.out.append(PageRefs(entries, columns))

    def contents(self) -> None:
        """The table of contents (its page numbers are filled in by the build)."""
        toc = TableOfContents(dotsMinLevel=0, tableStyle=TOC_TABLE)
        toc.levelStyles = TOC_STYLES
        self.out.append(toc)

    def page_break(self) -> None:
        self.out.append(PageBreak())

    # ---- tables and figures --------------------------------------------------------------------

    def table(
        self,
        header: Sequence[str],
        rows: Sequence[Sequence[str]],
        widths: Sequence[float] | None = None,
        flagged: set[int] | None = None,
        left: set[int] | None = None,
        caption: str | None = None,
    ) -> None:
        """A table that continues over pages with its header repeated; `widths` are fractions of
        the page width (scaled down to fit it); rows in `flagged` are shaded red; columns in `left`
        align left (the first always does)."""
        left = {0} | (left or set())
        widths = list(widths) if widths else [1.0 / len(header)] * len(header)
        scale = WIDTH / sum(widths) if sum(widths) > 1 else WIDTH
        col_w = [w * scale for w in widths]
        data = [[Paragraph(text(h), HEAD) for h in header]]
        for r in rows:
            data.append([Paragraph(text(c), CELL if i in left else CELL_R) for i, c in enumerate(r)])
        if not rows:
            data.append([Paragraph("(none)", CELL)] + [Paragraph("", CELL)] * (len(header) - 1))
        t = LongTable(data, colWidths=col_w, repeatRows=1)
        style = [
            ("BACKGROUND", (0, 0), (-1, 0), HEADER_BG),
            ("GRID", (0, 0), (-1, -1), 0.25, GRID),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("TOPPADDING", (0, 0), (-1, -1), 1.5),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
            ("LEFTPADDING", (0, 0), (-1, -1), 3),
            ("RIGHTPADDING", (0, 0), (-1, -1), 3),
        ]
        for i in sorted(flagged or ()):
            style.append(("BACKGROUND", (0, i + 1), (-1, i + 1), RED))
        t.setStyle(TableStyle(style))
        if caption:
            # A caption stays with the table's first rows; the table itself flows over pages.
            self.out.extend([CondPageBreak(2 * cm), Paragraph(text(caption), SMALL)])
        self.out.extend([t, Spacer(1, 5)])

    def figure(self, png: Path, caption: str, height_cm: float = 12.0, min_cm: float = 7.0) -> None:
        """An image at most `height_cm` high, shrunk down to `min_cm` to fit the room left."""
        self.out.append(FitFigure(png, caption, height_cm * cm, min(min_cm, height_cm) * cm))

    # ---- the file ------------------------------------------------------------------------------

    def build(self) -> Path:
        tmp = self.path.with_name(self.path.name + ".tmp")
        appendix_from: list[int] = []
        doc = _Template(
            str(tmp), self.footer, appendix_from, pagesize=PAGE, leftMargin=MARGIN, rightMargin=MARGIN,
            topMargin=MARGIN, bottomMargin=MARGIN, title=self.title, author="python -m analysis",
        )  # fmt: skip

        def reset(*_: Any) -> None:
            appendix_from.clear()

        story = list(self.story)
        if self.appendix:
            story += [PageBreak(), Heading("Appendix", H1, 0, "appendix", "Appendix"), *self.appendix]
        doc.setProgressCallBack(lambda kind, value: reset() if kind == "PASS" else None)
        doc.multiBuild(story)
        tmp.replace(self.path)
        return self.path


def _letter(n: int) -> str:
    """A, B, ..., Z, AA, AB, ... for the appendix's sections."""
    out = ""
    while n:
        n, r = divmod(n - 1, 26)
        out = string.ascii_uppercase[r] + out
    return out
