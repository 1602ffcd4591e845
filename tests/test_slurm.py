"""The workflow's cluster path (profiles/slurm).

A dry run through the profile lists every job with the threads, memory and runtime SLURM is
asked for; it needs the SLURM plugin only. The tests marked `slurm` run against a real SLURM: a
one-node cluster on this machine (scripts/slurm-local) runs the smoke configuration:

    python3 -m pytest -m slurm tests/test_slurm.py

They need root (the cluster's daemons run as root; apt installs slurm-wlm and munge when they
are missing) and build what the smoke run needs, as SLURM jobs, unless the programs are current
already (after `scripts/test`'s build and smoke run only the measurements run again).

What they check: every job except the workflow's local ones ran as a SLURM job that completed
(SLURM's job-completion log, which this cluster keeps instead of an accounting database, and
each job's SLURM log), every run verified (`python -m analysis verify`, which `all` runs as its
last job), the PDF was written, a second run finds nothing to do; a job that fails on the
cluster makes the run exit non-zero naming the rule and its log, while the run's other jobs
finish; and the daemons are stopped afterwards, whatever happened.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SLURM_LOCAL = REPO / "scripts/slurm-local"
PROFILE = REPO / "profiles/slurm"

# Hard limits: a hung status query or a lost job fails the test instead of hanging it. The smoke
# run takes about 6 minutes on two cores when the programs are built; building them from nothing,
# as SLURM jobs, adds up to about 15.
SMOKE_TIMEOUT = 30 * 60
FAIL_TIMEOUT = 5 * 60

# The profile as a user runs it: its own status command (the workflow finds out which one can
# read job states here: this cluster has no accounting database, so sacct cannot answer, and
# squeue keeps a finished job for MinJobAge = 900 s) and no --cores. Only the first status check
# comes after 5 s instead of 40, to keep the test short.
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

    def snakemake(self, *args: str, cwd: Path, timeout: float) -> subprocess.CompletedProcess:
        """Snakemake in its own process group, killed with everything it started if it runs
        past the timeout (the SLURM jobs it submitted are cancelled when the cluster stops).
        `self.stamps` holds, for each line of its output, the seconds since it started."""
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
        self.stamps: list[tuple[float, str]] = []

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line)
                self.stamps.append((time.monotonic() - start, line.rstrip("\n")))

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
        """SLURM's job-completion log: job id -> its fields (JobState, ExitCode, Name, ...)."""
        jobs = {}
        log = self.state / "jobcomp.log"
        for line in log.read_text().splitlines() if log.exists() else []:
            fields = dict(re.findall(r"(\w+)=(\S*)", line))
            jobs[fields["JobId"]] = fields
        return jobs


