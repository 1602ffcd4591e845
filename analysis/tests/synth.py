"""Small synthetic results directories, laid out as the workflow lays them out, for tests.

`make_results` plans the runs of a configuration with the workflow's own planner and writes, for
each, a report in our programs' formats, plus `config.json`. Timings are the paper's sample
scaled down; they exercise the parsers and the renderer, they are not measurements.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from analysis import experiments
from analysis import runs as plan_runs
from analysis.experiments.db_sm_rsm.parser import parse_db_text
from analysis.plan import settings

MACHINE = {
    "hostname": "testhost", "cpu_model": "Test CPU", "logical_cpus": 2, "mem_total_gib": 24.0,
    "os": "Linux", "load_avg_1m": 0.5,
}  # fmt: skip
PROVENANCE = {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": False}
SEED = "00000000000000000000000000000000000000000000000000000000000000c5"


def envelope(
    tool: str, parameters: dict[str, Any], body: dict[str, Any], passed: bool = True, seed: str | None = SEED
) -> dict[str, Any]:
    """A report in the suite's envelope (measure/schema/envelope.schema.json) around `body`."""
    machine = {k: v for k, v in MACHINE.items() if k != "load_avg_1m"}
    return {
        "format": "tmbench-report/1", "tool": tool, "tool_version": "0.1.0", "body_version": 2,
        "passed": passed, "parameters": parameters, "seed": seed, "inputs_sha256": "ab" * 32,
        "machine": machine, "provenance": PROVENANCE,
        "runner": {"kind": "native", "image": None, "image_id": None},
        "load": {"start": [0.5, 0.4, 0.3], "end": [0.6, 0.4, 0.3]},
        "resources": {"wall_s": 10.0, "cpu_s": 9.5, "cpu_children_s": 0.0, "peak_rss_mib": 300.0},
        "started_unix": 1790000000.0, "body": body,
    }  # fmt: skip


def enveloped(tool: str, body: dict[str, Any], passed: bool, parameters: dict[str, Any] | None = None,
              seed: str | None = None) -> dict[str, Any]:  # fmt: skip
    """A report in the suite's envelope (measure/schema/envelope.schema.json) around `body`."""
    return {
        "format": "tmbench-report/1", "tool": tool, "tool_version": "0.1.0", "body_version": 2,
        "passed": passed, "parameters": parameters or {}, "seed": seed, "inputs_sha256": "0" * 64,
        "machine": {k: v for k, v in MACHINE.items() if k != "load_avg_1m"}, "provenance": PROVENANCE,
        "runner": {"kind": "native", "image": None, "image_id": None},
        "load": {"start": [0.5, 0.4, 0.3], "end": [0.6, 0.4, 0.3]},
        "resources": {"wall_s": 10.0, "cpu_s": 9.0, "cpu_children_s": 5.0, "peak_rss_mib": 300.0},
        "started_unix": 1.79e9, "body": body,
    }  # fmt: skip


def db_json(
    paper_db: Path,
    out: Path,
    n: int,
    m: int,
    scale: float,
    fail: str | None = None,
    keys: str = "seed",
    **params: Any,
) -> Path:
    rep = parse_db_text(paper_db, "paper")
    keep = {f"mixer {k}" for k in range(m)} | {"verifier"}
    timers = []
    for t in rep.timers:
        if t.party is not None and t.party not in keep:
            continue
        timers.append({"path": list(t.path), "party": t.party, "label": t.label, "seconds": t.seconds * scale,
                       "cpu_seconds": t.seconds * scale, "ops": {}})  # fmt: skip
    # The paper's report has no status_share_decryption (ours adds it).
    statuses = {k: (k != fail) for k in [*rep.statuses, "status_share_decryption"]}
    out.mkdir(parents=True, exist_ok=True)
    f = out / "report.json"
    p = {"n": n, "m": m, "curve": "bn254", "mode": "fast", "security": "128", "threads": 1,
         "tamper": None, "test_keys": keys == "test", "key_cache": None, "calibration": None,
         "transport": "local"}  # fmt: skip
    p.update(params)
    body = {
        "transport": "local",
        "keys": {"source": keys, "secret": keys == "generated", "description": keys,
                 "threshold_modulus_bits": 2050, "mixer_modulus_bits": [2048] * m},
        "security": {"level": "128", "challenge_bits": 128, "batch_bits": 128, "slack_bits": 80,
                     "pok_slack_bits": 80},
        "timers": timers, "statuses": statuses,
        "sizes": {k: v * n / rep.n for k, v in rep.sizes.items()},
        "fixes": ["B5: n+1 deltas"], "speed_probe": {}, "failure": None, "network": None,
        "resumed": None, "transcript_sha256": "0" * 64, "audit": None, "posted": [],
        "sizes_sent": {k: 1.5 * v * n / rep.n for k, v in rep.sizes.items()},
    }  # fmt: skip
    f.write_text(json.dumps(envelope("db-sm-rsm", p, body, passed=fail is None)))
    return f


