"""Command line of the analysis.

    python -m analysis claims --paper         each study's published claims, recomputed from the
                                              published figures (the paper's sample reports)
    python -m analysis claims RESULTS_DIR     the same from our runs, beside the published ones
    python -m analysis report RESULTS_DIR     tidy table, tables, plots, report.pdf, summary.txt
    python -m analysis tidy RESULTS_DIR       only the tidy table (tidy.csv, tidy.parquet)
    python -m analysis verify RESULTS_DIR     exit 1 unless every configured run verified
    python -m analysis costs RESULTS_DIR... [--in-place | --out FILE]
                                              fit the per-unit costs of the estimates (in
                                              place: each into its experiment's folder)
    python -m analysis costs --parallel PAIRS_DIR [RESULTS_DIR...] [--shares-from DIR]
                                              also the parallel fraction per section, of the
                                              experiment whose descriptor fits one
    python -m analysis estimates RESULTS_DIR... [--check EXPERIMENT --within F]
                                              the estimates beside the measured CPU times
    python -m analysis runners NATIVE_DIR CONTAINER_DIR
                                              one configuration natively and in containers: the
                                              same verdicts (exit 1 if not), CPU time per runner
    python -m analysis keys [EXPERIMENT | --shared]
                                              the configuration's keys: default and meaning
    python -m analysis selftest ACTION [RESULTS_DIR]
                                              what the suite's test command asks the folders
    python -m analysis COMMAND ...            a command an experiment brings (its descriptor's
                                              `commands`; see --help)

RESULTS_DIR/config.json (written by the workflow) says which runs belong to the configuration;
without it, every run found under RESULTS_DIR/raw is read. Errors (a missing directory, a
malformed report, a missing paper file) are one line naming the file, and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis import experiments
from analysis.config import for_results
from analysis.errors import ConfigError, ReportError
from analysis.experiments import Handler
from analysis.tidy import collect, write_tidy

# The paper's six sample reports (the upstream artifact's output) ship with the package.
DEFAULT_PAPER_DIR = Path(__file__).resolve().parent / "data" / "paper"


def _claims(paper_dir: Path, results_dir: Path | None) -> int:
    """Each study's claims: recomputed from the published figures alone, or beside our runs
    (under each study's name where there are several)."""
    from analysis import studies
    from analysis.render.claims import claims_text

    texts = []
    claiming = [s for s in studies.all_studies() if s.claims is not None]
    for study in claiming:
        assert study.claims is not None
        if results_dir is None:
            col = collect(None, paper_dir, experiments=list(study.claims.published))
            text = claims_text(study.claims.compute(col.df, {}), study.claims.words, True)
        else:
            rc = for_results(_results_dir(results_dir))
            col = collect(results_dir, paper_dir, rc)
            text = claims_text(study.claims.compute(col.df, rc.config), study.claims.words, False)
            text += "".join(f"\nnote: {note}" for note in col.notes)
        texts.append(f"{study.name}: {study.title}\n{text}" if len(claiming) > 1 else text)
    print("\n\n".join(texts))
    return 0


def _results_dir(p: Path) -> Path:
    if not p.is_dir():
        raise ConfigError(f"results directory not found: {p}")
    return p


def _estimates(dirs: list[Path], check: list[str], within: float) -> int:
    from analysis.derive.costs import check_estimates, estimates_text

    if within <= 1:
        raise ConfigError(f"--within must be above 1, not {within}")
    checks = check_estimates([_results_dir(d) for d in dirs])
    print(estimates_text(checks))
    status = 0
    for experiment in check:
        mine = [c for c in checks if c.run.experiment == experiment]
        if not mine:
            print(f"estimates: no measured run of {experiment}", file=sys.stderr)
            status = 1
        for c in mine:
            if not 1 / within <= c.ratio <= within:
                why = f"took {c.ratio:.2f}x its estimate (allowed: within {within:g}x)"
                print(f"estimates: {c.run.dir} {why}", file=sys.stderr)
                status = 1
    return status


def _costs(args: argparse.Namespace) -> int:
    """Refit costs.yaml: print it, or write it to --out and print what was fitted."""
    from analysis.derive.costs import refit_costs

    dirs = [_results_dir(d) for d in args.results_dirs]
    parallel = [_results_dir(d) for d in args.parallel]
    if args.shares_from and not parallel:
        raise ConfigError("--shares-from needs --parallel (the pairs whose fractions the shares weigh)")
    refitted = refit_costs(dirs, parallel=parallel, shares_from=[_results_dir(d) for d in args.shares_from])
    if args.in_place:
        from analysis.derive.costs import write_in_place

        written = write_in_place(refitted.costs)
        print("\n\n".join([*refitted.summary, "wrote " + ", ".join(map(str, written))]))
    elif args.out:
        from analysis.plan.estimate import write_text_atomically

        write_text_atomically(args.out, refitted.text)
        print("\n\n".join([*refitted.summary, f"wrote {args.out}"]))
    else:
        print(refitted.text, end="")
        print("\n\n".join(refitted.summary), file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m analysis", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    pc = sub.add_parser("claims", help="print each study's published claims, recomputed")
    pc.add_argument("results_dir", nargs="?", type=Path, help="results directory of our runs")
    pc.add_argument("--paper", action="store_true", help="recompute from the published figures only")
    pr = sub.add_parser("report", help="build tidy table, tables, plots, report.pdf and summary.txt")
    pr.add_argument("results_dir", type=Path)
    pt = sub.add_parser("tidy", help="write tidy.csv and tidy.parquet only")
    pt.add_argument("results_dir", type=Path)
    pv = sub.add_parser("verify", help="exit 1 unless every configured run verified")
    pv.add_argument("results_dir", type=Path)
    pk = sub.add_parser("costs", help="fit the estimates' per-unit costs from runs' benchmark files")
    pk.add_argument("results_dirs", type=Path, nargs="*")
    pk.add_argument("--out", type=Path, help="write the fitted cost model as one file (default: print it)")
    pk.add_argument(
        "--in-place",
        action="store_true",
        help="write each experiment's block into its folder's costs.yaml, the reference into "
        "analysis/data/costs.yaml",
    )
    pk.add_argument(
        "--parallel",
        type=Path,
        nargs="+",
        default=[],
        metavar="DIR",
        help="results directories of runs at 1 and 2 threads in pairs (the benchmark rule of the experiment "
        "that fits a parallel block): refit each section's parallel fraction",
    )
    pk.add_argument(
        "--shares-from",
        type=Path,
        nargs="+",
        default=[],
        metavar="DIR",
        help="take each section's CPU share from the largest such runs here (default: from the pairs)",
    )
    pe = sub.add_parser("estimates", help="the workflow's estimates beside the runs' measured CPU times")
    pe.add_argument("results_dirs", type=Path, nargs="+")
    pe.add_argument(
        "--check",
        metavar="EXPERIMENT",
        action="append",
        default=[],
        help="exit 1 unless every run of EXPERIMENT is within --within of its estimate",
    )
    pe.add_argument("--within", type=float, default=2.0, help="allowed factor either way (default 2)")
    pn = sub.add_parser("runners", help="the same runs natively and in containers: verdicts and CPU time")
    pn.add_argument("native_dir", type=Path)
    pn.add_argument("container_dir", type=Path)
    py = sub.add_parser("keys", help="the configuration's keys, with their defaults and meaning (Markdown)")
    py.add_argument(
        "experiment", nargs="?", choices=experiments.names(), help="only this experiment's own keys"
    )
    py.add_argument("--shared", action="store_true", help="only the keys every experiment shares")
    ps = sub.add_parser(
        "selftest", help="what scripts/test asks the experiments' folders (analysis/selftest.py)"
    )
    ps.add_argument(
        "action", choices=["node-packages", "quick", "estimate-checks", "network-config", "network-check"]
    )
    ps.add_argument("results_dir", type=Path, nargs="?")
    # Commands an experiment brings (its descriptor's `commands(sub)`: name -> handler).
    extra: dict[str, Handler] = {}
    for e in experiments.all_experiments():
        if e.commands is not None:
            extra.update(e.commands(sub))
    for p in (pc, pr, pt):
        p.add_argument(
            "--paper-dir",
            type=Path,
            default=DEFAULT_PAPER_DIR,
            help="the paper's sample reports (default: the ones shipped with the package)",
        )
    args = ap.parse_args(argv)
    try:
        if args.cmd == "claims":
            if args.paper == (args.results_dir is not None):
                ap.error("give either --paper or RESULTS_DIR")
            return _claims(args.paper_dir, None if args.paper else args.results_dir)
        if args.cmd == "verify":
            from analysis.verify import verify

            return verify(_results_dir(args.results_dir))
        if args.cmd == "costs":
            return _costs(args)
        if args.cmd == "selftest":
            from analysis.selftest import main as selftest

            return selftest(args.action, args.results_dir)
        if args.cmd == "keys":
            from analysis.plan.settings import keys_table

            print(keys_table(args.experiment, args.shared), end="")
            return 0
        if args.cmd in extra:
            return extra[args.cmd](args)
        if args.cmd == "estimates":
            return _estimates(args.results_dirs, args.check, args.within)
        if args.cmd == "runners":
            from analysis.derive.runners import compare, comparison_text

            rows = compare(_results_dir(args.native_dir), _results_dir(args.container_dir))
            print(comparison_text(rows))
            return 0 if rows and all(r.same_verdicts for r in rows) else 1
        rc = for_results(_results_dir(args.results_dir))
        if args.cmd == "tidy":
            col = collect(args.results_dir, args.paper_dir, rc)
            for f in write_tidy(col.df, args.results_dir):
                print(f"wrote {f}")
            return 0
        from analysis import studies
        from analysis.render.report import build_report

        written = build_report(args.results_dir, args.paper_dir, rc, studies.all_studies())
        print(f"analysis: wrote {len(written)} files; the report is {args.results_dir / 'report.pdf'}",
              file=sys.stderr)  # fmt: skip
        return 0
    except (ReportError, ConfigError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
