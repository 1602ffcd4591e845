"""The paper's own DB-SM/DB-RSM code rerun here: its text report (report.txt, the format of the
published sample report, read by db-sm-rsm's parser of that format) with the suite's envelope
around it (report.json: the run's verdict, machine, build, clock).

Its timers become rows with metric `cpu` when the run timed on the CPU clock (the default), or
`time` (wall clock) when it timed as the published reports did. The published figure it is
compared with is the paper's sample report itself (the same code on the authors' machine).
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
    row,
)
from analysis.parse.timer_report import PAPER_MACHINE, DbReport, failed_checks, parse_db_text, report_rows

EXPERIMENT = "artifact-db-sm-rsm"
TOOL = "artifact-db-sm-rsm"
# What its runs are, in the tidy table's columns: the paper's mode and challenge lengths on PBC's BN254.
CURVE, MODE, SECURITY = "bn254-pbc", "paper", "paper"
# The paper's sample report: this program's run on the authors' machine.
PAPER_FILE = "report-db-sm-rsm-n10000-m4"
# The envelope's resources (the program's own, as a child of the driver) as rows: metric, key, unit.
RESOURCES = (("wall", "wall_s", "s"), ("cpu", "cpu_s", "s"), ("peak_rss", "peak_rss_mib", "MiB"))


def rows_of(
    rep: DbReport,
    run: str,
    run_dir: Path | None = None,
    timer_metric: str = "time",
    resources: dict[str, Any] | None = None,
) -> Parsed:
    """A report's tidy rows (its timers as `timer_metric`) and its RunInfo."""
    failed = failed_checks(rep)
    base = report_base(
        EXPERIMENT,
        rep,
        run,
        PAPER_MACHINE,
        n=rep.n,
        m=rep.m,
        curve=rep.curve,
        mode=rep.mode,
        security=rep.security,
        run_ok=not failed,
        variant="local",
    )
    rows = report_rows(base, rep, timer_metric)
    for metric, key, unit in RESOURCES:
        v = (resources or {}).get(key)
        if isinstance(v, int | float) and not isinstance(v, bool):
            rows.append(
                row(
                    base,
                    section="run",
                    party=None,
                    label="resources",
                    metric=metric,
                    value=float(v),
                    unit=unit,
                )
            )
    if run_dir is not None:
        rows += benchmark_rows(base, run_dir)
    info = RunInfo(
        EXPERIMENT,
        rep.source,
        run,
        rep.path,
        not failed,
        rep.threads,
        rep.machine,
        rep.versions,
        rep.fixes,
        failed,
        rep.commit,
    )
    return Parsed(rows, [info], [])


def read(run_dir: Path) -> tuple[Enveloped, DbReport]:
    """The envelope and the program's own report of one run; a malformed one is a ReportError."""
    env = load_enveloped(run_dir / "report.json", TOOL)
    name = env.body.get("report", "report.txt")
    rep = parse_db_text(run_dir / str(name), source="ours")
    prm = env.parameters
    if prm.get("n") != rep.n or prm.get("m") != rep.m:
        raise ReportError(
            run_dir / str(name),
            1,
            f"n = {prm.get('n')} and m = {prm.get('m')} as report.json says",
            f"n = {rep.n}, m = {rep.m}",
        )
    rep.passed, rep.machine, rep.commit, rep.threads = env.passed, env.machine, env.commit, 1
    rep.curve, rep.mode, rep.security = CURVE, MODE, SECURITY
    # The driver's reasons beyond a False status (an exit status, a missing status).
    other = [str(x) for x in env.body.get("failed") or [] if not str(x).endswith(" is False")]
    if not env.passed and other:
        rep.failure = "; ".join(other)
    artifact = env.body.get("artifact") or {}
    build = env.body.get("build") or {}
    rep.versions = {"traceable-mixnets": str(artifact.get("commit", "?"))[:12]}
    for name_, tree in (build.get("trees") or {}).items():
        if isinstance(tree, dict):
            rep.versions[name_] = str(tree.get("commit", "?"))[:12]
    rep.fixes = [f"build patch {p}" for p in build.get("patches") or []]
    return env, rep


def load_run(run_dir: Path, run_id: str, params: dict[str, Any]) -> Parsed:
    if not (run_dir / "report.json").exists():
        return no_report(EXPERIMENT, run_id)
    try:
        env, rep = read(run_dir)
    except ReportError as e:
        # A program that stopped half-way leaves a truncated report: the run failed, and says where.
        env = load_enveloped(run_dir / "report.json", TOOL)
        why = [str(x) for x in env.body.get("failed") or []] or [str(e)]
        info = RunInfo(
            EXPERIMENT,
            "ours",
            run_id,
            str(run_dir / "report.json"),
            False,
            1,
            env.machine,
            {},
            failed=why,
            commit=env.commit,
            problems=[f"report.txt: {e}"],
        )
        return Parsed([], [info], [])
    clock = str(env.parameters.get("clock", "wall"))
    parsed = rows_of(rep, run_id, run_dir, "cpu" if clock == "cpu" else "time", env.envelope.get("resources"))
    parsed.runs[0].settings["clock"] = clock
    parsed.runs[0].settings["precomputing"] = str(env.parameters.get("precomputing", "?"))
    return parsed


def load_reference(paper_dir: Path) -> Parsed:
    """The paper's sample report: this code's run on the authors' machine (n = 10000, m = 4)."""
    rep = parse_db_text(published(paper_dir / PAPER_FILE), source="paper")
    rep.curve, rep.mode, rep.security, rep.threads = CURVE, MODE, SECURITY, 1
    return rows_of(rep, PAPER_FILE)


def problems(run_dir: Path) -> list[str]:
    """Why the run does not count: the driver's verdict (exit status, every status of the
    published report present and True), or a report that does not parse."""

    def failed(js: Path) -> list[str]:
        env, rep = read(run_dir)
        found = [f"{k} is False" for k, v in rep.statuses.items() if not v]
        if not env.passed:
            found += [str(x) for x in env.body.get("failed") or [] if str(x) not in found]
            found = found or ["passed is false"]
        return found

    return report_problems(run_dir, failed)
