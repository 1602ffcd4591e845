"""A new comparison is its folder `studies/<name>/` and nothing else. The analysis and the
folders are copied to a temporary directory, a small study is added there
(tests/fixtures/new-study: one cpSNARK-Set proof, the paper's beside ours, on a page of its own),
exactly as the README's "Adding a comparison" says, and the report of synthetic cpSNARK-Set
results is rendered: the study's page is in the PDF and listed on page one, its table is written
beside it, and what it says is in the experiment's verdict, while the paper's study still draws
its claims. Removing the folder leaves the report as it was."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from pypdf import PdfReader

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "new-study"
NAME = "one-proof"
# What the analysis reads: the package, the folders, the configuration's schema and defaults.
COPIED = ("analysis", "experiments", "studies", "config", "config.yaml", "measure/schema")
# Synthetic results of one experiment (the tests' own writer), then the report.
RENDER = """
import sys
from pathlib import Path
from analysis.cli import DEFAULT_PAPER_DIR, main
from analysis.tests import synth
out = Path(sys.argv[1])
synth.make_results(out, DEFAULT_PAPER_DIR, synth.config(entries=16, experiments=["cpsnark-sm"]))
sys.exit(main(["report", str(out)]))
"""


def render(root: Path, out: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run([sys.executable, "-c", RENDER, str(out)], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    text = "\n".join(p.extract_text() or "" for p in PdfReader(str(out / "report.pdf")).pages)
    return text.replace(str(out), "RESULTS")


def test_a_new_study_is_its_folder(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for name in COPIED:
        src, dest = REPO / name, root / name
        if src.is_dir():
            shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", ".*"))
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
    before = render(root, tmp_path / "before")
    shutil.copytree(FIXTURE / "studies" / NAME, root / "studies" / NAME)

    text = render(root, tmp_path / "with")
    first = PdfReader(str(tmp_path / "with" / "report.pdf")).pages[0].extract_text() or ""
    assert "One membership proof" in first  # listed among the sections
    assert "One membership proof, the paper's beside ours" in text  # its page
    assert "sets its 2 runs side by side" in text  # in cpsnark-sm's verdict: the paper's and ours
    assert (tmp_path / "with" / "tables" / "one_proof.csv").is_file()
    assert "The paper's claims beside ours" in first  # the paper's study is drawn as before

    shutil.rmtree(root / "studies" / NAME)
    after = render(root, tmp_path / "after")
    assert "One membership proof" not in after and "One membership proof" not in before
    strip = [line for line in after.splitlines() if not line.startswith("Generated ")]
    assert strip == [line for line in before.splitlines() if not line.startswith("Generated ")]
