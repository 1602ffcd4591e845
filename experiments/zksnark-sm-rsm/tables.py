"""The zkSNARK runs' detail table, from the tidy table."""

from __future__ import annotations

import pandas as pd

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
