"""cmix: the cMix mixnet with ElGamal on a curve (ec) and in a 2048-bit group (mg), per phase and
node, beside the lower bounds and the thesis's published figures."""

from __future__ import annotations

import math
from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis import units
from analysis.experiments.cmix import derive as derive
from analysis.experiments.cmix.derive import PREPRE, REALTIME, TARGET_CLIENTS, Config
from analysis.experiments.cmix.parser import EXPERIMENT, NODES
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.sections.common import Compact, Overview, PageFigure, count, machines_and_failures, page

INTRO = (
    "cMix mixes a batch of messages, one per client, through a fixed cascade of three nodes (node 0 "
    "first, node 1 middle, node 2 last), so that no one can link a delivered message to its sender "
    "while the nodes follow the protocol and one keeps its secrets (the threat model below). A "
    "precomputation, done before any message exists, uses public-key "
    "operations (phases prepre, premix, prepost); the real-time phases (realpre, realmix, realpost) then "
    "need only multiplications. cmix-bench runs each node as its own process and the clients as tasks of "
    "a driver process, every connection TCP with TLS 1.3 on this machine's loopback, and times each "
    "node's computation in each phase. Groups: ec = ElGamal on the ristretto255 curve, 8 points per "
    "slot; mg = the RFC 3526 2048-bit group with 256-bit exponents, one element per slot; mg-full = the "
    "same group with full-length exponents. The steps prepost_tags and realpost_tags are the tagging "
    "countermeasure (hashes of each node's decryption shares, checked in real time, and the last node's "
    "commitment to the mixed slots), which the thesis left as stubs: they have no counterpart there."
)
PHASES = [
    "<b>prepre</b>: each node multiplies an encryption of its random values r<sup>-1</sup> into the running "
    "product, one per element of every slot (random elements, two fixed-base exponentiations, an inversion)",
    "<b>premix</b>: each node permutes the slots and multiplies in a fresh encryption of its s<sup>-1</sup>",
    "<b>prepost</b>: each node computes its decryption shares of the result (one variable-base "
    "exponentiation per element); <b>prepost_tags</b>: it sends their hashes to the last node",
    "<b>realpre</b>: every client sends its message times its per-node keys; each node removes its key and "
    "multiplies by r (hashing to the group, a batch inversion, multiplications)",
    "<b>realmix</b>: each node permutes the slots and multiplies by s",
    "<b>realpost</b>: the last node combines the slots with the nodes' shares, decodes each message, checks "
    "it and delivers it to its recipient; <b>realpost_tags</b>: its commitment to the mixed slots before "
    "the shares are released, and the checks of shares and opening",
]
THREAT_MODEL = (
    "<b>Threat model: honest-but-curious nodes; one malicious last node breaks unlinkability.</b> The "
    "tag steps detect a first or middle node that tags a slot while the last node is honest. They do "
    "not stop a malicious last node: colluding with a tagging node, it sees which output slot is no "
    "message (the other nodes never see the output), removes the tag and delivers normally; alone, it "
    "can send the other nodes the random components of E(R<sup>-1</sup>) in place of its premix "
    "output's, and their decryption shares then let it decrypt every slot of its realpre output beside "
    "its sender. The crate's tests run both attacks and show that they succeed unnoticed. Stopping them "
    "would need a verifiable shuffle of the last node's premix and every node checking the output "
    "before delivery, which are not built."
)
THESIS = (
    "Compared with: a master's thesis that implemented cMix in C++ (libgcrypt) and made the same "
    "comparison, ElGamal on ed25519 against a 2048-bit group: 3 nodes and 500 clients on one PC, every "
    "link TCP with TLS, each phase timed per node as CPU user time, the mean of 100 runs. Its chapter "
    "prints two timings, prepre per node at 500 clients (3.67 s ec, 19.19 s mg); its other tables are "
    "not in the text, so every other thesis cell is empty ('-'). Like for like: the thesis's ec slot is "
    "8 mixes of one 31-byte point, ours 8 points mixed together (the same group operations per slot); "
    "its mg element carries 256 bytes, ours 255; it does not say whether its mg exponents were full "
    "length, so its mg figure stands beside both mg and mg-full."
)
PHASE_NOTE = (
    "User time is what the thesis measured: CPU time in user mode of the node's process during the "
    "step's computation (getrusage), without the sends and receives. Ours: mean ± sample standard "
    "deviation over the run's batches (with repeated workflow runs: the median of their means [min-max] "
    "and their count). Thesis: mean of 100 runs at 500 clients, the same figure for every node. 'thesis "
    "/ ours': how many times less user time ours takes (the thesis's mg figure is divided by our mg and "
    "by our mg-full). The two machines differ (the thesis names none but its 12 GB of RAM), so the "
    "factor mixes the code's and the machine's speed; the lower bounds below compare like with like."
)
DETAIL_NOTE = (
    "CPU = user + system time of the step's computation, mean ± sd over the batches, and its median; "
    "wall = elapsed time of the computation (on a shared machine mostly waiting for a core). network "
    "CPU = CPU time of the step's sends and receives (TLS records and socket calls), timed apart. sent / "
    "received = bytes on the node's sockets in the step (TLS included), mean per batch. lower bound = "
    "the step's counted group operations (multiplications, inversions, exponentiations, hashing to the "
    "group, reading and checking elements from the wire, ...) times each operation's CPU cost measured "
    "alone on one thread in the same run: no implementation of the step can do less. overhead = CPU / "
    "lower bound (1 = nothing but the counted operations; below 1 where a batched operation beats its "
    "unit cost); with network = (CPU + network CPU) / (lower bound + network CPU). per payload byte = "
    "CPU / (clients x payload bytes per slot), with {payload} payload bytes per slot (20 bytes of each "
    "slot are the recipient and a check value)."
)
COMPARE_NOTE = (
    "Mean over the three nodes of each step's CPU time (user + system), and the same per payload byte. "
    "mg / ec below 1: the 2048-bit group is cheaper; above 1: the curve is. The thesis found ec about 5x "
    "cheaper than mg in prepre."
)
COMPARE_THESIS_NOTE = (
    " Its row is the thesis's prepre user time per node at 500 clients (its mg figure in both mg columns), "
    "per payload byte with its 228 (ec) and 236 (mg) payload bytes per message."
)
TARGETS_NOTE = (
    "The targets, judged by the analysis from the measurements at 500 clients and one thread: {prepre}; "
    "{realtime} (the network-inclusive overhead of the detail tables), i.e. the step costs its counted "
    "operations and the network it needs, and little else. With repeated runs a target is met only if "
    "every run met it. A row is shaded red when a node missed it."
)
SETUP_NOTE = (
    "Once per run, before the batches: every client opens one TLS connection to every node (TLS 1.3, "
    "ECDSA P-256 certificates made at start and pinned) and registers a key with it (one "
    "Diffie-Hellman exponentiation and a key derivation on each side); the nodes generate their key "
    "shares and prove them (Schnorr). CPU per node is the mean over the three nodes; peak memory is the "
    "largest node's and the driver's (which holds every client)."
)
SEEDED_NOTE = " The runs were seeded: their keys are derived from the public seed (not secret)."


