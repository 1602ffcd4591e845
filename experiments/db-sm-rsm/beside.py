"""What may be set beside db-sm-rsm's own figures: other systems' rows of Figure 10's top table,
their per-prover time against n, and their latency per network profile. This folder reads only
db-sm-rsm's rows; a study that reads the other systems' experiments makes a `Beside` and has the
section draw it (studies/, a study's `pages`). Without one the section shows DB-SM and DB-RSM
alone."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from analysis.derive.spread import Spread


@dataclass(frozen=True)
class Beside:
    # Rows under Figure 10's top table: one column per db parameter set (its `DbGroup.name`), or a
    # column of their own for a set size without a db run; and the columns whose runs failed.
    top: pd.DataFrame = field(default_factory=pd.DataFrame)
    top_failed: tuple[str, ...] = ()
    top_note: str = ""  # a sentence under the top table, after the HBC note
    # Series of the plot of per-prover time against n (the columns of plots.SERIES), and the
    # colour of each approach.
    series: pd.DataFrame = field(default_factory=pd.DataFrame)
    colors: Mapping[str, str] = field(default_factory=dict)
    # Rows of the latency table: label -> network profile (`none`, `lan`, ...) -> wall time, and
    # each profile's round trip [s] as those rows' runs state it.
    latency: Mapping[str, Mapping[str, Spread]] = field(default_factory=dict)
    rtts: Mapping[str, float] = field(default_factory=dict)


NOTHING = Beside()
