"""Command line: `python -m analysis claims --paper | claims RESULTS_DIR | report RESULTS_DIR`."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from analysis.config import load_config
from analysis.derive.claims import Claim, compute_claims
from analysis.errors import ConfigError, ReportError
from analysis.tidy import collect, write_tidy

# The paper's six sample reports (the upstream artifact's output) ship with the package.
DEFAULT_PAPER_DIR = Path(__file__).resolve().parent / "data" / "paper"


def text_table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    for r in rows:
        out.append(
            "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        )
    return "\n".join(out)


def _v(c: Claim, v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.4g}x" if c.unit == "x" else f"{v:,.6g} s"


def claims_text(claims: list[Claim], paper_only: bool) -> str:
    if paper_only:
        headers = ["claim", "README", "recomputed (README rounding)", "recomputed (exact)"]
        rows = [[c.text, _v(c, c.readme), _v(c, c.paper_quoted), _v(c, c.paper_exact)] for c in claims]
        foot = (
            "\nREADME rounding: one-proof times cut (not rounded) to the digits the README quotes "
            "(2.178 s -> 2.17 s from the PROVER real line; 225.77 ms -> 220 ms; 783.71 ms -> 783 ms),"
            "\nspeed-ups cut to whole numbers. Collaborative estimate = 2 x n x one proof (README)."
        )
        return text_table(headers, rows) + foot
    headers = ["claim", "README", "paper (exact)", "ours", "ours/paper", "note"]
    rows = []
    for c in claims:
        ratio = "-" if math.isnan(c.ratio) else f"{c.ratio:.2f}"
        ours = _v(c, c.ours) + (" FAILED" if c.ours_failed else "")
        rows.append([c.text, _v(c, c.readme), _v(c, c.paper_exact), ours, ratio, c.note])
    return text_table(headers, rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m analysis", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    pc = sub.add_parser("claims", help="print the README's claims, recomputed")
    pc.add_argument("results_dir", nargs="?", type=Path, help="results directory of our runs")
    pc.add_argument("--paper", action="store_true", help="recompute from the paper's sample reports only")
    pr = sub.add_parser("report", help="build tidy table, tables, plots and report.pdf")
    pr.add_argument("results_dir", type=Path)
    pt = sub.add_parser("tidy", help="write results/tidy.csv and tidy.parquet only")
    pt.add_argument("results_dir", type=Path)
    for p in (pc, pr, pt):
        p.add_argument("--paper-dir", type=Path, default=DEFAULT_PAPER_DIR,
                       help=f"the paper's sample reports (default {DEFAULT_PAPER_DIR})")  # fmt: skip
        p.add_argument("--config", type=Path, default=None, help="the workflow's config.yaml")
    args = ap.parse_args(argv)
    try:
        cfg = load_config(args.config)
        if args.cmd == "claims":
            if args.paper == (args.results_dir is not None):
                ap.error("give either --paper or RESULTS_DIR")
            if args.paper and not args.paper_dir.is_dir():
                raise ConfigError(f"paper sample reports not found: {args.paper_dir}")
            col = collect(None if args.paper else args.results_dir, args.paper_dir)
            print(claims_text(compute_claims(col.df, cfg.collab_factor), args.paper))
            for note in col.notes:
                print(f"note: {note}")
            return 0
        if not args.results_dir.is_dir():
            raise ConfigError(f"results directory not found: {args.results_dir}")
        if args.cmd == "tidy":
            col = collect(args.results_dir, args.paper_dir)
            for f in write_tidy(col.df, args.results_dir):
                print(f"wrote {f}")
            return 0
        from analysis.render.report import build_report

        for f in build_report(args.results_dir, args.paper_dir, cfg):
            print(f"wrote {f}")
        return 0
    except (ReportError, ConfigError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
