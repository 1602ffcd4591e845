"""Criterion's text output (criterion 0.3 and later), as the paper's cpSNARK-Set benchmark prints
it (its published sample report ships in analysis/data/paper/): each group's name (on its own
line when long, else before `time:` on the same line) followed by `time:   [low mean high]`, the
bootstrap 95% CI and point estimate of the mean per-iteration time. The paper's README quotes
the middle value. Also: the groups of the membership_hash bench, and a report's tidy rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.errors import ReportError
from analysis.parse.common import row

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


def criterion_rows(base: dict[str, Any], rep: CpReport) -> list[dict[str, Any]]:
    """Each group's mean and 95% CI (seconds of one iteration) as tidy rows on `base`."""
    rows: list[dict[str, Any]] = []
    for g, est in rep.groups.items():
        for metric, v in (("mean", est.mean_s), ("ci_low", est.ci_low_s), ("ci_high", est.ci_high_s)):
            rows.append(row(base, section=g, party=None, label=g, metric=metric, value=v, unit="s"))
    return rows
