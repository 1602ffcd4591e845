"""collab-groth16: the collaborative zkSNARK the paper only estimates (its 2x rule): m party
processes jointly prove the zkSNARK experiment's circuits over additive secret shares,
semi-honest and malicious (crate `collab-groth16`)."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from analysis import experiments
from analysis.experiments import Experiment, Job, NetworkPart, Program, SelfTest, config_keys
from analysis.plan import networks
from analysis.runs import INT, Part, Run, RunScheme, listed, runs, set_sizes, thread_counts

# The collaborative prover proves a circuit the zkSNARK run of the same statement, n and threads
# built (Poseidon trees); one run covers every party count and variant.
ZKSNARK = "zksnark-sm-rsm"
SCHEME = RunScheme("collab-groth16", (
    Part("statement", "", "sm|rsm"), Part("circuit", "", "zokrates|optimized"),
    Part("n", "n", INT, True), Part("threads", "t", INT, True),
    Part("network", "", "none|lan|region|wan", default=networks.LOOPBACK),
))  # fmt: skip


def plan(cfg: Mapping[str, Any]) -> list[Run]:
    grid = [
        {"statement": st, "circuit": c, "n": n, "threads": t, "network": net}
        for st in cfg["statements"]
        for c in cfg["zksnark_circuits"]
        for n in set_sizes(cfg)
        for t in thread_counts(cfg)
        for net in networks.profiles(cfg)
    ]
    extra = {
        "parties": sorted(int(m) for m in cfg["collab_parties"]),
        "variants": list(cfg["collab_variants"]),
    }
    return runs(SCHEME, grid, cfg, extra)


def reads(run: Run) -> dict[str, str]:
    """The zkSNARK run whose build files (circuit and witness) this run proves, named by that
    experiment's own run scheme."""
    p = run.params
    source = experiments.get(ZKSNARK).scheme.name(
        {"statement": p["statement"], "hash": "poseidon", "n": p["n"], "threads": p["threads"]}, run.rep
    )
    return {"zksnark": f"{ZKSNARK}/{source}/report.json"}


def command(run: Run, job: Job) -> list[str]:
    build = posixpath.join(posixpath.dirname(job.inputs["zksnark"]), "build")
    zokrates = run.params["circuit"] == "zokrates"
    stem, witness = ("circuit", "witness") if zokrates else ("optimized", "optimized")
    e = run.extra
    argv = [PROGRAM.path, "run", "--r1cs", f"{build}/{stem}.r1cs", "--wtns", f"{build}/{witness}.wtns",
            "--parties", listed(e["parties"]), "--variants", listed(e["variants"]),
            "--threads", str(run.params["threads"]), "--out", job.out]  # fmt: skip
    if run.params["network"] != networks.LOOPBACK:
        argv += ["--network", run.params["network"]]
    return argv + (["--seed", job.seed] if job.seed else [])


def features(run: Run) -> dict[str, float]:
    e = run.extra
    runs_ = len(e["variants"]) * len(e["parties"])
    return {
        "fixed": 1.0,
        # every party of every run proves once (they share the machine) ...
        "party_proofs": float(len(e["variants"]) * sum(e["parties"])),
        # ... and the single and local provers are sampled around each run
        "samples": float(runs_ + 1),
    }


def check(cfg: Mapping[str, Any]) -> list[str]:
    if "poseidon" not in cfg["hash"]:
        return [
            "config key 'hash': collab-groth16 proves the circuits of the Poseidon-tree zkSNARK runs; "
            "add poseidon or leave collab-groth16 out"
        ]
    # (the zkSNARK experiment, planned with this one, checks its own keys)
    return networks.problems(cfg, "collab-groth16")


PROGRAM = Program("collab-groth16", "collab-groth16", ("collab-groth16", "zksnark-sm-rsm/prover"))

CONFIG = """
collab_parties:
  description: party counts of the collaborative Groth16 prover (each party its own process)
  type: array
  items: {type: integer, minimum: 2, maximum: 8}
  minItems: 1
  uniqueItems: true
  default: [2, 3, 4]
collab_variants:
  description: >-
    security of the collaborative prover: semi-honest (Beaver triples), malicious (SPDZ-style
    MACs checked before the proof is opened)
  type: array
  items: {type: string, enum: [semi-honest, malicious]}
  minItems: 1
  uniqueItems: true
  default: [semi-honest, malicious]
collab_factor:
  description: >-
    the paper's rule: collaborative-zkSNARK time per prover = collab_factor x n x
    single-prover time (the measured factor of collab-groth16 is shown beside it)
  type: number
  exclusiveMinimum: 0
  maximum: 100
  default: 2.0
"""

DESCRIPTOR = Experiment(
    scheme=SCHEME,
    title="collaborative Groth16: m parties prove the zkSNARK circuits over secret shares",
    order=30,
    programs=(PROGRAM,),
    plan=plan,
    command=command,
    features=features,
    config=config_keys(CONFIG),
    check=check,
    reads=reads,
    reads_from=(ZKSNARK,),
    # What the suite's test command (scripts/test) runs of it beside the smoke run: its parties
    # as processes on the emulated lan.
    selftest=SelfTest(network=NetworkPart(suffixes=("-lan",))),
)
