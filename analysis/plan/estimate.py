"""How long each job will take and how much memory it will need, before it runs.

The model of each experiment is a sum of measured per-unit costs times the run's sizes
(`features`): for db-sm-rsm, seconds per entry and mixer, per entry and mixer pair (each mixer
checks the others' proofs) and a fixed part; for the single-proof experiments, a fixed part and a
part per set element. The coefficients live in `analysis/data/costs.yaml`, fitted by
`python -m analysis costs RESULTS_DIR...` from the CPU time and peak memory Snakemake measured for
real runs (each job's `benchmark.tsv`), on the machine whose speed probe the file records.

On another machine, or on this one at a busier moment, times scale by the ratio of the speed
probe (a few big-number exponentiations, about 0.3 s in all) to the recorded one. Threads divide the
parallel part of a job by min(threads, cores). Memory does not scale with speed.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from analysis.plan.runs import Run

COSTS_PATH = Path(__file__).resolve().parents[1] / "data" / "costs.yaml"
# RESULTS/PLANNED_NAME: every measured run's estimate as printed before it ran (record_planned).
PLANNED_NAME = "estimates.json"

# A job claims this much more time than estimated before a scheduler may kill it, plus a floor:
# the estimate is a median, the machine's speed drifts, and a killed run measures nothing.
RUNTIME_FACTOR = 3.0
RUNTIME_FLOOR_MIN = 10
MEMORY_FACTOR = 1.5
MEMORY_FLOOR_MB = 512


def probe_seconds(rounds: int = 3) -> float:
    """Best of `rounds` timings of 6 modular exponentiations with 2048-bit numbers.

    Best-of, because other processes only ever make a round slower; Python's own big integers,
    so the probe needs nothing built.
    """
    rng = random.Random(20240101)
    modulus = rng.getrandbits(2048) | (1 << 2047) | 1
    bases = [rng.getrandbits(2040) for _ in range(6)]
    exponent = rng.getrandbits(2048)
    best = math.inf
    for _ in range(rounds):
        start = time.process_time()
        for b in bases:
            pow(b, exponent, modulus)
        best = min(best, time.process_time() - start)
    return best


@dataclass(frozen=True)
class Estimate:
    run: Run
    cpu_s: float  # CPU seconds on this machine
    wall_s: float  # wall seconds at the run's thread count
    memory_mb: float

    @property
    def runtime_min(self) -> int:
        """Minutes a scheduler should allow the job."""
        return math.ceil(self.wall_s * RUNTIME_FACTOR / 60) + RUNTIME_FLOOR_MIN

    @property
    def mem_mb(self) -> int:
        """Memory a scheduler should reserve for the job."""
        return max(MEMORY_FLOOR_MB, math.ceil(self.memory_mb * MEMORY_FACTOR))


def features(run: Run) -> dict[str, float]:
    """The sizes a run's cost grows with (the names used in costs.yaml)."""
    p = run.params
    if run.experiment == "db-sm-rsm":
        n, m = float(p["n"]), float(p["m"])
        return {"fixed": 1.0, "n_m": n * m, "n_m2": n * m * m}
    if run.experiment == "zksnark-sm-rsm":
        n = float(p["n"])
        provers = run.extra.get("provers", ["native"])
        circuits = run.extra.get("circuits", ["zokrates"])
        zokrates = 1.0 if "zokrates" in circuits else 0.0
        depth = max(1.0, math.ceil(math.log2(max(2.0, n))))
        return {
            "fixed": 1.0,
            "n": n,
            "depth": depth,
            "wasm": zokrates if "wasm" in provers else 0.0,
            "native": zokrates if "native" in provers else 0.0,
            "optimized": 1.0 if "optimized" in circuits and "native" in provers else 0.0,
        }
    if run.experiment == "cpsnark-sm":
        n, samples = float(p["n"]), float(run.extra.get("samples", 100))
        return {"fixed": 1.0, "samples": samples, "samples_n": samples * n, "n": n}
    if run.experiment == "collab-groth16":
        e = run.extra
        runs = len(e["variants"]) * len(e["parties"])
        return {
            "fixed": 1.0,
            # every party of every run proves once (they share the machine) ...
            "party_proofs": float(len(e["variants"]) * sum(e["parties"])),
            # ... and the single and local provers are sampled around each run
            "samples": float(runs + 1),
        }
    if run.experiment == "veccom":
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
    if run.experiment == "cmix":
        e = run.extra
        clients, configs = float(run.params["clients"]), float(len(e["threads"]))
        out = {
            "fixed": 1.0,
            # each group's operations are timed alone once per run (the lower bounds' unit costs)
            "groups": float(len(e["groups"])),
            # the node processes' memory grows with the batch; the MODP group's fixed-base tables
            # are the largest part of it
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
    if run.experiment == "mithril":
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
    raise KeyError(f"no cost model for experiment {run.experiment}")


def variant_keys(run: Run) -> list[str]:
    """Multipliers in costs.yaml that apply to this run (mode, curve, security, hash)."""
    p = run.params
    keys = []
    for k in ("mode", "curve", "security", "hash", "circuit"):
        if k in p:
            keys.append(f"{k}={p[k]}")
    return keys


@dataclass
class CostModel:
    costs: dict[str, Any]
    probe_s: float  # this machine's probe, now

    @classmethod
    def load(cls, path: Path = COSTS_PATH, probe_s: float | None = None) -> CostModel:
        with path.open(encoding="utf-8") as f:
            costs = yaml.safe_load(f)
        return cls(costs, probe_s if probe_s is not None else probe_seconds())

    @property
    def speed_ratio(self) -> float:
        """This machine's time over the reference machine's, for the same CPU work."""
        ref = float(self.costs["reference"]["probe_s"])
        return self.probe_s / ref if ref > 0 else 1.0

    def estimate(self, run: Run) -> Estimate:
        model = self.costs["experiments"][run.experiment]
        f = features(run)
        cpu = sum(float(model["time"].get(k, 0.0)) * v for k, v in f.items())
        mem = sum(float(model["memory_mb"].get(k, 0.0)) * v for k, v in f.items())
        for key in variant_keys(run):
            cpu *= float(model.get("variants", {}).get(key, 1.0))
        cpu *= self.speed_ratio
        threads = min(int(t) for t in str(run.params.get("threads", 1)).split("_"))
        parallel = float(model.get("parallel_fraction", 0.9))
        usable = max(1, min(threads, os.cpu_count() or 1))
        wall = cpu * ((1 - parallel) + parallel / usable)
        return Estimate(run, cpu, wall, mem)

    def estimate_all(self, runs: Sequence[Run]) -> list[Estimate]:
        return [self.estimate(r) for r in runs]


def machine_memory_mb() -> float:
    """Total memory of this machine (from /proc/meminfo; the page count elsewhere)."""
    try:
        with Path("/proc/meminfo").open(encoding="ascii") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20


def human_time(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def table(estimates: Sequence[Estimate], model: CostModel, limit_mb: float) -> str:
    """The table the workflow prints before it runs anything."""
    rows = [("job", "threads", "time", "peak memory")]
    for e in estimates:
        rows.append((e.run.dir, str(e.run.params.get("threads", 1)), human_time(e.wall_s),
                     f"{e.memory_mb:,.0f} MB"))  # fmt: skip
    total = sum(e.wall_s for e in estimates)
    peak = max((e.memory_mb for e in estimates), default=0.0)
    rows.append(("total (one job at a time)", "", human_time(total), f"{peak:,.0f} MB at most"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.insert(len(lines) - 1, "  ".join("-" * w for w in widths))
    ref = model.costs["reference"]
    lines.append(
        f"Estimated from per-unit costs measured on {ref['machine']} (analysis/data/costs.yaml), "
        f"scaled by this machine's speed probe ({model.probe_s * 1000:.0f} ms against "
        f"{float(ref['probe_s']) * 1000:.0f} ms there: x{model.speed_ratio:.2f}); memory limit "
        f"{limit_mb / 1024:.1f} GiB."
    )
    return "\n".join(lines)


def too_big(estimates: Sequence[Estimate], limit_mb: float) -> list[Estimate]:
    return [e for e in estimates if e.memory_mb > limit_mb]


def write_text_atomically(path: Path, text: str) -> None:
    """Write text to path through a temporary file beside it, so no reader sees half of it."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def record_planned(results: Path, estimates: Sequence[Estimate], probe_s: float) -> Path:
    """Write RESULTS/estimates.json: each run about to be measured, with the estimate printed
    before it and the speed probe behind that estimate.

    A run measured earlier (its benchmark.tsv exists) keeps the record of the invocation that
    ran it, so a later check compares every run with the estimate made when it ran, not with one
    scaled by a probe taken afterwards on a machine whose load has changed since.
    """
    path = results / PLANNED_NAME
    try:
        recorded = json.loads(path.read_text(encoding="utf-8")).get("runs", {})
    except (OSError, ValueError, AttributeError):
        recorded = {}
    runs = {k: v for k, v in recorded.items() if (results / "raw" / k / "benchmark.tsv").exists()}
    for e in estimates:
        if e.run.dir not in runs:
            runs[e.run.dir] = {
                "estimated_one_thread_s": round(e.cpu_s, 3),
                "estimated_wall_s": round(e.wall_s, 3),
                "estimated_memory_mb": round(e.memory_mb, 1),
                "probe_s": round(probe_s, 5),
            }
    results.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, json.dumps({"runs": runs}, indent=2, sort_keys=True) + "\n")
    return path
