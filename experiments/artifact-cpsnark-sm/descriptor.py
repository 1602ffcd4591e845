"""artifact-cpsnark-sm: the paper's own fork of cpsnarks-set (its artifact's `cpsnark-sm/`), its
criterion bench `membership_hash` (prove, verify, and the membership witness over 10 000 copies
of one prime), built with cargo from the fork's own lock file and pinned git trees
(upstream/sources.yaml) and run beside our cpsnark-sm."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.experiments import Experiment, Image, Job, config_keys
from analysis.plan import upstream
from analysis.runs import INT, Part, Run, RunScheme, runs, thread_counts

SCHEME = RunScheme("artifact-cpsnark-sm", (Part("threads", "t", INT, True),))

UPSTREAM = ("cpsnarks-set",)
# The fork's witness bench accumulates this many copies of one prime (fixed in its source).
FORK_N = 10000


def plan(cfg: Mapping[str, Any]) -> list[Run]:
    """One run per thread count.
    The fork's set size is its own (its witness bench is fixed at n = 10 000)."""
    root = upstream.cache_root(cfg)
    extra = {
        "build": str(upstream.build_dir(root, upstream.pins().part(UPSTREAM[0]))),
        "samples": int(cfg["cpsnark_samples"]),
    }
    return runs(SCHEME, [{"threads": t} for t in thread_counts(cfg)], cfg, extra)


def check(cfg: Mapping[str, Any]) -> list[str]:
    return upstream.problems(cfg, UPSTREAM)


def command(run: Run, job: Job) -> list[str]:
    e = run.extra
    return [
        "python3",
        "-m",
        "analysis.experiments.artifact_cpsnark_sm.driver",
        "--build",
        e["build"],
        "--samples",
        str(e["samples"]),
        "--threads",
        str(run.params["threads"]),
        "--out",
        job.out,
    ]


def features(run: Run) -> dict[str, float]:
    samples = float(run.extra.get("samples", 100))
    return {"fixed": 1.0, "samples": samples}


CONFIG = ""

# Its image: the driver with the parts of the analysis it reads (criterion's parser), and the
# fork's bench as built on the host.
DESCRIPTOR = Experiment(
    scheme=SCHEME,
    title="the paper's own fork of cpsnarks-set (its membership_hash bench), rerun from its pinned sources",
    order=41,
    programs=(),
    plan=plan,
    command=command,
    features=features,
    config=config_keys(CONFIG),
    check=check,
    tools=("python3", "cargo"),
    image=Image(paths=("analysis", "experiments/artifact-cpsnark-sm", "upstream")),
    upstream=UPSTREAM,
    # The paper's code draws its own randomness: a configured seed does not reach it.
    seeded=False,
)