def run_slurm_local(command: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([str(SLURM_LOCAL), command], env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
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
    pids: list[int] = []
    try:
        started = run_slurm_local("start", env)
        pids = (
            [int(line.split()[1]) for line in (state / "pids").read_text().splitlines()]
            if (state / "pids").exists()
            else []
        )
        assert started.returncode == 0, f"slurm-local start failed:\n{started.stderr}"
        assert len(pids) == 3, (state / "pids").read_text()
        yield Cluster(state, env)
    finally:
        stopped = run_slurm_local("stop", env)
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


def test_dry_run_lists_each_jobs_threads_memory_and_runtime(tmp_path: Path) -> None:
    """Needs the SLURM plugin only, no cluster."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--dry-run",
            "--profile",
            str(PROFILE),
            "all",
            "--config",
            f"results={tmp_path / 'results'}",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # `all` and run_config run on the login node (local rules of the workflow).
    jobs = [(rule, res) for rule, res in job_resources(proc.stdout) if rule not in ("all", "run_config")]
    assert {"measure", "analysis_report", "verify"} <= {r for r, _ in jobs}
    assert sum(1 for r, _ in jobs if r == "measure") >= 7
    for rule, res in jobs:
        assert int(res["cpus_per_task"]) >= 1 and int(res["mem_mb"]) > 0, (rule, res)
        assert int(res["runtime"]) > 0, (rule, res)
        # measurements get a node to themselves; builds and the analysis share theirs
        measuring = rule == "measure"
        assert (res["slurm_extra"] == "--exclusive") == measuring, (rule, res)
        if rule == "build_program":
            assert res.get("cargo") == "1", (rule, res)


@pytest.mark.slurm
def test_smoke_configuration_runs_as_slurm_jobs(cluster: Cluster) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="slurm-smoke-"))
    results = tmp / "results"
    try:
        args = (
            "all",
            "--configfile",
            "config/smoke.yaml",
            "--config",
            f"results={results}",
            *CLUSTER_ARGS,
            "--slurm-logdir",
            str(tmp / "slurm-logs"),
        )
        start = time.monotonic()
        proc = cluster.snakemake(*args, cwd=REPO, timeout=SMOKE_TIMEOUT)
        took = time.monotonic() - start
        out = proc.stdout
        assert proc.returncode == 0, out[-20000:]
        print(f"smoke run through SLURM: {took:.0f} s")

        # Every job but the workflow's local ones (the target `all`, writing config.json) was
        # submitted to SLURM, and SLURM ran each to completion.
        submitted = SUBMITTED.findall(out)
        counts = job_counts(out)
        local = counts.get("all", 0) + counts.get("run_config", 0)
        assert sum(counts.values()) - local == len(submitted), out[-20000:]
        assert counts.get("measure", 0) >= 7, f"too few measuring jobs in {counts}"
        for rule in ("analysis_report", "verify"):
            assert counts.get(rule), f"no {rule} job in {counts}"
        # The workflow found out, before it submitted anything, how to read job states here.
        assert "[cluster] job states from squeue (MinJobAge 900 s), because sacct answers" in out, out[:5000]
        finished = cluster.finished_jobs()
        names = set()
        for _, slurm_id, log in submitted:
            assert slurm_id in finished, f"SLURM job {slurm_id} not in the completion log"
            job = finished[slurm_id]
            assert job["JobState"] == "COMPLETED" and job["ExitCode"] == "0:0", job
            assert Path(log).exists(), f"SLURM log {log} missing"
            names.add(job["Name"])
        assert len(names) == 1  # all jobs of this one run

        # The results came back: every run verified, the PDF is there.
        check = subprocess.run(
            [sys.executable, "-m", "analysis", "verify", str(results)],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stdout + check.stderr
        assert (results / "verified.txt").exists()
        pdf = results / "report.pdf"
        assert pdf.exists() and pdf.read_bytes().startswith(b"%PDF"), "no PDF written"

        again = cluster.snakemake("--dry-run", *args, cwd=REPO, timeout=300)
        assert "Nothing to be done" in again.stdout, again.stdout[-20000:]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


FAILING_WORKFLOW = """
include: "{cluster_smk}"

onstart:
    prepare_cluster()

rule all:
    input: "out/fine.txt", "out/broken.txt"

# The profile makes every job exclusive (measuring jobs own their node): here both share the one
# node, so the failing job never waits for the other to end.
rule fine_run:
    output: "out/fine.txt"
    log: "logs/fine.log"
    resources: slurm_extra=""
    shell: "sleep 75; echo fine > {{output}} 2> {{log}}"

rule broken_run:
    output: "out/broken.txt"
    log: "logs/broken.log"
    resources: slurm_extra=""
    shell: "echo 'broken_run: the measurement failed' > {{log}}; exit 3"
"""


def failing_workflow(work: Path) -> None:
    """A run of two jobs, one failing at once and one taking 75 s, with the workflow's cluster
    preparation (the status command found here, the failure watch)."""
    (work / "Snakefile").write_text(textwrap.dedent(FAILING_WORKFLOW.format(
        cluster_smk=REPO / "rules/cluster.smk")))  # fmt: skip
    # The cluster preparation imports the suite's analysis package.
    (work / "analysis").symlink_to(REPO / "analysis")


@pytest.mark.slurm
def test_a_job_failing_on_the_cluster_fails_the_run_and_is_named_within_a_minute(cluster: Cluster) -> None:
    work = Path(tempfile.mkdtemp(prefix="slurm-fail-"))
    try:
        failing_workflow(work)
        proc = cluster.snakemake("all", *CLUSTER_ARGS, cwd=work, timeout=FAIL_TIMEOUT)
        out = proc.stdout
        assert proc.returncode != 0, out
        assert "Error in rule broken_run" in out, out
        assert "logs/broken.log" in out, out
        # The profile keeps going: the other job of the run still ran to the end.
        assert (work / "out/fine.txt").read_text() == "fine\n"
        assert not (work / "out/broken.txt").exists()
        # SLURM saw the job fail with the shell's exit status, at each of its attempts: the
        # profile's retries submit a failed job again, and one that fails every time fails the run.
        broken = [slurm_id for _, slurm_id, log in SUBMITTED.findall(out) if "rule_broken_run" in log]
        assert len(broken) == 1 + PROFILE_RETRIES, out
        assert out.count("Trying to restart job") == PROFILE_RETRIES, out
        for slurm_id in broken:
            job = cluster.finished_jobs()[slurm_id]
            assert job["JobState"] == "FAILED" and job["ExitCode"] != "0:0", job
        assert "measurement failed" in (work / "logs/broken.log").read_text()
        # The user is told within a minute of the submission, while the other job still runs.
        submitted = next(t for t, line in cluster.stamps if f"SLURM jobid {broken[0]}" in line)
        told = next((t for t, line in cluster.stamps
                     if f"SLURM job {broken[0]} (broken_run) ended FAILED" in line), None)  # fmt: skip
        assert told is not None, out
        assert told - submitted < 60, (told, submitted, out)
        assert "[cluster] job states from squeue" in out, out
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.slurm
def test_a_cluster_whose_job_states_cannot_be_read_is_refused_before_anything_is_submitted(
    cluster: Cluster,
) -> None:
    """sacct without accounting, and squeue forgetting a job before the first check would see it
    (MinJobAge 900 s against a first check after 400 s): one line saying what to set."""
    work = Path(tempfile.mkdtemp(prefix="slurm-blind-"))
    try:
        failing_workflow(work)
        args = [a if a != "5" else "400" for a in CLUSTER_ARGS]
        proc = cluster.snakemake("all", *args, cwd=work, timeout=FAIL_TIMEOUT)
        out = proc.stdout
        assert proc.returncode != 0, out
        assert "SLURM job states cannot be read here: sacct answers" in out, out
        assert "set slurm-init-seconds-before-status-checks to at most 300" in out, out
        assert not SUBMITTED.findall(out), out
        assert "Traceback" not in out, out
    finally:
        shutil.rmtree(work, ignore_errors=True)


# A db-sm-rsm run of about 100 s of CPU time on the project's 2-core machines: longer than the
# 1-minute time limit of its first attempt even when SLURM stops it as late as it may (slurmctld
# looks at time limits every 30 s, so a job runs 60 to 90 s past its start), so the first
# attempt is always stopped half way, and short enough to keep the test to a few minutes.
TIMEOUT_ENTRIES = 450
TIMEOUT_RUN = f"n{TIMEOUT_ENTRIES}-m2-bn254-fast-s128-t1"
TIMEOUT_TIMEOUT = 20 * 60


@pytest.mark.slurm
def test_a_job_past_its_time_limit_is_retried_with_more_time_and_resumes(cluster: Cluster) -> None:
    """cluster_runtime_min=1: the measuring job's first attempt gets 1 minute, which SLURM
    enforces (SIGTERM, then SIGKILL); the profile's retries submit it again with 2 minutes (then
    3), and the program resumes from the checkpoint the killed attempt left in its run directory,
    ends and verifies."""
    tmp = Path(tempfile.mkdtemp(prefix="slurm-timeout-"))
    results = tmp / "results"
    try:
        args = (
            "raw",
            "--config",
            "experiments=[db-sm-rsm]",
            f"entries={TIMEOUT_ENTRIES}",
            "mixers=2",
            "cluster_runtime_min=1",
            f"results={results}",
            *CLUSTER_ARGS,
            "--slurm-logdir",
            str(tmp / "slurm-logs"),
        )
        start = time.monotonic()
        proc = cluster.snakemake(*args, cwd=REPO, timeout=TIMEOUT_TIMEOUT)
        took = time.monotonic() - start
        out = proc.stdout
        assert proc.returncode == 0, out[-20000:]
        print(f"time-limited run through SLURM: {took:.0f} s")

        # Attempt k had a time limit of k minutes; every attempt but the last ran out of it.
        submitted = SUBMITTED.findall(out)
        attempts = [(slurm_id, Path(log)) for _, slurm_id, log in submitted if "rule_measure" in log]
        assert 2 <= len(attempts) <= 1 + PROFILE_RETRIES, out[-20000:]
        finished = cluster.finished_jobs()
        for k, (slurm_id, log) in enumerate(attempts, start=1):
            job = finished[slurm_id]
            assert job["TimeLimit"] == str(k), (k, job)
            if k < len(attempts):
                assert job["JobState"] == "TIMEOUT", (k, job)
                assert "DUE TO TIME LIMIT" in log.read_text(), log.read_text()[-5000:]
            else:
                assert job["JobState"] == "COMPLETED" and job["ExitCode"] == "0:0", (k, job)
        assert out.count("Trying to restart job") == len(attempts) - 1, out[-20000:]
        # The failure watch named the stopped attempt.
        named = f"SLURM job {attempts[0][0]} (measure db-sm-rsm_{TIMEOUT_RUN}) ended TIMEOUT"
        assert named in out, out[-20000:]

        # The last attempt resumed from what the killed ones left, and the run verified.
        run_dir = results / "raw/db-sm-rsm" / TIMEOUT_RUN
        assert "db-sm-rsm: resuming from the checkpoint" in (run_dir / "stderr.log").read_text()
        report = json.loads((run_dir / "report.json").read_text())
        resumed = report["body"]["resumed"]
        assert resumed is not None and resumed["records_read_back"] > 0, resumed
        assert report["passed"] is True, report["body"]["statuses"]
        assert not (run_dir / "report.checkpoint").exists(), "the finished run left its checkpoint"
        check = subprocess.run(
            [sys.executable, "-m", "analysis", "verify", str(results)],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
