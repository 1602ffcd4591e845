"""mithril's tables, derived from the tidy table: the comparison with the crate's targets (data
here, not verdicts inside mithril-bench), the native operations beside their bounds, the circuit's
sizes and proofs beside the published reference figures, the reference figures, the fitted lines, and
ours / mithril-stm per operation from the same run. The PDF section only lays these out."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from analysis.derive.spread import NAN, Spread
from analysis.experiments.mithril.parser import BATCH_OPERATIONS, EXPERIMENT, OPERATIONS, REFERENCE_SOURCE
from analysis.render.sections.common import count, median, ours_rows, reference_rows, seconds


@dataclass(frozen=True)
class Target:
    """A goal the crate set itself, compared with a measurement in the analysis."""

    key: str
    text: str
    bound: float
    unit: str  # "s (CPU)", "s (wall)", "cells" or "check"


# The reference's fastest published proving time at n = 8 (its 16 GB M1, Table 2, k = 17).
REFERENCE_M1_N8_PROVE_S = 114.6814
TARGETS = (
    Target("native_n64", "native BKey + BSig + Ver at n = 64, one thread, under 10 ms", 0.010, "s (CPU)"),
    Target("cancellation", "cancellation: plain aggregation accepts sigma1 + D, sigma2 - D, weighted rejects",
           1.0, "check"),
    Target("cells", "circuit advice cells per signature at most 0.3 M (fitted slope)", 300_000.0, "cells"),
    Target("n32", "n = 32 proves on this machine", 1.0, "check"),
    Target("n8", "n = 8 proves in less than the reference's 16 GB M1 (114.7 s, wall)",
           REFERENCE_M1_N8_PROVE_S, "s (wall)"),
)  # fmt: skip


def _measured(t: Target, h: pd.DataFrame) -> tuple[float, bool, float, float] | None:
    """(measured, holds, threads, peak MiB) of a target on one host's rows; None if not measured."""
    if t.key == "native_n64":
        g = h[(h["variant"] == "native") & (h["section"] == "b_total") & (h["n"] == 64) & (h["threads"] == 1)]
        v = median(g, "cpu_median")
        ok = bool((g[g["metric"] == "status"]["value"] == 1).all())
        return None if math.isnan(v) else (v, v < t.bound and ok, 1.0, NAN)
    if t.key == "cancellation":
        g = h[(h["section"] == "cancellation") & (h["metric"] == "passed")]
        return None if g.empty else (float((g["value"] == 1).all()), bool((g["value"] == 1).all()), 1.0, NAN)
    if t.key == "cells":
        g = h[(h["section"] == "fit") & (h["label"] == "advice_cells")]
        v = median(g, "slope")
        return None if math.isnan(v) else (v, v <= t.bound, NAN, NAN)
    n = 32 if t.key == "n32" else 8
    g = h[(h["variant"] == "circuit") & (h["n"] == n)]
    proof = g[g["section"] == "proof"]
    if proof.empty:
        return None
    ok = bool((proof[proof["metric"] == "verified"]["value"] == 1).all())
    threads = median(g[g["section"] == "prove_total"].assign(metric="t", value=g["threads"]), "t")
    peak = median(proof, "peak_rss")
    if t.key == "n32":
        return (float(ok), ok, threads, peak)
    wall = median(g[g["section"] == "prove_total"], "wall")
    return (wall, ok and wall < t.bound, threads, peak)


def target_table(df: pd.DataFrame) -> tuple[pd.DataFrame, set[int]]:
    """Each target against what the runs measured (per host; one that failed is flagged)."""
    d = _ours(df)
    rows: dict[str, dict[str, object]] = {}
    bad: set[int] = set()
    for host in _hosts(d):
        h = _on(d, host)
        for t in TARGETS:
            got = _measured(t, h)
            if got is None:
                continue
            v, holds, threads, peak = got
            if t.unit == "check":
                shown, limit = ("yes" if v == 1 else "no"), "yes"
            elif t.unit.startswith("s"):
                clock = t.unit.removeprefix("s").strip(" ()")
                shown, limit = f"{_time(v)} {clock}", _time(t.bound)
            else:
                shown, limit = count(v), count(t.bound)
            if not holds:
                bad.add(len(rows))
            rows[t.text + _suffix(host)] = {
                "measured": shown,
                "bound": limit,
                "threads": count(threads),
                "peak memory [MiB]": count(peak),
                "met": "yes" if holds else "NO",
            }
    return pd.DataFrame.from_dict(rows, orient="index"), bad


