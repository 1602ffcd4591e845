"""Analysis of the Traceable-mixnets benchmark suite.

Parses every experiment's reports (ours and the published figures) into one tidy table, derives
each experiment's tables and each study's comparisons from it, and renders tables, plots and
`results/report.pdf`.
"""

__all__ = ["SUITE", "__version__"]

__version__ = "0.1.0"
# The suite's name, after the paper whose artifact it reproduces and goes beyond.
SUITE = "Traceable mixnets"
