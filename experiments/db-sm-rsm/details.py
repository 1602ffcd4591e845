"""Per-experiment detail tables: every zkSNARK prover run, every cpSNARK-Set run, db sizes."""

from __future__ import annotations

import pandas as pd

from analysis.experiments.cpsnark_sm.parser import EXPERIMENT as CP
from analysis.experiments.cpsnark_sm.parser import PROVE, VERIFY, WITNESS, WITNESS_HASHED
from analysis.experiments.db_sm_rsm.figure10 import db_groups
from analysis.experiments.db_sm_rsm.parser import EXPERIMENT as DB
from analysis.experiments.zksnark_sm_rsm.parser import EXPERIMENT as ZK

NAN = float("nan")


def _get(g: pd.DataFrame, section: str, label: str, metric: str) -> float:
    hit = g[(g["section"] == section) & (g["label"] == label) & (g["metric"] == metric)]["value"]
    return float(hit.iloc[0]) if len(hit) else NAN


def zk_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per zkSNARK run and prover (paper's ZoKrates CLI, our wasm and native provers)."""
    z = df[df["experiment"] == ZK]
    rows = {}
    z = z.assign(circuit=z["variant"].fillna("zokrates"))
    for (source, run, circuit, prover), g in z.groupby(["source", "run", "circuit", "prover"], sort=False):
        first = g.iloc[0]
        # The paper's file names are long; its runs are told apart by statement alone.
        key = (
            f"paper {first['statement']} n={first['n']} {prover}"
            if source == "paper"
            else f"ours {run} {circuit} {prover}"
        )
        rows[key] = {
            "n": float(first["n"]),
            "threads": NAN if pd.isna(first["threads"]) else float(first["threads"]),
            "constraints": _get(g, "TRUSTED SETUP", "constraints", "constraints"),
            "setup real [s]": _get(g, "TRUSTED SETUP", "TRUSTED SETUP", "real"),
            "prove real [s]": _get(g, "PROVER", "PROVER", "real"),
            "prove CPU [s]": _get(g, "PROVER", "PROVER", "user") + _get(g, "PROVER", "PROVER", "sys"),
            "witness CPU [s]": _get(g, "PROVER", "witness", "user") + _get(g, "PROVER", "witness", "sys"),
            "verify CPU [s]": _get(g, "VERIFIER", "VERIFIER", "user")
            + _get(g, "VERIFIER", "VERIFIER", "sys"),
            "peak RSS [MiB]": _get(g, "", "peak RSS", "peak_rss"),
            "passed": _get(g, "VERIFIER", "status", "status"),
        }
    return pd.DataFrame.from_dict(rows, orient="index", dtype=float)


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
