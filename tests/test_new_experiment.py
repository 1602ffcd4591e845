"""A new experiment in three places: its program, its folder `experiments/<name>/`, and nothing
else. The repository is copied to a temporary directory, a small real experiment is added there
(tests/fixtures/new-experiment: a crate that builds a SHA-256 Merkle tree and verifies a path for
every leaf, and its folder), exactly as the README's "Adding an experiment" says, and the smoke
workflow runs it alone: it is in the estimate table, runs, verifies, enters the tidy table and
gets its section of the PDF, and no shared file of the repository changed. Removing the two
folders again leaves no trace."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "new-experiment"
NAME = "merkle-paths"
ADDED = (NAME, f"experiments/{NAME}")  # the program's crate and the experiment's folder


def run(
    cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 1200
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


def copy_repository(dest: Path, env: dict[str, str]) -> None:
    """The repository's files as git sees them (tracked and new, not ignored) in a repository of
    their own, with one commit; the build directory shared with this one, so that the
    dependencies are not compiled again."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    for name in filter(None, listed.split("\0")):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    (dest / "target").symlink_to(REPO / "target", target_is_directory=True)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@localhost"]
    run([*git, "init", "-q"], dest, env)
    (dest / ".git" / "info" / "exclude").write_text("target\n")
    run([*git, "add", "-A"], dest, env)
    run([*git, "commit", "-qm", "the repository"], dest, env)


def changed(root: Path, env: dict[str, str]) -> list[str]:
    """What `git status` lists: files changed, added or removed since the copy's commit."""
    out = run(["git", "status", "--porcelain", "--untracked-files=normal"], root, env).stdout
    return sorted(line[3:].rstrip("/") for line in out.splitlines())


def test_a_new_experiment_is_its_program_and_its_folder(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("CARGO_TARGET_DIR", "PYTHONPATH")}
    env["PYTHONPATH"] = str(root)
    copy_repository(root, env)
    for added in ADDED:
        shutil.copytree(FIXTURE / added, root / added)
    binary = REPO / "target" / "release" / f"{NAME}-bench"
    binary.unlink(missing_ok=True)  # built by the workflow, from the copy's crate

    snakemake = [sys.executable, "-m", "snakemake", "--cores", "2"]
    smoke = ["--configfile", "config/smoke.yaml", "--config", f"experiments=[{NAME}]"]
    proc = run([*snakemake, "all", *smoke], root, env)
    out = proc.stdout + proc.stderr
    run_id = "n16"
    assert f"{NAME}/{run_id}" in out, out[-3000:]  # in the estimate table

    results = root / "results-smoke"
    report = json.loads((results / "raw" / NAME / run_id / "report.json").read_text())
    assert report["passed"] and report["body"]["paths_verified"] == 64 and report["body"]["tamper_rejected"]
    run([sys.executable, "-m", "analysis", "verify", str(results)], root, env)
    with (results / "tidy.csv").open(newline="") as f:
        mine = [r for r in csv.DictReader(f) if r["experiment"] == NAME]
    assert {r["section"] for r in mine} >= {"build", "verify"} and all(r["run_ok"] == "True" for r in mine)
    assert (results / "tables" / "merkle_paths.csv").is_file() and (results / "report.pdf").stat().st_size > 0

    # Nothing else changed (the lock file gains the new crate where cargo built it).
    assert set(changed(root, env)) - {"Cargo.lock"} == set(ADDED)
    for added in ADDED:
        shutil.rmtree(root / added)
    run(["cargo", "metadata", "--format-version", "1", "--offline", "--quiet"], root, env)
    assert changed(root, env) == [], "removing the experiment's two folders left a trace"
    # (a results directory of its own: Snakemake's records of the runs above name it)
    after = ["--configfile", "config/smoke.yaml", "--config", "results=after"]
    proc = run([*snakemake, "--dry-run", "all", *after], root, env)
    text = proc.stdout + proc.stderr
    assert NAME not in text, [line for line in text.splitlines() if NAME in line]
    binary.unlink(missing_ok=True)
