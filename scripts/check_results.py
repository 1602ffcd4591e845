#!/usr/bin/env python3
"""Check a results directory after a workflow run: every proof verified, every status true.

    python3 scripts/check_results.py RESULTS_DIR

The workflow keeps the reports of a run whose verification failed (so the PDF can flag it);
this check is what makes such a run fail the test suite. Exit 0 if all is well, 1 otherwise.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def problems_zksnark(report: dict) -> list[str]:
    provers = report.get("provers") or {}
    if not provers:
        return ["no prover results"]
    return [
        f"prover {name}: status {result.get('status')!r}"
        for name, result in provers.items()
        if result.get("status") != "PASSED"
    ]


def problems_dbsmrsm(report: dict) -> list[str]:
    statuses = report.get("statuses") or {}
    if not statuses:
        return ["no statuses"]
    return [f"{name} is {value!r}" for name, value in statuses.items() if value is not True]


def problems_cpsnark(summary: dict) -> list[str]:
    groups = summary.get("groups") or []
    if not groups:
        return ["no benchmark groups"]
    return [f"group {g.get('group')!r}: no mean" for g in groups if not g.get("mean_s")]


CHECKS = {
    "zksnark-sm-rsm": ("report.json", problems_zksnark),
    "db-sm-rsm": ("report.json", problems_dbsmrsm),
    "cpsnark-sm": ("summary.json", problems_cpsnark),
}


def check(results: Path) -> list[str]:
    found: list[str] = []
    checked = 0
    for experiment, (name, problems_of) in CHECKS.items():
        for path in sorted((results / "raw" / experiment).glob(f"*/{name}")):
            checked += 1
            try:
                data = json.loads(path.read_text())
            except (OSError, json.JSONDecodeError) as err:
                found.append(f"{path}: unreadable JSON ({err})")
                continue
            found += [f"{path}: {p}" for p in problems_of(data)]
    if checked == 0:
        found.append(f"{results}/raw: no experiment results found")
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(Path(argv[1]))
    for problem in problems:
        print(f"check_results: {problem}", file=sys.stderr)
    if not problems:
        print(f"check_results: every proof in {argv[1]} verified")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
