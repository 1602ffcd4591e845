"""Parsers for the cpSNARK-Set benchmark: criterion's text output and our enveloped JSON report.

Criterion prints each group's name (on its own line when long, else before `time:` on the same
line) followed by `time:   [low mean high]`, the bootstrap 95% CI and point estimate of the mean
per-iteration time. The paper's README quotes the middle value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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
    row,
)

PROVE = "membership_hash protocol proving"
VERIFY = "membership_hash protocol verification"
WITNESS = "membership_hash creating witness"
# Ours only: the witness over n real hash-to-prime outputs instead of n copies of one prime.
WITNESS_HASHED = "membership_hash creating witness (hashed primes)"

UNITS = {"ps": 1e-12, "ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
NUM = r"([0-9]+(?:\.[0-9]+)?)"
UNIT = r"(ps|ns|µs|us|ms|s)"
TIME_LINE_RE = re.compile(rf"^(?P<name>.*?)\s*time:\s+\[{NUM} {UNIT} {NUM} {UNIT} {NUM} {UNIT}\]\s*$")
BENCHMARKING_RE = re.compile(r"^Benchmarking (?P<name>.+?): ")


@dataclass(frozen=True)
class Estimate:
    mean_s: float
    ci_low_s: float
    ci_high_s: float


@dataclass
class CpReport:
    path: str
    source: str
    n: int | None = None
    threads: int | None = None
    sample_size: int | None = None
    groups: dict[str, Estimate] = field(default_factory=dict)
    machine: dict[str, Any] | None = None
    versions: dict[str, str] = field(default_factory=dict)
    commit: str | None = None
    passed: bool = True  # every proof verified (the envelope's verdict; text reports: True)
    security: str | None = None  # the security setting: "128" or "paper"


def parse_cp_text(path: str | Path, source: str = "ours", n: int | None = None) -> CpReport:
    """Parse criterion output; raise ReportError naming file, line and expectation."""
    p = Path(path)
    lines = p.read_text(encoding="utf-8").splitlines()
    rep = CpReport(path=str(p), source=source, n=n)
    announced: dict[str, int] = {}
    prev: str | None = None
    for no, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        if (m := BENCHMARKING_RE.match(text)) is not None:
            announced.setdefault(m.group("name"), no)
            continue
        if "time:" in text and not text.startswith(("change:", "thrpt:")):
            m = TIME_LINE_RE.match(text)
            if m is None:
                raise ReportError(
                    p, no, "a criterion line 'time:   [<lo> <unit> <mean> <unit> <hi> <unit>]'", raw
                )
            name = m.group("name").strip() or (prev or "")
            if not name:
                raise ReportError(p, no, "a benchmark group name before the 'time:' line", raw)
            vals = [float(m.group(i)) * UNITS[m.group(i + 1)] for i in (2, 4, 6)]
            rep.groups[name] = Estimate(mean_s=vals[1], ci_low_s=vals[0], ci_high_s=vals[2])
            prev = None
            continue
        prev = text
    end = len(lines) + 1
    for name, line in announced.items():
        if name not in rep.groups:
            raise ReportError(
                p,
                end,
                f"a 'time:' line for group {name!r} announced on line {line} (truncated)",
                "end of file",
            )
    if not rep.groups:
        raise ReportError(p, end, "at least one criterion 'time:' line", "end of file")
    return rep


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
    rows: list[dict[str, Any]] = []
    for g, est in rep.groups.items():
        for metric, v in (("mean", est.mean_s), ("ci_low", est.ci_low_s), ("ci_high", est.ci_high_s)):
            rows.append(row(base, section=g, party=None, label=g, metric=metric, value=v, unit="s"))
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
