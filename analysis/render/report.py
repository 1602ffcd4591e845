"""results/report.pdf, the tables and plots beside it, and the terminal summary: all drawn from
the tidy table of the configured runs, by the experiments' sections and the chapters of the
studies it is handed (analysis.render.chapter), none of which it names.

The PDF answers first. Page 1: did every run verify, what ran where at which commit, the page of
every section, then each chapter's claims beside ours with the verdict (the summary the terminal
prints) and its parts for page one. Then the contents, how to read the report (each chapter's
terms, then the shared ones), each chapter's pages, and one or two pages per experiment (its
section's `overview`, or the chapter's that draws it: what it measures, the verdict, one compact
table, one figure). The appendix holds the configuration, each chapter's claims in full and its
appendix parts, every experiment's detail tables (its section's `section`) and every run with its
status.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from analysis import SUITE, __version__, experiments, units
from analysis.config import RunConfig
from analysis.derive.claims import Claim
from analysis.experiments import Experiment
from analysis.parse.common import RunInfo
from analysis.render import claims as claims_view
from analysis.render.chapter import Chapter, Pages, Part, Place
from analysis.render.context import Context
from analysis.render.pdf import TITLE as TITLE_STYLE
from analysis.render.pdf import Doc
from analysis.render.sections.common import Overview
from analysis.render.tables import write_table
from analysis.tidy import Collection, collect, write_tidy

TITLE = f"{SUITE}: benchmark report"
# The main figure of an experiment's page: at most this high, shrunk down to the minimum to fit
# below its table (then it moves to the next page: the experiment's second).
PAGE_FIGURE_CM, PAGE_FIGURE_MIN_CM = 10.0, 6.0
# Each chapter's claims, computed once: (the chapter, its claims).
Claimed = list[tuple[Chapter, list[Claim]]]


def progress(msg: str) -> None:
    print(f"analysis: {msg}", file=sys.stderr, flush=True)


# ---- page 1: the answer ------------------------------------------------------------------------


def failed_runs(runs: list[RunInfo]) -> list[str]:
    out = []
    for r in runs:
        if r.source == "ours" and not r.ok:
            why = ", ".join(r.failed + r.problems) or "failed"
            out.append(f"{r.experiment}/{r.run}: {why}")
    return out


def run_dirs(runs: list[RunInfo]) -> set[tuple[str, str]]:
    """(experiment, run directory) of each run: a run may hold several provers' or parts'
    results, each a RunInfo of its own."""
    return {(r.experiment, str(Path(r.path).parent)) for r in runs}


def verdict_line(col: Collection) -> tuple[list[str], bool]:
    """The first line of page 1 and of the terminal summary (with the failed runs under it). A
    run is one run directory; a run may hold several provers' proofs, each checked."""
    ours = [r for r in col.runs if r.source == "ours"]
    runs = len(run_dirs(ours))
    checked = f" ({len(ours)} provers' or parts' results)" if len(ours) != runs else ""
    failed = failed_runs(col.runs)
    if failed:
        bad = len(run_dirs([r for r in ours if not r.ok]))
        return [f"FAILED: {bad} of {runs} runs did not verify{checked}:", *failed], False
    return [f"All {runs} runs verified{checked}: every proof was accepted and every status is True."], True


def machine_text(m: dict[str, object]) -> str:
    mem = m.get("mem_total_gib")
    memory = units.gib(float(mem)) if isinstance(mem, int | float) else "? GiB"
    return (
        f"{m.get('hostname', '?')}: {m.get('cpu_model', '?')}, {m.get('logical_cpus', '?')} logical "
        f"CPUs, {memory}, {m.get('os', '?')}"
    )


def machines(col: Collection) -> list[str]:
    seen: dict[str, str] = {}
    for r in col.runs:
        if r.source == "ours" and r.machine:
            m = r.machine
            key = json.dumps({k: m.get(k) for k in ("hostname", "cpu_model", "logical_cpus")}, sort_keys=True)
            seen[key] = machine_text(m)
    return sorted(seen.values())


def runners(col: Collection) -> list[str]:
    """How our runs ran: natively, or in which container images (name and digest)."""
    seen: set[str] = set()
    for r in col.runs:
        if r.source != "ours":
            continue
        run = r.runner
        if run is None:
            seen.add("runner not recorded (a report without the suite's envelope)")
        elif run.get("kind", "native") == "native":
            seen.add("natively (the programs built in target/release)")
        else:
            ident = str(run.get("image_id") or "?").removeprefix("sha256:")[:12]
            seen.add(f"{run['kind']} image {run.get('image')} (digest {ident})")
    return sorted(seen)


