"""The db-sm-rsm mode comparison (experiments/db-sm-rsm/compare_modes.py) on a small run (n = 16, m = 2).

Runs the real release binary (built by part 1 of scripts/test) in paper and fast mode and once
more with two threads, with a made-up calibration file (only the arithmetic of the bound column is
checked here; the real unit costs come from `cargo bench -p db-sm-rsm --bench ops`). The binary's
reports are the suite's envelope; the comparison reads the verdict and the machine from it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "experiments" / "db-sm-rsm" / "compare_modes.py"
BINARY = REPO / "target" / "release" / "db-sm-rsm"

SEED = "5eed" * 16

needs_binary = pytest.mark.skipif(not BINARY.exists(), reason="cargo build --release -p db-sm-rsm first")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


@needs_binary
def test_compare_prints_every_section_with_bound_and_speed_up(tmp_path: Path) -> None:
    calibration = tmp_path / "calibration.json"
    units = {"E1f": 1e4, "E1v": 5e4, "P": 1e6, "XN2(80)": 4e5, "XN2(4099)": 2e7, "CRT_dec": 1e6}
    calibration.write_text(json.dumps([{"op": op, "curve": "bn254", "ns": ns} for op, ns in units.items()]))
    out = tmp_path / "compare.json"
    proc = run(
        "--n", "16", "--m", "2", "--threads", "1", "--scaling", "2", "--seed", SEED,
        "--calibration", str(calibration), "--out", str(out), "--raw-dir", str(tmp_path / "raw"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "paper" in text and "fast@2" in text and "speed-up" in text
    sections = ["checking inputs", "mixing", "forward set membership", "reverse set membership"]
    for section in sections:
        assert f"{section} " in text
    doc = json.loads(out.read_text())
    assert doc["n"] == 16 and doc["m"] == 2 and doc["scaling_threads"] == 2 and doc["seed"] == SEED
    assert doc["machine"]["logical_cpus"] >= 1  # from the envelope
    # The run's speed probe shares XN2(4099) and P with the calibration: a drift is computed.
    assert set(doc["speed_probe"]) == {"start", "end"}
    assert isinstance(doc["drift"], float) and doc["drift"] > 0
    assert "machine speed drift" in text
    assert "ceiling" in text and "cpu/wall" in text
    # checking inputs has no per-party totals of its own: summed from check_encs's.
    assert {r["party"] for r in doc["rows"] if r["section"] == "checking inputs"} == {
        "mixer 0",
        "mixer 1",
    }
    assert set(doc["drift_per_run"]) >= {"paper", "fast", "fast@2 before", "fast@2 after"}
    assert sorted(p.name for p in (tmp_path / "raw").glob("*.json")) == [
        "fast.json", "paper.json", "scaled0.json", "scaled1.json", "side0.json", "side1.json"
    ]  # fmt: skip
    for p in (tmp_path / "raw").glob("*.json"):
        report = json.loads(p.read_text())
        assert report["tool"] == "db-sm-rsm" and report["passed"] is True and report["seed"] == SEED
    mixers = [r for r in doc["rows"] if r["party"].startswith("mixer")]
    assert {r["party"] for r in mixers} == {"mixer 0", "mixer 1"}
    for row in mixers:
        assert row["paper_s"] > 0 and row["fast_s"] > 0 and row["fast_scaled_s"] > 0
        # The 2-thread run is bracketed: one before, one after the 1-thread fast run; then two
        # 1-thread copies ran side by side, and the ceiling is 2 x alone / side by side.
        assert len(row["fast_scaled_runs_s"]) == 2 and len(row["side_by_side_s"]) == 2
        want = 2 * row["fast_s"] / (sum(row["side_by_side_s"]) / 2)
        assert row["parallel_ceiling"] == pytest.approx(want)
        assert row["fast_ops"], "fast mode counted no operation"
        # CPU time over wall time of the 2-thread run: above 0; at most 3 (two pool workers,
        # which spin briefly before they sleep, and the main thread).
        assert 0 < row["scaled_cpu_over_wall"] <= 3.0
        # Some counted classes have no unit in the made-up file: the bound still sums the rest.
        assert row["fast_lower_bound_s"] is None or row["fast_lower_bound_s"] >= 0


def test_compare_rejects_bad_arguments(tmp_path: Path) -> None:
    proc = run("--n", "0")
    assert proc.returncode == 2 and "at least 1" in proc.stderr
    proc = run("--n", "4", "--calibration", str(tmp_path / "missing.json"))
    assert proc.returncode == 2 and "missing" in proc.stderr
    proc = run("--n", "4", "--seed", "3")
    assert proc.returncode == 2 and "64 hexadecimal digits" in proc.stderr
