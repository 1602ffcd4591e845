"""veccom's synthetic report for the tests: the crate's sample report (a real run)."""

from __future__ import annotations

import json
from pathlib import Path

from analysis.runs import Run
from analysis.synthetic import PROVENANCE

SAMPLE = Path(__file__).resolve().parents[2] / "veccom/data/sample-report.json"


def write(out: Path, run: Run, paper_dir: Path, fail: str | None) -> None:
    """The crate's sample report, with the suite's test commit."""
    out.mkdir(parents=True, exist_ok=True)
    ref = json.loads(SAMPLE.read_text())
    ref["provenance"] = PROVENANCE
    (out / "report.json").write_text(json.dumps(ref))
