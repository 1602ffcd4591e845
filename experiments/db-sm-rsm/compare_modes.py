#!/usr/bin/env python3
"""Compare db-sm-rsm's paper mode and fast mode in one go.

Runs `db-sm-rsm --n N --m M --mode paper` and `--mode fast` with the same seed and thread count,
reads both reports (the suite's envelope around db-sm-rsm's body) and prints, per party and
section: paper-mode time, fast-mode time, their ratio, fast-mode time over its computed lower
bound (needs a calibration file: the body's `lower_bound_s`), and the fast mode's operation
counts per entry.

Times are wall-clock seconds of each party's steps as the report records them; on the shared
2-core machine compare ratios within one invocation, not across invocations.

    python3 experiments/db-sm-rsm/compare_modes.py --n 1000 --m 4 --threads 1 \
        --calibration target/calibration.json [--scaling 2] [--seed HEX64] [--out compare.json]

Every run has the same public seed (64 hex digits; without --seed a fresh one, printed), so
paper and fast mode work on the same inputs, and the runs share one key cache (the keys are
generated once; they are derived from the public seed, not secret).

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
import re
import secrets
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from analysis.errors import ReportError  # noqa: E402
from analysis.parse.common import Enveloped, load_enveloped  # noqa: E402

TOOL = "db-sm-rsm"
SECTIONS = ["checking inputs", "mixing", "forward set membership", "reverse set membership"]
SEED_RE = re.compile(r"^[0-9a-fA-F]{64}$")

Rows = dict[tuple[str, str], dict[str, Any]]


# ---- the command line -------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--m", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", help="public seed of every run, 64 hex digits (default: a fresh one)")
    ap.add_argument("--curve", default="bn254", choices=["bn254", "bls12-381"])
    ap.add_argument("--binary", type=Path, default=REPO / "target/release/db-sm-rsm")
    ap.add_argument(
        "--calibration",
        type=Path,
        default=os.environ.get("DBSM_CALIBRATION"),
        help="unit-cost file from `cargo bench -p db-sm-rsm --bench ops` (env DBSM_CALIBRATION)",
    )
    ap.add_argument("--key-cache", type=Path, help="db-sm-rsm's key cache (default: one for this comparison)")
    ap.add_argument("--leaves", action="store_true", help="also every leaf timer")
    ap.add_argument(
        "--scaling",
        type=int,
        metavar="T",
        help="also run fast mode with T threads and print its speed-up over --threads",
    )
    ap.add_argument("--out", "--json", dest="out", type=Path, help="write the comparison rows here (JSON)")
    ap.add_argument("--raw-dir", type=Path, help="keep every run's report in this directory")
    args = ap.parse_args(argv)
    if min(args.n, args.m, args.threads, args.scaling or 1) < 1:
        ap.error("n, m and threads must be at least 1")
    if args.scaling and args.scaling % args.threads != 0:
        ap.error(f"--scaling {args.scaling} must be a multiple of --threads {args.threads}")
    if args.seed is not None and not SEED_RE.match(args.seed):
        ap.error(f"--seed {args.seed!r}: expected exactly 64 hexadecimal digits")
    if not args.binary.exists():
        ap.error(f"{args.binary} missing: cargo build --release -p db-sm-rsm")
    if args.calibration and not Path(args.calibration).exists():
        ap.error(f"calibration file {args.calibration} missing")
    args.seed = (args.seed or secrets.token_hex(32)).lower()
    return args


# ---- running db-sm-rsm ------------------------------------------------------------------------


def command(args: argparse.Namespace, mode: str, out: Path, threads: int, keys: Path) -> list[str]:
    """One run of the binary: the comparison's n, m, curve and seed, this mode and thread count."""
    cmd = [
        str(args.binary), "--n", str(args.n), "--m", str(args.m), "--mode", mode, "--curve", args.curve,
        "--threads", str(threads), "--seed", args.seed, "--key-cache", str(keys), "--out", str(out),
    ]  # fmt: skip
    if args.calibration:
        cmd += ["--calibration", str(args.calibration)]
    return cmd


