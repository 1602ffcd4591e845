"""The runs a configuration makes, and the one name scheme of their directories.

Every run of an experiment lives in `results/raw/<experiment>/<run id>/`. A run id is made of the
run's parameters, joined by `-`, each with a short prefix (`n10000-m4-bn254-fast-s128-t1`); run
k >= 2 of a repeated parameter set appends `-r<k>`. The workflow builds its jobs from `plan()`
and reads a job's parameters back with `RunScheme.parse`; the analysis reads the same ids from
`results/config.json`, so the two can never disagree on a name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Part:
    """One parameter in a run id: its name, the literal before its value, the value's regex."""

    key: str
    prefix: str
    pattern: str
    integer: bool = False


@dataclass(frozen=True)
class RunScheme:
    """How the run ids of one experiment are written and read."""

    experiment: str
    parts: tuple[Part, ...]

    @property
    def regex(self) -> re.Pattern[str]:
        body = "-".join(f"{re.escape(p.prefix)}(?P<{p.key}>{p.pattern})" for p in self.parts)
        return re.compile(rf"{body}(?:-r(?P<rep>[0-9]+))?")

    @property
    def pattern(self) -> str:
        """The regex as text, without named groups (for Snakemake's wildcard constraints)."""
        body = "-".join(f"{re.escape(p.prefix)}(?:{p.pattern})" for p in self.parts)
        return rf"{body}(?:-r[0-9]+)?"

    def name(self, params: Mapping[str, Any], rep: int = 1) -> str:
        text = "-".join(f"{p.prefix}{params[p.key]}" for p in self.parts)
        return text if rep == 1 else f"{text}-r{rep}"

    def parse(self, run_id: str) -> dict[str, Any] | None:
        """The parameters and repetition (`rep`) of a run id, or None if it is not one of ours."""
        m = self.regex.fullmatch(run_id)
        if m is None:
            return None
        out: dict[str, Any] = {}
        for p in self.parts:
            out[p.key] = int(m.group(p.key)) if p.integer else m.group(p.key)
        out["rep"] = int(m.group("rep") or 1)
        return out


@dataclass(frozen=True)
class Run:
    """One job: an experiment's run with its parameters (those in the id and the rest)."""

    experiment: str
    id: str
    params: Mapping[str, Any]
    rep: int = 1
    # Parameters that do not name the directory but change what the run measures.
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dir(self) -> str:
        return f"{self.experiment}/{self.id}"


INT = "[0-9]+"
WORD = "[a-z0-9]+"

SCHEMES: dict[str, RunScheme] = {
    "db-sm-rsm": RunScheme("db-sm-rsm", (
        Part("n", "n", INT, True), Part("m", "m", INT, True),
        Part("curve", "", "bn254|bls12-381"), Part("mode", "", "fast|paper"),
        Part("security", "s", "128|paper"), Part("threads", "t", INT, True),
    )),
    "zksnark-sm-rsm": RunScheme("zksnark-sm-rsm", (
        Part("statement", "", "sm|rsm"), Part("hash", "", "poseidon|sha256"),
        Part("n", "n", INT, True), Part("threads", "t", INT, True),
    )),
    "cpsnark-sm": RunScheme("cpsnark-sm", (
        Part("n", "n", INT, True), Part("threads", "t", INT, True),
    )),
    # One run measures every configured thread count (the thread counts share one set-up).
    "veccom": RunScheme("veccom", (Part("threads", "t", "[0-9]+(?:_[0-9]+)*"),)),
    # The collaborative prover proves a circuit the zkSNARK run of the same statement, n and
    # threads built (Poseidon trees); one run covers every party count and variant.
    "collab-groth16": RunScheme("collab-groth16", (
        Part("statement", "", "sm|rsm"), Part("circuit", "", "zokrates|optimized"),
        Part("n", "n", INT, True), Part("threads", "t", INT, True),
    )),
    # One run per batch size (clients) measures every configured group and thread count: the
    # unit costs behind the lower bounds are timed once and serve them all.
    "cmix": RunScheme("cmix", (
        Part("clients", "c", INT, True), Part("threads", "t", "[0-9]+(?:_[0-9]+)*"),
    )),
    # One run measures the native operations at every signer count and thread count, counts the
    # circuit at every signer count and proves the configured ones (on the largest thread count).
    "mithril": RunScheme("mithril", (Part("threads", "t", "[0-9]+(?:_[0-9]+)*"),)),
}  # fmt: skip


