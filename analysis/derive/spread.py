"""Repetitions of one parameter set: their median, the smallest and largest value, and how many.

Wherever a table or a plot shows a median of repeated runs, it shows this spread beside it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

NAN = float("nan")


@dataclass(frozen=True)
class Spread:
    median: float
    lo: float
    hi: float
    count: int

    @classmethod
    def of(cls, values: Iterable[float]) -> Spread:
        vals = [float(v) for v in values if v is not None and not math.isnan(float(v))]
        if not vals:
            return cls(NAN, NAN, NAN, 0)
        return cls(float(np.median(vals)), min(vals), max(vals), len(vals))

    @classmethod
    def single(cls, value: float) -> Spread:
        return cls.of([value])

    def text(self, fmt: Callable[[float], str]) -> str:
        """'median' for one run; 'median [min-max] xk' for k repetitions."""
        if self.count == 0:
            return "-"
        if self.count == 1:
            return fmt(self.median)
        return f"{fmt(self.median)} [{fmt(self.lo)}-{fmt(self.hi)}] x{self.count}"

    def scaled(self, factor: float) -> Spread:
        return Spread(self.median * factor, self.lo * factor, self.hi * factor, self.count)


def median_of(x: object) -> float:
    """The median of a table cell (a Spread or a plain number)."""
    if isinstance(x, Spread):
        return x.median
    try:
        return float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return NAN
