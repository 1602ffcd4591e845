"""Parsers for the cpSNARK-Set benchmark: criterion's text output (analysis/parse/criterion.py)
and our enveloped JSON report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.errors import ReportError
from analysis.parse.common import (
    Parsed,
    RunInfo,
    benchmark_rows,
    load_enveloped,
    need,
    no_report,
    objects,
    published,
    report_base,
    report_problems,
)
from analysis.parse.criterion import (
    PROVE,
    VERIFY,
    WITNESS,
    WITNESS_HASHED,
    CpReport,
    Estimate,
    criterion_rows,
    parse_cp_text,
)

# The bench's groups and the text parser, which other modules take from here.
__all__ = ["PROVE", "VERIFY", "WITNESS", "WITNESS_HASHED", "parse_cp_text"]

TOOL = "cpsnark-bench"


def parse_cp_json(path: str | Path) -> CpReport:
    """Parse our cpsnark-bench report.json: the suite's envelope around the body of
    cpsnark-sm/docs/report.schema.json."""
    p = Path(path)
    env = load_enveloped(p, TOOL)
    prm, d = env.parameters, env.body
    security = d.get("security")
    rep = CpReport(
        path=str(p),
        source="ours",
        n=need(prm, "n", int, p, "parameters."),
        threads=prm.get("threads"),
        sample_size=prm.get("samples"),
        machine=env.machine,
        versions={TOOL: str(env.envelope.get("tool_version"))}
        | {str(k): str(v) for k, v in (d.get("libraries") or {}).items()},
        commit=env.commit,
        passed=env.passed,
        security=str(security["setting"]) if isinstance(security, dict) and "setting" in security else None,
    )
    for where, g in objects(d, "groups", p, "body."):
        name = need(g, "group", str, p, where)
        rep.groups[name] = Estimate(
            mean_s=float(need(g, "mean_s", (int, float), p, where)),
            ci_low_s=float(need(g, "ci_low_s", (int, float), p, where)),
            ci_high_s=float(need(g, "ci_high_s", (int, float), p, where)),
        )
    if rep.passed and not rep.groups:
        raise ReportError(p, None, 'at least one entry in "body.groups"')
    return rep


# ---- tidy rows ---------------------------------------------------------------------------------

EXPERIMENT = "cpsnark-sm"
# The report cpsnark-bench writes with --out in a run's directory.
REPORT = "report.json"
PAPER_FILE = "report-benarroch-cpsnark-sm-n10000"
PAPER_MACHINE = "Intel Xeon W-1270 @ 3.4 GHz, 64 GB RAM, all hardware threads (paper README)"


def cp_rows(rep: CpReport, run: str, run_dir: Path | None = None, experiment: str = EXPERIMENT) -> Parsed:
    base = report_base(experiment, rep, run, PAPER_MACHINE, statement="sm", prover="cpsnark-set", n=rep.n,
                       curve="bls12-381", hash="blake2s", security=rep.security,
                       run_ok=rep.passed)  # fmt: skip
    rows = criterion_rows(base, rep)
    if run_dir is not None:
        rows += benchmark_rows(base, run_dir)
    failed = [] if rep.passed else ["a proof did not verify"]
    info = RunInfo(experiment, rep.source, run, rep.path, rep.passed, rep.threads, rep.machine,
                   rep.versions, failed=failed, commit=rep.commit)  # fmt: skip
    return Parsed(rows, [info], [])


def load_run(run_dir: Path, run_id: str, params: dict[str, Any]) -> Parsed:
    js, txt = run_dir / REPORT, run_dir / "report.txt"
    if js.exists():
        return cp_rows(parse_cp_json(js), run_id, run_dir)
    if txt.exists():
        rep = parse_cp_text(txt, "ours", params.get("n"))
        rep.threads = params.get("threads")
        return cp_rows(rep, run_id, run_dir)
    return no_report(EXPERIMENT, run_id)


def load_reference(paper_dir: Path) -> Parsed:
    """The paper's criterion output (n = 10000; its proving figure used all hardware threads)."""
    f = published(paper_dir / PAPER_FILE)
    return cp_rows(parse_cp_text(f, source="paper", n=10000), PAPER_FILE)


def problems(run_dir: Path) -> list[str]:
    def failed(js: Path) -> list[str]:
        rep = parse_cp_json(js)
        if not rep.passed:
            return ["a proof did not verify (passed is false)"]
        return [f"group {g!r}: no mean" for g, e in rep.groups.items() if not e.mean_s > 0]

    return report_problems(run_dir, failed, REPORT)