def run_modes(
    args: argparse.Namespace, mode: str, outs: list[Path], threads: int | None = None
) -> list[Enveloped]:
    """Runs one copy of the binary per output file, all at once, and returns their reports;
    exits with a message (and the end of the run's log) if any fails or did not pass."""
    procs = []
    for out in outs:
        cmd = command(args, mode, out, threads or args.threads, args.key_cache)
        print(f"running: {' '.join(cmd)}", file=sys.stderr)
        with out.with_suffix(".log").open("w") as log:
            procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log))
    reports = []
    for proc, out in zip(procs, outs, strict=True):
        if proc.wait() != 0:
            for other in procs:
                other.kill()
            tail = out.with_suffix(".log").read_text(errors="replace").splitlines()[-15:]
            sys.exit("\n".join([*tail, f"error: {mode} mode exited with {proc.returncode} (see above)"]))
        try:
            env = load_enveloped(out, TOOL)
        except ReportError as e:
            sys.exit(f"error: {e}")
        if not env.passed:
            sys.exit(f"error: the {mode} mode run did not pass ({out})")
        reports.append(env)
    return reports


def run_mode(args: argparse.Namespace, mode: str, out: Path, threads: int | None = None) -> Enveloped:
    return run_modes(args, mode, [out], threads)[0]


@dataclass
class Runs:
    """The comparison's runs: paper and fast mode; with --scaling, fast mode on T threads before
    and after the fast run, and T/threads copies of the fast run side by side."""

    paper: Enveloped
    fast: Enveloped
    scaled: list[Enveloped] = field(default_factory=list)
    side: list[Enveloped] = field(default_factory=list)

    def named(self, scaling: int | None) -> list[tuple[str, Enveloped]]:
        out = [("paper", self.paper)]
        out += [(f"fast@{scaling} before", self.scaled[0])] if self.scaled else []
        out += [("fast", self.fast)]
        out += [(f"fast@{scaling} after", self.scaled[1])] if self.scaled else []
        return out + [(f"side by side {k}", env) for k, env in enumerate(self.side)]


def run_all(args: argparse.Namespace, tmp: Path) -> Runs:
    """Paper mode, then (with --scaling) the T-thread run, the fast run, the T-thread run again
    and the copies side by side."""
    paper = run_mode(args, "paper", tmp / "paper.json")
    if not args.scaling:
        return Runs(paper, run_mode(args, "fast", tmp / "fast.json"))
    before = run_mode(args, "fast", tmp / "scaled0.json", args.scaling)
    fast = run_mode(args, "fast", tmp / "fast.json")
    after = run_mode(args, "fast", tmp / "scaled1.json", args.scaling)
    copies = args.scaling // args.threads
    side = run_modes(args, "fast", [tmp / f"side{k}.json" for k in range(copies)])
    return Runs(paper, fast, [before, after], side)


# ---- reading the reports ----------------------------------------------------------------------


def rows_by_key(body: dict[str, Any], leaves: bool) -> Rows:
    """Per-party section totals (and, with `leaves`, every party's leaf timer)."""
    out: Rows = {}
    for row in body["timers"]:
        party = row.get("party")
        if party is None:
            continue
        path = row["path"]
        if row["label"] == f"{party} total":
            key = (" > ".join(path[1:]), party)
        elif leaves:
            key = (" > ".join([*path[1:], row["label"]]), party)
        else:
            continue
        out[key] = row
    return out


