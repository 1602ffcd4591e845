"""The PDF as a flowing document (reportlab): headings, paragraphs, tables that continue on the
next page with their header repeated, figures, and a coloured box for what must not be missed.

Every page carries a footer with the report's title, the commit of the code and the page number.
The document is written to a temporary file and renamed, so no reader sees half a report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT, TA_RIGHT
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import cm
from reportlab.platypus import (
    CondPageBreak,
    Image,
    KeepTogether,
    ListFlowable,
    ListItem,
    LongTable,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.flowables import Flowable

PAGE = landscape(A4)
MARGIN = 1.4 * cm
WIDTH = PAGE[0] - 2 * MARGIN

_styles = getSampleStyleSheet()
BODY = ParagraphStyle("body", parent=_styles["BodyText"], fontSize=9, leading=11.5, spaceAfter=4)
SMALL = ParagraphStyle("small", parent=BODY, fontSize=7.5, leading=9.2, spaceAfter=2)
CELL = ParagraphStyle("cell", parent=BODY, fontSize=7, leading=8.4, spaceAfter=0, alignment=TA_LEFT)
CELL_R = ParagraphStyle("cell_r", parent=CELL, alignment=TA_RIGHT)
HEAD = ParagraphStyle("head", parent=CELL, fontName="Helvetica-Bold")
H1 = ParagraphStyle("h1", parent=_styles["Heading1"], fontSize=16, spaceBefore=4, spaceAfter=6)
H2 = ParagraphStyle("h2", parent=_styles["Heading2"], fontSize=12, spaceBefore=8, spaceAfter=4)
TITLE = ParagraphStyle("title", parent=_styles["Title"], fontSize=20, alignment=TA_LEFT)

RED = colors.HexColor("#fbdada")
GREEN = colors.HexColor("#dff3df")
HEADER_BG = colors.HexColor("#dde4ee")
GRID = colors.HexColor("#9aa5b4")


def text(s: str) -> str:
    """Plain text made safe for a reportlab paragraph (which reads a little HTML)."""
    return escape(s).replace("\n", "<br/>")


@dataclass
class Doc:
    """A report under construction: add flowables, then `build` it."""

    path: Path
    title: str
    footer: str = ""
    story: list[Flowable] = field(default_factory=list)

    def title_block(self, title: str, subtitle: str) -> None:
        self.story += [Paragraph(text(title), TITLE), Paragraph(text(subtitle), BODY), Spacer(1, 6)]

    def h1(self, s: str, new_page: bool = True) -> None:
        if new_page and self.story:
            self.story.append(PageBreak())
        self.story.append(Paragraph(text(s), H1))

    def h2(self, s: str) -> None:
        # A heading never sits alone at the foot of a page.
        self.story += [CondPageBreak(4 * cm), Paragraph(text(s), H2)]

    def para(self, s: str, small: bool = False, markup: bool = False) -> None:
        self.story.append(Paragraph(s if markup else text(s), SMALL if small else BODY))

    def bullets(self, items: Sequence[str], small: bool = False, markup: bool = False) -> None:
        style = SMALL if small else BODY
        self.story.append(
            ListFlowable(
                [ListItem(Paragraph(i if markup else text(i), style), leftIndent=12) for i in items],
                bulletType="bullet",
                start="•",
                leftIndent=12,
            )
        )

    def box(self, lines: Sequence[str], ok: bool) -> None:
        """A shaded box: green when all is well, red to list what failed."""
        cells = [[Paragraph(text(line), BODY)] for line in lines]
        t = Table(cells, colWidths=[WIDTH])
        t.setStyle(TableStyle([
            ("BACKGROUND", (0, 0), (-1, -1), GREEN if ok else RED),
            ("BOX", (0, 0), (-1, -1), 0.8, colors.black),
            ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
        ]))  # fmt: skip
        self.story += [t, Spacer(1, 6)]

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
        the page width; rows in `flagged` are shaded red; columns in `left` align left (the first
        always does)."""
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
            # A caption stays with at least the first rows of its table.
            self.story += [CondPageBreak(3 * cm), Paragraph(text(caption), SMALL)]
        self.story += [t, Spacer(1, 6)]

    def figure(self, png: Path, caption: str, height_cm: float = 12.0) -> None:
        img = Image(str(png))
        ratio = img.imageWidth / img.imageHeight
        h = height_cm * cm
        w = min(WIDTH, h * ratio)
        img.drawWidth, img.drawHeight = w, w / ratio
        self.story.append(KeepTogether([img, Paragraph(text(caption), SMALL), Spacer(1, 6)]))

    def build(self) -> Path:
        tmp = self.path.with_name(self.path.name + ".tmp")
        footer = self.footer

        def on_page(canvas, doc) -> None:  # type: ignore[no-untyped-def]  # noqa: ANN001
            canvas.saveState()
            canvas.setFont("Helvetica", 7)
            canvas.drawString(MARGIN, 0.7 * cm, footer)
            canvas.drawRightString(PAGE[0] - MARGIN, 0.7 * cm, f"page {doc.page}")
            canvas.restoreState()

        doc = SimpleDocTemplate(
            str(tmp), pagesize=PAGE, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN,
            bottomMargin=MARGIN, title=self.title, author="python -m analysis",
        )  # fmt: skip
        doc.build(self.story, onFirstPage=on_page, onLaterPages=on_page)
        tmp.replace(self.path)
        return self.path
