"""veccom-bench's report.json and the published reference figures (veccom/data/reference-figures.csv).

The report is the suite's envelope around veccom-bench's body (`load_enveloped`: whether the run
passed is the envelope's `passed`). Each row of the body is one operation of one scheme at one
vector length and thread count: CPU and wall time per operation (median, min, max over
repetitions), sizes, peak memory, and the lower bound timed beside it in the same run. The
reference's figures are one value per operation, measured on the reference's own machine: every ratio
against them is across machines.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from analysis.parse.common import (
    Parsed,
    RunInfo,
    base_row,
    load_enveloped,
    need,
    numbers,
    objects,
    published_rows,
    report_problems,
    report_run,
    row,
)

EXPERIMENT = "veccom"
REFERENCE_FILE = Path(__file__).resolve().parents[2] / "veccom" / "data" / "reference-figures.csv"
REFERENCE_SOURCE = "reference"
UNIT_SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
SIZE_KEYS = ("commitment_bytes", "proof_bytes", "batch_proof_bytes", "prover_params_bytes",
             "verifier_params_bytes", "prover_table_bytes", "verifier_table_bytes", "tree_bytes")  # fmt: skip


def _stat(obj: Any, p: Path, where: str) -> dict[str, float]:
    return numbers(obj, p, where, ("median", "min", "max"), "median/min/max", clip=None)


def report_rows(p: Path, run: str) -> tuple[list[dict[str, Any]], RunInfo]:
    env = load_enveloped(p, "veccom-bench")
    d = env.body
    versions = env.tool_versions("veccom")
    ours = partial(env.base_row, EXPERIMENT, run, versions=versions)
    rows: list[dict[str, Any]] = env.load_rows(ours())
    failed: list[str] = []
    threads: set[int] = set()
    for where, r in objects(d, "rows", p, ""):
        scheme, op = need(r, "scheme", str, p, where), need(r, "operation", str, p, where)
        n, t = need(r, "n", int, p, where), need(r, "threads", int, p, where)
        threads.add(t)
        ok = bool(r.get("verified"))
        if not ok:
            failed.append(f"{scheme} {op} n={n} t={t}")
        base = ours(variant=scheme, n=n, threads=t)
        cpu = _stat(r.get("cpu_s"), p, where + "cpu_s")
        wall = _stat(r.get("wall_s"), p, where + "wall_s")
        for stat, v in cpu.items():
            rows.append(row(base, section=op, party=None, label=op, metric=f"cpu_{stat}", value=v, unit="s"))
        rows.append(row(base, section=op, party=None, label=op, metric="wall_median", value=wall["median"],
                        unit="s"))  # fmt: skip
        lb = r.get("lower_bound")
        if isinstance(lb, dict):
            lb_cpu = _stat(lb.get("cpu_s"), p, where + "lower_bound.cpu_s")
            rows.append(row(base, section=op, party=None, label=str(lb.get("what", "lower bound")),
                            metric="lower_bound_cpu", value=lb_cpu["median"], unit="s"))  # fmt: skip
        for k in SIZE_KEYS:
            v = (r.get("sizes") or {}).get(k)
            if isinstance(v, int | float) and not isinstance(v, bool):
                rows.append(row(base, section=op, party=None, label=k, metric="size", value=float(v),
                                unit="bytes"))  # fmt: skip
        rss = r.get("peak_rss_mib")
        if isinstance(rss, int | float):
            rows.append(row(base, section=op, party=None, label="peak RSS", metric="peak_rss",
                            value=float(rss), unit="MiB"))  # fmt: skip
        rows.append(row(base, section=op, party=None, label="verified", metric="status", value=float(ok),
                        unit="bool"))  # fmt: skip
    for i, a in enumerate(d.get("ablation") or []):
        where = f"ablation[{i}]."
        cpu = _stat(a.get("cpu_s"), p, where + "cpu_s")
        base = ours(variant=need(a, "scheme", str, p, where), prover=str(a.get("variant")),
                    n=need(a, "n", int, p, where), threads=a.get("threads"))  # fmt: skip
        op = need(a, "operation", str, p, where)
        rows.append(row(base, section=f"ablation {op}", party=None, label=str(a.get("description", "")),
                        metric="cpu_median", value=cpu["median"], unit="s"))  # fmt: skip
        speedup = a.get("speedup_vs_baseline")
        if isinstance(speedup, int | float):
            rows.append(row(base, section=f"ablation {op}", party=None, label=str(a.get("description", "")),
                            metric="speedup", value=float(speedup), unit="x"))  # fmt: skip
    if not env.passed:
        failed = failed or ["the report says the run did not pass"]
    return rows, env.settle(rows, EXPERIMENT, run, failed, threads, versions)


def load_run(run_dir: Path, run_id: str, params: dict[str, Any]) -> Parsed:
    read = partial(report_rows, run=run_id)
    return report_run(EXPERIMENT, run_dir, run_id, read, variant=None, n=None, threads=None)


def load_reference(_paper_dir: Path) -> Parsed:
    """The published reference figures (one value per operation, its own machine)."""
    p = REFERENCE_FILE
    rows: list[dict[str, Any]] = []
    for _no, r, value in published_rows(
        p, "the reference figures (shipped in veccom/data/)", {*UNIT_SECONDS, "bytes"}
    ):
        unit = r["unit"]
        is_size = unit == "bytes"
        rows.append(base_row(
            EXPERIMENT, REFERENCE_SOURCE, "veccom-rust (2019)", p, machine=r.get("machine", ""),
            variant=r["scheme"], n=int(r["n"]), threads=1, section=r["operation"], party=None,
            label=r["operation"], metric="size" if is_size else "published",
            value=value if is_size else value * UNIT_SECONDS[unit], unit="bytes" if is_size else "s",
        ))  # fmt: skip
    info = RunInfo(EXPERIMENT, REFERENCE_SOURCE, "veccom-rust (2019)", str(p), True, 1)
    return Parsed(rows, [info], [])


def problems(run_dir: Path) -> list[str]:
    return report_problems(run_dir, lambda js: report_rows(js, run_dir.name)[1].failed)
