"""The PDF, tables, plots and summary, built from small synthetic results directories."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from pypdf import PdfReader

from analysis import studies
from analysis.cli import main
from analysis.config import for_results
from analysis.experiments.zksnark_sm_rsm.synthetic import zk_json
from analysis.render.report import build_report
from analysis.render.tables import latex, markdown
from analysis.tests import synth
from analysis.tidy import collect


def pdf_text(pdf: Path) -> str:
    """The PDF's text, as a reader would copy it (whitespace collapsed)."""
    reader = PdfReader(str(pdf))
    return re.sub(r"\s+", " ", " ".join(page.extract_text() or "" for page in reader.pages))


def report_text(results: Path, paper_dir: Path) -> str:
    """The report of a results directory, built by the command line: its PDF's text."""
    assert main(["report", str(results), "--paper-dir", str(paper_dir)]) == 0
    return pdf_text(results / "report.pdf")


def assert_failure_flagged(
    results: Path,
    paper_dir: Path,
    cfg: dict[str, Any],
    fail: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    says: tuple[str, ...],
    verify_says: str,
) -> None:
    """The results of `cfg` with the runs in `fail` failed: the PDF says each of `says` (in the
    section and on the title page) and verify fails, saying `verify_says`."""
    synth.make_results(results, paper_dir, cfg, fail=fail)
    text = report_text(results, paper_dir)
    for words in says:
        assert words in text, words
    capsys.readouterr()
    assert main(["verify", str(results)]) == 1
    assert verify_says in capsys.readouterr().err


def test_report_from_all_experiments(tmp_path: Path, paper_dir: Path) -> None:
    cfg = synth.config(entries=100, sweep_entries=[200], sweep_mixers=[2], collab_factor=1.5)
    synth.make_results(tmp_path, paper_dir, cfg, fail={"n100-m2-bn254-fast-s128-t1": "status_pk_bl"})
    assert main(["report", str(tmp_path), "--paper-dir", str(paper_dir)]) == 0
    for name in ("claims", "figure10_top", "figure10_dbsm", "figure10_dbrsm", "zksnark_runs", "cpsnark_runs",
                 "sizes", "runs"):  # fmt: skip
        for ext in ("csv", "md", "tex"):
            assert (tmp_path / "tables" / f"{name}.{ext}").stat().st_size > 0
    for name in ("time_vs_n", "time_vs_m", "breakdown"):
        for ext in ("pdf", "png"):
            assert (tmp_path / "plots" / f"{name}.{ext}").stat().st_size > 0
    tidy = pd.read_csv(tmp_path / "tidy.csv")
    assert {"ours", "paper", "reference"} == set(tidy["source"])
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
    # The cpSNARK-Set section says which challenge length our runs used.
    assert "Security setting of our runs: 128-bit Fiat-Shamir challenges" in text
    summary = (tmp_path / "summary.txt").read_text()
    assert "FAILED: 1 of" in summary and str(tmp_path / "report.pdf") in summary
    # Beside the 2x rule, the factor collab-groth16 measured (malicious, m = 4 parties: 1.34), at
    # the claims' n (200, the largest).
    claims = pd.read_csv(tmp_path / "tables" / "claims.csv", index_col=0)
    measured = claims.loc[
        "collab-zkSNARK-SM per prover, n proofs (estimate)", "ours, collaborative factor measured"
    ]
    assert measured == pytest.approx(1.34 * 200 * 1.502)
    assert "Main Results 1 and 2, like with like" in text and "best against best" in text


def test_report_with_only_zksnark_results(tmp_path: Path, paper_dir: Path) -> None:
    synth.make_results(tmp_path, paper_dir, synth.config(entries=16, experiments=["zksnark-sm-rsm"]))
    written = build_report(tmp_path, paper_dir, for_results(tmp_path), studies.all_studies())
    assert tmp_path / "report.pdf" in written
    text = pdf_text(tmp_path / "report.pdf")
    assert "zksnark-sm-rsm: single-prover" in text and "db-sm-rsm: DB-SM" not in text
    first = PdfReader(str(tmp_path / "report.pdf")).pages[0].extract_text()
    # 2 runs (statements), each ZoKrates's circuit by 3 provers and ours by 2
    assert "All 2 runs verified (10 provers' or parts' results)" in first
    # The variant of every figure, the fixes in force, and why SHA-256 stops at n = 16.
    assert "variant" in text and "sound" in text and "as-published" in text
    assert "Z1" in text and "Z2" in text
    assert "only up to n = 16" in text and "4 GiB" in text


