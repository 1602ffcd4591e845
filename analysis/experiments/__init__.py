"""The experiments of the suite, one descriptor each: everything the shared machinery needs to
know about an experiment, in one place.

A descriptor is the `descriptor.py` of a folder `experiments/<name>/` (imported as a package of
this one, `analysis.experiments.<name with _ for ->`): its `DESCRIPTOR = Experiment(...)`, whose
fields say what the experiment is (see Experiment): its run scheme, title and order, its
programs, its planner, command line and cost features, its own configuration keys, and where
needed its further parts (a check of the configuration, files of another experiment's runs it
reads, benchmark rules, what the test command runs of it, commands of `python -m analysis`, ...),
each a typed field with the default that means "none".

Beside it in the folder: `parser.py` (its report as rows of the tidy table), `section.py` (its
PDF pages), `synthetic.py` (a synthetic report for the tests) and `costs.yaml` (its cost model).
The configuration schema, the planner, the estimator, the workflow, the registry of parsers and
the renderer all read the folders; none of them names an experiment, and no experiment's folder
imports another's (a study's folder, `analysis.studies`, sets experiments beside each other).
Adding an experiment: its program and its folder (README, "Adding an experiment").
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import itertools
import shlex
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from analysis import folders
from analysis.runs import Run, RunScheme


@dataclass(frozen=True)
class Program:
    """A program built by the workflow: `target/release/<name>` from cargo package `package`,
    rebuilt when a file under one of `sources` (crate directories) changes."""

    name: str
    package: str
    sources: tuple[str, ...]

    @property
    def path(self) -> str:
        return f"target/release/{self.name}"

    @property
    def build_command(self) -> list[str]:
        return ["cargo", "build", "--release", "-p", self.package, "--bin", self.name]


@dataclass(frozen=True)
class Job:
    """Where one run's command reads and writes: its report (`out`), its directory, its seed (64
    hex digits, or None for fresh randomness), the results directory, and the files of other
    runs it reads (`inputs`, by the names the descriptor's `reads` gave them)."""

    out: str
    dir: str
    seed: str | None
    results: str
    inputs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Image:
    """What an experiment's container image holds beside its programs: repository paths copied
    as they are (relative to the repository), and whether it needs Node.js (the host's `node`,
    copied with the packages `npm ci` installed in `node_packages`)."""

    paths: tuple[str, ...] = ()
    node: bool = False
    # Pinned source trees (upstream/sources.yaml) its runs read, staged at their path in the cache
    # with the builds of its `upstream` parts, so that a job's command line is the same in it.
    upstream_trees: tuple[str, ...] = ()


def _no_reads(run: Run) -> dict[str, str]:
    return {}


def _no_problems(cfg: Mapping[str, Any]) -> list[str]:
    return []


def _every_run(run: Run) -> bool:
    return True


def _one_node(run: Run) -> dict[str, int | str]:
    return {}


def _nothing_more(run_dir: Path) -> list[str]:
    return []


@dataclass(frozen=True)
class NetworkPart:
    """What the test command's network part runs of an experiment whose parties are processes:
    the configuration keys it sets for it, the run-id endings it must find (each run verified),
    and the problems a run has beyond its own verdict (`check(run_dir)`: its record re-checked by a
    program alone, say)."""

    config: Mapping[str, Any] = field(default_factory=dict)
    suffixes: tuple[str, ...] = ()
    check: Callable[[Path], list[str]] = _nothing_more


@dataclass(frozen=True)
class SelfTest:
    """What the suite's test command (scripts/test, through `python -m analysis selftest`) runs of
    an experiment beside the smoke run: whether the container part's quick scope runs it, the
    factor within which its smoke runs must take their estimate (None: not checked), and its
    network part (None: none)."""

    quick: bool = False
    estimate_within: float | None = None
    network: NetworkPart | None = None


# A command an experiment brings to `python -m analysis`: it adds its parsers to the command
# line's subparsers and returns each command's handler by name.
Handler = Callable[[argparse.Namespace], int]
Commands = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], dict[str, Handler]]
# A refit of the parallel fraction per section (`python -m analysis costs --parallel`): from the
# results directories of pairs of runs (and those to take the CPU shares from), costs.yaml's
# `parallel` block and a table of it in words.
ParallelFit = Callable[[Sequence[Path], Sequence[Path]], tuple[dict[str, Any], str]]
# The runs an experiment asks of the experiments it reads (their planners add them): by
# experiment, each run's parameters.
Requests = Callable[[Mapping[str, Any]], dict[str, list[dict[str, Any]]]]
# Run directories (experiment/run id) of the planned runs that must be made in this order.
Sequence_ = Callable[[Mapping[str, list[Run]]], list[str]]


