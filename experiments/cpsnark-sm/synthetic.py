"""cpsnark-sm's synthetic report for the tests."""

from __future__ import annotations

import json
from pathlib import Path

from analysis.runs import Run
from analysis.synthetic import envelope


def cp_json(out: Path, n: int, passed: bool = True) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    f = out / "report.json"
    groups = [
        ("membership_hash protocol proving", 1.1),
        ("membership_hash protocol verification", 0.04),
        ("membership_hash creating witness", 0.9 * n / 10000),
        ("membership_hash creating witness (hashed primes)", 1.2 * n / 10000),
    ]
    parameters = {"n": n, "samples": 10, "threads": 1, "security": "128", "clock": "wall",
                  "groups": ["prove", "verify", "witness", "witness-hashed"], "warm_up_s": 3.0,
                  "measurement_s": 5.0}  # fmt: skip
    body = {
        "security": {"setting": "128", "challenge_bits": 128, "soundness_bits": 128, "zk_slack_bits": 121,
                     "hash_to_prime_bits": 252, "field_bits": 255},
        "proof_bytes": 4384,
        "crs": {"verifying_key_bytes": 1044, "proving_key_bytes": 6853140, "setup_s": 5.0},
        "checks": {"honest_proof": "verified", "last_timed_proof_verified": passed,
                   "failures_in_timed_loops": 0},
        "groups": [{"group": g, "mean_s": v, "ci_low_s": v * 0.99, "ci_high_s": v * 1.01, "median_s": v,
                    "printed": "mean"} for g, v in groups],
        "libraries": {"legogroth16": "0.18", "arkworks": "0.4"},
    }  # fmt: skip
    f.write_text(json.dumps(envelope("cpsnark-bench", parameters, body, passed)))
    return f


def write(out: Path, run: Run, paper_dir: Path, fail: str | None) -> None:
    """One run's report."""
    cp_json(out, run.params["n"], passed=fail is None)
