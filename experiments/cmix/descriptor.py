"""cmix: the cMix mixnet with three node processes and the clients over TLS, elliptic-curve
against multiplicative-group ElGamal, beside a thesis's published figures (crate `cmix`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.experiments import Experiment, Job, Program, config_keys
from analysis.runs import INT, THREAD_LIST, Part, Run, RunScheme, joined, listed, runs, thread_counts

# One run per batch size (clients) measures every configured group and thread count: the unit
# costs behind the lower bounds are timed once and serve them all.
SCHEME = RunScheme("cmix", (Part("clients", "c", INT, True), Part("threads", "t", THREAD_LIST)))


def plan(cfg: Mapping[str, Any]) -> list[Run]:
    """One run per client count; each measures every group and thread count, `cmix_reps`
    batches each."""
    threads = thread_counts(cfg)
    extra = {"groups": list(cfg["cmix_groups"]), "threads": threads, "reps": int(cfg["cmix_reps"])}
    grid = [{"clients": c, "threads": joined(threads)} for c in sorted(map(int, cfg["cmix_clients"]))]
    return runs(SCHEME, grid, cfg, extra)


def command(run: Run, job: Job) -> list[str]:
    e = run.extra
    argv = [PROGRAM.path, "--clients", str(run.params["clients"]), "--groups", listed(e["groups"]),
            "--threads", listed(e["threads"]), "--reps", str(e["reps"]), "--out", job.out]  # fmt: skip
    return argv + (["--seed", job.seed] if job.seed else [])


def features(run: Run) -> dict[str, float]:
    e = run.extra
    clients, configs = float(run.params["clients"]), float(len(e["threads"]))
    out = {
        "fixed": 1.0,
        # each group's operations are timed alone once per run (the lower bounds' unit costs)
        "groups": float(len(e["groups"])),
        # the node processes' memory grows with the batch; the MODP group's fixed-base tables are
        # the largest part of it
        "clients": clients,
        "modp": 1.0 if any(g.startswith("mg") for g in e["groups"]) else 0.0,
    }
    for g in ("ec", "mg", "mg-full"):
        key = g.replace("-", "_")
        on = configs if g in e["groups"] else 0.0
        # per thread count: nodes started, every client's TLS handshakes and registration ...
        out[f"{key}_clients"] = on * clients
        # ... then reps batches of one slot per client
        out[f"{key}_slots"] = on * clients * float(e["reps"])
    return out


PROGRAM = Program("cmix-bench", "cmix", ("cmix",))

CONFIG = """
cmix_clients:
  description: >-
    cmix experiment: clients per batch (one message each, the batch's slots), one run per
    value; the thesis compared with measured 500 (and 100 to 400)
  type: array
  items: {type: integer, minimum: 16, maximum: 100000}
  minItems: 1
  uniqueItems: true
  default: [500]
cmix_groups:
  description: >-
    cmix experiment: ElGamal groups; ec = ristretto255, mg = 2048-bit MODP group with 256-bit
    exponents, mg-full = the same group with full-length exponents
  type: array
  items: {type: string, enum: [ec, mg, mg-full]}
  minItems: 1
  uniqueItems: true
  default: [ec, mg, mg-full]
cmix_reps:
  description: >-
    cmix experiment: batches per group, client count and thread count (mean, standard deviation
    and median over them; the thesis averaged 100)
  type: integer
  minimum: 1
  maximum: 10000
  default: 5
"""

DESCRIPTOR = Experiment(
    scheme=SCHEME,
    title="the cMix mixnet: three nodes over TLS, elliptic-curve against MODP ElGamal",
    order=60,
    programs=(PROGRAM,),
    plan=plan,
    command=command,
    features=features,
    config=config_keys(CONFIG),
    smoke={"cmix_clients": [100], "cmix_reps": 2},
)
