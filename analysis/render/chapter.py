"""What a study brings to the report, its chapter: the published claims it recomputes (and the
words around them), the terms of the reading guide, its parts (on page one, on pages of their own,
in the appendix), the pages it draws for the experiments whose figures it sets beside others',
and what its comparisons say on experiments' pages.

A study (`studies/<name>/study.py`, analysis.studies) declares these; the renderer
(analysis.render.report) draws the chapters it is handed in this order and names none of them:

    page one        the verdict, what ran, the sections; per chapter its claims, then its
                    SUMMARY parts
    opening         per chapter its OPENING parts, on pages of their own
    reading guide   per chapter its intro; one list of every chapter's terms, then the shared ones
    main part       per chapter its PAGES parts; then every experiment's page (the chapter's
                    `pages` where it draws an experiment's, else the experiment's own), its
                    verdict followed by what each chapter's `verdicts` say of it
    appendix        the configuration; per chapter its claims in full, then its APPENDIX parts;
                    every experiment's details; every run
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

import pandas as pd

from analysis.derive.claims import Claim
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.sections.common import Overview


class Place(Enum):
    """Where a part of a chapter goes."""

    SUMMARY = "page one, under the chapter's claims"
    OPENING = "pages of its own right after page one, before the contents: what a reader asks first"
    PAGES = "pages of its own in the main part, after the reading guide, before the experiments'"
    APPENDIX = "the appendix, after the chapter's claims in full"


@dataclass(frozen=True)
class Part:
    """One part of a chapter: where it goes and what draws it (its headings, tables, plots). A
    part of OPENING, PAGES or APPENDIX with a `key` opens with a heading of its own (`doc.h1`): the key is
    that heading's anchor, and page one's list of sections links it under `title`."""

    place: Place
    draw: Callable[[Doc, Context], None]
    key: str = ""
    title: str = ""


@dataclass(frozen=True)
class Guide:
    """A chapter's part of "How to read this report": a paragraph, and its terms (bullets, with
    markup) before the terms every report shares."""

    intro: str
    terms: Callable[[Context], list[str]]


@dataclass(frozen=True)
class Pages:
    """An experiment's page before the appendix (`overview`) and its details in the appendix,
    as its section module draws them, or as a chapter draws them with other figures beside."""

    overview: Callable[[Context], Overview]
    details: Callable[[Doc, Context], None]


@dataclass(frozen=True)
class ClaimWords:
    """How page one, the appendix and the terminal word a chapter's claims."""

    claims: str  # the claims' column on page one and the terminal (who claims)
    published: str  # the published figures' column (whose they are)
    stated: str  # where the claims are stated: the column of the figures as stated
    measured: str  # the column of ours with an assumed factor replaced by a measured one
    caption: str  # under page one's table
    none: str  # when our runs cover none of the claims (a sentence without its full stop)
    title: str  # the appendix section of the claims in full
    ref: str  # that section in page one's list of sections
    intro: str  # what the appendix section's columns mean
    note: str  # under its intro, before the table
    table: str  # the caption of the table written beside the report (results/tables/)
    arithmetic: str  # under `python -m analysis claims --paper`: how the stated figures were rounded


@dataclass(frozen=True)
class Claims:
    """The published claims a chapter recomputes: from the published figures of the experiments
    in `published` (`python -m analysis claims --paper`) and from our runs."""

    compute: Callable[[pd.DataFrame, Mapping[str, Any]], list[Claim]]
    published: tuple[str, ...]
    words: ClaimWords


class Chapter(Protocol):
    """What the renderer reads of a study."""

    @property
    def name(self) -> str: ...

    @property
    def claims(self) -> Claims | None: ...

    @property
    def guide(self) -> Guide | None: ...

    @property
    def parts(self) -> tuple[Part, ...]: ...

    @property
    def pages(self) -> Mapping[str, Pages]: ...

    @property
    def verdicts(self) -> Mapping[str, Callable[[Context], list[str]]]: ...
