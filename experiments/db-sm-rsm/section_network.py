"""db-sm-rsm over the network (`--transport tls`): query latency per network profile beside the
collaborative prover's wall time per proof (where a study sets it there), each process's CPU
against its wall time and bytes per step, and the chain of steps drawn as a timeline per process
(analysis.experiments.db_sm_rsm.network)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from analysis import units
from analysis.derive.spread import median_of
from analysis.experiments.db_sm_rsm.beside import NOTHING, Beside
from analysis.experiments.db_sm_rsm.network import (
    SECTIONS,
    TlsRun,
    audit_table,
    latency_table,
    parties,
    published_bytes,
    section_figures,
    step_figures,
    tls_runs,
)
from analysis.render.context import Context
from analysis.render.pdf import Doc

NO_TLS = (
    "No run of ours used --transport tls (the configuration's dbsm_transport), so there is nothing "
    "to show of db-sm-rsm over the network."
)
INTRO = (
    "With --transport tls, the driver (the dealer and the senders), each mix-server and the verifier run "
    "as processes of their own, every message a post on a bulletin board (a process too) over TLS 1.3, on "
    "one of the network profiles the collaborative prover uses (netem: none is the host's loopback; lan "
    "0.2 ms round trip and 10 Gbit/s per link, region 20 ms and 1 Gbit/s, wan 100 ms and 100 Mbit/s; every "
    "process in a network namespace of its own behind one emulated switch). A query is a whole section of "
    "the run, over all n entries: DB-SM is 'forward set membership', DB-RSM 'reverse set membership'; its "
    "wall time runs from the first process entering the section to the last leaving it. The processes "
    "share this machine's cores, so wall times include the wait for a core."
)
LATENCY_NOTE = (
    "One process: the local run, every party's steps one after another in one process (no network). "
    "Hops: the longest chain of posts read inside the section, each post made after its author read the "
    "one before, each crossing the network twice (to the board and from it); the network floor (hops x "
    "RTT) is the least time the section takes on that network whatever the parties compute. "
    "collab-groth16: the slowest party's online wall time for one proof (one entry), under the same "
    "profile; DB-SM and DB-RSM answer for all n entries at once (per entry: that time over n), where the "
    "collaborative prover makes one proof per entry."
)
STEPS_NOTE = (
    "Per section and process: CPU and wall time of that process while the section was open; waited, "
    "its wall time spent waiting for posts; sent and received, the bytes of the posts it made and read "
    "(frame headers and stamps included, TLS records not); rounds, the reads it had to wait for. The "
    "delay line's CPU (a thread of the driver) is not in the driver's."
)
BYTES_NOTE = (
    "The posts that carry a size line's values, against that line. The senders' inputs are posted as the "
    "size line counts them. The verifier's posts carry each signature with its encryption and the "
    "encryption's randomness (which the mixers check), and the mixers' posts in the NIZK sections carry "
    "each mixer's commit messages and shares, where the size lines count the signature and the final "
    "proof only."
)
AUDIT_NOTE = (
    "At the end of every tls run the driver re-checks the run from the board's record alone "
    "(db-sm-rsm verify-board): the record's hash chain and roster, then every check of every party "
    "(each mixer's of the inputs, the verifier's signatures and the other mixers' parts, the verifier's of "
    "both distributed proofs, the dealer's of the permutation commitments) redone on the public data by "
    "an auditor that trusts no verdict; only the mixers' decryption of their own share ciphertexts, a "
    "check of secret data, is taken from their verdicts. Auditor: the CPU of that audit (the driver's "
    "process, nothing else running), per entry; verifier: the verifier party's process in DB-SM and "
    "DB-RSM, per entry. Audit passed 1: every verdict and status confirmed."
)
SECTION_COLORS = dict(
    zip(SECTIONS, ("tab:gray", "tab:olive", "tab:blue", "tab:green", "tab:orange"), strict=True)
)


# The mark of each kind of process in the CPU-against-wall plot.
MARKERS = {"driver": "^", "mixer": "o", "verifier": "s"}


_fmt = units.sig3


def timeline(df: pd.DataFrame, runs: list[TlsRun]) -> Figure:
    """Per run, a row per process: each step a bar from its start over its wall time, coloured by
    section, the CPU time it spent inside the bar's darker core."""
    fig, axes = plt.subplots(len(runs), 1, figsize=(11, 1.2 + 1.1 * sum(r.m + 2 for r in runs) / 2),
                             squeeze=False)  # fmt: skip
    for ax, run in zip(axes[:, 0], runs, strict=True):
        steps = step_figures(df, run.run)
        who = parties(steps)
        for y, party in enumerate(who):
            mine = steps[steps["party"] == party]
            for s in mine.itertuples(index=False):
                color = SECTION_COLORS.get(str(s.section), "tab:purple")
                ax.barh(y, s.wall, left=s.start, height=0.7, color=color, alpha=0.3, edgecolor=color, lw=0.5)
                ax.barh(y, min(s.cpu, s.wall), left=s.start, height=0.3, color=color)
        ax.set_yticks(range(len(who)), who, fontsize=8)
        ax.invert_yaxis()
        ax.set_title(f"{run.name}", fontsize=9, loc="left")
        ax.grid(True, axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel("seconds since the run's first timer")
    handles = [Patch(color=c, label=s) for s, c in SECTION_COLORS.items()]
    handles.append(Patch(facecolor="white", edgecolor="black", label="light: wall time (working or waiting)"))
    handles.append(Patch(color="black", label="dark: CPU time"))
    fig.legend(handles=handles, fontsize=7, loc="lower center", ncol=4, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def cpu_against_wall(df: pd.DataFrame, runs: list[TlsRun]) -> Figure:
    """Per run, each process's steps: CPU time against wall time, the area of each mark the bytes
    the step moved, its colour its section. On the diagonal a step computed all the time; below
    it, it waited (for posts, or for a core)."""
    fig, axes = plt.subplots(1, len(runs), figsize=(4.2 * len(runs) + 1, 4.6), squeeze=False)
    for ax, run in zip(axes[0], runs, strict=True):
        steps = step_figures(df, run.run)
        steps = steps[(steps["wall"] > 0) & (steps["cpu"] > 0)]
        biggest = max(float(steps["bytes"].max()), 1.0) if len(steps) else 1.0
        for kind, marker in MARKERS.items():
            mine = steps[steps["party"].str.startswith(kind)]
            size = 8 + 400 * np.sqrt(mine["bytes"] / biggest)
            colors = [SECTION_COLORS.get(str(s), "tab:purple") for s in mine["section"]]
            ax.scatter(mine["wall"], mine["cpu"], s=size, c=colors, marker=marker, alpha=0.6,
                       edgecolors="black", lw=0.3)  # fmt: skip
        lo = float(min(steps["wall"].min(), steps["cpu"].min())) if len(steps) else 1e-3
        hi = float(max(steps["wall"].max(), steps["cpu"].max())) if len(steps) else 1.0
        ax.plot([lo, hi], [lo, hi], color="black", lw=0.6, ls="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("wall time of the step [s]")
        ax.set_title(run.name, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    axes[0, 0].set_ylabel("CPU time of the step [s]")
    handles: list[Artist] = [Patch(color=c, label=s) for s, c in SECTION_COLORS.items()]
    handles += [Line2D([], [], ls="none", marker=mk, color="gray", label=k) for k, mk in MARKERS.items()]
    fig.legend(handles=handles, fontsize=7, loc="lower center", ncol=8, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def latency_plot(table: pd.DataFrame, beside: Beside = NOTHING) -> Figure:
    """The latency table's queries and the rows set beside them (proofs) as bars per network (log
    scale), each query's network floor a black mark on its bar."""
    queries = ("DB-SM query (", "DB-RSM query (")
    shown = table[[i.startswith(queries) or i in beside.latency for i in table.index]]
    values = shown.map(median_of)
    floors = table.map(median_of)
    fig, ax = plt.subplots(figsize=(11, 5))
    width = 0.8 / max(len(values), 1)
    x = np.arange(len(values.columns))
    marked = False
    for i, (label, row) in enumerate(values.iterrows()):
        at = x + i * width - 0.4 + width / 2
        ax.bar(at, row.to_numpy(dtype=float), width, label=str(label))
        floor = str(label).replace(" query (", " network floor, hops x RTT (", 1)
        if floor != label and floor in floors.index:
            f = floors.loc[floor].to_numpy(dtype=float)
            ax.hlines(f, at - width / 2, at + width / 2, colors="black", lw=2,
                      label=None if marked else "network floor (hops x RTT)")  # fmt: skip
            marked = True
    ax.set_xticks(x, [c.removesuffix(" [s]") for c in values.columns])
    ax.set_yscale("log")
    ax.set_ylabel("wall time [s]")
    ax.set_title("DB-SM and DB-RSM query (all n entries) and a collaborative proof (one entry), per network")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=6.5, loc="upper left")
    fig.tight_layout()
    return fig


def network_section(doc: Doc, ctx: Context, beside: Beside = NOTHING) -> None:
    """The db-sm-rsm section's part on its `tls` runs (one line when there are none), with the
    latency of what is set beside them."""
    doc.h2("Over the network (--transport tls)")
    runs = tls_runs(ctx.df)
    if not runs:
        doc.para(NO_TLS)
        return
    doc.para(INTRO)
    lt = latency_table(ctx.df, beside)
    ctx.table(doc, "dbsm_latency", "Query latency per network profile, beside a collaborative proof [s]", lt,
              _fmt, index_name="query")  # fmt: skip
    doc.para(LATENCY_NOTE, small=True)
    caption = "DB-SM and DB-RSM query latency and collab-groth16's wall time per proof, per network."
    ctx.plot(doc, "dbsm_latency", latency_plot(lt, beside), caption)
    ctx.plot(doc, "dbsm_timeline", timeline(ctx.df, runs),
             "Where the time goes: each process's steps in time, per tls run (mixing is a chain: each mixer "
             "shuffles what the one before posted).")  # fmt: skip
    ctx.plot(doc, "dbsm_cpu_wall", cpu_against_wall(ctx.df, runs),
             "Each process's steps: CPU time against wall time, mark area the bytes moved.")  # fmt: skip
    for i, run in enumerate(runs):
        suffix = "" if len(runs) == 1 else f"_{i + 1}"
        steps = section_figures(ctx.df, run.run)
        ctx.table(doc, f"dbsm_steps{suffix}", f"Per section and process, {run.name}", steps, _fmt,
                  index_name="section: process")  # fmt: skip
        ctx.table(doc, f"dbsm_posted{suffix}", f"Posted bytes against the report's sizes, {run.name}",
                  published_bytes(ctx.df, run.run), _fmt, index_name="values")  # fmt: skip
    doc.para(STEPS_NOTE + " " + BYTES_NOTE, small=True)
    audits = audit_table(ctx.df)
    if not audits.empty:
        ctx.table(doc, "dbsm_audit", "Universal verifiability: the audit of each tls run's board record, "
                  "beside the verifier", audits, _fmt, index_name="run")  # fmt: skip
        doc.para(AUDIT_NOTE, small=True)
