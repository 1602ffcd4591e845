"""The root Cargo.toml's member globs: the tests' expansion (workspace.py) names the same crates
as cargo itself, and every crate directory of the repository is a member."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from workspace import REPO, members


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_cargo_and_the_tests_agree_on_the_members() -> None:
    out = subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1"], cwd=REPO,
                         env={**os.environ, "CARGO_TERM_COLOR": "never"},
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    ours = {(d / "Cargo.toml").as_posix() for d in members(REPO)}
    cargo = {p["manifest_path"] for p in json.loads(out)["packages"]}
    assert ours == cargo


def test_every_crate_directory_is_a_member() -> None:
    # (the tests' fixture crate is a member only in the copy of the repository its test makes)
    crates = {p.parent for p in REPO.glob("**/Cargo.toml")
              if p.parent != REPO and not {"target", "node_modules", "fixtures"} & set(p.parts)}  # fmt: skip
    assert crates == set(members(REPO))


def test_a_directory_without_a_crate_is_not_a_member(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text('[workspace]\nmembers = ["*/src/.."]\n')
    (tmp_path / "results").mkdir()
    (tmp_path / "crate/src").mkdir(parents=True)
    (tmp_path / "crate/Cargo.toml").write_text("")
    (tmp_path / "docs/src").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="workspace member without a Cargo.toml: docs"):
        members(tmp_path)
    (tmp_path / "docs/src").rmdir()
    assert members(tmp_path) == [tmp_path / "crate"]
