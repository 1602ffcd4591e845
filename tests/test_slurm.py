"""The workflow's cluster path (profiles/slurm).

A dry run through the profile lists every job with the threads, memory and runtime SLURM is
asked for; it needs the SLURM plugin only. The tests marked `slurm` run against a real SLURM: a
cluster of four nodes on this machine (scripts/slurm-local), each node a network and UTS
namespace of its own:

    python3 -m pytest -m slurm tests/test_slurm.py
    TMBENCH_NATIVE_RESULTS=results-smoke python3 -m pytest -m slurm tests/test_slurm.py

They need root (the cluster's daemons run as root; apt installs slurm-wlm and munge when they
are missing) and the programs built (`cargo build --release`; scripts/test builds them first).

What they check, each with the fewest jobs that show it:
- the smoke configuration through the profile: with TMBENCH_NATIVE_RESULTS (the results
  directory of a native smoke run of config/smoke.yaml) its runs are reused but for one run of
  each experiment, which runs again as a SLURM job, with the analysis and the final check;
  without it, the smoke configuration of db-sm-rsm alone. Every job ran as a SLURM job that
  completed, every run verified, the PDF was written, a second run has nothing to do;
- a job that fails on the cluster makes the run exit non-zero naming the rule and its log, is
  named within a minute, and the run's other jobs finish;
- a cluster whose job states cannot be read is refused before anything is submitted;
- a job past its time limit (a db-sm-rsm run held at a section until SLURM stops it) is
  submitted again with more time and resumes from its checkpoint;
- a db-sm-rsm run over tls placed on nodes (dbsm_placement: nodes): one job of three nodes,
  each mix-server on a node of its own, as the report's hosts say, every status True;
- the same run losing a mix-server's node mid-run (its slurmd and processes killed once the
  mix-server has journaled a step of the mixing): the job fails naming the party and the node,
  the profile submits it again, it resumes on the nodes left and ends with the statuses, inputs
  digest and transcript of the uninterrupted run;
- and the daemons and namespaces are gone afterwards, whatever happened.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from slurmhelpers import (
    CLUSTER_ARGS,
    NODES,
    PROFILE,
    PROFILE_RETRIES,
    REPO,
    SUBMITTED,
    Cluster,
    job_counts,
    job_resources,
    local_cluster,
    verify,
)

# Hard limits: a hung status query or a lost job fails the test instead of hanging it, never a
# verdict on speed (each is several times what the test takes on the project's 2-core machines).
SMOKE_TIMEOUT = 30 * 60
FAIL_TIMEOUT = 10 * 60
RUN_TIMEOUT = 20 * 60


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    yield from local_cluster(NODES)


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
        # one node each: only runs placed on nodes ask for more
        assert "nodes" not in res and "mpi" not in res, (rule, res)


def test_dry_run_of_a_placed_run_asks_for_a_node_per_mix_server_and_one_more(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--dry-run", "--profile", str(PROFILE), "raw",
         "--config", "experiments=[db-sm-rsm]", "entries=16", "mixers=3", "dbsm_transport=[tls]",
         "dbsm_placement=nodes", f"results={tmp_path / 'results'}", "--printshellcmds"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    measuring = [res for rule, res in job_resources(proc.stdout) if rule == "measure"]
    assert measuring, proc.stdout
    for r in measuring:
        assert (r["nodes"], r["tasks"], r["mpi"]) == ("4", "4", "srun"), r
    assert "n16-m3-bn254-fast-s128-t1-tls-nodes" in proc.stdout and "--launch srun" in proc.stdout


def reuse_native_results(native: Path, results: Path) -> list[str]:
    """A native smoke run's measurements copied into `results` (their times kept, so the
    workflow takes them as done), less each experiment's first run, which the cluster then
    measures again. Returns the experiments it ran (all of the smoke configuration's, after a
    whole smoke run)."""
    results.mkdir(parents=True)
    for part in ("raw", "keys"):
        if (native / part).is_dir():
            shutil.copytree(native / part, results / part, symlinks=True)
    experiments = sorted(d.name for d in (results / "raw").iterdir() if d.is_dir())
    for name in experiments:
        first = sorted(d for d in (results / "raw" / name).iterdir() if d.is_dir())[0]
        shutil.rmtree(first)
    return experiments


@pytest.mark.slurm
def test_smoke_configuration_runs_as_slurm_jobs(cluster: Cluster) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="slurm-smoke-"))
    results = tmp / "results"
    native = os.environ.get("TMBENCH_NATIVE_RESULTS")
    try:
        if os.environ.get("TEST_FULL") == "1":
            experiments, scope = [], ()
            print("smoke through SLURM: the whole smoke configuration (TEST_FULL=1)")
        elif native and (Path(native) / "raw").is_dir():
            experiments = reuse_native_results(Path(native), results)
            scope: tuple[str, ...] = (f"experiments=[{','.join(experiments)}]",)
            print(f"smoke through SLURM: one run of each of {experiments} again, from {native}")
        else:
            experiments = ["db-sm-rsm"]
            scope = ("experiments=[db-sm-rsm]",)
            print("smoke through SLURM: db-sm-rsm's smoke configuration (no TMBENCH_NATIVE_RESULTS)")
        args = ("all", "--configfile", "config/smoke.yaml", "--config", f"results={results}", *scope,
                *CLUSTER_ARGS, "--slurm-logdir", str(tmp / "slurm-logs"))  # fmt: skip
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
        assert counts.get("measure", 0) >= max(1, len(experiments)), f"too few measuring jobs in {counts}"
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

        # Each run measured again gave the native run's verdict.
        for report in sorted(results.glob("raw/*/*/report.json")) if native and experiments else []:
            before = Path(native) / report.relative_to(results)
            if before.exists():
                now, then = (json.loads(f.read_text())["passed"] for f in (report, before))
                assert now == then, (report, now, then)
        # The results came back: every run verified, the PDF is there.
        check = verify(results)
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

# The profile makes every job exclusive (measuring jobs own their node): here neither needs to.
# fine_run waits until the test has seen broken_run's failure named (the file `release`), so
# that it still runs then, whatever the machine's speed; it gives up after ten minutes.
rule fine_run:
    output: "out/fine.txt"
    log: "logs/fine.log"
    resources: slurm_extra=""
    shell:
        "for i in $(seq 600); do test -e release && break; sleep 1; done; "
        "test -e release; echo fine > {{output}} 2> {{log}}"

rule broken_run:
    output: "out/broken.txt"
    log: "logs/broken.log"
    resources: slurm_extra=""
    shell: "echo 'broken_run: the measurement failed' > {{log}}; exit 3"
"""


