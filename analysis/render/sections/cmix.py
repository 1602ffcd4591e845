"""cmix: the cMix mixnet with ElGamal on a curve (ec) and in a 2048-bit group (mg), per phase and
node, beside the lower bounds and the thesis's published figures."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis.derive.spread import NAN, Spread
from analysis.parse.cmix import (
    EXPERIMENT,
    GROUPS,
    NODE_ROLES,
    NODES,
    SEED_SOURCE,
    STEPS,
    TARGET_CLIENTS,
    TARGET_THREADS,
)
from analysis.render.context import Context
from analysis.render.pdf import Doc
from analysis.render.sections.common import count, failed_runs, median, ours_rows, seed_rows

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
    "The targets, as cmix-bench evaluated them at 500 clients and one thread (the report's 'targets'): "
    "prepre per node at least {prepre:g}x below the thesis's user time; each real-time step's (CPU + "
    "network CPU) within {realtime:g}x of (lower bound + network CPU), i.e. the step costs its counted "
    "operations and the network it needs, and little else. A row is shaded red when a node missed it."
)
SETUP_NOTE = (
    "Once per run, before the batches: every client opens one TLS connection to every node (TLS 1.3, "
    "ECDSA P-256 certificates made at start and pinned) and registers a key with it (one "
    "Diffie-Hellman exponentiation and a key derivation on each side); the nodes generate their key "
    "shares and prove them (Schnorr). CPU per node is the mean over the three nodes; peak memory is the "
    "largest node's and the driver's (which holds every client)."
)


@dataclass(frozen=True)
class MeanSd(Spread):
    """A run's mean over its batches with the sample standard deviation (a table cell)."""

    sd: float = NAN

    def text(self, fmt: Callable[[float], str]) -> str:
        if self.count == 0 or math.isnan(self.median):
            return "-"
        return (
            fmt(self.median) if math.isnan(self.sd) else f"{fmt(self.median)} ± {_like(self.median, self.sd)}"
        )


def _decimals(v: float) -> int:
    """Decimals that give v four significant digits (none above 1000)."""
    return 0 if v == 0 or abs(v) >= 1000 else max(0, 3 - math.floor(math.log10(abs(v))))


def _num(v: float) -> str:
    """Four significant digits (whole numbers from 1000, thousands separated), zeros kept."""
    if math.isnan(v):
        return "-"
    return "0" if v == 0 else f"{v:,.{_decimals(v)}f}"


def _like(mean: float, sd: float) -> str:
    """The sd with as many decimals as its mean."""
    return f"{sd:,.{_decimals(mean)}f}"


def _ratio(v: float) -> str:
    return "-" if math.isnan(v) else (f"{v:.2f}" if v < 100 else f"{v:,.0f}")


@dataclass(frozen=True)
class Config:
    """One batch size and thread count (and the host, where the runs come from several)."""

    clients: int
    threads: int
    host: str | None

    @property
    def title(self) -> str:
        t = "one thread" if self.threads == 1 else f"{self.threads} threads"
        return f"{self.clients} clients, {t}" + (f", on {self.host}" if self.host else "")

    @property
    def slug(self) -> str:
        return f"c{self.clients}_t{self.threads}" + (f"_{self.host}" if self.host else "")


def _ours(df: pd.DataFrame) -> pd.DataFrame:
    return ours_rows(df, EXPERIMENT)


def _seed(df: pd.DataFrame) -> pd.DataFrame:
    return seed_rows(df, EXPERIMENT, SEED_SOURCE)


def configs(df: pd.DataFrame) -> list[Config]:
    """Every (clients, threads, host) with measured steps, the smallest batch and thread count first."""
    d = _ours(df)
    d = d[d["party"].isin(NODES) & d["section"].isin(STEPS) & (d["metric"] == "cpu_mean")]
    keys = {
        (int(n), int(t), h if isinstance(h, str) else None)
        for n, t, h in zip(d["n"], d["threads"], d["host"], strict=True)
    }
    return [Config(*k) for k in sorted(keys, key=lambda k: (k[0], k[1], k[2] or ""))]