def config_keys(text: str) -> dict[str, Any]:
    """An experiment's own configuration keys from their YAML text (JSON Schema properties)."""
    keys = yaml.safe_load(text) or {}
    if not isinstance(keys, dict):
        raise TypeError("an experiment's configuration keys are a mapping of JSON Schema properties")
    return keys


@dataclass(frozen=True)
class Experiment:
    """One experiment, as every shared part of the suite sees it: the `DESCRIPTOR` of its folder's
    `descriptor.py`. The fields after `features` are optional, each with what it means when left
    out."""

    scheme: RunScheme  # how its run directories are named; its name is the scheme's experiment
    title: str  # one line for the PDF and the README
    order: int  # position in the workflow, the tidy table and the PDF
    programs: tuple[Program, ...]
    plan: Callable[[Mapping[str, Any]], list[Run]]
    command: Callable[[Run, Job], list[str]]  # the program and its arguments for one run
    features: Callable[[Run], dict[str, float]]  # the sizes its cost grows with (costs.yaml)
    config: Mapping[str, Any] = field(default_factory=dict)  # JSON Schema properties of its keys
    # Values of its own keys for the smoke configuration (`smoke: true`, config/smoke.yaml): small
    # sizes that run in minutes; a key set on the command line or in the file wins.
    smoke: Mapping[str, Any] = field(default_factory=dict)
    stdout: str | None = None  # a file of the run directory its standard output goes to
    node_packages: tuple[str, ...] = ()  # directories with a package-lock.json to `npm ci`
    tools: tuple[str, ...] = ("cargo",)  # programs it needs on the host's PATH
    image: Image = Image()
    # Problems of a configuration that selects it, beyond each key's own schema (one line each).
    check: Callable[[Mapping[str, Any]], list[str]] = _no_problems
    # Files of another experiment's runs that a run reads: name -> path relative to RESULTS/raw
    # (the other experiment, named in `reads_from`, is planned too, and its planner sees
    # cfg["read_by"]).
    reads: Callable[[Run], dict[str, str]] = _no_reads
    reads_from: tuple[str, ...] = ()
    rules: str | None = None  # a Snakemake file of extra rules (benchmarks outside `all`)
    # Whether the memory model (costs.yaml) describes a run: the memory fit uses only those (e.g.
    # runs large enough for the program's fixed allocations to have their full size).
    memory_modelled: Callable[[Run], bool] = _every_run
    # The directory a run that stopped half way keeps to resume from: left after a non-zero exit,
    # the measuring job fails, so that a retry (or the same command again) resumes it.
    checkpoint: Callable[[Job], str] | None = None
    # What a run asks of SLURM beyond one node (nodes, tasks; mpi: the job's command starts its own
    # job steps), nothing for a run of one node.
    cluster: Callable[[Run], dict[str, int | str]] = _one_node
    selftest: SelfTest = SelfTest()
    commands: Commands | None = None  # commands it brings to `python -m analysis`
    fit_parallel: ParallelFit | None = None  # its refit of costs.yaml's `parallel` block
    # The parts of upstream/sources.yaml (pinned builds of the paper's own code) its runs need:
    # the workflow builds each once (rules/upstream.smk) before the runs, and plans no run of the
    # experiment where their sources cannot be had.
    upstream: tuple[str, ...] = ()
    # Whether its programs take the run's seed: the paper's own code draws its own randomness.
    seeded: bool = True
    # Runs it asks of the experiments it reads (say, ours beside the paper's code at its n).
    requests: Requests | None = None
    # The order its runs and those it reads must be made in (pairs alternated), or None.
    sequence: Sequence_ | None = None
    # The package its folder is imported as (set when the folders are read).
    package: str = ""

    @property
    def name(self) -> str:
        """As in results/raw/<name>/, the configuration's `experiments` and its folder's name."""
        return self.scheme.experiment

    @property
    def folder(self) -> Path:
        """Its folder, `experiments/<name>/`."""
        return FOLDERS / self.name

    @property
    def parser(self) -> str:
        """Its parser module: load_run, load_reference, problems."""
        return f"{self.package}.parser"

    @property
    def section(self) -> str:
        """Its section module: overview(ctx) for its page, section(doc, ctx) for its details."""
        return f"{self.package}.section"

    @property
    def synthetic(self) -> str:
        """Its synthetic report for the tests: write(out, run, paper_dir, fail)."""
        return f"{self.package}.synthetic"

    def command_line(self, run: Run, job: Job) -> str:
        return shlex.join(self.command(run, job))

    @property
    def parser_module(self) -> ModuleType:
        return importlib.import_module(self.parser)


