"""SLURM: whether the workflow can read its jobs' states, and a failed job reported at once.

Snakemake's SLURM plugin learns that a job ended from `sacct` (SLURM's accounting database) or
from `squeue`, which forgets a finished job MinJobAge seconds after it ends. On a cluster without
accounting, `sacct` is on the PATH but answers nothing, and a plugin that relies on it waits for
ever, printing nothing. Before anything is submitted, `choose_status_command` finds out which of
the two answers here and picks it (or says, in one line, what to set); while jobs run,
`FailureWatch` looks every few seconds for a job of this run that SLURM marked failed and names
it, its rule and its log on the terminal, whatever the plugin's own (slower, backing-off) status
checks do.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# Job states in which a job ended without success.
FAILED_STATES = ("BOOT_FAIL", "CANCELLED", "DEADLINE", "FAILED", "NODE_FAIL", "OUT_OF_MEMORY", "TIMEOUT")
# Seconds between two looks for failed jobs: a failure reaches the user well within a minute.
WATCH_INTERVAL_S = 15


def _run(argv: list[str], timeout: float = 20) -> subprocess.CompletedProcess[str] | None:
    if shutil.which(argv[0]) is None:
        return None
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


def sacct_problem() -> str | None:
    """Why sacct cannot report job states here (one phrase), or None if it can."""
    out = _run(["sacct", "--noheader", "--allocations", "--starttime", "now-1hours", "--format", "JobID"])
    if out is None:
        return "sacct is not installed"
    text = (out.stderr + out.stdout).strip()
    if out.returncode != 0 or "disabled" in text.lower() or "error" in out.stderr.lower():
        first = next((ln.strip() for ln in text.splitlines() if ln.strip()), f"exit status {out.returncode}")
        return f"sacct answers '{first[:160]}'"
    return None


def min_job_age_s() -> int | None:
    """SLURM's MinJobAge (seconds a finished job stays visible to squeue), or None if unknown."""
    out = _run(["scontrol", "show", "config"])
    if out is None or out.returncode != 0:
        return None
    m = re.search(r"^\s*MinJobAge\s*=\s*(\d+)\s*(\w*)", out.stdout, re.M)
    if m is None:
        return None
    value, unit = int(m.group(1)), m.group(2).lower()
    return value * 3600 if unit.startswith("h") else value * 60 if unit.startswith("m") else value


@dataclass(frozen=True)
class StatusChoice:
    command: str | None  # "sacct", "squeue", or None: job states cannot be read
    message: str  # what was found, one line


def choose_status_command(configured: str, first_check_s: int) -> StatusChoice:
    """The status command that works here: the configured one if it does, else the other one,
    else None with one line saying what to set. squeue works when a finished job stays visible
    for at least three of the plugin's first status intervals (its own rule)."""
    sacct = sacct_problem()
    age = min_job_age_s()
    needed = 3 * first_check_s
    squeue_ok = shutil.which("squeue") is not None and age is not None and age >= needed
    if configured == "sacct" and sacct is None:
        return StatusChoice("sacct", "job states from sacct (SLURM's accounting)")
    if configured == "squeue" and squeue_ok:
        return StatusChoice("squeue", f"job states from squeue (MinJobAge {age} s)")
    if sacct is None:
        return StatusChoice("sacct", f"job states from sacct: squeue forgets a finished job after {age} s")
    if squeue_ok:
        return StatusChoice("squeue", f"job states from squeue (MinJobAge {age} s), because {sacct}")
    return StatusChoice(
        None,
        f"SLURM job states cannot be read here: {sacct}, and squeue forgets a finished job after "
        f"MinJobAge = {age if age is not None else 'unknown'} s, less than 3 x the first status check "
        f"({first_check_s} s); set slurm-init-seconds-before-status-checks to at most "
        f"{max(1, (age or 0) // 3)} in profiles/slurm/config.yaml, or ask for SLURM accounting or a "
        f"MinJobAge of at least {needed} s",
    )


def job_log(job_id: str) -> str | None:
    """Where SLURM writes a job's output (scontrol knows while the job is remembered)."""
    out = _run(["scontrol", "show", "job", job_id])
    if out is not None and out.returncode == 0:
        m = re.search(r"\bStdOut=(\S+)", out.stdout)
        if m:
            return m.group(1)
    found = sorted(Path(".snakemake/slurm_logs").glob(f"**/{job_id}.log"))
    return str(found[0]) if found else None


def failed_jobs(run_name: str, sacct_ok: bool) -> list[tuple[str, str, str]]:
    """(job id, state, comment) of the jobs named `run_name` that ended without success."""
    states = ",".join(FAILED_STATES)
    out = _run(["squeue", "--noheader", f"--states={states}", "--format=%i|%T|%k", "--name", run_name])
    rows = out.stdout.splitlines() if out is not None and out.returncode == 0 else []
    if sacct_ok:
        acct = _run(["sacct", "--noheader", "--allocations", "--parsable2", f"--state={states}",
                     "--format=JobID,State,Comment", "--name", run_name,
                     "--starttime", "now-7days"])  # fmt: skip
        rows += acct.stdout.splitlines() if acct is not None and acct.returncode == 0 else []
    found = []
    for line in rows:
        parts = line.strip().split("|")
        if len(parts) >= 2 and parts[1].split()[0] in FAILED_STATES:
            found.append((parts[0], parts[1].split()[0], parts[2] if len(parts) > 2 else ""))
    return found


class FailureWatch(threading.Thread):
    """Names each failed job of a SLURM run on the terminal, within WATCH_INTERVAL_S of SLURM
    marking it: its id, state, rule (from the comment the plugin gives every job) and log."""

    def __init__(self, run_name: str, sacct_ok: bool, say: Callable[[str], None] | None = None) -> None:
        super().__init__(daemon=True, name="slurm-failure-watch")
        self.run_name = run_name
        self.sacct_ok = sacct_ok
        self.say = say or (lambda text: print(text, file=sys.stderr, flush=True))
        self.reported: set[str] = set()
        self.stopped = threading.Event()

    def look(self) -> list[str]:
        """One look: the lines for failures not reported before."""
        lines = []
        for job_id, state, comment in failed_jobs(self.run_name, self.sacct_ok):
            if job_id in self.reported:
                continue
            self.reported.add(job_id)
            rule = comment.removeprefix("rule_").replace("_wildcards_", " ") or "?"
            log = job_log(job_id) or "its SLURM log under .snakemake/slurm_logs/"
            lines.append(f"[cluster] SLURM job {job_id} ({rule}) ended {state}; see {log}")
        return lines

    def run(self) -> None:
        while not self.stopped.wait(WATCH_INTERVAL_S):
            for line in self.look():
                self.say(line)

    def stop(self) -> None:
        self.stopped.set()
