"""zksnark-sm-rsm, the paper's experiment 2: one single-prover Groth16 proof of (reverse) set
membership in a Merkle tree: the paper's ZoKrates circuit (zokrates-js and a native ark-groth16
prover) and our optimised circuit, driven by Node (`zksnark-sm-rsm/run.mjs`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from analysis.experiments import Experiment, Image, Job, Program, config_keys
from analysis.runs import INT, Part, Run, RunScheme, runs, set_sizes, thread_counts

SCHEME = RunScheme("zksnark-sm-rsm", (
    Part("statement", "", "sm|rsm"), Part("hash", "", "poseidon|sha256"),
    Part("n", "n", INT, True), Part("threads", "t", INT, True),
))  # fmt: skip

# zokrates-js compiles the ZoKrates SHA-256 program up to this tree depth only (deeper, it runs
# out of its 4 GiB WebAssembly memory); our optimised circuit has no such limit.
ZOKRATES_SHA256_MAX_DEPTH = 4


def tree_depth(n: int) -> int:
    return max(1, (n - 1).bit_length())


def run_provers(cfg: Mapping[str, Any], hash: str) -> list[str]:
    """The configured provers a run uses: snarkjs proves the Poseidon circuits (the SHA-256
    circuit's witness is written by zokrates-js in a form snarkjs does not read)."""
    return [p for p in cfg["zksnark_provers"] if not (p == "snarkjs" and hash == "sha256")]


def circuits(cfg: Mapping[str, Any], hash: str, n: int) -> list[str]:
    """The configured circuits a run can prove: ours is proven by the native prover only, and
    the ZoKrates SHA-256 program compiles only for small trees (zokrates-js is 32-bit
    WebAssembly: a depth-5 tree exhausts its 4 GiB)."""
    out = list(cfg["zksnark_circuits"])
    if "native" not in cfg["zksnark_provers"]:
        out = [c for c in out if c != "optimized"]
    if hash == "sha256" and tree_depth(n) > ZOKRATES_SHA256_MAX_DEPTH:
        out = [c for c in out if c != "zokrates"]
    return out


def plan(cfg: Mapping[str, Any]) -> list[Run]:
    out = []
    for st in cfg["statements"]:
        for h in cfg["hash"]:
            for n in set_sizes(cfg):
                cs = circuits(cfg, h, n)
                if not cs:
                    continue
                extra = {
                    "provers": run_provers(cfg, h),
                    "circuits": cs,
                    "variant": cfg["zksnark_variant"],
                    # another selected experiment proves the circuit and witness of the Poseidon
                    # runs (see Experiment.reads): keep them
                    "keep_build": h == "poseidon" and bool(cfg.get("read_by", {}).get(SCHEME.experiment)),
                }
                grid = [{"statement": st, "hash": h, "n": n, "threads": t} for t in thread_counts(cfg)]
                out += runs(SCHEME, grid, cfg, extra)
    return out


def command(run: Run, job: Job) -> list[str]:
    p, e = run.params, run.extra
    # snarkjs's powers of tau are made once per machine and size, and kept with the results (so
    # that a run in a container finds them too).
    env = ["env", f"ZKSNARK_PTAU_DIR={job.results}/ptau"] if "snarkjs" in e["provers"] else []
    argv = [*env, "node", "zksnark-sm-rsm/run.mjs", "--statement", p["statement"], "--n", str(p["n"]),
            "--hash", p["hash"], "--threads", str(p["threads"]), "--out", job.out,
            "--variant", e["variant"], "--provers", ",".join(e["provers"]),
            "--circuits", ",".join(e["circuits"])]  # fmt: skip
    argv += ["--seed", job.seed] if job.seed else []
    return argv + (["--keep-build"] if e["keep_build"] else [])


def check(cfg: Mapping[str, Any]) -> list[str]:
    if "optimized" in cfg["zksnark_circuits"] and "native" not in cfg["zksnark_provers"]:
        return [
            "config key 'zksnark_circuits': the optimized circuit is proven by the native prover; "
            "add native to 'zksnark_provers' or leave optimized out"
        ]
    return []


def features(run: Run) -> dict[str, float]:
    n = float(run.params["n"])
    provers = run.extra.get("provers", ["native"])
    cs = run.extra.get("circuits", ["zokrates"])
    zokrates = 1.0 if "zokrates" in cs else 0.0
    return {
        "fixed": 1.0,
        "n": n,
        "depth": max(1.0, math.ceil(math.log2(max(2.0, n)))),
        "wasm": zokrates if "wasm" in provers else 0.0,
        "native": zokrates if "native" in provers else 0.0,
        "optimized": 1.0 if "optimized" in cs and "native" in provers else 0.0,
        # snarkjs sets up, proves and verifies every circuit (its powers of tau are made once
        # per machine and size, and kept)
        "snarkjs": float(len(cs)) if "snarkjs" in provers else 0.0,
    }


CONFIG = """
statements:
  description: zkSNARK statements; sm = set membership, rsm = reverse set membership
  type: array
  items: {type: string, enum: [sm, rsm]}
  minItems: 1
  uniqueItems: true
  default: [sm, rsm]
hash:
  description: Merkle-tree hash of the zkSNARK circuits
  type: array
  items: {type: string, enum: [poseidon, sha256]}
  minItems: 1
  uniqueItems: true
  default: [poseidon]
zksnark_provers:
  description: >-
    zkSNARK provers to run on the same circuits and inputs: wasm (zokrates-js), native (our
    ark-groth16 prover) and snarkjs (the circom ecosystem's Groth16, Poseidon trees; its proofs
    and the native ones are verified by both verifiers); the analysis's figures use native and
    say so
  type: array
  items: {type: string, enum: [wasm, native, snarkjs]}
  minItems: 1
  uniqueItems: true
  default: [wasm, native, snarkjs]
zksnark_variant:
  description: >-
    statement of the zkSNARK circuits: sound (the default: v < L enforced, padding leaves that
    nobody can open) or as-published (the paper's statement, which accepts v + kL in RSM and 0
    through a padding leaf); the report and the PDF name the variant
  type: string
  enum: [sound, as-published]
  default: sound
zksnark_circuits:
  description: >-
    circuits of the zkSNARK statements: zokrates = the paper's ZoKrates circuit, optimized =
    ours, built for the fewest constraints (Poseidon trees, native prover); both by default
  type: array
  items: {type: string, enum: [zokrates, optimized]}
  minItems: 1
  uniqueItems: true
  default: [zokrates, optimized]
"""

DESCRIPTOR = Experiment(
    scheme=SCHEME,
    title="single-prover zkSNARK set membership in a Merkle tree (the paper's experiment 2)",
    order=20,
    programs=(
        Program("zksnark-prover", "zksnark-prover", ("zksnark-sm-rsm/prover",)),
        Program(
            "zksnark-optimized", "zksnark-optimized", ("zksnark-sm-rsm/optimized", "zksnark-sm-rsm/prover")
        ),
    ),
    plan=plan,
    command=command,
    features=features,
    config=config_keys(CONFIG),
    check=check,
    node_packages=("zksnark-sm-rsm",),
    tools=("cargo", "node", "npm"),
    image=Image(
        paths=("zksnark-sm-rsm/run.mjs", "zksnark-sm-rsm/lib", "zksnark-sm-rsm/package.json"), node=True
    ),
)
