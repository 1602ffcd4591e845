"""db-sm-rsm over the network: what its `tls` runs measured, beside its one-process runs (and
beside what a study sets there: the collaborative prover under the same network profiles,
analysis.experiments.db_sm_rsm.beside).

A `tls` run has a process per party (the driver with the dealer and the senders, each mix-server,
the verifier) and a bulletin board, on one of netem's network profiles (`variant` column
`tls/<profile>`; see the parser). Each process's timers give, per step, its wall time
(computing and waiting), its CPU time and its traffic; the run-wide wall time of a section is
from the first process entering it to the last leaving it. DB-SM and DB-RSM are the sections
`forward set membership` and `reverse set membership`: one query over all n entries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from analysis.derive.spread import Spread
from analysis.experiments.db_sm_rsm.beside import NOTHING, Beside
from analysis.experiments.db_sm_rsm.parser import AUDIT, STEPS
from analysis.experiments.db_sm_rsm.parser import EXPERIMENT as DB

QUERIES = (("DB-SM", "forward set membership"), ("DB-RSM", "reverse set membership"))
# The sections below `main` in the order of a run.
SECTIONS = ("preprocessing", "checking inputs", "mixing", "forward set membership", "reverse set membership")
LOCAL = "local"
MB = 1e6


def is_tls(variant: object) -> bool:
    return isinstance(variant, str) and variant.startswith("tls/")


def local_only(df: pd.DataFrame) -> pd.DataFrame:
    """The table without db-sm-rsm's `tls` runs: what the paper's Figure 10 compares (one
    process, every party's time its own CPU's)."""
    tls = (df["experiment"] == DB) & df["variant"].map(is_tls).astype(bool)
    return df[~tls]


def tls_rows(df: pd.DataFrame) -> pd.DataFrame:
    d = df[(df["experiment"] == DB) & (df["source"] == "ours")]
    return d[d["variant"].map(is_tls).astype(bool)]


@dataclass(frozen=True)
class TlsRun:
    """One `tls` run: its id, network profile, and size."""

    run: str
    profile: str
    n: int
    m: int
    threads: int | None

    @property
    def name(self) -> str:
        t = "" if self.threads is None else f", t={self.threads}"
        return f"{self.profile}: n={self.n}, m={self.m}{t}"


def tls_runs(df: pd.DataFrame) -> list[TlsRun]:
    """Every `tls` run of ours, by profile (in order of round trip), then n, m and run id."""
    d = tls_rows(df)
    out = []
    for run, g in d.groupby("run", sort=True):
        first = g.iloc[0]
        threads = None if pd.isna(first["threads"]) else int(first["threads"])
        profile = str(first["variant"]).removeprefix("tls/")
        out.append(TlsRun(str(run), profile, int(first["n"]), int(first["m"]), threads))
    rtt = profile_rtts(df)
    return sorted(out, key=lambda r: (rtt.get(r.profile, math.inf), r.profile, r.n, r.m, r.run))


def profile_rtts(df: pd.DataFrame, beside: Beside = NOTHING) -> dict[str, float]:
    """Each network profile's round trip [s], as db-sm-rsm's rows (and the rows beside) state it."""
    d = df[(df["experiment"] == DB) & (df["metric"] == "rtt")]
    rtts = {str(k): float(v) for k, v in d.groupby("label")["value"].max().items()}
    for profile, rtt in beside.rtts.items():
        rtts[profile] = max(rtts.get(profile, rtt), rtt)
    return rtts


def parties(run: pd.DataFrame) -> list[str]:
    """The processes of a run in a reader's order: the driver, the mixers, the verifier."""

    def key(p: str) -> tuple[int, int]:
        if p == "driver":
            return (0, 0)
        if p.startswith("mixer "):
            return (1, int(p.split()[1]))
        return (2, 0)

    return sorted({str(p) for p in run["party"].dropna()}, key=key)


def _sum(g: pd.DataFrame, metric: str) -> float:
    v = g[g["metric"] == metric]["value"]
    return float(v.sum()) if len(v) else math.nan


