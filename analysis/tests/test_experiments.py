"""One experiment, one place: the shared machinery reads each experiment from its descriptor
(analysis/experiments/) and names none of them."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from analysis import experiments
from analysis.plan import settings
from analysis.runs import Run

REPO = Path(__file__).resolve().parents[2]

# The shared machinery: the workflow, the planner, the estimator, the configuration schema, the
# registry, the renderer (its document, plots, tables, report and the sections' shared API), the
# tidy table, the verifier, the containers.
SHARED = [
    "Snakefile",
    "rules/*.smk",
    "analysis/plan/*.py",
    "analysis/registry.py",
    "analysis/render/*.py",
    "analysis/render/sections/__init__.py",
    "analysis/render/sections/common.py",
    "analysis/tidy.py",
    "analysis/verify.py",
    "config/schema.yaml",
    "containers/**/*",
]


def shared_files() -> list[Path]:
    return sorted({p for pattern in SHARED for p in REPO.glob(pattern) if p.is_file()})


def test_the_shared_machinery_names_no_experiment() -> None:
    names = experiments.names()
    assert len(names) >= 7
    found = []
    for f in shared_files():
        text = f.read_text(encoding="utf-8")
        for name in names:
            for no, line in enumerate(text.splitlines(), start=1):
                if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", line):
                    found.append(f"{f.relative_to(REPO)}:{no}: {name}")
    assert not found, "an experiment is named outside its descriptor:\n" + "\n".join(found)


def test_every_registry_is_read_from_the_descriptors() -> None:
    from analysis.registry import PARSERS

    names = list(experiments.names())
    schema = settings.load_schema()
    assert schema["properties"]["experiments"]["items"]["enum"] == names
    assert schema["properties"]["experiments"]["default"] == names
    assert list(PARSERS) == names
    for e in experiments.all_experiments():
        parser = e.parser_module
        assert e.name == parser.EXPERIMENT
        for fn in ("load_run", "load_reference", "problems"):
            assert callable(getattr(parser, fn)), f"{e.parser} lacks {fn}"
        section = importlib.import_module(e.section)
        assert callable(section.overview) and callable(section.section), f"{e.section} lacks its pages"
        assert e.scheme.experiment == e.name
        # Every key an experiment brings is described and has a default.
        for key, prop in e.config.items():
            assert "description" in prop and "default" in prop, f"{e.name}: {key}"


def test_every_descriptor_plans_names_and_commands_its_runs() -> None:
    cfg: dict[str, object] = {"seed": 7}
    settings.check(cfg)
    planned = experiments.plan(cfg)
    assert list(planned) == list(experiments.names())
    for name, runs in planned.items():
        e = experiments.get(name)
        assert runs, name
        for run in runs:
            assert isinstance(run, Run)
            assert e.scheme.parse(run.id) is not None, run.id
            assert experiments.parse_run_id(name, run.id) == {**run.params, "rep": run.rep}
            job = experiments.Job(out=f"r/raw/{run.dir}/report.json", dir=f"r/raw/{run.dir}",
                                  seed=experiments.run_seed(cfg, run.rep), results="r",
                                  inputs={k: f"r/raw/{v}" for k, v in e.reads(run).items()})  # fmt: skip
            argv = e.command(run, job)
            assert all(isinstance(a, str) for a in argv)
            if e.seeded:
                assert job.seed is not None and job.seed in argv, f"{name}: no seed reaches the program"
            else:
                assert job.seed not in argv, f"{name} takes no seed"
            assert job.out in argv, f"{name}: the report's path is not on the command line"
            feats = e.features(run)
            assert feats.get("fixed") == 1.0 and all(v >= 0 for v in feats.values())


def test_no_run_is_planned_twice() -> None:
    """At the defaults and at small n (where the runs one experiment asks of another, at its
    own n, fall on points the other plans anyway), each run directory once."""
    for extra in ({}, {"entries": 100}, {"entries": 16, "mixers": 2}):
        cfg: dict[str, object] = {"seed": 7, **extra}
        settings.check(cfg)
        dirs = [r.dir for runs in experiments.plan(cfg).values() for r in runs]
        assert len(dirs) == len(set(dirs)), (extra, sorted(d for d in dirs if dirs.count(d) > 1))


def test_a_read_experiment_is_planned_with_its_reader() -> None:
    """An experiment that reads another's runs (its circuit files) brings that one along."""
    readers = [e for e in experiments.all_experiments() if e.reads_from]
    assert readers
    for e in readers:
        cfg: dict[str, object] = {"experiments": [e.name]}
        settings.check(cfg)
        planned = experiments.plan(cfg)
        assert set(e.reads_from) <= set(planned)
        for run in planned[e.name]:
            for path in e.reads(run).values():
                source, run_id = path.split("/")[:2]
                assert run_id in {r.id for r in planned[source]}, path


def test_run_seeds_are_64_hex_digits_per_repetition() -> None:
    assert experiments.run_seed({"seed": None}, 1) is None
    a, b = experiments.run_seed({"seed": 5}, 1), experiments.run_seed({"seed": 5}, 2)
    assert a and b and a != b and re.fullmatch("[0-9a-f]{64}", a)
    assert experiments.run_seed({"seed": "5"}, 1) == a
    assert experiments.run_seed({"seed": 6}, 1) != a


def test_the_test_commands_questions_are_answered_by_the_descriptors(tmp_path: Path, paper_dir: Path) -> None:
    """`python -m analysis selftest`: each answer comes from the descriptors' `selftest` fields,
    and the network check runs each experiment's own check of its runs (here: a tls run without
    its board record) and finds the runs that are missing."""
    from analysis import selftest
    from analysis.experiments.db_sm_rsm.synthetic import db_json

    quick = [e.name for e in experiments.all_experiments() if e.selftest.quick]
    assert quick and selftest.quick() == f"experiments=[{','.join(quick)}]"
    checked = [e for e in experiments.all_experiments() if e.selftest.estimate_within is not None]
    assert selftest.estimate_checks()[: 2 * len(checked)] == [a for e in checked for a in ("--check", e.name)]
    parts = selftest.network_experiments()
    assert parts and selftest.network_config()[0] == f"experiments=[{','.join(e.name for e, _ in parts)}]"
    run = "n16-m2-bn254-fast-s128-t1-tls"
    db_json(paper_dir / "report-db-sm-rsm-n10000-m4", tmp_path / "raw" / "db-sm-rsm" / run, 16, 2, 0.01)
    problems = selftest.network_check(tmp_path)
    assert f"db-sm-rsm/{run}: no board.log" in problems
    assert "no db-sm-rsm run ending in -tls-lan" in problems
    assert any(p.startswith("no collab-groth16 run ending in") for p in problems)