def failing_workflow(work: Path) -> None:
    """A run of two jobs, one failing at once and one waiting for the test, with the workflow's
    cluster preparation (the status command found here, the failure watch)."""
    (work / "Snakefile").write_text(textwrap.dedent(FAILING_WORKFLOW.format(
        cluster_smk=REPO / "rules/cluster.smk")))  # fmt: skip
    # The cluster preparation imports the suite's analysis package.
    (work / "analysis").symlink_to(REPO / "analysis")


@pytest.mark.slurm
def test_a_job_failing_on_the_cluster_fails_the_run_and_is_named_within_a_minute(cluster: Cluster) -> None:
    work = Path(tempfile.mkdtemp(prefix="slurm-fail-"))
    try:
        failing_workflow(work)

        def release(line: str) -> None:
            if "(broken_run) ended FAILED" in line:
                (work / "release").touch()

        proc = cluster.snakemake("all", *CLUSTER_ARGS, cwd=work, timeout=FAIL_TIMEOUT, on_line=release)
        out = proc.stdout
        assert proc.returncode != 0, out
        assert "Error in rule broken_run" in out, out
        assert "logs/broken.log" in out, out
        # The profile keeps going: the other job of the run, still running when the failure was
        # named, ran to the end.
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
        # The user is told within a minute of the submission (the watch looks every 15 s), while
        # the other job still runs.
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


