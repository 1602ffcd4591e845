"""The cpSNARK-Set runs' detail table, from the tidy table."""

from __future__ import annotations

import pandas as pd

from analysis.experiments.cpsnark_sm.parser import EXPERIMENT as CP
from analysis.experiments.cpsnark_sm.parser import PROVE, VERIFY, WITNESS, WITNESS_HASHED

NAN = float("nan")


def _get(g: pd.DataFrame, section: str, label: str, metric: str) -> float:
    hit = g[(g["section"] == section) & (g["label"] == label) & (g["metric"] == metric)]["value"]
    return float(hit.iloc[0]) if len(hit) else NAN


def cp_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per cpSNARK-Set run: criterion mean and 95% CI of each group, one proof."""
    c = df[df["experiment"] == CP]
    rows = {}
    for (source, run), g in c.groupby(["source", "run"], sort=False):
        first = g.iloc[0]
        row: dict[str, float] = {
            "n": float(first["n"]) if not pd.isna(first["n"]) else NAN,
            "threads": NAN if pd.isna(first["threads"]) else float(first["threads"]),
        }
        for short, grp in (("prove", PROVE), ("verify", VERIFY), ("witness", WITNESS)):
            for metric in ("mean", "ci_low", "ci_high"):
                row[f"{short} {metric} [s]"] = _get(g, grp, grp, metric)
        row["witness, hashed primes, mean [s]"] = _get(g, WITNESS_HASHED, WITNESS_HASHED, "mean")
        rows[f"{source} {run}"] = row
    return pd.DataFrame.from_dict(rows, orient="index", dtype=float)