def test_snarkjs_beside_the_native_prover_in_the_pdf(tmp_path: Path, paper_dir: Path) -> None:
    """A run with snarkjs (the reference) in it: its column, the same-run ratios, and the
    cross-verification in the PDF."""
    synth.make_results(tmp_path, paper_dir, synth.config(entries=16, experiments=["zksnark-sm-rsm"]))
    run_dir = next((tmp_path / "raw" / "zksnark-sm-rsm").glob("rsm-poseidon-*"))
    zk_json(run_dir, "rsm", 16, 1.5, circuits=("zokrates", "optimized"))
    build_report(tmp_path, paper_dir, for_results(tmp_path), studies.all_studies())
    text = pdf_text(tmp_path / "report.pdf")
    assert "snarkjs, the reference, beside our native prover in the same run" in text
    assert "snarkjs / native" in text and "cross-verified" in text
    refs = pd.read_csv(tmp_path / "tables" / "zksnark_references.csv", index_col=0)
    refs = refs[refs.index.str.startswith(run_dir.name)]
    assert len(refs) == 2  # both circuits of that run
    assert refs["snarkjs / native (proof)"].tolist() == pytest.approx([5.4 / 0.9] * 2)


def test_only_the_configured_runs_are_reported(tmp_path: Path, paper_dir: Path) -> None:
    """Two configurations into one results directory: the second's report has only its runs, and
    no ratio compares different workloads."""
    synth.make_results(tmp_path, paper_dir, synth.config(entries=8, mixers=3))
    synth.make_results(tmp_path, paper_dir, synth.config(entries=16, artifact_entries=16))
    assert main(["report", str(tmp_path), "--paper-dir", str(paper_dir)]) == 0
    tidy = pd.read_parquet(tmp_path / "tidy.parquet")
    # veccom's lengths, cmix's batch sizes and mithril's signer counts have config keys of their own;
    # the paper's fork of cpsnarks-set has its own set size.
    own = ["veccom", "cmix", "mithril", "artifact-cpsnark-sm"]
    ours = tidy[(tidy["source"] == "ours") & ~tidy["experiment"].isin(own)]
    assert set(ours["n"].dropna()) == {16}
    assert set(ours[ours["experiment"] == "db-sm-rsm"]["m"].dropna()) == {4}
    assert not ours["run"].str.contains("n8").any()
    text = pdf_text(tmp_path / "report.pdf")
    assert "not in this configuration (left out)" in text and "db-sm-rsm/n8-m3-bn254-fast-s128-t1" in text
    claims = pd.read_csv(tmp_path / "tables" / "claims.csv")
    assert claims["ours / paper"].isna().all()  # n = 16 is not the paper's workload
    assert claims["verdict"].str.contains("other workload").any()


def test_sixty_repetitions_paginate(tmp_path: Path, paper_dir: Path) -> None:
    """Long tables continue over pages: every run's row is in the PDF."""
    cfg = synth.config(entries=8, repetitions=60, experiments=["db-sm-rsm"])
    synth.make_results(tmp_path, paper_dir, cfg)
    text = report_text(tmp_path, paper_dir)
    for k in range(2, 61):
        assert f"n8-m4-bn254-fast-s128-t1-r{k}" in text
    assert "x60" in text  # medians shown with their spread and count
    assert len(PdfReader(str(tmp_path / "report.pdf")).pages) >= 5


def test_key_source_and_fixes_are_in_the_pdf(tmp_path: Path, paper_dir: Path) -> None:
    """The PDF says where each run's keys came from (test keys named run by run) and lists the
    fixes the runs report."""
    synth.make_results(
        tmp_path, paper_dir, synth.config(entries=16, sweep_mixers=[2], experiments=["db-sm-rsm"])
    )
    run = tmp_path / "raw" / "db-sm-rsm" / "n16-m2-bn254-fast-s128-t1"
    doc = json.loads((run / "report.json").read_text())
    doc["body"]["keys"]["source"] = "test"
    (run / "report.json").write_text(json.dumps(doc))
    assert main(["report", str(tmp_path), "--paper-dir", str(paper_dir)]) == 0
    text = " ".join(pdf_text(tmp_path / "report.pdf").split())
    assert "1 run(s): derived from the public seed (not secret), in the run" in text
    assert "reproducible measurement, not a private run" in text
    assert "Transport: 2 run(s): every party in one process" in text
    assert "1 run(s): the FIXED TEST KEYS (public constants: insecure, for quick runs only): n16-m2-" in text
    assert "B5 n+1 deltas" in text


