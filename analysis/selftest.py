"""What the suite's test command (scripts/test) asks the experiments' folders, so that the script
names no experiment: each descriptor's `selftest` field (analysis.experiments.SelfTest) says what
its own parts exercise: whether the container part's quick scope runs it, the factor within which
its smoke runs must take their estimate, and its network part (the configuration keys the part
sets for it, the run-id endings it must find, and its own check of each such run).

    python -m analysis selftest node-packages            Node packages whose tests `npm test` runs
    python -m analysis selftest quick                    the quick scope, as experiments=[...]
    python -m analysis selftest estimate-checks          `estimates` options: --check NAME ...
    python -m analysis selftest network-config           the network part's --config values
    python -m analysis selftest network-check RESULTS    every network run there verified, checked
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from analysis import experiments
from analysis.parse.common import load_enveloped

NETWORKS = ["none", "lan"]  # the loopback and the emulated lan (namespaces, root)


def _listed(values: Sequence[Any]) -> str:
    return "[" + ",".join(map(str, values)) + "]"


def node_packages() -> list[str]:
    return sorted({p for e in experiments.all_experiments() for p in e.node_packages})


def quick() -> str:
    names = [e.name for e in experiments.all_experiments() if e.selftest.quick]
    return f"experiments={_listed(names)}"


def estimate_checks() -> list[str]:
    """`python -m analysis estimates` options; the one factor is the largest any folder asks."""
    checked = [(e.name, e.selftest.estimate_within) for e in experiments.all_experiments()
               if e.selftest.estimate_within is not None]  # fmt: skip
    if not checked:
        return []
    return [a for name, _ in checked for a in ("--check", name)] + [
        "--within",
        f"{max(w for _, w in checked):g}",
    ]


def network_experiments() -> list[tuple[experiments.Experiment, experiments.NetworkPart]]:
    """The experiments the network part runs, each with what it runs of it."""
    return [(e, e.selftest.network) for e in experiments.all_experiments() if e.selftest.network is not None]


def network_config() -> list[str]:
    """The network part's `--config` values: its experiments, their keys, both networks."""
    out = [f"experiments={_listed([e.name for e, _ in network_experiments()])}"]
    for _, part in network_experiments():
        for key, value in part.config.items():
            out.append(f"{key}={_listed(value) if isinstance(value, list) else value}")
    return [*out, f"networks={_listed(NETWORKS)}"]


def network_check(results: Path) -> list[str]:
    """Problems of the network part's runs in `results` (none: every expected run is there and
    verified, and each experiment's own check of its runs passed)."""
    problems = []
    for e, part in network_experiments():
        raw = results / "raw" / e.name
        for suffix in part.suffixes:
            runs = sorted(d for d in raw.glob(f"*{suffix}") if d.is_dir()) if raw.is_dir() else []
            if not runs:
                problems.append(f"no {e.name} run ending in {suffix}")
            for d in runs:
                passed = load_enveloped(d / "report.json", e.programs[0].name).passed
                print(f"network: {e.name}/{d.name}: passed={passed}")
                if not passed:
                    problems.append(f"{e.name}/{d.name} did not verify")
                problems += [f"{e.name}/{d.name}: {p}" for p in part.check(d)]
    return problems


def main(action: str, results: Path | None) -> int:
    if action == "node-packages":
        print("\n".join(node_packages()))
    elif action == "quick":
        print(quick())
    elif action == "estimate-checks":
        print(" ".join(estimate_checks()))
    elif action == "network-config":
        print("\n".join(network_config()))
    elif action == "network-check":
        if results is None:
            print("selftest network-check: give the results directory", file=sys.stderr)
            return 2
        problems = network_check(results)
        for p in problems:
            print(f"network: {p}", file=sys.stderr)
        return 1 if problems else 0
    return 0
