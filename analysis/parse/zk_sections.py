"""The text report of the paper's zkSNARK run.sh (its published sample reports ship in
analysis/data/paper/): four sections `COMPUTATION:`, `TRUSTED SETUP:`, `PROVER:`, `VERIFIER:`,
each wrapped in bash's `time`, so each ends with `real\\t0m2.178s`, `user\\t...`, `sys\\t...`.
Our Node driver writes the same format, one file per prover. Also: the report it holds (with
the fields our JSON report adds) and its tidy rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.errors import ReportError
from analysis.parse.common import row

SECTIONS = ("COMPUTATION", "TRUSTED SETUP", "PROVER", "VERIFIER")
BASH_TIME_RE = re.compile(r"^(?P<kind>real|user|sys)\s+(?:(?P<min>\d+)m)?(?P<sec>\d+(?:\.\d+)?)s$")
COMPONENT_RE = re.compile(r"^Time (?P<name>\S+): (?P<v>[0-9.eE+-]+) sec$")
KV_RE = re.compile(r"^(?P<k>n|treedepth|hashfunc|statement)=(?P<v>\S+)$")
CONSTRAINTS_RE = re.compile(r"^Number of constraints: (?P<v>\d+)$")
WRITTEN_ZOK_RE = re.compile(r"(?:^|/)(?P<st>sm|rsm)\.zok\b")


@dataclass
class ZkReport:
    path: str
    source: str
    prover: str  # "zokrates-cli" (paper), "wasm", "native" or "snarkjs" (ours)
    circuit: str | None = None  # which circuit of the statement (ZoKrates's, or our optimised one)
    statement: str | None = None
    hash: str | None = None
    n: int | None = None
    depth: int | None = None
    constraints: int | None = None
    threads: int | None = None
    curve: str = "bn254"
    sections: dict[str, dict[str, float]] = field(default_factory=dict)
    # `Time <name>: <v> sec` lines by section (wall seconds), e.g. COMPUTATION's tree build.
    components: dict[str, dict[str, float]] = field(default_factory=dict)
    # Our JSON's real/user/sys split of a section, e.g. PROVER = witness + proof.
    section_components: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    status: str | None = None
    peak_rss_mib: float | None = None
    machine: dict[str, Any] | None = None
    versions: dict[str, str] = field(default_factory=dict)
    commit: str | None = None
    # Counted work of one native Groth16 proof (FFT size, MSM terms), where the prover gives it.
    operations: dict[str, float] = field(default_factory=dict)
    # Ours: the circuits' variant ("sound", or "as-published": the paper's statement), the fixes
    # in force (docs/fixes.md codes), the envelope's verdict and why it failed, the seed.
    circuit_variant: str | None = None
    fixes: list[str] = field(default_factory=list)
    passed: bool | None = None
    failed: list[str] = field(default_factory=list)
    seeded: bool = False
    load: dict[str, float | None] = field(default_factory=dict)
    # The other prover's verifier on this prover's proof (native by snarkjs, and back).
    checked_by: dict[str, bool] = field(default_factory=dict)
    # snarkjs's powers of tau: power and generation time (user + sys), once per run.
    powers_of_tau: dict[str, float] = field(default_factory=dict)


def parse_zk_text(
    path: str | Path,
    source: str = "ours",
    prover: str = "zokrates-cli",
    statement: str | None = None,
) -> ZkReport:
    """Parse one zkSNARK text report; raise ReportError naming file, line and expectation."""
    p = Path(path)
    lines = p.read_text(encoding="utf-8").splitlines()
    rep = ZkReport(path=str(p), source=source, prover=prover, statement=statement)
    current: str | None = None
    seen: list[str] = []
    for no, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        if text.endswith(":") and text[:-1] in SECTIONS:
            name = text[:-1]
            expected_next = SECTIONS[len(seen)] if len(seen) < len(SECTIONS) else None
            if name != expected_next:
                raise ReportError(
                    p, no, f"section '{expected_next}:'" if expected_next else "end of report", raw
                )
            if current is not None and len(rep.sections.get(current, {})) < 3:
                raise ReportError(p, no, f"the real/user/sys lines closing section {current}", raw)
            current = name
            seen.append(name)
            continue
        if current is None:
            raise ReportError(p, no, "section 'COMPUTATION:' first", raw)
        if (text.startswith(("real", "user", "sys")) and "\t" in raw) or BASH_TIME_RE.match(text):
            m = BASH_TIME_RE.match(text)
            if m is None:
                raise ReportError(p, no, "a bash time line like 'real\\t0m2.178s'", raw)
            secs = float(m.group("sec")) + 60.0 * float(m.group("min") or 0)
            rep.sections.setdefault(current, {})[m.group("kind")] = secs
            continue
        if (m := KV_RE.match(text)) is not None:
            k, v = m.group("k"), m.group("v")
            if k == "hashfunc":
                rep.hash = v
            elif k == "statement":
                rep.statement = rep.statement or v
            else:
                try:
                    num = int(v)
                except ValueError:
                    raise ReportError(p, no, f"an integer after '{k}='", raw) from None
                if k == "n":
                    rep.n = num
                else:
                    rep.depth = num
            continue
        if (m := COMPONENT_RE.match(text)) is not None:
            rep.components.setdefault(current, {})[m.group("name")] = float(m.group("v"))
            continue
        if (m := CONSTRAINTS_RE.match(text)) is not None:
            rep.constraints = int(m.group("v"))
            continue
        if text in ("PASSED", "FAILED"):
            if current != "VERIFIER":
                raise ReportError(p, no, "PASSED/FAILED only in section VERIFIER", raw)
            rep.status = text
            continue
        if (m := WRITTEN_ZOK_RE.search(text)) is not None and rep.statement is None:
            rep.statement = m.group("st")
        # Every other line is tool chatter (warnings, file names); it carries no measurement.
    end = len(lines) + 1
    if len(seen) < len(SECTIONS):
        raise ReportError(p, end, f"section '{SECTIONS[len(seen)]}:' (report truncated)", "end of file")
    for s in SECTIONS:
        missing = [k for k in ("real", "user", "sys") if k not in rep.sections.get(s, {})]
        if missing:
            raise ReportError(
                p, end, f"'{missing[0]}' time line in section {s} (report truncated)", "end of file"
            )
    if rep.status is None:
        raise ReportError(p, end, "PASSED or FAILED in section VERIFIER", "end of file")
    return rep


def section_rows(base: dict[str, Any], rep: ZkReport) -> list[dict[str, Any]]:
    """A report's sections (real/user/sys), their components, constraints, verifier status,
    cross-verifications, powers of tau, peak memory and counted operations as tidy rows."""
    rows: list[dict[str, Any]] = []
    for s in SECTIONS:
        for kind, v in rep.sections.get(s, {}).items():
            rows.append(row(base, section=s, party=None, label=s, metric=kind, value=v, unit="s"))
    for sec, comps in rep.components.items():
        for name, v in comps.items():
            rows.append(row(base, section=sec, party=None, label=name, metric="real", value=v, unit="s"))
    for sec, parts in rep.section_components.items():
        for name, times in parts.items():
            for kind, v in times.items():
                rows.append(row(base, section=sec, party=None, label=name, metric=kind, value=v, unit="s"))
    if rep.constraints is not None:
        rows.append(row(base, section="TRUSTED SETUP", party=None, label="constraints",
                        metric="constraints", value=float(rep.constraints), unit="count"))  # fmt: skip
    rows.append(row(base, section="VERIFIER", party=None, label="status", metric="status",
                    value=1.0 if rep.status == "PASSED" else 0.0, unit="bool"))  # fmt: skip
    for by, good in rep.checked_by.items():
        rows.append(row(base, section="VERIFIER", party=None, label=f"checked by {by}",
                        metric="cross_verified", value=float(good), unit="bool"))  # fmt: skip
    for k, v in rep.powers_of_tau.items():
        rows.append(row(base, section="TRUSTED SETUP", party=None, label="powers of tau", metric=f"ptau_{k}",
                        value=v, unit="s" if k == "cpu" else "count"))  # fmt: skip
    if rep.peak_rss_mib is not None:
        rows.append(row(base, section="", party=None, label="peak RSS", metric="peak_rss",
                        value=float(rep.peak_rss_mib), unit="MiB"))  # fmt: skip
    for name, v in rep.operations.items():
        rows.append(row(base, section="PROVER", party=None, label=name, metric="operations", value=v,
                        unit="count"))  # fmt: skip
    return rows