def what_ran(ctx: Context) -> list[str]:
    """What ran, where, at which commit: three lines."""
    col, rc, cfg = ctx.col, ctx.rc, ctx.rc.config
    ours = [r for r in col.runs if r.source == "ours"]
    dirs = run_dirs(ours)
    by_exp: dict[str, int] = {}
    for experiment, _ in dirs:
        by_exp[experiment] = by_exp.get(experiment, 0) + 1
    exps = [e for e in (cfg.get("experiments") or sorted(by_exp))]
    what = ", ".join(f"{e} ({by_exp.get(e, 0)})" for e in exps)
    sizes = ""
    if cfg:
        threads = ", ".join(map(str, cfg.get("threads", [])))
        seed = cfg.get("seed")
        sizes = (
            f"; n = {cfg.get('entries')}, m = {cfg.get('mixers')}, threads {threads}, "
            f"{cfg.get('repetitions', 1)} repetition(s), "
            f"seed {seed if seed is not None else 'none (fresh randomness)'}"
        )
    where = "; ".join(machines(col)) or "machine not recorded"
    how = "; ".join(runners(col)) or "runner not recorded"
    commits = sorted({r.commit for r in ours if r.commit})
    commit = f"code at commit {rc.commit}"
    if len(commits) > 1:
        commit += f"; the runs were made by {len(commits)} commits: {', '.join(commits)}"
    elif commits and commits[0] != rc.commit:
        commit += f"; the runs were made by commit {commits[0]}"
    commit += f"; analysis {__version__}"
    return [
        f"<b>What ran:</b> {len(dirs)} runs of {what}{sizes}.",
        f"<b>Where:</b> {where}; {how}.",
        f"<b>Commit:</b> {commit}.",
    ]


def analysis_runner() -> str:
    """Where this analysis runs, when in a container: the engine, image and digest the workflow
    hands it (SUITE_RUNNER, SUITE_IMAGE, SUITE_IMAGE_ID), as for every measuring job."""
    kind = os.environ.get("SUITE_RUNNER") or "native"
    if kind == "native":
        return ""
    ident = (os.environ.get("SUITE_IMAGE_ID") or "?").removeprefix("sha256:")[:12]
    return f" in {kind} image {os.environ.get('SUITE_IMAGE') or '?'} (digest {ident})"


def page_one(doc: Doc, ctx: Context, claimed: Claimed, sections: list[tuple[str, str]]) -> None:
    now = dt.datetime.now(dt.UTC)
    doc.unnumbered(TITLE, "summary", "Summary: the verdict, the claims, what ran", style=TITLE_STYLE)
    made = (f"Generated {now:%Y-%m-%d %H:%M UTC} by analysis {__version__} from {ctx.results_dir}"
            f"{analysis_runner()}.")  # fmt: skip
    doc.para(made, small=True)
    lines, ok = verdict_line(ctx.col)
    doc.box(lines, ok=ok)
    for line in what_ran(ctx):
        doc.para(line, small=True, markup=True)
    if ctx.col.unconfigured:
        doc.para("Also present in the results directory, not in this configuration (left out): "
                 + ", ".join(ctx.col.unconfigured), small=True)  # fmt: skip
    for note in ctx.col.notes:
        doc.para(f"Note: {note}", small=True)
    doc.para("<b>Sections</b> (a title or page number is a link):", small=True, markup=True)
    doc.refs(sections, columns=3)
    for chapter, claims in claimed:
        if chapter.claims is not None:
            claims_view.page_one_table(doc, claims, chapter.claims.words)
        draw_parts(doc, ctx, chapter, Place.SUMMARY)


def parts(chapter: Chapter, place: Place) -> list[Part]:
    return [p for p in chapter.parts if p.place == place]


def draw_parts(doc: Doc, ctx: Context, chapter: Chapter, place: Place) -> None:
    """A chapter's parts of one place, each after its anchor where it has one (the key of the
    heading it opens with)."""
    for part in parts(chapter, place):
        if part.key:
            doc.anchor(part.key)
        part.draw(doc, ctx)


# Terms every report uses, after the chapters' own.
SHARED_TERMS = (
    "<b>Spread</b>: where runs were repeated, a cell shows the median, [min-max] and the count "
    "(x k); plots show min-max as error bars.",
    "<b>Numbers</b> have three significant digits and their unit (a table's header gives the unit "
    "of its plain numbers); memory is in GiB with one decimal or in MiB. Every table is also in "
    "results/tables/ as CSV (with the full precision), Markdown and LaTeX; every figure in "
    "results/plots/.",
    "<b>CPU and wall time</b>: our programs report CPU time (all threads) where a shared machine "
    "would distort wall time; each table says which it shows. Every run's job time, CPU time and "
    "peak memory as Snakemake measured them are in the tidy table (section 'job').",
)


