"""results/report.pdf, the tables and plots beside it, and the terminal summary: all drawn from
the tidy table of the configured runs.

The PDF answers first. Page 1: did every run verify, the paper's claims beside ours with the
verdict (the summary the terminal prints), the like-for-like pairs, what ran where at which
commit, and the page of every section. Then the contents, how to read the report, and one or two
pages per experiment (its section's `overview`: what it measures, the verdict, one compact table,
one figure). The appendix holds the configuration, the claims in full, every experiment's detail
tables (its section's `section`) and every run with its status.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from analysis import __version__, experiments, units
from analysis.config import RunConfig
from analysis.derive.claims import REPRODUCED_FACTOR, Claim, all_claims, claims_frame, verdict
from analysis.parse.common import RunInfo
from analysis.render.context import Context, cell
from analysis.render.pdf import TITLE as TITLE_STYLE
from analysis.render.pdf import Doc
from analysis.render.sections.common import Overview, overview_of
from analysis.render.tables import write_table
from analysis.tidy import Collection, collect, write_tidy

TITLE = "Traceable mixnets: benchmark report"
# The main figure of an experiment's page: at most this high, shrunk down to the minimum to fit
# below its table (then it moves to the next page: the experiment's second).
PAGE_FIGURE_CM, PAGE_FIGURE_MIN_CM = 10.0, 6.0


def progress(msg: str) -> None:
    print(f"analysis: {msg}", file=sys.stderr, flush=True)


def unit_format(unit: str) -> Callable[[float], str]:
    def fmt(v: float) -> str:
        return units.value(v, unit)

    return fmt


def with_unit_format(unit: str) -> Callable[[float], str]:
    def fmt(v: float) -> str:
        return units.with_unit(v, unit)

    return fmt


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


def covered_claims(claims: list[Claim]) -> list[Claim]:
    return [c for c in claims if not math.isnan(c.ours)]


def claim_row(c: Claim) -> list[str]:
    """claim, paper, ours, verdict: as page 1 and the terminal summary show it."""
    fmt = with_unit_format(c.unit)
    ours = cell(c.ours_spread if c.ours_spread else c.ours, fmt)
    if c.ours_failed:
        ours += " FAILED"
    return [c.text, cell(c.paper_exact, fmt), ours, verdict(c)]


def analysis_runner() -> str:
    """Where this analysis runs, when in a container: the engine, image and digest the workflow
    hands it (SUITE_RUNNER, SUITE_IMAGE, SUITE_IMAGE_ID), as for every measuring job."""
    kind = os.environ.get("SUITE_RUNNER") or "native"
    if kind == "native":
        return ""
    ident = (os.environ.get("SUITE_IMAGE_ID") or "?").removeprefix("sha256:")[:12]
    return f" in {kind} image {os.environ.get('SUITE_IMAGE') or '?'} (digest {ident})"


def page_one(doc: Doc, ctx: Context, claims: list[Claim], sections: list[tuple[str, str]]) -> None:
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
    covered = covered_claims(claims)
    if covered:
        rows = [claim_row(c) for c in covered]
        flagged = {i for i, c in enumerate(covered) if c.ours_failed}
        doc.table(["the paper claims", "paper", "ours", "verdict"], rows, [0.3, 0.08, 0.2, 0.42],
                  flagged=flagged, left={3},
                  caption="The paper's claims beside ours (the paper's figures recomputed from its "
                  "sample reports; in full, with the README's rounding and how ours was made: "
                  "appendix B).")  # fmt: skip
    else:
        doc.para("No claim of the paper's README is covered by these runs (see the sections).", small=True)
    for e in experiments.all_experiments():
        hook = e.hook("summary")
        if hook is not None:
            hook(doc, ctx)


def _no_guide(ctx: Context) -> list[str]:
    return []


def reading_guide(doc: Doc, ctx: Context) -> None:
    doc.h1("How to read this report", new_page=False, key="guide")
    doc.para(
        "The paper (Traceable mixnets, PETS 2024) proposes DB-SM and DB-RSM: distributed proofs, made "
        "jointly by the m mix-servers of a mixnet, that an input is among the outputs (set membership) "
        "and that an output came from some input (reverse set membership). It compares them with a "
        "collaborative zkSNARK and with a cpSNARK. This report reruns those measurements with our "
        "implementations and puts the paper's published figures beside ours."
    )
    doc.bullets([
        "<b>M_k</b>: the time of one mix-server (a prover). A protocol step is only as fast as its slowest "
        "mixer, so the report shows the largest of the m mixers' totals.",
        "<b>Q</b>: the verifier, who checks the mixers' proofs.",
        "<b>HBC</b> (honest-but-curious): if the mixers are trusted to follow the protocol, the steps that "
        "exist only to catch a cheating mixer (proofs of shuffle, checks of others' proofs) can be left "
        "out. The HBC rows subtract those steps; proof generation that shares a timer with other work "
        "cannot be separated, so HBC figures are upper bounds.",
        "<b>Figure 10</b>: the paper's table of per-prover and verifier times at n = 10000 entries and "
        "m = 4 mix-servers, with its per-step breakdowns.",
        *(line for e in experiments.all_experiments() for line in (e.hook("guide") or _no_guide)(ctx)),
        "<b>n proofs</b>: the single-prover systems prove one membership per proof, so their totals are "
        "n x one measured proof (extrapolated, as the paper does); DB-SM and DB-RSM are measured at n.",
        f"<b>Reproduced</b>: our figure is of the paper's workload (n = 10000, m = 4), made the paper's "
        f"way (our DB-SM and DB-RSM in the paper's mode with its challenge lengths), and within "
        f"{REPRODUCED_FACTOR:g}x of the paper's figure. The machines differ (the paper: Intel Xeon W-1270 "
        f"at 3.4 GHz, one core; ours: on page 1), and so do the libraries. Figures of our fast "
        f"mode are improvements, not reproductions. At another n the report shows figures per entry "
        f"(total / n) and prints no ratio of two different workloads.",
        "<b>Spread</b>: where runs were repeated, a cell shows the median, [min-max] and the count "
        "(x k); plots show min-max as error bars.",
        "<b>Numbers</b> have three significant digits and their unit (a table's header gives the unit "
        "of its plain numbers); memory is in GiB with one decimal or in MiB. Every table is also in "
        "results/tables/ as CSV (with the full precision), Markdown and LaTeX; every figure in "
        "results/plots/.",
        "<b>CPU and wall time</b>: our programs report CPU time (all threads) where a shared machine "
        "would distort wall time; each table says which it shows. Every run's job time, CPU time and "
        "peak memory as Snakemake measured them are in the tidy table (section 'job').",
    ], markup=True)  # fmt: skip


# ---- the paper's claims --------------------------------------------------------------------------


def claims_section(doc: Doc, ctx: Context, claims: list[Claim]) -> None:
    doc.h1("The paper's claims in full, recomputed, beside ours", key="claims")
    doc.para(
        "Each row is a number the paper's README states. 'paper (exact)' recomputes it from the "
        "paper's own sample reports; 'paper (README rounding)' repeats the README's arithmetic (it cut "
        "one-proof times to the digits it quotes, 2.178 s to 2.17 s, and speed-ups to whole numbers). "
        "'ours' is the same quantity from our runs; the verdict says how the two compare."
    )
    header = ["claim", "README", "paper (README rounding)", "paper (exact)", "ours",
              "ours, collaborative factor measured", "verdict", "how ours was made"]  # fmt: skip
    rows, flagged = [], set()
    for i, c in enumerate(claims):
        fmt = unit_format(c.unit)
        ours = cell(c.ours_spread if c.ours_spread else c.ours, fmt)
        if not c.comparable and c.per_entry and not math.isnan(c.ours):
            per_ours, per_paper = c.per_entry_values()
            ours += f" (per entry {units.value(per_ours)}; paper {units.value(per_paper)})"
        if c.ours_failed:
            ours += " FAILED"
            flagged.add(i)
        readme = units.stated(c.readme if c.readme is not None else math.nan, c.unit)
        measured = "" if math.isnan(c.ours_measured) else f"{cell(c.ours_measured, fmt)}, {c.measured_note}"
        quoted, exact = units.stated(c.paper_quoted, c.unit), units.stated(c.paper_exact, c.unit)
        rows.append([c.text, readme, quoted, exact, ours, measured, verdict(c), c.note])
    frame = claims_frame(claims).set_index("claim")
    ctx.written += write_table(frame, header, rows, "claims", ctx.results_dir / "tables",
                               "The paper's claims, recomputed, beside ours")  # fmt: skip
    doc.para("Times in seconds, ratios with an x. The README's figures and the paper's recomputed ones are "
             "printed as stated, not rounded to three digits, so that the README's rounding shows.",
             small=True)  # fmt: skip
    doc.table(header, rows, [0.18, 0.05, 0.07, 0.07, 0.14, 0.12, 0.17, 0.2], flagged=flagged, left={5, 6, 7})
    for e in experiments.all_experiments():
        hook = e.hook("appendix")
        if hook is not None:
            hook(doc, ctx)


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


def summary_text(ctx: Context, claims: list[Claim], pdf: Path) -> str:
    lines = ["==== summary ===="]
    first, ok = verdict_line(ctx.col)
    lines += [first[0].split(":")[0] + "." if ok else first[0], *(f"  {f}" for f in first[1:])]
    covered = covered_claims(claims)
    if not covered:
        lines += ["", "No claim of the paper's README is covered by these runs (see the PDF's sections)."]
        lines += ["", f"Report: {pdf}"]
        return "\n".join(lines) + "\n"
    width = max(len(c.text) for c in covered)
    lines.append("")
    lines.append(f"{'the paper claims'.ljust(width)}  {'paper':>12}  {'ours':>26}  verdict")
    for c in covered:
        text, paper, ours, says = claim_row(c)
        lines.append(f"{text.ljust(width)}  {paper:>12}  {ours:>26}  {says}")
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


def build_report(results_dir: Path, paper_dir: Path, rc: RunConfig) -> list[Path]:
    """Tidy table, every table (CSV/MD/LaTeX), every plot (PDF/PNG), report.pdf, summary.txt."""
    progress(f"parsing the configured runs under {results_dir / 'raw'}")
    col = collect(results_dir, paper_dir, rc)
    progress(f"{len(col.runs)} report(s), {len(col.df)} rows in the tidy table")
    ctx = Context(col, rc, results_dir)
    # The workflow expects both directories, also when no section draws a plot or a table.
    for kind in ("plots", "tables"):
        (results_dir / kind).mkdir(parents=True, exist_ok=True)
    ctx.written += write_tidy(col.df, results_dir)
    doc = Doc(results_dir / "report.pdf", TITLE, footer=f"{TITLE} - commit {rc.commit}")
    claims = all_claims(col.df, rc.config)
    present = [e for e in experiments.all_experiments() if e.name in col.present]

    # The appendix first (its tables and plots are written as the sections draw them; the figure an
    # experiment's page shows is held back from its details).
    doc.part = "appendix"
    configuration_section(doc, ctx)
    claims_section(doc, ctx, claims)
    overviews: dict[str, Overview] = {}
    for e in present:
        progress(f"section {e.name}")
        module = importlib.import_module(e.section)
        ov = overview_of(module, ctx, e.name, e.title)
        overviews[e.name] = ov
        if ov.figure is not None and ov.figure.draw is None:
            ctx.hold.add(ov.figure.name)
        doc.anchor(f"details-{e.name}")
        module.section(doc, ctx)
    runs_section(doc, ctx)

    doc.part = "main"
    sections = [(f"section-{e.name}", f"{e.name}: {short(e.title)}") for e in present]
    extra = [("guide", "How to read this report"), ("configuration", "Appendix: the configuration"),
             ("claims", "Appendix: the paper's claims in full"), ("runs", "Appendix: every run")]  # fmt: skip
    page_one(doc, ctx, claims, sections + extra)
    doc.unnumbered("Contents", "contents", "")
    doc.contents()
    reading_guide(doc, ctx)
    for e in present:
        experiment_page(doc, ctx, e.name, e.title, overviews[e.name], f"details-{e.name}")
    progress(f"rendering {doc.path}")
    ctx.written.append(doc.build())
    summary = results_dir / "summary.txt"
    tmp = summary.with_name(summary.name + ".tmp")
    tmp.write_text(summary_text(ctx, claims, doc.path), encoding="utf-8")
    tmp.replace(summary)
    ctx.written.append(summary)
    return ctx.written
