"""mithril-bench's report.json and the published reference figures (mithril/data/reference-figures.csv).

One report holds Mithril's MSP measured twice. Native (BLS12-381, blst): each operation (akey,
asig, weights, bkey, bsig, ver, their totals, batch verification) at each signer count and thread
count, CPU and wall time per call (median, min, max over repetitions) beside its counted-operation
lower bound, and the cancellation check. In the circuit (MSP.B over BN254, halo2): the layout of
each signer count (k, rows, advice and lookup cells, columns), the same with the other layout of
the BLS check, each real proof's phases (parameters, keys, witness, prover, verifier: CPU and
wall), proof size and peak memory, the cells of the reference's per-signature design, the fitted lines
against n with their extrapolations; with mithril-stm measured in the same run where the report
has it. The report is the suite's envelope around the body (`load_enveloped`): whether the run
passed is the envelope's `passed`. The comparison with the targets is made in
`analysis/derive/mithril.py`, from these rows.

In the tidy table: `variant` is `native` or `circuit`, `curve` the curve, `n` the signers (for
batch verification: the aggregates checked together, 4 signers each), `section` the operation,
the proof phase or what a group of figures is (`size`, `proof`, `fit`, `extrapolated`,
`reference design`, `mithril-stm`), `mode` the circuit's BLS-check layout (`residue`, `final-exp`).

The reference (a report on proving Mithril's aggregation with halo2-lib) published proving times,
proof sizes and verification times on a 48-core server and a 16 GB M1 laptop; they enter with
source "reference", the machine in `machine`, the group of the keys in `statement`, the circuit's
shape in `label`.
"""

from __future__ import annotations

import csv
from functools import partial
from pathlib import Path
from typing import Any

from analysis.errors import ReportError
from analysis.parse.common import (
    Parsed,
    RunInfo,
    base_row,
    json_line,
    load_enveloped,
    need,
    num,
    numbers,
    objects,
    published,
    report_problems,
    report_run,
    row,
)

EXPERIMENT = "mithril"
REPORT = "mithril-bench"
REFERENCE_FILE = Path(__file__).resolve().parents[2] / "mithril" / "data" / "reference-figures.csv"
REFERENCE_SOURCE = "reference"
REFERENCE_RUN = "Mithril MSP and Benchmark (2024)"
NATIVE_CURVE = "bls12-381"
CIRCUIT_CURVE = "bn254"
OPERATIONS = ("akey", "asig", "weights", "bkey", "bsig", "ver", "a_total", "b_total", "batch_verify",
              "ver_each")  # fmt: skip
BATCH_OPERATIONS = ("batch_verify", "ver_each")
PHASES = ("srs", "keygen", "witness", "prove", "prove_total", "verify")
SIZE_KEYS = ("k", "rows", "lookup_bits", "advice_cells", "lookup_cells", "fixed_cells", "advice_columns",
             "lookup_advice_columns", "fixed_columns")  # fmt: skip
FIT_KEYS = ("advice_cells", "advice_and_lookup_cells", "prove_cpu_s", "prove_wall_s", "keygen_cpu_s",
            "peak_rss_mib")  # fmt: skip
FIT_UNITS = {"advice_cells": "cells", "advice_and_lookup_cells": "cells", "prove_cpu_s": "s",
             "prove_wall_s": "s", "keygen_cpu_s": "s", "peak_rss_mib": "MiB"}  # fmt: skip
PROOF_CHECKS = ("verified", "rejects_changed_public_input", "rejects_changed_proof")
# The reference's columns: key -> (metric, unit, scale to the unit).
REFERENCE_VALUES = {"prove_s": ("prove_published", "s", 1.0), "proof_bytes": ("proof_bytes", "bytes", 1.0),
               "verify_ms": ("verify_published", "s", 1e-3)}  # fmt: skip


def _stat(obj: Any, p: Path, where: str) -> dict[str, float]:
    """A `{median, min, max}` block of seconds."""
    return numbers(obj, p, where, ("median", "min", "max"), "median, min and max")


