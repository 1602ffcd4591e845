"""No module of a crate of the workspace reaches back to itself: the Rust side of the layout
test (test_one_folder.py checks the Python imports). A loop of `use`s between files is a layer
that is not one; the graph and what counts as an arrow are in rustmodules.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphs import cycle
from rustmodules import graph
from workspace import members


@pytest.mark.parametrize("crate", [d.name for d in members()])
def test_no_module_cycle_in_the_crate(crate: str) -> None:
    src = next(d for d in members() if d.name == crate) / "src"
    found = cycle(graph(src))
    assert found is None, f"{crate}: module cycle: " + " -> ".join(found or [])


def _crate(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_check_finds_a_cycle_through_use_trees_and_inline_paths(tmp_path: Path) -> None:
    src = _crate(tmp_path, {
        "lib.rs": "pub mod proto;\npub mod error;\n",
        "error.rs": "pub enum Error {}\n",
        "proto/mod.rs": "mod setup;\nmod steps;\npub use setup::Mixer;\n",
        "proto/setup.rs": "use super::{super::error::Error, steps::{mix as m, check}};\npub struct Mixer;\n",
        "proto/steps.rs": "// use super::setup::Mixer;\npub fn mix() -> crate::proto::setup::Mixer {}\n",
    })  # fmt: skip
    assert graph(src)["proto/setup.rs"] == {"error.rs", "proto/steps.rs"}
    assert cycle(graph(src)) == ["proto/setup.rs", "proto/steps.rs", "proto/setup.rs"]
    # The same arrow in a comment, a string or test-only code is none.
    (src / "proto/steps.rs").write_text(
        '// crate::proto::setup::Mixer\nconst S: &str = "super::setup";\n'
        "#[cfg(test)]\nuse super::setup::Mixer;\n"
        "#[cfg(test)]\nmod tests {\n    use super::super::setup::*;\n}\n"
    )
    assert graph(src)["proto/steps.rs"] == set() and cycle(graph(src)) is None


def test_a_child_naming_its_parent_is_no_cycle(tmp_path: Path) -> None:
    src = _crate(tmp_path, {
        "lib.rs": "pub mod proofs;\n",
        "proofs/mod.rs": "mod prove;\npub use prove::prove;\npub struct Proof;\n",
        "proofs/prove.rs": "use super::*;\nuse crate::proofs::Proof;\npub fn prove() -> Proof { Proof }\n",
    })  # fmt: skip
    assert graph(src) == {"lib.rs": set(), "proofs/mod.rs": {"proofs/prove.rs"}, "proofs/prove.rs": set()}
    assert cycle(graph(src)) is None
