"""The workflow's jobs, command lines, messages and re-run behaviour, with stand-in programs (see
wfhelpers.py), and a dry run of the real repository."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from wfhelpers import REPO, Workflow

from analysis.experiments import run_seed

DRY = ("--dry-run", "--printshellcmds", "--cores", "1")


def shell_commands(output: str) -> list[str]:
    lines = output.splitlines()
    cmds = []
    for i, line in enumerate(lines):
        if line.strip() == "shell:" and i + 1 < len(lines):
            cmds.append(lines[i + 1].strip())
        elif "Shell command: " in line and not line.endswith("None"):
            cmds.append(line.split("Shell command: ", 1)[1])
    return cmds


def test_default_dry_run_has_the_papers_runs_and_builds(workflow_copy: Workflow) -> None:
    proc = workflow_copy.snakemake(*DRY, "all")
    text = "\n".join(shell_commands(proc.stdout + proc.stderr))
    for statement in ("sm", "rsm"):
        out = f"results/raw/zksnark-sm-rsm/{statement}-poseidon-n10000-t1"
        assert (
            f"env ZKSNARK_PTAU_DIR=results/ptau node zksnark-sm-rsm/run.mjs --statement {statement}"
            f" --n 10000 --hash poseidon --threads 1 --out {out}/report.json --variant sound"
            f" --provers wasm,native,snarkjs --circuits zokrates,optimized --keep-build"
            f" > {out}/stdout.log 2> >(tee {out}/stderr.log >&2)"
        ) in text
        # the collaborative prover proves the circuits this run keeps
        build = f"{out}/build"
        assert (
            f"target/release/collab-groth16 run --r1cs {build}/circuit.r1cs --wtns {build}/witness.wtns"
            f" --parties 2,3,4 --variants semi-honest,malicious --threads 1"
            f" --out results/raw/collab-groth16/{statement}-zokrates-n10000-t1/report.json"
        ) in text
        assert f"--r1cs {build}/optimized.r1cs --wtns {build}/optimized.wtns" in text
    db = "results/raw/db-sm-rsm/n10000-m4-bn254-fast-s128-t1"
    assert (
        f"target/release/db-sm-rsm 10000 4 --curve bn254 --mode fast --security 128 --threads 1"
        f" --key-cache results/keys --out {db}/report.json > {db}/report.txt"
    ) in text
    cp = "results/raw/cpsnark-sm/n10000-t1"
    assert (
        f"target/release/cpsnark-bench --n 10000 --samples 100 --threads 1 --out {cp}/report.json"
        f" > {cp}/report.txt"
    ) in text
    assert "python3 -m analysis report results" in text
    assert "python3 -m analysis verify results" in text
    assert "cargo build --release -p db-sm-rsm --bin db-sm-rsm" in text
    assert "cargo build --release -p zksnark-prover --bin zksnark-prover" in text
    assert "cargo build --release -p zksnark-optimized --bin zksnark-optimized" in text
    assert "cargo build --release -p collab-groth16 --bin collab-groth16" in text
    assert "cargo build --release -p veccom --bin veccom-bench" in text
    assert "cargo build --release -p cmix --bin cmix-bench" in text
    assert "cargo build --release -p mithril --bin mithril-bench" in text
    assert "cargo build --release -p cpsnark-sm --bin cpsnark-bench" in text
    assert "npm ci" in text


def test_parameters_multiply_into_runs(workflow_copy: Workflow) -> None:
    proc = workflow_copy.snakemake(*DRY, "raw", "--config", "entries=100", "sweep_entries=[10,1000]",
                                   "sweep_mixers=[2]", "hash=[poseidon,sha256]", "threads=[1,2]",
                                   "repetitions=2", "seed=5", "curve=[bn254,bls12-381]")  # fmt: skip
    text = "\n".join(shell_commands(proc.stdout))
    runs = set(re.findall(r"results/raw/[^/ ]+/[^/ ]+(?=/report)", text))
    zk = {r for r in runs if "zksnark" in r}
    db = {r for r in runs if "/db-sm-rsm/" in r}
    cp = {r for r in runs if "cpsnark" in r}
    assert len(zk) == 2 * 2 * 3 * 2 * 2  # statements, hashes, n, threads, repetitions
    assert len(db) == 4 * 2 * 2 * 2  # (n, m) points (3 n at m=4, m=2 at n=100), curves, ...
    assert len(cp) == 3 * 2 * 2
    assert "results/raw/db-sm-rsm/n100-m2-bls12-381-fast-s128-t2-r2" in db
    # repetition k runs with its own seed (SHA-256 of the seed and k), so repetitions differ yet
    # are reproducible
    seed2 = run_seed({"seed": 5}, 2)
    assert re.search(r"db-sm-rsm 1000 4 --curve bn254 --mode fast --security 128 --threads 1 "
                     r"--key-cache results/keys --out results/raw/db-sm-rsm/n1000-m4-bn254-fast-s128-t1-r2/"
                     rf"report.json --seed {seed2} ", text), text  # fmt: skip
    assert re.search(
        r"--n 10 --hash sha256 --threads 2 --out "
        r"results/raw/zksnark-sm-rsm/rsm-sha256-n10-t2-r2/report.json --variant sound --provers wasm,native"
        rf" --circuits zokrates,optimized --seed {seed2}",
        text,
    ), text
    assert re.search(r"cpsnark-bench --n 100 --samples 100 --threads 1 --out "
                     rf"results/raw/cpsnark-sm/n100-t1-r2/report.json --seed {seed2}", text)  # fmt: skip


def test_cmix_runs_one_job_per_batch_size(workflow_copy: Workflow) -> None:
    proc = workflow_copy.snakemake(*DRY, "raw", "--config", "experiments=[cmix]")
    text = "\n".join(shell_commands(proc.stdout))
    assert "cargo build --release -p cmix --bin cmix-bench" in text
    assert ("target/release/cmix-bench --clients 500 --groups ec,mg,mg-full --threads 1 --reps 5"
            " --out results/raw/cmix/c500-t1/report.json") in text  # fmt: skip
    # Every group and thread count in one job per client count; repetition k with its own seed.
    proc = workflow_copy.snakemake(*DRY, "raw", "--config", "experiments=[cmix]", "cmix_clients=[100,200]",
                                   "cmix_groups=[mg,ec]", "cmix_reps=3", "threads=[2,1]", "repetitions=2",
                                   "seed=5")  # fmt: skip
    text = "\n".join(shell_commands(proc.stdout))
    runs = set(re.findall(r"results/raw/cmix/([^/ ]+)/report\.json", text))
    assert runs == {"c100-t1_2", "c200-t1_2", "c100-t1_2-r2", "c200-t1_2-r2"}
    seed2 = run_seed({"seed": 5}, 2)
    assert ("target/release/cmix-bench --clients 200 --groups mg,ec --threads 1,2 --reps 3"
            f" --out results/raw/cmix/c200-t1_2-r2/report.json --seed {seed2}") in text  # fmt: skip
    assert re.search(r"^measure\s+4$", proc.stdout, re.M), proc.stdout


def test_mithril_runs_one_job_for_every_signer_count(workflow_copy: Workflow) -> None:
    proc = workflow_copy.snakemake(*DRY, "raw", "--config", "experiments=[mithril]")
    text = "\n".join(shell_commands(proc.stdout))
    assert "cargo build --release -p mithril --bin mithril-bench" in text
    assert (
        "target/release/mithril-bench --native-n 4,16,64,256,1024,4096 --threads 1 --circuit-n 1,2"
        " --size-n 1,2,4,8 --prover-threads 1 --out results/raw/mithril/t1/report.json"
    ) in text
    # Every signer count and thread count in one job; the prover on the largest thread count; the
    # proved signer counts counted too; repetition k with its own seed.
    proc = workflow_copy.snakemake(
        *DRY,
        "raw",
        "--config",
        "experiments=[mithril]",
        "threads=[2,1]",
        "mithril_native_n=[64,4]",
        "mithril_circuit_n=[32,1]",
        "mithril_size_n=[2]",
        "repetitions=2",
        "seed=5",
    )
    text = "\n".join(shell_commands(proc.stdout))
    assert set(re.findall(r"results/raw/mithril/([^/ ]+)/report\.json", text)) == {"t1_2", "t1_2-r2"}
    assert (
        f"target/release/mithril-bench --native-n 4,64 --threads 1,2 --circuit-n 1,32 --size-n 1,2,32"
        f" --prover-threads 2 --out results/raw/mithril/t1_2-r2/report.json --seed {run_seed({'seed': 5}, 2)}"
    ) in text
    assert re.search(r"^measure\s+2$", proc.stdout, re.M), proc.stdout
    # No proof at all: the circuit is only counted.
    proc = workflow_copy.snakemake(*DRY, "raw", "--config", "experiments=[mithril]", "mithril_circuit_n=[]")
    assert "--circuit-n none --size-n 1,2,4,8 " in "\n".join(shell_commands(proc.stdout))


def test_estimates_are_printed_before_anything_runs(workflow_copy: Workflow) -> None:
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", "--config", "entries=1000")
    assert not (workflow_copy.root / "results" / "estimates.json").exists()  # a dry run records nothing
    assert re.search(r"^job\s+threads\s+time\s+peak memory$", proc.stderr, re.M), proc.stderr
    assert re.search(r"^db-sm-rsm/n1000-m4-bn254-fast-s128-t1\s+1\s+[0-9.]+ (s|min|h)\s+[0-9,]+ MB$",
                     proc.stderr, re.M)  # fmt: skip
    assert "total (one job at a time)" in proc.stderr and "speed probe" in proc.stderr
    # A job's estimate becomes its resources (what a scheduler reserves).
    assert re.search(r"resources: .*runtime=\d+, mem_mb=\d+", proc.stdout)


def test_a_job_too_big_for_the_memory_is_refused(workflow_copy: Workflow) -> None:
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", "--config", "memory_limit_gib=0.01",
                                   check=False)  # fmt: skip
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "would need more memory than the limit of 0.0 GiB" in out and "'memory_limit_gib'" in out
    assert "Traceback" not in out
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", "--config", "entries=1000000",
                                   "mixers=64", check=False)  # fmt: skip
    assert proc.returncode != 0 and "lower 'entries'" in proc.stdout + proc.stderr


def test_bad_configuration_values_are_one_line_each(workflow_copy: Workflow) -> None:
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", "--config", "entries=1",
                                   "hash=[md5]", "seed=null", check=False)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out
    assert "config key 'entries': 1 is less than the minimum of 2" in out
    assert "config key 'hash[0]': 'md5' is not allowed; allowed values: poseidon, sha256" in out
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", *workflow_copy.configfile(n=100),
                                   check=False)  # fmt: skip
    assert "unknown config key 'n': the paper's n is the key 'entries'" in proc.stdout + proc.stderr


def test_seed_null_means_no_seed(workflow_copy: Workflow) -> None:
    proc = workflow_copy.snakemake(*DRY, "raw", "--config", "seed=null", "entries=16")
    assert "--seed" not in proc.stdout
    proc = workflow_copy.snakemake(*DRY, "raw", "--config", "seed=3", "entries=16")
    assert f"--seed {run_seed({'seed': 3}, 1)}" in proc.stdout


def test_run_then_rerun_does_nothing_and_a_lost_result_is_redone(workflow_copy: Workflow) -> None:
    args = ("--cores", "1", "all", "--config", "entries=8", "sweep_entries=[16]", "cpsnark_samples=10")
    proc = workflow_copy.snakemake(*args)
    results = workflow_copy.root / "results"
    assert (results / "report.pdf").exists() and (results / "verified.txt").exists()
    summary = json.loads((results / "raw/cpsnark-sm/n16-t1/report.json").read_text())
    assert summary["n"] == 16
    config = json.loads((results / "config.json").read_text())
    assert config["config"]["entries"] == 8 and config["config"]["collab_factor"] == 2.0
    assert "db-sm-rsm" in config["runs"] and "n16-m4-bn254-fast-s128-t1" in config["runs"]["db-sm-rsm"]
    assert "commit" in config["provenance"]
    log = results / "raw/db-sm-rsm/n16-m4-bn254-fast-s128-t1/stderr.log"
    # Progress reaches the terminal and the log; the summary and the PDF's path close the run.
    assert "progress" in log.read_text() and "progress" in proc.stderr
    assert "Report: results/report.pdf" in proc.stderr.split("==== summary ====")[-1]
    assert (results / "raw/db-sm-rsm/n16-m4-bn254-fast-s128-t1/benchmark.tsv").exists()
    # Each run's estimate as printed before it ran, for `python -m analysis estimates`.
    planned = json.loads((results / "estimates.json").read_text())["runs"]
    assert set(planned) >= {"db-sm-rsm/n16-m4-bn254-fast-s128-t1", "cpsnark-sm/n16-t1"}
    assert all(r["estimated_one_thread_s"] > 0 and r["probe_s"] > 0 for r in planned.values())

    again = workflow_copy.snakemake("--dry-run", *args)
    assert "Nothing to be done" in again.stdout, again.stdout

    # Another set size: the estimate table lists the runs that will be measured, not those reused
    # (the one-run experiments do not depend on the set size).
    more = workflow_copy.snakemake("--cores", "1", "all", "--config", "entries=12", "sweep_entries=[16]",
                                   "cpsnark_samples=10")  # fmt: skip
    table = more.stderr.split("total (one job at a time)")[0]
    assert "db-sm-rsm/n12-m4-bn254-fast-s128-t1" in table
    assert "mithril/t1" not in table and "db-sm-rsm/n16-m4" not in table, table
    assert re.search(r"\(\d+ more run\(s\) of this configuration reused", more.stderr), more.stderr

    # An interrupted run (one result, the PDF and the check not yet written) resumes: what is
    # missing is redone, and only that.
    (results / "raw/db-sm-rsm/n16-m4-bn254-fast-s128-t1/report.json").unlink()
    (results / "report.pdf").unlink()
    (results / "verified.txt").unlink()
    resumed = workflow_copy.snakemake("--dry-run", *args)
    assert re.search(r"measure\s+1\b", resumed.stdout), resumed.stdout
    assert "db-sm-rsm/n16-m4-bn254-fast-s128-t1/report.json" in resumed.stdout
    assert re.search(r"analysis_report\s+1\b", resumed.stdout), resumed.stdout


def test_failed_verification_fails_the_run_after_the_pdf(workflow_copy: Workflow) -> None:
    workflow_copy.env["FAKE_ZK_STATUS"] = "FAILED"
    workflow_copy.env["FAKE_VERIFY_PROBLEM"] = "zksnark-sm-rsm/sm-poseidon-n8-t1: prover wasm: status FAILED"
    proc = workflow_copy.snakemake("--cores", "1", "all", "--config", "entries=8",
                                   "experiments=[zksnark-sm-rsm]", check=False)  # fmt: skip
    results = workflow_copy.root / "results"
    report = results / "raw/zksnark-sm-rsm/sm-poseidon-n8-t1/report.json"
    assert json.loads(report.read_text())["provers"]["wasm"]["status"] == "FAILED"  # kept
    assert (results / "report.pdf").exists()  # the PDF is written ...
    assert proc.returncode != 0  # ... and the run fails, naming the rule and the problem
    assert "verify" in proc.stderr and "status FAILED" in proc.stderr
    assert "Report:" in proc.stderr  # the summary is printed on failure too


def test_a_failed_job_is_named_with_its_log(workflow_copy: Workflow) -> None:
    """A program that dies without a report fails the run; the summary names the job and its log."""
    workflow_copy.env["FAKE_DB_CRASH"] = "1"
    proc = workflow_copy.snakemake("--cores", "1", "all", "--config", "entries=8",
                                   "experiments=[db-sm-rsm]", check=False)  # fmt: skip
    assert proc.returncode != 0
    tail = proc.stderr.split("==== failed jobs ====")[-1]
    assert "==== failed jobs ====" in proc.stderr, proc.stderr
    log = "results/raw/db-sm-rsm/n8-m4-bn254-fast-s128-t1/stderr.log"
    assert "measure" in tail and log in tail, tail
    assert "db-sm-rsm exited with status 3" in proc.stderr


def test_missing_program_is_named(workflow_copy: Workflow, tmp_path: Path) -> None:
    # A machine's basic tools and nothing of the suite's toolchains (Snakemake's executor plugins
    # call some of these tools, e.g. `which`, when Snakemake starts).
    basic = tmp_path / "basic-tools"
    basic.mkdir()
    for name in (
        "bash",
        "sh",
        "which",
        "env",
        "cat",
        "ls",
        "mkdir",
        "rm",
        "cp",
        "mv",
        "ln",
        "touch",
        "uname",
        "id",
        "grep",
        "sed",
        "awk",
        "dirname",
        "basename",
        "git",
    ):
        if found := shutil.which(name):
            (basic / name).symlink_to(found)
    assert not {"cargo", "node", "npm"} & {p.name for p in basic.iterdir()}
    workflow_copy.env = dict(workflow_copy.env, PATH=str(basic))
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", check=False)
    assert proc.returncode != 0
    assert "required program(s) not found on PATH: cargo" in proc.stdout + proc.stderr


def test_a_container_engine_that_cannot_run_is_one_line(workflow_copy: Workflow, tmp_path: Path) -> None:
    """runner=docker where docker's engine does not answer, or where docker is not installed:
    one line naming the engine and what failed, before any job, and a non-zero exit."""
    fake = workflow_copy.root / "fakebin" / "docker"
    fake.write_text("#!/bin/sh\n"
                    "echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock.' >&2\n"
                    "exit 1\n")  # fmt: skip
    fake.chmod(0o755)
    args = ("--dry-run", "--cores", "1", "all", "--config", "runner=docker", "experiments=[veccom]")
    proc = workflow_copy.snakemake(*args, check=False)
    assert proc.returncode != 0
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    assert lines == ["error: runner=docker: the docker engine cannot run here (docker info: Cannot connect "
                     "to the Docker daemon at unix:///var/run/docker.sock.)"], lines  # fmt: skip
    # Not installed at all: only the suite's stand-ins and a shell's basic tools on the PATH.
    fake.unlink()
    basic = tmp_path / "basic"
    basic.mkdir()
    for name in ("bash", "sh", "env", "cat", "uname", "which", "git", "mkdir", "rm", "touch"):
        if found := shutil.which(name):
            (basic / name).symlink_to(found)
    workflow_copy.env = dict(workflow_copy.env, PATH=f"{workflow_copy.root / 'fakebin'}:{basic}")
    proc = workflow_copy.snakemake(*args, check=False)
    out = (proc.stdout + proc.stderr).strip()
    assert proc.returncode != 0
    assert out == ("error: runner=docker: 'docker' is not installed (not on PATH); scripts/install "
                   "--containers installs podman and docker, or choose runner=native"), out  # fmt: skip


def test_a_real_docker_without_its_engine_is_one_line(workflow_copy: Workflow, tmp_path: Path) -> None:
    """The docker client itself, pointed at a socket no engine listens on (a daemon stopped or
    never started): one line naming the engine and docker's own reason, before any job."""
    if shutil.which("docker") is None:
        pytest.skip("docker is not installed (scripts/install --containers installs it)")
    sock = tmp_path / "no-engine.sock"
    workflow_copy.env = dict(workflow_copy.env, DOCKER_HOST=f"unix://{sock}")
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", "--config", "runner=docker",
                                   "experiments=[veccom]", check=False)  # fmt: skip
    assert proc.returncode != 0
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    prefix = "error: runner=docker: the docker engine cannot run here (docker info: "
    assert lines[0].startswith(prefix), lines
    assert str(sock) in lines[0], lines


