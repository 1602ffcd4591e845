"""A claim of a paper, recomputed from its published figures and from our runs, and what their
comparison says. The claims themselves come from the studies (analysis.studies, `claims`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from analysis import units
from analysis.derive.spread import Spread

NAN = float("nan")


@dataclass
class Claim:
    key: str
    text: str
    unit: str
    readme: float | None  # the number the README states
    paper_quoted: float = NAN  # recomputed from the paper's reports with the README's rounding
    paper_exact: float = NAN  # recomputed from the paper's reports, no rounding
    ours: float = NAN
    note: str = ""
    ours_failed: bool = False
    ours_spread: Spread | None = None
    # The workload of our figure: set size and mix-servers (None where they do not apply).
    ours_n: int | None = None
    ours_m: int | None = None
    # Our figure is made the paper's way (the paper's mode, challenge lengths and circuit): a
    # reproduction, not an improvement.
    like_for_like: bool = True
    # The same figure with a factor the paper assumed replaced by one we measured.
    ours_measured: float = NAN
    measured_note: str = ""
    # The paper's workload (its set size n and, where it applies, m) ...
    paper_n: int = 0
    paper_m: int | None = None
    # ... and whether the claim is about one proof (its size does not grow with n).
    one_proof: bool = False

    @property
    def per_entry(self) -> bool:
        """A time that grows with n: comparable across set sizes only per entry."""
        return self.unit == "s" and not self.one_proof

    @property
    def comparable(self) -> bool:
        """Our figure is of the paper's workload (its n, and its m where m applies)."""
        return self.ours_n == self.paper_n and self.ours_m in (None, self.paper_m)

    @property
    def ratio(self) -> float:
        """ours / paper (exact), only for the same workload; > 1 means our figure is larger."""
        if not self.comparable:
            return NAN
        if math.isnan(self.ours) or math.isnan(self.paper_exact) or self.paper_exact == 0:
            return NAN
        return self.ours / self.paper_exact

    def per_entry_values(self) -> tuple[float, float]:
        """(ours, paper) divided by their own n: how different set sizes are shown side by side."""
        ours = self.ours / self.ours_n if self.ours_n else NAN
        return ours, self.paper_exact / self.paper_n if self.paper_n else NAN


# Our figure "reproduces" the paper's when it is of the same workload, made the same way, and
# within this factor of it: the machines differ (the paper's Xeon W-1270 at 3.4 GHz, one core,
# against whatever ran ours), and so do the libraries (PBC and Python against Rust).
REPRODUCED_FACTOR = 2.0


def verdict(c: Claim) -> str:
    """What the comparison of our figure with the paper's says, in words."""
    if math.isnan(c.ours) or math.isnan(c.paper_exact):
        return "-"
    if not c.comparable:
        return f"other workload (n={c.ours_n}{'' if c.ours_m is None else f', m={c.ours_m}'}): no ratio"
    r = c.ratio
    if c.unit == "x":
        return f"ours/paper {units.factor(r)}"
    how = f"{units.ratio(1 / r)} faster" if r < 1 else f"{units.ratio(r)} slower"
    if not c.like_for_like:
        return f"ours {how} (our optimised mode: an improvement, not a reproduction)"
    if 1 / REPRODUCED_FACTOR <= r <= REPRODUCED_FACTOR:
        return f"reproduced (within {REPRODUCED_FACTOR:g}x; ours {how})"
    return f"not reproduced: ours {how}"


def claims_frame(claims: list[Claim]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "claim": c.text, "unit": c.unit,
                "README": c.readme if c.readme is not None else NAN,
                "paper (README rounding)": c.paper_quoted, "paper (exact)": c.paper_exact,
                "ours": c.ours, "ours / paper": c.ratio,
                "ours n": c.ours_n, "ours m": c.ours_m, "verdict": verdict(c),
                "ours, collaborative factor measured": c.ours_measured, "measured factor": c.measured_note,
                "flag": "FAILED STATUS" if c.ours_failed else "", "note": c.note,
            }
            for c in claims
        ]
    )  # fmt: skip


def fmt_value(v: float, unit: str = "s") -> str:
    """A figure for a table whose header carries its unit: three significant digits (see
    analysis.units), a ratio with its x."""
    return units.value(v, unit)