def _native_rows(
    base: dict[str, Any], native: dict[str, Any], p: Path
) -> tuple[list[dict[str, Any]], list[str]]:
    rows: list[dict[str, Any]] = []
    failed: list[str] = []
    nb = row(base, variant="native", curve=NATIVE_CURVE)
    for where, r in objects(native, "rows", p, "native."):
        op = need(r, "operation", str, p, where)
        if op not in OPERATIONS:
            raise ReportError(
                p, json_line(p, op), f"{where}operation to be one of {', '.join(OPERATIONS)}", op
            )
        n, t = need(r, "n", int, p, where), need(r, "threads", int, p, where)
        aggregates = r.get("aggregates")
        batch = op in BATCH_OPERATIONS
        if batch and not isinstance(aggregates, int):
            raise ReportError(p, None, f"{where}aggregates to be an integer", repr(aggregates))
        label = f"aggregates of {n} signers" if batch else op
        b = row(nb, section=op, n=aggregates if batch else n, threads=t, label=label)
        cpu = _stat(r.get("cpu_s"), p, where + "cpu_s")
        wall = _stat(r.get("wall_s"), p, where + "wall_s")
        rows += [row(b, metric=f"cpu_{k}", value=v, unit="s") for k, v in cpu.items()]
        rows += [row(b, metric=f"wall_{k}", value=v, unit="s") for k, v in wall.items()]
        lb = r.get("lower_bound")
        if isinstance(lb, dict):
            lb_cpu = _stat(lb.get("cpu_s"), p, where + "lower_bound.cpu_s")
            what = str(lb.get("what", "lower bound"))
            rows.append(row(b, label=what, metric="lower_bound_cpu", value=lb_cpu["median"], unit="s"))
            if (x := num(lb.get("ratio_cpu"))) is not None:
                rows.append(row(b, label=what, metric="ratio_to_bound", value=x, unit="x"))
        ok = r.get("verified") is True
        rows.append(row(b, metric="status", value=float(ok), unit="bool"))
        if not ok:
            failed.append(f"native {op} n={n} threads={t}: not verified")
    checks = native.get("checks") or {}
    c = checks.get("cancellation")
    if isinstance(c, dict):
        cb = row(nb, section="cancellation", n=num(c.get("n")) and int(c["n"]), threads=None)
        for key in ("plain_aggregation_accepts", "weighted_aggregation_rejects", "passed"):
            rows.append(row(cb, label=key.replace("_", " "), metric=key, value=float(c.get(key) is True),
                            unit="bool"))  # fmt: skip
        if c.get("passed") is not True:
            failed.append("cancellation check failed")
    return rows, failed


def _size_rows(base: dict[str, Any], s: dict[str, Any], p: Path, where: str) -> list[dict[str, Any]]:
    n = need(s, "n", int, p, where)
    # The report's size rows are flat: the layout's figures beside n and the BLS check.
    size = s["size"] if isinstance(s.get("size"), dict) else s
    b = row(base, section="size", n=n, mode=str(s.get("pairing_check")), label="circuit layout")
    figures = numbers(size, p, f"{where}size", SIZE_KEYS, "the layout's figures", "a number")
    out = [row(b, metric=key, value=v, unit="count") for key, v in figures.items()]
    for key, unit in (("layout_cpu_s", "s"), ("peak_rss_mib", "MiB")):
        if (v := num(s.get(key))) is not None:
            out.append(row(b, metric=key.removesuffix("_s").removesuffix("_mib"), value=v, unit=unit))
    return out


