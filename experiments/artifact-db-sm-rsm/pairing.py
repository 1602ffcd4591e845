"""How the paper's own DB-SM/DB-RSM runs are paired with ours: our experiment, and its two
settings beside each artifact run (the same n, m and repetition, in the same workflow run)."""

from __future__ import annotations

OURS = "db-sm-rsm"
# The paper's mode and challenge lengths (like for like), and our defaults (fast, 128-bit):
# (column, mode, security).
SETTINGS = (("ours, paper mode", "paper", "paper"), ("ours, fast", "fast", "128"))
