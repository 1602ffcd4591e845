"""The evaluator's path by hand, exactly as README.md prints it: `docker load` of an image
archive, one `docker run` of a program at small n writing its report into a results directory,
and one of the analysis image turning that directory into its PDF.

The README's lines are read from README.md, so the test and the README cannot drift apart. The
test marked `docker` runs them on a copy of a `runner=docker` results directory after
`snakemake images` (scripts/test's docker part passes it in TMBENCH_DOCKER_RESULTS):

    TMBENCH_DOCKER_RESULTS=DIR python3 -m pytest -m docker tests/test_docker.py
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
ARCHIVE = re.compile(r"^docker load -i results/images/(tmbench-[a-z0-9-]+)\.tar$")
IMAGE = re.compile(r"\s(localhost/tmbench-[a-z0-9-]+)\s")


def readme_docker_lines() -> list[str]:
    """Every line of README.md that is a `docker load` or `docker run` command, in order."""
    text = README.read_text(encoding="utf-8")
    return [ln.strip() for ln in text.splitlines() if ln.startswith(("docker load ", "docker run "))]


def test_the_readme_loads_each_image_it_runs_from_the_archives_the_workflow_writes() -> None:
    lines = readme_docker_lines()
    runs = [ln for ln in lines if ln.startswith("docker run ")]
    loads = [ln for ln in lines if ln.startswith("docker load ")]
    assert len(runs) == 2, runs
    loaded = []
    for ln in loads:
        m = ARCHIVE.match(ln)
        assert m, f"README: '{ln}' does not load results/images/tmbench-<name>.tar"
        loaded.append(m.group(1))
    for ln in runs:
        m = IMAGE.search(ln)
        assert m, f"README: '{ln}' names no localhost/tmbench-<name> image"
        name = m.group(1).removeprefix("localhost/")
        # Each run comes after the load of its image's archive.
        assert name in loaded[: loads.index(f"docker load -i results/images/{name}.tar") + 1], ln
    # The archives are where `snakemake images` writes them.
    assert 'f"{RESULTS}/images/tmbench-{{name}}.tar"' in (REPO / "rules/images.smk").read_text(
        encoding="utf-8"
    )


def _copy_results(src: Path, dest: Path) -> None:
    """The results directory without its image archives, which are linked, not copied."""
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns("*.tar", "report.pdf"))
    for tar in (src / "images").glob("*.tar"):
        os.link(tar, dest / "images" / tar.name)


@pytest.mark.docker
def test_the_readme_docker_lines_run_a_program_and_the_analysis(tmp_path: Path) -> None:
    from analysis.parse.common import load_enveloped

    given = os.environ.get("TMBENCH_DOCKER_RESULTS")
    assert given, "TMBENCH_DOCKER_RESULTS names no results directory of a runner=docker run"
    src = Path(given)
    assert (src / "images").is_dir() and list((src / "images").glob("tmbench-*.tar")), (
        f"{src}/images holds no archives; run `snakemake images --config runner=docker` first"
    )
    work = tmp_path / "evaluator"
    _copy_results(src, work / "results")
    lines = readme_docker_lines()
    # The run lines name images by `latest`: untag them, so that only the README's loads can
    # supply them (the commit's tag, which the workflow's jobs use, stays).
    for ln in lines:
        if m := IMAGE.search(ln):
            subprocess.run(["docker", "rmi", f"{m.group(1)}:latest"], capture_output=True, check=False)
    for ln in lines:
        print(f"$ {ln}", flush=True)
        done = subprocess.run(["bash", "-c", ln], cwd=work, capture_output=True, text=True, timeout=900,
                              check=False)  # fmt: skip
        print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
        assert done.returncode == 0, f"README line failed ({done.returncode}): {ln}\n{done.stderr[-2000:]}"

    # The program's run: verified, in the image the README named, at the commit it was built from.
    report = work / "results/raw/db-sm-rsm/by-hand/report.json"
    assert report.is_file(), f"the README's program line wrote no {report}"
    env = load_enveloped(report, "db-sm-rsm")
    assert env.passed, "the README's db-sm-rsm run did not verify"
    runner = env.runner
    assert runner["kind"] == "docker", runner
    assert str(runner["image"]).startswith("localhost/tmbench-db-sm-rsm:"), runner
    assert env.commit not in (None, "", "unknown"), env.commit
    assert report.stat().st_uid == os.getuid(), "the container wrote the report as another user"

    # The analysis line: the PDF of the results directory, naming the docker images its runs
    # ran in.
    from pypdf import PdfReader

    pdf = work / "results/report.pdf"
    assert pdf.is_file(), "the README's analysis line wrote no results/report.pdf"
    text = " ".join(p.extract_text() for p in PdfReader(pdf).pages[:3]).replace("\n", " ")
    assert "docker image localhost/tmbench-" in text
    assert "in docker image localhost/tmbench-analysis:" in text, "the PDF does not name the analysis's image"