def section_figures(df: pd.DataFrame, run: str) -> pd.DataFrame:
    """Per section below `main` and process of one `tls` run: its CPU and wall time, the part
    of the wall time spent waiting for posts, its bytes sent and received, and its rounds (reads
    it waited for). Traffic and waits sum over the section's steps."""
    d = tls_rows(df)
    d = d[d["run"] == run]
    steps = d[d["section"].fillna("").str.startswith(STEPS)]
    rows: dict[tuple[str, str], dict[str, float]] = {}
    for section in SECTIONS:
        own = steps[(steps["section"] == f"{STEPS} > main") & (steps["label"] == section)]
        inner = steps[steps["section"].str.startswith(f"{STEPS} > main > {section}")]
        for party in parties(own):
            mine = own[own["party"] == party]
            below = pd.concat([mine, inner[inner["party"] == party]])
            rows[(section, party)] = {
                "CPU [s]": _sum(mine, "cpu"),
                "wall [s]": _sum(mine, "wall"),
                "waited [s]": _sum(below, "waited"),
                "sent [MB]": _sum(below, "bytes_sent") / MB,
                "received [MB]": _sum(below, "bytes_received") / MB,
                "rounds": _sum(below, "rounds"),
            }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    if not frame.empty:
        frame.index = [f"{s}: {p}" for s, p in frame.index]
    return frame


def step_figures(df: pd.DataFrame, run: str) -> pd.DataFrame:
    """Per process and step of one `tls` run: the steps are the sections two levels below `main`
    (and a section below `main` whole where the process has no step of it with a row). Each with
    its section, start, wall time, CPU time, and the waits and bytes of its whole subtree: what
    the timeline and the CPU-against-wall plot draw."""
    keep = ["section", "step", "party", "start", "wall", "cpu", "waited", "bytes"]
    d = tls_rows(df)
    d = d[(d["run"] == run) & d["section"].fillna("").str.startswith(STEPS)]
    if d.empty:
        return pd.DataFrame(columns=keep)
    f = d.pivot_table(index=["section", "party", "label"], columns="metric", values="value",
                      aggfunc="first").reset_index()  # fmt: skip
    f["path"] = f["section"].str.removeprefix(STEPS).str.removeprefix(" > ")
    f["moved"] = f.get("bytes_sent", 0.0) + f.get("bytes_received", 0.0)
    f["node"] = f["path"] + " > " + f["label"]
    top = f[(f["path"] == "main") & f["label"].isin(SECTIONS)]
    second = f[(f["path"].str.count(" > ") == 1) & f["path"].str.startswith("main > ")]

    def step(section: str, r: pd.Series) -> dict[str, object]:
        below = f[(f["party"] == r["party"]) & f["path"].str.startswith(str(r["node"]))]
        return {"section": section, "step": r["label"], "party": r["party"], "start": r["start"],
                "wall": r["wall"], "cpu": r["cpu"], "waited": r["waited"] + below["waited"].sum(),
                "bytes": r["moved"] + below["moved"].sum()}  # fmt: skip

    rows = [step(str(r["path"]).removeprefix("main > "), r) for _, r in second.iterrows()]
    covered = {(r["section"], r["party"]) for r in rows}
    rows += [step(str(r["label"]), r) for _, r in top.iterrows() if (r["label"], r["party"]) not in covered]
    out = pd.DataFrame(rows, columns=keep)
    out = out[out["section"].isin(SECTIONS)]
    return out.sort_values(["party", "start"]).reset_index(drop=True)


def _spread(d: pd.DataFrame) -> Spread:
    return Spread.of(d["value"])


def latency_columns(df: pd.DataFrame, beside: Beside = NOTHING) -> list[str]:
    """The latency table's columns: one process, then each network profile by round trip."""
    d = df[(df["experiment"] == DB) & (df["source"] == "ours")]
    variants = {str(v) for v in d["variant"].dropna()}
    profiles = {v.removeprefix("tls/") for v in variants if is_tls(v)}
    profiles |= {p for row in beside.latency.values() for p in row}
    rtt = profile_rtts(df, beside)
    ordered = sorted(profiles, key=lambda p: (rtt.get(p, math.inf), p))
    return ([LOCAL] if LOCAL in variants else []) + ordered


def _column(p: str) -> str:
    return "one process [s]" if p == LOCAL else f"{p} [s]"


# What the latency table gives of each `tls` run's query sections: (row, metric).
TLS_FIGURES = (("query", "query_wall"), ("network floor, hops x RTT", "network_floor"), ("hops", "hops"))
Rows = dict[str, dict[str, object]]


def _db_latency(d: pd.DataFrame, n: int, where: str, rows: Rows) -> None:
    """One db-sm-rsm parameter set's rows: per query, its wall time in each transport and
    profile, and that time per entry; for `tls`, its network floor and hops too."""
    for query, section in QUERIES:
        for variant, v in d.groupby("variant", sort=False):
            col = _column(str(variant).removeprefix("tls/"))
            if variant == LOCAL:
                hit = v[(v["section"] == "main") & (v["label"] == section) & (v["metric"] == "time")]
                rows.setdefault(f"{query} query ({where})", {})[col] = _spread(hit)
                rows.setdefault(f"{query} query per entry ({where})", {})[col] = _spread(hit).scaled(1 / n)
                continue
            at = v[(v["section"] == "network") & (v["label"] == section)]
            for what, metric in TLS_FIGURES:
                rows.setdefault(f"{query} {what} ({where})", {})[col] = _spread(at[at["metric"] == metric])
            wall = _spread(at[at["metric"] == "query_wall"])
            rows.setdefault(f"{query} query per entry ({where})", {})[col] = wall.scaled(1 / n)


