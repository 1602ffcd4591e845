"""Reproduction: the paper's own code rerun here, beside its published figures and ours.

For each of the paper's three parts (DB-SM/DB-RSM, the cpSNARK-Set baseline, the zkSNARK
circuits): the published figure (the authors' machine), the paper's own code rerun in this
workflow run (the experiments `artifact-*`), and ours in the same run; the same-run ratios
artifact / ours with their spread over the pairs; and per claim of the paper, whether the rerun
reproduces it: the published figure brought to this machine and to the run's size (per entry, at
the same m) and within a stated factor of it.

Entry points: `summary(doc, ctx)` (a part of page one: whether the paper's code ran and what it
found) and `section(doc, ctx)` (a part on pages of its own, the first of the study's). Everything
comes from the tidy table, the run's configuration (which experiments were left out, and why)
and its speed probe.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from analysis import units
from analysis.derive.spread import NAN, Spread
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.sections.common import seconds
from analysis.studies.traceable_mixnets.pairs import FIGURES, pairs, published, ratio_table

ARTIFACT_DB, ARTIFACT_CP, ARTIFACT_ZK = "artifact-db-sm-rsm", "artifact-cpsnark-sm", "artifact-circuits"
OURS_CP, OURS_ZK = "cpsnark-sm", "zksnark-sm-rsm"
ARTIFACTS = (ARTIFACT_DB, ARTIFACT_CP, ARTIFACT_ZK)
# The section's heading, and its key (page one's list of sections links it).
TITLE = "Reproduction: the paper's own code rerun here"
KEY = "reproduction"
# A rerun reproduces a published figure when it is within this factor of it, once brought to this
# machine's speed and to the run's size: the machines' other differences (caches, turbo, the
# Python and GMP builds) and a small run's fixed costs are not in that scaling.
TOLERANCE = 2.0
# The speed probe of the machine the suite's costs were fitted on (analysis/data/costs.yaml): no
# probe of the paper's machine exists, so it stands for it.
COSTS = Path(__file__).resolve().parents[2] / "analysis" / "data" / "costs.yaml"


def speed(ctx: Context) -> tuple[float, str]:
    """This machine's speed over the reference's, from the speed probe the workflow took before
    the artifact's runs (results/estimates.json), and how it was found."""
    import yaml

    ref = float(yaml.safe_load(COSTS.read_text(encoding="utf-8"))["reference"]["probe_s"])
    try:
        runs = json.loads((ctx.results_dir / "estimates.json").read_text(encoding="utf-8"))["runs"]
    except (OSError, ValueError, KeyError):
        return 1.0, "no speed probe recorded with the runs: the published figures are not scaled"
    probes = [float(v["probe_s"]) for k, v in runs.items() if k.startswith("artifact-") and "probe_s" in v]
    if not probes:
        return (
            1.0,
            "no speed probe recorded with the paper's code's runs: the published figures are not scaled",
        )
    here = float(pd.Series(probes).median())
    return here / ref, (
        f"this machine's speed probe took {here * 1000:.0f} ms against {ref * 1000:.0f} ms on the suite's "
        f"reference machine (x{here / ref:.2f}); no probe of the paper's machine exists, so it is taken "
        f"as fast as the reference"
    )


def verdict(rerun: float, expected: float) -> str:
    if math.isnan(rerun) or math.isnan(expected) or expected <= 0:
        return "-"
    r = rerun / expected
    how = f"{units.ratio(r)} the expected"
    return f"reproduced ({how})" if 1 / TOLERANCE <= r <= TOLERANCE else f"not reproduced ({how})"


# ---- DB-SM and DB-RSM ---------------------------------------------------------------------------


def db_claims(ctx: Context, factor: float) -> pd.DataFrame:
    """Per Figure 10 row: published, expected here (per entry, this machine), the rerun, verdict."""
    pub, pn, pm = published(ctx.df)
    ps = pairs(ctx.df)
    rows: dict[str, dict[str, object]] = {}
    for name, _, _ in FIGURES:
        rerun = Spread.of(p.artifact[name] for p in ps)
        n, m = (ps[0].n, ps[0].m) if ps else (0, 0)
        same_m = bool(ps) and m == pm
        expected = pub.get(name, NAN) * n / pn * factor if same_m and pn else NAN
        rows[name] = {
            f"published (n = {pn}, m = {pm}) [s]": pub.get(name, NAN),
            f"expected here (n = {n}, m = {m}) [s]": expected,
            "rerun here [s]": rerun,
            "verdict": verdict(rerun.median, expected) if same_m else f"other m ({m}): not compared",
        }
    return pd.DataFrame.from_dict(rows, orient="index")


# ---- cpSNARK-Set --------------------------------------------------------------------------------

CP_STEPS = (
    ("prove", "membership_hash protocol proving"),
    ("verify", "membership_hash protocol verification"),
    ("witness, n = 10000", "membership_hash creating witness"),
)


def _cp_means(df: pd.DataFrame, experiment: str, source: str, group: str) -> list[float]:
    d = df[(df["experiment"] == experiment) & (df["source"] == source) & (df["section"] == group)]
    return [float(v) for v in d[d["metric"] == "mean"]["value"]]


