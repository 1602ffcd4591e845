"""The few configuration values the analysis reads from the workflow's config.yaml."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from analysis.derive.estimates import DEFAULT_COLLAB_FACTOR
from analysis.errors import ConfigError

# Accepted spellings of the collaborative factor, top level or under `analysis:`.
FACTOR_KEYS = ("collab_factor", "collaborative_factor")


@dataclass
class AnalysisConfig:
    collab_factor: float = DEFAULT_COLLAB_FACTOR
    path: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    text: str = ""


def _find_factor(d: dict[str, Any]) -> Any:
    for scope in (d, d.get("analysis") or {}, d.get("collaborative") or {}):
        if not isinstance(scope, dict):
            continue
        for k in (*FACTOR_KEYS, "factor"):
            if k in scope and (scope is not d or k != "factor"):
                return scope[k]
    return None


def load_config(path: str | Path | None) -> AnalysisConfig:
    """Read config.yaml (or nothing: defaults). A bad factor is an error naming the key."""
    if path is None:
        return AnalysisConfig()
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{p}: cannot read the config ({e.strerror})") from e
    try:
        raw = yaml.safe_load(text) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{p}: not valid YAML ({e})") from e
    if not isinstance(raw, dict):
        raise ConfigError(f"{p}: expected a mapping at the top level")
    factor = _find_factor(raw)
    if factor is None:
        factor = DEFAULT_COLLAB_FACTOR
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not factor > 0:
        raise ConfigError(f"{p}: collab_factor must be a positive number, got {factor!r}")
    return AnalysisConfig(collab_factor=float(factor), path=str(p), raw=raw, text=text)
