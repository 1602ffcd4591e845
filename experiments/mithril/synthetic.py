"""mithril's synthetic report for the tests: the crate's sample report, cut to the run."""

from __future__ import annotations

import json
from pathlib import Path

from analysis.runs import Run
from analysis.synthetic import write_sample


def mithril_json(out: Path, run: Run, fail: str | None) -> Path:
    """The crate's sample report (a real mithril-bench run), cut to the run's signer and thread
    counts; `fail` is "proof" (the first proof's verification failed) or "native" (a native row's
    check failed)."""
    ref = json.loads(
        (Path(__file__).resolve().parents[2] / "mithril/data/sample-report.json").read_text()
    )
    e = run.extra
    body = ref["body"]
    native = body["native"]
    native["rows"] = [
        r
        for r in native["rows"]
        if r["threads"] in e["threads"] and (r["n"] in e["native_n"] or r["aggregates"] is not None)
    ]
    circuit = body["circuit"]
    circuit["sizes"] = [s for s in circuit["sizes"] if s["n"] in e["size_n"]]
    circuit["proofs"] = [p for p in circuit["proofs"] if p["n"] in e["circuit_n"]]
    # mithril-stm beside ours (synthetic figures: ours at its b_total, mithril-stm 4 % slower).
    ours = {r["n"]: r["cpu_s"] for r in native["rows"] if r["operation"] == "b_total" and r["threads"] == 1}
    body["stm"] = {
        "library": "mithril-stm 0.9.5 (crates.io)",
        "blst_pool_threads": 1,
        "stm_parameters": {"k": 357, "m": 2642, "phi_f": 0.2},
        "rows": [
            {
                "operation": "verify_aggregate",
                "workload": "like for like",
                "n": n,
                "threads": 1,
                "signatures": n,
                "cpu_s": {k: v * 1.04 for k, v in t.items()},
                "wall_s": {k: v * 1.04 for k, v in t.items()},
                "ours_cpu_s": t,
                "ours_over_stm": 1 / 1.04,
                "verified": True,
            }
            for n, t in sorted(ours.items())
        ],
        "failures": [],
    }
    if fail == "proof" and circuit["proofs"]:
        circuit["proofs"][0]["verified"] = False
        ref["passed"] = False
    elif fail == "native":
        native["rows"][0]["verified"] = False
        ref["passed"] = False
    return write_sample(out, ref)


def write(out: Path, run: Run, paper_dir: Path, fail: str | None) -> None:
    """One run's report; `fail` is "proof" or "native"."""
    mithril_json(out, run, fail)