_num = units.sig3
_ratio = units.factor


# ---- the plots -------------------------------------------------------------------------------

COLOURS = {"ec": "tab:blue", "mg": "tab:orange", "mg-full": "tab:red"}


def _thesis_stars(ax: plt.Axes, x: float, per: Callable[[str], float], what: str) -> None:
    """The thesis's prepre (ec, mg) as open stars at `x`."""
    for fam in ("ec", "mg"):
        v = per(fam)
        if not math.isnan(v):
            ax.plot(
                [x],
                [v],
                marker="*",
                ms=14,
                ls="none",
                mfc="none",
                color=COLOURS[fam],
                label=f"thesis {fam} {what}",
            )


def plot_steps(df: pd.DataFrame, cfg: Config) -> Figure:
    """Per step: CPU per payload byte of each group (with the thesis's prepre), and the overhead
    above the lower bound."""
    names, bars = derive.step_bars(df, cfg)
    x = np.arange(len(names))
    width = 0.8 / max(1, len(bars))
    fig, (left, right) = plt.subplots(1, 2, figsize=(12.5, 5.2))
    for i, (g, b) in enumerate(bars.items()):
        off = (i - (len(bars) - 1) / 2) * width
        left.bar(x + off, b.per_byte_ns, width, color=COLOURS[g], label=g)
        right.bar(x + off, b.overhead, width, color=COLOURS[g], label=f"{g}: computation")
        right.plot(
            x + off, b.overhead_with_net, "k_", ms=9, mew=1.5, label="with network" if i == 0 else None
        )
    if "prepre" in names:
        _thesis_stars(
            left,
            names.index("prepre"),
            lambda fam: derive.thesis_per_byte(df, fam, cfg.clients) * 1e9,
            "(user time)",
        )
    for ax in (left, right):
        ax.set_xticks(x, names, rotation=30, ha="right")
        ax.grid(True, axis="y", which="both", alpha=0.3)
    left.set_yscale("log")
    left.set_ylabel("CPU per payload byte [ns], mean of the nodes")
    left.set_title(f"cost per payload byte ({cfg.title})")
    left.legend(fontsize=7)
    right.axhline(1.0, color="black", lw=0.8)
    real = REALTIME.factor
    right.axhline(real, color="red", ls="--", lw=1, label=f"real-time target ({real:g}x, with network)")
    right.set_ylabel("CPU / lower bound, the three nodes together")
    right.set_title("overhead above the counted operations")
    right.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_scaling(df: pd.DataFrame, threads: int) -> Figure:
    """CPU per slot of the main phases against the batch size (node mean), with the thesis's prepre."""
    fig, ax = plt.subplots(figsize=(10, 5.5))
    styles = {"prepre": "-", "prepost": "--", "realpre": "-.", "realmix": ":"}
    for (g, step), pts in derive.scaling_lines(df, threads).items():
        ax.plot(
            *zip(*pts, strict=True), ls=styles[step], marker="o", ms=3, color=COLOURS[g], label=f"{g} {step}"
        )
    _thesis_stars(
        ax,
        TARGET_CLIENTS,
        lambda fam: derive.thesis(df, fam, TARGET_CLIENTS) / TARGET_CLIENTS * 1e6,
        "prepre (user time)",
    )
    ns = derive.batch_sizes(df, threads)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(ns, [str(n) for n in ns])
    ax.minorticks_off()
    ax.set_xlabel("clients (slots of the batch)")
    ax.set_ylabel("CPU per slot [us], mean of the nodes")
    t = "one thread" if threads == 1 else f"{threads} threads"
    ax.set_title(f"cost per slot against the batch size, {t} (flat lines: cost linear in the batch)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


# ---- the section -----------------------------------------------------------------------------


def _thesis_machine(df: pd.DataFrame) -> str:
    f = derive.thesis_facts(df)
    return (
        f"one PC with {f['memory_gb']:g} GB of RAM running all nodes and clients; no CPU, clock or thread "
        f"count stated; a single-threaded implementation; a timer of {f['timer_resolution_s'] * 1e3:g} ms "
        f"resolution; means of {f['runs_per_mean']:g} runs"
    )


def _fmts(frame: pd.DataFrame) -> dict[str, Callable[..., str]]:
    out: dict[str, Callable[..., str]] = {}
    nodes = {derive.node(p) for p in NODES}
    for c in frame.columns:
        name = str(c)
        if name == "met":
            out[name] = str
        elif "handshakes" in name:
            out[name] = count
        elif "/" in name or "overhead" in name or "below" in name or name in nodes:
            out[name] = _ratio
        else:
            out[name] = _num
    return out


def _payload(df: pd.DataFrame) -> str:
    """Each group's payload bytes per slot, as the runs report them."""
    sizes = derive.payload_sizes(df)
    return ", ".join(f"{g} {v}" for g, v in sizes.items()) or "each group's"


def _widths(frame: pd.DataFrame, first: float) -> list[float]:
    """The index column `first` of the page, the others sharing the rest."""
    n = max(1, len(frame.columns))
    return [first] + [(1 - first) / n] * n


def _targets(doc: Doc, ctx: Context) -> None:
    doc.h2("The targets (500 clients, one thread)")
    t = derive.target_tables(ctx.df)
    if not t.evaluated:
        doc.para(
            f"No run at {TARGET_CLIENTS} clients and one thread (config keys cmix_clients and threads), so "
            "the targets were not evaluated; the tables below still compare with the lower bounds."
        )
        return
    if not t.prepre.empty:
        ctx.table(
            doc,
            "cmix_target_prepre",
            f"cmix: prepre per node, CPU user time, against the thesis (target: at least {PREPRE.factor:g}x "
            "below)",
            t.prepre,
            _fmts(t.prepre),
            flagged=t.prepre_missed,
            index_name="group",
        )
    if not t.realtime.empty:
        ctx.table(
            doc,
            "cmix_target_realtime",
            "cmix: real-time steps, (CPU + network CPU) / (lower bound + network CPU), per node (target: at "
            f"most {REALTIME.factor:g})",
            t.realtime,
            _fmts(t.realtime),
            flagged=t.realtime_missed,
            index_name="group and step",
        )
    texts = {x.key: x.text.format(f=x.factor) for x in (PREPRE, REALTIME)}
    doc.para(TARGETS_NOTE.format(**texts), small=True)


def _compare(doc: Doc, ctx: Context, cfgs: list[Config]) -> None:
    df = ctx.df
    doc.h2("ec against mg, per phase and per payload byte")
    for cfg in cfgs:
        t = derive.compare_table(df, cfg)
        ctx.table(
            doc,
            f"cmix_ec_mg_{cfg.slug}",
            f"cmix, {cfg.title}: each group's CPU per phase, in total and per payload byte "
            "(mean of the nodes)",
            t,
            _fmts(t),
            _widths(t, 0.17),
            index_name="phase",
        )
    with_thesis = any(not math.isnan(derive.thesis(df, "ec", c.clients)) for c in cfgs)
    doc.para(COMPARE_NOTE + (COMPARE_THESIS_NOTE if with_thesis else ""), small=True)
    main = derive.main_config(cfgs)
    ctx.plot(
        doc,
        "cmix_steps",
        plot_steps(df, main),
        f"cmix, {main.title}: left, CPU (user + system) per payload byte of each step, mean of the three "
        "nodes, log scale, with the thesis's prepre (user time, stars); right, each step's CPU over its "
        "counted-operation lower bound, the three nodes' together (bars), and the same with the network's "
        "CPU on both sides (black marks), against the real-time target.",
    )
    for threads in sorted({c.threads for c in cfgs}):
        if len({c.clients for c in cfgs if c.threads == threads}) > 1:
            ctx.plot(
                doc,
                f"cmix_scaling_t{threads}",
                plot_scaling(df, threads),
                "cmix: CPU per slot (user + system, mean of the nodes) of the main phases against the number "
                f"of clients, {'one thread' if threads == 1 else f'{threads} threads'}; the thesis's prepre "
                "per slot at 500 clients (stars).",
            )


def _per_config(doc: Doc, ctx: Context, cfg: Config) -> None:
    df = ctx.df
    doc.h2(f"Per phase and node: {cfg.title}")
    t = derive.phase_table(df, cfg)
    beside = (
        "ours beside the thesis's"
        if any(str(c).startswith("thesis") for c in t.columns)
        else f"ours (the thesis printed no figure at {cfg.clients} clients)"
    )
    ctx.table(
        doc,
        f"cmix_phases_{cfg.slug}",
        f"cmix, {cfg.title}: CPU user time of each phase per node, {beside}",
        t,
        _fmts(t),
        _widths(t, 0.2),
        index_name="phase, node",
    )
    doc.para(PHASE_NOTE, small=True)
    for g in derive.groups(derive.steps(df, cfg)):
        t = derive.detail_table(df, cfg, g)
        ctx.table(
            doc,
            f"cmix_{g}_{cfg.slug}",
            f"cmix {g}, {cfg.title}: CPU, wall time, network and lower bound of each phase per node",
            t,
            _fmts(t),
            _widths(t, 0.16),
            index_name="phase, node",
        )
    doc.para(DETAIL_NOTE.format(payload=_payload(df)), small=True)
    t = derive.setup_table(df, cfg)
    ctx.table(
        doc,
        f"cmix_setup_{cfg.slug}",
        f"cmix, {cfg.title}: set-up once per run, memory and time",
        t,
        _fmts(t),
        index_name="group",
    )
    doc.para(SETUP_NOTE + (SEEDED_NOTE if derive.seeded_keys(df) else ""), small=True)


def section(doc: Doc, ctx: Context) -> None:
    df = ctx.df
    doc.h1("cmix: the cMix mixnet, ElGamal on a curve against a 2048-bit group, beside a thesis")
    doc.para(INTRO)
    doc.bullets(PHASES, small=True, markup=True)
    doc.para(THREAT_MODEL, markup=True)
    doc.para(THESIS)
    cfgs = derive.configs(df)
    if not cfgs:
        doc.para("No cmix results.")
        return
    machines_and_failures(
        doc,
        ctx,
        EXPERIMENT,
        f"The thesis: {_thesis_machine(df)}.",
        "FAILED: a cmix run did not deliver every message exactly once, or broke:",
    )
    _targets(doc, ctx)
    _compare(doc, ctx, cfgs)
    for cfg in cfgs:
        _per_config(doc, ctx, cfg)
    doc.para(
        "The network's CPU is measured, not bounded. The per-run report (raw/cmix/<run>/report.json) "
        "also holds the counted operations of every step, each operation's unit cost, the medians, minima "
        "and maxima, and the clients' side; all of it is in the tidy table (experiment cmix).",
        small=True,
    )


# ---- the experiment's page (before the appendix) ----------------------------------------------

MEASURES = (
    "cMix mixes a batch of messages, one per client, through a cascade of three nodes over TLS: a "
    "precomputation with public-key operations, then real-time phases of multiplications only. We "
    "compare ElGamal on a curve (ec) with a 2048-bit group (mg, mg-full) per phase, against each "
    "step's counted-operation lower bound and a thesis's published prepre times."
)


def overview(ctx: Context) -> Overview:
    df = ctx.df
    cfgs = derive.configs(df)
    if not cfgs:
        return page(ctx, EXPERIMENT, MEASURES, [])
    t = derive.target_tables(df)
    said = []
    missed = 0
    if t.evaluated:
        missed = len(t.prepre_missed) + len(t.realtime_missed)
        said.append(
            "Every node met the targets (500 clients, one thread)."
            if not missed
            else f"{missed} target row(s) missed (shaded red)."
        )
        frame, flagged, caption = (
            t.prepre,
            t.prepre_missed,
            (
                "prepre per node, CPU user time, against the thesis "
                f"(target: at least {PREPRE.factor:g}x below)"
            ),
        )
        name, index = "cmix_summary_targets", "group"
    else:
        said.append(f"No run at {TARGET_CLIENTS} clients and one thread: the targets were not evaluated.")
        main = derive.main_config(cfgs)
        full = derive.compare_table(df, main)
        frame = full[[c for c in full.columns if "per byte" not in str(c)]]
        flagged, caption = set(), f"{main.title}: each group's CPU per phase (mean of the nodes)"
        name, index = "cmix_summary", "phase"
    table = Compact(name, caption, frame, _fmts(frame), flagged=flagged, index_name=index)
    return page(ctx, EXPERIMENT, MEASURES, said, table, PageFigure("cmix_steps"), met=not missed)
