"""The paper's own code in the suite: its pinned sources checked, its parts built from them (once
per digest, into the cache every workflow run shares), and its three programs run and parsed.

The builds and runs need the pinned source archives: a directory named by
$TMBENCH_UPSTREAM_SOURCES (the CI passes one), else those tests are skipped, saying so. They are
marked `artifact` (`python3 -m pytest -m artifact`, the test command's artifact part, beside the
smoke run); the others run with the analysis tests. They
build with the same command as the workflow's rule (`python3 -m analysis.plan.upstream_build
build PART`) into the same cache ($TMBENCH_UPSTREAM_CACHE, else ~/.cache/tmbench/upstream), so a
part built here is not built again by a workflow run, and the other way round.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from wfhelpers import REPO, Workflow

from analysis.experiments.artifact_circuits import parser as circuits_parser
from analysis.experiments.artifact_cpsnark_sm import parser as cpsnark_parser
from analysis.experiments.artifact_db_sm_rsm import driver as db_driver
from analysis.experiments.artifact_db_sm_rsm import parser as db_parser
from analysis.experiments.artifact_db_sm_rsm import synthetic as db_synthetic
from analysis.plan import upstream
from analysis.runs import Run
from analysis.studies.traceable_mixnets.pairs import FIGURES

SOURCES_ENV = "TMBENCH_UPSTREAM_SOURCES"
PAPER = REPO / "analysis" / "data" / "paper"


def sources() -> Path:
    """The directory of the pinned archives, or a skip saying how to give it."""
    where = os.environ.get(SOURCES_ENV)
    if not where:
        pytest.skip(f"set {SOURCES_ENV} to a directory of the pinned archives (upstream/sources.yaml)")
    return Path(where)


def build(part: str) -> Path:
    """A part's build directory, built from the archives if the cache does not hold it yet."""
    proc = subprocess.run(
        [sys.executable, "-m", "analysis.plan.upstream_build", "build", part, "--sources", str(sources())],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    stamp = Path(proc.stdout.strip().splitlines()[-1])
    assert json.loads(stamp.read_text())["part"] == part
    return stamp.parent


def tree(name: str) -> Path:
    return upstream.tree_dir(upstream.cache_root(), upstream.pins().trees[name])


def test_the_pins_name_every_tree_and_our_patches_exist() -> None:
    p = upstream.pins()
    assert {"traceable-mixnets", "pbc", "charm"} <= set(p.trees)
    for part in p.parts.values():
        assert all(t in p.trees for t in part.trees)
        for f in part.recipe_files():
            assert f.is_file(), f
    for patch in (REPO / "upstream" / "patches").glob("*.patch"):
        assert patch.read_text().startswith("Reason:"), f"{patch.name} says no reason first"
    # The key changes with a recipe file: a patch edited is a new build.
    python = p.part("python")
    assert len(upstream.part_key(python)) == 64


@pytest.mark.artifact
def test_the_archives_are_the_pinned_ones() -> None:
    found = upstream.archive_problems(sources(), list(upstream.pins().trees.values()))
    assert found == []


@pytest.mark.artifact
def test_a_changed_archive_stops_the_workflow_in_one_line(workflow_copy: Workflow, tmp_path: Path) -> None:
    """`snakemake -n` with upstream_sources at a copy whose PBC archive has one byte changed:
    one line naming the key and both digests, and no job."""
    bad = tmp_path / "archives"
    shutil.copytree(sources(), bad)
    pbc = upstream.pins().trees["pbc"]
    f = bad / pbc.archive
    f.chmod(0o644)
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 0x01
    f.write_bytes(bytes(data))
    proc = workflow_copy.snakemake(
        "-n", "--cores", "1", "all", "--config", f"upstream_sources={bad}", check=False
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    lines = [line for line in out.splitlines() if pbc.sha256 in line]
    assert len(lines) == 1, out
    assert "config key 'upstream_sources'" in lines[0] and upstream.sha256_file(f) in lines[0]
    assert "Job stats" not in out and "rule measure" not in out


def test_without_sources_the_artifact_is_left_out_in_one_line(workflow_copy: Workflow) -> None:
    """No upstream_sources, an empty cache and no network: everything else is planned, and one
    line says how to add the paper's own code."""
    proc = workflow_copy.snakemake("-n", "--cores", "1", "all", "--config", "entries=16", "mixers=2")
    out = proc.stdout + proc.stderr
    left = [line for line in out.splitlines() if "left out" in line and "upstream_sources" in line]
    assert len(left) == 1, out
    for name in ("artifact-db-sm-rsm", "artifact-cpsnark-sm", "artifact-circuits"):
        assert name in left[0]
    assert "wildcards: experiment=db-sm-rsm" in out and "experiment=artifact" not in out
    assert "rule upstream_build" not in out
    # Nor are their images built for a container runner (the repository's own workflow, dry).
    argv = ["snakemake", "-n", "--nolock", "--cores", "1", "images", "--config", "runner=docker",
            f"results={workflow_copy.root / 'results-images'}"]  # fmt: skip
    proc = subprocess.run(argv, cwd=REPO, env=workflow_copy.env, capture_output=True, text=True, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "name=db-sm-rsm" in out and "name=artifact" not in out, out[-5000:]


@pytest.mark.artifact
def test_the_papers_db_sm_rsm_runs_and_every_status_is_true(tmp_path: Path) -> None:
    """db_sm_rsm.py at n = 10, m = 2 (precomputing off, as the artifact's own smoke test): its
    report parsed by the parser of the published one, each of its statuses True."""
    out = tmp_path / "run" / "report.json"
    argv = [
        "--build",
        str(build("python")),
        "--tree",
        str(tree("traceable-mixnets")),
        "--n",
        "10",
        "--m",
        "2",
        "--precomputing",
        "off",
        "--out",
        str(out),
    ]
    assert db_driver.main(argv) == 0
    parsed = db_parser.load_run(out.parent, "n10-m2-preoff", {})
    statuses = [r for r in parsed.rows if r["metric"] == "status"]
    assert len(statuses) == len(db_driver.expected_statuses()) == 18
    assert all(r["value"] == 1.0 for r in statuses) and parsed.runs[0].ok
    assert db_parser.problems(out.parent) == []
    assert any(r["metric"] == "cpu" and r["label"] == "mixer 0 total" for r in parsed.rows)
    # Its own report, one status turned False: the run fails, naming it.
    text = out.parent / "report.txt"
    text.write_text(text.read_text().replace("status_dpk_bbsig: True", "status_dpk_bbsig: False"))
    passed, _, why = db_driver.verdict(text, 0)
    assert not passed and why == ["status_dpk_bbsig is False"]


def test_a_report_with_one_status_false_fails_its_run(tmp_path: Path) -> None:
    run = Run("artifact-db-sm-rsm", "n16-m2", {"n": 16, "m": 2, "precomputing": "on", "clock": "cpu"})
    db_synthetic.write(tmp_path / "ok", run, PAPER, None)
    db_synthetic.write(tmp_path / "bad", run, PAPER, "status_pk_z1")
    assert db_parser.problems(tmp_path / "ok") == []
    assert db_parser.problems(tmp_path / "bad") == ["status_pk_z1 is False"]
    parsed = db_parser.load_run(tmp_path / "bad", run.id, dict(run.params))
    assert not parsed.runs[0].ok and parsed.runs[0].failed == ["status_pk_z1"]
    # The driver's own verdict says the same of the report's text.
    passed, _, why = db_driver.verdict(tmp_path / "bad" / "report.txt", 0)
    assert not passed and why == ["status_pk_z1 is False"]


@pytest.mark.artifact
def test_the_forks_bench_runs_at_a_small_sample_size(tmp_path: Path) -> None:
    from analysis.experiments.artifact_cpsnark_sm import driver

    out = tmp_path / "run" / "report.json"
    assert driver.main(["--build", str(build("cpsnarks-set")), "--samples", "10", "--out", str(out)]) == 0
    parsed = cpsnark_parser.load_run(out.parent, "t1", {"threads": 1})
    means = {r["section"]: r["value"] for r in parsed.rows if r["metric"] == "mean"}
    assert set(means) == set(driver.GROUPS) and all(v > 0 for v in means.values())
    assert parsed.runs[0].ok and cpsnark_parser.problems(out.parent) == []


@pytest.mark.artifact
@pytest.mark.parametrize("statement", ["sm", "rsm"])
def test_the_papers_generators_at_16_give_our_circuit(statement: str, tmp_path: Path) -> None:
    """sm.py / rsm.py at n = 16, compiled, proven and verified with zokrates-js: the same
    constraint count and public inputs as our ZoKrates program of the paper's statement."""
    if not (REPO / "zksnark-sm-rsm" / "node_modules" / "zokrates-js").is_dir():
        pytest.skip("zksnark-sm-rsm's Node packages are not installed (scripts/install: npm ci)")
    python = build("python") / "venv" / "bin" / "python"
    out = tmp_path / "run" / "report.json"
    proc = subprocess.run(
        [
            "node",
            "experiments/artifact-circuits/run.mjs",
            "--python",
            str(python),
            "--tree",
            str(tree("traceable-mixnets")),
            "--statement",
            statement,
            "--n",
            "16",
            "--out",
            str(out),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    body = json.loads(out.read_text())["body"]
    assert body["status"] == "PASSED" and body["tampered_inputs_refused"] is True
    assert body["comparison"]["same_constraints"], body["comparison"]
    assert body["comparison"]["same_public_inputs"], (body["public_inputs"], body["ours"])
    # Our program takes the parameters first; the artifact's, last: the difference is shown.
    assert body["comparison"]["same_public_order"] is False
    parsed = circuits_parser.load_run(out.parent, f"{statement}-poseidon-n16", {})
    assert parsed.runs[0].ok
    constraints = {r["label"]: r["value"] for r in parsed.rows if r["metric"] == "constraints"}
    assert constraints["constraints"] == constraints["ours as-published"] < constraints["ours sound"]


def _render(root: Path, left_out: dict[str, str] | None = None, **cfg: object) -> tuple[str, str]:
    """A synthetic results directory of the configuration, its report rendered; page 1's text."""
    from pypdf import PdfReader

    from analysis.cli import main
    from analysis.tests import synth

    synth.make_results(root, PAPER, synth.config(**cfg))
    if left_out is not None:
        data = json.loads((root / "config.json").read_text())
        data["left_out"] = left_out
        data["runs"].update(dict.fromkeys(left_out, []))
        (root / "config.json").write_text(json.dumps(data))
    assert main(["report", str(root), "--paper-dir", str(PAPER)]) == 0
    pages = [p.extract_text() for p in PdfReader(str(root / "report.pdf")).pages]
    return "\n".join(pages[:1]), "\n".join(pages)


def test_the_reproduction_section_is_rendered(tmp_path: Path) -> None:
    """Synthetic reports of the paper's code and ours, two pairs: page 1 says the paper's code ran
    and what it found; the section after it has published, rerun and ours for each part, and the
    same-run ratios over the pairs."""
    first, text = _render(tmp_path, entries=16, mixers=4, artifact_entries=16, repetitions=2)
    assert "The paper's own code ran here" in first and "every status True" in first
    assert "Reproduction: the paper's own code rerun here" in text
    claims = pd.read_csv(tmp_path / "tables" / "reproduction_db_claims.csv", index_col=0)
    assert list(claims.index) == [f[0] for f in FIGURES]
    assert claims["rerun here [s]"].notna().all() and claims.filter(like="expected").notna().all().all()
    ratios = pd.read_csv(tmp_path / "tables" / "reproduction_db_pairs.csv", index_col=0)
    assert (ratios["artifact / ours, paper mode"] > 0).all()
    cp = pd.read_csv(tmp_path / "tables" / "reproduction_cpsnark.csv", index_col=0)
    assert cp["published [s]"].notna().all() and cp["rerun here [s]"].notna().all()
    zk = pd.read_csv(tmp_path / "tables" / "reproduction_circuits.csv", index_col=0)
    assert len(zk) == 2 and (zk["rerun constraints"] == zk["ours (as published)"]).all()


def test_the_report_says_how_to_add_the_papers_code_when_left_out(tmp_path: Path) -> None:
    why = "git cannot reach github.com ...; add it with --config upstream_sources=DIR"
    left = dict.fromkeys(("artifact-db-sm-rsm", "artifact-cpsnark-sm", "artifact-circuits"), why)
    first, text = _render(tmp_path, left_out=left, entries=16, mixers=2)
    assert "did not run here" in first and "upstream_sources=DIR" in first
    # Its section (listed on page one) says the same, and holds no table.
    assert "Reproduction: the paper's own code rerun here" in text
    assert "The paper's Figure 10 rows" not in text