def _proof_rows(
    base: dict[str, Any], r: dict[str, Any], p: Path, where: str
) -> tuple[list[dict[str, Any]], list[str]]:
    n, t = need(r, "n", int, p, where), need(r, "threads", int, p, where)
    size = need(r, "size", dict, p, where)
    b = row(base, n=n, threads=t, mode=str(r.get("pairing_check")))
    out = []
    k = num(size.get("k"))
    if k is not None:
        out.append(row(b, section="proof", label="log2 rows", metric="k", value=k, unit="count"))
    for ph in PHASES:
        times = numbers(need(r, ph, dict, p, where), p, where + ph, ("cpu_s", "wall_s"), "", "a number", None)
        out += [
            row(b, section=ph, label=ph, metric=k.removesuffix("_s"), value=v, unit="s")
            for k, v in times.items()
        ]
    pb = row(b, section="proof", label="proof")
    out.append(
        row(pb, metric="proof_bytes", value=float(need(r, "proof_bytes", int, p, where)), unit="bytes")
    )
    out.append(row(pb, metric="peak_rss", value=float(need(r, "peak_rss_mib", (int, float), p, where)),
                   unit="MiB"))  # fmt: skip
    for i, v in enumerate(r.get("load_avg_1m") or []):
        if (x := num(v)) is not None:
            out.append(row(pb, label="one-minute load average", metric=("load_start", "load_end")[min(i, 1)],
                           value=x, unit="load"))  # fmt: skip
    bad = [c.replace("_", " ") for c in PROOF_CHECKS if r.get(c) is not True]
    for c in PROOF_CHECKS:
        out.append(row(pb, label=c.replace("_", " "), metric=c, value=float(r.get(c) is True), unit="bool"))
    return out, [f"proof n={n}: {', '.join(bad)} failed"] if bad else []