def zk_json(
    out: Path,
    statement: str,
    n: int,
    prove: float,
    status: str = "PASSED",
    hash: str = "poseidon",
    circuits: tuple[str, ...] = ("zokrates",),
    variant: str = "sound",
    provers: tuple[str, ...] = ("wasm", "native", "snarkjs"),
) -> Path:
    def t(real: float) -> dict[str, float]:
        return {"real": real, "user": real * 0.98, "sys": real * 0.02}

    prover = {
        "prover": "native",
        "sections": {
            "COMPUTATION": t(0.5), "TRUSTED SETUP": t(3.0), "PROVER": t(prove), "VERIFIER": t(0.004),
        },
        "setup_components": {"compile": t(1.0), "setup": t(2.0)},
        "prover_components": {"witness": t(0.1 * prove), "proof": t(0.9 * prove)},
        "status": status, "peak_rss_mib": 300.0, "threads": 1,
    }  # fmt: skip
    wasm = dict(prover, sections={**prover["sections"], "PROVER": t(5 * prove)}, status="PASSED")  # type: ignore[dict-item]
    # snarkjs, the reference: about five times the native proof, its proofs cross-verified.
    snarkjs = dict(prover, sections={**prover["sections"], "PROVER": t(5.5 * prove)},  # type: ignore[dict-item]
                   prover_components={"witness": t(0.1 * prove), "proof": t(5.4 * prove)},
                   status="PASSED", checked_by={"native": True})  # fmt: skip
    native = dict(prover, checked_by={"snarkjs": True})
    out.mkdir(parents=True, exist_ok=True)
    f = out / "report.json"
    zokrates = {
        "name": "zokrates", "description": "the paper's",
        "constraints": 35858 if variant == "sound" else (35091 if statement == "sm" else 35092),
        "provers": {"wasm": wasm, "native": native, "snarkjs": snarkjs},
    }  # fmt: skip
    # Our optimised circuit: about a sixth of the constraints, proven natively and by snarkjs.
    optimized = {
        "name": "optimized", "description": "ours",
        "constraints": 5267 if statement == "sm" else 5271,
        "provers": {
            "native": dict(native, sections={**prover["sections"], "PROVER": t(0.2 * prove)}),  # type: ignore[dict-item]
            "snarkjs": snarkjs,
        },
    }  # fmt: skip
    c = {"zokrates": zokrates, "optimized": optimized}
    for circuit in c.values():
        circuit["provers"] = {k: v for k, v in circuit["provers"].items() if k in provers}  # type: ignore[attr-defined]
    fixes = [] if variant == "as-published" else ["Z1: v < L enforced", "Z2: padding leaves nobody opens"]
    body = {
        "statement": statement, "hash": hash, "variant": variant, "fixes": fixes, "n": n,
        "depth": max(1, (n - 1).bit_length()), "curve": "bn254", "threads": 1, "proven_index": 3,
        "root": "123", "circuits": {k: v for k, v in c.items() if k in circuits},
        "powers_of_tau": {"power": 16, "time": t(12.0), "generated_in_this_run": True, "generator": "native",
                          "by": "zksnark-prover 0.1.0 (arkworks BN254)", "threads": 1, "participants": 1,
                          "source": "generated by zksnark-prover in this run; one participant"},
        "comparison": None, "references": None, "cross_verification": True,
        "versions": {"node": "v20", "zokrates-js": "1.1.9", "zksnark-prover": "0.1.0", "snarkjs": "0.7.6"},
    }  # fmt: skip
    f.write_text(json.dumps(enveloped("zksnark-sm-rsm", body, status == "PASSED",
                                      {"statement": statement, "n": n})))  # fmt: skip
    return f


