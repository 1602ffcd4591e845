"""The paper's own fork of cpsnarks-set rerun here: criterion's output (report.txt, read by
cpsnark-sm's parser of criterion's format, the same that reads the published output) with the
suite's envelope around it (report.json: the verdict, machine, build).

Its rows are cpsnark-sm's (metric mean, ci_low, ci_high per group); the published figure it is
compared with is the paper's criterion output (the same bench on the authors' machine).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.errors import ReportError
from analysis.parse.common import (
    Enveloped,
    Parsed,
    RunInfo,
    benchmark_rows,
    load_enveloped,
    no_report,
    published,
    report_base,
    report_problems,
)
from analysis.parse.criterion import CpReport, criterion_rows, parse_cp_text

EXPERIMENT = "artifact-cpsnark-sm"
TOOL = "artifact-cpsnark-sm"
FORK_N = 10000
# The paper's criterion output: this bench on the authors' machine (its prove used all threads).
PAPER_FILE = "report-benarroch-cpsnark-sm-n10000"
PAPER_MACHINE = "Intel Xeon W-1270 @ 3.4 GHz, 64 GB RAM, all hardware threads (paper README)"


def rows_of(rep: CpReport, run: str, run_dir: Path | None = None, failed: list[str] | None = None) -> Parsed:
    """Criterion's groups as tidy rows, and the RunInfo."""
    base = report_base(
        EXPERIMENT,
        rep,
        run,
        PAPER_MACHINE,
        statement="sm",
        prover="cpsnarks-set fork",
        n=rep.n,
        curve="bls12-381",
        hash="blake2s",
        security="paper",
        run_ok=rep.passed,
    )
    rows = criterion_rows(base, rep)
    if run_dir is not None:
        rows += benchmark_rows(base, run_dir)
    info = RunInfo(
        EXPERIMENT,
        rep.source,
        run,
        rep.path,
        rep.passed,
        rep.threads,
        rep.machine,
        rep.versions,
        failed=failed or ([] if rep.passed else ["passed is false"]),
        commit=rep.commit,
    )
    return Parsed(rows, [info], [])


def read(run_dir: Path) -> tuple[Enveloped, CpReport]:
    env = load_enveloped(run_dir / "report.json", TOOL)
    rep = parse_cp_text(run_dir / str(env.body.get("report", "report.txt")), source="ours", n=FORK_N)
    rep.threads = env.parameters.get("threads")
    rep.sample_size = env.parameters.get("samples")
    rep.machine, rep.commit, rep.passed = env.machine, env.commit, env.passed
    build = env.body.get("build") or {}
    rep.versions = {
        name: str((t or {}).get("commit", "?"))[:12] for name, t in (build.get("trees") or {}).items()
    }
    if build.get("rustc"):
        rep.versions["rustc"] = str(build["rustc"])
    return env, rep


def load_run(run_dir: Path, run_id: str, params: dict[str, Any]) -> Parsed:
    if not (run_dir / "report.json").exists():
        return no_report(EXPERIMENT, run_id)
    try:
        env, rep = read(run_dir)
    except ReportError as e:
        env = load_enveloped(run_dir / "report.json", TOOL)
        why = [str(x) for x in env.body.get("failed") or []] or [str(e)]
        info = RunInfo(
            EXPERIMENT,
            "ours",
            run_id,
            str(run_dir / "report.json"),
            False,
            env.parameters.get("threads"),
            env.machine,
            {},
            failed=why,
            commit=env.commit,
            problems=[f"report.txt: {e}"],
        )
        return Parsed([], [info], [])
    return rows_of(rep, run_id, run_dir, [str(x) for x in env.body.get("failed") or []])


def load_reference(paper_dir: Path) -> Parsed:
    """The paper's criterion output: this bench on the authors' machine."""
    return rows_of(parse_cp_text(published(paper_dir / PAPER_FILE), source="paper", n=FORK_N), PAPER_FILE)


def problems(run_dir: Path) -> list[str]:
    def failed(js: Path) -> list[str]:
        env, _ = read(run_dir)
        return [] if env.passed else [str(x) for x in env.body.get("failed") or []] or ["passed is false"]

    return report_problems(run_dir, failed)
