"""The nested-timer text report of the paper's DB-SM/DB-RSM program (its published sample
report ships in analysis/data/paper/), which our implementation writes too: its grammar, the
report it holds, and its tidy rows.

Nested timers: a line at level L starts with 4*L + 1 spaces. A timer with children prints its
name as a header line before its first child and closes with `<name> time: <t> s` at the
header's level; leaves print only their time line. Per-party totals are `mixer k total time` /
`verifier total time` lines inside the section they total. Status lines are `status_x: True`,
except two upstream labels that have no colon.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.errors import ReportError
from analysis.parse.common import row

# The paper's machine, as its README states it; the sample reports carry no machine block.
PAPER_MACHINE = "Intel Xeon W-1270 @ 3.4 GHz, 64 GB RAM, one core (paper README)"

PARTY_RE = re.compile(r"^(mixer \d+|verifier)(?::| total$)")
TIME_RE = re.compile(r"^(?P<label>.+?) time: (?P<t>[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?) s$")
STATUS_RE = re.compile(r"^(?P<name>status_\w+):? (?P<v>True|False)$")
SIZE_RE = re.compile(r"^(?P<label>size of .+): (?P<v>[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?) MB$")
COUNT_RE = re.compile(r"^number of (?P<what>entries|mix-servers): (?P<v>\d+)$")
# Settings our program prints (not timed): the security level and where the Paillier keys came from.
SETTING_RE = re.compile(r"^(?P<what>security|keys): (?P<v>[A-Za-z0-9 _.,()-]+)$")
# A test option's line (`--hold-at`): the section a fresh attempt holds at, and what this one did.
HOLD_RE = re.compile(r"^hold-at: (?P<v>[a-z0-9 _.,:()-]+)$")
HEADER_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_ .,'/+()-]*$")
# Lines the authors' run harness appended after the report; nothing in the program prints them.
HARNESS_RE = re.compile(r"^(\*+ Worker \d+ \*+|-+)$")


@dataclass(frozen=True)
class Timer:
    """One timer line: where it sits, whose it is, its label (without ` time`) and seconds."""

    path: tuple[str, ...]
    party: str | None
    label: str
    seconds: float
    # The process's CPU seconds while the timer was open (our JSON report's; None in a text report).
    cpu: float | None = None


@dataclass
class DbReport:
    path: str
    source: str  # "ours" or "paper"
    n: int
    m: int
    curve: str | None = None
    mode: str | None = None
    threads: int | None = None
    seed: str | None = None  # the public seed (64 hex digits), or None for fresh randomness
    security: str | None = None
    # Where the keys came from (ours only): "generated", "seed", "seed-cache" or "test" (JSON), or
    # the text report's keys line.
    keys: str | None = None
    commit: str | None = None
    # Ours with the test option `--hold-at`: its report line's value (section and what it did).
    hold_at: str | None = None
    timers: list[Timer] = field(default_factory=list)
    statuses: dict[str, bool] = field(default_factory=dict)
    sizes: dict[str, float] = field(default_factory=dict)
    # Ours (body_version 4 on): the same five lines as sent, the bytes of the posts carrying them.
    sizes_sent: dict[str, float] = field(default_factory=dict)
    fixes: list[str] = field(default_factory=list)
    machine: dict[str, Any] | None = None
    versions: dict[str, str] = field(default_factory=dict)
    # Ours (JSON) only: the envelope's verdict, the transport, and where a stopped run stopped.
    passed: bool | None = None
    transport: str | None = None
    failure: str | None = None
    # Ours with --transport tls: the body's network block (profile, per-process figures).
    network: dict[str, Any] | None = None
    # Ours: the program's own wall, CPU and peak memory (the envelope's resources block).
    resources: dict[str, float] | None = None
    # Ours with --transport tls: the audit of the board's record (verify-board, by the driver).
    audit: dict[str, Any] | None = None

    def timer(self, path: tuple[str, ...], label: str) -> float | None:
        for t in self.timers:
            if t.path == path and t.label == label:
                return t.seconds
        return None


def party_of(label: str) -> str | None:
    m = PARTY_RE.match(label)
    return m.group(1) if m else None


def parse_db_text(path: str | Path, source: str = "ours") -> DbReport:
    """Parse a DB-SM/DB-RSM timer report; raise ReportError naming file, line and expectation."""
    p = Path(path)
    lines = p.read_text(encoding="utf-8").splitlines()
    stack: list[str] = []  # open section headers; stack[i] sits at level i
    counts: dict[str, int] = {}
    rep = DbReport(path=str(p), source=source, n=-1, m=-1)
    closed_main = False
    last_header: tuple[int, int] | None = None  # (line number, level) of a header awaiting a child
    for no, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        if closed_main:
            if HARNESS_RE.match(raw.strip()):
                continue
            raise ReportError(p, no, "end of report after ' main time: <t> s'", raw)
        spaces = len(raw) - len(raw.lstrip(" "))
        text = raw.strip()
        if text == "precomputing...":
            # An info line printed from inside a leaf timer (one level below it); no measurement.
            continue
        if spaces % 4 != 1:
            raise ReportError(p, no, "an indentation of 4*L+1 spaces", raw)
        level = (spaces - 1) // 4
        if level > len(stack):
            raise ReportError(
                p, no, f"a line at level <= {len(stack)} (no open section at level {level - 1})", raw
            )
        if last_header is not None and level != last_header[1] + 1:
            # A header is printed only before its first child, one level deeper.
            raise ReportError(
                p, no, f"a child line (level {last_header[1] + 1}) of section {stack[-1]!r}", raw
            )
        last_header = None
        if (m := TIME_RE.match(text)) is not None:
            label = m.group("label")
            seconds = float(m.group("t"))
            if level < len(stack) and stack[level] == label:
                # The closing line of an open section.
                del stack[level:]
                rep.timers.append(Timer(tuple(stack), None, label, seconds))
                if label == "main" and level == 0:
                    closed_main = True
                continue
            del stack[level:]
            # `mixer k total` lines total the section they sit in, so their path includes it.
            rep.timers.append(Timer(tuple(stack), party_of(label), label, seconds))
            continue
        if (m := STATUS_RE.match(text)) is not None:
            del stack[level:]
            rep.statuses[m.group("name")] = m.group("v") == "True"
            continue
        if (m := SIZE_RE.match(text)) is not None:
            del stack[level:]
            rep.sizes[m.group("label")] = float(m.group("v"))
            continue
        if (m := COUNT_RE.match(text)) is not None:
            counts[m.group("what")] = int(m.group("v"))
            continue
        if (m := SETTING_RE.match(text)) is not None:
            setattr(rep, m.group("what"), m.group("v"))
            continue
        if (m := HOLD_RE.match(text)) is not None:
            rep.hold_at = m.group("v")
            continue
        if ":" not in text and HEADER_RE.match(text):
            del stack[level:]
            stack.append(text)
            last_header = (no, level)
            continue
        raise ReportError(
            p,
            no,
            "a timer line '<label> time: <t> s', a status line, a size line or a section header",
            raw,
        )
    if not closed_main:
        open_part = " > ".join(stack) if stack else "(none)"
        raise ReportError(
            p,
            len(lines) + 1,
            f"' main time: <t> s' closing the report (truncated; open sections: {open_part})",
            "end of file",
        )
    if "entries" not in counts or "mix-servers" not in counts:
        raise ReportError(p, 1, "the lines 'number of entries: <n>' and 'number of mix-servers: <m>'")
    rep.n = counts["entries"]
    rep.m = counts["mix-servers"]
    return rep


def failed_checks(rep: DbReport) -> list[str]:
    """Why a run did not verify: the envelope's verdict decides (ours), the statuses say which
    step failed; a paper's text report has only its statuses."""
    failed = [k for k, v in rep.statuses.items() if not v]
    if rep.failure is not None:
        failed.append(f"FAILED: {rep.failure}")
    if rep.passed is False and not failed:
        failed.append("passed is false")
    if rep.passed is True:
        return []
    return failed


