"""A db-sm-rsm job killed half way under the workflow resumes when the same `snakemake` command
runs again: the failed job's outputs are removed, the program's checkpoint (`report.checkpoint/` in
the run directory) is kept, and the next attempt continues from it and verifies.

The real db-sm-rsm program (from `cargo build --release`, as scripts/test's first part builds it)
runs in a copy of the workflow (wfhelpers.py) at n = 8, m = 2: about 10 s a run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from wfhelpers import REPO, Workflow

PROGRAM = REPO / "target/release/db-sm-rsm"
RUN = "n8-m2-bn254-fast-s128-t1"
ARGS = ("--cores", "1", "raw", "--config", "experiments=[db-sm-rsm]", "entries=8", "mixers=2")
# Steps the program's journal names once they are finished: one in the mixing (keys, inputs and
# the shuffles done), one in DB-RSM (the last section).
MIXING = b"main/mixing/decryption of output messages/"
DB_RSM = b"main/reverse set membership/get_blsigs_rev/"
TIMEOUT_S = 300


def use_the_real_program(workflow: Workflow) -> Path:
    """The stand-in cargo of the workflow copy 'builds' target/release/db-sm-rsm from fake/."""
    if not PROGRAM.is_file():
        pytest.fail(f"{PROGRAM.relative_to(REPO)} is missing: cargo build --release -p db-sm-rsm first")
    shutil.copy2(PROGRAM, workflow.root / "fake/db-sm-rsm")
    return workflow.root / "target/release/db-sm-rsm"


def pids_of(binary: Path) -> list[int]:
    """The processes running this very file (the copy in the workflow's directory)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if Path(os.readlink(proc / "exe")) == binary:
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


def wait_for(what: str, ready, snakemake: subprocess.Popen) -> None:
    start = time.monotonic()
    while not ready():
        assert snakemake.poll() is None, f"snakemake ended before {what}"
        assert time.monotonic() - start < TIMEOUT_S, f"no {what} after {TIMEOUT_S} s"
        time.sleep(0.02)


def start_snakemake(workflow: Workflow, terminal: Path) -> subprocess.Popen:
    """`snakemake ARGS` in a process group of its own, its output to a file."""
    with terminal.open("w") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "snakemake", *ARGS],
            cwd=workflow.root,
            env=workflow.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def interrupt(
    snakemake: subprocess.Popen, journal: Path, step: bytes, binary: Path, kill_snakemake: bool
) -> None:
    """Once the journal names `step`, kill the program alone (SIGKILL; Snakemake sees its job
    fail) or Snakemake with its job's shell and the program (SIGKILL to its process group, as a
    lost session or a power cut leaves them: nothing cleans up)."""
    try:
        wait_for(f"{step.decode()} in the journal",
                 lambda: journal.exists() and step in journal.read_bytes(), snakemake)  # fmt: skip
        pids = pids_of(binary)
        assert pids, "db-sm-rsm is not running"
        if kill_snakemake:
            os.killpg(snakemake.pid, signal.SIGKILL)
        else:
            for pid in pids:
                os.kill(pid, signal.SIGKILL)
        snakemake.wait(timeout=TIMEOUT_S)
    finally:
        if snakemake.poll() is None:
            os.killpg(snakemake.pid, signal.SIGKILL)
            snakemake.wait()
    start = time.monotonic()
    while pids_of(binary):
        assert time.monotonic() - start < 30, "db-sm-rsm still runs after its job was killed"
        time.sleep(0.1)


def test_a_killed_db_sm_rsm_job_resumes_when_snakemake_runs_it_again(
    workflow_copy: Workflow, tmp_path: Path
) -> None:
    """Attempt 1: the program is killed while it mixes. Attempt 2 resumes, and Snakemake itself
    is killed (with the program) in DB-RSM. Attempt 3 resumes from what both left and ends."""
    binary = use_the_real_program(workflow_copy)
    run_dir = workflow_copy.root / "results/raw/db-sm-rsm" / RUN
    journal = run_dir / "report.checkpoint/journal-driver"

    first = start_snakemake(workflow_copy, tmp_path / "first.txt")
    interrupt(first, journal, MIXING, binary, kill_snakemake=False)
    said = (tmp_path / "first.txt").read_text()
    assert first.returncode != 0 and "Error in rule measure" in said, said
    # The failed job's output is gone (it was never written); the checkpoint stays.
    assert not (run_dir / "report.json").exists(), said
    assert journal.exists(), f"the checkpoint went with the failed job:\n{said}"

    second = start_snakemake(workflow_copy, tmp_path / "second.txt")
    interrupt(second, journal, DB_RSM, binary, kill_snakemake=True)
    assert "db-sm-rsm: resuming from the checkpoint" in (run_dir / "stderr.log").read_text()
    assert not (run_dir / "report.json").exists() and journal.exists()

    # A killed Snakemake leaves its lock: lifted as the README says, then the same command.
    workflow_copy.snakemake("--unlock", *ARGS)
    third = workflow_copy.snakemake(*ARGS)
    log = (run_dir / "stderr.log").read_text()
    assert "db-sm-rsm: resuming from the checkpoint" in log, log + third.stderr
    report = json.loads((run_dir / "report.json").read_text())
    resumed = report["body"]["resumed"]
    assert resumed is not None and resumed["records_read_back"] > 0, resumed
    assert report["passed"] is True, report["body"]["statuses"]
    assert not (run_dir / "report.checkpoint").exists(), "the finished run left its checkpoint"
    # The real analysis reads the resumed run as any other: every run of the configuration
    # verified.
    verify = subprocess.run([sys.executable, "-m", "analysis", "verify", str(workflow_copy.root / "results")],
                            cwd=REPO, capture_output=True, text=True, timeout=TIMEOUT_S)  # fmt: skip
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "all 1 runs verified" in verify.stdout, verify.stdout
