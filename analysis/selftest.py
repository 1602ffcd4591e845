"""What the suite's test command (scripts/test) asks the experiments' folders, so that the script
names no experiment: each descriptor's optional `SELFTEST` block says what its own parts exercise.

    SELFTEST = {
        "quick": True,             # the container part's one-experiment scope runs it
        "estimate_within": 2.0,    # its smoke runs must take within this factor of the estimate
        "network": {               # the network part: its parties as processes on emulated networks
            "config": {...},       # configuration keys the part sets for it (e.g. a transport)
            "suffixes": [...],     # run-id endings the part must find, each run verified
        },
    }

and the optional hook `selftest_network_check(run_dir) -> list[str]`: problems a network run has
beyond its own verdict (e.g. its record re-checked by a program alone).

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


def _block(e: experiments.Experiment) -> dict[str, Any]:
    block = e.hook("SELFTEST")
    return dict(block) if isinstance(block, dict) else {}


def _listed(values: Sequence[Any]) -> str:
    return "[" + ",".join(map(str, values)) + "]"


def node_packages() -> list[str]:
    return sorted({p for e in experiments.all_experiments() for p in e.node_packages})


def quick() -> str:
    names = [e.name for e in experiments.all_experiments() if _block(e).get("quick")]
    return f"experiments={_listed(names)}"


def estimate_checks() -> list[str]:
    """`python -m analysis estimates` options; the one factor is the largest any folder asks."""
    checked = [(e.name, float(_block(e)["estimate_within"])) for e in experiments.all_experiments()
               if "estimate_within" in _block(e)]  # fmt: skip
    if not checked:
        return []
    return [a for name, _ in checked for a in ("--check", name)] + [
        "--within",
        f"{max(w for _, w in checked):g}",
    ]


def network_experiments() -> list[experiments.Experiment]:
    return [e for e in experiments.all_experiments() if "network" in _block(e)]


def network_config() -> list[str]:
    """The network part's `--config` values: its experiments, their keys, both networks."""
    out = [f"experiments={_listed([e.name for e in network_experiments()])}"]
    for e in network_experiments():
        for key, value in _block(e)["network"].get("config", {}).items():
            out.append(f"{key}={_listed(value) if isinstance(value, list) else value}")
    return [*out, f"networks={_listed(NETWORKS)}"]


def network_check(results: Path) -> list[str]:
    """Problems of the network part's runs in `results` (none: every expected run is there and
    verified, and each experiment's own check of its runs passed)."""
    problems = []
    for e in network_experiments():
        raw = results / "raw" / e.name
        check = e.hook("selftest_network_check")
        for suffix in _block(e)["network"]["suffixes"]:
            runs = sorted(d for d in raw.glob(f"*{suffix}") if d.is_dir()) if raw.is_dir() else []
            if not runs:
                problems.append(f"no {e.name} run ending in {suffix}")
            for d in runs:
                passed = load_enveloped(d / "report.json", e.programs[0].name).passed
                print(f"network: {e.name}/{d.name}: passed={passed}")
                if not passed:
                    problems.append(f"{e.name}/{d.name} did not verify")
                if check is not None:
                    problems += [f"{e.name}/{d.name}: {p}" for p in check(d)]
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