def report_rows(base: dict[str, Any], rep: DbReport, timer_metric: str = "time") -> list[dict[str, Any]]:
    """A report's timers, statuses and sizes as tidy rows on `base`: each timer's seconds as
    `timer_metric` (`time`, the wall clock; `cpu` for a report timed on the CPU clock), and its
    CPU seconds (metric `cpu`) where the report has them."""
    rows = [
        row(base, section=" > ".join(t.path), party=t.party, label=t.label, metric=timer_metric,
            value=t.seconds, unit="s")
        for t in rep.timers
    ]  # fmt: skip
    rows += [
        row(base, section=" > ".join(t.path), party=t.party, label=t.label, metric="cpu", value=t.cpu,
            unit="s")
        for t in rep.timers
        if t.cpu is not None
    ]  # fmt: skip
    rows += [
        row(base, section="", party=None, label=k, metric="status", value=1.0 if v else 0.0, unit="bool")
        for k, v in rep.statuses.items()
    ]
    rows += [
        row(base, section="", party=None, label=k, metric="size", value=v, unit="MB")
        for k, v in rep.sizes.items()
    ]
    rows += [
        row(base, section="", party=None, label=k, metric="size_sent", value=v, unit="MB")
        for k, v in rep.sizes_sent.items()
    ]
    return rows
