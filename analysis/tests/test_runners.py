"""One configuration run in two places (natively, in containers, on a cluster): the planner's
one run per experiment, and the comparison of verdicts run by run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from analysis import experiments
from analysis.cli import main
from analysis.derive.runners import compare, comparison_text
from analysis.tests import synth


def test_runners_comparison_finds_a_differing_verdict_and_reads_each_programs_cpu(
    paper_dir: Path, tmp_path: Path
) -> None:
    """Natively and in containers: the same verdicts pass; one run failing on one side differs;
    the CPU ratio comes from the programs' envelopes."""
    import json

    cfg = synth.config(entries=16, mixers=2, experiments=["db-sm-rsm", "cmix"])
    native = synth.make_results(tmp_path / "native", paper_dir, cfg)
    same = synth.make_results(tmp_path / "same", paper_dir, cfg)
    rows = {r.experiment: r for r in compare(native, same)}
    assert set(rows) == {"db-sm-rsm", "cmix"} and all(r.same_verdicts for r in rows.values())
    assert main(["runners", str(native), str(same)]) == 0
    # cmix's synthetic report is enveloped: its CPU is read (1.0x between two copies of it).
    assert rows["cmix"].overhead == pytest.approx(1.0)
    (run,) = [d.name for d in (native / "raw" / "db-sm-rsm").iterdir()]
    report = json.loads((native / "raw" / "db-sm-rsm" / run / "report.json").read_text())
    status = next(iter(report["body"]["statuses"]))
    broken = synth.make_results(tmp_path / "broken", paper_dir, cfg, fail={run: status})
    rows = {r.experiment: r for r in compare(native, broken)}
    assert not rows["db-sm-rsm"].same_verdicts and rows["cmix"].same_verdicts
    assert "DIFFER" in comparison_text(list(rows.values()))
    assert main(["runners", str(native), str(broken)]) == 1


def test_a_container_run_of_one_run_per_experiment_is_held_against_the_same_native_runs(
    paper_dir: Path, tmp_path: Path
) -> None:
    """`runs: first` in the container directory: its runs are compared with the same runs of the
    whole native configuration, the native runs it did not repeat are left out, and a run of its
    own configuration missing on the native side is a difference."""
    cfg = synth.config(entries=16, mixers=2, sweep_entries=[32], experiments=["db-sm-rsm", "cmix"])
    native = synth.make_results(tmp_path / "native", paper_dir, cfg)
    first = synth.make_results(tmp_path / "first", paper_dir, {**cfg, "runs": "first"})
    assert len(list((native / "raw" / "db-sm-rsm").iterdir())) == 2
    rows = {r.experiment: r for r in compare(native, first)}
    assert rows["db-sm-rsm"].runs == 1 and all(r.same_verdicts for r in rows.values())
    assert main(["runners", str(native), str(first)]) == 0
    (kept,) = list((first / "raw" / "db-sm-rsm").iterdir())
    shutil.rmtree(native / "raw" / "db-sm-rsm" / kept.name)
    assert main(["runners", str(native), str(first)]) == 1


def test_one_run_per_experiment_keeps_the_runs_a_kept_run_reads() -> None:
    """Every experiment keeps one run; an experiment whose runs another reads keeps the one its
    reader's kept run reads, so every kept run has its inputs."""
    cfg = synth.config(entries=16, mixers=2, sweep_entries=[32])
    whole = experiments.plan(cfg)
    first = experiments.plan({**cfg, "runs": "first"})
    assert set(first) == set(whole)
    for name, runs in first.items():
        assert len(runs) == 1 and runs[0].id in {r.id for r in whole[name]}, (name, runs)
        for path in experiments.get(name).reads(runs[0]).values():
            source, run_id = path.split("/")[:2]
            assert [r.id for r in first[source]] == [run_id], (name, path)