# The published proving figure used all of the paper's machine's hardware threads (the fork's
# prover is parallel); verify and witness are single-threaded.
PROVE_THREADS = "published on all hardware threads: not compared"


def cp_table(ctx: Context, factor: float) -> pd.DataFrame:
    """Per step: published, expected here, the fork rerun, ours, the same-run ratio, verdict.
    Our witness is over the run's n: it is brought to the fork's n = 10000 per element."""
    df = ctx.df
    rows: dict[str, dict[str, object]] = {}
    ours_n = df[(df["experiment"] == OURS_CP) & (df["source"] == "ours")]["n"].dropna()
    for name, group in CP_STEPS:
        pub = _cp_means(df, ARTIFACT_CP, "paper", group)
        rerun = Spread.of(_cp_means(df, ARTIFACT_CP, "ours", group))
        ours = _cp_means(df, OURS_CP, "ours", group)
        if group.endswith("witness") and len(ours_n):
            ours = [v * 10000 / float(n) for v, n in zip(ours, ours_n, strict=False)]
        o = Spread.of(ours)
        expected = pub[0] * factor if pub else NAN
        rows[name] = {
            "published [s]": pub[0] if pub else NAN,
            "expected here [s]": expected,
            "rerun here [s]": rerun,
            "ours here [s]": o,
            "rerun / ours": rerun.median / o.median if o.count and rerun.count and o.median else NAN,
            "verdict": PROVE_THREADS if name == "prove" else verdict(rerun.median, expected),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


# ---- the zkSNARK circuits -----------------------------------------------------------------------


def _zk(
    df: pd.DataFrame,
    experiment: str,
    source: str,
    statement: str,
    label: str,
    metric: str,
    extra: dict[str, str] | None = None,
) -> list[float]:
    d = df[(df["experiment"] == experiment) & (df["source"] == source) & (df["statement"] == statement)]
    for k, v in (extra or {}).items():
        d = d[d[k] == v]
    return [float(x) for x in d[(d["label"] == label) & (d["metric"] == metric)]["value"]]


def zk_table(ctx: Context) -> pd.DataFrame:
    """Per statement: constraints (published at n = 10000; the rerun's and ours at the run's n),
    and the prover's CPU time: published (the ZoKrates command line), the rerun and ours (both
    zokrates-js, the same n), their ratio."""
    df = ctx.df
    rows: dict[str, dict[str, object]] = {}
    for st in ("sm", "rsm"):
        rerun_c = _zk(df, ARTIFACT_ZK, "ours", st, "constraints", "constraints")
        if not rerun_c:
            continue
        ours_c = _zk(df, ARTIFACT_ZK, "ours", st, "ours as-published", "constraints")
        same = _zk(df, ARTIFACT_ZK, "ours", st, "ours as-published", "same_constraints")
        pub_prove = _zk(df, ARTIFACT_ZK, "paper", st, "PROVER", "user")
        rerun_p = Spread.of(_zk(df, ARTIFACT_ZK, "ours", st, "PROVER", "user"))
        ours_p = Spread.of(
            _zk(df, OURS_ZK, "ours", st, "PROVER", "user", {"prover": "wasm", "variant": "zokrates"})
        )
        n = df[(df["experiment"] == ARTIFACT_ZK) & (df["source"] == "ours") & (df["statement"] == st)]["n"]
        rows[f"{st}, n = {units.count(float(n.iloc[0]))}"] = {
            "published constraints (n = 10000)": (
                _zk(df, ARTIFACT_ZK, "paper", st, "constraints", "constraints") or [NAN]
            )[0],
            "rerun constraints": Spread.of(rerun_c),
            "ours (as published)": Spread.of(ours_c),
            "same": "yes" if same and all(s == 1.0 for s in same) else "NO",
            "published prove, CLI [s]": pub_prove[0] if pub_prove else NAN,
            "rerun prove, zokrates-js [s]": rerun_p,
            "ours prove, zokrates-js [s]": ours_p,
            "rerun / ours": rerun_p.median / ours_p.median if ours_p.count and rerun_p.count else NAN,
        }
    return pd.DataFrame.from_dict(rows, orient="index")


# ---- page 1 and the section ---------------------------------------------------------------------


def selected(ctx: Context) -> list[str]:
    return [e for e in ARTIFACTS if e in (ctx.rc.config.get("experiments") or [])]


def findings(ctx: Context) -> list[str]:
    """What the paper's own code's runs found, one clause per part."""
    out = []
    runs = [r for r in ctx.col.runs if r.experiment in ARTIFACTS and r.source == "ours"]
    db = [r for r in runs if r.experiment == ARTIFACT_DB]
    if db:
        statuses = ctx.df[(ctx.df["experiment"] == ARTIFACT_DB) & (ctx.df["metric"] == "status")]
        bad = statuses[statuses["value"] < 0.5]
        out.append(
            f"its DB-SM/DB-RSM code {len(db)} run(s), "
            + (
                "every status True"
                if not len(bad) and all(r.ok for r in db)
                else f"FAILED ({', '.join(sorted(set(bad['label'])) or ['see its section'])})"
            )
        )
    cp = [r for r in runs if r.experiment == ARTIFACT_CP]
    if cp:
        out.append(
            f"its cpSNARK-Set fork {len(cp)} run(s), "
            + ("proofs verified" if all(r.ok for r in cp) else "FAILED")
        )
    zk = [r for r in runs if r.experiment == ARTIFACT_ZK]
    if zk:
        same = ctx.df[(ctx.df["experiment"] == ARTIFACT_ZK) & (ctx.df["metric"] == "same_constraints")][
            "value"
        ]
        out.append(
            f"its circuit generators {len(zk)} run(s), "
            + ("proofs verified" if all(r.ok for r in zk) else "FAILED")
            + f", our circuit's constraint count equal in {int(same.sum())} of {len(same)}"
        )
    return out


def summary(doc: Doc, ctx: Context) -> None:
    """Page 1's line on the paper's own code: whether it ran here and what it found (or why it
    was left out and how to add it)."""
    chosen = selected(ctx)
    if not chosen:
        return
    left = {e: why for e, why in ctx.rc.left_out.items() if e in ARTIFACTS}
    said = findings(ctx)
    if said:
        doc.para(
            "<b>The paper's own code</b> ran here, from its pinned sources: "
            + "; ".join(said)
            + ". Published, rerun and ours: section 'Reproduction'.",
            small=True,
            markup=True,
        )
    for why in dict.fromkeys(left.values()):
        doc.para(
            f"<b>The paper's own code</b> did not run here ({', '.join(e for e in left if left[e] == why)}): "
            f"{why}.",
            small=True,
            markup=True,
        )


def not_run(ctx: Context) -> str:
    """Why the paper's own code has no run here, and how to add it."""
    left = {e: why for e, why in ctx.rc.left_out.items() if e in ARTIFACTS}
    if left:
        return f"The paper's own code did not run here: {next(iter(left.values()))}."
    return (
        "The paper's own code did not run here: its experiments ("
        + ", ".join(ARTIFACTS)
        + ") are not in this "
        "configuration. Add them to 'experiments' (the default, all, has them), with upstream_sources=DIR "
        "on a machine without internet access (upstream/README.md)."
    )


def section(doc: Doc, ctx: Context) -> None:
    doc.h1(TITLE)
    if not findings(ctx):
        doc.para(not_run(ctx))
        return
    factor, how = speed(ctx)
    doc.para(
        "Each part of the paper's evaluation three ways: the published figure (the authors' machine, "
        "an Intel Xeon W-1270, one core), the paper's own code rerun in this workflow run from its pinned "
        "sources (upstream/sources.yaml), and our implementation in the same run. A published figure is "
        f"reproduced when the rerun is within {TOLERANCE:g}x of it once brought to this machine and to the "
        f"run's size (per entry at the same m): {how}."
    )
    doc.h2("DB-SM and DB-RSM (experiment 1)")
    ctx.table(
        doc,
        "reproduction_db_claims",
        "The paper's Figure 10 rows: published, expected here, rerun [s]",
        db_claims(ctx, factor),
        {"verdict": str},
        index_name="figure",
    )
    ps = pairs(ctx.df)
    if ps:
        frame = ratio_table(ps)
        fmt = {str(c): (units.ratio if str(c).startswith("artifact /") else seconds) for c in frame.columns}
        ctx.table(
            doc,
            "reproduction_db_pairs",
            "The paper's code and ours, same workflow run: CPU time [s] and artifact / ours over the pairs",
            frame,
            fmt,
            index_name="figure",
        )
        doc.para(
            f"CPU seconds at one thread, n = {ps[0].n}, m = {ps[0].m}, {len(ps)} pair(s) made alternately: "
            "the artifact's run, then ours in the paper's mode with its challenge lengths, then ours in our "
            "defaults (fast, 128-bit). A cell with a spread is the median [min-max] over the pairs (x k).",
            small=True,
        )
    doc.h2("cpSNARK-Set (experiment 3)")
    ctx.table(
        doc,
        "reproduction_cpsnark",
        "membership_hash: published, expected here, the fork rerun, ours [s]",
        cp_table(ctx, factor),
        {"rerun / ours": units.ratio, "verdict": str},
        index_name="step",
    )
    doc.h2("The zkSNARK circuits (experiment 2)")
    zk = zk_table(ctx)
    if len(zk):
        ctx.table(
            doc,
            "reproduction_circuits",
            "The paper's circuits: constraints and prover time",
            zk,
            {"rerun / ours": units.ratio, "same": str, "published constraints (n = 10000)": units.count},
            index_name="circuit",
        )
        doc.para(
            "The published prover time is the ZoKrates command line's (native) at n = 10000; the rerun "
            "and ours prove with zokrates-js (WebAssembly) at the run's n, so only their ratio compares "
            "like with like.",
            small=True,
        )
    else:
        doc.para("The paper's circuits did not run here.", small=True)
