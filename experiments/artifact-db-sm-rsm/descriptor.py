"""artifact-db-sm-rsm: the paper's own DB-SM and DB-RSM code (its artifact's `db_sm_rsm.py`:
Python, charm-crypto on PBC, gmpy2), built from its pinned sources (upstream/sources.yaml) and
run at its own n and the configured m, beside our db-sm-rsm at the same n and m in the same
workflow run, the two alternated when repeated."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.experiments import Experiment, Image, Job, config_keys
from analysis.experiments.artifact_db_sm_rsm.pairing import OURS, SETTINGS
from analysis.plan import upstream
from analysis.runs import INT, Part, Run, RunScheme, runs

SCHEME = RunScheme(
    "artifact-db-sm-rsm",
    (
        Part("n", "n", INT, True),
        Part("m", "m", INT, True),
        Part("precomputing", "pre", "on|off", default="on"),
        Part("clock", "", "cpu|wall", default="cpu"),
    ),
)

# The build it runs (upstream/sources.yaml's parts) and the tree holding the artifact's code.
UPSTREAM = ("python",)
ARTIFACT = "traceable-mixnets"


def point(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of its runs: the artifact's own n (`artifact_entries`; the paper's n =
    10 000 takes its code about five hours of CPU), the configured m."""
    return {
        "n": int(cfg["artifact_entries"]),
        "m": int(cfg["mixers"]),
        "precomputing": "on" if cfg["artifact_precomputing"] else "off",
        "clock": str(cfg["artifact_clock"]),
    }


def plan(cfg: Mapping[str, Any]) -> list[Run]:
    """One run per repetition."""
    root = upstream.cache_root(cfg)
    p = upstream.pins()
    extra = {
        "build": str(upstream.build_dir(root, p.part(UPSTREAM[0]))),
        "tree": str(upstream.tree_dir(root, p.trees[ARTIFACT])),
    }
    return runs(SCHEME, [point(cfg)], cfg, extra)


def check(cfg: Mapping[str, Any]) -> list[str]:
    return upstream.problems(cfg, UPSTREAM)


def requests(cfg: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Our db-sm-rsm at the artifact's n and m: one process, one thread, BN254, in the paper's
    mode with its challenge lengths and in our defaults."""
    p = point(cfg)
    base = {"n": p["n"], "m": p["m"], "curve": "bn254", "threads": 1, "transport": "local", "network": "none"}
    return {OURS: [{**base, "mode": mode, "security": security} for _, mode, security in SETTINGS]}


def ours_of(run: Run, planned: Mapping[str, list[Run]]) -> list[Run]:
    """Our runs paired with an artifact run: the same n, m and repetition, one thread, local."""
    p = run.params
    out = []
    for _, mode, security in SETTINGS:
        for r in planned.get(OURS, []):
            q = r.params
            if (
                r.rep == run.rep
                and q["n"] == p["n"]
                and q["m"] == p["m"]
                and q["threads"] == 1
                and q["transport"] == "local"
                and q["curve"] == "bn254"
                and q["mode"] == mode
                and q["security"] == security
            ):
                out.append(r)
    return out


def sequence(planned: Mapping[str, list[Run]]) -> list[str]:
    """The artifact's run k, then ours of repetition k (paper mode, then defaults), then the
    artifact's run k + 1: alternated, so that a drift of the machine's speed touches both."""
    order: list[str] = []
    for run in sorted(planned.get(SCHEME.experiment, []), key=lambda r: r.rep):
        order.append(run.dir)
        order += [r.dir for r in ours_of(run, planned)]
    return order


def command(run: Run, job: Job) -> list[str]:
    p, e = run.params, run.extra
    return [
        "python3",
        "-m",
        "analysis.experiments.artifact_db_sm_rsm.driver",
        "--build",
        e["build"],
        "--tree",
        e["tree"],
        "--n",
        str(p["n"]),
        "--m",
        str(p["m"]),
        "--precomputing",
        p["precomputing"],
        "--clock",
        p["clock"],
        "--out",
        job.out,
    ]


def features(run: Run) -> dict[str, float]:
    """As for our db-sm-rsm: every mixer proves over every entry and checks the others' proofs;
    the precomputed tables of its five Paillier keys are a fixed cost."""
    n, m = float(run.params["n"]), float(run.params["m"])
    pre = 1.0 if run.params.get("precomputing", "on") == "on" else 0.0
    return {"fixed": 1.0, "precomputing": pre, "n_m": n * m, "n_m2": n * m * m}


CONFIG = """
artifact_entries:
  description: >-
    n of the paper's own DB-SM/DB-RSM code (artifact-db-sm-rsm), and of our db-sm-rsm runs beside
    it; the paper's n = 10000 takes that code about five hours of CPU
  type: integer
  minimum: 4
  maximum: 10000
  default: 100
artifact_precomputing:
  description: >-
    whether the paper's code precomputes its Paillier keys' fixed-base tables (its environment
    variable precomputing; on in the published reports)
  type: boolean
  default: true
artifact_clock:
  description: >-
    the clock of the paper's code's timers: cpu (process CPU time, as our db-sm-rsm's CPU
    figures; the code is single-threaded) or wall (its own perf_counter, as in the published
    reports)
  type: string
  enum: [cpu, wall]
  default: cpu
"""

# Its image: the driver with the parts of the analysis it reads (its report's parser, the
# published report), and the builds of the paper's code with its tree.
DESCRIPTOR = Experiment(
    scheme=SCHEME,
    title="the paper's own DB-SM and DB-RSM code, rerun from its pinned sources",
    order=11,
    programs=(),
    plan=plan,
    command=command,
    features=features,
    config=config_keys(CONFIG),
    smoke={"artifact_entries": 10, "artifact_precomputing": False},
    check=check,
    reads_from=(OURS,),
    tools=("python3", "make", "patch", "flex", "bison", "autoreconf", "libtoolize"),
    image=Image(paths=("analysis", "experiments/artifact-db-sm-rsm", "upstream"), upstream_trees=(ARTIFACT,)),
    upstream=UPSTREAM,
    # The paper's code draws its own randomness: a configured seed does not reach it.
    seeded=False,
    requests=requests,
    sequence=sequence,
)
