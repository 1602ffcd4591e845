"""collab-groth16's report.json: a collaborative Groth16 prover measured beside the single prover.

One report covers one circuit (the zkSNARK run's ZoKrates circuit or our optimised one) at every
configured party count and variant. Each run's summary gives the slowest party's online CPU time
and its ratio to the single prover's CPU time measured just before and after it, in the same
process and thread count: the measured counterpart of the paper's 2x rule.

The report is the suite's envelope around collab-groth16's body: the envelope's `passed` is the
verdict; each run's status only says which run failed. Each run also states its security model
(a deviation aborts the run or yields a proof every party rejects; TLS 1.3 links, mutually
authenticated and pinned; trusted dealer).

The network the parties ran under (netem's profile: `none` for the host's loopback, or `lan`,
`region`, `wan`, a custom name) goes to the `mode` column, so that one circuit's runs under
several profiles stay apart; its round trip is a row (`network`, `rtt`).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from analysis.errors import ReportError
from analysis.parse.common import (
    Parsed,
    RunInfo,
    json_line,
    load_enveloped,
    need,
    report_problems,
    report_run,
    row,
)

EXPERIMENT = "collab-groth16"

# Summary keys of a run that enter the tidy table, with their units.
SUMMARY = {
    "single_prover_cpu_s": "s",
    "local_prover_cpu_s": "s",
    "online_cpu_s_max": "s",
    "online_cpu_s_mean": "s",
    "online_wall_s_max": "s",
    "online_wall_s_mean": "s",
    "network_floor_s": "s",
    "ratio_to_single_max": "x",
    "ratio_to_single_mean": "x",
    "ratio_to_local_max": "x",
    "bytes_sent_max": "bytes",
    "bytes_received_max": "bytes",
    "rounds": "count",
    "preprocessing_cpu_s_max": "s",
    "dealer_cpu_s": "s",
}


def report_rows(p: Path, run: str, params: dict[str, Any]) -> tuple[list[dict[str, Any]], list[RunInfo]]:
    env = load_enveloped(p, EXPERIMENT)
    d = env.body
    inputs = need(d, "inputs", dict, p, "body.")
    threads = need(d, "threads", int, p, "body.")
    machine = env.machine
    commit = env.commit
    versions = {str(k): str(v) for k, v in (d.get("versions") or {}).items()}
    network = d.get("network") if isinstance(d.get("network"), dict) else {}
    profile = str(network.get("profile") or "none")
    base = env.base_row(EXPERIMENT, run, versions=versions, statement=params.get("statement"),
                        prover=params.get("circuit"), n=params.get("n"), curve=str(d.get("curve", "bn254")),
                        hash="poseidon", threads=threads, mode=profile)  # fmt: skip
    rows = [
        row(base, section="inputs", party=None, label=k, metric="count", value=float(inputs[k]), unit="count")
        for k in ("constraints", "wires", "domain_size")
        if isinstance(inputs.get(k), int)
    ]
    rows += env.load_rows(base)
    rtt = network.get("rtt_s")
    rows.append(row(base, section="network", party=None, label=profile, metric="rtt",
                    value=float(rtt) if isinstance(rtt, int | float) else 0.0, unit="s"))  # fmt: skip
    single = need(d, "single_prover", dict, p, "body.")
    single_cpu = float(need(single, "cpu_s", (int, float), p, "single_prover."))
    rows.append(row(base, section="single prover", party=None, label="single prover", metric="cpu",
                    value=single_cpu, unit="s"))  # fmt: skip
    infos: list[RunInfo] = []
    for i, r in enumerate(need(d, "runs", list, p, "body.")):
        where = f"runs[{i}]."
        variant = need(r, "variant", str, p, where)
        parties = need(r, "parties", int, p, where)
        status = need(r, "status", str, p, where)
        # The envelope's verdict: a failed report fails every run it lists (the runs' own status
        # says which one went wrong).
        ok = env.passed and status == "PASSED"
        rb = dict(base, variant=variant, m=parties, run_ok=ok)
        name = f"{run}/{variant} m={parties}"
        for key, unit in SUMMARY.items():
            v = (r.get("summary") or {}).get(key)
            if isinstance(v, int | float) and not isinstance(v, bool):
                rows.append(
                    row(rb, section="summary", party=None, label=key, metric=key, value=float(v), unit=unit)
                )
        for party in r.get("per_party") or []:
            for metric, key in (("cpu", "cpu_s"), ("wall", "wall_s")):
                v = (party.get("online") or {}).get(key)
                if isinstance(v, int | float):
                    rows.append(row(rb, section="online", party=f"party {party.get('id')}", label="online",
                                    metric=metric, value=float(v), unit="s"))  # fmt: skip
        rows.append(row(rb, section="summary", party=None, label="status", metric="status", value=float(ok),
                        unit="bool"))  # fmt: skip
        why = [] if ok else [f"{status}: {r.get('error') or 'the proof did not verify'}" if status != "PASSED"
                             else "the report did not pass"]  # fmt: skip
        if profile != "none":
            name += f" ({profile})"
        infos.append(RunInfo(EXPERIMENT, "ours", name, str(p), ok, threads, machine, versions, failed=why,
                             commit=commit))  # fmt: skip
    if not infos:
        raise ReportError(p, json_line(p, "runs"), 'at least one run under "runs"')
    return rows, infos


def load_run(run_dir: Path, run_id: str, params: dict[str, Any]) -> Parsed:
    read = partial(report_rows, run=run_id, params=params)
    return report_run(EXPERIMENT, run_dir, run_id, read, variant=None, m=None)


def load_reference(_paper_dir: Path) -> Parsed:
    """Nothing published to compare with: the paper assumed its factor (the 2x rule)."""
    return Parsed()


def problems(run_dir: Path) -> list[str]:
    def failed(js: Path) -> list[str]:
        _rows, infos = report_rows(js, run_dir.name, {})
        return [f"{i.run.split('/', 1)[1]}: {', '.join(i.failed)}" for i in infos if not i.ok]

    return report_problems(run_dir, failed)
