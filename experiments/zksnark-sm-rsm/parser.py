"""Parsers for the zkSNARK set-membership report: paper-format text and our JSON.

The text is what the paper's artifact prints (its `run.sh`): four sections
`COMPUTATION:`, `TRUSTED SETUP:`, `PROVER:`, `VERIFIER:`, each wrapped in bash's `time`, so each
ends with `real\\t0m2.178s`, `user\\t...`, `sys\\t...`. Our node driver writes the same format,
one file per prover.

Our JSON report is the suite's envelope around the driver's body
(zksnark-sm-rsm/docs/report.schema.json): the envelope's `passed` is the run's verdict; the body
names the circuits' variant (`sound`, or `as-published`: the paper's statement) and the fixes in
force, and holds every circuit's provers: `wasm` (zokrates-js), `native` (ark-groth16) and
`snarkjs`, the reference measured in the same run, whose proofs the native verifier checks and
vice versa.
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
    json_line,
    load_enveloped,
    load_rows,
    need,
    no_report,
    numbers,
    published,
    report_base,
    report_problems,
    row,
)

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


def _times(obj: Any, p: Path, where: str) -> dict[str, float]:
    return numbers(obj, p, where, ("real", "user", "sys"), "real/user/sys", clip=None)


def parse_zk_json(path: str | Path) -> list[ZkReport]:
    """Parse our zksnark-sm-rsm report (the envelope around the driver's body): one ZkReport per
    circuit and prover, each carrying the envelope's verdict."""
    p = Path(path)
    env = load_enveloped(p, EXPERIMENT)
    d = env.body
    circuits = need(d, "circuits", dict, p, "body.")
    if not circuits:
        raise ReportError(p, json_line(p, "circuits"), 'at least one circuit under "circuits"')
    versions = {str(k): str(v) for k, v in (d.get("versions") or {}).items() if v is not None}
    failed: list[str] = []
    out: list[ZkReport] = []
    for circuit, c in circuits.items():
        if not isinstance(c, dict):
            raise ReportError(p, None, f"circuits.{circuit} to be an object")
        provers = need(c, "provers", dict, p, f"circuits.{circuit}.")
        if not provers:
            raise ReportError(p, None, f"at least one prover under circuits.{circuit}.provers")
        for name, pr in provers.items():
            rep = _prover_report(p, d, str(circuit), c, str(name), pr, versions)
            rep.commit, rep.machine, rep.load = env.commit, env.machine, env.load
            rep.seeded = env.seed is not None
            out.append(rep)
            if rep.status != "PASSED":
                failed.append(f"prover {name} ({circuit}): status {rep.status}")
            failed += [f"{circuit}: the {name} proof rejected by {by}"
                       for by, ok in rep.checked_by.items() if not ok]  # fmt: skip
    if not env.passed and not failed:
        failed.append("the report did not pass")
    ptau = d.get("powers_of_tau")
    for rep in out:
        rep.passed = env.passed
        rep.failed = [] if env.passed else failed
        if isinstance(ptau, dict) and isinstance(ptau.get("time"), dict):
            t = _times(ptau["time"], p, "powers_of_tau.time")
            # "native": zksnark-prover ptau; reports before the generator was named used snarkjs.
            rep.powers_of_tau = {"power": float(ptau.get("power", 0)), "cpu": t["user"] + t["sys"],
                                 "generated": float(ptau.get("generated_in_this_run") is True),
                                 "native": float(ptau.get("generator") == "native")}  # fmt: skip
    return out


def _prover_report(p: Path, d: dict[str, Any], circuit: str, c: dict[str, Any], name: str, pr: Any,
                   versions: dict[str, str]) -> ZkReport:  # fmt: skip
    where = f"circuits.{circuit}.provers.{name}"
    if not isinstance(pr, dict):
        raise ReportError(p, None, f"{where} to be an object")
    secs = need(pr, "sections", dict, p, where + ".")
    threads = pr.get("threads")
    rep = ZkReport(
        path=str(p),
        source="ours",
        prover=name,
        circuit=circuit,
        statement=need(d, "statement", str, p, "body."),
        hash=need(d, "hash", str, p, "body."),
        n=need(d, "n", int, p, "body."),
        depth=d.get("depth"),
        constraints=c.get("constraints"),
        # The wasm prover is single-threaded whatever was asked: the prover says its own count
        # (snarkjs with a worker per CPU says null: the run's count stands in).
        threads=threads if isinstance(threads, int) else d.get("threads"),
        curve=str(d.get("curve", "bn254")),
        status=need(pr, "status", str, p, where + "."),
        peak_rss_mib=pr.get("peak_rss_mib"),
        versions=versions,
        circuit_variant=need(d, "variant", str, p, "body."),
        fixes=[str(f) for f in need(d, "fixes", list, p, "body.")],
    )
    for s in SECTIONS:
        if s not in secs:
            raise ReportError(p, None, f"section {where}.sections.{s!r}")
        rep.sections[s] = _times(secs[s], p, f"{where}.sections.{s}")
    for key, sec in (("setup_components", "TRUSTED SETUP"), ("prover_components", "PROVER")):
        for cname, comp in (pr.get(key) or {}).items():
            rep.section_components.setdefault(sec, {})[str(cname)] = _times(comp, p, f"{where}.{key}.{cname}")
    ops = pr.get("operations")
    if isinstance(ops, dict):
        rep.operations = {str(k): float(v) for k, v in ops.items() if isinstance(v, int | float)}
    checked = pr.get("checked_by")
    if isinstance(checked, dict):
        rep.checked_by = {str(k): v is True for k, v in checked.items()}
    if rep.status not in ("PASSED", "FAILED"):
        raise ReportError(p, None, f"{where}.status PASSED or FAILED", rep.status)
    return rep


# ---- tidy rows ---------------------------------------------------------------------------------

EXPERIMENT = "zksnark-sm-rsm"
# The paper's sample reports. The `report-groth16zksnark-poseidon-*` pair is the same run as the
# `report-zksnark-*` pair with two debug lines more, so it is parsed (tests) but not counted twice.
PAPER_FILES = {
    "sm": "report-zksnark-sm-n10000-groth16-poseidon",
    "rsm": "report-zksnark-rsm-n10000-groth16-poseidon",
}
PAPER_DUPLICATES = {
    "sm": "report-groth16zksnark-poseidon-sm-n10000",
    "rsm": "report-groth16zksnark-poseidon-rsm-n10000",
}
PAPER_MACHINE = "Intel Xeon W-1270 @ 3.4 GHz, 64 GB RAM, one core (paper README)"


def zk_rows(rep: ZkReport, run: str, run_dir: Path | None = None, experiment: str = EXPERIMENT) -> Parsed:
    # Ours: the envelope's verdict; the paper's text reports: their own PASSED line.
    ok = rep.passed if rep.passed is not None else rep.status == "PASSED"
    # `mode` holds the circuits' variant: the paper's runs are its statement as published.
    mode = rep.circuit_variant or ("as-published" if rep.source == "paper" else None)
    base = report_base(experiment, rep, run, PAPER_MACHINE, variant=rep.circuit, statement=rep.statement,
                       prover=rep.prover, n=rep.n, curve=rep.curve, hash=rep.hash, run_ok=ok,
                       mode=mode)  # fmt: skip
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
    if rep.source == "ours" and rep.passed is not None:
        rows.append(row(base, section="run", party=None, label="seeded", metric="seeded",
                        value=float(rep.seeded), unit="bool"))  # fmt: skip
        rows += load_rows(base, rep.load)
    if run_dir is not None:
        rows += benchmark_rows(base, run_dir)
    name = f"{run}/{rep.prover}" if rep.circuit is None else f"{run}/{rep.circuit}/{rep.prover}"
    failed = rep.failed if rep.passed is not None else ([] if ok else [f"VERIFIER ({rep.prover})"])
    info = RunInfo(experiment, rep.source, name, rep.path, ok, rep.threads, rep.machine,
                   rep.versions, rep.fixes, failed, rep.commit)  # fmt: skip
    return Parsed(rows, [info], [])


def load_run(run_dir: Path, run_id: str, params: dict[str, Any]) -> Parsed:
    """One of our runs: report.json (every prover); the text reports if there is no JSON."""
    out = Parsed()
    js = run_dir / "report.json"
    if js.exists():
        for rep in parse_zk_json(js):
            out.add(zk_rows(rep, run_id, run_dir))
        # The paper-format text of each prover is a record of the same run: check it reads.
        for f in sorted(run_dir.glob("report-*.txt")):
            try:
                parse_zk_text(f, "ours", f.stem.removeprefix("report-"), params.get("statement"))
            except ReportError as e:
                for info in out.runs:
                    info.ok = False
                    info.problems.append(f"{f.name} unreadable: {e}")
                for r in out.rows:
                    r["run_ok"] = False
        return out
    texts = sorted(run_dir.glob("report-*.txt"))
    if not texts:
        return no_report(EXPERIMENT, run_id)
    for f in texts:
        rep = parse_zk_text(f, "ours", f.stem.removeprefix("report-"), params.get("statement"))
        rep.threads = params.get("threads")
        rep.n = rep.n or params.get("n")
        rep.hash = rep.hash or params.get("hash")
        out.add(zk_rows(rep, run_id, run_dir))
    return out


def load_reference(paper_dir: Path) -> Parsed:
    """The paper's two zkSNARK sample reports (ZoKrates CLI, n = 10000, Poseidon)."""
    out = Parsed()
    for st, name in PAPER_FILES.items():
        rep = parse_zk_text(published(paper_dir / name), source="paper", prover="zokrates-cli", statement=st)
        # ZoKrates 0.8's ark prover, which the paper ran, is single-threaded.
        rep.threads = 1
        rep.circuit = "zokrates"
        out.add(zk_rows(rep, name))
    return out


def problems(run_dir: Path) -> list[str]:
    def failed(js: Path) -> list[str]:
        reps = parse_zk_json(js)
        return [] if not reps or reps[0].passed else reps[0].failed

    return report_problems(run_dir, failed)