def latency_table(df: pd.DataFrame, beside: Beside = NOTHING) -> pd.DataFrame:
    """DB-SM and DB-RSM query latency (all n entries, and per entry) per transport and network
    profile (columns: one process, then each profile), with their network floors and hops, and
    the rows set beside them (the collaborative prover's wall time per proof under the same
    profiles). Empty without a `tls` run."""
    if tls_rows(df).empty:
        return pd.DataFrame()
    rows: Rows = {}
    d = df[(df["experiment"] == DB) & (df["source"] == "ours")]
    keys = ["n", "m", "threads", "curve", "mode", "security"]
    for (n, m, t, curve, mode, sec), g in d.groupby(keys, sort=True):
        _db_latency(g, int(n), f"n={n}, m={m}, t={t}, {curve}, {mode}, {sec}", rows)
    for label, by_profile in beside.latency.items():
        rows[label] = {_column(p): v for p, v in by_profile.items()}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    return frame.reindex(columns=[_column(p) for p in latency_columns(df, beside)])


def published_bytes(df: pd.DataFrame, run: str) -> pd.DataFrame:
    """The posts of one `tls` run that carry a size line's values, against that line: the senders'
    inputs (the driver's posts outside every section below `main`), the verifier's BB and BBS+
    signatures, and the mixers' DPK proofs (their posts in the NIZK proof sections). Bytes of
    posts: frame headers, stamps and bodies (TLS records not counted)."""
    d = df[(df["experiment"] == DB) & (df["run"] == run)]
    steps = d[d["section"].fillna("").str.startswith(STEPS) & (d["metric"] == "bytes_sent")]
    sizes = d[d["metric"] == "size"].set_index("label")["value"]

    def sent(party: str | None, section: str, label: str) -> float:
        hit = steps[(steps["section"] == f"{STEPS}{section}") & (steps["label"] == label)]
        hit = hit[hit["party"] == party] if party is not None else hit[hit["party"].str.startswith("mixer ")]
        return float(hit["value"].sum())

    pairs = (
        ("size of sender-uploaded input ciphertexts", sent("driver", "", "main")),
        ("size of verifier-uploaded BB signatures",
         sent("verifier", " > main > forward set membership", "get_verfsigs")),
        ("size of DPK_BBsig proofs", sent(None, " > main > forward set membership", "dpk_bbsig_nizkproofs")),
        ("size of verifier-uploaded BBS+ signatures",
         sent("verifier", " > main > reverse set membership", "get_verfsigs_rev")),
        ("size of DPK_BBSPlusSig proofs",
         sent(None, " > main > reverse set membership", "dpk_bbsplussig_nizkproofs")),
    )  # fmt: skip
    rows = {}
    for label, posted in pairs:
        size = float(sizes.get(label, math.nan)) * 2**20
        rows[label.removeprefix("size of ")] = {
            "report's size [MB]": size / MB,
            "posted [MB]": posted / MB,
            "posted / size": posted / size if size > 0 else math.nan,
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def audit_table(df: pd.DataFrame) -> pd.DataFrame:
    """Universal verifiability, measured: per `tls` run, the CPU time per entry of the audit of its
    board record (verify-board, run by the driver once every other process had ended: the chain,
    then every check of every party redone on the public data), beside the verifier party's own
    CPU per entry in DB-SM and DB-RSM (its process's, the two query sections)."""
    d = tls_rows(df)
    rows: dict[str, dict[str, float]] = {}
    for run in tls_runs(df):
        r = d[d["run"] == run.run]
        audit = r[r["section"] == AUDIT]
        if audit.empty:
            continue
        queries = [s for _, s in QUERIES]
        own = r[(r["section"] == f"{STEPS} > main") & (r["party"] == "verifier") & r["label"].isin(queries)]
        verifier = _sum(own, "cpu") / run.n
        auditor = _sum(audit, "cpu") / run.n
        rows[run.name] = {
            "verifier CPU / entry [s]": verifier,
            "auditor CPU / entry [s]": auditor,
            "auditor / verifier": auditor / verifier if verifier > 0 else math.nan,
            "checks redone": _sum(audit, "checks_recomputed"),
            "audit passed": _sum(audit, "audit_passed"),
        }
    return pd.DataFrame.from_dict(rows, orient="index")
