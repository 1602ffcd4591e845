"""db-sm-rsm's capacity: parallel fractions from paired runs, the estimator's use of them, the
memory fit, and the capacity table (synthetic results; the PDF's table against the command line's
is checked on the smoke report in test_layout.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from analysis import units
from analysis.cli import main
from analysis.derive.costs import fit_costs, load_costs, refit_costs
from analysis.errors import ConfigError
from analysis.experiments import plan
from analysis.experiments.db_sm_rsm import capacity
from analysis.experiments.db_sm_rsm import descriptor as dbsm
from analysis.experiments.db_sm_rsm.parallel import fit_parallel
from analysis.plan import settings
from analysis.plan.estimate import COSTS_PATH, CostModel, human_time, parallel_of, table, too_big
from analysis.tests import synth

# How much faster each section runs at 2 threads than at 1 in the synthetic pairs: T2 = T1 x this.
# Amdahl at 2 threads: f = 2 (1 - T2/T1); 1.2 is slower (noise), clamped to f = 0.
AT_TWO = {"preprocessing": 1.0, "input preparation": 1.2, "checking inputs": 0.6, "mixing": 0.55,
          "forward set membership": 0.75, "reverse set membership": 0.5}  # fmt: skip
WANT_F = {"preprocessing": 0.0, "input preparation": 0.0, "checking inputs": 0.8, "mixing": 0.9,
          "forward set membership": 0.5, "reverse set membership": 1.0}  # fmt: skip


def report_of(root: Path, run_id: str) -> Path:
    return root / "raw" / "db-sm-rsm" / run_id / "report.json"


def edit(path: Path, change: object) -> None:
    d = json.loads(path.read_text())
    change(d)  # type: ignore[operator]
    path.write_text(json.dumps(d))


def pairs(root: Path, paper_dir: Path, n: int = 16, load: float = 1.5) -> Path:
    """Two pairs of runs at 1 and 2 threads; the 2-thread runs' sections sped up by AT_TWO."""
    cfg = synth.config(entries=n, experiments=["db-sm-rsm"], threads=[1, 2], repetitions=2, seed=3)
    synth.make_results(root, paper_dir, cfg)
    for run in plan(cfg)["db-sm-rsm"]:

        def change(d: dict, threads: int = int(run.params["threads"])) -> None:
            d["load"] = {"start": [load], "end": [load + 0.5]}
            for t in d["body"]["timers"]:
                if t["path"] == ["main"] and t["party"] is None and threads == 2:
                    t["seconds"] *= AT_TWO[t["label"]]

        edit(report_of(root, run.id), change)
    return root


def test_parallel_fractions_come_from_the_pairs(tmp_path: Path, paper_dir: Path) -> None:
    root = pairs(tmp_path / "pairs", paper_dir)
    fit = fit_parallel([root])
    assert (fit.pairs, fit.threads, fit.n, fit.m) == (2, 2, 16, 4)
    got = {s.name: s.fraction for s in fit.sections}
    assert got == pytest.approx(WANT_F)
    # The shares are the 1-thread runs' CPU seconds: the paper's sample's proportions.
    mixing = next(s for s in fit.sections if s.name == "mixing")
    assert mixing.cpu_share == pytest.approx(1400 / 16580) and mixing.speedup == pytest.approx(1 / 0.55)
    # Each pair's own figure is kept unclamped: input preparation ran 1.2x slower at 2 threads.
    assert next(s for s in fit.sections if s.name == "input preparation").per_pair == pytest.approx(
        (-0.4, -0.4)
    )
    assert fit.machine == "Test CPU, 2 logical CPUs, 24 GiB" and fit.load == (1.5, 2.0)
    block = fit.block()
    assert block["pairs"] == 2 and block["threads"] == [1, 2] and block["load"] == {"min": 1.5, "max": 2.0}
    assert block["sections"]["mixing"]["fraction"] == 0.9


