"""The paper's arithmetic, as small pure functions.

Extrapolation in n happens only where the paper did it: a single-prover proof (zkSNARK, cpSNARK)
is measured once and multiplied by n proofs; the distributed protocols are measured at n.
"""

from __future__ import annotations

import math

# The paper's rule of thumb (README; Ozdemir and Boneh), with which its own figures are made: a
# collaborative zkSNARK costs each prover about twice the single-prover time.
PAPER_COLLAB_FACTOR = 2.0

COLLAB_ASSUMPTION = (
    "Collaborative zkSNARK per-prover time is estimated as factor x n x single-prover prove time "
    "(factor {factor:g}; the paper uses 2). Ozdemir and Boneh measured about 2.2x for "
    "malicious-secure SPDZ and 1.05x to 1.2x for semi-honest protocols; witness generation and "
    "secret sharing are not counted."
)


def collab_estimate(prove_s: float, n: int, factor: float = PAPER_COLLAB_FACTOR) -> float:
    """Per-prover seconds of a collaborative zkSNARK for n proofs (extrapolated from one proof)."""
    if prove_s < 0 or n < 0 or factor <= 0:
        raise ValueError("prove time and n must be non-negative and the factor positive")
    return factor * n * prove_s


def cpsnark_totals(prove_s: float, witness_s: float, n: int) -> dict[str, float]:
    """cpSNARK-Set prover seconds for n proofs: n x prove, n x witness, and their sum."""
    if prove_s < 0 or witness_s < 0 or n < 0:
        raise ValueError("times and n must be non-negative")
    prove = n * prove_s
    witness = n * witness_s
    return {"prove": prove, "witness": witness, "total": prove + witness}


def speedup(theirs_s: float, ours_s: float) -> float:
    """How many times faster `ours` is than `theirs` (theirs / ours)."""
    if ours_s <= 0:
        raise ValueError("the denominator time must be positive")
    return theirs_s / ours_s


def truncate_sig(x: float, digits: int) -> float:
    """Cut x to `digits` significant digits (toward zero), as the README quotes its inputs.

    The README writes 2.17 s for PROVER times of 2.178/2.179 s, 220 ms for 225.77 ms and 783 ms
    for 783.71 ms: truncation, not rounding.
    """
    if x == 0 or not math.isfinite(x):
        return x
    exp = math.floor(math.log10(abs(x)))
    scale = 10.0 ** (digits - 1 - exp)
    # The epsilon keeps values like 2.17 (stored as 2.16999...) from dropping a digit.
    return math.copysign(math.floor(abs(x) * scale + 1e-9) / scale, x)


def floor_ratio(x: float) -> int:
    """The README quotes speed-ups cut to whole numbers (43400/500 = 86.8 -> 86x)."""
    return math.floor(x + 1e-9)
