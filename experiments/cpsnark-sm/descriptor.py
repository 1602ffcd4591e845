"""cpsnark-sm, the paper's experiment 3: Benarroch et al.'s cpSNARK-Set membership proof (prove,
verify, membership witness), our Rust implementation (crate `cpsnark-sm`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.experiments import Experiment, Job, Program, config_keys
from analysis.runs import INT, Part, Run, RunScheme, runs, set_sizes, thread_counts

SCHEME = RunScheme("cpsnark-sm", (Part("n", "n", INT, True), Part("threads", "t", INT, True)))


def plan(cfg: Mapping[str, Any]) -> list[Run]:
    """Prove and verify do not depend on n; the membership witness does: one run per set size."""
    grid = [{"n": n, "threads": t} for n in set_sizes(cfg) for t in thread_counts(cfg)]
    return runs(SCHEME, grid, cfg, {"samples": int(cfg["cpsnark_samples"])})


def command(run: Run, job: Job) -> list[str]:
    argv = [PROGRAM.path, "--n", str(run.params["n"]), "--samples", str(run.extra["samples"]),
            "--threads", str(run.params["threads"]), "--out", job.out]  # fmt: skip
    return argv + (["--seed", job.seed] if job.seed else [])


def features(run: Run) -> dict[str, float]:
    n, samples = float(run.params["n"]), float(run.extra.get("samples", 100))
    return {"fixed": 1.0, "samples": samples, "samples_n": samples * n, "n": n}


PROGRAM = Program("cpsnark-bench", "cpsnark-sm", ("cpsnark-sm",))

CONFIG = """
cpsnark_samples:
  description: sample size of the cpsnark-sm benchmark (criterion's statistics need >= 10)
  type: integer
  minimum: 10
  maximum: 10000
  default: 100
"""

DESCRIPTOR = Experiment(
    scheme=SCHEME,
    title="cpSNARK-Set membership, Benarroch et al. (the paper's experiment 3)",
    order=40,
    programs=(PROGRAM,),
    plan=plan,
    command=command,
    features=features,
    config=config_keys(CONFIG),
    smoke={"cpsnark_samples": 10},
    stdout="report.txt",
)
