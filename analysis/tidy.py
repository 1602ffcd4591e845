"""The one tidy results table: every measurement of every run, ours and the paper's, one per row.

Everything the PDF shows is derived from this table (design.md): the paper's sample reports enter
it with source = "paper", so "paper beside ours" is a selection, not a special case.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.errors import ReportError
from analysis.parse.cpsnark import CpReport, parse_cp_json, parse_cp_text
from analysis.parse.dbsm import DbReport, parse_db_json, parse_db_text
from analysis.parse.zksnark import SECTIONS, ZkReport, parse_zk_json, parse_zk_text

DB = "db-sm-rsm"
ZK = "zksnark-sm-rsm"
CP = "cpsnark-sm"
EXPERIMENTS = (DB, ZK, CP)

COLUMNS = [
    "experiment", "source", "run", "file", "statement", "prover", "n", "m", "curve", "hash",
    "mode", "threads", "rep", "section", "party", "label", "metric", "value", "unit", "run_ok",
    "machine", "versions",
]  # fmt: skip
INT_COLUMNS = ("n", "m", "threads", "rep")

# The paper's machine, as its README states it; the sample reports carry no machine block.
PAPER_MACHINE = "Intel Xeon W-1270 @ 3.4 GHz, 64 GB RAM, one core (paper README)"

# The paper's sample reports. The `report-groth16zksnark-poseidon-*` pair is the same run as the
# `report-zksnark-*` pair with two debug lines more (spec zksnark-sm-rsm.md section 1), so it is
# parsed and checked but not counted twice.
PAPER_DB = "report-db-sm-rsm-n10000-m4"
PAPER_ZK = {
    "sm": "report-zksnark-sm-n10000-groth16-poseidon",
    "rsm": "report-zksnark-rsm-n10000-groth16-poseidon",
}
PAPER_ZK_DUPLICATES = {
    "sm": "report-groth16zksnark-poseidon-sm-n10000",
    "rsm": "report-groth16zksnark-poseidon-rsm-n10000",
}
PAPER_CP = "report-benarroch-cpsnark-sm-n10000"

# Run directories (interfaces.md); the workflow appends -r<k> for repetition k > 1.
REP = r"(?:-r(?P<rep>\d+))?"
ZK_DIR_RE = re.compile(rf"^(?P<statement>sm|rsm)-(?P<hash>[a-z0-9]+)-n(?P<n>\d+)-t(?P<t>\d+){REP}$")
DB_DIR_RE = re.compile(
    rf"^n(?P<n>\d+)-m(?P<m>\d+)-(?P<curve>[a-z0-9-]+?)-(?P<mode>fast|paper)-t(?P<t>\d+){REP}$"
)
CP_DIR_RE = re.compile(rf"^n(?P<n>\d+)-t(?P<t>\d+){REP}$")
REP_RE = re.compile(r"-r(\d+)$")


@dataclass
class RunInfo:
    experiment: str
    source: str
    run: str
    path: str
    ok: bool
    threads: int | None
    machine: dict[str, Any] | None = None
    versions: dict[str, str] = field(default_factory=dict)
    fixes: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # names of the failed statuses


@dataclass
class Collection:
    df: pd.DataFrame
    runs: list[RunInfo]
    notes: list[str]
    present: dict[str, list[str]]  # experiment -> sources present ("ours", "paper")


def machine_text(machine: dict[str, Any] | None) -> str:
    if not machine:
        return ""
    cpu = machine.get("cpu_model", "?")
    return (
        f"{machine.get('hostname', '?')}: {cpu}, {machine.get('logical_cpus', '?')} logical CPUs, "
        f"{machine.get('mem_total_gib', '?')} GiB, {machine.get('os', '?')}, "
        f"load {machine.get('load_avg_1m', '?')}"
    )


def _row(base: dict[str, Any], **kw: Any) -> dict[str, Any]:
    r = dict(base)
    r.update(kw)
    return r


def db_rows(rep: DbReport, run: str) -> tuple[list[dict[str, Any]], RunInfo]:
    failed = [k for k, v in rep.statuses.items() if not v]
    ok = not failed
    base: dict[str, Any] = {
        "experiment": DB, "source": rep.source, "run": run, "file": rep.path, "statement": None,
        "prover": None, "n": rep.n, "m": rep.m, "curve": rep.curve, "hash": None, "mode": rep.mode,
        "threads": rep.threads, "run_ok": ok,
        "machine": PAPER_MACHINE if rep.source == "paper" else machine_text(rep.machine),
        "versions": json.dumps(rep.versions, sort_keys=True),
    }  # fmt: skip
    rows = [
        _row(base, section=" > ".join(t.path), party=t.party, label=t.label, metric="time",
             value=t.seconds, unit="s")
        for t in rep.timers
    ]  # fmt: skip
    rows += [
        _row(base, section="", party=None, label=k, metric="status", value=1.0 if v else 0.0, unit="bool")
        for k, v in rep.statuses.items()
    ]
    rows += [
        _row(base, section="", party=None, label=k, metric="size", value=v, unit="MB")
        for k, v in rep.sizes.items()
    ]
    info = RunInfo(
        DB, rep.source, run, rep.path, ok, rep.threads, rep.machine, rep.versions, rep.fixes, failed
    )
    return rows, info


def zk_rows(rep: ZkReport, run: str) -> tuple[list[dict[str, Any]], RunInfo]:
    ok = rep.status == "PASSED"
    base: dict[str, Any] = {
        "experiment": ZK, "source": rep.source, "run": run, "file": rep.path,
        "statement": rep.statement, "prover": rep.prover, "n": rep.n, "m": None, "curve": rep.curve,
        "hash": rep.hash, "mode": None, "threads": rep.threads, "run_ok": ok,
        "machine": PAPER_MACHINE if rep.source == "paper" else machine_text(rep.machine),
        "versions": json.dumps(rep.versions, sort_keys=True),
    }  # fmt: skip
    rows: list[dict[str, Any]] = []
    for s in SECTIONS:
        for kind, v in rep.sections.get(s, {}).items():
            rows.append(_row(base, section=s, party=None, label=s, metric=kind, value=v, unit="s"))
    for sec, comps in rep.components.items():
        for name, v in comps.items():
            rows.append(_row(base, section=sec, party=None, label=name, metric="real", value=v, unit="s"))
    for sec, parts in rep.section_components.items():
        for name, times in parts.items():
            for kind, v in times.items():
                rows.append(_row(base, section=sec, party=None, label=name, metric=kind, value=v, unit="s"))
    if rep.constraints is not None:
        rows.append(_row(base, section="TRUSTED SETUP", party=None, label="constraints",
                         metric="constraints", value=float(rep.constraints), unit="count"))  # fmt: skip
    rows.append(_row(base, section="VERIFIER", party=None, label="status", metric="status",
                     value=1.0 if ok else 0.0, unit="bool"))  # fmt: skip
    if rep.peak_rss_mib is not None:
        rows.append(_row(base, section="", party=None, label="peak RSS", metric="peak_rss",
                         value=float(rep.peak_rss_mib), unit="MiB"))  # fmt: skip
    info = RunInfo(ZK, rep.source, f"{run}/{rep.prover}", rep.path, ok, rep.threads, rep.machine,
                   rep.versions, [], [] if ok else [f"VERIFIER ({rep.prover})"])  # fmt: skip
    return rows, info


def cp_rows(rep: CpReport, run: str) -> tuple[list[dict[str, Any]], RunInfo]:
    base: dict[str, Any] = {
        "experiment": CP, "source": rep.source, "run": run, "file": rep.path, "statement": "sm",
        "prover": "cpsnark-set", "n": rep.n, "m": None, "curve": "bls12-381", "hash": "blake2s",
        "mode": None, "threads": rep.threads, "run_ok": True,
        "machine": PAPER_MACHINE if rep.source == "paper" else machine_text(rep.machine),
        "versions": json.dumps(rep.versions, sort_keys=True),
    }  # fmt: skip
    rows: list[dict[str, Any]] = []
    for g, est in rep.groups.items():
        for metric, v in (("mean", est.mean_s), ("ci_low", est.ci_low_s), ("ci_high", est.ci_high_s)):
            rows.append(_row(base, section=g, party=None, label=g, metric=metric, value=v, unit="s"))
    info = RunInfo(CP, rep.source, run, rep.path, True, rep.threads, rep.machine, rep.versions)
    return rows, info


def rep_of(run: str) -> int:
    """Repetition number of a run directory (…-r2 is the second; no suffix is the first)."""
    m = REP_RE.search(run.split("/")[0])
    return int(m.group(1)) if m else 1


def to_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    for r in rows:
        r.setdefault("rep", rep_of(str(r["run"])) if r.get("source") == "ours" else 1)
    df = pd.DataFrame(rows, columns=COLUMNS)
    for c in INT_COLUMNS:
        df[c] = pd.array(df[c].tolist(), dtype="Int64")
    df["value"] = df["value"].astype(float)
    df["run_ok"] = df["run_ok"].astype(bool)
    for c in COLUMNS:
        if c not in INT_COLUMNS and c not in ("value", "run_ok"):
            df[c] = df[c].astype("string")
    return df


def collect_paper(paper_dir: Path) -> tuple[list[dict[str, Any]], list[RunInfo], list[str]]:
    rows: list[dict[str, Any]] = []
    runs: list[RunInfo] = []
    notes: list[str] = []
    if not paper_dir.is_dir():
        notes.append(f"paper sample reports not found at {paper_dir}: paper columns are empty")
        return rows, runs, notes
    f = paper_dir / PAPER_DB
    if f.exists():
        rep = parse_db_text(f, source="paper")
        rep.curve, rep.mode, rep.threads = "bn254-pbc", "paper", 1
        r, i = db_rows(rep, PAPER_DB)
        rows += r
        runs.append(i)
    for st, name in PAPER_ZK.items():
        f = paper_dir / name
        if f.exists():
            zrep = parse_zk_text(f, source="paper", prover="zokrates-cli", statement=st)
            # ZoKrates 0.8.0-0.8.3's ark prover was single-threaded (spec zksnark-sm-rsm.md 1).
            zrep.threads = 1
            r, i = zk_rows(zrep, name)
            rows += r
            runs.append(i)
    f = paper_dir / PAPER_CP
    if f.exists():
        # The published proving figure used all hardware threads (spec cpsnark-sm.md 4.4).
        crep = parse_cp_text(f, source="paper", n=10000)
        r, i = cp_rows(crep, PAPER_CP)
        rows += r
        runs.append(i)
    return rows, runs, notes


def _param_dirs(root: Path) -> list[Path]:
    return sorted(d for d in root.iterdir() if d.is_dir()) if root.is_dir() else []


def collect_ours(results_dir: Path) -> tuple[list[dict[str, Any]], list[RunInfo], list[str]]:
    rows: list[dict[str, Any]] = []
    runs: list[RunInfo] = []
    notes: list[str] = []
    raw = results_dir / "raw"
    for d in _param_dirs(raw / ZK):
        m = ZK_DIR_RE.match(d.name)
        if (d / "report.json").exists():
            for zrep in parse_zk_json(d / "report.json"):
                r, i = zk_rows(zrep, d.name)
                rows += r
                runs.append(i)
        elif any((d / f"report-{p}.txt").exists() for p in ("native", "wasm")):
            for prover in ("native", "wasm"):
                f = d / f"report-{prover}.txt"
                if f.exists():
                    zrep = parse_zk_text(f, "ours", prover, m.group("statement") if m else None)
                    if m:
                        zrep.threads = int(m.group("t"))
                        zrep.n = zrep.n or int(m.group("n"))
                        zrep.hash = zrep.hash or m.group("hash")
                    r, i = zk_rows(zrep, d.name)
                    rows += r
                    runs.append(i)
        else:
            notes.append(f"{ZK}/{d.name}: no report (incomplete or failed run)")
    for d in _param_dirs(raw / DB):
        m = DB_DIR_RE.match(d.name)
        if (d / "report.json").exists():
            rep = parse_db_json(d / "report.json")
        elif (d / "report.txt").exists():
            rep = parse_db_text(d / "report.txt")
            if m:
                rep.curve, rep.mode, rep.threads = m.group("curve"), m.group("mode"), int(m.group("t"))
        else:
            notes.append(f"{DB}/{d.name}: no report (incomplete or failed run)")
            continue
        r, i = db_rows(rep, d.name)
        rows += r
        runs.append(i)
    for d in _param_dirs(raw / CP):
        m = CP_DIR_RE.match(d.name)
        if (d / "summary.json").exists():
            crep = parse_cp_json(d / "summary.json")
        elif (d / "report.txt").exists():
            crep = parse_cp_text(d / "report.txt", "ours", int(m.group("n")) if m else None)
            if m:
                crep.threads = int(m.group("t"))
        else:
            notes.append(f"{CP}/{d.name}: no report (incomplete or failed run)")
            continue
        r, i = cp_rows(crep, d.name)
        rows += r
        runs.append(i)
    return rows, runs, notes


def collect(results_dir: Path | None, paper_dir: Path | None) -> Collection:
    """Parse everything present; a malformed report raises ReportError (file, line, expected)."""
    rows: list[dict[str, Any]] = []
    runs: list[RunInfo] = []
    notes: list[str] = []
    for part in ([collect_paper(paper_dir)] if paper_dir else []) + (
        [collect_ours(results_dir)] if results_dir else []
    ):
        rows += part[0]
        runs += part[1]
        notes += part[2]
    df = to_frame(rows)
    present = {e: sorted({r.source for r in runs if r.experiment == e}) for e in EXPERIMENTS}
    for e, srcs in present.items():
        if "ours" not in srcs and results_dir is not None:
            notes.append(f"{e}: no results of ours in {results_dir / 'raw' / e}")
    return Collection(df=df, runs=runs, notes=notes, present=present)


def write_tidy(df: pd.DataFrame, results_dir: Path) -> tuple[Path, Path]:
    """Write tidy.csv and tidy.parquet atomically (temp file, then rename)."""
    results_dir.mkdir(parents=True, exist_ok=True)
    csv = results_dir / "tidy.csv"
    pq = results_dir / "tidy.parquet"
    tmp_csv = csv.with_suffix(".csv.tmp")
    tmp_pq = pq.with_suffix(".parquet.tmp")
    df.to_csv(tmp_csv, index=False)
    df.to_parquet(tmp_pq, index=False)
    tmp_csv.replace(csv)
    tmp_pq.replace(pq)
    return csv, pq


__all__ = ["Collection", "ReportError", "RunInfo", "collect", "to_frame", "write_tidy"]
