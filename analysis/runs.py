"""The runs a configuration makes, and the one name scheme of their directories.

Every run of an experiment lives in `results/raw/<experiment>/<run id>/`. A run id is made of the
run's parameters, joined by `-`, each with a short prefix (`n10000-m4-bn254-fast-s128-t1`); run
k >= 2 of a repeated parameter set appends `-r<k>`. Each experiment's descriptor
(`analysis/experiments/`) holds its scheme and planner; the workflow builds its jobs from them and
the analysis reads the same ids from `results/config.json`, so the two can never disagree on a
name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Part:
    """One parameter in a run id: its name, the literal before its value, the value's regex.

    A part with a `default` is left out of the id when it has that value, so a parameter added
    to an experiment leaves the ids of its existing runs as they were."""

    key: str
    prefix: str
    pattern: str
    integer: bool = False
    default: str | None = None

    def regex(self, named: bool) -> str:
        group = f"?P<{self.key}>" if named else "?:"
        text = f"{re.escape(self.prefix)}({group}{self.pattern})"
        return text if self.default is None else f"(?:-{text})?"

    def written(self, value: Any) -> str:
        """This part in an id ("" when it is left out), without the separator."""
        if self.default is not None and str(value) == self.default:
            return ""
        return f"{self.prefix}{value}"


@dataclass(frozen=True)
class RunScheme:
    """How the run ids of one experiment are written and read."""

    experiment: str
    parts: tuple[Part, ...]

    def _body(self, named: bool) -> str:
        """The parts' regexes: a required part after the first is joined by "-"; an optional
        part carries its own "-" inside its optional group."""
        body = ""
        for i, p in enumerate(self.parts):
            sep = "-" if i and p.default is None else ""
            body += sep + p.regex(named)
        return body

    @property
    def regex(self) -> re.Pattern[str]:
        return re.compile(rf"{self._body(True)}(?:-r(?P<rep>[0-9]+))?")

    @property
    def pattern(self) -> str:
        """The regex as text, without named groups (for Snakemake's wildcard constraints)."""
        return rf"{self._body(False)}(?:-r[0-9]+)?"

    def name(self, params: Mapping[str, Any], rep: int = 1) -> str:
        """The id of a run of these parameters; a part with a default may be left out of them."""
        given = {p.key: params.get(p.key, p.default) if p.default is not None else params[p.key]
                 for p in self.parts}  # fmt: skip
        text = "-".join(w for p in self.parts if (w := p.written(given[p.key])))
        return text if rep == 1 else f"{text}-r{rep}"

    def parse(self, run_id: str) -> dict[str, Any] | None:
        """The parameters and repetition (`rep`) of a run id, or None if it is not one of ours."""
        m = self.regex.fullmatch(run_id)
        if m is None:
            return None
        out: dict[str, Any] = {}
        for p in self.parts:
            value = m.group(p.key)
            value = p.default if value is None else value
            out[p.key] = int(value) if p.integer else value
        out["rep"] = int(m.group("rep") or 1)
        return out


@dataclass(frozen=True)
class Run:
    """One job: an experiment's run with its parameters (those in the id and the rest)."""

    experiment: str
    id: str
    params: Mapping[str, Any]
    rep: int = 1
    # Parameters that do not name the directory but change what the run measures.
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dir(self) -> str:
        return f"{self.experiment}/{self.id}"


INT = "[0-9]+"
# A run that measures several thread counts in one process names them all ("1_2").
THREAD_LIST = "[0-9]+(?:_[0-9]+)*"


def repetitions(cfg: Mapping[str, Any]) -> range:
    return range(1, int(cfg["repetitions"]) + 1)


def set_sizes(cfg: Mapping[str, Any]) -> list[int]:
    return sorted({int(cfg["entries"]), *map(int, cfg["sweep_entries"])})


def thread_counts(cfg: Mapping[str, Any]) -> list[int]:
    return sorted(int(t) for t in cfg["threads"])


def joined(xs: Iterable[Any]) -> str:
    """A list as one run-id part or option value: "1_2" (ids), see `listed` for options."""
    return "_".join(map(str, xs))


def listed(xs: Iterable[Any]) -> str:
    """A list as one command-line value: "a,b"; "none" for no value."""
    return ",".join(map(str, xs)) or "none"


def runs(scheme: RunScheme, grid: Iterable[dict[str, Any]], cfg: Mapping[str, Any],
         extra: Mapping[str, Any] | None = None) -> list[Run]:  # fmt: skip
    """Every point of `grid` at every repetition, named by `scheme`."""
    out = []
    for params in grid:
        for rep in repetitions(cfg):
            out.append(Run(scheme.experiment, scheme.name(params, rep), dict(params), rep, dict(extra or {})))
    return out


def max_threads(run: Run) -> int:
    """The largest thread count a run measures ("1_2" -> 2)."""
    return max(int(t) for t in str(run.params.get("threads", 1)).split("_"))


def min_threads(run: Run) -> int:
    return min(int(t) for t in str(run.params.get("threads", 1)).split("_"))
