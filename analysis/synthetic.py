"""Synthetic reports for the tests: the suite's envelope around an experiment's body, with a
fixed machine, commit and seed. Each experiment's folder writes its own body
(`experiments/<name>/synthetic.py`, `write(out, run, paper_dir, fail)`); the tests' results trees
(`analysis/tests/synth.py`) call them. Their figures exercise the parsers and the renderer; they
are not measurements.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MACHINE = {
    "hostname": "testhost", "cpu_model": "Test CPU", "logical_cpus": 2, "mem_total_gib": 24.0,
    "os": "Linux", "load_avg_1m": 0.5,
}  # fmt: skip
PROVENANCE = {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": False}
SEED = "00000000000000000000000000000000000000000000000000000000000000c5"


def envelope(
    tool: str, parameters: dict[str, Any], body: dict[str, Any], passed: bool = True, seed: str | None = SEED
) -> dict[str, Any]:
    """A report in the suite's envelope (measure/schema/envelope.schema.json) around `body`."""
    machine = {k: v for k, v in MACHINE.items() if k != "load_avg_1m"}
    return {
        "format": "tmbench-report/1", "tool": tool, "tool_version": "0.1.0", "body_version": 2,
        "passed": passed, "parameters": parameters, "seed": seed, "inputs_sha256": "ab" * 32,
        "machine": machine, "provenance": PROVENANCE,
        "runner": {"kind": "native", "image": None, "image_id": None},
        "load": {"start": [0.5, 0.4, 0.3], "end": [0.6, 0.4, 0.3]},
        "resources": {"wall_s": 10.0, "cpu_s": 9.5, "cpu_children_s": 0.0, "peak_rss_mib": 300.0},
        "started_unix": 1790000000.0, "body": body,
    }  # fmt: skip


def enveloped(tool: str, body: dict[str, Any], passed: bool, parameters: dict[str, Any] | None = None,
              seed: str | None = None) -> dict[str, Any]:  # fmt: skip
    """A report in the suite's envelope (measure/schema/envelope.schema.json) around `body`."""
    return {
        "format": "tmbench-report/1", "tool": tool, "tool_version": "0.1.0", "body_version": 2,
        "passed": passed, "parameters": parameters or {}, "seed": seed, "inputs_sha256": "0" * 64,
        "machine": {k: v for k, v in MACHINE.items() if k != "load_avg_1m"}, "provenance": PROVENANCE,
        "runner": {"kind": "native", "image": None, "image_id": None},
        "load": {"start": [0.5, 0.4, 0.3], "end": [0.6, 0.4, 0.3]},
        "resources": {"wall_s": 10.0, "cpu_s": 9.0, "cpu_children_s": 5.0, "peak_rss_mib": 300.0},
        "started_unix": 1.79e9, "body": body,
    }  # fmt: skip


def write_sample(out: Path, report: dict[str, Any]) -> Path:
    """A crate's sample report (a real run's) as a test run's `out/report.json`, with the tests'
    commit and machine name."""
    report["provenance"] = PROVENANCE
    report["machine"] = dict(report.get("machine") or {}, hostname=MACHINE["hostname"])
    out.mkdir(parents=True, exist_ok=True)
    f = out / "report.json"
    f.write_text(json.dumps(report))
    return f
