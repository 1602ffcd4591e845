"""One PDF section per experiment, in the suite's order (its descriptor names the section).

A section is `section(doc, ctx)`: it adds its headings, tables and plots to the document (and
writes each table and plot beside the PDF) from the tidy table in `ctx`.
"""

from __future__ import annotations

from collections.abc import Callable

from analysis import experiments
from analysis.render.context import Context
from analysis.render.pdf import Doc

SECTIONS: dict[str, Callable[[Doc, Context], None]] = {
    e.name: e.section_function for e in experiments.all_experiments()
}
