"""db-sm-rsm, the paper's experiment 1: the distributed set-membership proofs DB-SM and DB-RSM
inside a mixnet of m mix-servers and n ciphertexts (crate `db-sm-rsm`)."""

from __future__ import annotations

import argparse
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from analysis.experiments import (
    Experiment,
    Handler,
    Job,
    NetworkPart,
    Program,
    SelfTest,
    config_keys,
    run_seed,
)
from analysis.plan import networks
from analysis.runs import INT, Part, Run, RunScheme, runs, set_sizes, thread_counts

# The transport, the network and the placement are left out of a run's id at their defaults
# (local, none, local): `n1000-m4-bn254-fast-s128-t1` is in one process, `...-t1-tls` over TLS on
# the loopback, `...-t1-tls-wan` over TLS on the emulated wan, `...-t1-tls-nodes` over TLS with
# each mix-server on a SLURM node of its own.
SCHEME = RunScheme("db-sm-rsm", (
    Part("n", "n", INT, True), Part("m", "m", INT, True),
    Part("curve", "", "bn254|bls12-381"), Part("mode", "", "fast|paper"),
    Part("security", "s", "128|paper"), Part("threads", "t", INT, True),
    Part("transport", "", "local|tls", default="local"),
    Part("network", "", "none|lan|region|wan", default=networks.LOOPBACK),
    Part("placement", "", "local|nodes", default="local"),
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
         "transport": transport, "network": net,
         "placement": cfg["dbsm_placement"] if transport == "tls" else "local"}
        for n, m in sorted(points)
        for curve in cfg["curve"]
        for mode in cfg["mode"]
        for sec in cfg["security"]
        for t in thread_counts(cfg)
        for transport, net in _links(cfg)
    ]  # fmt: skip
    # Runs another experiment asks for at its own point (say, beside the paper's own code at
    # the n it runs), each once: a point that leaves out where its parties run gets the grid's.
    for asked in cfg.get("requested", {}).get(SCHEME.experiment, []):
        where = cfg["dbsm_placement"] if asked.get("transport") == "tls" else "local"
        point = {"placement": where, **asked}
        if point not in grid:
            grid.append(point)
    # A test option, not a parameter of the measurement: it names no run.
    return runs(SCHEME, grid, cfg, {"hold_at": cfg.get("dbsm_hold_at")})


def command(run: Run, job: Job) -> list[str]:
    p = run.params
    argv = [PROGRAM.path, str(p["n"]), str(p["m"]), "--curve", p["curve"], "--mode", p["mode"],
            "--security", p["security"], "--threads", str(p["threads"]),
            "--key-cache", f"{job.results}/keys", "--out", job.out]  # fmt: skip
    if p["transport"] != "local":
        argv += ["--transport", p["transport"]]
    if p["network"] != networks.LOOPBACK:
        argv += ["--network", p["network"]]
    if run.extra.get("hold_at"):
        # For tests only: a fresh run holds at this section until it is killed (a time limit's).
        argv += ["--hold-at", str(run.extra["hold_at"])]
    if p["transport"] == "tls":
        # The board's record of every post, beside the report: `db-sm-rsm verify-board` re-checks
        # the whole run from it alone.
        argv += ["--board-record", f"{job.dir}/board.log"]
    if p.get("placement", "local") == "nodes":
        argv += ["--launch", "srun"]
    return argv + (["--seed", job.seed] if job.seed else [])


# The largest n the program accepts (db-sm-rsm/src/main.rs, MAX_N); the schema allows more for the
# experiments that take it, and the capacity model (python -m analysis capacity) goes beyond.
MAX_ENTRIES = 1_000_000


