"""db-sm-rsm, the paper's experiment 1: the distributed set-membership proofs DB-SM and DB-RSM
inside a mixnet of m mix-servers and n ciphertexts (crate `db-sm-rsm`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.experiments import Job, Program
from analysis.plan import networks
from analysis.plan.runs import INT, Part, Run, RunScheme, runs, set_sizes, thread_counts

# The transport and the network are left out of a run's id at their defaults (local, none):
# `n1000-m4-bn254-fast-s128-t1` is in one process, `...-t1-tls` over TLS on the loopback,
# `...-t1-tls-wan` over TLS on the emulated wan.
SCHEME = RunScheme("db-sm-rsm", (
    Part("n", "n", INT, True), Part("m", "m", INT, True),
    Part("curve", "", "bn254|bls12-381"), Part("mode", "", "fast|paper"),
    Part("security", "s", "128|paper"), Part("threads", "t", INT, True),
    Part("transport", "", "local|tls", default="local"),
    Part("network", "", "none|lan|region|wan", default=networks.LOOPBACK),
))  # fmt: skip


def _links(cfg: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(transport, network) pairs: the local transport has no network; tls runs on each one."""
    pairs = [("local", networks.LOOPBACK)] if "local" in cfg["dbsm_transport"] else []
    if "tls" in cfg["dbsm_transport"]:
        pairs += [("tls", net) for net in networks.profiles(cfg)]
    return pairs


def plan(cfg: Mapping[str, Any]) -> list[Run]:
    """n is swept at the configured m, and m at the configured n: one parameter at a time, not
    the full grid, to keep the number of long runs down."""
    points = {(n, int(cfg["mixers"])) for n in set_sizes(cfg)}
    points |= {(int(cfg["entries"]), int(m)) for m in cfg["sweep_mixers"]}
    grid = [
        {"n": n, "m": m, "curve": curve, "mode": mode, "security": str(sec), "threads": t,
         "transport": transport, "network": net}
        for n, m in sorted(points)
        for curve in cfg["curve"]
        for mode in cfg["mode"]
        for sec in cfg["security"]
        for t in thread_counts(cfg)
        for transport, net in _links(cfg)
    ]  # fmt: skip
    return runs(SCHEME, grid, cfg)


def command(run: Run, job: Job) -> list[str]:
    p = run.params
    argv = [PROGRAM.path, str(p["n"]), str(p["m"]), "--curve", p["curve"], "--mode", p["mode"],
            "--security", p["security"], "--threads", str(p["threads"]),
            "--key-cache", f"{job.results}/keys", "--out", job.out]  # fmt: skip
    if p["transport"] != "local":
        argv += ["--transport", p["transport"]]
    if p["network"] != networks.LOOPBACK:
        argv += ["--network", p["network"]]
    if p["transport"] == "tls":
        # The board's record of every post, beside the report: `db-sm-rsm verify-board` re-checks
        # the whole run from it alone.
        argv += ["--board-record", f"{job.dir}/board.log"]
    return argv + (["--seed", job.seed] if job.seed else [])


def check(cfg: Mapping[str, Any]) -> list[str]:
    if "tls" not in cfg["dbsm_transport"]:
        return []
    return networks.problems(cfg, "db-sm-rsm --transport tls")


def features(run: Run) -> dict[str, float]:
    """Every mixer proves over every entry, and checks every other mixer's proofs."""
    n, m = float(run.params["n"]), float(run.params["m"])
    return {"fixed": 1.0, "n_m": n * m, "n_m2": n * m * m}


PROGRAM = Program("db-sm-rsm", "db-sm-rsm", ("db-sm-rsm",))

CONFIG = """
dbsm_transport:
  description: >-
    how db-sm-rsm's parties talk: local = every party in one process (the paper's artifact's
    way); tls = every mix-server, the verifier and a bulletin board in processes of their own,
    every message a post on the board over TLS 1.3, run once per profile of `networks`
  type: array
  items: {type: string, enum: [local, tls]}
  minItems: 1
  uniqueItems: true
  default: [local]
curve:
  description: pairing curve of db-sm-rsm
  type: array
  items: {type: string, enum: [bn254, bls12-381]}
  minItems: 1
  uniqueItems: true
  default: [bn254]
mode:
  description: db-sm-rsm mode; paper = upstream's operation counts, fast = optimised
  type: array
  items: {type: string, enum: [fast, paper]}
  minItems: 1
  uniqueItems: true
  default: [fast]
security:
  description: >-
    db-sm-rsm security setting; 128 = 128-bit challenges and batching vectors with 80-bit
    statistical slack, paper = upstream's shorter lengths (for a like-for-like comparison)
  type: array
  items: {type: string, enum: ["128", "paper"]}
  minItems: 1
  uniqueItems: true
  default: ["128"]
"""

TITLE = "DB-SM and DB-RSM inside a mixnet of m mix-servers (the paper's experiment 1)"
ORDER = 10
PROGRAMS = (PROGRAM,)
STDOUT = "report.txt"
RULES = "db-sm-rsm/perf.smk"