def _fit_rows(base: dict[str, Any], fit: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for key in FIT_KEYS:
        line = fit.get(key)
        if not isinstance(line, dict):
            continue
        b = row(base, section="fit", label=key, n=None)
        for m in ("intercept", "slope", "r2", "points"):
            if (v := num(line.get(m))) is not None:
                out.append(
                    row(b, metric=m, value=v, unit=FIT_UNITS[key] if m in ("intercept", "slope") else "-")
                )
    for m in fit.get("marginal") or []:
        if isinstance(m, dict) and (v := num(m.get("advice_cells_per_signature"))) is not None:
            out.append(row(base, section="marginal", n=m.get("to_n"), label=f"from n={m.get('from_n')}",
                           metric="advice_cells_per_signature", value=v, unit="cells"))  # fmt: skip
    for e in fit.get("extrapolations") or []:
        if not isinstance(e, dict) or not isinstance(e.get("n"), int) or e.get("extrapolated") is not True:
            continue
        b = row(base, section="extrapolated", n=e["n"], label="extrapolated from the fitted line")
        for key in FIT_KEYS:
            if (v := num(e.get(key))) is not None:
                out.append(row(b, metric=key, value=v, unit=FIT_UNITS[key]))
    return out


def _stm_rows(base: dict[str, Any], stm: dict[str, Any], p: Path) -> list[dict[str, Any]]:
    """mithril-stm measured in the same run: each operation's CPU time per call at each n, beside
    ours (the ratio ours / mithril-stm), the multisignature layer like for like and the full STM
    verification as a labelled extra."""
    out = []
    rb = row(base, variant="native", curve=NATIVE_CURVE, section="mithril-stm")
    for where, r in objects(stm, "rows", p, "stm."):
        op = need(r, "operation", str, p, where)
        b = row(rb, n=need(r, "n", int, p, where), threads=need(r, "threads", int, p, where),
                label=f"{op}: {r.get('workload', '')}", prover=op)  # fmt: skip
        cpu = _stat(r.get("cpu_s"), p, where + "cpu_s")
        out.append(row(b, metric="stm_cpu", value=cpu["median"], unit="s"))
        for key, metric, unit in (("ours_cpu_s", "ours_cpu", "s"), ("ours_over_stm", "ratio", "x")):
            if (x := num(r.get(key))) is not None:
                out.append(row(b, metric=metric, value=x, unit=unit))
        out.append(row(b, metric="status", value=float(r.get("verified") is True), unit="bool"))
    return out


def report_rows(p: Path, run: str) -> tuple[list[dict[str, Any]], RunInfo]:
    env = load_enveloped(p, REPORT)
    d = env.body
    versions = env.tool_versions("mithril")
    base = env.base_row(EXPERIMENT, run, versions=versions, party=None)
    failed: list[str] = []
    rows = env.load_rows(base)
    if (v := num((env.envelope.get("resources") or {}).get("wall_s"))) is not None:
        rows.append(row(base, section="run", label="the run", metric="wall", value=v, unit="s"))
    threads: set[int] = set()
    native = d.get("native")
    if native is not None:
        if not isinstance(native, dict):
            raise ReportError(p, json_line(p, "native"), "native to be an object or null")
        nrows, nfail = _native_rows(base, native, p)
        rows += nrows
        failed += nfail
        threads |= {int(r["threads"]) for r in nrows if r["threads"] is not None}
    circuit = d.get("circuit")
    if circuit is not None:
        if not isinstance(circuit, dict):
            raise ReportError(p, json_line(p, "circuit"), "circuit to be an object or null")
        cb = row(base, variant="circuit", curve=CIRCUIT_CURVE, mode=str(circuit.get("pairing_check")))
        for key in ("sizes", "ablation"):
            for where, s in objects(circuit, key, p, "circuit."):
                rows += _size_rows(cb, s, p, where)
        for where, r in objects(circuit, "proofs", p, "circuit."):
            prows, pfail = _proof_rows(cb, r, p, where)
            rows += prows
            failed += pfail
        for f in circuit.get("failures") or []:
            if isinstance(f, dict):
                failed.append(f"circuit {f.get('part')} n={f.get('n')}: {f.get('error')}")
        design = circuit.get("reference_design")
        if isinstance(design, dict):
            db = row(cb, section="reference design", label=str(design.get("what", "the reference's design")))
            for key in ("g1_scalar_mult_cells", "g2_scalar_mult_cells", "cells_per_signature"):
                if (v := num(design.get(key))) is not None:
                    rows.append(row(db, metric=key, value=v, unit="cells"))
        if isinstance(circuit.get("fit"), dict):
            rows += _fit_rows(cb, circuit["fit"])
    if isinstance(d.get("stm"), dict):
        rows += _stm_rows(base, d["stm"], p)
    if not env.passed and not failed:
        failed = ["the report says the run did not pass"]
    return rows, env.settle(rows, EXPERIMENT, run, failed, threads, versions)


def load_run(run_dir: Path, run_id: str, params: dict[str, Any]) -> Parsed:
    read = partial(report_rows, run=run_id)
    return report_run(
        EXPERIMENT, run_dir, run_id, read, variant=None, n=None, threads=None, curve=None, mode=None
    )


def load_reference(_paper_dir: Path) -> Parsed:
    """The published reference figures: MSP.A and MSP.B proofs on its machines, and its failures."""
    p = published(REFERENCE_FILE, "the reference figures (shipped in mithril/data/)")
    rows: list[dict[str, Any]] = []
    with p.open(encoding="utf-8", newline="") as f:
        for no, r in enumerate(csv.DictReader(f), start=2):
            experiment = r.get("experiment") or ""
            if experiment not in ("msp_a", "msp_b"):
                raise ReportError(p, no, "experiment msp_a or msp_b", experiment)
            try:
                n = int(r["n"])
            except (KeyError, TypeError, ValueError):
                raise ReportError(p, no, "an integer in column n", r.get("n")) from None
            status = r.get("status") or ""
            shape = ", ".join(
                text.format(r[k])
                for k, text in (("k", "k = {}"), ("advice_columns", "{} advice columns"),
                                ("lookup_bits", "lookup bits {}"), ("limb_bits", "{}-bit limbs"))
                if r.get(k)
            )  # fmt: skip
            b = base_row(EXPERIMENT, REFERENCE_SOURCE, REFERENCE_RUN, p, machine=r.get("machine", ""),
                         variant=experiment, statement=r.get("keys_in") or None, n=n, curve=CIRCUIT_CURVE,
                         section="proof", party=None, label=shape or "shape not stated")  # fmt: skip
            if status != "ok":
                rows.append(row(b, metric="status", value=0.0, unit=status or "failed"))
                continue
            rows.append(row(b, metric="status", value=1.0, unit="ok"))
            for key, (metric, unit, scale) in REFERENCE_VALUES.items():
                raw = (r.get(key) or "").strip()
                if not raw:
                    continue
                try:
                    value = float(raw) * scale
                except ValueError:
                    raise ReportError(p, no, f"a number in column {key}", raw) from None
                rows.append(row(b, metric=metric, value=value, unit=unit))
    info = RunInfo(EXPERIMENT, REFERENCE_SOURCE, REFERENCE_RUN, str(p), True, None)
    return Parsed(rows, [info], [])


def problems(run_dir: Path) -> list[str]:
    return report_problems(run_dir, lambda js: report_rows(js, run_dir.name)[1].failed)
