"""What the analysis reads from `results/config.json`: the workflow's configuration (defaults
filled in), the run directories it makes, and the commit of the code that made them.

Without that file (a results directory assembled by hand), every run found under `raw/` is
taken, and the report says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from analysis.errors import ConfigError
from analysis.plan import settings


@dataclass
class RunConfig:
    config: dict[str, Any] = field(default_factory=dict)
    # experiment -> run ids the configuration makes; None: take every run present.
    runs: dict[str, list[str]] | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    path: str | None = None
    # Selected experiments the workflow planned no run of (the paper's own code without its
    # sources), each with why and how to add them.
    left_out: dict[str, str] = field(default_factory=dict)

    def setting(self, key: str) -> Any:
        """A configuration key's value: as the run configured it, else the schema's default (an
        experiment's keys and their defaults are its descriptor's)."""
        if key in self.config:
            return self.config[key]
        return settings.defaults()[key]

    @property
    def commit(self) -> str:
        c = self.provenance.get("commit")
        if not c:
            return "unknown (not a git checkout)"
        dirty = self.provenance.get("dirty")
        return f"{c}{' (with uncommitted changes)' if dirty else ''}"


def load_run_config(path: Path) -> RunConfig:
    """Read results/config.json; a malformed one is an error naming the file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the run's configuration ({e.strerror})") from e
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from e
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        raise ConfigError(f"{path}: expected an object with keys config, runs and provenance")
    runs = data.get("runs")
    if not isinstance(runs, dict) or not all(
        isinstance(v, list) and all(isinstance(x, str) for x in v) for v in runs.values()
    ):
        raise ConfigError(f"{path}: 'runs' must map each experiment to a list of run ids")
    props = settings.load_schema()["properties"]
    for key, value in data["config"].items():
        if key in props:
            errors = jsonschema.Draft202012Validator(props[key]).iter_errors(value)
            error = jsonschema.exceptions.best_match(errors)
            if error is not None:
                raise ConfigError(f"{path}: config key {key!r}: {error.message}")
    left_out = data.get("left_out") or {}
    if not isinstance(left_out, dict) or not all(isinstance(v, str) for v in left_out.values()):
        raise ConfigError(f"{path}: 'left_out' must map experiments to why they were left out")
    return RunConfig(data["config"], {k: list(v) for k, v in runs.items()},
                     dict(data.get("provenance") or {}), str(path), dict(left_out))  # fmt: skip


def for_results(results_dir: Path) -> RunConfig:
    """The run configuration of a results directory (its config.json), or 'every run present'."""
    path = results_dir / "config.json"
    if path.exists():
        return load_run_config(path)
    return RunConfig()
