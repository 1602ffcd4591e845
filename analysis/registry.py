"""The experiments the analysis knows, each with its parser module.

A parser module provides `EXPERIMENT` (the name, as in `results/raw/<name>/`),
`load_run(run_dir, run_id, params) -> Parsed` for one of our runs, `load_reference(paper_dir)
-> Parsed` for the published figures we compare with (the paper's sample reports or a seed's
figures), and `problems(run_dir) -> list[str]`, the reasons a run does not count as verified.
Adding an experiment means adding its module here (and its section in `render/sections`).
"""

from __future__ import annotations

from types import ModuleType

from analysis.parse import cmix, collab, cpsnark, dbsm, mithril, veccom, zksnark

PARSERS: dict[str, ModuleType] = {
    m.EXPERIMENT: m for m in (zksnark, dbsm, cpsnark, veccom, collab, cmix, mithril)
}

EXPERIMENTS: tuple[str, ...] = tuple(PARSERS)
