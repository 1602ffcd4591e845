"""The workspace's member crates, as cargo finds them from the root Cargo.toml's globs."""

from __future__ import annotations

import glob
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def member_dirs(repo: Path = REPO) -> list[Path]:
    """Every member's directory: each `members` entry expanded as a glob (as cargo does), each
    match holding a Cargo.toml, in order and once."""
    root = tomllib.loads((repo / "Cargo.toml").read_text(encoding="utf-8"))
    found: dict[Path, None] = {}
    for pattern in root["workspace"]["members"]:
        for match in sorted(glob.glob(str(repo / pattern))):
            d = Path(match).resolve()
            assert (d / "Cargo.toml").is_file(), f"workspace member {d} has no Cargo.toml"
            found[d] = None
    return list(found)
