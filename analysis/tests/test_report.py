"""The PDF, tables, plots and summary, built from small synthetic results directories."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from pypdf import PdfReader

from analysis.cli import main
from analysis.config import for_results
from analysis.render.report import build_report
from analysis.render.tables import latex, markdown
from analysis.tests import synth
from analysis.tidy import collect


def pdf_text(pdf: Path) -> str:
    """The PDF's text, as a reader would copy it (whitespace collapsed)."""
    reader = PdfReader(str(pdf))
    return re.sub(r"\s+", " ", " ".join(page.extract_text() or "" for page in reader.pages))


def test_report_from_all_experiments(tmp_path: Path, paper_dir: Path) -> None:
    cfg = synth.config(entries=100, sweep_entries=[200], sweep_mixers=[2], collab_factor=1.5)
    synth.make_results(tmp_path, paper_dir, cfg, fail={"n100-m2-bn254-fast-spaper-t1": "status_pk_bl"})
    assert main(["report", str(tmp_path), "--paper-dir", str(paper_dir)]) == 0
    for name in ("claims", "figure10_top", "figure10_dbsm", "figure10_dbrsm", "zksnark_runs", "cpsnark_runs",
                 "sizes", "runs"):  # fmt: skip
        for ext in ("csv", "md", "tex"):
            assert (tmp_path / "tables" / f"{name}.{ext}").stat().st_size > 0
    for name in ("time_vs_n", "time_vs_m", "breakdown"):
        for ext in ("pdf", "png"):
            assert (tmp_path / "plots" / f"{name}.{ext}").stat().st_size > 0
    tidy = pd.read_csv(tmp_path / "tidy.csv")
    assert {"ours", "paper", "seed"} == set(tidy["source"])
    top = pd.read_csv(tmp_path / "tables" / "figure10_top.csv", index_col=0)
    # The configured factor reaches our collab estimate: 1.5 x 100 x 1.501 s (native CPU time).
    ours100 = next(c for c in top.columns if c.startswith("ours m=4 n=100 "))
    assert top.loc["collab-zkSNARK-SM (estimate, n proofs)", ours100] == pytest.approx(1.5 * 100 * 1.501)
    # ... while the paper's column keeps the README's factor 2.
    assert round(top.loc["collab-zkSNARK-SM (estimate, n proofs)", "paper m=4 n=10000"]) == 43560
    tex = (tmp_path / "tables" / "figure10_top.tex").read_text()
    assert "\\toprule" in tex and "\\bottomrule" in tex
    assert not list(tmp_path.rglob("*.tmp*"))  # atomic writes leave no temp files
    text = pdf_text(tmp_path / "report.pdf")
    # The title page: the commit, and the failed run in the box on the first page.
    first = PdfReader(str(tmp_path / "report.pdf")).pages[0].extract_text()
    assert synth.PROVENANCE["commit"] in first
    assert "FAILED: 1 of" in first and "status_pk_bl" in first
    for words in ("How to read this report", "M_k", "HBC", "The 2x rule", "Reproduced"):
        assert words in text
    summary = (tmp_path / "summary.txt").read_text()
    assert "FAILED: 1 of" in summary and str(tmp_path / "report.pdf") in summary


def test_report_with_only_zksnark_results(tmp_path: Path, paper_dir: Path) -> None:
    synth.make_results(tmp_path, paper_dir, synth.config(entries=16, experiments=["zksnark-sm-rsm"]))
    written = build_report(tmp_path, paper_dir, for_results(tmp_path))
    assert tmp_path / "report.pdf" in written
    text = pdf_text(tmp_path / "report.pdf")
    assert "zksnark-sm-rsm: single-prover" in text and "db-sm-rsm: DB-SM" not in text
    first = PdfReader(str(tmp_path / "report.pdf")).pages[0].extract_text()
    assert "All 6 runs verified" in first  # 2 statements x (ZoKrates: 2 provers, optimised: native)


def test_only_the_configured_runs_are_reported(tmp_path: Path, paper_dir: Path) -> None:
    """Two configurations into one results directory: the second's report has only its runs, and
    no ratio compares different workloads."""
    synth.make_results(tmp_path, paper_dir, synth.config(entries=8, mixers=3))
    synth.make_results(tmp_path, paper_dir, synth.config(entries=16))
    assert main(["report", str(tmp_path), "--paper-dir", str(paper_dir)]) == 0
    tidy = pd.read_parquet(tmp_path / "tidy.parquet")
    ours = tidy[(tidy["source"] == "ours") & (tidy["experiment"] != "veccom")]
    assert set(ours["n"].dropna()) == {16}
    assert set(ours[ours["experiment"] == "db-sm-rsm"]["m"].dropna()) == {4}
    assert not ours["run"].str.contains("n8").any()
    text = pdf_text(tmp_path / "report.pdf")
    assert "not in this configuration (left out)" in text and "db-sm-rsm/n8-m3-bn254-fast-spaper-t1" in text
    claims = pd.read_csv(tmp_path / "tables" / "claims.csv")
    assert claims["ours / paper"].isna().all()  # n = 16 is not the paper's workload
    assert claims["verdict"].str.contains("other workload").any()


