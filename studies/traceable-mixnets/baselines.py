"""The paper's baselines beside DB-SM and DB-RSM in db-sm-rsm's pages: the collaborative zkSNARK
(2 x n x one single-prover proof, the paper's rule, or the configured factor for ours) and
cpSNARK-Set (n x prove and witness) as rows of Figure 10's top table and as series against n,
and the collaborative prover's wall time per proof beside the query latency per network profile
(db-sm-rsm's `Beside`)."""

from __future__ import annotations

import pandas as pd

from analysis.derive.spread import Spread
from analysis.experiments.collab_groth16.parser import EXPERIMENT as COLLAB
from analysis.experiments.cpsnark_sm.parser import EXPERIMENT as CP
from analysis.experiments.cpsnark_sm.parser import PROVE, WITNESS
from analysis.experiments.db_sm_rsm.beside import Beside
from analysis.experiments.db_sm_rsm.figure10 import TopTable, db_groups, figure10_top
from analysis.experiments.db_sm_rsm.network import local_only
from analysis.experiments.db_sm_rsm.plots import SERIES
from analysis.experiments.zksnark_sm_rsm.parser import EXPERIMENT as ZK
from analysis.studies.traceable_mixnets.estimates import (
    COLLAB_ASSUMPTION,
    PAPER_COLLAB_FACTOR,
    collab_estimate,
    cpsnark_totals,
)
from analysis.studies.traceable_mixnets.picks import as_int, cp_group, zk_prove

NAN = float("nan")

# Figure 10's rows of the single-prover systems, under db-sm-rsm's own.
TOP_ROWS = (
    "collab-zkSNARK-SM (estimate, n proofs)",
    "collab-zkSNARK-RSM (estimate, n proofs)",
    "cpSNARK-Set SM, prove (n proofs)",
    "cpSNARK-Set SM, prove + witness (n proofs)",
)
COLORS = {
    "collab-zkSNARK-SM": "tab:green",
    "collab-zkSNARK-RSM": "tab:red",
    "cpSNARK-Set SM (prove + witness)": "tab:purple",
}


def top_rows(df: pd.DataFrame, factor: float) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The single-prover rows of Figure 10's top table: one column per db parameter set (at its
    source and n), then one per zkSNARK or cpSNARK-Set size without a db run; and the columns
    whose single-prover runs failed."""
    cols: dict[str, dict[str, float]] = {}
    failed: list[str] = []
    covered: set[tuple[str, int]] = set()
    for g in db_groups(df):
        cols[g.name] = _single_prover_rows(df, g.source, g.n, factor, failed, g.name)
        covered.add((g.source, g.n))
    others = df[df["experiment"].isin([ZK, CP])][["source", "n"]].drop_duplicates().dropna()
    for source, n in sorted(((str(s), int(n)) for s, n in others.itertuples(index=False)),
                            key=lambda x: (x[0] != "paper", x[1])):  # fmt: skip
        if (source, n) in covered:
            continue
        name = f"{source} n={n} (no DB run)"
        cols[name] = _single_prover_rows(df, source, n, factor, failed, name)
    return pd.DataFrame(cols, index=list(TOP_ROWS), dtype=object), tuple(failed)


def figure10(df: pd.DataFrame, factor: float = PAPER_COLLAB_FACTOR) -> TopTable:
    """Figure 10's top table as the paper draws it: db-sm-rsm's rows, the baselines' under them."""
    others, failed = top_rows(df, factor)
    return figure10_top(df, others, failed)


def _single_prover_rows(df: pd.DataFrame, source: str, n: int, factor: float,
                        failed: list[str], name: str) -> dict[str, float]:  # fmt: skip
    out: dict[str, float] = {}
    f = 2.0 if source == "paper" else factor
    for st, row in (("sm", TOP_ROWS[0]), ("rsm", TOP_ROWS[1])):
        z = df[(df["experiment"] == ZK) & (df["source"] == source) & (df["n"] == n) & (df["statement"] == st)]
        pick = zk_prove(df, source, st, n) if not z.empty else None
        out[row] = collab_estimate(pick.value, n, f) if pick is not None else NAN
        if pick is not None and not pick.ok and name not in failed:
            failed.append(name)
    c = df[(df["experiment"] == CP) & (df["source"] == source) & (df["n"] == n)]
    prove = cp_group(df, source, PROVE, n) if not c.empty else None
    wit = cp_group(df, source, WITNESS, n) if not c.empty else None
    if prove is not None and wit is not None:
        tot = cpsnark_totals(prove.value, wit.value, n)
        out[TOP_ROWS[2]], out[TOP_ROWS[3]] = tot["prove"], tot["total"]
    return out