def reading_guide(doc: Doc, ctx: Context, chapters: Sequence[Chapter]) -> None:
    """How to read this report: each chapter's paragraph, then its terms and the shared ones."""
    doc.h1("How to read this report", new_page=False, key="guide")
    guides = [c.guide for c in chapters if c.guide is not None]
    for guide in guides:
        doc.para(guide.intro)
    doc.bullets([*(term for guide in guides for term in guide.terms(ctx)), *SHARED_TERMS], markup=True)


# ---- every run -----------------------------------------------------------------------------------


def runs_section(doc: Doc, ctx: Context) -> None:
    doc.h1("Every run and its status", key="runs")
    header = ["experiment", "source", "run", "threads", "host", "commit", "status"]
    rows, flagged = [], set()
    for i, r in enumerate(ctx.col.runs):
        status = "verified" if r.ok else "FAILED: " + ", ".join(r.failed + r.problems)
        if not r.ok:
            flagged.add(i)
        host = str((r.machine or {}).get("hostname", "-")) if r.source == "ours" else "-"
        rows.append([r.experiment, r.source, r.run, "-" if r.threads is None else str(r.threads), host,
                     r.commit or "-", status])  # fmt: skip
    frame = pd.DataFrame(rows, columns=header).set_index("experiment")
    ctx.written += write_table(
        frame, header, rows, "runs", ctx.results_dir / "tables", "Every run and its status"
    )
    doc.table(header, rows, [0.11, 0.05, 0.33, 0.05, 0.08, 0.1, 0.28], flagged=flagged, left={1, 2, 4, 5, 6})


# ---- the summary printed at the end of a workflow run --------------------------------------------


def summary_text(ctx: Context, claimed: Claimed, pdf: Path) -> str:
    lines = ["==== summary ===="]
    first, ok = verdict_line(ctx.col)
    lines += [first[0].split(":")[0] + "." if ok else first[0], *(f"  {f}" for f in first[1:])]
    for chapter, claims in claimed:
        if chapter.claims is not None:
            lines += claims_view.terminal_lines(claims, chapter.claims.words)
    lines += ["", f"Report: {pdf}"]
    return "\n".join(lines) + "\n"


# ---- the appendix's configuration and the experiments' pages -------------------------------------


def configuration_section(doc: Doc, ctx: Context) -> None:
    doc.h1("The configuration", key="configuration")
    cfg = ctx.rc.config
    if not cfg:
        doc.para("No configuration recorded (config.json): every run found under raw/ was read.")
        return
    items = [[k, json.dumps(v)] for k, v in sorted(cfg.items())]
    doc.table(["configuration key", "value"], items, [0.25, 0.75], left={1},
              caption=f"The configuration ({ctx.rc.path or 'defaults'}):")  # fmt: skip


def short(title: str, most: int = 34) -> str:
    """A title cut for a list of links: before its parenthesis or colon, at most `most` characters."""
    cut = title.split(" (")[0].split(": ")[0]
    return cut if len(cut) <= most else cut[: most - 3].rsplit(" ", 1)[0] + " ..."


def experiment_page(doc: Doc, ctx: Context, name: str, title: str, ov: Overview, details: str) -> None:
    """An experiment's one or two pages: what it measures, the verdict, the compact table, the
    figure, and where its details are."""
    doc.h1(f"{name}: {title}", key=f"section-{name}")
    doc.para(ov.measures)
    doc.box([f"<b>Verdict:</b> {ov.verdict}"], ok=ov.ok, markup=True)
    doc.refs([(details, f"Every table of {name}, in the appendix")], columns=1)
    if ov.table is not None:
        t = ov.table
        k = max(1, len(t.frame.columns))
        widths = t.widths or [0.3] + [min(0.14, 0.7 / k)] * k
        ctx.table(doc, t.name, t.caption, t.frame, t.fmt, widths, t.flagged, t.index_name)
    for note in ov.notes:
        doc.para(note, small=True)
    if ov.figure is not None:
        f = ov.figure
        if f.draw is not None:
            ctx.hold.add(f.name)
            ctx.plot(doc, f.name, f.draw(), f.caption)
        png, caption = ctx.figures.get(f.name, (None, ""))
        if png is not None:
            doc.figure(png, f.caption or caption, PAGE_FIGURE_CM, PAGE_FIGURE_MIN_CM)
        elif caption:
            doc.para(f"{f.caption or 'The figure'}: {caption}", small=True)


