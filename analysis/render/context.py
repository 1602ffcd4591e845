"""What every section of the report needs: the collection of runs, the configuration, and the
writers that put each table and plot both in the PDF and beside it as files.

A plot that shows no trend (every series one point against m or n) is not drawn: its writer puts
a sentence in its place (see `plots.degenerate`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from analysis.config import RunConfig
from analysis.derive.spread import Spread, median_of
from analysis.render.pdf import Doc
from analysis.render.plots import degenerate, save_plot
from analysis.render.tables import write_table
from analysis.tidy import Collection
from analysis.units import gib
from analysis.units import value as fmt_value


def cell(v: object, fmt: Callable[[float], str] = fmt_value) -> str:
    """A table cell: a number, or a median with its spread over repetitions."""
    if isinstance(v, Spread):
        return v.text(fmt)
    if isinstance(v, str):
        return v
    try:
        x = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(v)
    return "-" if math.isnan(x) else fmt(x)


@dataclass
class Context:
    """What every section needs: the collection, the configuration and where files go."""

    col: Collection
    rc: RunConfig
    results_dir: Path
    written: list[Path] = field(default_factory=list)
    # Plots drawn so far, by name: (the PNG, its caption), or (None, why it was not drawn).
    figures: dict[str, tuple[Path | None, str]] = field(default_factory=dict)
    # Plots saved beside the PDF but not placed where they are drawn (the main part shows them).
    hold: set[str] = field(default_factory=set)

    @property
    def df(self) -> pd.DataFrame:
        return self.col.df

    def setting(self, key: str) -> Any:
        """A configuration key's value in these runs (its default where the run left it out)."""
        return self.rc.setting(key)

    def machines(self, experiment: str) -> str:
        """Each machine of our runs of `experiment` in words, with the load it had during them."""
        d = self.df[(self.df["experiment"] == experiment) & (self.df["source"] == "ours")]
        seen: dict[str, list[str]] = {}
        for r in self.col.runs:
            if r.experiment != experiment or r.source != "ours":
                continue
            m = r.machine or {}
            mem = m.get("mem_total_gib")
            text = (
                f"{m.get('hostname', '?')}: {m.get('cpu_model', '?')}, {m.get('logical_cpus', '?')} "
                f"logical CPUs, {gib(mem)}, {m.get('os', '?')}"
                if isinstance(mem, int | float)
                else "not recorded"
            )
            seen.setdefault(text, []).append(r.run)
        out = []
        for text, runs in seen.items():
            loads = d[d["run"].isin(runs) & d["metric"].isin(["load_start", "load_end"])]["value"]
            load = f" (one-minute load average {loads.min():.1f} to {loads.max():.1f})" if len(loads) else ""
            out.append(f"{text}{load}")
        return "; ".join(out)

    def table(
        self,
        doc: Doc,
        name: str,
        caption: str,
        frame: pd.DataFrame,
        fmt: Callable[[float], str] | dict[str, Callable[..., str]] = fmt_value,
        widths: list[float] | None = None,
        flagged: set[int] | None = None,
        index_name: str = "",
    ) -> None:
        """A derived table in the PDF and as CSV (medians), Markdown and LaTeX beside it; `fmt` is
        one format for every column or one per column name (others: fmt_value)."""

        def col_fmt(col: object) -> Callable[[float], str]:
            return fmt.get(str(col), fmt_value) if isinstance(fmt, dict) else fmt

        header = [index_name, *(str(c) for c in frame.columns)]
        rows = [
            [str(i), *(cell(v, col_fmt(c)) for c, v in zip(frame.columns, r, strict=True))]
            for i, r in zip(frame.index, frame.values, strict=True)
        ]
        numbers = frame.map(median_of) if len(frame) else frame
        self.written += write_table(numbers, header, rows, name, self.results_dir / "tables", caption)
        doc.table(header, rows, widths, flagged=flagged, caption=caption)

    def plot(self, doc: Doc, name: str, fig: Figure, caption: str) -> None:
        """The plot as PDF and PNG beside the report and in the document, unless it shows no
        trend (then a sentence says so, and no file is written) or is held for the main part."""
        why = degenerate(fig)
        if why is not None:
            plt.close(fig)
            sentence = f"Not drawn: {why}; the figures are in the tables."
            self.figures[name] = (None, sentence)
            if name not in self.hold:
                doc.para(f"{caption.rstrip('.')}. {sentence}", small=True)
            return
        files = save_plot(fig, name, self.results_dir / "plots")
        self.written += files
        plt.close(fig)
        png = next(f for f in files if f.suffix == ".png")
        self.figures[name] = (png, caption)
        if name not in self.hold:
            doc.figure(png, caption)