def declared(module: ModuleType) -> Experiment:
    """The experiment a folder's `descriptor.py` declares (its `DESCRIPTOR`), bound to its folder."""
    try:
        descriptor = module.DESCRIPTOR
    except AttributeError:
        raise TypeError(f"{module.__name__} declares no experiment (DESCRIPTOR = Experiment(...))") from None
    if not isinstance(descriptor, Experiment):
        raise TypeError(f"{module.__name__}: DESCRIPTOR is a {type(descriptor).__name__}, not an Experiment")
    package = module.__name__.rsplit(".", 1)[0]
    unknown = sorted(set(descriptor.smoke) - set(descriptor.config))
    if unknown:
        raise TypeError(f"{module.__name__}: smoke values for keys it does not have: {', '.join(unknown)}")
    return replace(descriptor, package=package)


# The experiments' folders: `experiments/<name>/` at the repository's top, one per experiment.
FOLDERS = folders.REPO / "experiments"


def package_name(folder: str) -> str:
    """The Python package an experiment's folder is imported as (its name, as an identifier)."""
    return f"{__name__}.{folders.identifier(folder)}"


PACKAGES = folders.register(__name__, FOLDERS, "descriptor.py")


@cache
def _discover() -> tuple[Experiment, ...]:
    found = [declared(importlib.import_module(f"{p}.descriptor")) for p in PACKAGES]
    found.sort(key=lambda e: (e.order, e.name))
    names = [e.name for e in found]
    if len(set(names)) != len(names):
        raise ValueError(f"two descriptors share a name: {names}")
    for e in found:
        if package_name(e.name) != e.package:
            raise ValueError(f"experiments/{e.name}/ is the folder of experiment {e.name}, not of another")
    for e in found:
        unknown = sorted(set(e.reads_from) - set(names))
        if unknown:
            raise ValueError(f"{e.name} reads the runs of unknown experiments: {', '.join(unknown)}")
    return tuple(found)


def all_experiments() -> tuple[Experiment, ...]:
    """Every experiment, in the suite's order."""
    return _discover()


def names() -> tuple[str, ...]:
    return tuple(e.name for e in _discover())


def get(name: str) -> Experiment:
    for e in _discover():
        if e.name == name:
            return e
    raise KeyError(f"unknown experiment {name!r}; known: {', '.join(names())}")


def selected(cfg: Mapping[str, Any]) -> list[str]:
    """The configured experiments and those whose runs they read, in the suite's order."""
    wanted = set(cfg["experiments"])
    while True:
        more = {r for e in _discover() if e.name in wanted for r in e.reads_from} - wanted
        if not more:
            return [e.name for e in _discover() if e.name in wanted]
        wanted |= more


def read_by(cfg: Mapping[str, Any]) -> dict[str, list[str]]:
    """For each experiment, the selected experiments that read its runs' files."""
    out: dict[str, list[str]] = {}
    for e in _discover():
        if e.name in selected(cfg):
            for r in e.reads_from:
                out.setdefault(r, []).append(e.name)
    return out


