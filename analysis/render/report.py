"""results/report.pdf and the tables/plots beside it, all drawn from the tidy table."""

from __future__ import annotations

import datetime as dt
import json
import math
import platform
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from analysis import __version__
from analysis.config import AnalysisConfig
from analysis.derive.claims import (
    Claim,
    breakdown_table,
    claims_frame,
    compute_claims,
    figure10_top,
    fmt_value,
)
from analysis.derive.details import cp_table, sizes_table, zk_table
from analysis.derive.estimates import COLLAB_ASSUMPTION
from analysis.derive.figure10 import DBRSM_BREAKDOWN, DBSM_BREAKDOWN, HBC_NOTE
from analysis.render.plots import LANDSCAPE, plot_breakdown, plot_vs_m, plot_vs_n, save_plot
from analysis.render.tables import write_table
from analysis.tidy import EXPERIMENTS, Collection, RunInfo, collect, write_tidy

TIME_BASIS_NOTE = (
    "Time bases: the paper's zkSNARK prove time is the PROVER 'real' line (the README's 'about 2.17 s' "
    "matches 2.178/2.179 s real, which equals user + sys; user alone is 2.130/2.155 s). Ours is the native "
    "ark-groth16 prover's CPU time (user + sys); the zokrates-js wasm prover is in the tidy table but not "
    "used here. db-sm-rsm times are wall-clock per party (sum of its timers), M_k = the largest mixer. "
    "cpSNARK-Set: criterion mean. "
    "Claims prefer runs with one thread and the paper's setting n=10000, m=4 (else the largest n)."
)
EXTRAPOLATION_NOTE = (
    "Extrapolated in n only where the paper did it: collab-zkSNARK and cpSNARK-Set rows are n x one measured "
    "proof (and n x one witness for cpSNARK-Set); DB-SM/DB-RSM are measured at n."
)
PAPER_ROUNDING_NOTE = (
    "'paper (README rounding)' recomputes the README's own numbers from the sample reports: one-proof "
    "times cut to the digits the README quotes (2.17 s, 220 ms, 783 ms) and speed-ups cut to whole numbers."
)


def _wrap(s: str, width: int) -> str:
    return "\n".join(textwrap.fill(p, width) for p in s.split("\n"))


def _page(title: str) -> tuple[Figure, plt.Axes]:
    fig = plt.figure(figsize=LANDSCAPE)
    ax = fig.add_axes((0.04, 0.04, 0.92, 0.86))
    ax.axis("off")
    fig.suptitle(title, fontsize=15, x=0.04, ha="left", y=0.97)
    return fig, ax


def _table(
    ax: plt.Axes,
    header: list[str],
    rows: list[list[str]],
    col_widths: list[float],
    top: float = 1.0,
    font: float = 8.0,
    flagged: set[int] | None = None,
    flagged_cols: set[int] | None = None,
    left_cols: set[int] | None = None,
) -> float:
    """Draw a table in axes coordinates from `top` down; return the bottom y."""
    row_h = 0.034 * font / 8.0
    nlines = max(h.count("\n") + 1 for h in header)
    height = row_h * (len(rows) + nlines)
    tbl = ax.table(
        cellText=rows or [["-"] * len(header)],
        colLabels=header,
        colWidths=col_widths,
        bbox=Bbox.from_bounds(0.0, top - height, float(sum(col_widths)), height),
        cellLoc="right",
    )
    tbl.auto_set_font_size(False)
    tbl.set_fontsize(font)
    for (r, c), cell in tbl.get_celld().items():
        cell.set_linewidth(0.3)
        if c == 0 or (left_cols and c in left_cols):
            cell.set_text_props(ha="left")
            # Cell keeps its alignment in a private field that it re-applies when drawn.
            setattr(cell, "_loc", "left")  # noqa: B010
        if r == 0:
            cell.set_facecolor("#dde4ee")
            cell.set_text_props(weight="bold")
            cell.set_height(cell.get_height() * nlines)
        elif (flagged and r - 1 in flagged) or (flagged_cols and c in flagged_cols):
            cell.set_facecolor("#fbdada")
    return top - height


