"""The paper's own zkSNARK circuits rerun here: the text report in the format of the paper's
run.sh (report.txt, read by zksnark-sm-rsm's parser of that format, the same that reads the
published reports) with the suite's envelope around it (report.json: the verdict, the constraint
count and public inputs of our ZoKrates program of the same statement beside the artifact's).

Rows: zksnark-sm-rsm's (sections' real/user/sys, constraints, status; prover `wasm`, circuit
`artifact`), and the comparison with ours (label `ours as-published` / `ours sound`, metric
`constraints`; `same_constraints`, `same_public_inputs` (the same types, in any order) and
`same_public_order`, 1 or 0).
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
from analysis.parse.zk_sections import ZkReport, parse_zk_text, section_rows

EXPERIMENT = "artifact-circuits"
TOOL = "artifact-circuits"
CIRCUIT = "artifact"
# The paper's two runs of these circuits (ZoKrates command line, n = 10000, Poseidon).
PAPER_FILES = {
    "sm": "report-zksnark-sm-n10000-groth16-poseidon",
    "rsm": "report-zksnark-rsm-n10000-groth16-poseidon",
}
PAPER_MACHINE = "Intel Xeon W-1270 @ 3.4 GHz, 64 GB RAM, one core (paper README)"


def rows_of(rep: ZkReport, run: str, run_dir: Path | None = None) -> Parsed:
    """A report's sections, constraints and status as tidy rows, and its RunInfo."""
    ok = rep.passed if rep.passed is not None else rep.status == "PASSED"
    base = report_base(
        EXPERIMENT,
        rep,
        run,
        PAPER_MACHINE,
        variant=rep.circuit,
        statement=rep.statement,
        prover=rep.prover,
        n=rep.n,
        curve=rep.curve,
        hash=rep.hash,
        run_ok=ok,
        mode="as-published",
    )
    rows = section_rows(base, rep)
    if run_dir is not None:
        rows += benchmark_rows(base, run_dir)
    failed = rep.failed if rep.passed is not None else ([] if ok else [f"VERIFIER ({rep.prover})"])
    info = RunInfo(
        EXPERIMENT,
        rep.source,
        run,
        rep.path,
        ok,
        rep.threads,
        rep.machine,
        rep.versions,
        rep.fixes,
        failed,
        rep.commit,
    )
    return Parsed(rows, [info], [])


def read(run_dir: Path) -> tuple[Enveloped, ZkReport]:
    env = load_enveloped(run_dir / "report.json", TOOL)
    b = env.body
    rep = parse_zk_text(run_dir / str(b.get("report", "report.txt")), "ours", "wasm", str(b.get("statement")))
    rep.circuit, rep.hash, rep.n, rep.depth = CIRCUIT, b.get("hash"), b.get("n"), b.get("depth")
    rep.threads, rep.machine, rep.commit, rep.passed = 1, env.machine, env.commit, env.passed
    rep.circuit_variant = "as-published"
    rep.versions = {str(k): str(v) for k, v in (b.get("versions") or {}).items() if v is not None}
    if not env.passed:
        rep.failed = [f"status {b.get('status')}"] if b.get("status") != "PASSED" else []
        if b.get("tampered_inputs_refused") is not True:
            rep.failed.append("a proof verified against tampered public inputs")
    return env, rep


def comparison_rows(base: dict[str, Any], body: dict[str, Any]) -> list[dict[str, Any]]:
    """Our ZoKrates program's constraints beside the artifact's, and whether they agree."""
    out = []
    for c in body.get("ours") or []:
        out.append(
            row(
                base,
                section="TRUSTED SETUP",
                party=None,
                label=f"ours {c.get('variant')}",
                metric="constraints",
                value=float(c.get("constraints", float("nan"))),
                unit="count",
            )
        )
    cmp_ = body.get("comparison") or {}
    for k in ("same_constraints", "same_public_inputs", "same_public_order"):
        if isinstance(cmp_.get(k), bool):
            out.append(
                row(
                    base,
                    section="TRUSTED SETUP",
                    party=None,
                    label="ours as-published",
                    metric=k,
                    value=float(cmp_[k]),
                    unit="bool",
                )
            )
    return out


def load_run(run_dir: Path, run_id: str, params: dict[str, Any]) -> Parsed:
    if not (run_dir / "report.json").exists():
        return no_report(EXPERIMENT, run_id)
    try:
        env, rep = read(run_dir)
    except ReportError as e:
        env = load_enveloped(run_dir / "report.json", TOOL)
        info = RunInfo(
            EXPERIMENT,
            "ours",
            run_id,
            str(run_dir / "report.json"),
            False,
            1,
            env.machine,
            {},
            failed=[str(e)],
            commit=env.commit,
            problems=[f"report.txt: {e}"],
        )
        return Parsed([], [info], [])
    parsed = rows_of(rep, run_id, run_dir)
    base = {k: v for k, v in parsed.rows[0].items()} if parsed.rows else {}
    parsed.rows += comparison_rows(base, env.body) if base else []
    return parsed


def load_reference(paper_dir: Path) -> Parsed:
    """The paper's two runs of these circuits (ZoKrates command line, n = 10000, Poseidon)."""
    out = Parsed()
    for st, name in PAPER_FILES.items():
        rep = parse_zk_text(published(paper_dir / name), source="paper", prover="zokrates-cli", statement=st)
        rep.threads, rep.circuit = 1, CIRCUIT
        out.add(rows_of(rep, name))
    return out


def problems(run_dir: Path) -> list[str]:
    def failed(js: Path) -> list[str]:
        env, rep = read(run_dir)
        return [] if env.passed else rep.failed or ["passed is false"]

    return report_problems(run_dir, failed)
