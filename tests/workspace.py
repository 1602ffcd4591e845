"""The Cargo workspace's member directories, expanded from the root Cargo.toml's globs the way
cargo expands them, for the tests that read every crate (sizes, README commands)."""

from __future__ import annotations

import glob
import os
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def members(repo: Path = REPO) -> list[Path]:
    """Each member directory once, sorted: every directory a `members` glob matches (hidden ones
    too, as cargo's glob does), with `..` resolved and files skipped; each must hold a Cargo.toml,
    as cargo requires."""
    root = tomllib.loads((repo / "Cargo.toml").read_text(encoding="utf-8"))["workspace"]
    found: set[Path] = set()
    for pattern in root["members"]:
        for rel in glob.glob(pattern, root_dir=repo, include_hidden=True):
            d = repo / os.path.normpath(rel)
            if d.is_dir():
                found.add(d)
    missing = [d.relative_to(repo).as_posix() for d in found if not (d / "Cargo.toml").is_file()]
    if missing:
        raise FileNotFoundError(f"workspace member without a Cargo.toml: {', '.join(sorted(missing))}")
    return sorted(found)