def repetitions(cfg: Mapping[str, Any]) -> range:
    return range(1, int(cfg["repetitions"]) + 1)


def seed_of(cfg: Mapping[str, Any], rep: int) -> int | None:
    """Run k of a parameter set uses seed + k - 1: repetitions differ, yet are reproducible."""
    return None if cfg.get("seed") is None else int(cfg["seed"]) + rep - 1


def set_sizes(cfg: Mapping[str, Any]) -> list[int]:
    return sorted({int(cfg["entries"]), *map(int, cfg["sweep_entries"])})


def _runs(experiment: str, grid: Iterable[dict[str, Any]], cfg: Mapping[str, Any],
          extra: Mapping[str, Any] | None = None) -> list[Run]:  # fmt: skip
    scheme = SCHEMES[experiment]
    out = []
    for params in grid:
        for rep in repetitions(cfg):
            out.append(Run(experiment, scheme.name(params, rep), dict(params), rep, dict(extra or {})))
    return out


def plan_dbsmrsm(cfg: Mapping[str, Any]) -> list[Run]:
    """n is swept at the configured m, and m at the configured n: one parameter at a time, not
    the full grid, to keep the number of long runs down."""
    points = {(n, int(cfg["mixers"])) for n in set_sizes(cfg)}
    points |= {(int(cfg["entries"]), int(m)) for m in cfg["sweep_mixers"]}
    grid = [
        {"n": n, "m": m, "curve": curve, "mode": mode, "security": str(sec), "threads": t}
        for n, m in sorted(points)
        for curve in cfg["curve"]
        for mode in cfg["mode"]
        for sec in cfg["security"]
        for t in cfg["threads"]
    ]
    return _runs("db-sm-rsm", grid, cfg)


# zokrates-js compiles the ZoKrates SHA-256 program up to this tree depth only (deeper, it runs
# out of its 4 GiB WebAssembly memory); our optimised circuit has no such limit.
ZOKRATES_SHA256_MAX_DEPTH = 4


def tree_depth(n: int) -> int:
    return max(1, (n - 1).bit_length())


def zksnark_circuits(cfg: Mapping[str, Any], hash: str, n: int) -> list[str]:
    """The configured circuits a run can prove: ours is proven by the native prover only, and
    the ZoKrates SHA-256 program compiles only for small trees."""
    circuits = list(cfg["zksnark_circuits"])
    if "native" not in cfg["zksnark_provers"]:
        circuits = [c for c in circuits if c != "optimized"]
    if hash == "sha256" and tree_depth(n) > ZOKRATES_SHA256_MAX_DEPTH:
        circuits = [c for c in circuits if c != "zokrates"]
    return circuits


def plan_zksnark(cfg: Mapping[str, Any]) -> list[Run]:
    out = []
    for st in cfg["statements"]:
        for h in cfg["hash"]:
            for n in set_sizes(cfg):
                circuits = zksnark_circuits(cfg, h, n)
                if not circuits:
                    continue
                extra = {
                    "provers": list(cfg["zksnark_provers"]),
                    "circuits": circuits,
                    # the collaborative prover proves the circuit and witness this run builds
                    "keep_build": "collab-groth16" in cfg["experiments"] and h == "poseidon",
                }
                grid = [{"statement": st, "hash": h, "n": n, "threads": t} for t in cfg["threads"]]
                out += _runs("zksnark-sm-rsm", grid, cfg, extra)
    return out


