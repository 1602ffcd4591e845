"""The PDF's layout, checked on its pages as images: the smoke configuration's report (synthetic
results) rendered with pdftoppm (Debian's poppler-utils; scripts/install installs it)."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pytest
import yaml
from PIL import Image
from pypdf import PdfReader

from analysis import experiments, units
from analysis.cli import main
from analysis.config import for_results
from analysis.render import pdf as layout
from analysis.render.claims import claim_row, covered_claims
from analysis.render.plots import degenerate
from analysis.studies.traceable_mixnets.claims import compute_claims
from analysis.tests import synth
from analysis.tidy import collect

REPO = Path(__file__).resolve().parents[2]
DPI = 40
INK = 200  # a pixel darker than this (of 255) is ink
SLACK = 3  # pixels of tolerance at the frame's edges


def smoke_config() -> dict[str, Any]:
    cfg = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
    cfg.pop("results", None)
    return synth.config(**cfg)


def render(root: Path, paper_dir: Path, cfg: dict[str, Any]) -> Path:
    synth.make_results(root, paper_dir, cfg)
    assert main(["report", str(root), "--paper-dir", str(paper_dir)]) == 0
    return root / "report.pdf"


@pytest.fixture(scope="module")
def smoke_pdf(tmp_path_factory: pytest.TempPathFactory, paper_dir: Path) -> Path:
    return render(tmp_path_factory.mktemp("smoke"), paper_dir, smoke_config())


def outline(pdf: Path) -> list[tuple[int, str, int]]:
    """Every bookmark as (level, title, page index from 0)."""
    reader = PdfReader(str(pdf))
    out: list[tuple[int, str, int]] = []

    def walk(items: list[Any], level: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
            else:
                out.append((level, str(item.title), reader.get_destination_page_number(item)))

    walk(reader.outline, 0)
    return out


def page_text(pdf: Path, index: int | None = None) -> str:
    reader = PdfReader(str(pdf))
    pages = reader.pages if index is None else [reader.pages[index]]
    return re.sub(r"\s+", " ", " ".join(p.extract_text() or "" for p in pages))


def page_images(pdf: Path, out: Path) -> list[np.ndarray]:
    exe = shutil.which("pdftoppm")
    if exe is None:
        pytest.skip("pdftoppm not found: install Debian's poppler-utils (scripts/install does)")
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([exe, "-r", str(DPI), "-gray", "-png", str(pdf), str(out / "page")], check=True)
    files = sorted(out.glob("page-*.png"), key=lambda f: int(f.stem.split("-")[-1]))
    return [np.asarray(Image.open(f).convert("L")) for f in files]


def px(points: float) -> int:
    return round(points * DPI / 72)


def test_nothing_runs_past_the_page_edge_and_no_page_is_half_blank(smoke_pdf: Path, tmp_path: Path) -> None:
    images = page_images(smoke_pdf, tmp_path / "pages")
    marks = outline(smoke_pdf)
    assert len(images) == len(PdfReader(str(smoke_pdf)).pages)
    # A page is a section's last when the next page starts a section (a bookmark of level 0 or 1:
    # the main part's sections, the appendix and its sections), or when it is the document's last.
    starts = {page for level, _, page in marks if level <= 1}
    left, right = px(layout.MARGIN), px(layout.PAGE[0] - layout.MARGIN)
    top, bottom = px(layout.MARGIN), px(layout.PAGE[1] - layout.MARGIN)
    footer_top = px(layout.PAGE[1] - layout.FOOTER_Y - 9)  # the footer line's 7-point text
    half_blank = []
    for i, img in enumerate(images):
        ink = img < INK
        h, w = ink.shape
        assert (h, w) == (px(layout.PAGE[1]), px(layout.PAGE[0])), f"page {i + 1}: size {w}x{h}"
        outside = ink.copy()
        outside[top - SLACK : bottom + SLACK, left - SLACK : right + SLACK] = False
        outside[footer_top:, left - SLACK : right + SLACK] = False  # the footer
        ys, xs = np.nonzero(outside)
        assert not len(ys), f"page {i + 1}: ink outside the page's frame at (x, y) = ({xs[0]}, {ys[0]}) px"
        rows = np.nonzero(ink[top - SLACK : bottom + SLACK].any(axis=1))[0]
        used = (rows.max() + 1) / (bottom - top) if len(rows) else 0.0
        if used < 0.5 and i + 1 not in starts and i + 1 < len(images):
            half_blank.append(f"page {i + 1} ({used:.0%} used)")
    assert not half_blank, "more than half blank, not a section's last page: " + ", ".join(half_blank)


def test_page_one_answers(smoke_pdf: Path, paper_dir: Path) -> None:
    first = page_text(smoke_pdf, 0)
    col = collect(smoke_pdf.parent, paper_dir, for_results(smoke_pdf.parent))
    runs = {(r.experiment, Path(r.path).parent) for r in col.runs if r.source == "ours"}
    assert f"All {len(runs)} runs verified" in first
    for line in ("What ran:", "Where:", "Commit:"):
        assert line in first, line
    assert synth.PROVENANCE["commit"] in first
    assert "natively" in first or "runner not recorded" in first
    # The configuration table is in the appendix, not on page 1.
    assert "configuration key" not in first
    # Every claim's row: on page 1 as the terminal prints it.
    claims = covered_claims(compute_claims(col.df, 2.0))
    assert claims
    for c in claims:
        for cell in claim_row(c):
            assert cell in first, f"{c.text}: {cell!r} not on page 1"
    summary = (smoke_pdf.parent / "summary.txt").read_text()
    for c in claims:
        assert " ".join(claim_row(c)[1:3]) in re.sub(r"\s+", " ", summary)
    # Like-for-like pairs, and a page number for every section.
    assert "like with like" in first and "best against best" in first
    assert "page ?" not in first
    for e in experiments.all_experiments():
        assert e.name in first


def test_bookmarks_name_every_section(smoke_pdf: Path) -> None:
    marks = outline(smoke_pdf)
    titles = [t for _, t, _ in marks]
    top = [t for level, t, _ in marks if level == 0]
    for e in experiments.all_experiments():
        assert any(t.endswith(f"{e.name}: {e.title}") for t in top), e.name
        # ... and its details in the appendix.
        assert sum(e.name in t for t in titles) >= 2, e.name
    assert "Appendix" in top and any("How to read this report" in t for t in top)
    appendix = next(p for level, t, p in marks if level == 0 and t == "Appendix")
    # Each experiment's page comes before the appendix, in one or two pages.
    starts = sorted(p for level, _, p in marks if level == 0)
    for e in experiments.all_experiments():
        page = next(p for level, t, p in marks if level == 0 and t.endswith(f"{e.name}: {e.title}"))
        nxt = min(p for p in starts if p > page)
        assert page < appendix and nxt - page <= 2, (e.name, page, nxt)
    # The contents list the sections with their pages.
    contents = next(p for _, t, p in marks if t == "Contents")
    text = page_text(smoke_pdf, contents)
    assert "Contents" in text and "Appendix" in text


def test_a_default_size_report_has_at_most_20_pages_before_the_appendix(
    tmp_path: Path, paper_dir: Path
) -> None:
    pdf = render(tmp_path, paper_dir, synth.config())
    appendix = next(p for level, t, p in outline(pdf) if level == 0 and t == "Appendix")
    assert appendix <= 20, f"{appendix} pages before the appendix"


def test_numbers_have_three_significant_digits_and_units() -> None:
    assert units.seconds(2.178) == "2.18 s" and units.seconds(0.0312) == "31.2 ms"
    assert units.seconds(43560) == "43,600 s" and units.seconds(0.99951) == "1.00 s"
    assert units.seconds(4.567e-6) == "4.57 us" and units.seconds(math.nan) == "-"
    assert units.gib(23.54016876220703) == "23.5 GiB" and units.mib(300.4) == "300 MiB"
    assert units.ratio(86.12) == "86.1x" and units.count(35091) == "35,091"
    assert units.nbytes(4.19e6) == "4.19 MB" and units.sig3(0.000123456) == "0.000123"


def test_a_plot_with_one_value_per_series_is_not_drawn() -> None:
    fig, ax = plt.subplots()
    ax.plot([4], [1.0], "o", label="ours")
    ax.plot([4], [2.0], "*", label="paper")
    ax.axhline(2.0)  # a reference line is not a series
    ax.set_xlabel("m (mix-servers)")
    why = degenerate(fig)
    assert why is not None and "m (mix-servers)" in why
    fig, ax = plt.subplots()
    ax.plot([2, 4], [1.0, 2.0])
    assert degenerate(fig) is None
    fig, ax = plt.subplots()
    ax.bar(["a", "b"], [1.0, 2.0])
    ax.plot([0], [1.5], "*")  # a reference mark on one bar
    assert degenerate(fig) is None
    fig, (left, right) = plt.subplots(1, 2)
    left.plot([1], [1.0], "o")
    left.set_xlabel("n")
    right.plot([1, 2], [1.0, 2.0])
    assert degenerate(fig) is None and not left.axison  # the flat panel is emptied and says so
    assert any("one value of n" in t.get_text() for t in left.texts)
    plt.close("all")


def test_the_db_plots_against_one_m_or_n_become_bars(tmp_path: Path, paper_dir: Path) -> None:
    from analysis.experiments.db_sm_rsm.plots import plot_vs_m, plot_vs_n
    from analysis.studies.traceable_mixnets.baselines import beside_dbsm

    synth.make_results(tmp_path, paper_dir, synth.config(entries=16, experiments=["db-sm-rsm"]))
    df = collect(tmp_path, paper_dir, for_results(tmp_path)).df
    for fig in (plot_vs_m(df), plot_vs_n(df, beside_dbsm(df, 2.0))):
        ax = fig.axes[0]
        assert ax.patches and degenerate(fig) is None  # a bar chart
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert any("n=16" in t for t in labels) and any("n=10,000" in t for t in labels)
        assert "per entry" in ax.get_ylabel()
    plt.close("all")


def markdown_rows(path: Path) -> list[list[str]]:
    """The body rows of a Markdown table the report wrote (its caption and header left out)."""
    lines = [ln for ln in path.read_text().splitlines() if ln.startswith("| ")][1:]
    return [[c.strip() for c in ln.strip("|").split(" | ")] for ln in lines]


def test_the_capacity_table_is_the_command_lines(smoke_pdf: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m analysis capacity --results` prints the cells the PDF's db-sm-rsm section shows:
    the capacity at election sizes and each smoke run of db-sm-rsm beside the model."""
    results = smoke_pdf.parent
    assert main(["capacity", "--results", str(results)]) == 0
    printed = capsys.readouterr().out
    lines = [re.split(r"\s{2,}", ln.strip()) for ln in printed.splitlines()]
    text = page_text(smoke_pdf)
    for name in ("dbsm_capacity", "dbsm_capacity_check"):
        rows = markdown_rows(results / "tables" / f"{name}.md")
        assert rows, name
        for row in rows:
            assert row in lines, f"{name}: {row} not printed by the command line"
            assert " ".join(row) in text, f"{name}: {row} not in the PDF"
    elections = [r[0] for r in markdown_rows(results / "tables" / "dbsm_capacity.md")]
    assert elections == ["n = 100,000, m = 4", "n = 1,000,000, m = 4", "n = 10,000,000, m = 4"]
    assert "Capacity: elections of 10^5 to 10^7 ballots" in text
    assert "The model's relative error" in printed and "The model's relative error" in text
