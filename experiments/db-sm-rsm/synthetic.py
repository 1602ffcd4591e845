"""db-sm-rsm's synthetic report for the tests: the paper's sample report's timers, scaled."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from analysis.runs import Run
from analysis.synthetic import envelope

from .parser import parse_db_text


def db_json(
    paper_db: Path,
    out: Path,
    n: int,
    m: int,
    scale: float,
    fail: str | None = None,
    keys: str = "seed",
    **params: Any,
) -> Path:
    rep = parse_db_text(paper_db, "paper")
    keep = {f"mixer {k}" for k in range(m)} | {"verifier"}
    timers = []
    for t in rep.timers:
        if t.party is not None and t.party not in keep:
            continue
        timers.append({"path": list(t.path), "party": t.party, "label": t.label, "seconds": t.seconds * scale,
                       "cpu_seconds": t.seconds * scale, "ops": {}})  # fmt: skip
    # The paper's report has no status_share_decryption (ours adds it).
    statuses = {k: (k != fail) for k in [*rep.statuses, "status_share_decryption"]}
    out.mkdir(parents=True, exist_ok=True)
    f = out / "report.json"
    p = {"n": n, "m": m, "curve": "bn254", "mode": "fast", "security": "128", "threads": 1,
         "tamper": None, "test_keys": keys == "test", "key_cache": None, "calibration": None,
         "transport": "local"}  # fmt: skip
    p.update(params)
    body = {
        "transport": "local",
        "keys": {"source": keys, "secret": keys == "generated", "description": keys,
                 "threshold_modulus_bits": 2050, "mixer_modulus_bits": [2048] * m},
        "security": {"level": "128", "challenge_bits": 128, "batch_bits": 128, "slack_bits": 80,
                     "pok_slack_bits": 80},
        "timers": timers, "statuses": statuses,
        "sizes": {k: v * n / rep.n for k, v in rep.sizes.items()},
        "fixes": ["B5: n+1 deltas"], "speed_probe": {}, "failure": None, "network": None,
        "resumed": None, "transcript_sha256": "0" * 64, "audit": None, "posted": [],
        "sizes_sent": {k: 1.5 * v * n / rep.n for k, v in rep.sizes.items()},
    }  # fmt: skip
    f.write_text(json.dumps(envelope("db-sm-rsm", p, body, passed=fail is None)))
    return f


def write(out: Path, run: Run, paper_dir: Path, fail: str | None) -> None:
    """One run's report; `fail` names a status to fail. Times grow with n and, per mixer, with m;
    repetitions differ a little."""
    p = run.params
    scale = p["n"] / 10000 * (0.5 + p["m"] / 8) * (1 + 0.1 * (run.rep - 1))
    db_json(paper_dir / "report-db-sm-rsm-n10000-m4", out, p["n"], p["m"], scale, fail,
            curve=p["curve"], mode=p["mode"], security=p["security"], threads=p["threads"])  # fmt: skip
