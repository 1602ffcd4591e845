"""artifact-cpsnark-sm's synthetic report for the tests: criterion's output in the format of the
published one, under the envelope the driver writes. Not measurements."""

from __future__ import annotations

import json
from pathlib import Path

from analysis.parse.criterion import PROVE, VERIFY, WITNESS
from analysis.runs import Run
from analysis.synthetic import envelope


def criterion_text(means: dict[str, float]) -> str:
    lines = []
    for group, mean in means.items():
        lo, hi = mean * 0.99 * 1000, mean * 1.01 * 1000
        lines += [
            f"Benchmarking {group}: Warming up for 3.0000 s",
            group,
            f"                        time:   [{lo:.4f} ms {mean * 1000:.4f} ms {hi:.4f} ms]",
            "",
        ]
    return "\n".join(lines) + "\n"


def write(out: Path, run: Run, paper_dir: Path, fail: str | None) -> None:
    """One run; `fail` names a group whose time line is missing (criterion stopped)."""
    means = {PROVE: 0.41 * (1 + 0.02 * run.rep), VERIFY: 0.029, WITNESS: 0.66}
    out.mkdir(parents=True, exist_ok=True)
    kept = {g: v for g, v in means.items() if g != fail}
    (out / "report.txt").write_text(criterion_text(kept), encoding="utf-8")
    failed = [] if fail is None else [f"no group {fail!r}"]
    body = {
        "bench": "bin/membership_hash",
        "report": "report.txt",
        "exit_status": 0 if fail is None else 101,
        "n": 10000,
        "groups": [
            {"group": g, "mean_s": v, "ci_low_s": v * 0.99, "ci_high_s": v * 1.01} for g, v in kept.items()
        ],
        "failed": failed,
        "stderr_tail": [],
        "build": {"part": "cpsnarks-set", "trees": {}},
    }
    params = {"n": 10000, "samples": run.extra.get("samples", 10), "threads": run.params["threads"]}
    (out / "report.json").write_text(
        json.dumps(envelope("artifact-cpsnark-sm", params, body, passed=fail is None, seed=None)),
        encoding="utf-8",
    )
