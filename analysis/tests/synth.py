"""Small synthetic result files in the formats of interfaces.md, for tests.

Timings are the paper's sample scaled down; they exercise the parsers and the renderer, they are
not measurements.
"""

from __future__ import annotations

import json
from pathlib import Path

from analysis.parse.dbsm import parse_db_text

PAPER_DIR_NAME = "paper-sample-reports"
MACHINE = {
    "hostname": "testhost", "cpu_model": "Test CPU", "logical_cpus": 2, "mem_total_gib": 24.0,
    "os": "Linux", "load_avg_1m": 0.5,
}  # fmt: skip


def db_json(paper_db: Path, out: Path, n: int, m: int, scale: float, fail: str | None = None) -> Path:
    rep = parse_db_text(paper_db, "paper")
    keep = {f"mixer {k}" for k in range(m)} | {"verifier"}
    timers = []
    for t in rep.timers:
        if t.party is not None and t.party not in keep:
            continue
        timers.append(
            {"path": list(t.path), "party": t.party, "label": t.label, "seconds": t.seconds * scale}
        )
    statuses = {k: (k != fail) for k in rep.statuses}
    out.mkdir(parents=True, exist_ok=True)
    f = out / "report.json"
    f.write_text(json.dumps({
        "experiment": "db-sm-rsm",
        "params": {"n": n, "m": m, "curve": "bn254", "mode": "fast", "threads": 1, "seed": 7},
        "timers": timers, "statuses": statuses,
        "sizes": {k: v * n / rep.n for k, v in rep.sizes.items()},
        "fixes": ["B5: n+1 deltas"], "machine": MACHINE, "version": "0.1.0",
    }))  # fmt: skip
    return f


def zk_json(
    out: Path, statement: str, n: int, prove: float, status: str = "PASSED", hash: str = "poseidon"
) -> Path:
    def t(real: float) -> dict[str, float]:
        return {"real": real, "user": real * 0.98, "sys": real * 0.02}

    prover = {
        "sections": {
            "COMPUTATION": t(0.5), "TRUSTED SETUP": t(3.0), "PROVER": t(prove), "VERIFIER": t(0.004),
        },
        "prover_components": {"witness": t(0.1 * prove), "proof": t(0.9 * prove)},
        "status": status, "peak_rss_mib": 300.0,
    }  # fmt: skip
    wasm = dict(prover, sections={**prover["sections"], "PROVER": t(5 * prove)}, status="PASSED")  # type: ignore[dict-item]
    out.mkdir(parents=True, exist_ok=True)
    f = out / "report.json"
    f.write_text(json.dumps({
        "experiment": "zksnark-sm-rsm", "statement": statement, "hash": hash, "n": n,
        "depth": max(1, (n - 1).bit_length()), "curve": "bn254", "threads": 1, "seed": None,
        "constraints": 35091 if statement == "sm" else 35092,
        "provers": {"wasm": wasm, "native": prover}, "machine": MACHINE,
        "versions": {"node": "v20", "zokrates-js": "1.1.9", "zksnark-prover": "0.1.0"},
    }))  # fmt: skip
    return f


def cp_json(out: Path, n: int) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    f = out / "summary.json"
    groups = [
        ("membership_hash protocol proving", 1.1),
        ("membership_hash protocol verification", 0.04),
        ("membership_hash creating witness", 0.9 * n / 10000),
        ("membership_hash creating witness (hashed primes)", 1.2 * n / 10000),
    ]
    f.write_text(json.dumps({
        "experiment": "cpsnark-sm", "n": n, "threads": 1, "sample_size": 10,
        "groups": [{"group": g, "mean_s": v, "ci_low_s": v * 0.99, "ci_high_s": v * 1.01} for g, v in groups],
        "machine": MACHINE, "versions": {"cpsnark-sm": "0.1.0"},
    }))  # fmt: skip
    return f


def make_results(root: Path, paper_dir: Path, only: tuple[str, ...] = ("db", "zk", "cp")) -> Path:
    """A results/ tree with a few small runs of each experiment (one with a failed status)."""
    raw = root / "raw"
    paper_db = paper_dir / "report-db-sm-rsm-n10000-m4"
    if "db" in only:
        db_json(paper_db, raw / "db-sm-rsm" / "n100-m4-bn254-fast-t1", 100, 4, 0.01)
        db_json(paper_db, raw / "db-sm-rsm" / "n200-m4-bn254-fast-t1", 200, 4, 0.02)
        db_json(paper_db, raw / "db-sm-rsm" / "n100-m2-bn254-fast-t1", 100, 2, 0.006, fail="status_pk_bl")
    if "zk" in only:
        for n, prove in ((100, 1.5), (200, 1.6)):
            for st in ("sm", "rsm"):
                zk_json(raw / "zksnark-sm-rsm" / f"{st}-poseidon-n{n}-t1", st, n, prove)
    if "cp" in only:
        cp_json(raw / "cpsnark-sm" / "n100-t1", 100)
    return root
