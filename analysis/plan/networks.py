"""The emulated networks (the shared `networks` config key) of experiments whose parties are
processes: which profiles a configuration asks for, and what stops them before any job starts.

The profiles themselves (delay, rate, how the namespaces are made) belong to the `netem` crate;
each program takes one as `--network PROFILE` and refuses, in one line, a network it cannot make.
The checks here catch the same refusals at planning time, so a sweep does not stop halfway.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

LOOPBACK = "none"


def profiles(cfg: Mapping[str, Any]) -> list[str]:
    """The configured profiles, loopback first."""
    return sorted(cfg.get("networks", [LOOPBACK]), key=lambda p: (p != LOOPBACK, p))


def emulated(cfg: Mapping[str, Any]) -> list[str]:
    return [p for p in profiles(cfg) if p != LOOPBACK]


def problems(cfg: Mapping[str, Any], program: str) -> list[str]:
    """Why `program` cannot run the configured emulated networks here (nothing if it can)."""
    wanted = emulated(cfg)
    if not wanted:
        return []
    if cfg.get("runner", "native") != "native":
        return [
            f"config key 'networks': {program} runs the emulated networks {wanted} with runner=native "
            "only (a container may not make network namespaces); set networks: [none] or runner: native"
        ]
    if os.geteuid() != 0:
        return [
            f"config key 'networks': {program} needs root for the emulated networks {wanted} (each "
            "party in a network namespace of its own); run as root or set networks: [none]"
        ]
    return []
