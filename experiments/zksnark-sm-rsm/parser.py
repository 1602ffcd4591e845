"""Parsers for the zkSNARK set-membership report: paper-format text (the format of the paper's
`run.sh`, read by analysis/parse/zk_sections.py; our node driver writes it too, one file per
prover) and our JSON.

Our JSON report is the suite's envelope around the driver's body
(zksnark-sm-rsm/docs/report.schema.json): the envelope's `passed` is the run's verdict; the body
names the circuits' variant (`sound`, or `as-published`: the paper's statement) and the fixes in
force, and holds every circuit's provers: `wasm` (zokrates-js), `native` (ark-groth16) and
`snarkjs`, the reference measured in the same run, whose proofs the native verifier checks and
vice versa.
"""

from __future__ import annotations

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
from analysis.parse.zk_sections import SECTIONS, ZkReport, parse_zk_text, section_rows

# The text parser, which other modules take from here.
__all__ = ["parse_zk_text"]


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
    rows = section_rows(base, rep)
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
