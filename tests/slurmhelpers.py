"""What the tests of the cluster path share (tests/test_slurm.py): a local SLURM cluster of
several nodes (scripts/slurm-local), Snakemake run through the SLURM profile against it with its
output read line by line, and SLURM's own record of the jobs."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SLURM_LOCAL = REPO / "scripts/slurm-local"
PROFILE = REPO / "profiles/slurm"

# The cluster's nodes: a run of m = 2 takes three (the board, the driver and the verifier on the
# first, each mix-server on its own), and one more lets it resume after one of them is lost.
NODES = 4

# The profile as a user runs it: its own status command (the workflow finds out which one can
# read job states here: this cluster has no accounting database, so sacct cannot answer, and
# squeue keeps a finished job for MinJobAge = 900 s) and no --cores. Only the first status check
# comes after 5 s instead of 40, to keep the tests short.
CLUSTER_ARGS = (
    "--profile",
    str(PROFILE),
    "--slurm-init-seconds-before-status-checks",
    "5",
    # No accounts either (without this the plugin tries to guess one with sacct, warns, and
    # submits without).
    "--slurm-no-account",
    # Each job's SLURM log stays, as evidence that it ran there.
    "--slurm-keep-successful-logs",
    # Other parts of the test command run workflows in this directory at the same time; every
    # run here writes into a results directory of its own, with the programs already built.
    "--nolock",
)

# How many times the profile submits a failed job again.
PROFILE_RETRIES = int(yaml.safe_load((PROFILE / "config.yaml").read_text())["retries"])

SUBMITTED = re.compile(r"Job (\d+) has been submitted with SLURM jobid (\d+) \(log: ([^)]+)\)")


def why_not_runnable() -> str | None:
    if os.geteuid() != 0:
        return "needs root: the local SLURM cluster's daemons run as root"
    if shutil.which("slurmctld") is None and shutil.which("apt-get") is None:
        return "SLURM is not installed and there is no apt-get to install it (Debian only)"
    return None


@dataclass
class Cluster:
    state: Path
    env: dict
    stamps: list[tuple[float, str]] = field(default_factory=list)

    def snakemake(
        self,
        *args: str,
        cwd: Path,
        timeout: float,
        on_line: Callable[[str], None] | None = None,
    ) -> subprocess.CompletedProcess:
        """Snakemake in its own process group, killed with everything it started if it runs
        past the timeout (the SLURM jobs it submitted are cancelled when the cluster stops).
        `on_line` sees each line of its output as it comes; `self.stamps` holds, for each
        line, the seconds since it started."""
        proc = subprocess.Popen(
            [sys.executable, "-m", "snakemake", *args],
            cwd=cwd,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        start = time.monotonic()
        lines: list[str] = []
        self.stamps = []

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line)
                self.stamps.append((time.monotonic() - start, line.rstrip("\n")))
                if on_line is not None:
                    on_line(line)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            proc.wait(timeout=timeout)
            reader.join(timeout=30)
            out = "".join(lines)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            reader.join(timeout=30)
            out = "".join(lines)
            # A killed Snakemake leaves its working directory locked for the next run.
            subprocess.run(
                [sys.executable, "-m", "snakemake", "--unlock", *args],
                cwd=cwd,
                env=self.env,
                capture_output=True,
                timeout=300,
                check=False,
            )
            pytest.fail(
                f"snakemake {' '.join(args)} still running after {timeout} s; killed. Output:\n{out[-20000:]}"
            )
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, "")

    def finished_jobs(self) -> dict[str, dict[str, str]]:
        """SLURM's job-completion log: job id -> its fields (JobState, ExitCode, Name, NodeList,
        NodeCnt, TimeLimit, ...). A job requeued by SLURM has one line per run; the last counts."""
        jobs = {}
        log = self.state / "jobcomp.log"
        for line in log.read_text().splitlines() if log.exists() else []:
            fields = dict(re.findall(r"(\w+)=(\S*)", line))
            jobs[fields["JobId"]] = fields
        return jobs

    def slurm_local(self, *args: str) -> subprocess.CompletedProcess:
        return run_slurm_local(list(args), self.env)


def run_slurm_local(args: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([str(SLURM_LOCAL), *args], env=env, capture_output=True, text=True, timeout=600)


def recorded_pids(state: Path) -> list[int]:
    pids = state / "pids"
    return [int(line.split()[1]) for line in pids.read_text().splitlines()] if pids.exists() else []


def local_cluster(nodes: int) -> Iterator[Cluster]:
    """A cluster of `nodes` nodes for the module's tests, stopped afterwards, whatever happened:
    every daemon it recorded gone, every namespace it made removed."""
    reason = why_not_runnable()
    if reason:
        pytest.skip(reason)
    # A short path: the munge socket's path must fit a Unix socket name (108 bytes).
    state = Path(tempfile.mkdtemp(prefix="slurm-", dir=os.environ.get("TMPDIR", "/tmp")))
    # SLURM's commands reach the cluster through SLURM_CONF, and inside a job through the
    # wrappers in bin/ (see scripts/slurm-local).
    env = dict(
        os.environ,
        SLURM_LOCAL_DIR=str(state),
        SLURM_CONF=str(state / "slurm.conf"),
        PATH=f"{state / 'bin'}{os.pathsep}{os.environ['PATH']}",
    )
    try:
        started = run_slurm_local(["start", "--nodes", str(nodes)], env)
        assert started.returncode == 0, f"slurm-local start failed:\n{started.stderr}"
        # munged, slurmctld and a slurmd per node
        assert len(recorded_pids(state)) == 2 + nodes, (state / "pids").read_text()
        yield Cluster(state, env)
    finally:
        pids = recorded_pids(state)
        namespaces = [line.split()[1] for line in (state / "net").read_text().splitlines()
                      if line.startswith("netns ")] if (state / "net").exists() else []  # fmt: skip
        stopped = run_slurm_local(["stop"], env)
        alive = []
        for pid in pids:
            for _ in range(40):
                if not Path(f"/proc/{pid}").exists():
                    break
                time.sleep(0.25)
            else:
                alive.append(pid)
        try:
            assert stopped.returncode == 0, f"slurm-local stop failed:\n{stopped.stderr}"
            assert not alive, f"daemons still running after stop: {alive}"
            left = [ns for ns in namespaces if Path(f"/run/netns/{ns}").exists()]
            assert not left, f"namespaces left after stop: {left}"
        finally:
            shutil.rmtree(state, ignore_errors=True)


def job_counts(output: str) -> dict[str, int]:
    """The `Job stats` table Snakemake prints before it starts: rule -> number of jobs."""
    table = output.split("Job stats:", 1)[1].split("total", 1)[0]
    return {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)}


def job_resources(output: str) -> list[tuple[str, dict[str, str]]]:
    """(rule, resources) of every job a dry run lists."""
    jobs = []
    for block in re.split(r"^(?:local)?rule ", output, flags=re.M)[1:]:
        rule = block.split(":", 1)[0]
        found = re.search(r"^    resources: (.*)$", block, re.M)
        jobs.append((rule, dict(re.findall(r"(\w+)=([^,]*)", found[1])) if found else {}))
    return jobs


def verify(results: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "analysis", "verify", str(results)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
