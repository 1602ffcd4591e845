"""veccom's synthetic report for the tests: the crate's sample report (a real run)."""

from __future__ import annotations

import json
from pathlib import Path

from analysis.runs import Run
from analysis.synthetic import write_sample

SAMPLE = Path(__file__).resolve().parents[2] / "veccom/data/sample-report.json"


def write(out: Path, run: Run, paper_dir: Path, fail: str | None) -> None:
    """The crate's sample report, with the suite's test commit."""
    write_sample(out, json.loads(SAMPLE.read_text()))