# A small db-sm-rsm run held at the start of its mixing (dbsm_hold_at, a test-only key: a fresh
# run holds there until it is killed, a resumed one goes on), so that its first attempt outlasts
# the 1-minute time limit however fast the machine is, with its keys and inputs journaled.
HELD_ENTRIES = 16
HELD_RUN = f"n{HELD_ENTRIES}-m2-bn254-fast-s128-t1"
HELD_AT = "mixing"


@pytest.mark.slurm
def test_a_job_past_its_time_limit_is_retried_with_more_time_and_resumes(cluster: Cluster) -> None:
    """cluster_runtime_min=1: the measuring job's first attempt gets 1 minute, which SLURM
    enforces (SIGTERM, then SIGKILL) on a run held at its mixing; the profile's retries submit it
    again with 2 minutes, and the program resumes from the checkpoint the killed attempt left in
    its run directory, ends and verifies."""
    tmp = Path(tempfile.mkdtemp(prefix="slurm-timeout-"))
    results = tmp / "results"
    try:
        args = (
            "raw", "--config", "experiments=[db-sm-rsm]", f"entries={HELD_ENTRIES}", "mixers=2",
            f"dbsm_hold_at={HELD_AT}", "cluster_runtime_min=1", f"results={results}",
            *CLUSTER_ARGS, "--slurm-logdir", str(tmp / "slurm-logs"),
        )  # fmt: skip
        start = time.monotonic()
        proc = cluster.snakemake(*args, cwd=REPO, timeout=RUN_TIMEOUT)
        took = time.monotonic() - start
        out = proc.stdout
        assert proc.returncode == 0, out[-20000:]
        print(f"time-limited run through SLURM: {took:.0f} s")

        # Attempt k had a time limit of k minutes: the first ran out of it, held; the second,
        # resumed past the hold, completed.
        submitted = SUBMITTED.findall(out)
        attempts = [(slurm_id, Path(log)) for _, slurm_id, log in submitted if "rule_measure" in log]
        assert len(attempts) == 2, out[-20000:]
        finished = cluster.finished_jobs()
        first, second = (finished[slurm_id] for slurm_id, _ in attempts)
        assert first["TimeLimit"] == "1" and first["JobState"] == "TIMEOUT", first
        assert "DUE TO TIME LIMIT" in attempts[0][1].read_text(), attempts[0][1].read_text()[-5000:]
        assert second["TimeLimit"] == "2", second
        assert second["JobState"] == "COMPLETED" and second["ExitCode"] == "0:0", second
        assert out.count("Trying to restart job") == 1, out[-20000:]
        # The failure watch named the stopped attempt.
        named = f"SLURM job {attempts[0][0]} (measure db-sm-rsm_{HELD_RUN}) ended TIMEOUT"
        assert named in out, out[-20000:]

        # The last attempt resumed from what the killed one left, and the run verified.
        run_dir = results / "raw/db-sm-rsm" / HELD_RUN
        assert "db-sm-rsm: resuming from the checkpoint" in (run_dir / "stderr.log").read_text()
        report = json.loads((run_dir / "report.json").read_text())
        resumed = report["body"]["resumed"]
        assert resumed is not None and resumed["records_read_back"] > 0, resumed
        assert report["passed"] is True, report["body"]["statuses"]
        assert not (run_dir / "report.checkpoint").exists(), "the finished run left its checkpoint"
        check = verify(results)
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# db-sm-rsm over tls with its parties placed on nodes: m = 2 on three of the cluster's four
# nodes, a seed shared by the uninterrupted run and the one that loses a node.
NODES_ENTRIES = 16
NODES_RUN = f"n{NODES_ENTRIES}-m2-bn254-fast-s128-t1-tls-nodes"
NODES_CONFIG = ("--config", "experiments=[db-sm-rsm]", f"entries={NODES_ENTRIES}", "mixers=2",
                "dbsm_transport=[tls]", "dbsm_placement=nodes", "seed=across-nodes")  # fmt: skip