def test_truncated_text_report_is_flagged(tmp_path: Path, paper_dir: Path) -> None:
    synth.make_results(tmp_path, paper_dir, synth.config(entries=16, experiments=["db-sm-rsm"]))
    run = tmp_path / "raw" / "db-sm-rsm" / "n16-m4-bn254-fast-s128-t1"
    lines = (paper_dir / "report-db-sm-rsm-n10000-m4").read_text().splitlines()
    (run / "report.txt").write_text("\n".join(lines[:40]) + "\n")
    col = collect(tmp_path, paper_dir, for_results(tmp_path))
    bad = [r for r in col.runs if r.source == "ours" and not r.ok]
    assert bad and "report.txt unreadable" in bad[0].problems[0]
    # The statuses in report.json are all true, but the run's paper-format record is broken: the
    # workflow's last step fails, as the report's summary says.
    assert main(["verify", str(tmp_path)]) == 1
    build_report(tmp_path, paper_dir, for_results(tmp_path), studies.all_studies())
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
    assert "cpsnark-sm/n99-t1: no report.json" in capsys.readouterr().err


def test_markdown_and_latex_writers() -> None:
    md = markdown(["a", "b|c"], [["x_1", "2"]])
    assert md.splitlines()[0] == "| a | b\\|c |" and md.splitlines()[1] == "|---|---:|"
    tex = latex(["row", "n=10"], [["p_BB & 50%", "1"]], "cap_tion")
    assert "p\\_BB \\& 50\\%" in tex and "\\caption{cap\\_tion}" in tex


def test_detail_tables(tmp_path: Path, paper_dir: Path) -> None:
    from analysis.experiments.cpsnark_sm.tables import cp_table
    from analysis.experiments.db_sm_rsm.details import sizes_table
    from analysis.experiments.zksnark_sm_rsm.tables import zk_table

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
    payload = "size of DPK_BBsig proofs, payload only (paper's lines)"
    assert round(sizes.loc[payload, "paper m=4 n=10000"], 6) == 403
    # The paper reports no bytes as sent.
    assert pd.isna(sizes.loc["size of DPK_BBsig proofs, as sent", "paper m=4 n=10000"])


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