def _plan_once(
    cfg: Mapping[str, Any],
    readers: dict[str, list[str]],
    requested: dict[str, list[dict[str, Any]]],
    leave_out: Collection[str],
) -> dict[str, list[Run]]:
    seen = {**cfg, "read_by": readers, "requested": requested}
    return {name: [] if name in leave_out else get(name).plan(seen) for name in selected(cfg)}


def plan(cfg: Mapping[str, Any], leave_out: Collection[str] = ()) -> dict[str, list[Run]]:
    """Every run of the selected experiments (with those they read), by experiment, in the
    suite's order. Each planner sees the configuration with `read_by` (the selected experiments
    that read its runs) and `requested` (the runs they ask of it) added. The experiments in
    `leave_out` (the workflow's: those whose pinned sources cannot be had here) plan no run, and
    an experiment without runs reads nothing and asks for nothing: the others are planned again
    without it. With `runs: first` only one run per experiment is kept ([`first_runs`])."""
    first = _plan_once(cfg, read_by(cfg), {}, leave_out)
    readers = {k: [r for r in v if first.get(r)] for k, v in read_by(cfg).items()}
    requested: dict[str, list[dict[str, Any]]] = {}
    for name in selected(cfg):
        asks = get(name).requests
        if asks is not None and first.get(name):
            for other, points in asks(cfg).items():
                requested.setdefault(other, []).extend(points)
    if readers != read_by(cfg) or requested:
        first = _plan_once(cfg, readers, requested, leave_out)
    return first_runs(first) if cfg.get("runs", "all") == "first" else first


def first_runs(planned: Mapping[str, list[Run]]) -> dict[str, list[Run]]:
    """One run per experiment, for showing that the programs give the same verdicts elsewhere (in
    a container, on a cluster) without repeating a whole configuration: each experiment's first
    planned run, except that an experiment whose runs others read keeps exactly the runs the kept
    readers read (usually one), so that every kept run has its inputs."""
    readers = {name for name in planned if get(name).reads_from}
    kept = {name: runs[:1] for name, runs in planned.items() if name in readers}
    needed: dict[str, set[str]] = {}
    for name, runs in kept.items():
        for run in runs:
            for path in get(name).reads(run).values():
                experiment, run_id = path.split("/")[:2]
                needed.setdefault(experiment, set()).add(run_id)
    for name, runs in planned.items():
        if name not in kept:
            wanted = needed.get(name)
            kept[name] = [r for r in runs if r.id in wanted] if wanted else runs[:1]
    return {name: kept[name] for name in planned}


def predecessors(planned: Mapping[str, list[Run]]) -> dict[str, str]:
    """For each run directory that must wait for another (an experiment's `sequence`: pairs of
    runs alternated), the run directory made just before it."""
    dirs = {r.dir for runs in planned.values() for r in runs}
    out: dict[str, str] = {}
    for name in planned:
        order_of = get(name).sequence
        if order_of is None or not planned[name]:
            continue
        order = [d for d in order_of(planned) if d in dirs]
        for before, after in itertools.pairwise(order):
            out.setdefault(after, before)
    return out


def problems(cfg: Mapping[str, Any]) -> list[str]:
    """What the selected experiments' descriptors find wrong with the configuration."""
    return [line for name in selected(cfg) for line in get(name).check(cfg)]


def parse_run_id(experiment: str, run_id: str) -> dict[str, Any] | None:
    try:
        return get(experiment).scheme.parse(run_id)
    except KeyError:
        return None


def programs(experiments: Sequence[str] | None = None) -> dict[str, Program]:
    """The programs the given experiments (all if None) run, by binary name."""
    out: dict[str, Program] = {}
    for e in _discover():
        if experiments is None or e.name in experiments:
            for p in e.programs:
                out[p.name] = p
    return out


def run_seed(cfg: Mapping[str, Any], rep: int) -> str | None:
    """The seed of repetition `rep` of every parameter set: None without a configured seed (fresh
    randomness), else SHA-256 of the configured seed and the repetition, as 64 hex digits. Every
    experiment's run k gets the same seed; repetitions differ, yet are reproducible."""
    seed = cfg.get("seed")
    if seed is None:
        return None
    return hashlib.sha256(f"tmbench-seed/{seed}/{rep}".encode()).hexdigest()
