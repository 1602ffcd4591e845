"""`python -m analysis capacity`: DB-SM and DB-RSM's estimated time and memory at election sizes,
from the cost model (the descriptor's `commands` field adds it to the analysis's command line)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from analysis.config import for_results
from analysis.errors import ConfigError
from analysis.experiments.db_sm_rsm.capacity import DEFAULT_CORES, DEFAULT_ENTRIES, DEFAULT_MIXERS
from analysis.tidy import collect


def capacity(args: argparse.Namespace) -> int:
    from analysis.experiments.db_sm_rsm.capacity import (
        capacity_text,
        checked_runs,
        model_run,
        reference_model,
    )
    from analysis.experiments.db_sm_rsm.capacity_nodes import overlap, placed_runs
    from analysis.experiments.db_sm_rsm.parser import EXPERIMENT as DBSM
    from analysis.plan.estimate import COSTS_PATH

    for key in ("entries", "mixers", "cores"):
        bad = [v for v in getattr(args, key) if v < (2 if key != "cores" else 1)]
        if bad:
            raise ConfigError(f"--{key} {bad[0]}: must be at least {2 if key != 'cores' else 1}")
    costs = args.costs or COSTS_PATH
    if not costs.is_file():
        raise ConfigError(f"costs file not found: {costs}")
    model = reference_model(costs)
    try:
        model.parallel(DBSM)
    except ValueError as e:  # a malformed parallel block: one line naming the file
        raise ConfigError(f"{costs}: {e}") from None
    checked, across = None, None
    if args.results is not None:
        results = args.results
        if not results.is_dir():
            raise ConfigError(f"results directory not found: {results}")
        checked = checked_runs(collect(results, None, for_results(results)).df, model, results)
        # Runs placed on nodes add m + 1 nodes of C cores as a dimension.
        across = overlap(model, placed_runs(results), model_run)
    print(capacity_text(model, args.entries, args.mixers, args.cores, checked, across))
    return 0


def commands(sub: argparse._SubParsersAction) -> dict[str, Callable[[argparse.Namespace], int]]:
    pq = sub.add_parser("capacity", help="db-sm-rsm's estimated time and memory at election sizes")
    pq.add_argument("--entries", type=int, nargs="+", default=list(DEFAULT_ENTRIES), metavar="N",
                    help="ballots n (default: 10^5 10^6 10^7)")  # fmt: skip
    pq.add_argument("--mixers", type=int, nargs="+", default=list(DEFAULT_MIXERS), metavar="M",
                    help="mix-servers m (default 4)")  # fmt: skip
    pq.add_argument("--cores", type=int, nargs="+", default=list(DEFAULT_CORES), metavar="C",
                    help="cores, each used by as many threads (default: 1 16 64)")  # fmt: skip
    pq.add_argument("--results", type=Path, metavar="DIR",
                    help="a results directory: its db-sm-rsm runs measured beside the model, and with "
                         "runs placed on nodes, wall times on m + 1 nodes of C cores")  # fmt: skip
    pq.add_argument("--costs", type=Path, default=None,
                    help="the costs file (default: the estimator's)")  # fmt: skip
    return {"capacity": capacity}