def plan_cpsnark(cfg: Mapping[str, Any]) -> list[Run]:
    grid = [{"n": n, "threads": t} for n in set_sizes(cfg) for t in cfg["threads"]]
    return _runs("cpsnark-sm", grid, cfg, {"samples": int(cfg["cpsnark_samples"])})


def plan_veccom(cfg: Mapping[str, Any]) -> list[Run]:
    threads = sorted(int(t) for t in cfg["threads"])
    extra = {
        "schemes": list(cfg["veccom_schemes"]),
        "pairing_n": sorted(int(n) for n in cfg["veccom_n"]),
        "merkle_n": sorted(int(n) for n in cfg["veccom_merkle_n"]),
        "threads": threads,
    }
    return _runs("veccom", [{"threads": "_".join(map(str, threads))}], cfg, extra)


def plan_collab(cfg: Mapping[str, Any]) -> list[Run]:
    grid = [
        {"statement": st, "circuit": c, "n": n, "threads": t}
        for st in cfg["statements"]
        for c in cfg["zksnark_circuits"]
        for n in set_sizes(cfg)
        for t in cfg["threads"]
    ]
    extra = {
        "parties": sorted(int(m) for m in cfg["collab_parties"]),
        "variants": list(cfg["collab_variants"]),
    }
    return _runs("collab-groth16", grid, cfg, extra)


def plan_cmix(cfg: Mapping[str, Any]) -> list[Run]:
    """One run per client count; each measures every group and thread count, `cmix_reps` batches
    each."""
    threads = sorted(int(t) for t in cfg["threads"])
    extra = {"groups": list(cfg["cmix_groups"]), "threads": threads, "reps": int(cfg["cmix_reps"])}
    joined = "_".join(map(str, threads))
    grid = [{"clients": c, "threads": joined} for c in sorted(map(int, cfg["cmix_clients"]))]
    return _runs("cmix", grid, cfg, extra)


def plan_mithril(cfg: Mapping[str, Any]) -> list[Run]:
    """One run: the native signer counts at every thread count, the circuit's layout at every
    counted signer count (the proved ones too), and a real proof at each proved one."""
    threads = sorted(int(t) for t in cfg["threads"])
    proved = sorted(int(n) for n in cfg["mithril_circuit_n"])
    extra = {
        "native_n": sorted(int(n) for n in cfg["mithril_native_n"]),
        "circuit_n": proved,
        "size_n": sorted({*map(int, cfg["mithril_size_n"]), *proved}),
        "threads": threads,
    }
    return _runs("mithril", [{"threads": "_".join(map(str, threads))}], cfg, extra)


def zksnark_run_of(collab: Run) -> str:
    """The zkSNARK run whose build files (circuit and witness) a collaborative run proves."""
    p = collab.params
    return SCHEMES["zksnark-sm-rsm"].name(
        {"statement": p["statement"], "hash": "poseidon", "n": p["n"], "threads": p["threads"]}, collab.rep
    )


PLANNERS: dict[str, Callable[[Mapping[str, Any]], list[Run]]] = {
    "zksnark-sm-rsm": plan_zksnark,
    "db-sm-rsm": plan_dbsmrsm,
    "cpsnark-sm": plan_cpsnark,
    "veccom": plan_veccom,
    "collab-groth16": plan_collab,
    "cmix": plan_cmix,
    "mithril": plan_mithril,
}

EXPERIMENTS: tuple[str, ...] = tuple(PLANNERS)


def plan(cfg: Mapping[str, Any]) -> dict[str, list[Run]]:
    """Every run of the selected experiments, by experiment, in the order the workflow runs them."""
    return {e: PLANNERS[e](cfg) for e in EXPERIMENTS if e in cfg["experiments"]}


def parse_run_id(experiment: str, run_id: str) -> dict[str, Any] | None:
    scheme = SCHEMES.get(experiment)
    return scheme.parse(run_id) if scheme else None