PLACED = re.compile(r"db-sm-rsm: placed by SLURM \(job (\d+), srun, \d+ CPU\(s\) per party\): (.*)$", re.M)


def placement(stderr: str) -> dict[str, str]:
    """Party -> node, from the driver's line saying where SLURM placed each process (the last
    attempt's, when there are several)."""
    found = PLACED.findall(stderr)
    assert found, stderr[-5000:]
    out = {}
    for group in found[-1][1].split("; "):
        parties, node = group.rsplit(" on ", 1)
        out.update({party: node for party in parties.split(", ")})
    return out


def nodes_run(cluster: Cluster, tmp: Path, timeout: float) -> tuple[Path, subprocess.CompletedProcess]:
    results = tmp / "results"
    args = ("raw", *NODES_CONFIG, f"results={results}", *CLUSTER_ARGS,
            "--slurm-logdir", str(tmp / "slurm-logs"))  # fmt: skip
    return results, cluster.snakemake(*args, cwd=REPO, timeout=timeout)


@pytest.fixture(scope="module")
def across_nodes(cluster: Cluster) -> Iterator[tuple[dict, str]]:
    """The uninterrupted run placed on nodes: its report and the workflow's output."""
    tmp = Path(tempfile.mkdtemp(prefix="slurm-nodes-"))
    try:
        start = time.monotonic()
        results, proc = nodes_run(cluster, tmp, RUN_TIMEOUT)
        print(f"run across nodes through SLURM: {time.monotonic() - start:.0f} s")
        assert proc.returncode == 0, proc.stdout[-20000:]
        run_dir = results / "raw/db-sm-rsm" / NODES_RUN
        report = json.loads((run_dir / "report.json").read_text())
        yield report, proc.stdout + (run_dir / "stderr.log").read_text()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def hosts_of(report: dict) -> dict[str, tuple[str, dict]]:
    """Party -> (SLURM node, machine block), from the report's network block."""
    return {h["party"]: (h["node"], h["machine"]) for h in report["body"]["network"]["hosts"]}


@pytest.mark.slurm
def test_a_run_placed_on_nodes_runs_each_mix_server_on_a_host_of_its_own(
    cluster: Cluster, across_nodes: tuple[dict, str]
) -> None:
    report, out = across_nodes
    assert report["passed"] is True, report["body"]["statuses"]
    statuses = report["body"]["statuses"]
    assert statuses and all(s is True for s in statuses.values()), statuses
    hosts = hosts_of(report)
    assert set(hosts) == {"bulletin board", "driver", "verifier", "mixer 0", "mixer 1"}, hosts
    first = hosts["driver"][0]
    assert hosts["bulletin board"][0] == hosts["verifier"][0] == first, hosts
    mixers = {hosts["mixer 0"][0], hosts["mixer 1"][0]}
    assert len(mixers) == 2 and first not in mixers, hosts
    # Each process read its own host: the node's name (its UTS namespace), its CPU model, its CPUs.
    for party, (node, machine) in hosts.items():
        assert machine["hostname"] == node, (party, node, machine)
        assert machine["cpu_model"] and machine["logical_cpus"] >= 1, machine
    assert placement(out) == {p: n for p, (n, _) in hosts.items()}, out[-5000:]
    # One SLURM job of three nodes ran the whole run.
    measured = [cluster.finished_jobs()[i] for _, i, log in SUBMITTED.findall(out) if "rule_measure" in log]
    assert len(measured) == 1 and measured[0]["NodeCnt"] == "3", measured
    assert measured[0]["JobState"] == "COMPLETED", measured


# A mix-server's step of the mixing, as its journal names it once done.
MIXING = b"main/mixing/"