def test_cmix_section(tmp_path: Path, paper_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """cmix's pages: the targets, ec against mg, every phase per node beside the thesis and the bounds."""
    cfg = synth.config(experiments=["cmix"], cmix_clients=[100, 500], threads=[1])
    synth.make_results(tmp_path, paper_dir, cfg)
    assert main(["report", str(tmp_path), "--paper-dir", str(paper_dir)]) == 0
    tables = tmp_path / "tables"
    for name in ("cmix_target_prepre", "cmix_target_realtime", "cmix_ec_mg_c500_t1", "cmix_phases_c500_t1",
                 "cmix_ec_c500_t1", "cmix_mg-full_c100_t1", "cmix_setup_c500_t1"):  # fmt: skip
        assert (tables / f"{name}.csv").stat().st_size > 0, name
    for name in ("cmix_steps", "cmix_scaling_t1"):
        assert (tmp_path / "plots" / f"{name}.png").stat().st_size > 0
    # Ours beside the thesis: its 3.67 s (ec) and 19.19 s (mg) per node at 500 clients only.
    phases = pd.read_csv(tables / "cmix_phases_c500_t1.csv", index_col=0)
    ref = json.loads((Path(__file__).parents[2] / "cmix/data/sample-report.json").read_text())
    run = next(r for r in ref["body"]["runs"] if r["group"] == "ec" and r["threads"] == 1)
    user = next(s for s in run["steps"] if s["node"] == 0 and s["step"] == "prepre")["user_s"]["mean"]
    row = phases.loc["prepre, node 0 (first)"]
    assert row["ec user [ms]"] == pytest.approx(user * 1e3)
    assert row["thesis ec [ms]"] == 3670 and row["thesis mg [ms]"] == 19190
    assert row["thesis / ours ec"] == pytest.approx(3.67 / user)
    assert phases.loc["realmix, node 1 (middle)"].isna()["thesis ec [ms]"]
    assert "thesis ec [ms]" not in pd.read_csv(tables / "cmix_phases_c100_t1.csv", index_col=0).columns
    compare = pd.read_csv(tables / "cmix_ec_mg_c500_t1.csv", index_col=0)
    assert compare.loc["prepre, thesis (user time; its mg)", "mg / ec"] == pytest.approx(19.19 / 3.67)
    assert 0 < compare.loc["realmix", "mg / ec per byte"] < 1  # mg is cheaper per byte in real time
    detail = pd.read_csv(tables / "cmix_ec_c500_t1.csv", index_col=0)
    step = next(s for s in run["steps"] if s["node"] == 2 and s["step"] == "realpost")
    assert detail.loc["realpost, node 2 (last)", "lower bound [ms]"] == pytest.approx(
        step["lower_bound_s"] * 1e3
    )
    assert detail.loc["realpost, node 2 (last)", "overhead"] == pytest.approx(step["overhead"])
    targets = pd.read_csv(tables / "cmix_target_prepre.csv", index_col=0)
    assert list(targets.index) == ["ec", "mg", "mg-full"] and (targets["below the thesis (least)"] > 10).all()
    text = pdf_text(tmp_path / "report.pdf")
    for words in ("cmix: the cMix mixnet", "The targets (500 clients, one thread)", "Per phase and node: 100 "
                  "clients, one thread", "ec against mg, per phase and per payload byte", "12 GB of RAM",
                  "lower bound = the step's counted group operations",
                  "one malicious last node breaks unlinkability"):  # fmt: skip
        assert words in text, words
    assert main(["verify", str(tmp_path)]) == 0

    # A run that lost a message: flagged in the section and on the title page, and verify fails.
    says = (
        "FAILED: a cmix run did not deliver every message exactly once",
        "mg clients=500 threads=1: FAILED; slot 3: delivered twice",
    )
    verify_says = "cmix/c500-t1: mg clients=500 threads=1: FAILED"
    assert_failure_flagged(tmp_path, paper_dir, cfg, {"c500-t1": "mg"}, capsys, says, verify_says)

    # Without a run at 500 clients and one thread, the targets are not evaluated, and it says so.
    other = tmp_path / "other"
    synth.make_results(other, paper_dir, synth.config(experiments=["cmix"], cmix_clients=[100], threads=[2]))
    text = report_text(other, paper_dir)
    assert (
        "No run at 500 clients and one thread" in text
        and "Per phase and node: 100 clients, 2 threads" in text
    )
    assert not (other / "tables" / "cmix_target_prepre.csv").exists()


def test_cmix_runs_of_two_hosts_are_not_pooled(tmp_path: Path, paper_dir: Path) -> None:
    synth.make_results(tmp_path, paper_dir, synth.config(experiments=["cmix"], repetitions=3))
    p = tmp_path / "raw/cmix/c500-t1-r2/report.json"
    d = json.loads(p.read_text())
    d["machine"]["hostname"] = "node7"
    for r in d["body"]["runs"]:
        for s in r["steps"]:
            s["user_s"]["mean"] *= 2
    p.write_text(json.dumps(d))
    assert main(["report", str(tmp_path), "--paper-dir", str(paper_dir)]) == 0
    tables = tmp_path / "tables"
    other = pd.read_csv(tables / "cmix_phases_c500_t1_node7.csv", index_col=0)
    here = pd.read_csv(tables / "cmix_phases_c500_t1_testhost.csv", index_col=0)
    prepre = "prepre, node 0 (first)"
    assert other.loc[prepre, "ec user [ms]"] == pytest.approx(2 * here.loc[prepre, "ec user [ms]"])
    targets = pd.read_csv(tables / "cmix_target_prepre.csv", index_col=0)
    assert list(targets.index) == [
        f"{g} on {h}" for h in ("node7", "testhost") for g in ("ec", "mg", "mg-full")
    ]


def test_mithril_section(tmp_path: Path, paper_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """mithril's pages: the targets, native rows beside their bounds, the circuit's sizes and proofs
    beside the reference figures (machines stated), the fits drawn and the extrapolations labelled."""
    cfg = synth.config(
        experiments=["mithril"],
        threads=[1, 2],
        mithril_circuit_n=[1, 2, 4, 8],
        mithril_size_n=[1, 2, 4, 8, 16, 32],
    )
    synth.make_results(tmp_path, paper_dir, cfg)
    assert main(["report", str(tmp_path), "--paper-dir", str(paper_dir)]) == 0
    tables = tmp_path / "tables"
    for name in (
        "mithril_targets",
        "mithril_native",
        "mithril_sizes",
        "mithril_proofs",
        "mithril_extrapolated",
        "mithril_stm",
        "mithril_reference",
    ):
        assert (tables / f"{name}.csv").stat().st_size > 0, name
    for name in ("mithril_native", "mithril_circuit"):
        assert (tmp_path / "plots" / f"{name}.png").stat().st_size > 0
    ref = json.loads((Path(__file__).parents[2] / "mithril/data/sample-report.json").read_text())
    parameters = ref["parameters"]
    ref = ref["body"]
    # Ours beside the reference's at the same n: its server's 100.4 s and its M1's fastest 114.7 s at n = 8.
    proofs = pd.read_csv(tables / "mithril_proofs.csv", index_col=0)
    eight = next(p for p in ref["circuit"]["proofs"] if p["n"] == 8)
    assert proofs.loc["n=8", "prove CPU"] == pytest.approx(eight["prove_total"]["cpu_s"])
    assert proofs.loc["n=8", "peak [MiB]"] == pytest.approx(eight["peak_rss_mib"])
    assert proofs.loc["n=8", "reference M1"] == pytest.approx(114.6814)
    assert proofs.loc["n=8", "reference server"] == pytest.approx(100.3936)
    assert proofs.isna().loc["n=1", "reference server"]
    sizes = pd.read_csv(tables / "mithril_sizes.csv", index_col=0)
    design = ref["circuit"]["reference_design"]["cells_per_signature"]
    assert sizes.loc["the reference's design, per signature", "per signature"] == design
    assert sizes.loc["n=2, residue", "per signature"] == pytest.approx(
        sizes.loc["n=2, residue", "advice cells"] - sizes.loc["n=1, residue", "advice cells"]
    )
    assert {"n=1, final-exp", "n=32, residue"} <= set(sizes.index)
    native = pd.read_csv(tables / "mithril_native.csv", index_col=0)
    b64 = next(
        r for r in ref["native"]["rows"] if r["operation"] == "b_total" and r["n"] == 64 and r["threads"] == 1
    )
    assert native.loc["b_total n=64 t=1", "CPU"] == pytest.approx(b64["cpu_s"]["median"])
    assert "batch_verify b=4 t=1" in native.index
    extrapolated = pd.read_csv(tables / "mithril_extrapolated.csv", index_col=0)
    assert list(extrapolated.index) == [f"n={n} (extrapolated)" for n in parameters["extrapolate"]]
    # The targets are compared in the analysis, from the measurements (this run proved n <= 8: no
    # n = 32 target).
    targets = pd.read_csv(tables / "mithril_targets.csv", index_col=0)
    assert len(targets) == 4 and not any("n = 32" in t for t in targets.index)
    stm = pd.read_csv(tables / "mithril_stm.csv", index_col=0)
    assert stm.loc["verify_aggregate n=64 t=1", "ours / mithril-stm"] == pytest.approx(1 / 1.04)
    assert "What the circuit assumes" in pdf_text(tmp_path / "report.pdf")
    text = pdf_text(tmp_path / "report.pdf")
    for words in (
        "mithril: Mithril's multisignature aggregation",
        "48-core Xeon Silver 4214",
        "Apple M1 laptop with 16 GB",
        "It states no thread count",
        "EXTRAPOLATED from the fitted lines",
        "plain aggregation accepts, weighted aggregation rejects",
        "Fitted lines",
    ):
        assert words in text, words
    assert main(["verify", str(tmp_path)]) == 0

    # A proof that failed its verification: flagged in the section and on the title page; verify fails.
    says = ("FAILED: a mithril check, proof or circuit run failed", "proof n=1: verified failed")
    verify_says = "mithril/t1_2: proof n=1: verified failed"
    assert_failure_flagged(tmp_path, paper_dir, cfg, {"t1_2": "proof"}, capsys, says, verify_says)

    # Native only, at one thread without n = 64 and no proof: no target of those, and it says so.
    other = tmp_path / "other"
    synth.make_results(
        other,
        paper_dir,
        synth.config(
            experiments=["mithril"], mithril_native_n=[4], mithril_circuit_n=[], mithril_size_n=[1, 2]
        ),
    )
    assert main(["report", str(other), "--paper-dir", str(paper_dir)]) == 0
    targets = pd.read_csv(other / "tables" / "mithril_targets.csv", index_col=0)
    assert not any("n = 64" in t or "n = 8" in t for t in targets.index)
    assert not (other / "tables" / "mithril_proofs.csv").exists()
