"""Per-experiment detail tables: every zkSNARK prover run, every cpSNARK-Set run, db sizes."""

from __future__ import annotations

import pandas as pd

from analysis.experiments.db_sm_rsm.figure10 import db_groups
from analysis.experiments.db_sm_rsm.parser import EXPERIMENT as DB

NAN = float("nan")


def _get(g: pd.DataFrame, section: str, label: str, metric: str) -> float:
    hit = g[(g["section"] == section) & (g["label"] == label) & (g["metric"] == metric)]["value"]
    return float(hit.iloc[0]) if len(hit) else NAN


# How the sizes table names each line's two figures: the bytes as sent first, then the paper's.
SENT = "{line}, as sent"
PAYLOAD = "{line}, payload only (paper's lines)"


def sizes_table(df: pd.DataFrame) -> pd.DataFrame:
    """Sizes per entry in bytes (MB x 2^20 / n), one column per db run: for each size line the
    bytes of the posts that carry it as sent (ours), then the paper's payload-only line."""
    cols: dict[str, dict[str, float]] = {}
    for grp in db_groups(df):
        # Sizes do not vary between repetitions; the first run stands for the group.
        g = df[(df["experiment"] == DB) & (df["source"] == grp.source) & (df["run"] == grp.runs[0])]
        s = g[g["metric"] == "size"]
        if s.empty:
            continue
        sent = g[g["metric"] == "size_sent"].set_index("label")["value"]
        col: dict[str, float] = {}
        for lbl, v in zip(s["label"], s["value"], strict=True):
            col[SENT.format(line=lbl)] = float(sent.get(lbl, float("nan"))) * 2**20 / grp.n
            col[PAYLOAD.format(line=lbl)] = float(v) * 2**20 / grp.n
        cols[grp.name] = col
    return pd.DataFrame(cols, dtype=float)
