"""The experiments the analysis knows, each with its parser module, from the experiments'
descriptors (`analysis/experiments/`).

A parser module provides `EXPERIMENT` (the name, as in `results/raw/<name>/`),
`load_run(run_dir, run_id, params) -> Parsed` for one of our runs, `load_reference(paper_dir)
-> Parsed` for the published figures we compare with (the paper's sample reports or an
experiment's reference figures), and `problems(run_dir) -> list[str]`, the reasons a run does
not count as verified.
"""

from __future__ import annotations

from types import ModuleType

from analysis import experiments

PARSERS: dict[str, ModuleType] = {e.name: e.parser_module for e in experiments.all_experiments()}

EXPERIMENTS: tuple[str, ...] = tuple(PARSERS)