def test_costs_parallel_writes_the_block_the_estimator_reads(
    tmp_path: Path, paper_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = pairs(tmp_path / "pairs", paper_dir)
    out = tmp_path / "costs.yaml"
    assert main(["costs", "--parallel", str(root), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert (
        "reverse set membership" in printed and "fraction per pair" in printed and f"wrote {out}" in printed
    )
    costs = yaml.safe_load(out.read_text())
    old = load_costs(COSTS_PATH)
    # Only the parallel block is new: the fitted coefficients stay as they were.
    assert costs["experiments"]["db-sm-rsm"]["time"] == old["experiments"]["db-sm-rsm"]["time"]
    assert out.read_text().startswith("# The cost model's reference")
    model = CostModel(costs, float(costs["reference"]["probe_s"]))
    p = model.parallel("db-sm-rsm")
    assert p.measured is not None and "n = 16, m = 4" in p.measured and "Test CPU" in p.measured
    # The wall time at T threads on C cores: sum over sections of CPU share x ((1 - f) + f / min(T, C)).
    run = capacity.model_run(1000, 4, 2)
    e = model.estimate(run, cores=2)
    shares = {s: v["cpu_share"] for s, v in costs["experiments"]["db-sm-rsm"]["parallel"]["sections"].items()}
    want = sum(shares[s] / sum(shares.values()) * ((1 - WANT_F[s]) + WANT_F[s] / 2) for s in shares)
    assert e.wall_s == pytest.approx(e.cpu_s * want, rel=1e-3)
    assert model.estimate(run, cores=1).wall_s == pytest.approx(e.cpu_s)  # one core: no gain
    # Experiments without a measurement keep their one fraction; the printed table says which is which.
    assert parallel_of("cmix", costs["experiments"]["cmix"]).measured is None
    cmix = next(r for r in plan(synth.config(experiments=["cmix"]))["cmix"])
    text = table([e, model.estimate(cmix)], model, 24 * 1024)
    assert "Parallel fractions: db-sm-rsm's per section, measured (2 pair(s)" in text
    assert "assumed, one per experiment (costs.yaml parallel_fraction): cmix" in text


def test_a_cost_model_written_in_place_is_read_back(tmp_path: Path) -> None:
    """`costs --in-place`: each experiment's block into its folder, the reference alone into the
    shared file; the loader puts them together again."""
    from analysis.derive.costs import write_in_place

    costs = load_costs(COSTS_PATH)
    shared = tmp_path / "costs.yaml"
    shared.write_text(COSTS_PATH.read_text())
    written = write_in_place(costs, shared, folders=tmp_path / "experiments")
    assert (tmp_path / "experiments/db-sm-rsm/costs.yaml") in written and shared in written
    assert set(yaml.safe_load(shared.read_text())) == {"reference"}
    for name, block in costs["experiments"].items():
        assert yaml.safe_load((tmp_path / "experiments" / name / "costs.yaml").read_text()) == block


def test_costs_parallel_refuses_what_it_cannot_measure(
    tmp_path: Path, paper_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    single = synth.make_results(
        tmp_path / "single", paper_dir, synth.config(entries=16, experiments=["db-sm-rsm"])
    )
    with pytest.raises(ConfigError, match="no pair of db-sm-rsm runs at 1 and at more threads"):
        fit_parallel([single])
    assert main(["costs", "--parallel", str(single)]) == 2
    assert "no pair" in capsys.readouterr().err
    assert main(["costs", str(single), "--shares-from", str(single)]) == 2
    assert "--shares-from needs --parallel" in capsys.readouterr().err
    assert main(["costs"]) == 2
    # A failed run measures nothing.
    root = pairs(tmp_path / "pairs", paper_dir)
    edit(report_of(root, "n16-m4-bn254-fast-s128-t2"), lambda d: d.update(passed=False))
    with pytest.raises(ConfigError, match="did not pass"):
        fit_parallel([root])


def test_shares_from_the_largest_runs(tmp_path: Path, paper_dir: Path) -> None:
    root = pairs(tmp_path / "pairs", paper_dir)
    cfg = synth.config(entries=100, sweep_entries=[400], experiments=["db-sm-rsm"])
    sweep = synth.make_results(tmp_path / "sweep", paper_dir, cfg)

    def mixing_heavy(d: dict) -> None:
        for t in d["body"]["timers"]:
            if t["path"] == ["main"] and t["party"] is None:
                t["cpu_seconds"] = 9.0 if t["label"] == "mixing" else 0.2

    edit(report_of(sweep, "n400-m4-bn254-fast-s128-t1"), mixing_heavy)
    fit = fit_parallel([root], [sweep])
    assert "n = 400, m = 4" in fit.shares_from
    assert next(s for s in fit.sections if s.name == "mixing").cpu_share == pytest.approx(9 / 10)
    assert {s.name: s.fraction for s in fit.sections} == pytest.approx(WANT_F)  # fractions from the pairs


def test_a_bad_parallel_block_is_named() -> None:
    model = {"parallel": {"sections": {"mixing": {"cpu_share": 1.0, "fraction": 1.5}}}}
    with pytest.raises(ValueError, match=r"'mixing'.*fraction within"):
        parallel_of("db-sm-rsm", model)
    with pytest.raises(ValueError, match="needs the numbers"):
        parallel_of("db-sm-rsm", {"parallel": {"sections": {"mixing": {"fraction": 0.5}}}})
    assert parallel_of("db-sm-rsm", {"parallel_fraction": 0.5}).wall_factor(2) == pytest.approx(0.75)


def test_memory_is_fitted_on_full_table_runs_from_the_reports(tmp_path: Path, paper_dir: Path) -> None:
    """fixed + slope x n x m from the reports' peak RSS, on runs with n >= 1000 only: a small run's
    smaller tables do not bend the fit."""
    cfg = synth.config(entries=1000, sweep_entries=[16, 2000, 5000], experiments=["db-sm-rsm"])
    root = synth.make_results(tmp_path / "r", paper_dir, cfg)
    for run in plan(cfg)["db-sm-rsm"]:
        n, m = int(run.params["n"]), int(run.params["m"])
        rss = 300 + 0.002 * n * m if n >= 1000 else 5000.0

        def change(d: dict, rss: float = rss, n: int = n) -> None:
            d["resources"].update(peak_rss_mib=rss, cpu_s=5 + 0.07 * n)

        edit(report_of(root, run.id), change)
        # Snakemake's sampled peak (and CPU) disagree; the report's own figure wins for memory.
        (root / "raw" / run.dir / "benchmark.tsv").write_text(
            "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
            f"{5 + 0.07 * n}\t0:00:01\t9999\t0\t0\t0\t0\t0\t1\t{5 + 0.07 * n}\n"
        )
    costs = yaml.safe_load(fit_costs([root]))
    db = costs["experiments"]["db-sm-rsm"]
    assert db["memory_mb"]["fixed"] == pytest.approx(300, rel=1e-3)
    assert db["memory_mb"]["n_m"] == pytest.approx(0.002, rel=1e-3)
    assert "on the 3 run(s) the memory model describes" in db["fitted"]
    assert dbsm.memory_modelled(plan(cfg)["db-sm-rsm"][-1])
    # Only small runs: the memory model is kept as it was.
    small = synth.make_results(tmp_path / "s", paper_dir, synth.config(entries=16, experiments=["db-sm-rsm"]))
    kept = yaml.safe_load(refit_costs([small]).text)["experiments"]["db-sm-rsm"]
    assert (
        kept["memory_mb"] == load_costs(COSTS_PATH)["experiments"]["db-sm-rsm"]["memory_mb"]
    )
    assert "kept (no run the memory model describes)" in kept["fitted"]


def slope_costs(tmp_path: Path, slope: float = 0.002, fixed: float = 300.0) -> Path:
    """The suite's costs.yaml with db-sm-rsm's memory model at `slope` MB per entry and mix-server."""
    costs = load_costs(COSTS_PATH)
    costs["experiments"]["db-sm-rsm"]["memory_mb"] = {"fixed": fixed, "n_m": slope}
    costs["experiments"]["db-sm-rsm"].pop("parallel", None)  # the assumed fraction, whatever was measured
    path = tmp_path / "costs.yaml"
    path.write_text(yaml.safe_dump(costs, sort_keys=False))
    return path


def test_a_million_entries_fit_this_machine_at_two_kilobytes_per_entry_and_mixer(tmp_path: Path) -> None:
    cfg = synth.config(entries=1_000_000, experiments=["db-sm-rsm"])
    (run,) = plan(cfg)["db-sm-rsm"]
    model = CostModel(yaml.safe_load(slope_costs(tmp_path).read_text()), 0.123)
    e = model.estimate(run)
    assert e.memory_mb <= 12 * 1000 and not too_big([e], 24 * 1024)
    # The fitted model of the column store (costs.yaml): n = 10^6, m = 4 is not refused on a
    # 24 GiB machine.
    fitted = CostModel.load(probe_s=0.123).estimate(run)
    assert not too_big([fitted], 24 * 1024)
    assert human_time(e.wall_s).endswith(" d")  # days, not thousands of hours


def test_durations_read_in_days() -> None:
    assert human_time(30) == "30 s" and human_time(90) == "1.5 min" and human_time(5 * 3600) == "5.0 h"
    assert human_time(4 * 86400) == "4.0 d" and human_time(47 * 3600) == "47.0 h"
    assert units.duration(4.05 * 86400) == "4.05 d" and units.duration(3 * 3600) == "3.00 h"
    assert (
        units.duration(300) == "5.00 min"
        and units.duration(90) == "90.0 s"
        and units.duration(2.5) == "2.50 s"
    )
    assert units.duration(math.nan) == "-"


def test_capacity_table_from_the_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    costs = slope_costs(tmp_path)
    model = capacity.reference_model(costs)
    frame = capacity.capacity_frame(model, [10**5, 10**6], [4], [1, 16])
    assert list(frame.columns) == ["CPU time", "wall, 1 core", "wall, 16 cores", "peak memory"]
    row = frame.loc["n = 1,000,000, m = 4"]
    assert row["peak memory"] == pytest.approx((300 + 0.002 * 4e6) / 1024)
    assert row["wall, 1 core"] == pytest.approx(row["CPU time"]) and row["wall, 16 cores"] < row["CPU time"]
    assert (
        main(["capacity", "--entries", "100000", "1000000", "--cores", "1", "16", "--costs", str(costs)]) == 0
    )
    out = capsys.readouterr().out
    for cells in capacity.cells(frame, capacity.capacity_formats(frame)):
        assert "  ".join(cells[:1]) in out and all(c in out for c in cells)
    assert "one assumed parallel fraction" in out and "extrapolation" in out
    assert main(["capacity", "--cores", "0"]) == 2
    assert "--cores 0: must be at least 1" in capsys.readouterr().err
    assert main(["capacity", "--costs", str(tmp_path / "none.yaml")]) == 2
    bad = yaml.safe_load(costs.read_text())
    bad["experiments"]["db-sm-rsm"]["parallel"] = {"sections": {"mixing": {"cpu_share": 1, "fraction": 2}}}
    costs.write_text(yaml.safe_dump(bad))
    capsys.readouterr()
    assert main(["capacity", "--costs", str(costs)]) == 2
    assert "fraction within [0, 1]" in capsys.readouterr().err
    assert main(["capacity", "--results", str(tmp_path / "missing")]) == 2


def test_capacity_beside_measured_runs(
    tmp_path: Path, paper_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each run's own CPU, wall and memory beside the model's estimate, and the model's error."""
    cfg = synth.config(entries=1000, sweep_entries=[16], experiments=["db-sm-rsm"])
    root = synth.make_results(tmp_path / "r", paper_dir, cfg)
    model = capacity.reference_model()
    measured = {}
    for run in plan(cfg)["db-sm-rsm"]:
        e = model.estimate(run, cores=1)
        # 10 % above the model's CPU and memory; wall 20 % above.
        measured[run.id] = (1.1 * e.cpu_s, 1.2 * e.wall_s, 1.1 * e.memory_mb)

        def change(d: dict, v: tuple[float, float, float] = measured[run.id]) -> None:
            d["resources"].update(cpu_s=v[0], wall_s=v[1], peak_rss_mib=v[2])

        edit(report_of(root, run.id), change)
    assert main(["capacity", "--results", str(root)]) == 0
    out = capsys.readouterr().out
    assert "n1000-m4-bn254-fast-s128-t1" in out and "n16-m4-bn254-fast-s128-t1" in out
    from analysis.config import for_results
    from analysis.tidy import collect

    checked = capacity.checked_runs(collect(root, None, for_results(root)).df, model, root)
    errors = {e.words.split(" ")[0]: e for e in capacity.errors(checked)}
    assert errors["CPU"].runs == 2 and errors["CPU"].median == pytest.approx(1 - 1 / 1.1)
    assert errors["wall"].worst == pytest.approx(1 - 1 / 1.2)
    # Memory: only the run with full-size tables (n >= 1000) is counted.
    assert errors["peak"].runs == 1
    assert "over 2 run(s)" in out.replace("\n", " ")


def test_entries_beyond_the_program_are_refused_for_it_only() -> None:
    cfg: dict[str, object] = {"entries": 2_000_000, "experiments": ["db-sm-rsm"]}
    with pytest.raises(
        settings.SettingsError, match="db-sm-rsm accepts at most 1,000,000 entries, not 2,000,000"
    ):
        settings.check(cfg)
    other: dict[str, object] = {"entries": 2_000_000, "experiments": ["cpsnark-sm"]}
    settings.check(other)


def test_the_benchmarks_configurations() -> None:
    cfg: dict[str, object] = {"dbsm_parallel_entries": 20, "dbsm_parallel_pairs": 3, "seed": None}
    settings.check(cfg)
    pc = dbsm.parallel_config(cfg)
    settings.check(pc)  # a valid configuration of its own
    runs = dbsm.benchmark_order(plan(pc)["db-sm-rsm"])
    assert [(r.params["threads"], r.rep) for r in runs] == [(1, 1), (2, 1), (1, 2), (2, 2), (1, 3), (2, 3)]
    assert pc["seed"] == dbsm.BENCHMARK_SEED  # a pair's runs share a seed, so do the same work
    sc = dbsm.scale_config(cfg)
    assert [(r.params["n"], r.params["threads"]) for r in dbsm.benchmark_order(plan(sc)["db-sm-rsm"])] == [
        (1000, 2), (10000, 2), (50000, 2)
    ]  # fmt: skip


def test_capacity_across_nodes_from_runs_placed_on_nodes(tmp_path: Path) -> None:
    """A run placed on nodes (its processes' CPU and hosts, as its report lists them) gives the
    overlap of its processes, and the capacity table a column per C for m + 1 nodes of C cores."""
    from analysis.experiments.db_sm_rsm import capacity_nodes

    run = tmp_path / "raw/db-sm-rsm/n16-m2-bn254-fast-s128-t1-tls-nodes"
    run.mkdir(parents=True)
    cpu = {"driver": 4.0, "mixer 0": 5.0, "mixer 1": 5.0, "verifier": 1.0}
    machine = {"cpu_model": "Test CPU", "logical_cpus": 2}
    placed_on = (("driver", 0), ("bulletin board", 0), ("verifier", 0), ("mixer 0", 1), ("mixer 1", 2))
    hosts = [{"party": p, "node": f"node{k}", "machine": dict(machine, hostname=f"node{k}")}
             for p, k in placed_on]  # fmt: skip
    report = {"passed": True, "parameters": {"n": 16, "m": 2, "threads": 1},
              "body": {"network": {"hosts": hosts, "summary": [
                  {"party": p, "cpu_s": c, "wall_s": 10.0} for p, c in cpu.items()]}}}  # fmt: skip
    (run / "report.json").write_text(json.dumps(report))
    model = capacity.reference_model()
    placed = capacity_nodes.placed_runs(tmp_path)
    assert [p.run for p in placed] == [run.name] and placed[0].hosts["mixer 1"] == "node2"
    ov = capacity_nodes.overlap(model, placed, capacity.model_run)
    assert ov is not None and ov.value == pytest.approx(15.0 / 10.0)
    frame = capacity.capacity_frame(model, [10**6], [4], [1, 16], ov)
    row = frame.loc["n = 1,000,000, m = 4"]
    assert row["wall, m nodes of 1 core"] == pytest.approx(row["CPU time"] / 1.5)
    assert row["wall, m nodes of 16 cores"] == pytest.approx(row["wall, 16 cores"] / 1.5)
    words = ov.words()
    assert "3 hosts" in words and "Extrapolated" in words and "lower bound" in words
    # A failed run, or one on one host, adds nothing.
    report["passed"] = False
    (run / "report.json").write_text(json.dumps(report))
    assert capacity_nodes.placed_runs(tmp_path) == []
    assert capacity_nodes.overlap(model, [], capacity.model_run) is None
