"""Analysis of the Traceable-mixnets benchmark suite.

Parses every experiment's reports (ours and the paper's samples) into one tidy table, derives the
paper's claims and Figure 10 tables from it, and renders tables, plots and `results/report.pdf`.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