def merge_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One row summing several (a section's per-party figure from its subsections' totals)."""

    def total(name: str) -> float | None:
        vals = [r.get(name) for r in rows]
        return None if any(v is None for v in vals) else sum(vals)

    ops: dict[str, int] = {}
    for r in rows:
        for k, v in (r.get("ops") or {}).items():
            ops[k] = ops.get(k, 0) + v
    fields = ["seconds", "cpu_seconds", "lower_bound_s", "lower_bound_drift_s"]
    return {"ops": ops, **{f: total(f) for f in fields}}


def section_rows(env: Enveloped, leaves: bool) -> Rows:
    """`rows_by_key`, plus a per-party row for each of SECTIONS that prints no party totals of
    its own (checking inputs: the report totals its subsection check_encs), summed over its
    direct subsections' totals."""
    out = rows_by_key(env.body, leaves)
    for section in SECTIONS:
        depth = section.count(" > ") + 1
        subs: dict[str, list[dict[str, Any]]] = {}
        for (key, party), row in out.items():
            direct = key.startswith(section + " > ") and key.count(" > ") == depth
            if direct and row.get("label") == f"{party} total":
                subs.setdefault(party, []).append(row)
        for party, rows in subs.items():
            out.setdefault((section, party), merge_rows(rows))
    return out


def drift(env: Enveloped, calibration: Path | None, curve: str) -> tuple[float | None, str]:
    """How much slower the machine ran than at calibration time, from the run's speed probe
    (db-sm-rsm times a few calibrated operations before and after the protocol): the geometric
    mean of probe / calibration over the probed operations and both probes. None without data."""
    probes = env.body.get("speed_probe") or {}
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


# ---- the comparison, row by row ---------------------------------------------------------------


@dataclass
class Compared:
    """The section rows of every run, keyed by (section, party)."""

    paper: Rows
    fast: Rows
    scaled: list[Rows]
    side: list[Rows]


def compared(runs: Runs, leaves: bool) -> Compared:
    fast = section_rows(runs.fast, leaves)
    if not leaves:
        order = {s: i for i, s in enumerate(SECTIONS)}
        fast = dict(sorted(fast.items(), key=lambda kv: (order.get(kv[0][0], -1), kv[0][1])))
    return Compared(
        section_rows(runs.paper, leaves),
        fast,
        [section_rows(env, leaves) for env in runs.scaled],
        [section_rows(env, leaves) for env in runs.side],
    )


def compare_row(c: Compared, key: tuple[str, str], d: float | None) -> dict[str, Any]:
    """One section and party: paper and fast time, the bound, the T-thread runs, the ceiling."""
    section, party = key
    frow, prow = c.fast[key], c.paper.get(key)
    tf = frow["seconds"]
    tp = prow["seconds"] if prow else float("nan")
    lb = frow.get("lower_bound_s")
    # Per-family drift correction from the binary; without it, one mean drift.
    lb_d = frow.get("lower_bound_drift_s") or (lb * d if lb and d else None)
    srows = [r[key] for r in c.scaled if key in r]
    scaled_runs = [r["seconds"] for r in srows]
    ts = sum(scaled_runs) / len(scaled_runs) if srows else None
    cpu = [r.get("cpu_seconds") for r in srows]
    par = sum(cpu) / sum(scaled_runs) if srows and all(cpu) and sum(scaled_runs) > 0 else None
    beside = [r[key]["seconds"] for r in c.side if key in r]
    return {
        "section": section,
        "party": party,
        "paper_s": tp,
        "fast_s": tf,
        "ratio": tp / tf if tf > 0 else float("nan"),
        "fast_lower_bound_s": lb,
        "fast_over_bound_drift_corrected": tf / lb_d if lb_d else None,
        "fast_scaled_s": ts,
        "fast_scaled_runs_s": scaled_runs,
        "scaled_cpu_over_wall": par,
        "side_by_side_s": beside,
        "parallel_ceiling": len(beside) * tf / (sum(beside) / len(beside)) if beside else None,
        "fast_ops": frow.get("ops") or {},
        "paper_ops": (prow or {}).get("ops") or {},
    }


# ---- printing ---------------------------------------------------------------------------------


def fmt_ops(ops: dict[str, int], n: int) -> str:
    return ", ".join(f"{k} {v / n:.3g}" for k, v in sorted(ops.items()) if k != "MSM_calls")


