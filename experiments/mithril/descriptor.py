"""mithril: Mithril's mergeable multisignatures, native aggregation on BLS12-381 beside its lower
bounds, and the randomised aggregation proven in a halo2 circuit (crate `mithril`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.experiments import Experiment, Job, Program, config_keys
from analysis.runs import THREAD_LIST, Part, Run, RunScheme, joined, listed, runs, thread_counts

# One run measures the native operations at every signer count and thread count, counts the
# circuit at every signer count and proves the configured ones (on the largest thread count).
SCHEME = RunScheme("mithril", (Part("threads", "t", THREAD_LIST),))


def plan(cfg: Mapping[str, Any]) -> list[Run]:
    threads = thread_counts(cfg)
    proved = sorted(int(n) for n in cfg["mithril_circuit_n"])
    extra = {
        "native_n": sorted(int(n) for n in cfg["mithril_native_n"]),
        "circuit_n": proved,
        "size_n": sorted({*map(int, cfg["mithril_size_n"]), *proved}),
        "threads": threads,
    }
    return runs(SCHEME, [{"threads": joined(threads)}], cfg, extra)


def command(run: Run, job: Job) -> list[str]:
    """The prover runs on the largest thread count."""
    e = run.extra
    argv = [PROGRAM.path, "--native-n", listed(e["native_n"]), "--threads", listed(e["threads"]),
            "--circuit-n", listed(e["circuit_n"]), "--size-n", listed(e["size_n"]),
            "--prover-threads", str(max(e["threads"])), "--out", job.out]  # fmt: skip
    return argv + (["--seed", job.seed] if job.seed else [])


def features(run: Run) -> dict[str, float]:
    e = run.extra
    threads = float(len(e["threads"]))
    proved = [float(n) for n in e["circuit_n"]]
    counted = [float(n) for n in e["size_n"]]
    return {
        "fixed": 1.0,
        # each native signer count at each thread count: fixed repetitions of every operation,
        # after keys and signatures made for that n
        "native": float(len(e["native_n"])) * threads,
        "native_n": float(sum(e["native_n"])) * threads,
        # each counted circuit is laid out once in a child process (and one with the other BLS
        # check), the larger ones at k = 19
        "sizes": float(len(counted)) + 1.0,
        "size_n": float(sum(counted)),
        # each proof: parameters, keys, witness, prover and verifier in a child process
        "proofs": float(len(proved)),
        "proof_n": float(sum(proved)),
        # memory: the largest child (a proof, or the layout of the largest circuit)
        "any_proof": 1.0 if proved else 0.0,
        "max_proof_n": max(proved, default=0.0),
        "max_size_n": max(counted, default=0.0),
    }


PROGRAM = Program("mithril-bench", "mithril", ("mithril",))

CONFIG = """
mithril_native_n:
  description: >-
    mithril experiment: signer counts of the native MSP runs (BLS12-381), each at every thread
    count
  type: array
  items: {type: integer, minimum: 1, maximum: 65536}
  minItems: 1
  uniqueItems: true
  default: [4, 16, 64, 256, 1024, 4096]
mithril_circuit_n:
  description: >-
    mithril experiment: signer counts proved in the MSP.B circuit (a real proof each, on the
    largest configured thread count): about 2 to 3 min of CPU and 2 to 2.8 GB each at n <= 8
    (k = 18), 6 min and 5.5 GB at n = 32 (k = 19); [] proves nothing
  type: array
  items: {type: integer, minimum: 1, maximum: 1024}
  uniqueItems: true
  default: [1, 2]
mithril_size_n:
  description: >-
    mithril experiment: signer counts whose circuit is laid out and counted without a proof
    (the proved ones are counted too); the cells per signature are fitted over them
  type: array
  items: {type: integer, minimum: 1, maximum: 1024}
  minItems: 1
  uniqueItems: true
  default: [1, 2, 4, 8]
"""

DESCRIPTOR = Experiment(
    scheme=SCHEME,
    title="Mithril's mergeable multisignatures, natively and in a halo2 circuit",
    order=70,
    programs=(PROGRAM,),
    plan=plan,
    command=command,
    features=features,
    config=config_keys(CONFIG),
    smoke={"mithril_native_n": [4, 64], "mithril_circuit_n": [1], "mithril_size_n": [1, 2]},
)
