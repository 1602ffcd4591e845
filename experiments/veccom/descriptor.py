"""veccom: vector commitments, pairing-based (BLS12-381) and Merkle (SHA-256, BLAKE3), beside the
published figures of Algorand's veccom-rust benchmark (crate `veccom`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.experiments import Experiment, Job, Program, config_keys
from analysis.runs import THREAD_LIST, Part, Run, RunScheme, joined, listed, runs, thread_counts

# One run measures every configured thread count (the thread counts share one set-up).
SCHEME = RunScheme("veccom", (Part("threads", "t", THREAD_LIST),))


def plan(cfg: Mapping[str, Any]) -> list[Run]:
    threads = thread_counts(cfg)
    extra = {
        "schemes": list(cfg["veccom_schemes"]),
        "pairing_n": sorted(int(n) for n in cfg["veccom_n"]),
        "merkle_n": sorted(int(n) for n in cfg["veccom_merkle_n"]),
        "threads": threads,
    }
    return runs(SCHEME, [{"threads": joined(threads)}], cfg, extra)


def command(run: Run, job: Job) -> list[str]:
    """The ablation runs with the one-thread run only."""
    e = run.extra
    ablation = listed(e["pairing_n"]) if 1 in e["threads"] else "none"
    argv = [PROGRAM.path, "--schemes", listed(e["schemes"]), "--n", listed(e["pairing_n"]),
            "--merkle-n", listed(e["merkle_n"]), "--threads", listed(e["threads"]),
            "--ablation-n", ablation, "--out", job.out]  # fmt: skip
    return argv + (["--seed", job.seed] if job.seed else [])


def features(run: Run) -> dict[str, float]:
    e = run.extra
    threads = len(e["threads"])
    pairing = "pairing-bls12-381" in e["schemes"]
    merkle = sum(1 for s in e["schemes"] if s.startswith("merkle"))
    return {
        "fixed": 1.0,
        # each (scheme, n, threads) is a fixed number of timed repetitions ...
        "groups": threads * (len(e["pairing_n"]) * pairing + len(e["merkle_n"]) * merkle),
        # ... after a set-up that grows with n (pairing parameters, trees)
        "pairing_n": float(sum(e["pairing_n"])) * pairing,
        "merkle_n": float(sum(e["merkle_n"])) * merkle,
    }


PROGRAM = Program("veccom-bench", "veccom", ("veccom",))

CONFIG = """
veccom_n:
  description: vector lengths of the pairing-based vector commitment (veccom experiment)
  type: array
  items: {type: integer, minimum: 2, maximum: 1048576}
  minItems: 1
  uniqueItems: true
  default: [100, 1000]
veccom_merkle_n:
  description: vector lengths of the Merkle vector commitments (veccom experiment)
  type: array
  items: {type: integer, minimum: 2, maximum: 16777216}
  minItems: 1
  uniqueItems: true
  default: [100, 1000]
veccom_schemes:
  description: vector-commitment schemes of the veccom experiment
  type: array
  items: {type: string, enum: [pairing-bls12-381, merkle-sha256, merkle-blake3]}
  minItems: 1
  uniqueItems: true
  default: [pairing-bls12-381, merkle-sha256, merkle-blake3]
"""

DESCRIPTOR = Experiment(
    scheme=SCHEME,
    title="vector commitments, pairing-based and Merkle",
    order=50,
    programs=(PROGRAM,),
    plan=plan,
    command=command,
    features=features,
    config=config_keys(CONFIG),
    smoke={"veccom_n": [16, 64], "veccom_merkle_n": [16, 64]},
)
