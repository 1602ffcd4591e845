"""Which code makes a run's results: the commit of the checkout and whether files differ from it.

The workflow records it in results/config.json and hands it to every job in the environment
(`SUITE_GIT_COMMIT`, `SUITE_GIT_DIRTY`), which the programs' `measure::provenance` reads, so that
a job on a cluster node without git still reports it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, check=True, cwd=root)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip()


def provenance(root: Path) -> dict[str, Any]:
    """{"commit": ..., "dirty": ...} of the checkout at root (None where git cannot tell)."""
    commit = _git(root, "rev-parse", "HEAD")
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def export(prov: dict[str, Any]) -> None:
    """Put the provenance in the environment every job inherits."""
    if prov.get("commit"):
        os.environ["SUITE_GIT_COMMIT"] = str(prov["commit"])
        os.environ["SUITE_GIT_DIRTY"] = "1" if prov.get("dirty") else "0"