def test_scripts_are_executable() -> None:
    import os

    for name in ("scripts/install", "scripts/test", ".ci/run"):
        assert os.access(REPO / name, os.X_OK), f"{name} is not executable"


def test_dry_run_of_this_repository(tmp_path: Path) -> None:
    """The real repository (not a copy with stand-ins) has every file the default run needs."""
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--dry-run", "--cores", "1", "all", "--config",
         f"results={tmp_path / 'results'}"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for rule in ("measure", "analysis_report", "run_config", "verify"):
        assert re.search(rf"^{rule}\s+\d+", proc.stdout, re.M), proc.stdout


def test_lint_is_clean() -> None:
    """`snakemake --lint` has no finding: every rule has a docstring, a log, resources and its
    software (envs/suite.yaml, used under `--software-deployment-method conda`)."""
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--lint"], cwd=REPO, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Lints for" not in proc.stdout + proc.stderr


def test_conda_environment_installs_the_pinned_python_packages() -> None:
    """The conda route installs the same pinned Python packages as scripts/install, and the
    toolchains the build rules call."""
    env = yaml.safe_load((REPO / "envs" / "suite.yaml").read_text())
    deps = env["dependencies"]
    names = {str(d).split("=")[0].split(">")[0] for d in deps if isinstance(d, str)}
    assert {"python", "rust", "nodejs", "gmp", "c-compiler"} <= names
    pip = next(d["pip"] for d in deps if isinstance(d, dict))
    assert pip == ["-r ../requirements.txt"]
    assert (REPO / "envs" / "../requirements.txt").resolve().is_file()


