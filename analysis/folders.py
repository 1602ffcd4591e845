"""Folders of the repository read as Python packages: each experiment's `experiments/<name>/` and
each study's `studies/<name>/`.

A folder holds no `__init__.py` (a hyphenated folder name is no identifier), so a package is made
for it by path, `<parent>.<name with _ for ->`, whose modules then import as usual
(`analysis.experiments.<identifier>.parser`). The folder a package stands for is found by its
declaration file (`descriptor.py`, `study.py`).
"""

from __future__ import annotations

import importlib.util
import sys
from importlib.machinery import ModuleSpec
from pathlib import Path

# The repository's top, where `experiments/` and `studies/` are.
REPO = Path(__file__).resolve().parents[1]


def identifier(folder: str) -> str:
    """A folder's name as a Python identifier (`merkle-paths` -> `merkle_paths`)."""
    return folder.replace("-", "_")


def register(parent: str, root: Path, declaration: str) -> list[str]:
    """Make every folder of `root` that holds a `declaration` file a package of the package
    `parent` (already imported); returns the packages' names, in the folders' order."""
    packages = []
    for found in sorted(root.glob(f"*/{declaration}")):
        name = f"{parent}.{identifier(found.parent.name)}"
        if name not in sys.modules:
            spec = ModuleSpec(name, None, is_package=True)
            spec.submodule_search_locations = [str(found.parent)]
            package = importlib.util.module_from_spec(spec)
            sys.modules[name] = package
            setattr(sys.modules[parent], name.rsplit(".", 1)[-1], package)
        packages.append(name)
    return packages
