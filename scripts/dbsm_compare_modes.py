#!/usr/bin/env python3
"""Compare db-sm-rsm's paper mode and fast mode in one go.

Runs `db-sm-rsm N M --mode paper` and `--mode fast` with the same seed and thread count, reads
both JSON reports and prints, per party and section: paper-mode time, fast-mode time, their
ratio, fast-mode time over its computed lower bound (needs a calibration file: the JSON's
`lower_bound_s`), and the fast mode's operation counts per entry.

Times are wall-clock seconds of each party's steps as the report records them; on the shared
2-core machine compare ratios within one invocation, not across invocations.

    python3 scripts/dbsm_compare_modes.py --n 1000 --m 4 --threads 1 \
        --calibration target/calibration.json [--scaling 2]

With `--scaling T` fast mode also runs with T threads, once before and once after the fast run
it is compared with (so a drift of the machine's speed affects both sides alike), and then as
T/threads independent copies side by side. More columns give the T-thread runs' mean time, their
speed-up over the fast run (wall time: the point of threads), the machine's parallel ceiling,
the speed-up over it, and the parallelism of the T-thread runs.

The ceiling is the most T threads can gain on this machine for this very work: copies that
share nothing cannot hold each other back, so copies x (time alone) / (time of a copy side by
side) is what perfect parallel code would reach. On a dedicated multi-core machine it is T; on
the project's shared 2-vCPU VM, where each vCPU shares its physical core with other tenants, two
copies ran DB-SM 12-28 % slower each than one alone minutes before. The parallelism is CPU time
over wall time within the T-thread runs (T if every thread was busy throughout; it compares
nothing across runs, so the machine's drift cannot bend it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SECTIONS = ["checking inputs", "mixing", "forward set membership", "reverse set membership"]


def run_modes(
    args: argparse.Namespace, mode: str, outs: list[Path], threads: int | None = None
) -> list[dict]:
    """Runs one copy of the binary per output file, all at once (seeds seed, seed+1, ...), and
    returns their JSON reports; exits with a message if any fails or prints a False status."""
    procs = []
    for k, out in enumerate(outs):
        cmd = [
            str(args.binary),
            str(args.n),
            str(args.m),
            "--mode",
            mode,
            "--curve",
            args.curve,
            "--threads",
            str(threads or args.threads),
            "--seed",
            str(args.seed + k),
            "--json",
            str(out),
        ]
        if args.calibration:
            cmd += ["--calibration", str(args.calibration)]
        print(f"running: {' '.join(cmd)}", file=sys.stderr)
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL))
    docs = []
    for proc, out in zip(procs, outs, strict=True):
        if proc.wait() != 0:
            for other in procs:
                other.kill()
            sys.exit(f"error: {mode} mode exited with {proc.returncode} (a status was False?)")
        with out.open() as f:
            doc: dict = json.load(f)
        if not all(doc["statuses"].values()):
            sys.exit(f"error: {mode} mode printed a False status")
        docs.append(doc)
    return docs


def run_mode(args: argparse.Namespace, mode: str, out: Path, threads: int | None = None) -> dict:
    return run_modes(args, mode, [out], threads)[0]


def rows_by_key(doc: dict, leaves: bool) -> dict[tuple[str, str], dict]:
    """Per-party section totals (and, with `leaves`, every party's leaf timer)."""
    out: dict[tuple[str, str], dict] = {}
    for row in doc["timers"]:
        party = row.get("party")
        if party is None:
            continue
        path = row["path"]
        if row["label"] == f"{party} total":
            key = (" > ".join(path[1:]), party)
        elif leaves:
            key = (" > ".join(path[1:] + [row["label"]]), party)
        else:
            continue
        out[key] = row
    return out


def merge_rows(rows: list[dict]) -> dict:
    """One row summing several (a section's per-party figure from its subsections' totals)."""

    def total(field: str) -> float | None:
        vals = [r.get(field) for r in rows]
        return None if any(v is None for v in vals) else sum(vals)

    ops: dict[str, int] = {}
    for r in rows:
        for k, v in (r.get("ops") or {}).items():
            ops[k] = ops.get(k, 0) + v
    fields = ["seconds", "cpu_seconds", "lower_bound_s", "lower_bound_drift_s"]
    return {"ops": ops, **{f: total(f) for f in fields}}


def section_rows(doc: dict, leaves: bool) -> dict[tuple[str, str], dict]:
    """`rows_by_key`, plus a per-party row for each of SECTIONS that prints no party totals of
    its own (checking inputs: the report totals its subsection check_encs), summed over its
    direct subsections' totals."""
    out = rows_by_key(doc, leaves)
    for section in SECTIONS:
        depth = section.count(" > ") + 1
        subs: dict[str, list[dict]] = {}
        for (key, party), row in out.items():
            direct = key.startswith(section + " > ") and key.count(" > ") == depth
            if direct and row.get("label") == f"{party} total":
                subs.setdefault(party, []).append(row)
        for party, rows in subs.items():
            out.setdefault((section, party), merge_rows(rows))
    return out


def drift(doc: dict, calibration: Path | None, curve: str) -> tuple[float | None, str]:
    """How much slower the machine ran than at calibration time, from the run's speed probe
    (db-sm-rsm times a few calibrated operations before and after the protocol): the geometric
    mean of probe / calibration over the probed operations and both probes. None without data."""
    probes = doc.get("speed_probe") or {}
    if not calibration or not probes:
        return None, "no speed probe or no calibration: bound not corrected for drift"
    units: dict[str, float] = {}
    for row in json.loads(Path(calibration).read_text()):
        if row.get("curve") in (None, curve) and "ns" in row:
            units[row["op"]] = row["ns"] * 1e-9
    ratios: list[float] = []
    parts = []
    for stage, probe in probes.items():
        mine = {op: t / units[op] for op, t in probe.items() if units.get(op)}
        ratios += mine.values()
        detail = ", ".join(f"{op} {r:.2f}" for op, r in sorted(mine.items()))
        parts.append(f"{stage}: {detail}")
    if not ratios:
        return None, "speed probe shares no operation with the calibration"
    d = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    return d, f"machine speed drift (run / calibration time per call) {d:.2f}; " + "; ".join(parts)


def fmt_ops(ops: dict[str, int], n: int) -> str:
    return ", ".join(f"{k} {v / n:.3g}" for k, v in sorted(ops.items()) if k != "MSM_calls")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--m", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--curve", default="bn254", choices=["bn254", "bls12-381"])
    ap.add_argument("--binary", type=Path, default=REPO / "target/release/db-sm-rsm")
    ap.add_argument(
        "--calibration",
        type=Path,
        default=os.environ.get("DBSM_CALIBRATION"),
        help="unit-cost file from `cargo bench -p db-sm-rsm --bench ops` (env DBSM_CALIBRATION)",
    )
    ap.add_argument("--leaves", action="store_true", help="also every leaf timer")
    ap.add_argument(
        "--scaling",
        type=int,
        metavar="T",
        help="also run fast mode with T threads and print its speed-up over --threads",
    )
    ap.add_argument("--json", type=Path, help="write the comparison rows here")
    ap.add_argument("--raw-dir", type=Path, help="keep every run's JSON report in this directory")
    args = ap.parse_args()
    if min(args.n, args.m, args.threads, args.scaling or 1) < 1:
        ap.error("n, m and threads must be at least 1")
    if args.scaling and args.scaling % args.threads != 0:
        ap.error(f"--scaling {args.scaling} must be a multiple of --threads {args.threads}")
    if not args.binary.exists():
        ap.error(f"{args.binary} missing: cargo build --release -p db-sm-rsm")
    if args.calibration and not Path(args.calibration).exists():
        ap.error(f"calibration file {args.calibration} missing")

    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.raw_dir or Path(scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        paper = run_mode(args, "paper", Path(tmp) / "paper.json")
        scaled: list[dict] = []
        if args.scaling:
            scaled.append(run_mode(args, "fast", Path(tmp) / "scaled0.json", args.scaling))
        fast = run_mode(args, "fast", Path(tmp) / "fast.json")
        side: list[dict] = []
        if args.scaling:
            scaled.append(run_mode(args, "fast", Path(tmp) / "scaled1.json", args.scaling))
            copies = args.scaling // args.threads
            outs = [Path(tmp) / f"side{k}.json" for k in range(copies)]
            side = run_modes(args, "fast", outs)
    p_rows, f_rows = section_rows(paper, args.leaves), section_rows(fast, args.leaves)
    s_rows = [section_rows(doc, args.leaves) for doc in scaled]
    side_rows = [section_rows(doc, args.leaves) for doc in side]
    if not args.leaves:
        order = {s: i for i, s in enumerate(SECTIONS)}
        f_rows = dict(sorted(f_rows.items(), key=lambda kv: (order.get(kv[0][0], -1), kv[0][1])))

    print(
        f"db-sm-rsm paper vs fast: n = {args.n}, m = {args.m}, curve = {args.curve}, "
        f"threads = {args.threads}; times in s, per-entry ms in brackets"
    )
    d, why = drift(fast, args.calibration, args.curve)
    print(why)
    runs = [("paper", paper), (f"fast@{args.scaling} before", scaled[0] if scaled else None)]
    runs += [("fast", fast), (f"fast@{args.scaling} after", scaled[1] if scaled else None)]
    runs += [(f"side by side {k}", doc) for k, doc in enumerate(side)]
    per_run = {name: drift(doc, args.calibration, args.curve)[0] for name, doc in runs if doc}
    if any(per_run.values()):
        print(
            "drift per run (a speed-up compares runs; a run in a slow phase of the machine bends "
            "it): " + ", ".join(f"{k} {v:.2f}" for k, v in per_run.items() if v)
        )
    if scaled:
        copies = args.scaling // args.threads
        print(
            f"fast@{args.scaling}: mean of the runs before and after the fast run; speed-up: "
            f"fast / fast@{args.scaling}; ceiling: the most {args.scaling} threads can gain on "
            f"this machine, {copies} x fast / (time of one of {copies} independent copies of "
            "the fast run side by side); of ceil: speed-up / ceiling; cpu/wall: CPU time over "
            f"wall time in the fast@{args.scaling} runs"
        )
    print(
        "fast/LB: fast time over its lower bound (op counts x calibrated unit costs); "
        "fast/LB*: the same with each operation family's unit costs scaled by its drift"
    )
    header = (
        f"{'section':<58} {'party':<9} {'paper':>16} {'fast':>16} {'ratio':>6} "
        f"{'fast/LB':>7} {'fast/LB*':>8}"
    )
    if scaled:
        header += (
            f" {f'fast@{args.scaling}':>16} {'speed-up':>8} {'ceiling':>7} {'of ceil':>7}"
            f" {'cpu/wall':>8}"
        )
    print(header)
    print("-" * len(header))
    table = []
    for key, frow in f_rows.items():
        section, party = key
        if not args.leaves and section not in SECTIONS:
            continue
        prow = p_rows.get(key)
        tf = frow["seconds"]
        tp = prow["seconds"] if prow else float("nan")
        lb = frow.get("lower_bound_s")
        ratio = tp / tf if tf > 0 else float("nan")
        # Per-family drift correction from the binary; older reports: one mean drift.
        lb_d = frow.get("lower_bound_drift_s") or (lb * d if lb and d else None)
        over = f"{tf / lb:7.2f}" if lb else f"{'-':>7}"
        over += f" {tf / lb_d:8.2f}" if lb_d else f" {'-':>8}"
        srows = [r[key] for r in s_rows if key in r]
        runs = [r["seconds"] for r in srows]
        ts = sum(runs) / len(runs) if srows else None
        cpu = [r.get("cpu_seconds") for r in srows]
        par = sum(cpu) / sum(runs) if srows and all(cpu) and sum(runs) > 0 else None
        beside = [r[key]["seconds"] for r in side_rows if key in r]
        ceil = len(beside) * tf / (sum(beside) / len(beside)) if beside else None
        extra = ""
        if scaled:
            extra = (
                f" {ts:8.2f} [{1e3 * ts / args.n:5.1f}] {tf / ts:8.2f}"
                if ts
                else f" {'-':>16} {'-':>8}"
            )
            extra += f" {ceil:7.2f}" if ceil else f" {'-':>7}"
            extra += f" {tf / ts / ceil:7.2f}" if ts and ceil else f" {'-':>7}"
            extra += f" {par:8.2f}" if par else f" {'-':>8}"
        print(
            f"{section[:58]:<58} {party:<9} {tp:8.2f} [{1e3 * tp / args.n:5.1f}] "
            f"{tf:8.2f} [{1e3 * tf / args.n:5.1f}] {ratio:6.2f} {over}{extra}"
        )
        ops = frow.get("ops") or {}
        if ops:
            print(f"{'':<10}fast ops per entry: {fmt_ops(ops, args.n)}")
        p_ops = (prow or {}).get("ops") or {}
        if p_ops and p_ops != ops:
            print(f"{'':<10}paper ops per entry: {fmt_ops(p_ops, args.n)}")
        table.append(
            {
                "section": section,
                "party": party,
                "paper_s": tp,
                "fast_s": tf,
                "ratio": ratio,
                "fast_lower_bound_s": lb,
                "fast_over_bound_drift_corrected": tf / lb_d if lb_d else None,
                "fast_scaled_s": ts,
                "fast_scaled_runs_s": runs,
                "scaled_cpu_over_wall": par,
                "side_by_side_s": beside,
                "parallel_ceiling": ceil,
                "fast_ops": ops,
                "paper_ops": p_ops,
            }
        )
    if args.json:
        doc = {
            "n": args.n,
            "m": args.m,
            "threads": args.threads,
            "scaling_threads": args.scaling,
            "drift": d,
            "drift_per_run": per_run,
            "speed_probe": fast.get("speed_probe"),
            "curve": args.curve,
            "rows": table,
            "machine": fast.get("machine"),
        }
        args.json.write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
