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
from analysis.experiments.cpsnark_sm.parser import PAPER_FILE, CpReport, cp_rows, parse_cp_text
from analysis.parse.common import (
    Enveloped,
    Parsed,
    RunInfo,
    load_enveloped,
    no_report,
    published,
    report_problems,
)

EXPERIMENT = "artifact-cpsnark-sm"
TOOL = "artifact-cpsnark-sm"
FORK_N = 10000


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
    parsed = cp_rows(rep, run_id, run_dir, experiment=EXPERIMENT)
    if not env.passed:
        parsed.runs[0].failed = [str(x) for x in env.body.get("failed") or []] or ["passed is false"]
    return parsed


def load_reference(paper_dir: Path) -> Parsed:
    """The paper's criterion output: this bench on the authors' machine."""
    return cp_rows(
        parse_cp_text(published(paper_dir / PAPER_FILE), source="paper", n=FORK_N),
        PAPER_FILE,
        experiment=EXPERIMENT,
    )


def problems(run_dir: Path) -> list[str]:
    def failed(js: Path) -> list[str]:
        env, _ = read(run_dir)
        return [] if env.passed else [str(x) for x in env.body.get("failed") or []] or ["passed is false"]

    return report_problems(run_dir, failed)