def _select(d: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    d = d[(d["n"] == cfg.clients) & (d["threads"] == cfg.threads)]
    return d if cfg.host is None else d[d["host"] == cfg.host]


def _values(g: pd.DataFrame, metric: str) -> list[float]:
    return [float(v) for v in g[g["metric"] == metric]["value"]]


def _cell(g: pd.DataFrame, metric: str, scale: float = 1.0, sd: str | None = None) -> Spread:
    """One figure of one step: mean ± sd for one run, the spread of the runs' values for several."""
    vals = _values(g, metric)
    if len(vals) == 1:
        s = _values(g, sd) if sd else []
        return MeanSd(vals[0] * scale, vals[0] * scale, vals[0] * scale, 1, s[0] * scale if s else NAN)
    return Spread.of(vals).scaled(scale)


def _groups(d: pd.DataFrame) -> list[str]:
    present = set(d["variant"].dropna())
    return [g for g in GROUPS if g in present]


def _node(party: str) -> str:
    return f"{party} ({NODE_ROLES.get(party, '?')})"


def _thesis(df: pd.DataFrame, group: str, clients: int) -> float:
    """The thesis's prepre user time per node for this group at this batch size (NaN if none)."""
    s = _seed(df)
    family = "ec" if group == "ec" else "mg"
    hit = s[
        (s["section"] == "prepre")
        & (s["metric"] == "user_mean")
        & (s["variant"] == family)
        & (s["n"] == clients)
    ]
    return float(hit["value"].iloc[0]) if len(hit) else NAN


def _thesis_payload(df: pd.DataFrame, family: str) -> float:
    s = _seed(df)
    hit = s[(s["metric"] == "payload_bytes") & (s["variant"] == family)]
    return float(hit["value"].iloc[0]) if len(hit) else NAN


def _steps(d: pd.DataFrame) -> pd.DataFrame:
    return d[d["party"].isin(NODES) & d["section"].isin(STEPS)]


def _order(d: pd.DataFrame) -> list[tuple[str, str]]:
    present = set(zip(d["section"], d["party"], strict=True))
    return [(s, p) for s in STEPS for p in NODES if (s, p) in present]


# ---- the tables ------------------------------------------------------------------------------


def phase_table(df: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """CPU user time per phase and node, each group beside the thesis's figure where it has one."""
    d = _steps(_select(_ours(df), cfg))
    groups = _groups(d)
    thesis = {g: _thesis(df, g, cfg.clients) for g in groups}
    rows: dict[str, dict[str, object]] = {}
    for step, party in _order(d):
        g_rows = d[(d["section"] == step) & (d["party"] == party)]
        r: dict[str, object] = {}
        for g in groups:
            r[f"{g} user [ms]"] = _cell(g_rows[g_rows["variant"] == g], "user_mean", 1e3, "user_sd")
        if any(not math.isnan(v) for v in thesis.values()):
            for fam in ("ec", "mg"):
                if any(g.startswith(fam) for g in groups):
                    v = _thesis(df, fam, cfg.clients) if step == "prepre" else NAN
                    r[f"thesis {fam} [ms]"] = v * 1e3
            for g in groups:
                ours = median(g_rows[g_rows["variant"] == g], "user_mean")
                r[f"thesis / ours {g}"] = thesis[g] / ours if step == "prepre" and ours > 0 else NAN
        rows[f"{step}, {_node(party)}"] = r
    return pd.DataFrame.from_dict(rows, orient="index")


def detail_table(df: pd.DataFrame, cfg: Config, group: str) -> pd.DataFrame:
    """Every measured figure of one group's steps at one batch size and thread count."""
    d = _steps(_select(_ours(df), cfg))
    d = d[d["variant"] == group]
    rows: dict[str, dict[str, object]] = {}
    for step, party in _order(d):
        g = d[(d["section"] == step) & (d["party"] == party)]
        rows[f"{step}, {_node(party)}"] = {
            "CPU [ms]": _cell(g, "cpu_mean", 1e3, "cpu_sd"),
            "CPU median [ms]": _cell(g, "cpu_median", 1e3),
            "system [ms]": _cell(g, "sys_mean", 1e3),
            "wall [ms]": _cell(g, "wall_mean", 1e3, "wall_sd"),
            "network CPU [ms]": _cell(g, "net_cpu_mean", 1e3),
            "sent [kB]": _cell(g, "bytes_sent_mean", 1e-3),
            "received [kB]": _cell(g, "bytes_received_mean", 1e-3),
            "lower bound [ms]": _cell(g, "lower_bound", 1e3),
            "overhead": _cell(g, "overhead"),
            "overhead with network": _cell(g, "overhead_with_net"),
            "per payload byte [ns]": _cell(g, "cpu_per_payload_byte", 1e9),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def _node_mean(d: pd.DataFrame, group: str, step: str, metric: str) -> float:
    """Mean over the nodes of one step's figure (the median over repeated runs first)."""
    g = d[(d["variant"] == group) & (d["section"] == step) & (d["metric"] == metric)]
    per_node = [float(np.median(v["value"])) for _, v in g.groupby("party")]
    return float(np.mean(per_node)) if per_node else NAN


def _node_sum(d: pd.DataFrame, group: str, step: str, metric: str) -> float:
    """Sum over the nodes of one step's figure (the median over repeated runs first)."""
    g = d[(d["variant"] == group) & (d["section"] == step) & (d["metric"] == metric)]
    per_node = [float(np.median(v["value"])) for _, v in g.groupby("party")]
    return float(np.sum(per_node)) if per_node else NAN


def compare_table(df: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """ec against mg per phase: node-mean CPU and CPU per payload byte, with the thesis's prepre."""
    d = _steps(_select(_ours(df), cfg))
    groups = _groups(d)
    mgs = [g for g in groups if g != "ec"] if "ec" in groups else []
    rows: dict[str, dict[str, object]] = {}
    for step in [s for s in STEPS if s in set(d["section"])]:
        r: dict[str, object] = {}
        cpu = {g: _node_mean(d, g, step, "cpu_mean") for g in groups}
        per = {g: _node_mean(d, g, step, "cpu_per_payload_byte") for g in groups}
        for g in groups:
            r[f"{g} CPU [ms]"] = cpu[g] * 1e3
        for g in mgs:
            r[f"{g} / ec"] = cpu[g] / cpu["ec"] if cpu["ec"] > 0 else NAN
        for g in groups:
            r[f"{g} per byte [ns]"] = per[g] * 1e9
        for g in mgs:
            r[f"{g} / ec per byte"] = per[g] / per["ec"] if per["ec"] > 0 else NAN
        rows[step] = r
    t_ec, t_mg = _thesis(df, "ec", cfg.clients), _thesis(df, "mg", cfg.clients)
    if not (math.isnan(t_ec) or math.isnan(t_mg)) and rows:
        b_ec = t_ec / (cfg.clients * _thesis_payload(df, "ec"))
        b_mg = t_mg / (cfg.clients * _thesis_payload(df, "mg"))
        r = dict.fromkeys(next(iter(rows.values())), NAN)
        for g in groups:
            r[f"{g} CPU [ms]"] = (t_ec if g == "ec" else t_mg) * 1e3
            r[f"{g} per byte [ns]"] = (b_ec if g == "ec" else b_mg) * 1e9
        for g in mgs:
            r[f"{g} / ec"] = t_mg / t_ec
            r[f"{g} / ec per byte"] = b_mg / b_ec
        rows["prepre, thesis (user time; its mg)"] = r
    return pd.DataFrame.from_dict(rows, orient="index")


def setup_table(df: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """Per group: the once-per-run set-up (TLS, registration, keys), memory and the run's time."""
    d = _select(_ours(df), cfg)
    rows: dict[str, dict[str, object]] = {}
    for g in _groups(_steps(d)):
        x = d[d["variant"] == g]
        nodes = x[x["party"].isin(NODES)]

        def node_mean(section: str, metrics: tuple[str, ...], x: pd.DataFrame = nodes) -> float:
            s = x[x["section"] == section]
            per = [sum(median(v, m) for m in metrics) for _, v in s.groupby("party")]
            return float(np.mean(per)) if per else NAN

        tls = nodes[nodes["section"] == "tls handshakes (clients)"]
        rss = x[(x["section"] == "run") & (x["metric"] == "peak_rss")]
        rows[g] = {
            "client TLS handshakes per node": median(tls, "handshakes"),
            "CPU per handshake [ms]": node_mean("tls handshakes (clients)", ("cpu_per_handshake",)) * 1e3,
            "registration CPU per node [ms]": node_mean("registration", ("user", "sys")) * 1e3,
            "key set-up CPU per node [ms]": node_mean("keys", ("user", "sys")) * 1e3,
            "peak memory, largest node [MiB]": float(rss[rss["party"].isin(NODES)]["value"].max()),
            "peak memory, driver [MiB]": float(rss[rss["party"] == "driver"]["value"].max()),
            "run wall time [s]": median(x[(x["section"] == "run") & (x["party"].isna())], "wall"),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def _targets(d: pd.DataFrame) -> pd.DataFrame:
    return d[
        (d["n"] == TARGET_CLIENTS)
        & (d["threads"] == TARGET_THREADS)
        & d["party"].isin(NODES)
        & d["metric"].isin(["thesis_over_ours", "realtime_ratio", "target_met"])
    ]


def target_tables(df: pd.DataFrame) -> tuple[pd.DataFrame, set[int], pd.DataFrame, set[int]]:
    """prepre against the thesis and the real-time steps against their bounds, as the report judged
    them (per host, where the runs come from several; the median of repeated runs, met only if every
    run met it); with the rows (indices) where a node missed its target."""
    ours = _ours(df)
    pre: dict[str, dict[str, object]] = {}
    pre_bad: set[int] = set()
    real: dict[str, dict[str, object]] = {}
    real_bad: set[int] = set()
    hosts = sorted({h for h in ours["host"] if isinstance(h, str)}) or [None]
    for host in hosts:
        sub = ours if host is None else ours[ours["host"] == host]
        on = "" if host is None else f" on {host}"
        t = _targets(sub)
        d = _steps(sub)
        d = d[(d["n"] == TARGET_CLIENTS) & (d["threads"] == TARGET_THREADS)]
        for g in GROUPS:
            e = t[(t["variant"] == g) & (t["section"] == "prepre")]
            if e.empty:
                continue
            r: dict[str, object] = {"thesis [s]": _thesis(df, g, TARGET_CLIENTS)}
            for p in NODES:
                at = d[(d["variant"] == g) & (d["section"] == "prepre") & (d["party"] == p)]
                r[f"{_node(p)} [s]"] = median(at, "user_mean")
            r["below the thesis (least)"] = float(e[e["metric"] == "thesis_over_ours"]["value"].min())
            met = bool((e[e["metric"] == "target_met"]["value"] == 1).all())
            r["met"] = "yes" if met else "NO"
            if not met:
                pre_bad.add(len(pre))
            pre[g + on] = r
        for g in GROUPS:
            for step in ("realpre", "realmix", "realpost"):
                e = t[(t["variant"] == g) & (t["section"] == step)]
                if e.empty:
                    continue
                r = {_node(p): median(e[e["party"] == p], "realtime_ratio") for p in NODES}
                met = bool((e[e["metric"] == "target_met"]["value"] == 1).all())
                r["met"] = "yes" if met else "NO"
                if not met:
                    real_bad.add(len(real))
                real[f"{g} {step}{on}"] = r
    return (
        pd.DataFrame.from_dict(pre, orient="index"),
        pre_bad,
        pd.DataFrame.from_dict(real, orient="index"),
        real_bad,
    )


def _factor(df: pd.DataFrame, metric: str, default: float) -> float:
    d = _ours(df)
    v = d[(d["section"] == "targets") & (d["metric"] == metric)]["value"]
    return float(v.iloc[0]) if len(v) else default


# ---- the plots -------------------------------------------------------------------------------

COLOURS = {"ec": "tab:blue", "mg": "tab:orange", "mg-full": "tab:red"}


def plot_steps(df: pd.DataFrame, cfg: Config) -> Figure:
    """Per step: CPU per payload byte of each group (with the thesis's prepre), and the overhead
    above the lower bound."""
    d = _steps(_select(_ours(df), cfg))
    groups = _groups(d)
    steps = [s for s in STEPS if s in set(d["section"])]
    x = np.arange(len(steps))
    width = 0.8 / max(1, len(groups))
    fig, (left, right) = plt.subplots(1, 2, figsize=(12.5, 5.2))
    for i, g in enumerate(groups):
        off = (i - (len(groups) - 1) / 2) * width
        per = [_node_mean(d, g, s, "cpu_per_payload_byte") * 1e9 for s in steps]
        left.bar(x + off, per, width, color=COLOURS[g], label=g)
        cpu, bound, net = (
            [_node_sum(d, g, s, m) for s in steps] for m in ("cpu_mean", "lower_bound", "net_cpu_mean")
        )
        over = [c / b if b > 0 else NAN for c, b in zip(cpu, bound, strict=True)]
        with_net = [(c + n) / (b + n) if b + n > 0 else NAN for c, b, n in zip(cpu, bound, net, strict=True)]
        right.bar(x + off, over, width, color=COLOURS[g], label=f"{g}: computation")
        right.plot(x + off, with_net, "k_", ms=9, mew=1.5, label="with network" if i == 0 else None)
    for fam, marker in (("ec", "*"), ("mg", "*")):
        t = _thesis(df, fam, cfg.clients)
        if not math.isnan(t) and "prepre" in steps:
            v = t / (cfg.clients * _thesis_payload(df, fam)) * 1e9
            left.plot(
                [steps.index("prepre")],
                [v],
                marker=marker,
                ms=14,
                ls="none",
                mfc="none",
                color=COLOURS[fam],
                label=f"thesis {fam} (user time)",
            )
    for ax in (left, right):
        ax.set_xticks(x, steps, rotation=30, ha="right")
        ax.grid(True, axis="y", which="both", alpha=0.3)
    left.set_yscale("log")
    left.set_ylabel("CPU per payload byte [ns], mean of the nodes")
    left.set_title(f"cost per payload byte ({cfg.title})")
    left.legend(fontsize=7)
    right.axhline(1.0, color="black", lw=0.8)
    real = _factor(df, "realtime_factor", 5.0)
    right.axhline(real, color="red", ls="--", lw=1, label=f"real-time target ({real:g}x, with network)")
    right.set_ylabel("CPU / lower bound, the three nodes together")
    right.set_title("overhead above the counted operations")
    right.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_scaling(df: pd.DataFrame, threads: int) -> Figure:
    """CPU per slot of the main phases against the batch size (node mean), with the thesis's prepre."""
    d = _steps(_ours(df))
    d = d[d["threads"] == threads]
    fig, ax = plt.subplots(figsize=(10, 5.5))
    styles = {"prepre": "-", "prepost": "--", "realpre": "-.", "realmix": ":"}
    for g in _groups(d):
        for step, ls in styles.items():
            pts = []
            for n in sorted(set(d["n"].dropna())):
                v = _node_mean(d[d["n"] == n], g, step, "cpu_mean")
                if not math.isnan(v):
                    pts.append((int(n), v / int(n) * 1e6))
            if pts:
                ax.plot(
                    *zip(*pts, strict=True), ls=ls, marker="o", ms=3, color=COLOURS[g], label=f"{g} {step}"
                )
    for fam in ("ec", "mg"):
        t = _thesis(df, fam, TARGET_CLIENTS)
        if not math.isnan(t):
            ax.plot(
                [TARGET_CLIENTS],
                [t / TARGET_CLIENTS * 1e6],
                marker="*",
                ms=14,
                ls="none",
                mfc="none",
                color=COLOURS[fam],
                label=f"thesis {fam} prepre (user time)",
            )
    ns = sorted(int(n) for n in set(d["n"].dropna()))
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
    s = _seed(df)

    def fact(metric: str) -> float:
        v = s[s["metric"] == metric]["value"]
        return float(v.iloc[0]) if len(v) else NAN

    mem, res, runs = fact("memory_gb"), fact("timer_resolution_s"), fact("runs_per_mean")
    return (
        f"one PC with {mem:g} GB of RAM running all nodes and clients; no CPU, clock or thread count "
        f"stated; a single-threaded implementation; a timer of {res * 1e3:g} ms resolution; means of "
        f"{runs:g} runs"
    )


def _fmts(frame: pd.DataFrame) -> dict[str, Callable[..., str]]:
    out: dict[str, Callable[..., str]] = {}
    for c in frame.columns:
        name = str(c)
        if name == "met":
            out[name] = str
        elif "handshakes" in name:
            out[name] = count
        elif "/" in name or "overhead" in name or "below" in name or name in {_node(p) for p in NODES}:
            out[name] = _ratio
        else:
            out[name] = _num
    return out


def _payload(df: pd.DataFrame) -> str:
    """Each group's payload bytes per slot, as the runs report them."""
    d = _ours(df)
    d = d[(d["section"] == "group") & (d["metric"] == "payload_bytes_per_slot")]
    sizes = {str(g): int(v) for g, v in zip(d["variant"], d["value"], strict=True)}
    return ", ".join(f"{g} {sizes[g]}" for g in GROUPS if g in sizes) or "each group's"


def _widths(frame: pd.DataFrame, first: float) -> list[float]:
    """The index column `first` of the page, the others sharing the rest."""
    n = max(1, len(frame.columns))
    return [first] + [(1 - first) / n] * n


def section(doc: Doc, ctx: Context) -> None:
    df = ctx.df
    doc.h1("cmix: the cMix mixnet, ElGamal on a curve against a 2048-bit group, beside a thesis")
    doc.para(INTRO)
    doc.bullets(PHASES, small=True, markup=True)
    doc.para(THREAT_MODEL, markup=True)
    doc.para(THESIS)
    cfgs = configs(df)
    if not cfgs:
        doc.para("No cmix results.")
        return
    machines = ctx.machines(EXPERIMENT)
    doc.para(f"<b>Machines.</b> Ours: {machines}. The thesis: {_thesis_machine(df)}.", markup=True)
    failed = failed_runs(ctx, EXPERIMENT)
    if failed:
        doc.box(
            ["FAILED: a cmix run did not deliver every message exactly once, or broke:", *failed], ok=False
        )

    doc.h2("The targets (500 clients, one thread)")
    pre, pre_bad, real, real_bad = target_tables(df)
    if pre.empty and real.empty:
        doc.para(
            f"No run at {TARGET_CLIENTS} clients and one thread (config keys cmix_clients and threads), so "
            "the targets were not evaluated; the tables below still compare with the lower bounds."
        )
    else:
        factors = {
            "prepre": _factor(df, "prepre_factor", 10.0),
            "realtime": _factor(df, "realtime_factor", 5.0),
        }
        if not pre.empty:
            ctx.table(
                doc,
                "cmix_target_prepre",
                f"cmix: prepre per node, CPU user time, against the thesis "
                f"(target: at least {factors['prepre']:g}x below)",
                pre,
                _fmts(pre),
                flagged=pre_bad,
                index_name="group",
            )
        if not real.empty:
            ctx.table(
                doc,
                "cmix_target_realtime",
                "cmix: real-time steps, (CPU + network CPU) / (lower bound + "
                f"network CPU), per node (target: at most {factors['realtime']:g})",
                real,
                _fmts(real),
                flagged=real_bad,
                index_name="group and step",
            )
        doc.para(TARGETS_NOTE.format(**factors), small=True)

    doc.h2("ec against mg, per phase and per payload byte")
    for cfg in cfgs:
        t = compare_table(df, cfg)
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
    with_thesis = any(not math.isnan(_thesis(df, "ec", c.clients)) for c in cfgs)
    doc.para(COMPARE_NOTE + (COMPARE_THESIS_NOTE if with_thesis else ""), small=True)
    main = max(cfgs, key=lambda c: (c.clients == TARGET_CLIENTS, -c.threads, c.clients))
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

    for cfg in cfgs:
        doc.h2(f"Per phase and node: {cfg.title}")
        t = phase_table(df, cfg)
        ctx.table(
            doc,
            f"cmix_phases_{cfg.slug}",
            f"cmix, {cfg.title}: CPU user time of each phase per node, "
            + (
                "ours beside the thesis's"
                if any(str(c).startswith("thesis") for c in t.columns)
                else f"ours (the thesis printed no figure at {cfg.clients} clients)"
            ),
            t,
            _fmts(t),
            _widths(t, 0.2),
            index_name="phase, node",
        )
        doc.para(PHASE_NOTE, small=True)
        for g in _groups(_steps(_select(_ours(df), cfg))):
            t = detail_table(df, cfg, g)
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
        t = setup_table(df, cfg)
        ctx.table(
            doc,
            f"cmix_setup_{cfg.slug}",
            f"cmix, {cfg.title}: set-up once per run, memory and time",
            t,
            _fmts(t),
            index_name="group",
        )
        doc.para(SETUP_NOTE, small=True)
    doc.para(
        "The network's CPU is measured, not bounded. The per-run report (raw/cmix/<run>/report.json) "
        "also holds the counted operations of every step, each operation's unit cost, the medians, minima "
        "and maxima, and the clients' side; all of it is in the tidy table (experiment cmix).",
        small=True,
    )
