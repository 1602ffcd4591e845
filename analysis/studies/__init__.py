"""The studies of the suite: what compares experiments with each other and with a publication,
one folder each.

A study is the `study.py` of a folder `studies/<name>/` (imported as a package of this one,
`analysis.studies.<name with _ for ->`): its `STUDY = Study(...)`, which names the experiments
it reads and declares what it brings to the report (analysis.render.chapter): the published
claims it recomputes, its terms of the reading guide, its parts (on page one, on pages of their
own, in the appendix), the pages it draws for the experiments whose figures it sets beside
others', and what its comparisons say on experiments' pages. A study's folder may import the
folders of the experiments it names, and no other folder; an experiment's folder imports no other
folder (tests/test_one_folder.py checks both).

The CLI hands the studies to the renderer (`python -m analysis report`) and prints their claims
(`python -m analysis claims`). Adding a study: its folder (README, "Adding a comparison").
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from types import ModuleType

from analysis import experiments, folders
from analysis.render.chapter import Claims, Guide, Pages, Part, Place
from analysis.render.context import Context


@dataclass(frozen=True)
class Study:
    """One study: the experiments it reads and its chapter of the report."""

    name: str  # its folder's name
    title: str  # one line: what it compares
    experiments: tuple[str, ...]  # the experiments it reads; its folder may import theirs
    claims: Claims | None = None  # published claims it recomputes, beside ours
    guide: Guide | None = None  # its part of "How to read this report"
    parts: tuple[Part, ...] = ()  # its parts of the report, each with its place, in order
    # The experiments whose page and details it draws, with its figures beside theirs (by name;
    # among `experiments`): drawn in place of the experiment's own section.
    pages: Mapping[str, Pages] = field(default_factory=dict)
    # Sentences it adds to the verdict on an experiment's page (by name; among `experiments`): what
    # its comparisons say of that experiment's figures.
    verdicts: Mapping[str, Callable[[Context], list[str]]] = field(default_factory=dict)
    package: str = ""  # the package its folder is imported as (set when the folders are read)


# The studies' folders: `studies/<name>/` at the repository's top, one per study.
FOLDERS = folders.REPO / "studies"


def package_name(folder: str) -> str:
    """The Python package a study's folder is imported as."""
    return f"{__name__}.{folders.identifier(folder)}"


PACKAGES = folders.register(__name__, FOLDERS, "study.py")


def declared(module: ModuleType) -> Study:
    """The study a folder's `study.py` declares (its `STUDY`), bound to its folder and checked:
    it reads known experiments, and draws and takes claims from only those."""
    try:
        study = module.STUDY
    except AttributeError:
        raise TypeError(f"{module.__name__} declares no study (STUDY = Study(...))") from None
    if not isinstance(study, Study):
        raise TypeError(f"{module.__name__}: STUDY is a {type(study).__name__}, not a Study")
    package = module.__name__.rsplit(".", 1)[0]
    if package_name(study.name) != package:
        raise ValueError(f"studies/{study.name}/ is the folder of study {study.name}, not of another")
    reads = set(study.experiments)
    unknown = reads - set(experiments.names())
    if any(p.key for p in study.parts if p.place == Place.SUMMARY):
        raise ValueError(f"study {study.name}: a part on page one has no heading, so no key")
    used = set(study.pages) | set(study.verdicts) | set(study.claims.published if study.claims else ())
    if unknown or used - reads:
        raise ValueError(
            f"study {study.name} reads unknown experiments {sorted(unknown)} or uses undeclared ones "
            f"{sorted(used - reads)}"
        )
    return replace(study, package=package)


@cache
def _discover() -> tuple[Study, ...]:
    found = sorted((declared(importlib.import_module(f"{p}.study")) for p in PACKAGES), key=lambda s: s.name)
    drawn = [name for s in found for name in s.pages]
    if len(set(drawn)) != len(drawn):
        raise ValueError(f"two studies draw the pages of one experiment: {sorted(drawn)}")
    return tuple(found)


def all_studies() -> tuple[Study, ...]:
    """Every study, in its folders' order."""
    return _discover()


def names() -> tuple[str, ...]:
    return tuple(s.name for s in _discover())