def title_page(col: Collection, cfg: AnalysisConfig, results_dir: Path, paper_dir: Path) -> Figure:
    fig, ax = _page("Traceable mixnets: benchmark report")
    ours = [r for r in col.runs if r.source == "ours"]
    lines = [
        f"Generated {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M UTC} by analysis {__version__} "
        f"(Python {platform.python_version()}, pandas {pd.__version__}, "
        f"matplotlib {matplotlib.__version__}).",
        f"Results directory: {results_dir}",
        f"Paper's sample reports: {paper_dir}",
        "",
        "Sources present:",
    ]
    for e in EXPERIMENTS:
        srcs = col.present.get(e, [])
        n_ours = sum(1 for r in ours if r.experiment == e)
        state = ", ".join(srcs) if srcs else "none"
        missing = "" if "ours" in srcs else "   <- not run (no results of ours): omitted from our columns"
        lines.append(f"  {e:16s} {state:12s} ({n_ours} report(s) of ours){missing}")
    machines = sorted({json.dumps(r.machine, sort_keys=True) for r in ours if r.machine})
    lines += ["", "Machine(s) of our runs:"]
    for m in machines or ["null"]:
        d = json.loads(m)
        lines.append(
            "  (no machine block)"
            if not d
            else f"  {d.get('hostname')}: {d.get('cpu_model')}, {d.get('logical_cpus')} logical CPUs, "
            f"{d.get('mem_total_gib')} GiB, {d.get('os')}, 1-min load at run time {d.get('load_avg_1m')}"
        )
    threads = sorted({(r.experiment, r.threads) for r in ours}, key=lambda x: (x[0], x[1] or 0))
    lines.append("Threads used: " + (", ".join(f"{e} t={t}" for e, t in threads) or "-"))
    lines.append("Paper's machine: Intel Xeon W-1270 @ 3.4 GHz, 64 GB RAM, one core (README); the published")
    lines.append("  cpSNARK-Set prove figure used all hardware threads (spec cpsnark-sm.md 4.4).")
    versions: dict[str, set[str]] = {}
    for r in ours:
        for k, v in r.versions.items():
            versions.setdefault(k, set()).add(v)
    lines += [
        "",
        "Tool versions: "
        + ("; ".join(f"{k} {', '.join(sorted(v))}" for k, v in sorted(versions.items())) or "-"),
    ]
    fixes = sorted({f for r in ours for f in r.fixes})
    if fixes:
        lines.append("db-sm-rsm fixes of upstream bugs: " + "; ".join(fixes))
    lines += [
        "",
        f"Collaborative factor: {cfg.collab_factor:g} (config: {cfg.path or 'default, no config given'})",
    ]
    if col.notes:
        shown = col.notes[:6]
        more = len(col.notes) - len(shown)
        lines += ["", "Notes:"] + [f"  - {n}" for n in shown]
        if more:
            lines.append(f"  ... and {more} more (see the run statuses page)")
    lines += [
        "",
        "Contents: 2 claims (paper beside ours); 3 Figure 10 top table (with HBC rows); "
        "4-5 DB-SM and DB-RSM breakdowns;",
        "  6 zkSNARK runs (both provers); 7 cpSNARK-Set runs; 8 sizes; 9 run statuses; "
        "10 time vs n; 11 time vs m; 12 per-step breakdown.",
    ]
    text = "\n".join(_wrap(line, 150) if len(line) > 150 else line for line in lines)
    ax.text(0.0, 1.0, text, va="top", ha="left", fontsize=8.5, family="monospace", transform=ax.transAxes)
    if cfg.raw:
        # One compact line per key (the workflow hands over the resolved config as JSON).
        items = [f"{k}: {json.dumps(v)}" for k, v in cfg.raw.items()]
        items = [textwrap.shorten(i, 70) for i in items]
        half = (len(items) + 1) // 2 if len(items) > 14 else len(items)
        cols = [items[:half], items[half:]]
        fig.text(0.04, 0.34, f"Configuration ({cfg.path}):", fontsize=9, weight="bold", va="top")
        for i, chunk in enumerate(c for c in cols if c):
            fig.text(0.04 + 0.42 * i, 0.31, "\n".join(chunk), va="top", ha="left", fontsize=7.5,
                     family="monospace", bbox={"facecolor": "#f4f4f4", "edgecolor": "#bbbbbb"})  # fmt: skip
    return fig