def check(cfg: Mapping[str, Any]) -> list[str]:
    problems = []
    big = [n for n in set_sizes(cfg) if n > MAX_ENTRIES]
    if big:
        problems.append(
            f"config key 'entries' (or 'sweep_entries'): db-sm-rsm accepts at most {MAX_ENTRIES:,} entries, "
            f"not {max(big):,}; leave db-sm-rsm out of 'experiments' for larger n"
        )
    if "tls" in cfg["dbsm_transport"]:
        problems += networks.problems(cfg, "db-sm-rsm --transport tls")
    if cfg["dbsm_placement"] == "nodes":
        if "tls" not in cfg["dbsm_transport"]:
            problems.append("config key 'dbsm_placement': nodes places the processes of tls runs; "
                            "add tls to 'dbsm_transport'")
        emulated = [net for net in networks.profiles(cfg) if net != networks.LOOPBACK]
        if emulated:
            problems.append(f"config key 'dbsm_placement': nodes runs the parties over the nodes' own "
                            f"network, not an emulated one ({', '.join(emulated)}): networks: [none]")
    return problems


def checkpoint(job: Job) -> str:
    """The checkpoint a run keeps while it has not ended (`--checkpoint`'s default beside the
    report): left after a non-zero exit, the run stopped half way and resumes from it."""
    return str(Path(job.out).with_suffix(".checkpoint"))


def cluster(run: Run) -> dict[str, int | str]:
    """What a run asks of SLURM beyond one node: placed on nodes, one job of m + 1 nodes, one task
    each (the board, the driver and the verifier on the first, each mix-server on its own); its
    command runs in the job's batch step (`mpi`: the SLURM plugin then starts no step of its own),
    and the program starts each party with srun."""
    if run.params.get("placement", "local") != "nodes":
        return {}
    nodes = int(run.params["m"]) + 1
    return {"nodes": nodes, "tasks": nodes, "mpi": "srun"}


def features(run: Run) -> dict[str, float]:
    """Every mixer proves over every entry, and checks every other mixer's proofs."""
    n, m = float(run.params["n"]), float(run.params["m"])
    return {"fixed": 1.0, "n_m": n * m, "n_m2": n * m * m}


# From this n on, fast mode's fixed-base tables of the threshold key and of each mixer's key have
# their largest window (src/protocol/setup.rs, `table_window`: n = 1000 at m >= 2 already does),
# so their size, the bulk of the fixed part of the memory, no longer depends on n.
FULL_TABLES_ENTRIES = 1000


def memory_modelled(run: Run) -> bool:
    """The memory model (fixed + slope x n x m) describes one-process runs whose tables have their
    full size; smaller runs build smaller tables, and a tls run's parties are processes of their
    own, each with its own peak."""
    return int(run.params["n"]) >= FULL_TABLES_ENTRIES and run.params.get("transport", "local") == "local"


# The benchmarks of perf.smk (outside `all`) each make a results directory of their own,
# laid out as the workflow lays out results/ (config.json, raw/<experiment>/<run>/), so the
# analysis reads them as it reads any results: `python -m analysis costs`, `capacity --results`.
# Without a configured seed they use this public one: a pair's two runs must do the same work.
BENCHMARK_SEED = "db-sm-rsm benchmarks"


def _benchmark_config(
    cfg: Mapping[str, Any], entries: list[int], threads: list[int], repetitions: int
) -> dict[str, Any]:
    """The configuration of a benchmark's runs: fast mode, 128-bit security, BN254, one process,
    the configured m, at the given sizes, thread counts and repetitions."""
    out = dict(cfg)
    out.update(
        experiments=[SCHEME.experiment], entries=min(entries),
        sweep_entries=sorted(set(entries) - {min(entries)}), sweep_mixers=[], mode=["fast"],
        security=["128"], curve=["bn254"], dbsm_transport=["local"], networks=["none"],
        threads=threads, repetitions=repetitions, dbsm_hold_at=None,
        seed=cfg.get("seed") if cfg.get("seed") is not None else BENCHMARK_SEED,
    )  # fmt: skip
    return out


