#!/usr/bin/env python3
"""What 128-bit security costs: db-sm-rsm at `--security 128` and `--security paper`, per section.

Runs the program once per setting, alternately (128, paper, 128, ... for `--pairs` pairs), with
the same seed, mode and thread count, reads the JSON reports and prints one Markdown table: per
section and party, the time per entry at each setting (mean over the runs of that setting and over
the mixers), the counted-operation lower bound at each setting (op counts x calibrated unit costs),
time over bound, and the ratio 128 / paper of both. Times are CPU seconds of the party's timers:
the calibration's unit costs are CPU times too, and on a shared machine CPU time is not inflated
by waiting for a core (with one thread it is the time the party worked). `--from-dir DIR` prints
the table from the reports a previous invocation kept with `--raw-dir DIR`.

    cargo build --release -p db-sm-rsm
    python3 db-sm-rsm/scripts/security_cost.py --n 1000 --m 4 --threads 1 \\
        --calibration target/calibration.json [--pairs 1] [--raw-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CRATE = Path(__file__).resolve().parent.parent
# (report section, party kind): the per-mixer sections and the verifier's.
SECTIONS = [
    ("preprocessing", None),
    ("input preparation", None),
    ("checking inputs", "mixer"),
    ("mixing", "mixer"),
    ("forward set membership", "mixer"),
    ("forward set membership", "verifier"),
    ("reverse set membership", "mixer"),
    ("reverse set membership", "verifier"),
]
FIELDS = ("seconds", "cpu_seconds", "lower_bound_s", "lower_bound_drift_s")


def run(args: argparse.Namespace, security: str, out: Path) -> dict:
    cmd = [str(args.binary), str(args.n), str(args.m), "--mode", args.mode, "--security", security,
           "--curve", args.curve, "--threads", str(args.threads), "--seed", args.seed,
           "--calibration", str(args.calibration), "--out", str(out)]  # fmt: skip
    if args.key_cache:
        cmd += ["--key-cache", str(args.key_cache)]
    print("running: " + " ".join(cmd), file=sys.stderr)
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if proc.returncode != 0:
        sys.exit(f"error: --security {security} exited with {proc.returncode}")
    doc: dict = json.loads(out.read_text())
    if doc.get("passed") is not True:
        sys.exit(f"error: --security {security} did not pass (a False status)")
    return doc


def section_figures(doc: dict, section: str, party: str | None) -> dict[str, float]:
    """The section's figures for one party kind: mean over the mixers of their totals (summing
    the direct subsections' totals where the section prints none of its own), the verifier's
    total, or, for a party-less section, the section's own row."""
    rows = doc["body"]["timers"]
    if party is None:
        hit = [r for r in rows if r["path"] == ["main"] and r["label"] == section]
        return {f: float(hit[0].get(f) or 0.0) for f in FIELDS}
    totals = [r for r in rows if r.get("party") and r["label"] == f"{r['party']} total"
              and r["party"].startswith(party)]  # fmt: skip
    own = [r for r in totals if r["path"] == ["main", section]]
    if not own:
        own = [r for r in totals if len(r["path"]) == 3 and r["path"][:2] == ["main", section]]
    parties = {r["party"] for r in own}
    return {f: sum(float(r.get(f) or 0.0) for r in own) / max(1, len(parties)) for f in FIELDS}


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--m", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", default="07" * 32, help="the runs' public seed, 64 hexadecimal digits")
    ap.add_argument("--mode", default="fast", choices=["fast", "paper"])
    ap.add_argument("--curve", default="bn254", choices=["bn254", "bls12-381"])
    ap.add_argument("--pairs", type=int, default=1, help="alternated (128, paper) run pairs")
    ap.add_argument("--binary", type=Path, default=CRATE.parent / "target/release/db-sm-rsm")
    ap.add_argument("--calibration", type=Path, default=os.environ.get("DBSM_CALIBRATION"),
                    help="unit costs from `cargo bench -p db-sm-rsm --bench ops`")  # fmt: skip
    ap.add_argument("--key-cache", type=Path, default=os.environ.get("DBSM_KEY_CACHE"))
    ap.add_argument("--raw-dir", type=Path, help="keep every run's JSON report here")
    ap.add_argument("--from-dir", type=Path, help="no runs: read the reports kept in this directory")
    args = ap.parse_args()
    if min(args.n, args.m, args.threads, args.pairs) < 1:
        ap.error("n, m, threads and pairs must be at least 1")
    docs: dict[str, list[dict]] = {"128": [], "paper": []}
    if args.from_dir:
        for sec in docs:
            for f in sorted(args.from_dir.glob(f"security-{sec}-*.json")):
                docs[sec].append(json.loads(f.read_text()))
        if not all(docs.values()):
            ap.error(f"{args.from_dir} lacks the reports of one setting")
        args.pairs = len(docs["128"])
    else:
        if not args.binary.exists():
            ap.error(f"{args.binary} missing: cargo build --release -p db-sm-rsm")
        if not args.calibration or not Path(args.calibration).exists():
            ap.error("a calibration file is needed for the bound (--calibration or DBSM_CALIBRATION)")
        with tempfile.TemporaryDirectory() as scratch:
            raw = args.raw_dir or Path(scratch)
            raw.mkdir(parents=True, exist_ok=True)
            for k in range(args.pairs):
                for sec in ("128", "paper"):
                    docs[sec].append(run(args, sec, raw / f"security-{sec}-{k}.json"))

    first = docs["128"][0]
    p = first["parameters"]
    loads = ", ".join(f"{d['load']['end'][0]:.1f}" for d in docs["128"] + docs["paper"])
    print(f"n = {p['n']}, m = {p['m']}, {p['curve']}, mode {p['mode']}, {p['threads']} thread(s), "
          f"seed {first['seed']}, {args.pairs} alternated pair(s) (128 first); 1-minute load at the "
          f"end of each run: {loads}. ms per entry: CPU time of the party's timers (mixers: mean "
          "per mixer); bound: counted operations x calibrated unit costs")  # fmt: skip
    print()
    print("| section | party | 128: time | 128: bound | 128: time / bound "
          "| paper: time | paper: bound | paper: time / bound | 128 / paper: time "
          "| 128 / paper: bound |")  # fmt: skip
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    per_entry = 1000.0 / p["n"]
    for section, party in SECTIONS:
        fig = {
            sec: {f: mean([section_figures(d, section, party)[f] for d in ds]) for f in FIELDS}
            for sec, ds in docs.items()
        }
        t = {sec: fig[sec]["cpu_seconds"] * per_entry for sec in fig}
        b = {sec: fig[sec]["lower_bound_s"] * per_entry for sec in fig}

        def ratio(x: float, y: float) -> str:
            return f"{x / y:.2f}" if y > 0 else "-"

        print(f"| {section} | {party or '-'} | {t['128']:.2f} | {b['128']:.2f} | "
              f"{ratio(t['128'], b['128'])} | {t['paper']:.2f} | {b['paper']:.2f} | "
              f"{ratio(t['paper'], b['paper'])} | {ratio(t['128'], t['paper'])} | "
              f"{ratio(b['128'], b['paper'])} |")  # fmt: skip


if __name__ == "__main__":
    main()
