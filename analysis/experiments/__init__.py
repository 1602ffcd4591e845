"""The experiments of the suite, one descriptor each: everything the shared machinery needs to
know about an experiment, in one place.

A descriptor is the `descriptor.py` of a folder `experiments/<name>/` (imported as a package of
this one, `analysis.experiments.<name with _ for ->`); its names are the descriptor:

    SCHEME       its run scheme (how run directories are named; its experiment's name)
    TITLE, ORDER one line for the PDF and the README, its place in the suite's order
    PROGRAMS     the programs it runs (binary, cargo package, source directories)
    CONFIG       its own configuration keys: JSON Schema properties, as YAML text
    plan(cfg)    the runs a configuration makes
    command(run, job)  the command line of one run
    features(run)      the sizes its cost grows with (the keys of its block in costs.yaml)
  and where needed
    check(cfg)   problems of a configuration beyond each key's schema
    memory_modelled(run)  whether its memory model describes the run (runs the memory fit uses)
    reads(run), READS_FROM   files of another experiment's runs it reads
    requests(cfg)  runs it asks of the experiments it reads: {experiment: [params, ...]}
    sequence(planned)  run directories that must be made in this order (pairs of runs alternated)
    UPSTREAM     the parts of upstream/sources.yaml (the paper's own code) its runs need
    SEEDED       False for programs that take no seed (the paper's own code)
    STDOUT, NODE_PACKAGES, TOOLS, IMAGE, RULES  (see Experiment)

Beside it in the folder: `parser.py` (its report as rows of the tidy table), `section.py` (its
PDF pages), `synthetic.py` (a synthetic report for the tests) and `costs.yaml` (its cost model).
The configuration schema, the planner, the estimator, the workflow, the registry of parsers and
the renderer all read the folders; none of them names an experiment. Adding an experiment: its
program and its folder (README, "Adding an experiment").
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import itertools
import shlex
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

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


@dataclass(frozen=True)
class Experiment:
    """One experiment, as every shared part of the suite sees it."""

    name: str  # as in results/raw/<name>/ and the configuration's `experiments`
    title: str  # one line for the PDF and the README
    order: int  # position in the workflow, the tidy table and the PDF
    scheme: RunScheme
    plan: Callable[[Mapping[str, Any]], list[Run]]
    command: Callable[[Run, Job], list[str]]  # the program and its arguments for one run
    features: Callable[[Run], dict[str, float]]  # the sizes its cost grows with (costs.yaml)
    programs: tuple[Program, ...]
    parser: str  # module with load_run, load_reference, problems
    section: str  # module with section(doc, ctx)
    synthetic: str  # module with write(out, run, paper_dir, fail): a synthetic report for the tests
    config: Mapping[str, Any] = field(default_factory=dict)  # JSON Schema properties of its keys
    stdout: str | None = None  # a file of the run directory its standard output goes to
    node_packages: tuple[str, ...] = ()  # directories with a package-lock.json to `npm ci`
    tools: tuple[str, ...] = ("cargo",)  # programs it needs on the host's PATH
    image: Image = Image()
    # Problems of a configuration that selects it, beyond each key's own schema (one line each).
    check: Callable[[Mapping[str, Any]], list[str]] = _no_problems
    # Files of another experiment's runs that a run reads: name -> path relative to RESULTS/raw
    # (the other experiment is planned too, and its planner sees cfg["read_by"]).
    reads: Callable[[Run], dict[str, str]] = _no_reads
    reads_from: tuple[str, ...] = ()
    rules: str | None = None  # a Snakemake file of extra rules (benchmarks outside `all`)
    # Whether the memory model (costs.yaml) describes a run: the memory fit uses only those (e.g.
    # runs large enough for the program's fixed allocations to have their full size).
    memory_modelled: Callable[[Run], bool] = _every_run
    # The parts of upstream/sources.yaml (pinned builds of the paper's own code) its runs need:
    # the workflow builds each once (rules/upstream.smk) before the runs.
    upstream: tuple[str, ...] = ()
    # Whether its programs take the run's seed: the paper's own code draws its own randomness.
    seeded: bool = True
    module: ModuleType | None = None  # the descriptor module: its optional hooks

    @property
    def folder(self) -> Path:
        """Its folder, `experiments/<name>/`."""
        where = self.module.__file__ if self.module is not None else None
        return Path(where).parent if where else FOLDERS

    def hook(self, name: str) -> Any:
        """An optional function or value of the descriptor (None where it has none)."""
        return getattr(self.module, name, None)

    def command_line(self, run: Run, job: Job) -> str:
        return shlex.join(self.command(run, job))

    @property
    def parser_module(self) -> ModuleType:
        return importlib.import_module(self.parser)

    @property
    def section_function(self) -> Callable[..., None]:
        fn: Callable[..., None] = importlib.import_module(self.section).section
        return fn


def from_module(module: ModuleType) -> Experiment:
    """The descriptor a folder's `descriptor.py` is (see the package's documentation)."""
    package = module.__name__.rsplit(".", 1)[0]
    try:
        scheme: RunScheme = module.SCHEME
        return Experiment(
            name=scheme.experiment, title=module.TITLE, order=module.ORDER, scheme=scheme,
            plan=module.plan, command=module.command, features=module.features,
            programs=tuple(module.PROGRAMS), parser=f"{package}.parser",
            section=f"{package}.section", synthetic=f"{package}.synthetic",
            config=yaml.safe_load(module.CONFIG) or {},
            stdout=getattr(module, "STDOUT", None), node_packages=getattr(module, "NODE_PACKAGES", ()),
            tools=getattr(module, "TOOLS", ("cargo",)), image=getattr(module, "IMAGE", Image()),
            check=getattr(module, "check", _no_problems), reads=getattr(module, "reads", _no_reads),
            reads_from=getattr(module, "READS_FROM", ()), rules=getattr(module, "RULES", None),
            memory_modelled=getattr(module, "memory_modelled", _every_run),
            upstream=tuple(getattr(module, "UPSTREAM", ())), seeded=getattr(module, "SEEDED", True),
            module=module,
        )  # fmt: skip
    except AttributeError as e:
        raise TypeError(f"{module.__name__} is not a complete experiment descriptor: {e}") from None


# The experiments' folders: `experiments/<name>/` at the repository's top, one per experiment.
FOLDERS = Path(__file__).resolve().parents[2] / "experiments"


def package_name(folder: str) -> str:
    """The Python package an experiment's folder is imported as (its name, as an identifier)."""
    return f"{__name__}.{folder.replace('-', '_')}"