def test_cargo_target_dir_elsewhere_is_refused(workflow_copy: Workflow) -> None:
    workflow_copy.env["CARGO_TARGET_DIR"] = "/somewhere/else"
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", check=False)
    assert proc.returncode != 0
    assert "CARGO_TARGET_DIR is set (/somewhere/else)" in proc.stdout + proc.stderr


@pytest.mark.parametrize("bad", ["n: [1\n", "- a list\n"])
def test_settings_file_errors_name_the_file(tmp_path: Path, bad: str) -> None:
    from analysis.plan.settings import SettingsError, load_file

    f = tmp_path / "my.yaml"
    f.write_text(bad)
    with pytest.raises(SettingsError, match=re.escape(str(f))):
        load_file(f)
    with pytest.raises(SettingsError, match="config file not found"):
        load_file(tmp_path / "missing.yaml")


def test_a_million_entries_are_estimated_not_refused_at_two_kilobytes_per_entry_and_mixer(
    workflow_copy: Workflow,
) -> None:
    """With db-sm-rsm's memory model at 300 MB + 2 KB per entry and mix-server, n = 10^6 at m = 4
    fits a 24 GiB machine: the estimate is printed (in days), nothing is refused."""
    costs_file = workflow_copy.root / "experiments/db-sm-rsm/costs.yaml"
    costs = yaml.safe_load(costs_file.read_text())
    costs["memory_mb"] = {"fixed": 300.0, "n_m": 0.002}
    costs_file.write_text(yaml.safe_dump(costs, sort_keys=False))
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", "--config", "entries=1000000",
                                   "experiments=[db-sm-rsm]", "memory_limit_gib=24")  # fmt: skip
    row = re.search(r"^db-sm-rsm/n1000000-m4-bn254-fast-s128-t1\s+1\s+([0-9.,]+ d)\s+([0-9,]+) MB$",
                    proc.stderr, re.M)  # fmt: skip
    assert row, proc.stderr
    assert int(row.group(2).replace(",", "")) <= 12_000
    assert "would need more memory" not in proc.stdout + proc.stderr
    assert "Parallel fractions: " in proc.stderr
    # Beyond what the program accepts: one line, before anything runs.
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", "--config", "entries=2000000",
                                   "experiments=[db-sm-rsm]", check=False)  # fmt: skip
    assert proc.returncode != 0 and "db-sm-rsm accepts at most 1,000,000 entries" in proc.stdout + proc.stderr
    # A malformed measured parallel block in costs.yaml: one line naming it.
    costs["parallel"] = {"sections": {"mixing": {"cpu_share": 1, "fraction": 2}}}
    costs_file.write_text(yaml.safe_dump(costs, sort_keys=False))
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", "--config", "experiments=[db-sm-rsm]",
                                   check=False)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "parallel section 'mixing'" in out and "Traceback" not in out


