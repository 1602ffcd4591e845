"""collab-groth16's synthetic report for the tests."""

from __future__ import annotations

import json
from pathlib import Path

from analysis.runs import Run
from analysis.synthetic import enveloped


def network(profile: str) -> dict[str, object]:
    """collab-groth16's network block for one of netem's named profiles."""
    rtt, rate = {"none": (None, None), "lan": (0.0002, 10**10), "region": (0.02, 10**9),
                 "wan": (0.1, 10**8)}[profile]  # fmt: skip
    return {"profile": profile, "spec": profile, "emulated": profile != "none", "rtt_s": rtt,
            "rate_bits_per_second": rate, "placement": "namespaces", "delay_line": None}  # fmt: skip


def collab_json(out: Path, run: Run, fail: str | None) -> Path:
    """A collab-groth16 report: the slowest party 1.1x (semi-honest) or 1.3x (malicious) the
    single prover, a little more with more parties."""
    single = 1.8 if run.params["circuit"] == "zokrates" else 0.36
    rtt = network(run.extra.get("network", "none"))["rtt_s"]
    wall_extra = 2.0 * rtt if isinstance(rtt, float) else 0.0
    runs = []
    for variant in run.extra["variants"]:
        for m in run.extra["parties"]:
            factor = (1.1 if variant == "semi-honest" else 1.3) + 0.01 * m
            rounds = 2 if variant == "semi-honest" else 6
            ok = fail != f"{variant}:{m}"
            summary = {
                "single_prover_cpu_s": single, "local_prover_cpu_s": single * 0.97,
                "online_cpu_s_max": single * factor, "online_cpu_s_mean": single * factor * 0.99,
                "online_wall_s_max": single * factor * 1.5 + wall_extra * rounds,
                "ratio_to_single_max": factor,
                "ratio_to_single_mean": factor * 0.99, "ratio_to_local_max": factor / 0.97,
                "bytes_sent_max": 4.19e6 * (m - 1), "bytes_received_max": 4.19e6 * (m - 1),
                "rounds": rounds, "preprocessing_cpu_s_max": 0.015,
                "dealer_cpu_s": 0.02,
            }  # fmt: skip
            runs.append(
                {
                    "variant": variant,
                    "parties": m,
                    "status": "PASSED" if ok else "FAILED",
                    "error": None,
                    "security_model": "semi-honest"
                    if variant == "semi-honest"
                    else "malicious with abort: a deviation makes the run abort, or yields a proof every "
                    "party rejects; never an accepted false proof",
                    "summary": summary,
                    "per_party": [{"id": j, "online": {"cpu_s": single * factor}} for j in range(m)],
                }
            )
    out.mkdir(parents=True, exist_ok=True)
    f = out / "report.json"
    body = {
        "curve": "bn254", "inputs": {"constraints": 35091, "wires": 35115, "domain_size": 65536},
        "threads": run.params["threads"], "channels": "plain TCP", "dealer": "trusted",
        "randomness": "the operating system's CSPRNG",
        "single_prover": {"cpu_s": single}, "runs": runs, "versions": {"collab-groth16": "0.1.0"},
        "network": network(run.extra.get("network", "none")),
    }  # fmt: skip
    passed = all(r["status"] == "PASSED" for r in runs)
    f.write_text(json.dumps(enveloped("collab-groth16", body, passed)))
    return f


def write(out: Path, run: Run, paper_dir: Path, fail: str | None) -> None:
    """One run's report; `fail` is "variant:parties" of a run to fail."""
    collab_json(out, run, fail)