def parallel_config(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """`dbsm_parallel`: `dbsm_parallel_pairs` pairs at 1 and 2 threads at n = `dbsm_parallel_entries`
    (repetition k of both thread counts shares seed k, so a pair's runs do the same work)."""
    pairs = int(cfg["dbsm_parallel_pairs"])
    return _benchmark_config(cfg, [int(cfg["dbsm_parallel_entries"])], [1, 2], pairs)


def scale_config(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """`dbsm_scale`: one run at each n of `dbsm_scale_entries`, 2 threads."""
    return _benchmark_config(cfg, [int(n) for n in cfg["dbsm_scale_entries"]], [2], 1)


def benchmark_order(runs: list[Run]) -> list[Run]:
    """The order a benchmark's runs are made in: by repetition, then n, then thread count, so the
    pairs alternate 1, 2, 1, 2 and a sweep goes from its smallest n up."""
    return sorted(runs, key=lambda r: (r.rep, int(r.params["n"]), int(r.params["threads"])))


class Benchmarks:
    """The benchmarks of perf.smk: each a results directory `<perf>/<name>` of its own
    configuration's runs, made one after another in `benchmark_order`."""

    def __init__(self, perf: str, cfg: Mapping[str, Any]) -> None:
        self.perf = perf
        self.parallel = f"parallel-n{cfg['dbsm_parallel_entries']}-m{cfg['mixers']}"
        self.scale = f"scale-m{cfg['mixers']}-t2"
        self.configs = {self.parallel: parallel_config(cfg), self.scale: scale_config(cfg)}
        self.runs = {
            name: benchmark_order(plan(c)) for name, c in self.configs.items()
        }  # fmt: skip

    def dir(self, bench: str) -> str:
        return f"{self.perf}/{bench}"

    def report(self, bench: str, run: Run) -> str:
        return f"{self.dir(bench)}/raw/{run.dir}/report.json"

    def reports(self, bench: str) -> list[str]:
        return [self.report(bench, r) for r in self.runs[bench]]

    def run(self, bench: str, run_id: str) -> tuple[Run, Run | None]:
        """A benchmark's run, and the one made before it (None for the first)."""
        order = self.runs[bench]
        for i, r in enumerate(order):
            if r.id == run_id:
                return r, order[i - 1] if i else None
        raise KeyError(f"{run_id} is not a run of the benchmark {bench}")

    def inputs(self, bench: str, run_id: str) -> dict[str, str]:
        """The program, the benchmark's config.json, and the report of the run made before."""
        _, before = self.run(bench, run_id)
        out = {"program": PROGRAM.path, "config": f"{self.dir(bench)}/config.json"}
        if before is not None:
            out["before"] = self.report(bench, before)
        return out

    def command(self, bench: str, run_id: str) -> list[str]:
        """The run's command line, with the seed of its repetition (shared by a pair's two runs)
        and its key cache in its own directory: every run generates its keys from its seed, so
        the two runs of a pair do the same work."""
        run, _ = self.run(bench, run_id)
        run_dir = f"{self.dir(bench)}/raw/{run.dir}"
        seed = run_seed(self.configs[bench], run.rep)
        return command(run, Job(out=f"{run_dir}/report.json", dir=run_dir, seed=seed, results=run_dir))

    def config_json(self, bench: str, provenance: Mapping[str, Any]) -> str:
        """config.json of the benchmark's directory, as results/config.json is written."""
        return json.dumps(
            {"config": self.configs[bench], "runs": {SCHEME.experiment: [r.id for r in self.runs[bench]]},
             "provenance": dict(provenance)},
            indent=2, sort_keys=True,
        )  # fmt: skip


PROGRAM = Program("db-sm-rsm", "db-sm-rsm", ("db-sm-rsm",))

CONFIG = """
dbsm_hold_at:
  description: >-
    for tests only (a cluster's time limit): every db-sm-rsm run that starts fresh holds at the
    start of this section of its report (e.g. "forward set membership") until it is killed, so
    that it cannot end before the limit whatever the machine's speed; a run that resumes from
    its checkpoint ignores it (db-sm-rsm --hold-at). null = never hold
  type: ["string", "null"]
  enum: [null, main, preprocessing, pai_th_keygen, pai_keygen, checking inputs, check_encs, mixing,
         re-encryption and permutation, decryption of output messages,
         decryption of individual message/randomness shares, forward set membership, get_verfsigs,
         check_verfsigs, get_blsigs, re-encrypt and reverse-permute BB signatures,
         generate encrypted blinded BB signatures, decrypt blinded signatures, dpk_bbsig_nizkproofs,
         dpk_bbsig_nizkverifs, reverse set membership, pkcommverifs, get_verfsigs_rev,
         check_verfsigs_rev, get_blsigs_rev, re-encrypt and permute BBS+ signatures,
         generate encrypted blinded BBS+ signatures, decryption of blinded BBS+ signatures,
         dpk_bbsplussig_nizkproofs, dpk_bbsplussig_nizkverifs]
  default: null
dbsm_parallel_entries:
  description: >-
    n of the dbsm_parallel benchmark (outside `all`): pairs of db-sm-rsm runs at 1 and 2 threads
    that measure each section's parallel fraction
  type: integer
  minimum: 2
  maximum: 1000000
  default: 200
dbsm_parallel_pairs:
  description: pairs of runs (1 and 2 threads, alternated) of the dbsm_parallel benchmark
  type: integer
  minimum: 1
  maximum: 20
  default: 2
dbsm_scale_entries:
  description: >-
    set sizes of the dbsm_scale benchmark (outside `all`): one db-sm-rsm run at 2 threads each,
    from which costs.yaml's time, memory and CPU shares are refitted (hours at the default)
  type: array
  items: {type: integer, minimum: 2, maximum: 1000000}
  minItems: 1
  uniqueItems: true
  default: [1000, 10000, 50000]
dbsm_placement:
  description: >-
    where the processes of db-sm-rsm's tls runs run: local = all on the machine of the run's
    job; nodes = on a SLURM cluster (profiles/slurm), one job of m + 1 nodes, the board, the
    driver and the verifier on the first, each mix-server on a node of its own, each party
    started there by srun (db-sm-rsm --launch srun); needs the SLURM profile and networks: [none]
  type: string
  enum: [local, nodes]
  default: local
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

def board_record_check(run_dir: Path) -> list[str]:
    """A tls run's board record, re-checked by `db-sm-rsm verify-board` alone (its hash chain and
    roster, then every proof by an auditor that trusts no verdict)."""
    record = run_dir / "board.log"
    if "-tls" not in run_dir.name:
        return []
    if not record.is_file():
        return ["no board.log"]
    proc = subprocess.run([PROGRAM.path, "verify-board", str(record)], capture_output=True, text=True)
    said = (proc.stdout + proc.stderr).strip().splitlines()
    print(f"network: verify-board {record}: {said[-1] if said else ''}")
    return [] if proc.returncode == 0 else [f"verify-board refused its record: {' / '.join(said[-3:])}"]


def commands(sub: argparse._SubParsersAction) -> dict[str, Handler]:
    """`python -m analysis capacity` (election sizes from the cost model)."""
    from analysis.experiments.db_sm_rsm import commands as cli

    return cli.commands(sub)


def fit_parallel(dirs: Sequence[Path], shares_from: Sequence[Path]) -> tuple[dict[str, Any], str]:
    """`python -m analysis costs --parallel`: each section's parallel fraction from pairs of runs
    at 1 and 2 threads (the dbsm_parallel benchmark), as costs.yaml's `parallel` block."""
    from analysis.experiments.db_sm_rsm.parallel import fit_parallel as fit
    from analysis.experiments.db_sm_rsm.parallel import parallel_text

    pf = fit(dirs, shares_from)
    return pf.block(), parallel_text(pf)


DESCRIPTOR = Experiment(
    scheme=SCHEME,
    title="DB-SM and DB-RSM inside a mixnet of m mix-servers (the paper's experiment 1)",
    order=10,
    programs=(PROGRAM,),
    plan=plan,
    command=command,
    features=features,
    config=config_keys(CONFIG),
    stdout="report.txt",
    check=check,
    rules="experiments/db-sm-rsm/perf.smk",
    memory_modelled=memory_modelled,
    checkpoint=checkpoint,
    cluster=cluster,
    # What the suite's test command (scripts/test) runs of it beside the smoke run: the container
    # part's quick scope; its smoke runs within 2x of their estimate; its parties as processes
    # over TLS on the loopback and the emulated lan, each run's board record re-checked alone.
    selftest=SelfTest(
        quick=True,
        estimate_within=2.0,
        network=NetworkPart(
            config={"dbsm_transport": ["local", "tls"]},
            suffixes=("-tls", "-tls-lan"),
            check=board_record_check,
        ),
    ),
    commands=commands,
    fit_parallel=fit_parallel,
)
