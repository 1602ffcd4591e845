"""artifact-circuits' synthetic report for the tests: the paper's run.sh format and the envelope
the driver writes. Not measurements."""

from __future__ import annotations

import json
from pathlib import Path

from analysis.runs import Run
from analysis.synthetic import envelope


def _times(real: float) -> str:
    return f"real\t0m{real:.3f}s\nuser\t0m{real * 0.98:.3f}s\nsys\t0m{real * 0.02:.3f}s\n"


def write(out: Path, run: Run, paper_dir: Path, fail: str | None) -> None:
    """One run; `fail` = "verify" makes its verifier fail, "constraints" makes ours differ."""
    p = run.params
    depth = max(1, (p["n"] - 1).bit_length())
    constraints = 35091 - (14 - depth) * 486 + (1 if p["statement"] == "rsm" else 0)
    status = "FAILED" if fail == "verify" else "PASSED"
    out.mkdir(parents=True, exist_ok=True)
    text = (
        f"COMPUTATION:\nn={p['n']}\ntreedepth={depth}\nhashfunc={p['hash']}\n"
        f"Written build/{p['statement']}.zok\n\n"
        f"{_times(0.5)}\nTRUSTED SETUP:\nNumber of constraints: {constraints}\n\n{_times(9.0)}\n"
        f"PROVER:\n\n{_times(12.0)}\nVERIFIER:\n{status}\n\n{_times(0.01)}"
    )
    (out / "report.txt").write_text(text, encoding="utf-8")
    ours = constraints + (7 if fail == "constraints" else 0)
    body = {
        "statement": p["statement"],
        "hash": p["hash"],
        "n": p["n"],
        "depth": depth,
        "report": "report.txt",
        "status": status,
        "tampered_inputs_refused": True,
        "constraints": constraints,
        "ours": [
            {"variant": "as-published", "constraints": ours},
            {"variant": "sound", "constraints": ours + 600},
        ],
        "comparison": {
            "same_constraints": ours == constraints,
            "same_public_inputs": True,
            "same_public_order": False,
            "constraint_difference": ours - constraints,
        },
        "versions": {"zokrates-js": "1.1.9", "node": "20"},
    }
    params = {"statement": p["statement"], "hash": p["hash"], "n": p["n"], "threads": 1}
    (out / "report.json").write_text(
        json.dumps(envelope("artifact-circuits", params, body, passed=status == "PASSED", seed=None)),
        encoding="utf-8",
    )