def test_sixty_repetitions_paginate(tmp_path: Path, paper_dir: Path) -> None:
    """Long tables continue over pages: every run's row is in the PDF."""
    cfg = synth.config(entries=8, repetitions=60, experiments=["db-sm-rsm"])
    synth.make_results(tmp_path, paper_dir, cfg)
    assert main(["report", str(tmp_path), "--paper-dir", str(paper_dir)]) == 0
    text = pdf_text(tmp_path / "report.pdf")
    for k in range(2, 61):
        assert f"n8-m4-bn254-fast-spaper-t1-r{k}" in text
    assert "x60" in text  # medians shown with their spread and count
    assert len(PdfReader(str(tmp_path / "report.pdf")).pages) >= 5


def test_truncated_text_report_is_flagged(tmp_path: Path, paper_dir: Path) -> None:
    synth.make_results(tmp_path, paper_dir, synth.config(entries=16, experiments=["db-sm-rsm"]))
    run = tmp_path / "raw" / "db-sm-rsm" / "n16-m4-bn254-fast-spaper-t1"
    lines = (paper_dir / "report-db-sm-rsm-n10000-m4").read_text().splitlines()
    (run / "report.txt").write_text("\n".join(lines[:40]) + "\n")
    col = collect(tmp_path, paper_dir, for_results(tmp_path))
    bad = [r for r in col.runs if r.source == "ours" and not r.ok]
    assert bad and "report.txt unreadable" in bad[0].problems[0]
    assert main(["verify", str(tmp_path)]) == 0  # the statuses in report.json are all true
    build_report(tmp_path, paper_dir, for_results(tmp_path))
    assert "report.txt unreadable" in (tmp_path / "summary.txt").read_text()


def test_verify(tmp_path: Path, paper_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = synth.config(entries=16)
    synth.make_results(tmp_path, paper_dir, cfg, fail={"sm-poseidon-n16-t1": "FAILED"})
    assert main(["verify", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "zksnark-sm-rsm/sm-poseidon-n16-t1: prover native (zokrates): status FAILED" in err
    synth.make_results(tmp_path, paper_dir, cfg)
    assert main(["verify", str(tmp_path)]) == 0
    # A configured run that never wrote its report is a problem too.
    config = json.loads((tmp_path / "config.json").read_text())
    config["runs"]["cpsnark-sm"].append("n99-t1")
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert main(["verify", str(tmp_path)]) == 1
    assert "cpsnark-sm/n99-t1: no summary.json" in capsys.readouterr().err


def test_markdown_and_latex_writers() -> None:
    md = markdown(["a", "b|c"], [["x_1", "2"]])
    assert md.splitlines()[0] == "| a | b\\|c |" and md.splitlines()[1] == "|---|---:|"
    tex = latex(["row", "n=10"], [["p_BB & 50%", "1"]], "cap_tion")
    assert "p\\_BB \\& 50\\%" in tex and "\\caption{cap\\_tion}" in tex


def test_detail_tables(tmp_path: Path, paper_dir: Path) -> None:
    from analysis.derive.details import cp_table, sizes_table, zk_table

    synth.make_results(tmp_path, paper_dir)
    df = collect(tmp_path, paper_dir, for_results(tmp_path)).df
    zk = zk_table(df)
    assert zk.loc["paper sm n=10000 zokrates-cli", "prove real [s]"] == 2.178
    assert zk.loc["ours sm-poseidon-n100-t1 zokrates native", "prove CPU [s]"] == pytest.approx(1.501)
    assert zk.loc["ours sm-poseidon-n100-t1 zokrates wasm", "prove real [s]"] == pytest.approx(5 * 1.501)
    cp = cp_table(df)
    assert cp.loc["paper report-benarroch-cpsnark-sm-n10000", "witness mean [s]"] == 0.78371
    assert cp.loc["ours n100-t1", "witness, hashed primes, mean [s]"] == pytest.approx(0.012)
    sizes = sizes_table(df)
    # DPK_BB proofs are 31 + 93 m = 403 bytes per entry at m = 4 in the paper's serialisation.
    assert round(sizes.loc["size of DPK_BBsig proofs", "paper m=4 n=10000"], 6) == 403


def test_claims_cli_on_our_results(
    tmp_path: Path, paper_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    synth.make_results(tmp_path, paper_dir)
    assert main(["claims", str(tmp_path), "--paper-dir", str(paper_dir)]) == 0
    out = capsys.readouterr().out
    assert "Main Result 1" in out and "600.8 s" in out  # ours: 2 x 200 x 1.502 s


def test_tidy_cli_and_missing_results_dir(
    tmp_path: Path, paper_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    synth.make_results(tmp_path, paper_dir, synth.config(entries=16, experiments=["cpsnark-sm"]))
    assert main(["tidy", str(tmp_path), "--paper-dir", str(paper_dir)]) == 0
    tidy = pd.read_parquet(tmp_path / "tidy.parquet")
    assert set(tidy["experiment"]) == {"cpsnark-sm"}
    assert main(["report", str(tmp_path / "nope"), "--paper-dir", str(paper_dir)]) == 2
    assert "results directory not found" in capsys.readouterr().err