def cp_json(out: Path, n: int, passed: bool = True) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    f = out / "report.json"
    groups = [
        ("membership_hash protocol proving", 1.1),
        ("membership_hash protocol verification", 0.04),
        ("membership_hash creating witness", 0.9 * n / 10000),
        ("membership_hash creating witness (hashed primes)", 1.2 * n / 10000),
    ]
    parameters = {"n": n, "samples": 10, "threads": 1, "security": "128", "clock": "wall",
                  "groups": ["prove", "verify", "witness", "witness-hashed"], "warm_up_s": 3.0,
                  "measurement_s": 5.0}  # fmt: skip
    body = {
        "security": {"setting": "128", "challenge_bits": 128, "soundness_bits": 128, "zk_slack_bits": 121,
                     "hash_to_prime_bits": 252, "field_bits": 255},
        "proof_bytes": 4384,
        "crs": {"verifying_key_bytes": 1044, "proving_key_bytes": 6853140, "setup_s": 5.0},
        "checks": {"honest_proof": "verified", "last_timed_proof_verified": passed,
                   "failures_in_timed_loops": 0},
        "groups": [{"group": g, "mean_s": v, "ci_low_s": v * 0.99, "ci_high_s": v * 1.01, "median_s": v,
                    "printed": "mean"} for g, v in groups],
        "libraries": {"legogroth16": "0.18", "arkworks": "0.4"},
    }  # fmt: skip
    f.write_text(json.dumps(envelope("cpsnark-bench", parameters, body, passed)))
    return f


def network(profile: str) -> dict[str, object]:
    """collab-groth16's network block for one of netem's named profiles."""
    rtt, rate = {"none": (None, None), "lan": (0.0002, 10**10), "region": (0.02, 10**9),
                 "wan": (0.1, 10**8)}[profile]  # fmt: skip
    return {"profile": profile, "spec": profile, "emulated": profile != "none", "rtt_s": rtt,
            "rate_bits_per_second": rate, "placement": "namespaces", "delay_line": None}  # fmt: skip


def collab_json(out: Path, run: plan_runs.Run, fail: str | None) -> Path:
    """A collab-groth16 report: the slowest party 1.1x (semi-honest) or 1.3x (malicious) the
    single prover, a little more with more parties."""
    single = 1.8 if run.params["circuit"] == "zokrates" else 0.36
    rtt = network(run.extra.get("network", "none"))["rtt_s"]
    wall_extra = 2.0 * rtt if isinstance(rtt, float) else 0.0
    runs = []
    for variant in run.extra["variants"]:
        for m in run.extra["parties"]:
            factor = (1.1 if variant == "semi-honest" else 1.3) + 0.01 * m
            rounds = 2 if variant == "semi-honest" else 6
            ok = fail != f"{variant}:{m}"
            summary = {
                "single_prover_cpu_s": single, "local_prover_cpu_s": single * 0.97,
                "online_cpu_s_max": single * factor, "online_cpu_s_mean": single * factor * 0.99,
                "online_wall_s_max": single * factor * 1.5 + wall_extra * rounds,
                "ratio_to_single_max": factor,
                "ratio_to_single_mean": factor * 0.99, "ratio_to_local_max": factor / 0.97,
                "bytes_sent_max": 4.19e6 * (m - 1), "bytes_received_max": 4.19e6 * (m - 1),
                "rounds": rounds, "preprocessing_cpu_s_max": 0.015,
                "dealer_cpu_s": 0.02,
            }  # fmt: skip
            runs.append(
                {
                    "variant": variant,
                    "parties": m,
                    "status": "PASSED" if ok else "FAILED",
                    "error": None,
                    "security_model": "semi-honest"
                    if variant == "semi-honest"
                    else "malicious with abort: a deviation makes the run abort, or yields a proof every "
                    "party rejects; never an accepted false proof",
                    "summary": summary,
                    "per_party": [{"id": j, "online": {"cpu_s": single * factor}} for j in range(m)],
                }
            )
    out.mkdir(parents=True, exist_ok=True)
    f = out / "report.json"
    body = {
        "curve": "bn254", "inputs": {"constraints": 35091, "wires": 35115, "domain_size": 65536},
        "threads": run.params["threads"], "channels": "plain TCP", "dealer": "trusted",
        "randomness": "the operating system's CSPRNG",
        "single_prover": {"cpu_s": single}, "runs": runs, "versions": {"collab-groth16": "0.1.0"},
        "network": network(run.extra.get("network", "none")),
    }  # fmt: skip
    passed = all(r["status"] == "PASSED" for r in runs)
    f.write_text(json.dumps(enveloped("collab-groth16", body, passed)))
    return f


