"""Numbers as the report prints them: three significant digits, with their unit.

Every table, plot label, summary line and PDF page formats its numbers here, so one figure reads
the same everywhere: times in the largest unit that shows them at 1 or more (2.18 s, 31.2 ms),
ratios with an x (86.1x), memory in GiB with one decimal (23.5 GiB) or whole MiB, counts exactly
(35,091 constraints). Values of 1000 and more are whole numbers rounded to three significant
digits and thousands separated (43,560 s prints as 43,600 s). A missing value (None, NaN) is "-".
"""

from __future__ import annotations

import math

MISSING = "-"


def _nan(v: object) -> bool:
    if v is None:
        return True
    try:
        return math.isnan(float(v))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return True


def sig3(v: float) -> str:
    """Three significant digits, no unit: 2.18, 0.0312, 43,600 (whole from 100, separated)."""
    if _nan(v):
        return MISSING
    r = float(f"{float(v):.3g}")
    if r == 0:
        return "0"
    if abs(r) >= 100:
        return f"{r:,.0f}"
    decimals = max(0, 2 - math.floor(math.log10(abs(r))))
    return f"{r:.{decimals}f}"


# Units of time, largest first: unit -> (the smallest value shown in it, its factor from seconds).
TIME_UNITS = {"s": (1.0, 1.0), "ms": (1e-3, 1e3), "us": (1e-6, 1e6), "ns": (1e-9, 1e9)}


def seconds(v: float, smallest: str = "ns") -> str:
    """A time with its unit: 2.18 s, 31.2 ms, 4.57 us, 43,600 s (never below `smallest`)."""
    if _nan(v):
        return MISSING
    if smallest not in TIME_UNITS:
        raise ValueError(f"no unit of time {smallest!r}")
    v = float(f"{float(v):.3g}")  # 0.9996 s is 1.00 s, not 1,000 ms
    for unit, (least, factor) in TIME_UNITS.items():
        if abs(v) >= least or unit == smallest or v == 0:
            return f"{sig3(v * factor)} {unit}"
    raise AssertionError("unreachable")


# Units of long durations, largest first: unit -> (seconds in one, the least value shown in it).
DURATION_UNITS = {"d": (86400.0, 2 * 86400.0), "h": (3600.0, 2 * 3600.0), "min": (60.0, 120.0)}


def duration(v: float) -> str:
    """A time that may run to days, in the unit that reads best: 2.18 s, 45.0 min, 30.2 h, 4.69 d
    (a unit from twice its size on; below 2 minutes as `seconds`)."""
    if _nan(v):
        return MISSING
    for unit, (size, least) in DURATION_UNITS.items():
        if abs(float(v)) >= least:
            return f"{sig3(float(v) / size)} {unit}"
    return seconds(v)


def ratio(v: float) -> str:
    """A ratio of two figures: 86.1x, 0.512x, 1,230x."""
    return MISSING if _nan(v) else f"{sig3(v)}x"


def factor(v: float) -> str:
    """A ratio without the x (for columns whose header says what it divides): 0.512, 86.1."""
    return sig3(v)


def count(v: float) -> str:
    """A count, exactly: 35,091."""
    return MISSING if _nan(v) else f"{v:,.0f}"


def gib(v: float) -> str:
    """Memory in GiB with one decimal: 23.5 GiB."""
    return MISSING if _nan(v) else f"{v:,.1f} GiB"


def mib(v: float) -> str:
    """Memory in MiB, three significant digits: 301 MiB, 1,230 MiB."""
    return MISSING if _nan(v) else f"{sig3(v)} MiB"


def nbytes(v: float) -> str:
    """A size in bytes with a decimal prefix: 403 B, 4.19 MB, 1.23 GB."""
    if _nan(v):
        return MISSING
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(v) >= scale:
            return f"{sig3(v / scale)} {unit}"
    return f"{sig3(v)} B"


def percent(v: float) -> str:
    """A share in percent: 12.3%."""
    return MISSING if _nan(v) else f"{sig3(v)}%"


def value(v: float, unit: str = "s") -> str:
    """A figure of a table whose header carries the unit: three significant digits ('x' for a
    ratio keeps its x)."""
    if _nan(v):
        return MISSING
    return ratio(v) if unit == "x" else sig3(v)


def stated(v: float, unit: str = "s") -> str:
    """A number as a document states it (the paper's README), not rounded to three digits:
    10,030, 2.17, 86x."""
    if _nan(v):
        return MISSING
    return f"{v:,.6g}" + ("x" if unit == "x" else "")


def with_unit(v: float, unit: str) -> str:
    """A figure with its unit, as a summary line prints it: 'x' ratios, 's' times, else the unit."""
    if unit == "x":
        return ratio(v)
    if unit == "s":
        return seconds(v)
    return MISSING if _nan(v) else f"{sig3(v)} {unit}".rstrip()