def pages_of(e: Experiment, chapters: Sequence[Chapter]) -> Pages:
    """An experiment's pages: as the chapter that sets other figures beside its draws them, else
    as its own section module does."""
    for chapter in chapters:
        if e.name in chapter.pages:
            return chapter.pages[e.name]
    module = importlib.import_module(e.section)
    try:
        return Pages(overview=module.overview, details=module.section)
    except AttributeError as err:
        why = "an experiment's section has overview(ctx) and section(doc, ctx)"
        raise TypeError(f"{e.section}: {why}: {err}") from None


def references(chapters: Sequence[Chapter], present: Sequence[Experiment]) -> list[tuple[str, str]]:
    """Page one's list of sections: the chapters' pages, the experiments' pages, the reading guide,
    then the appendix's sections."""
    own = (Place.OPENING, Place.PAGES)
    refs = [(p.key, p.title) for c in chapters for place in own for p in parts(c, place) if p.key]
    refs += [(f"section-{e.name}", f"{e.name}: {short(e.title)}") for e in present]
    refs += [("guide", "How to read this report"), ("configuration", "Appendix: the configuration")]
    keys = claims_keys(chapters)
    for c in chapters:
        if c.claims is not None:
            refs.append((keys[c.name], c.claims.words.ref))
        refs += [(p.key, p.title) for p in parts(c, Place.APPENDIX) if p.key]
    return [*refs, ("runs", "Appendix: every run")]


def claims_keys(chapters: Sequence[Chapter]) -> dict[str, str]:
    """The anchor and table name of each chapter's claims in full: `claims` for the first chapter
    with claims, `claims-<name>` for any further one."""
    with_claims = [c.name for c in chapters if c.claims is not None]
    return {name: "claims" if i == 0 else f"claims-{name}" for i, name in enumerate(with_claims)}


def build_report(
    results_dir: Path, paper_dir: Path, rc: RunConfig, chapters: Sequence[Chapter]
) -> list[Path]:
    """Tidy table, every table (CSV/MD/LaTeX), every plot (PDF/PNG), report.pdf, summary.txt,
    with the chapters of the studies (analysis.studies) in the given order."""
    progress(f"parsing the configured runs under {results_dir / 'raw'}")
    col = collect(results_dir, paper_dir, rc)
    progress(f"{len(col.runs)} report(s), {len(col.df)} rows in the tidy table")
    ctx = Context(col, rc, results_dir)
    # The workflow expects both directories, also when no section draws a plot or a table.
    for kind in ("plots", "tables"):
        (results_dir / kind).mkdir(parents=True, exist_ok=True)
    ctx.written += write_tidy(col.df, results_dir)
    doc = Doc(results_dir / "report.pdf", TITLE, footer=f"{TITLE} - commit {rc.commit}")
    claimed: Claimed = [(c, c.claims.compute(col.df, rc.config) if c.claims else []) for c in chapters]
    present = [e for e in experiments.all_experiments() if e.name in col.present]
    pages = {e.name: pages_of(e, chapters) for e in present}

    # The appendix first (its tables and plots are written as the sections draw them; the figure an
    # experiment's page shows is held back from its details).
    doc.part = "appendix"
    configuration_section(doc, ctx)
    keys = claims_keys(chapters)
    for chapter, claims in claimed:
        if chapter.claims is not None:
            claims_view.in_full(doc, ctx, claims, chapter.claims.words, keys[chapter.name])
        draw_parts(doc, ctx, chapter, Place.APPENDIX)
    overviews: dict[str, Overview] = {}
    for e in present:
        progress(f"section {e.name}")
        ov = pages[e.name].overview(ctx)
        said = [line for c in chapters if e.name in c.verdicts for line in c.verdicts[e.name](ctx)]
        ov = replace(ov, verdict=" ".join([ov.verdict, *said]))
        overviews[e.name] = ov
        if ov.figure is not None and ov.figure.draw is None:
            ctx.hold.add(ov.figure.name)
        doc.anchor(f"details-{e.name}")
        pages[e.name].details(doc, ctx)
    runs_section(doc, ctx)

    doc.part = "main"
    page_one(doc, ctx, claimed, references(chapters, present))
    for chapter in chapters:
        draw_parts(doc, ctx, chapter, Place.OPENING)
    doc.unnumbered("Contents", "contents", "")
    doc.contents()
    reading_guide(doc, ctx, chapters)
    for chapter in chapters:
        draw_parts(doc, ctx, chapter, Place.PAGES)
    for e in present:
        experiment_page(doc, ctx, e.name, e.title, overviews[e.name], f"details-{e.name}")
    progress(f"rendering {doc.path}")
    ctx.written.append(doc.build())
    summary = results_dir / "summary.txt"
    tmp = summary.with_name(summary.name + ".tmp")
    tmp.write_text(summary_text(ctx, claimed, doc.path), encoding="utf-8")
    tmp.replace(summary)
    ctx.written.append(summary)
    return ctx.written