CMIX_SAMPLE = Path(__file__).resolve().parents[2] / "cmix/data/sample-report.json"


def cmix_json(out: Path, run: plan_runs.Run, fail: str | None) -> Path:
    """The crate's sample report (a real cmix-bench run at 500 clients, one and two threads),
    cut to the run's groups and thread counts and relabelled with its number of clients; `fail`
    names a group whose first run lost a message."""
    ref = json.loads(CMIX_SAMPLE.read_text())
    body = ref["body"]
    clients, groups, threads = run.params["clients"], run.extra["groups"], run.extra["threads"]
    keep = [r for r in body["runs"] if r["group"] in groups and r["threads"] in threads]
    for r in keep:
        r["clients"] = clients
    if fail is not None:
        bad = next(r for r in keep if r["group"] == fail)
        bad["status"] = "FAILED"
        bad["checks"]["delivered_exactly_once"] = False
        bad["checks"]["problems"] = ["slot 3: delivered twice"]
        ref["passed"] = False
    body["runs"] = keep
    body["groups"] = [g for g in body["groups"] if g["label"] in groups]
    body["comparison"] = [
        dict(c, clients=clients)
        for c in body["comparison"]
        if c["threads"] in threads and c["mg_variant"] in groups
    ]
    ref["parameters"].update(clients=[clients], groups=groups, threads=threads)
    ref["provenance"] = PROVENANCE
    ref["machine"] = {k: v for k, v in MACHINE.items() if k != "load_avg_1m"}
    out.mkdir(parents=True, exist_ok=True)
    f = out / "report.json"
    f.write_text(json.dumps(ref))
    return f


def mithril_json(out: Path, run: plan_runs.Run, fail: str | None) -> Path:
    """The crate's sample report (a real mithril-bench run), cut to the run's signer and thread
    counts; `fail` is "proof" (the first proof's verification failed) or "native" (a native row's
    check failed)."""
    ref = json.loads(
        (Path(__file__).resolve().parents[2] / "mithril-msp/data/sample-report.json").read_text()
    )
    e = run.extra
    body = ref["body"]
    native = body["native"]
    native["rows"] = [
        r
        for r in native["rows"]
        if r["threads"] in e["threads"] and (r["n"] in e["native_n"] or r["aggregates"] is not None)
    ]
    circuit = body["circuit"]
    circuit["sizes"] = [s for s in circuit["sizes"] if s["n"] in e["size_n"]]
    circuit["proofs"] = [p for p in circuit["proofs"] if p["n"] in e["circuit_n"]]
    # mithril-stm beside ours (synthetic figures: ours at its b_total, mithril-stm 4 % slower).
    ours = {r["n"]: r["cpu_s"] for r in native["rows"] if r["operation"] == "b_total" and r["threads"] == 1}
    body["stm"] = {
        "library": "mithril-stm 0.9.5 (crates.io)",
        "blst_pool_threads": 1,
        "stm_parameters": {"k": 357, "m": 2642, "phi_f": 0.2},
        "rows": [
            {
                "operation": "verify_aggregate",
                "workload": "like for like",
                "n": n,
                "threads": 1,
                "signatures": n,
                "cpu_s": {k: v * 1.04 for k, v in t.items()},
                "wall_s": {k: v * 1.04 for k, v in t.items()},
                "ours_cpu_s": t,
                "ours_over_stm": 1 / 1.04,
                "verified": True,
            }
            for n, t in sorted(ours.items())
        ],
        "failures": [],
    }
    if fail == "proof" and circuit["proofs"]:
        circuit["proofs"][0]["verified"] = False
        ref["passed"] = False
    elif fail == "native":
        native["rows"][0]["verified"] = False
        ref["passed"] = False
    ref["provenance"], ref["machine"] = PROVENANCE, dict(ref["machine"], hostname=MACHINE["hostname"])
    out.mkdir(parents=True, exist_ok=True)
    f = out / "report.json"
    f.write_text(json.dumps(ref))
    return f