def print_preamble(args: argparse.Namespace, runs: Runs, why: str, per_run: dict[str, float | None]) -> None:
    """What ran, the machine's drift, and what the columns mean."""
    print(
        f"db-sm-rsm paper vs fast: n = {args.n}, m = {args.m}, curve = {args.curve}, "
        f"threads = {args.threads}, seed = {args.seed} (public); times in s, per-entry ms in brackets"
    )
    print(why)
    if any(per_run.values()):
        print(
            "drift per run (a speed-up compares runs; a run in a slow phase of the machine bends "
            "it): " + ", ".join(f"{k} {v:.2f}" for k, v in per_run.items() if v)
        )
    if runs.scaled:
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


def header(args: argparse.Namespace, scaled: bool) -> str:
    h = f"{'section':<58} {'party':<9} {'paper':>16} {'fast':>16} {'ratio':>6} {'fast/LB':>7} {'fast/LB*':>8}"
    if scaled:
        h += f" {f'fast@{args.scaling}':>16} {'speed-up':>8} {'ceiling':>7} {'of ceil':>7} {'cpu/wall':>8}"
    return h


def cell(v: float | None, width: int, spec: str = ".2f") -> str:
    return f" {v:{width}{spec}}" if v else f" {'-':>{width}}"


def row_text(args: argparse.Namespace, r: dict[str, Any], scaled: bool) -> str:
    """A row of the table, and the operation counts per entry under it."""
    tp, tf, n = r["paper_s"], r["fast_s"], args.n
    lb, ts, ceil = r["fast_lower_bound_s"], r["fast_scaled_s"], r["parallel_ceiling"]
    line = (
        f"{r['section'][:58]:<58} {r['party']:<9} {tp:8.2f} [{1e3 * tp / n:5.1f}] "
        f"{tf:8.2f} [{1e3 * tf / n:5.1f}] {r['ratio']:6.2f}"
    )
    line += cell(tf / lb if lb else None, 7) + cell(r["fast_over_bound_drift_corrected"], 8)
    if scaled:
        line += f" {ts:8.2f} [{1e3 * ts / n:5.1f}]" if ts else f" {'-':>16}"
        line += cell(tf / ts if ts else None, 8) + cell(ceil, 7)
        line += cell(tf / ts / ceil if ts and ceil else None, 7) + cell(r["scaled_cpu_over_wall"], 8)
    lines = [line]
    if r["fast_ops"]:
        lines.append(f"{'':<10}fast ops per entry: {fmt_ops(r['fast_ops'], n)}")
    if r["paper_ops"] and r["paper_ops"] != r["fast_ops"]:
        lines.append(f"{'':<10}paper ops per entry: {fmt_ops(r['paper_ops'], n)}")
    return "\n".join(lines)


def write_json(args: argparse.Namespace, runs: Runs, table: list[dict[str, Any]], d: float | None,
               per_run: dict[str, float | None]) -> None:  # fmt: skip
    doc = {
        "n": args.n,
        "m": args.m,
        "threads": args.threads,
        "scaling_threads": args.scaling,
        "seed": args.seed,
        "drift": d,
        "drift_per_run": per_run,
        "speed_probe": runs.fast.body.get("speed_probe"),
        "curve": args.curve,
        "rows": table,
        "machine": runs.fast.machine,
    }
    args.out.write_text(json.dumps(doc, indent=1))


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.raw_dir or Path(scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        args.key_cache = args.key_cache or Path(scratch) / "keys"
        runs = run_all(args, tmp)
    d, why = drift(runs.fast, args.calibration, args.curve)
    per_run = {name: drift(env, args.calibration, args.curve)[0] for name, env in runs.named(args.scaling)}
    print_preamble(args, runs, why, per_run)
    h = header(args, bool(runs.scaled))
    print(h)
    print("-" * len(h))
    c = compared(runs, args.leaves)
    table = [compare_row(c, key, d) for key in c.fast if args.leaves or key[0] in SECTIONS]
    for r in table:
        print(row_text(args, r, bool(runs.scaled)))
    if args.out:
        write_json(args, runs, table, d, per_run)


if __name__ == "__main__":
    main()
