"""The workflow's jobs and command lines (dry runs), its docker runner, and its re-run behaviour
(a run with stand-in programs, see conftest.py)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from wfhelpers import REPO, Workflow

DRY = ("--dry-run", "--printshellcmds", "--cores", "1")


def shell_commands(output: str) -> list[str]:
    return [line.split("Shell command: ", 1)[1] for line in output.splitlines()
            if "Shell command: " in line and not line.endswith("None")]


def test_default_dry_run_has_the_papers_runs_and_builds(workflow_copy: Workflow) -> None:
    cmds = shell_commands(workflow_copy.snakemake(*DRY, "all").stdout)
    text = "\n".join(cmds)
    for statement in ("sm", "rsm"):
        out = f"results/raw/zksnark-sm-rsm/{statement}-poseidon-n10000-t1"
        assert (f"node zksnark-sm-rsm/run.mjs --statement {statement} --n 10000 --hash poseidon"
                f" --threads 1 --out {out} --provers wasm,native 2> {out}/stderr.log") in text
    db = "results/raw/db-sm-rsm/n10000-m4-bn254-fast-t1"
    assert (f"target/release/db-sm-rsm 10000 4 --curve bn254 --mode fast --threads 1"
            f" --json {db}/report.json > {db}/report.txt 2> {db}/stderr.log") in text
    cp = "results/raw/cpsnark-sm/n10000-t1"
    assert (f"env CPSNARK_N=10000 CPSNARK_SAMPLES=100 CPSNARK_JSON=../{cp}/summary.json"
            f" RAYON_NUM_THREADS=1 cargo bench -p cpsnark-sm --bench membership_hash"
            f" > {cp}/report.txt") in text
    assert ("python -m analysis report results --config results/config.json"
            " > results/analysis.log 2>&1") in text
    assert "cargo build --release -p db-sm-rsm --bin db-sm-rsm && test -x target/release/db-sm-rsm"\
        " && touch target/release/db-sm-rsm" in text
    assert "cargo build --release -p zksnark-prover --bin zksnark-prover" in text
    assert "cargo bench --no-run -p cpsnark-sm --bench membership_hash" in text
    assert "npm ci" in text
    assert "docker" not in text


def test_parameters_multiply_into_runs(workflow_copy: Workflow) -> None:
    proc = workflow_copy.snakemake(*DRY, "raw", *workflow_copy.configfile(n=100),
                                   "--config", "sweep_n=[10,1000]",
                                   "sweep_m=[2]", "hash=[poseidon,sha256]", "threads=[1,2]",
                                   "repetitions=2", "seed=5", "curve=[bn254,bls12-381]")
    text = "\n".join(shell_commands(proc.stdout))
    runs = set(re.findall(r"results/raw/[^/ ]+/[^/ ]+(?=/report)", text))
    zk = {r for r in runs if "zksnark" in r}
    db = {r for r in runs if "/db-sm-rsm/" in r}
    cp = {r for r in runs if "cpsnark" in r}
    assert len(zk) == 2 * 2 * 3 * 2 * 2  # statements, hashes, n, threads, repetitions
    assert len(db) == 4 * 2 * 2 * 2  # (n, m) points (3 n at m=4, m=2 at n=100), curves, ...
    assert len(cp) == 3 * 2 * 2
    assert "results/raw/db-sm-rsm/n100-m2-bls12-381-fast-t2-r2" in db
    # repetition k runs with seed + k - 1, so repetitions differ yet are reproducible
    assert re.search(r"db-sm-rsm 1000 4 --curve bn254 --mode fast --threads 1 --seed 6 "
                     r"--json results/raw/db-sm-rsm/n1000-m4-bn254-fast-t1-r2/", text)
    assert re.search(r"--n 10 --hash sha256 --threads 2 --out "
                     r"results/raw/zksnark-sm-rsm/rsm-sha256-n10-t2-r2 --seed 6 ", text)
    assert re.search(r"CPSNARK_JSON=\.\./results/raw/cpsnark-sm/n100-t1-r2/summary.json "
                     r"CPSNARK_SEED=6 RAYON_NUM_THREADS=1 ", text)


def test_docker_runner_prefixes_the_same_command_lines(workflow_copy: Workflow) -> None:
    native = shell_commands(workflow_copy.snakemake(*DRY, "all").stdout)
    docker = shell_commands(workflow_copy.snakemake(*DRY, "all", "--config",
                                                    "runner=docker").stdout)
    builds = [c for c in docker if c.startswith("docker build")]
    assert sorted(builds) == sorted(
        f"docker build -f experiments/docker/{i}.Dockerfile -t tmbench/{i}:local ."
        for i in ("zksnark-sm-rsm", "db-sm-rsm", "cpsnark-sm", "analysis"))
    runs = [c for c in docker if c.startswith("docker run")]
    prefix = re.compile(r'docker run --rm -v "\$PWD/results":/work/results'
                        r'( -v "\$PWD/../shared":/shared:ro)? tmbench/([a-z0-9-]+):local ')
    stripped = set()
    for cmd in runs:
        match = prefix.match(cmd)
        assert match, cmd
        stripped.add(cmd[match.end():])
    # every experiment and the analysis run in their image, with the native command line
    native_runs = {c for c in native if not c.startswith(("cargo build", "cargo bench --no-run",
                                                          "cd zksnark-sm-rsm"))}
    assert stripped == native_runs
    assert not any(c.startswith(("cargo build", "cd zksnark-sm-rsm")) for c in docker)


def test_docker_runner_with_absolute_results_dir(workflow_copy: Workflow, tmp_path: Path) -> None:
    res = tmp_path / "elsewhere"
    proc = workflow_copy.snakemake(*DRY, "raw", "--config", "runner=docker", f"results={res}",
                                   "experiments=[cpsnark-sm]")
    assert f'docker run --rm -v "{res}":{res} tmbench/cpsnark-sm:local env CPSNARK_N=10000' \
        f" CPSNARK_SAMPLES=100 CPSNARK_JSON={res}/raw/cpsnark-sm/n10000-t1/summary.json" \
        in proc.stdout


def dockerfile_copy_sources(path: Path) -> list[str]:
    """Source paths of every COPY (not COPY --from, which copies between build stages)."""
    sources = []
    text = path.read_text().replace("\\\n", " ")
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].upper() != "COPY":
            continue
        args = [w for w in words[1:] if not w.startswith("--")]
        if any(w.startswith("--from") for w in words[1:]):
            continue
        sources += args[:-1]
    return sources


def test_every_dockerfile_copy_source_exists() -> None:
    dockerfiles = sorted((REPO / "experiments/docker").glob("*.Dockerfile"))
    names = {p.name.removesuffix(".Dockerfile") for p in dockerfiles}
    assert names == {"db-sm-rsm", "zksnark-sm-rsm", "cpsnark-sm", "analysis"}
    for dockerfile in dockerfiles:
        sources = dockerfile_copy_sources(dockerfile)
        assert sources, dockerfile
        for source in sources:
            part = source.split("/")[0]
            if part in ("analysis", "zksnark-sm-rsm") and not (REPO / part).exists():
                pytest.skip(f"{part}/ has not landed yet")
            assert (REPO / source).exists(), f"{dockerfile.name}: COPY source {source} missing"


def test_dockerfiles_pin_their_toolchains() -> None:
    froms = []
    for dockerfile in (REPO / "experiments/docker").glob("*.Dockerfile"):
        froms += re.findall(r"^FROM (\S+)", dockerfile.read_text(), re.M)
    assert all(":" in image and not image.endswith(":latest") for image in froms), froms
    assert {"rust:1.95.0-bookworm", "node:20.20.2-bookworm-slim",
            "python:3.11.7-slim-bookworm"} <= set(froms)


def test_run_then_rerun_does_nothing_and_a_lost_result_is_redone(
    workflow_copy: Workflow,
) -> None:
    args = ("--cores", "1", "all", *workflow_copy.configfile(n=8),
            "--config", "sweep_n=[16]", "cpsnark_samples=10")
    workflow_copy.snakemake(*args)
    results = workflow_copy.root / "results"
    assert (results / "report.pdf").exists()
    summary = json.loads((results / "raw/cpsnark-sm/n16-t1/summary.json").read_text())
    assert summary["n"] == 16  # the benchmark found its JSON path from inside its crate
    config = json.loads((results / "config.json").read_text())
    assert config["n"] == 8 and config["collab_factor"] == 2.0
    assert (results / "raw/zksnark-sm-rsm/rsm-poseidon-n16-t1/stderr.log").exists()

    again = workflow_copy.snakemake("--dry-run", *args)
    assert "Nothing to be done" in again.stdout, again.stdout

    # An interrupted run (one result and the PDF not yet written) resumes: what is missing is
    # redone, and only that.
    (results / "raw/db-sm-rsm/n16-m4-bn254-fast-t1/report.json").unlink()
    (results / "report.pdf").unlink()
    resumed = workflow_copy.snakemake("--dry-run", *args)
    assert re.search(r"dbsmrsm_run\s+1\b", resumed.stdout), resumed.stdout
    assert re.search(r"analysis_report\s+1\b", resumed.stdout), resumed.stdout
    assert "zksnark_run" not in resumed.stdout and "cpsnark_run" not in resumed.stdout


def test_failed_verification_keeps_reports_for_the_pdf(workflow_copy: Workflow) -> None:
    workflow_copy.env["FAKE_ZK_STATUS"] = "FAILED"
    workflow_copy.snakemake("--cores", "1", "raw", *workflow_copy.configfile(n=8),
                            "--config", "experiments=[zksnark-sm-rsm]")
    report = workflow_copy.root / "results/raw/zksnark-sm-rsm/sm-poseidon-n8-t1/report.json"
    assert json.loads(report.read_text())["provers"]["wasm"]["status"] == "FAILED"


def test_check_results_flags_failed_proofs(workflow_copy: Workflow) -> None:
    import subprocess
    import sys

    workflow_copy.env["FAKE_ZK_STATUS"] = "FAILED"
    workflow_copy.snakemake("--cores", "1", "raw", *workflow_copy.configfile(n=8),
                            "--config", "experiments=[zksnark-sm-rsm,db-sm-rsm]")
    proc = subprocess.run([sys.executable, str(REPO / "scripts/check_results.py"),
                           str(workflow_copy.root / "results")], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "prover wasm: status 'FAILED'" in proc.stderr


def test_missing_program_is_named(workflow_copy: Workflow, tmp_path: Path) -> None:
    # A machine's basic tools and nothing of the suite's toolchains (Snakemake's executor plugins
    # call some of these tools, e.g. `which`, when Snakemake starts).
    basic = tmp_path / "basic-tools"
    basic.mkdir()
    for name in ("bash", "sh", "which", "env", "cat", "ls", "mkdir", "rm", "cp", "mv", "ln",
                 "touch", "uname", "id", "grep", "sed", "awk", "dirname", "basename"):
        if found := shutil.which(name):
            (basic / name).symlink_to(found)
    assert not {"cargo", "node", "npm"} & {p.name for p in basic.iterdir()}
    workflow_copy.env = dict(workflow_copy.env, PATH=str(basic))
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", check=False)
    assert proc.returncode != 0
    assert "required program(s) not found on PATH: cargo" in proc.stdout + proc.stderr


def test_scripts_are_executable() -> None:
    import os

    for name in ("scripts/install", "scripts/test", ".ci/run", "scripts/check_results.py"):
        assert os.access(REPO / name, os.X_OK), f"{name} is not executable"


def test_dry_run_of_this_repository(tmp_path: Path) -> None:
    """The real repository (not a copy with stand-ins) has every file the default run needs."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--dry-run", "--cores", "1", "all", "--config",
         f"results={tmp_path / 'results'}"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for rule in ("zksnark_run", "dbsmrsm_run", "cpsnark_run", "analysis_report", "run_config"):
        assert re.search(rf"^{rule}\s+\d+", proc.stdout, re.M), proc.stdout


def test_cargo_target_dir_elsewhere_is_refused(workflow_copy: Workflow) -> None:
    workflow_copy.env["CARGO_TARGET_DIR"] = "/somewhere/else"
    proc = workflow_copy.snakemake("--dry-run", "--cores", "1", "all", check=False)
    assert proc.returncode != 0
    assert "CARGO_TARGET_DIR is set (/somewhere/else)" in proc.stdout + proc.stderr