def config(**overrides: Any) -> dict[str, Any]:
    """A checked configuration: the schema's defaults with the given keys changed."""
    cfg: dict[str, Any] = dict(overrides)
    settings.check(cfg)
    return cfg


def write_run(raw: Path, run: plan_runs.Run, paper_dir: Path, fail: Mapping[str, str]) -> None:
    """One run's report; `fail` maps run ids to the status (db), prover status (zk), group (cmix) or
    part (mithril: proof, native) to fail."""
    p = run.params
    out = raw / run.experiment / run.id
    if run.experiment == "db-sm-rsm":
        # Times grow with n and, per mixer, with m; repetitions differ a little.
        scale = p["n"] / 10000 * (0.5 + p["m"] / 8) * (1 + 0.1 * (run.rep - 1))
        db_json(paper_dir / "report-db-sm-rsm-n10000-m4", out, p["n"], p["m"], scale, fail.get(run.id),
                curve=p["curve"], mode=p["mode"], security=p["security"], threads=p["threads"])  # fmt: skip
    elif run.experiment == "zksnark-sm-rsm":
        prove = 1.5 + p["n"] / 1e5 + 0.1 * (run.rep - 1)
        zk_json(out, p["statement"], p["n"], prove, fail.get(run.id, "PASSED"), p["hash"],
                tuple(run.extra["circuits"]), provers=tuple(run.extra["provers"]))  # fmt: skip
    elif run.experiment == "collab-groth16":
        collab_json(out, run, fail.get(run.id))
    elif run.experiment == "cpsnark-sm":
        cp_json(out, p["n"])
    elif run.experiment == "veccom":
        # The crate's sample report: a real run, relabelled with this run's lengths' threads.
        out.mkdir(parents=True, exist_ok=True)
        ref = json.loads((Path(__file__).resolve().parents[2] / "veccom/data/sample-report.json").read_text())
        ref["provenance"] = PROVENANCE
        (out / "report.json").write_text(json.dumps(ref))
    elif run.experiment == "cmix":
        cmix_json(out, run, fail.get(run.id))
    elif run.experiment == "mithril":
        mithril_json(out, run, fail.get(run.id))


def make_results(root: Path, paper_dir: Path, cfg: dict[str, Any] | None = None,
                 fail: Mapping[str, str] | None = None) -> Path:  # fmt: skip
    """A results/ tree of every run of the configuration, and its config.json."""
    cfg = cfg if cfg is not None else config(entries=100, sweep_entries=[200], sweep_mixers=[2])
    planned = experiments.plan(cfg)
    for runs in planned.values():
        for run in runs:
            write_run(root / "raw", run, paper_dir, fail or {})
    (root / "config.json").write_text(json.dumps({
        "config": cfg, "runs": {e: [r.id for r in rs] for e, rs in planned.items()}, "provenance": PROVENANCE,
    }))  # fmt: skip
    return root
