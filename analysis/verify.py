"""Did every run of the configuration verify? The last step of a workflow run.

Reads results/config.json for the runs of the configuration and asks each experiment's parser
why a run would not count (a proof the verifier rejected, a status False, a missing report). Prints
one line per problem, or that all runs verified; exit status 1 if anything failed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from analysis.config import for_results
from analysis.errors import ConfigError, ReportError
from analysis.registry import PARSERS


def problems(results_dir: Path) -> tuple[int, list[str]]:
    """(runs checked, problems) of the configured runs under results_dir/raw."""
    rc = for_results(results_dir)
    raw = results_dir / "raw"
    if rc.runs is None:
        runs = {
            e: sorted(d.name for d in (raw / e).iterdir() if d.is_dir())
            for e in PARSERS
            if (raw / e).is_dir()
        }
    else:
        runs = rc.runs
    found: list[str] = []
    checked = 0
    for experiment, ids in runs.items():
        parser = PARSERS.get(experiment)
        if parser is None:
            raise ConfigError(f"{results_dir / 'config.json'}: unknown experiment {experiment!r}")
        for run_id in ids:
            checked += 1
            try:
                found += [f"{experiment}/{run_id}: {p}" for p in parser.problems(raw / experiment / run_id)]
            except ReportError as e:
                found.append(f"{experiment}/{run_id}: {e}")
    if checked == 0:
        found.append(f"{raw}: no run to check")
    return checked, found


def verify(results_dir: Path) -> int:
    checked, found = problems(results_dir)
    for p in found:
        print(f"verify: {p}", file=sys.stderr)
    if found:
        print(f"verify: {len(found)} problem(s) in {checked} run(s)", file=sys.stderr)
        return 1
    print(f"all {checked} runs verified")
    return 0