def test_the_capacity_benchmarks_alternate_their_pairs_and_sweep_n(workflow_copy: Workflow) -> None:
    """dbsm_parallel: pairs at 1 and 2 threads made one after another (1, 2, 1, 2), each run with
    its keys in its own directory; dbsm_scale: one 2-thread run per n of dbsm_scale_entries, then the
    refit into costs.yaml and the capacity table."""
    proc = workflow_copy.snakemake(*DRY, "dbsm_scale", "--config", "dbsm_scale_entries=[20,40]",
                                   "dbsm_parallel_entries=8")  # fmt: skip
    text = "\n".join(shell_commands(proc.stdout))
    perf = "results/perf/db-sm-rsm"
    for n in (20, 40):
        run = f"{perf}/scale-m4-t2/raw/db-sm-rsm/n{n}-m4-bn254-fast-s128-t2"
        assert (f"target/release/db-sm-rsm {n} 4 --curve bn254 --mode fast --security 128 --threads 2"
                f" --key-cache {run}/keys --out {run}/report.json --seed ") in text  # fmt: skip
    assert (f"python3 -m analysis costs {perf}/scale-m4-t2 --parallel {perf}/parallel-n8-m4"
            f" --shares-from {perf}/scale-m4-t2 --in-place") in text  # fmt: skip
    assert f"python3 -m analysis capacity --results {perf}/scale-m4-t2" in text
    assert re.search(r"^dbsm_bench_run\s+6$", proc.stdout, re.M), proc.stdout
    assert "n50000" not in text
    # A pair's two runs share a seed (the same work); the pairs' seeds differ.
    proc = workflow_copy.snakemake(*DRY, "dbsm_parallel", "--config", "dbsm_parallel_entries=8")
    seeds = dict(re.findall(r"raw/db-sm-rsm/(n8\S+)/report\.json --seed (\w+)", proc.stdout))
    assert len(seeds) == 4 and len(set(seeds.values())) == 2
    assert seeds["n8-m4-bn254-fast-s128-t1"] == seeds["n8-m4-bn254-fast-s128-t2"]
    # The pairs, for real with the stand-in program: made in the alternating order.
    proc = workflow_copy.snakemake("--cores", "1", "dbsm_parallel", "--config", "dbsm_parallel_entries=8")
    made = re.findall(r"wildcards: bench=parallel-n8-m4, run=(\S+)", proc.stdout + proc.stderr)
    assert made == ["n8-m4-bn254-fast-s128-t1", "n8-m4-bn254-fast-s128-t2",
                    "n8-m4-bn254-fast-s128-t1-r2", "n8-m4-bn254-fast-s128-t2-r2"], made  # fmt: skip
    bench = workflow_copy.root / perf / "parallel-n8-m4"
    cfg = json.loads((bench / "config.json").read_text())
    assert cfg["runs"] == {"db-sm-rsm": made} and cfg["config"]["threads"] == [1, 2]
    assert set(json.loads((bench / "estimates.json").read_text())["runs"]) == {f"db-sm-rsm/{r}" for r in made}
    assert (workflow_copy.root / perf / "parallel-n8-m4.txt").exists()