def stm_table(df: pd.DataFrame) -> pd.DataFrame:
    """Ours / mithril-stm per operation and signer count, from the same run (CPU time per call)."""
    d = _ours(df)
    d = d[d["section"] == "mithril-stm"]
    rows: dict[str, dict[str, object]] = {}
    for (host, op, n, t), g in d.groupby(
        [d["host"].fillna(""), "prover", "n", "threads"], sort=True, dropna=False
    ):
        label = str(g["label"].iloc[0])
        rows[f"{op} n={int(n)} t={int(t)}{_suffix(host or None)}"] = {
            "workload": label.split(": ", 1)[-1],
            "ours": median(g, "ours_cpu"),
            "mithril-stm": median(g, "stm_cpu"),
            "ours / mithril-stm": median(g, "ratio"),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def _time(v: float) -> str:
    return seconds(v, "us", whole_from=100)


def _ours(df: pd.DataFrame) -> pd.DataFrame:
    return ours_rows(df, EXPERIMENT)


def _reference(df: pd.DataFrame) -> pd.DataFrame:
    return reference_rows(df, EXPERIMENT, REFERENCE_SOURCE)


def _hosts(d: pd.DataFrame) -> list[str | None]:
    return sorted({h for h in d["host"] if isinstance(h, str)}) or [None]


def _on(d: pd.DataFrame, host: str | None) -> pd.DataFrame:
    return d if host is None else d[d["host"] == host]


def _suffix(host: str | None) -> str:
    return "" if host is None else f" on {host}"


def _spread(g: pd.DataFrame, metric: str, scale: float = 1.0) -> Spread:
    """A figure over the repetitions of a run (one value without repetitions)."""
    return Spread.of(g[g["metric"] == metric]["value"]).scaled(scale)


# ---- the tables ------------------------------------------------------------------------------


def native_table(df: pd.DataFrame) -> pd.DataFrame:
    """Every native operation at each signer count and thread count, beside its lower bound."""
    d = _ours(df)
    d = d[(d["variant"] == "native") & d["section"].isin(OPERATIONS)]
    rows: dict[str, dict[str, object]] = {}
    order = {op: i for i, op in enumerate(OPERATIONS)}
    keys = sorted(
        {
            (h, s, int(n), int(t))
            for h, s, n, t in zip(d["host"], d["section"], d["n"], d["threads"], strict=True)
        },
        key=lambda k: (
            k[0] or "",
            k[1] in BATCH_OPERATIONS,
            k[2] if k[1] in BATCH_OPERATIONS else 0,
            order[k[1]],
            k[2],
            k[3],
        ),
    )
    for host, op, n, t in keys:
        g = d[(d["section"] == op) & (d["n"] == n) & (d["threads"] == t)]
        g = g if host is None else g[g["host"] == host]
        cpu = _spread(g, "cpu_median")
        bound = median(g, "lower_bound_cpu")
        size = f"b={n}" if op in BATCH_OPERATIONS else f"n={n}"
        rows[f"{op} {size} t={t}{_suffix(host)}"] = {
            "CPU": cpu,
            "wall": median(g, "wall_median"),
            "lower bound": bound,
            "CPU / bound": median(g, "ratio_to_bound"),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def size_table(df: pd.DataFrame) -> pd.DataFrame:
    """The circuit's size at each counted signer count (the run's BLS check and the other one),
    with the cells per signature, and the reference's per-signature design counted with the same chips."""
    d = _ours(df)
    d = d[(d["variant"] == "circuit") & (d["section"] == "size")]
    rows: dict[str, dict[str, object]] = {}
    for host in _hosts(d):
        h = _on(d, host)
        for mode in sorted(set(h["mode"].dropna())):
            m = h[h["mode"] == mode]
            prev: tuple[int, float] | None = None
            for n in sorted({int(x) for x in m["n"].dropna()}):
                g = m[m["n"] == n]
                cells = median(g, "advice_cells")
                per = (cells - prev[1]) / (n - prev[0]) if prev else NAN
                prev = (n, cells)
                rows[f"n={n}, {mode}{_suffix(host)}"] = {
                    "k": median(g, "k"),
                    "advice cells": cells,
                    "lookup cells": median(g, "lookup_cells"),
                    "advice columns": median(g, "advice_columns"),
                    "per signature": per,
                    "layout CPU [s]": median(g, "layout_cpu"),
                }
    design = _ours(df)
    design = design[design["section"] == "reference design"]
    if len(design):
        rows["the reference's design, per signature"] = {
            "k": NAN,
            "advice cells": NAN,
            "lookup cells": NAN,
            "advice columns": NAN,
            "per signature": median(design, "cells_per_signature"),
            "layout CPU [s]": NAN,
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def _reference_prove(df: pd.DataFrame, machine_word: str, n: int) -> float:
    """The reference's fastest published proving time at n on the machine whose name has the word."""
    s = _reference(df)
    s = s[(s["variant"] == "msp_b") & (s["n"] == n) & (s["metric"] == "prove_published")]
    s = s[s["machine"].str.contains(machine_word, regex=False)]
    return float(s["value"].min()) if len(s) else NAN


def proof_table(df: pd.DataFrame) -> pd.DataFrame:
    """Each proved n: k, keys, prover, verifier, proof size, memory; the reference's times at that n."""
    d = _ours(df)
    d = d[(d["variant"] == "circuit") & (d["n"].notna())]
    proved = d[d["section"] == "prove_total"]
    rows: dict[str, dict[str, object]] = {}
    for host in _hosts(proved):
        for n in sorted({int(x) for x in _on(proved, host)["n"]}):
            g = _on(d, host)
            g = g[g["n"] == n]

            def phase(section: str, metric: str, g: pd.DataFrame = g) -> Spread:
                return _spread(g[g["section"] == section], metric)

            proof = g[g["section"] == "proof"]
            threads = sorted({int(t) for t in g[g["section"] == "prove_total"]["threads"].dropna()})
            rows[f"n={n}{_suffix(host)}"] = {
                "k": median(proof, "k"),
                "threads": ", ".join(map(str, threads)),
                "keys CPU": phase("keygen", "cpu"),
                "prove wall": phase("prove_total", "wall"),
                "prove CPU": phase("prove_total", "cpu"),
                "verify": phase("verify", "wall"),
                "proof [bytes]": median(proof, "proof_bytes"),
                "peak [MiB]": _spread(proof, "peak_rss"),
                "reference server": _reference_prove(df, "Xeon", n),
                "reference M1": _reference_prove(df, "M1", n),
            }
    return pd.DataFrame.from_dict(rows, orient="index")


def reference_table(df: pd.DataFrame) -> pd.DataFrame:
    """Every figure the reference published, with its machine and circuit shape."""
    s = _reference(df)
    rows: dict[str, dict[str, object]] = {}
    keys = s[["variant", "statement", "n", "machine", "label"]].drop_duplicates()
    for i, (variant, keys_in, n, machine, shape) in enumerate(keys.itertuples(index=False, name=None)):
        g = s[
            (s["variant"] == variant)
            & (s["statement"] == keys_in)
            & (s["n"] == n)
            & (s["machine"] == machine)
            & (s["label"] == shape)
        ]
        status = g[g["metric"] == "status"]
        ok = bool(len(status)) and float(status["value"].iloc[0]) == 1.0
        name = "MSP.A" if variant == "msp_a" else "MSP.B"
        rows[f"{i + 1}. {name} n={n}"] = {
            "keys in": keys_in if isinstance(keys_in, str) else "-",
            "prove": median(g, "prove_published") if ok else str(status["unit"].iloc[0]),
            "verify": median(g, "verify_published"),
            "proof [bytes]": median(g, "proof_bytes"),
            "shape": shape,
            "machine": machine,
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def fit_text(df: pd.DataFrame) -> str:
    """The fitted lines, in words (per host)."""
    d = _ours(df)
    d = d[d["section"] == "fit"]
    out = []
    for host in _hosts(d):
        h = _on(d, host)
        parts = []
        for label, what, scale, unit in (
            ("advice_cells", "advice cells", 1e-3, "k cells"),
            ("prove_cpu_s", "prove CPU", 1.0, "s"),
            ("prove_wall_s", "prove wall", 1.0, "s"),
            ("peak_rss_mib", "peak memory", 1.0, "MiB"),
        ):
            g = h[h["label"] == label]
            a, b, r2 = median(g, "intercept"), median(g, "slope"), median(g, "r2")
            if not math.isnan(b):
                parts.append(f"{what} = {a * scale:,.1f} + {b * scale:,.2f} n {unit} (R² {r2:.3f})")
        if parts:
            out.append(("" if host is None else f"{host}: ") + "; ".join(parts))
    return ". ".join(out)


def extrapolated_table(df: pd.DataFrame) -> pd.DataFrame:
    """The fitted lines at the report's extrapolation points (labelled: not measured)."""
    ext = _ours(df)
    ext = ext[ext["section"] == "extrapolated"]
    rows: dict[str, dict[str, object]] = {}
    for n in sorted({int(x) for x in ext["n"].dropna()}):
        g = ext[ext["n"] == n]
        rows[f"n={n} (extrapolated)"] = {
            "advice cells": median(g, "advice_cells"),
            "prove CPU": median(g, "prove_cpu_s"),
            "prove wall": median(g, "prove_wall_s"),
            "keys CPU": median(g, "keygen_cpu_s"),
            "peak [MiB]": median(g, "peak_rss_mib"),
        }
    return pd.DataFrame.from_dict(rows, orient="index")
