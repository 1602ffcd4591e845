"""One PDF section per experiment, in the order the report shows them.

A section is `section(doc, ctx)`: it adds its headings, tables and plots to the document (and
writes each table and plot beside the PDF) from the tidy table in `ctx`.
"""

from __future__ import annotations

from collections.abc import Callable

from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.sections import cmix, collab, cpsnark, dbsm, mithril, veccom, zksnark

SECTIONS: dict[str, Callable[[Doc, Context], None]] = {
    "db-sm-rsm": dbsm.section,
    "zksnark-sm-rsm": zksnark.section,
    "collab-groth16": collab.section,
    "cpsnark-sm": cpsnark.section,
    "veccom": veccom.section,
    "cmix": cmix.section,
    "mithril": mithril.section,
}
