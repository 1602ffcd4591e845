"""Runs the paper's own fork of cpsnarks-set: its criterion bench `membership_hash`, built from
the pinned sources, and writes the suite's report around criterion's output.

    python3 -m analysis.experiments.artifact_cpsnark_sm.driver --build DIR --samples N --threads T
        --out report.json

Criterion's output goes to `report.txt` beside `--out` (parsed by the parser of the published
criterion output); criterion keeps its data in `criterion/` there. The bench proves once and
verifies that proof before it times anything, and stops (a non-zero exit) when it does not
verify; the run passed when the bench exited 0 and printed each of its three groups (prove,
verify, witness) with a mean. Threads: RAYON_NUM_THREADS (the fork's arkworks may use rayon).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from analysis.errors import ReportError
from analysis.parse.criterion import PROVE, VERIFY, WITNESS, parse_cp_text
from analysis.plan import upstream_run

TOOL = "artifact-cpsnark-sm"
BODY_VERSION = 1
GROUPS = (PROVE, VERIFY, WITNESS)
FORK_N = 10000


def verdict(report: Path, returncode: int) -> tuple[bool, dict[str, dict[str, float]], list[str]]:
    """Whether the run passed, criterion's groups (mean and 95% CI, seconds), and why not."""
    why = (
        []
        if returncode == 0
        else [f"the bench exited with status {returncode} (a proof that does not verify panics)"]
    )
    try:
        rep = parse_cp_text(report, source="ours", n=FORK_N)
    except ReportError as e:
        return False, {}, [*why, f"criterion's output does not parse: {e}"]
    groups = {
        g: {"mean_s": e.mean_s, "ci_low_s": e.ci_low_s, "ci_high_s": e.ci_high_s}
        for g, e in rep.groups.items()
    }
    why += [f"no group {g!r}" for g in GROUPS if g not in groups]
    why += [f"group {g!r}: no positive mean" for g, e in groups.items() if not e["mean_s"] > 0]
    return not why, groups, why


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python3 -m analysis.experiments.artifact_cpsnark_sm.driver",
        description="Run the paper's fork of cpsnarks-set (membership_hash) and report it.",
    )
    ap.add_argument("--build", type=Path, required=True, help="the cpsnarks-set part's build directory")
    ap.add_argument("--samples", type=int, required=True, help="criterion's sample size (>= 10)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    try:
        build = upstream_run.read_build(args.build / "built.json")
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return upstream_run.BAD_INPUT
    if args.samples < 10 or args.threads < 1:
        print(
            f"error: --samples must be >= 10 (criterion), --threads >= 1; got {args.samples}, {args.threads}",
            file=sys.stderr,
        )
        return upstream_run.BAD_INPUT
    bench = args.build / build["bench"]
    run_dir = args.out.parent
    run_dir.mkdir(parents=True, exist_ok=True)
    text = run_dir / "report.txt"
    env = {"CRITERION_HOME": str((run_dir / "criterion").resolve()), "RAYON_NUM_THREADS": str(args.threads)}
    argv_run = [bench.resolve(), "--bench", "--noplot", "--sample-size", str(args.samples)]
    print(
        f"[artifact] membership_hash, {args.samples} samples, {args.threads} thread(s)",
        file=sys.stderr,
        flush=True,
    )
    measured = upstream_run.run_measured(argv_run, run_dir, env, text, "[artifact] ")
    passed, groups, why = verdict(text, measured.returncode)
    body = {
        "bench": build.get("bench"),
        "report": text.name,
        "exit_status": measured.returncode,
        "n": FORK_N,
        "groups": [{"group": g, **v} for g, v in groups.items()],
        "failed": why,
        "stderr_tail": measured.stderr_tail,
        "build": {
            "part": build.get("part"),
            "key": build.get("key"),
            "trees": build.get("trees"),
            "rustc": build.get("rustc"),
            "rustflags": build.get("rustflags"),
            "gmp": build.get("gmp"),
            "build_wall_s": build.get("wall_s"),
            "build_cpu_s": build.get("cpu_s"),
        },
    }
    parameters = {"n": FORK_N, "samples": args.samples, "threads": args.threads}
    commit = str(((build.get("trees") or {}).get("traceable-mixnets") or {}).get("commit", "unknown"))[:12]
    upstream_run.write_report(
        args.out, upstream_run.envelope(TOOL, commit, BODY_VERSION, passed, parameters, measured, body)
    )
    print(f"[artifact] {'PASSED' if passed else 'FAILED: ' + '; '.join(why)}", file=sys.stderr, flush=True)
    return upstream_run.PASSED if passed else upstream_run.FAILED


if __name__ == "__main__":
    sys.exit(main())