def single_prover_series(df: pd.DataFrame, factor: float) -> pd.DataFrame:
    """collab-zkSNARK estimates and cpSNARK totals at every n that was run (n x one proof)."""
    rows = []
    z = df[df["experiment"] == ZK][["source", "statement", "n", "hash"]].drop_duplicates().dropna()
    for source, st, n, h in z.itertuples(index=False):
        pick = zk_prove(df, str(source), str(st), int(n), hash=str(h))
        if pick is None or pick.n != int(n):
            continue
        f = 2.0 if source == "paper" else factor
        sp = pick.spread.scaled(f * int(n)) if pick.spread else None
        rows.append(
            {
                "approach": f"collab-zkSNARK-{str(st).upper()}" + ("" if h == "poseidon" else f" ({h})"),
                "source": source,
                "n": int(n),
                "m": None,
                "threads": pick.threads,
                "value": collab_estimate(pick.value, int(n), f),
                "lo": sp.lo if sp else NAN,
                "hi": sp.hi if sp else NAN,
                "ok": pick.ok,
            }
        )
    c = df[(df["experiment"] == CP) & (df["metric"] == "mean")]
    for (source, _run), g in c.groupby(["source", "run"]):
        vals = dict(zip(g["section"], g["value"], strict=False))
        n = as_int(g["n"].iloc[0])
        if n is None or PROVE not in vals or WITNESS not in vals:
            continue
        rows.append(
            {
                "approach": "cpSNARK-Set SM (prove + witness)",
                "source": source,
                "n": n,
                "m": None,
                "threads": as_int(g["threads"].iloc[0]),
                "value": cpsnark_totals(vals[PROVE], vals[WITNESS], n)["total"],
                "lo": NAN,
                "hi": NAN,
                "ok": True,
            }
        )
    return pd.DataFrame(rows, columns=SERIES)


def collab_latency(df: pd.DataFrame) -> dict[str, dict[str, Spread]]:
    """collab-groth16's wall time per proof (the slowest party's online phase; one entry) under
    each network profile, per statement, circuit, n, variant and m."""
    c = df[(df["experiment"] == COLLAB) & (df["source"] == "ours") & (df["metric"] == "online_wall_s_max")]
    c = c.assign(network=c["mode"].fillna("none"))
    rows: dict[str, dict[str, Spread]] = {}
    keys = ["statement", "prover", "n", "variant", "m", "network"]
    for (st, circuit, n, variant, m, net), g in c.groupby(keys, sort=True):
        label = f"collab-groth16 {str(st).upper()} proof ({circuit}, n={n}, {variant}, m={m})"
        rows.setdefault(label, {})[str(net)] = Spread.of(g["value"])
    return rows


def collab_rtts(df: pd.DataFrame) -> dict[str, float]:
    """Each network profile's round trip [s], as collab-groth16's rows state it."""
    d = df[(df["experiment"] == COLLAB) & (df["metric"] == "rtt")]
    return {str(k): float(v) for k, v in d.groupby("label")["value"].max().items()}


def beside_dbsm(df: pd.DataFrame, factor: float) -> Beside:
    """Everything the paper sets beside DB-SM and DB-RSM, from the tidy table, with our
    collaborative estimates at `factor` (the paper's at its 2)."""
    local = local_only(df)
    top, failed = top_rows(local, factor)
    return Beside(
        top=top, top_failed=failed, top_note=COLLAB_ASSUMPTION.format(factor=factor),
        series=single_prover_series(local, factor), colors=COLORS,
        latency=collab_latency(df), rtts=collab_rtts(df),
    )  # fmt: skip