def wait_for(what: str, ready, alive) -> None:
    """Polls `ready` until it holds; fails if the run ended first or after RUN_TIMEOUT."""
    start = time.monotonic()
    while not ready():
        assert alive(), f"the run ended before {what}"
        assert time.monotonic() - start < RUN_TIMEOUT, f"no {what} after {RUN_TIMEOUT} s"
        time.sleep(0.02)


def text_of(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


@pytest.mark.slurm
def test_a_run_losing_a_mix_servers_node_fails_is_retried_on_other_nodes_and_resumes(
    cluster: Cluster, across_nodes: tuple[dict, str]
) -> None:
    uninterrupted, _ = across_nodes
    tmp = Path(tempfile.mkdtemp(prefix="slurm-lost-"))
    run_dir = tmp / "results/raw/db-sm-rsm" / NODES_RUN
    outcome: dict = {}
    worker = threading.Thread(target=lambda: outcome.update(done=nodes_run(cluster, tmp, RUN_TIMEOUT)))
    killed = None
    try:
        worker.start()
        # Once mixer 1 has journaled a step of its mixing, its node dies: slurmd and every
        # process on it killed at once.
        wait_for("the placement", lambda: PLACED.search(text_of(run_dir / "stderr.log")), worker.is_alive)
        killed = placement(text_of(run_dir / "stderr.log"))["mixer 1"]
        journal = run_dir / "report.checkpoint/journal-mixer-1"
        in_mixing = lambda: journal.exists() and MIXING in journal.read_bytes()  # noqa: E731
        wait_for("mixer 1 in the mixing", in_mixing, worker.is_alive)
        gone = cluster.slurm_local("kill-node", killed)
        assert gone.returncode == 0, gone.stderr
        worker.join(RUN_TIMEOUT + 60)
        assert "done" in outcome, "the run did not end"
        _, proc = outcome["done"]
        out = proc.stdout
        assert proc.returncode == 0, out[-20000:]

        # The first attempt failed, naming the party and its node; the profile submitted it again.
        attempts = [(i, Path(log)) for _, i, log in SUBMITTED.findall(out) if "rule_measure" in log]
        assert len(attempts) >= 2, out[-20000:]
        finished = cluster.finished_jobs()
        assert finished[attempts[0][0]]["JobState"] in ("FAILED", "NODE_FAIL"), finished[attempts[0][0]]
        said = attempts[0][1].read_text(errors="replace")
        assert re.search(rf"FAILED: mixer 1 at .*\(mixer 1 ran on {killed}\)", said), said[-5000:]
        last = finished[attempts[-1][0]]
        assert last["JobState"] == "COMPLETED" and killed not in last["NodeList"], last
        print(f"lost {killed}: attempt 1 {finished[attempts[0][0]]['JobState']} on "
              f"{finished[attempts[0][0]]['NodeList']}, attempt {len(attempts)} on {last['NodeList']}; "
              + next(line for line in said.splitlines() if "FAILED: mixer 1" in line))  # fmt: skip

        # The retry resumed on the nodes left and ended as the uninterrupted run did.
        report = json.loads((run_dir / "report.json").read_text())
        resumed = report["body"]["resumed"]
        assert resumed is not None and resumed["records_read_back"] > 0, resumed
        assert report["passed"] is True, report["body"]["statuses"]
        assert report["body"]["statuses"] == uninterrupted["body"]["statuses"]
        assert report["inputs_sha256"] == uninterrupted["inputs_sha256"]
        assert report["body"]["transcript_sha256"] == uninterrupted["body"]["transcript_sha256"]
        assert killed not in {node for node, _ in hosts_of(report).values()}, hosts_of(report)
        assert not (run_dir / "report.checkpoint").exists()
    finally:
        if killed is not None:
            cluster.slurm_local("revive-node", killed)
        worker.join(RUN_TIMEOUT)
        shutil.rmtree(tmp, ignore_errors=True)