def _register_folders() -> list[str]:
    """Make each experiment folder a package of this one, by path: the folders hold no
    `__init__.py` (a hyphenated folder name is no identifier), so a package is made for
    each, whose modules then import as usual (`analysis.experiments.<identifier>.parser`)."""
    packages = []
    for folder in sorted(FOLDERS.glob("*/descriptor.py")):
        name = package_name(folder.parent.name)
        if name not in sys.modules:
            spec = ModuleSpec(name, None, is_package=True)
            spec.submodule_search_locations = [str(folder.parent)]
            package = importlib.util.module_from_spec(spec)
            sys.modules[name] = package
            setattr(sys.modules[__name__], name.rsplit(".", 1)[-1], package)
        packages.append(name)
    return packages


PACKAGES = _register_folders()


@cache
def _discover() -> tuple[Experiment, ...]:
    found = [from_module(importlib.import_module(f"{p}.descriptor")) for p in PACKAGES]
    found.sort(key=lambda e: (e.order, e.name))
    names = [e.name for e in found]
    if len(set(names)) != len(names):
        raise ValueError(f"two descriptors share a name: {names}")
    for e in found:
        if package_name(e.name) != e.module.__name__.rsplit(".", 1)[0]:
            raise ValueError(f"experiments/{e.name}/ is the folder of experiment {e.name}, not of another")
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
    without it."""
    first = _plan_once(cfg, read_by(cfg), {}, leave_out)
    readers = {k: [r for r in v if first.get(r)] for k, v in read_by(cfg).items()}
    requested: dict[str, list[dict[str, Any]]] = {}
    for name in selected(cfg):
        hook = get(name).hook("requests")
        if hook is not None and first.get(name):
            for other, points in hook(cfg).items():
                requested.setdefault(other, []).extend(points)
    if readers == read_by(cfg) and not requested:
        return first
    return _plan_once(cfg, readers, requested, leave_out)


def predecessors(planned: Mapping[str, list[Run]]) -> dict[str, str]:
    """For each run directory that must wait for another (an experiment's `sequence`: pairs of
    runs alternated), the run directory made just before it."""
    dirs = {r.dir for runs in planned.values() for r in runs}
    out: dict[str, str] = {}
    for name in planned:
        hook = get(name).hook("sequence")
        if hook is None or not planned[name]:
            continue
        order = [d for d in hook(planned) if d in dirs]
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