def _cv(c: Claim, v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return fmt_value(v, c.unit) if c.unit == "x" else fmt_value(v)


def claims_rows(claims: list[Claim]) -> tuple[list[str], list[list[str]], set[int]]:
    header = [
        "claim",
        "unit",
        "README",
        "paper\n(README rounding)",
        "paper\n(exact)",
        "ours",
        "ours /\npaper",
        "note",
    ]
    rows, flagged = [], set()
    for i, c in enumerate(claims):
        ratio = "-" if math.isnan(c.ratio) else f"{c.ratio:.3g}"
        ours = _cv(c, c.ours) + (" FAILED" if c.ours_failed else "")
        if c.ours_failed:
            flagged.add(i)
        rows.append(
            [
                c.text,
                c.unit,
                _cv(c, c.readme),
                _cv(c, c.paper_quoted),
                _cv(c, c.paper_exact),
                ours,
                ratio,
                c.note,
            ]
        )
    return header, rows, flagged


def claims_page(claims: list[Claim], factor: float) -> Figure:
    fig, ax = _page("The README's claims: paper beside ours")
    header, rows, flagged = claims_rows(claims)
    rows = [[*r[:-1], textwrap.shorten(r[-1], 75)] for r in rows]
    bottom = _table(
        ax,
        header,
        rows,
        [0.27, 0.03, 0.06, 0.1, 0.07, 0.09, 0.05, 0.33],
        font=7,
        flagged=flagged,
        left_cols={7},
    )
    notes = "\n".join(
        _wrap(s, 190)
        for s in (
            COLLAB_ASSUMPTION.format(factor=factor),
            EXTRAPOLATION_NOTE,
            TIME_BASIS_NOTE,
            PAPER_ROUNDING_NOTE,
            "Speed-ups (x) are theirs / ours; 'ours / paper' > 1 means our figure is larger (like for like "
            "only when our n and m are the paper's 10000 and 4). Rows shaded red come from a run with a "
            "FAILED status.",
        )
    )
    ax.text(0.0, bottom - 0.03, notes, va="top", fontsize=7.5, transform=ax.transAxes)
    return fig


def _split_col(name: str) -> str:
    if " m=" in name or " t=" in name or " (no" in name:
        return name.replace(" m=", "\nm=").replace(" t=", "\nt=").replace(" (no", "\n(no")
    return textwrap.fill(name, 9, break_long_words=False)


def frame_rows(
    table: pd.DataFrame, cell: Callable[[str, float], str] | None = None
) -> tuple[list[str], list[list[str]]]:
    """Header and formatted cells of a table (index as the first column)."""

    def default(_col: str, v: float) -> str:
        return fmt_value(v)

    f = cell or default
    header = ["row", *(_split_col(str(c)) for c in table.columns)]
    rows = [
        [str(idx), *(f(str(c), float(v)) for c, v in zip(table.columns, r, strict=True))]
        for idx, r in zip(table.index, table.values, strict=True)
    ]
    return header, rows


def table_page(
    title: str,
    table: pd.DataFrame,
    failed: list[str],
    notes: list[str],
    cell: Callable[[str, float], str] | None = None,
    first_width: float = 0.34,
    flagged_rows: set[int] | None = None,
    unit_note: str = "All times in seconds; '-' = not run or not timed by that implementation.",
) -> Figure:
    fig, ax = _page(title)
    header, rows = frame_rows(table, cell)
    ncols = max(1, len(table.columns))
    width = min(0.14, (0.96 - first_width) / ncols)
    flagged_cols = {i + 1 for i, c in enumerate(table.columns) if c in failed}
    font = 8.0 if len(rows) <= 20 else max(5.0, 8.0 * 20 / len(rows))
    bottom = _table(ax, header, rows, [first_width] + [width] * ncols, font=font, flagged_cols=flagged_cols,
                    flagged=flagged_rows)  # fmt: skip
    extra = [unit_note]
    if failed:
        extra.append("FAILED STATUS in the shaded column(s): " + ", ".join(failed))
    ax.text(0.0, bottom - 0.03, "\n".join(_wrap(s, 190) for s in extra + notes), va="top", fontsize=7.5,
            transform=ax.transAxes)  # fmt: skip
    return fig


def zk_cell(col: str, v: float) -> str:
    if col == "passed":
        return "-" if math.isnan(v) else ("PASSED" if v == 1 else "FAILED")
    if col in ("n", "threads", "constraints"):
        return "-" if math.isnan(v) else f"{v:.0f}"
    return fmt_value(v)


def cp_cell(col: str, v: float) -> str:
    if col in ("n", "threads"):
        return "-" if math.isnan(v) else f"{v:.0f}"
    return "-" if math.isnan(v) else f"{v:.4g}"


def size_cell(_col: str, v: float) -> str:
    return "-" if math.isnan(v) else f"{v:,.2f}"


STATUS_HEADER = ["experiment", "source", "run", "threads", "status"]


def status_rows(runs: list[RunInfo]) -> list[list[str]]:
    return [
        [
            r.experiment,
            r.source,
            r.run,
            "-" if r.threads is None else str(r.threads),
            "ok" if r.ok else "FAILED: " + ", ".join(r.failed),
        ]
        for r in runs
    ]


def status_page(runs: list[RunInfo]) -> Figure:
    fig, ax = _page("Runs parsed and their verification status")
    header = STATUS_HEADER
    rows = status_rows(runs)
    flagged = {i for i, r in enumerate(runs) if not r.ok}
    font = 8.0 if len(rows) < 22 else max(4.5, 8.0 * 22 / len(rows))
    _table(ax, header, rows, [0.14, 0.07, 0.45, 0.06, 0.28], font=font, flagged=flagged, left_cols={1, 2, 4})
    return fig


def figure_page(fig: Figure) -> Figure:
    fig.set_size_inches(*LANDSCAPE)
    return fig


def progress(msg: str) -> None:
    print(f"analysis: {msg}", file=sys.stderr, flush=True)


@dataclass
class TableSpec:
    name: str
    caption: str
    table: pd.DataFrame
    failed: list[str]
    notes: list[str]
    cell: Callable[[str, float], str] | None = None
    first_width: float = 0.34
    flagged_rows: set[int] | None = None
    unit_note: str = "All times in seconds; '-' = not run or not timed by that implementation."


BREAKDOWN_NOTE = (
    "(M_k) rows: the largest mixer; (Q): the verifier. Row mapping: README 'Experiment 1', step {step} "
    "(spec db-sm-rsm.md 7.2/7.3)."
)
ZK_NOTE = (
    "Paper: ZoKrates 0.8.x CLI, single-threaded ark prover. Ours: zokrates-js compiles the same circuit; "
    "'wasm' is zokrates-js's own prover, 'native' proves the exported R1CS with ark-groth16 at the stated "
    "thread count. The claims use the native prover. prove = witness computation + proof (as the paper timed "
    "it); CPU = user + sys (the paper's user + sys equals its real time, 2.178/2.179 s)."
)
CP_NOTE = (
    "One proof each; the claims multiply prove and witness by n (as the README does); the witness is "
    "computed over n copies of one prime, as upstream's bench does ('hashed primes': over n real "
    "hash-to-prime outputs, ours only). The paper's proving "
    "figure used all hardware threads (spec cpsnark-sm.md 4.4); verify and witness are effectively "
    "single-threaded."
)
SIZES_NOTE = (
    "The report's size lines are computed from entry 0 and scaled by n, so bytes per entry compare across n. "
    "Paper: PBC serialisation minus one byte; ours: as documented by the db-sm-rsm implementation."
)


def build_report(results_dir: Path, paper_dir: Path, cfg: AnalysisConfig) -> list[Path]:
    """Tidy table, every table (CSV/MD/LaTeX), every plot (PDF/PNG) and report.pdf."""
    progress(f"parsing reports under {results_dir / 'raw'} and {paper_dir}")
    col = collect(results_dir, paper_dir if paper_dir.is_dir() else None)
    progress(f"{len(col.runs)} report(s), {len(col.df)} rows in the tidy table")
    if not paper_dir.is_dir():
        col.notes.append(f"paper sample reports not found at {paper_dir}: paper columns are empty")
    written = list(write_tidy(col.df, results_dir))
    df = col.df
    tdir, pdir = results_dir / "tables", results_dir / "plots"
    factor = cfg.collab_factor

    claims = compute_claims(df, factor)
    header, rows, _ = claims_rows(claims)
    written += write_table(
        claims_frame(claims).set_index("claim"),
        header,
        rows,
        "claims",
        tdir,
        "The README's claims: paper beside ours",
    )
    top = figure10_top(df, factor)
    zk = zk_table(df)
    zk_failed = {i for i, v in enumerate(zk["passed"]) if v == 0} if "passed" in zk else set()
    tables = [
        TableSpec("figure10_top", "Figure 10 (top): per-prover and verifier times", top.table, top.failed,
                  [HBC_NOTE, COLLAB_ASSUMPTION.format(factor=factor), EXTRAPOLATION_NOTE]),
        TableSpec("figure10_dbsm", "Figure 10: DB-SM breakdown (README mapping)",
                  breakdown_table(df, DBSM_BREAKDOWN), top.failed, [BREAKDOWN_NOTE.format(step=4)]),
        TableSpec("figure10_dbrsm", "Figure 10: DB-RSM breakdown (README mapping)",
                  breakdown_table(df, DBRSM_BREAKDOWN), top.failed, [BREAKDOWN_NOTE.format(step=5)]),
        TableSpec("zksnark_runs", "zkSNARK runs: every prover (one proof)", zk, [], [ZK_NOTE], zk_cell, 0.3,
                  zk_failed),
        TableSpec("cpsnark_runs", "cpSNARK-Set runs: criterion mean and 95% CI (one proof)", cp_table(df), [],
                  [CP_NOTE], cp_cell, 0.3, unit_note="'-' = not measured."),
        TableSpec("sizes", "db-sm-rsm published sizes per entry (bytes = MB x 2^20 / n)", sizes_table(df), [],
                  [SIZES_NOTE], size_cell, 0.3, unit_note="Bytes per entry; '-' = not reported."),
    ]  # fmt: skip
    for t in tables:
        h, r = frame_rows(t.table, t.cell)
        written += write_table(t.table, h, r, t.name, tdir, t.caption)
    srows = status_rows(col.runs)
    raw_status = pd.DataFrame(srows, columns=STATUS_HEADER).set_index("experiment")
    written += write_table(raw_status, STATUS_HEADER, srows, "runs", tdir, "Runs parsed and their status")
    progress(f"tables written to {tdir}; drawing plots")
    plots = [
        ("time_vs_n", plot_vs_n(df, factor)),
        ("time_vs_m", plot_vs_m(df)),
        ("breakdown", plot_breakdown(df)),
    ]
    for name, fig in plots:
        written += save_plot(fig, name, pdir)

    pdf = results_dir / "report.pdf"
    progress(f"rendering {pdf}")
    tmp = results_dir / "report.pdf.tmp"
    with PdfPages(tmp) as pages:
        d = pages.infodict()
        d["Title"] = "Traceable mixnets: benchmark report"
        d["Creator"] = f"analysis {__version__}"
        for fig in (
            title_page(col, cfg, results_dir, paper_dir),
            claims_page(claims, factor),
            *(
                table_page(
                    t.caption, t.table, t.failed, t.notes, t.cell, t.first_width, t.flagged_rows, t.unit_note
                )
                for t in tables
            ),
            status_page(col.runs),
            *(figure_page(f) for _n, f in plots),
        ):
            pages.savefig(fig)
            plt.close(fig)
    tmp.replace(pdf)
    written.append(pdf)
    return written
