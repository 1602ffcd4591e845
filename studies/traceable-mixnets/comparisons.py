"""The paper's headline comparison, made like with like.

Main Results 1 and 2 divide a collaborative zkSNARK's per-prover time for n proofs by DB-SM's
(DB-RSM's) per-prover time. This module makes that division in pairs whose two sides were built
the same way:

- the paper's figures: the paper's DB-SM/RSM against 2 x n x the paper's ZoKrates proof;
- ours, the paper's way: our DB-SM/RSM in paper mode (the artifact's operation counts and
  challenge lengths) against 2 x n x our proof of the same ZoKrates circuit;
- ours, with the collaborative factor measured (collab-groth16) instead of assumed, on the same
  circuit and DB-SM/RSM run;
- best against best: our fast DB-SM/RSM at full security against the measured collaborative
  factor times n proofs of our optimised circuit (the fewest constraints).

Every pair is at one set size n; each side says its circuit, constraints and thread count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from analysis.experiments.db_sm_rsm.figure10 import FSM, RSM, DbGroup, group_median, section_total
from analysis.studies.traceable_mixnets.picks import (
    Pick,
    constraints,
    measured_factor,
    pick_db_group,
    zk_prove,
)

NAN = float("nan")
PAPER_FACTOR = 2.0


@dataclass
class Pairing:
    kind: str  # which pair: "paper", "paper's way", "measured factor", "best"
    statement: str  # "SM" or "RSM"
    n: int
    zk_text: str
    zk_s: float
    db_text: str
    db_s: float

    @property
    def ratio(self) -> float:
        return self.zk_s / self.db_s if self.db_s > 0 and not math.isnan(self.zk_s) else NAN


def _zk_text(df: pd.DataFrame, source: str, st: str, circuit: str, n: int, pick: Pick, factor: str) -> str:
    k = constraints(df, source, st, circuit, n)
    name = "the paper's ZoKrates circuit" if circuit == "zokrates" else "our optimised circuit"
    size = f", {k:,} constraints" if k else ""
    prover = pick.prover or "ZoKrates CLI"
    return f"{factor} x {n} x {pick.value:.4g} s ({name}{size}, {prover}, t={pick.threads})"


def _db(df: pd.DataFrame, g: DbGroup, section: str) -> float:
    return group_median(df, g, lambda f: section_total(f, section, "M"))


def _pair(df: pd.DataFrame, kind: str, st: str, db: DbGroup, db_text: str, source: str, circuit: str,
          pk: Pick, factor: float, factor_text: str) -> Pairing:  # fmt: skip
    """One pair at the DB run's n: `factor` x n x one proof of `circuit` (its time `pk`, from the
    `source`'s runs) beside the DB run's per-prover time for statement `st`."""
    n = db.n
    zk_text = _zk_text(df, source, st, circuit, n, pk, factor_text)
    section = FSM if st == "sm" else RSM
    return Pairing(kind, st.upper(), n, zk_text, factor * n * pk.value, db_text, _db(df, db, section))


def pairings(df: pd.DataFrame) -> list[Pairing]:
    out: list[Pairing] = []
    paper_db = pick_db_group(df, "paper")
    way = pick_db_group(df, "ours", best=False)
    way = way if way is not None and way.mode == "paper" else None
    best = pick_db_group(df, "ours", best=True)
    for st in ("sm", "rsm"):
        label = st.upper()
        if paper_db is not None:
            pk = zk_prove(df, "paper", st, paper_db.n)
            if pk is not None:
                db_text = f"DB-{label} per prover, the paper's sample report (PBC, one core)"
                kind = "the paper's figures"
                out.append(_pair(df, kind, st, paper_db, db_text, "paper", "zokrates", pk, PAPER_FACTOR, "2"))
        if way is not None:
            pk = zk_prove(df, "ours", st, way.n)
            if pk is not None and pk.n == way.n:
                db_text = f"DB-{label} per prover, ours in paper mode ({way.name})"
                kind = "ours, the paper's way (2x rule)"
                out.append(_pair(df, kind, st, way, db_text, "ours", "zokrates", pk, PAPER_FACTOR, "2"))
                mf = measured_factor(df, st, "zokrates", way.n, way.m)
                if mf is not None:
                    f, how = mf
                    kind = "ours, collaborative factor measured"
                    text = f"{f.value:.2f} ({how})"
                    out.append(_pair(df, kind, st, way, db_text, "ours", "zokrates", pk, f.value, text))
        if best is not None:
            pk = zk_prove(df, "ours", st, best.n, circuit="optimized")
            if pk is not None and pk.n == best.n:
                mf = measured_factor(df, st, "optimized", best.n, best.m)
                factor, how = (
                    (mf[0].value, f"{mf[0].value:.2f} ({mf[1]})") if mf else (PAPER_FACTOR, "2 (assumed)")
                )
                db_text = f"DB-{label} per prover, ours ({best.name})"
                kind = "best against best"
                out.append(_pair(df, kind, st, best, db_text, "ours", "optimized", pk, factor, how))
    return out


def pairings_frame(ps: list[Pairing]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "pair": p.kind,
                "statement": p.statement,
                "n": p.n,
                "collaborative zkSNARK, n proofs": p.zk_text,
                "zkSNARK side [s]": p.zk_s,
                "DB side": p.db_text,
                "DB side [s]": p.db_s,
                "ratio": p.ratio,
            }
            for p in ps
        ]
    )
