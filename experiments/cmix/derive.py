"""cmix's tables and plot data, derived from the tidy table: each phase per node beside the
thesis's published figure, every measured figure of a step, ec against mg, the set-up, and the
targets, which are the analysis's verdicts on the measurements (cmix-bench reports measurements
only).

The targets are data, like the paper's claims (analysis.derive.claims): at 500 clients and one
thread, prepre per node at least PREPRE_FACTOR times below the thesis's CPU user time, and each
real-time step's (CPU + network CPU) within REALTIME_FACTOR of (lower bound + network CPU), i.e.
the step costs its counted operations and the network it needs, and little else. With repeated
runs a target is met only if every run met it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.derive.spread import NAN, Spread
from analysis.experiments.cmix.parser import EXPERIMENT, GROUPS, NODE_ROLES, NODES, REFERENCE_SOURCE, STEPS


@dataclass(frozen=True)
class Target:
    key: str
    text: str
    factor: float
    steps: tuple[str, ...]


TARGET_CLIENTS = 500
TARGET_THREADS = 1
PREPRE = Target(
    "prepre", "prepre per node at least {f:g}x below the thesis's CPU user time", 10.0, ("prepre",)
)
REALTIME = Target(
    "realtime",
    "each real-time step's (CPU + network CPU) within {f:g}x of (lower bound + network CPU)",
    5.0,
    ("realpre", "realmix", "realpost"),
)
TARGETS = (PREPRE, REALTIME)


@dataclass(frozen=True)
class MeanSd(Spread):
    """A run's mean over its batches with the sample standard deviation (a table cell)."""

    sd: float = NAN

    def text(self, fmt: Callable[[float], str]) -> str:
        if self.count == 0 or math.isnan(self.median):
            return "-"
        return (
            fmt(self.median) if math.isnan(self.sd) else f"{fmt(self.median)} ± {like(self.median, self.sd)}"
        )


def decimals(v: float) -> int:
    """Decimals that give v three significant digits (none from 100), as analysis.units prints."""
    return 0 if v == 0 or abs(v) >= 100 else max(0, 2 - math.floor(math.log10(abs(v))))


def like(mean: float, sd: float) -> str:
    """The sd with as many decimals as its mean."""
    return f"{sd:,.{decimals(mean)}f}"


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


def ours(df: pd.DataFrame) -> pd.DataFrame:
    """Our cmix rows, with a column `host` naming each row's machine where the runs come from
    several (None where they come from one)."""
    d = df[(df["experiment"] == EXPERIMENT) & (df["source"] == "ours")]
    hosts = d["machine"].fillna("").str.split(":").str[0]
    return d.assign(host=hosts if hosts.nunique() > 1 else None)


def _reference(df: pd.DataFrame) -> pd.DataFrame:
    return df[(df["experiment"] == EXPERIMENT) & (df["source"] == REFERENCE_SOURCE)]


def _median(g: pd.DataFrame, metric: str) -> float:
    v = g[g["metric"] == metric]["value"]
    return float(np.median(v)) if len(v) else NAN


def configs(df: pd.DataFrame) -> list[Config]:
    """Every (clients, threads, host) with measured steps, the smallest batch and thread count first."""
    d = ours(df)
    d = d[d["party"].isin(NODES) & d["section"].isin(STEPS) & (d["metric"] == "cpu_mean")]
    keys = {
        (int(n), int(t), h if isinstance(h, str) else None)
        for n, t, h in zip(d["n"], d["threads"], d["host"], strict=True)
    }
    return [Config(*k) for k in sorted(keys, key=lambda k: (k[0], k[1], k[2] or ""))]


def main_config(cfgs: list[Config]) -> Config:
    """The configuration the plots show: the targets' batch size, the fewest threads."""
    return max(cfgs, key=lambda c: (c.clients == TARGET_CLIENTS, -c.threads, c.clients))


def steps(df: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """Our rows of every node's steps in one configuration."""
    d = ours(df)
    d = d[(d["n"] == cfg.clients) & (d["threads"] == cfg.threads)]
    d = d if cfg.host is None else d[d["host"] == cfg.host]
    return _steps(d)


def _steps(d: pd.DataFrame) -> pd.DataFrame:
    return d[d["party"].isin(NODES) & d["section"].isin(STEPS)]


def _values(g: pd.DataFrame, metric: str) -> list[float]:
    return [float(v) for v in g[g["metric"] == metric]["value"]]


def _cell(g: pd.DataFrame, metric: str, scale: float = 1.0, sd: str | None = None) -> Spread:
    """One figure of one step: mean ± sd for one run, the spread of the runs' values for several."""
    vals = _values(g, metric)
    if len(vals) == 1:
        s = _values(g, sd) if sd else []
        return MeanSd(vals[0] * scale, vals[0] * scale, vals[0] * scale, 1, s[0] * scale if s else NAN)
    return Spread.of(vals).scaled(scale)


def groups(d: pd.DataFrame) -> list[str]:
    """The groups measured in `d`, in the report's order."""
    present = set(d["variant"].dropna())
    return [g for g in GROUPS if g in present]


def node(party: str) -> str:
    """A node with its role: 'node 0 (first)'."""
    return f"{party} ({NODE_ROLES.get(party, '?')})"


def thesis(df: pd.DataFrame, group: str, clients: int) -> float:
    """The thesis's prepre user time per node for this group at this batch size (NaN if none)."""
    s = _reference(df)
    family = "ec" if group == "ec" else "mg"
    hit = s[
        (s["section"] == "prepre")
        & (s["metric"] == "user_mean")
        & (s["variant"] == family)
        & (s["n"] == clients)
    ]
    return float(hit["value"].iloc[0]) if len(hit) else NAN


def thesis_per_byte(df: pd.DataFrame, family: str, clients: int) -> float:
    """The thesis's prepre user time per node and payload byte (NaN if none)."""
    s = _reference(df)
    hit = s[(s["metric"] == "payload_bytes") & (s["variant"] == family)]
    payload = float(hit["value"].iloc[0]) if len(hit) else NAN
    return thesis(df, family, clients) / (clients * payload)


def _order(d: pd.DataFrame) -> list[tuple[str, str]]:
    present = set(zip(d["section"], d["party"], strict=True))
    return [(s, p) for s in STEPS for p in NODES if (s, p) in present]


def phase_table(df: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """CPU user time per phase and node, each group beside the thesis's figure where it has one."""
    d = steps(df, cfg)
    gs = groups(d)
    ref = {g: thesis(df, g, cfg.clients) for g in gs}
    rows: dict[str, dict[str, object]] = {}
    for step, party in _order(d):
        g_rows = d[(d["section"] == step) & (d["party"] == party)]
        r: dict[str, object] = {}
        for g in gs:
            r[f"{g} user [ms]"] = _cell(g_rows[g_rows["variant"] == g], "user_mean", 1e3, "user_sd")
        if any(not math.isnan(v) for v in ref.values()):
            for fam in ("ec", "mg"):
                if any(g.startswith(fam) for g in gs):
                    v = thesis(df, fam, cfg.clients) if step == "prepre" else NAN
                    r[f"thesis {fam} [ms]"] = v * 1e3
            for g in gs:
                ours_user = _median(g_rows[g_rows["variant"] == g], "user_mean")
                r[f"thesis / ours {g}"] = ref[g] / ours_user if step == "prepre" and ours_user > 0 else NAN
        rows[f"{step}, {node(party)}"] = r
    return pd.DataFrame.from_dict(rows, orient="index")


def detail_table(df: pd.DataFrame, cfg: Config, group: str) -> pd.DataFrame:
    """Every measured figure of one group's steps at one batch size and thread count."""
    d = steps(df, cfg)
    d = d[d["variant"] == group]
    rows: dict[str, dict[str, object]] = {}
    for step, party in _order(d):
        g = d[(d["section"] == step) & (d["party"] == party)]
        rows[f"{step}, {node(party)}"] = {
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


def _over_nodes(d: pd.DataFrame, group: str, step: str, metric: str, combine: Callable[..., object]) -> float:
    """One step's figure combined over the nodes (the median over repeated runs first)."""
    g = d[(d["variant"] == group) & (d["section"] == step) & (d["metric"] == metric)]
    per_node = [float(np.median(v["value"])) for _, v in g.groupby("party")]
    return float(combine(per_node)) if per_node else NAN  # type: ignore[arg-type]


def node_mean(d: pd.DataFrame, group: str, step: str, metric: str) -> float:
    """Mean over the nodes of one step's figure (the median over repeated runs first)."""
    return _over_nodes(d, group, step, metric, np.mean)


def node_sum(d: pd.DataFrame, group: str, step: str, metric: str) -> float:
    """Sum over the nodes of one step's figure (the median over repeated runs first)."""
    return _over_nodes(d, group, step, metric, np.sum)


def compare_table(df: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """ec against mg per phase: node-mean CPU and CPU per payload byte, with the thesis's prepre."""
    d = steps(df, cfg)
    gs = groups(d)
    mgs = [g for g in gs if g != "ec"] if "ec" in gs else []
    rows: dict[str, dict[str, object]] = {}
    for step in [s for s in STEPS if s in set(d["section"])]:
        r: dict[str, object] = {}
        cpu = {g: node_mean(d, g, step, "cpu_mean") for g in gs}
        per = {g: node_mean(d, g, step, "cpu_per_payload_byte") for g in gs}
        for g in gs:
            r[f"{g} CPU [ms]"] = cpu[g] * 1e3
        for g in mgs:
            r[f"{g} / ec"] = cpu[g] / cpu["ec"] if cpu["ec"] > 0 else NAN
        for g in gs:
            r[f"{g} per byte [ns]"] = per[g] * 1e9
        for g in mgs:
            r[f"{g} / ec per byte"] = per[g] / per["ec"] if per["ec"] > 0 else NAN
        rows[step] = r
    t_ec, t_mg = thesis(df, "ec", cfg.clients), thesis(df, "mg", cfg.clients)
    if not (math.isnan(t_ec) or math.isnan(t_mg)) and rows:
        b_ec, b_mg = thesis_per_byte(df, "ec", cfg.clients), thesis_per_byte(df, "mg", cfg.clients)
        r = dict.fromkeys(next(iter(rows.values())), NAN)
        for g in gs:
            r[f"{g} CPU [ms]"] = (t_ec if g == "ec" else t_mg) * 1e3
            r[f"{g} per byte [ns]"] = (b_ec if g == "ec" else b_mg) * 1e9
        for g in mgs:
            r[f"{g} / ec"] = t_mg / t_ec
            r[f"{g} / ec per byte"] = b_mg / b_ec
        rows["prepre, thesis (user time; its mg)"] = r
    return pd.DataFrame.from_dict(rows, orient="index")


def setup_table(df: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """Per group: the once-per-run set-up (TLS, registration, keys), memory and the run's time."""
    d = ours(df)
    d = d[(d["n"] == cfg.clients) & (d["threads"] == cfg.threads)]
    d = d if cfg.host is None else d[d["host"] == cfg.host]
    rows: dict[str, dict[str, object]] = {}
    for g in groups(_steps(d)):
        x = d[d["variant"] == g]
        nodes = x[x["party"].isin(NODES)]

        def per_node(section: str, metrics: tuple[str, ...], x: pd.DataFrame = nodes) -> float:
            s = x[x["section"] == section]
            per = [sum(_median(v, m) for m in metrics) for _, v in s.groupby("party")]
            return float(np.mean(per)) if per else NAN

        tls = nodes[nodes["section"] == "tls handshakes (clients)"]
        rss = x[(x["section"] == "run") & (x["metric"] == "peak_rss")]
        rows[g] = {
            "client TLS handshakes per node": _median(tls, "handshakes"),
            "CPU per handshake [ms]": per_node("tls handshakes (clients)", ("cpu_per_handshake",)) * 1e3,
            "registration CPU per node [ms]": per_node("registration", ("user", "sys")) * 1e3,
            "key set-up CPU per node [ms]": per_node("keys", ("user", "sys")) * 1e3,
            "peak memory, largest node [MiB]": float(rss[rss["party"].isin(NODES)]["value"].max()),
            "peak memory, driver [MiB]": float(rss[rss["party"] == "driver"]["value"].max()),
            "run wall time [s]": _median(x[(x["section"] == "run") & (x["party"].isna())], "wall"),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


@dataclass
class TargetTables:
    """The targets' verdicts: prepre against the thesis, the real-time steps against their
    bounds, each with the rows (indices) where a node missed its target."""

    prepre: pd.DataFrame
    prepre_missed: set[int]
    realtime: pd.DataFrame
    realtime_missed: set[int]

    @property
    def evaluated(self) -> bool:
        return not (self.prepre.empty and self.realtime.empty)


def target_tables(df: pd.DataFrame) -> TargetTables:
    """The targets at 500 clients and one thread, per host where the runs come from several: per
    node the median of repeated runs, met only if every run met it."""
    every = ours(df)
    pre: dict[str, dict[str, object]] = {}
    pre_missed: set[int] = set()
    real: dict[str, dict[str, object]] = {}
    real_missed: set[int] = set()
    hosts = sorted({h for h in every["host"] if isinstance(h, str)}) or [None]
    for host in hosts:
        on = "" if host is None else f" on {host}"
        d = steps(df, Config(TARGET_CLIENTS, TARGET_THREADS, host))
        for g in GROUPS:
            at = d[(d["variant"] == g) & (d["section"] == "prepre") & (d["metric"] == "user_mean")]
            ref = thesis(df, g, TARGET_CLIENTS)
            if at.empty or math.isnan(ref):
                continue
            r: dict[str, object] = {"thesis [s]": ref}
            for p in NODES:
                r[f"{node(p)} [s]"] = _median(at[at["party"] == p], "user_mean")
            least = float(min(ref / at["value"]))
            r["below the thesis (least)"] = least
            r["met"] = "yes" if least >= PREPRE.factor else "NO"
            if least < PREPRE.factor:
                pre_missed.add(len(pre))
            pre[g + on] = r
        for g in GROUPS:
            for step in REALTIME.steps:
                at = d[(d["variant"] == g) & (d["section"] == step) & (d["metric"] == "overhead_with_net")]
                if at.empty:
                    continue
                r = {node(p): _median(at[at["party"] == p], "overhead_with_net") for p in NODES}
                met = bool((at["value"] <= REALTIME.factor).all())
                r["met"] = "yes" if met else "NO"
                if not met:
                    real_missed.add(len(real))
                real[f"{g} {step}{on}"] = r
    return TargetTables(
        pd.DataFrame.from_dict(pre, orient="index"),
        pre_missed,
        pd.DataFrame.from_dict(real, orient="index"),
        real_missed,
    )


@dataclass
class StepBars:
    """One group's bars of the steps plot: CPU per payload byte (node mean) and, for the three
    nodes together, CPU over the lower bound without and with the network's CPU."""

    per_byte_ns: list[float]
    overhead: list[float]
    overhead_with_net: list[float]


def step_bars(df: pd.DataFrame, cfg: Config) -> tuple[list[str], dict[str, StepBars]]:
    """The steps measured in one configuration and each group's bars."""
    d = steps(df, cfg)
    names = [s for s in STEPS if s in set(d["section"])]
    out: dict[str, StepBars] = {}
    for g in groups(d):
        cpu, bound, net = (
            [node_sum(d, g, s, m) for s in names] for m in ("cpu_mean", "lower_bound", "net_cpu_mean")
        )
        out[g] = StepBars(
            [node_mean(d, g, s, "cpu_per_payload_byte") * 1e9 for s in names],
            [c / b if b > 0 else NAN for c, b in zip(cpu, bound, strict=True)],
            [(c + n) / (b + n) if b + n > 0 else NAN for c, b, n in zip(cpu, bound, net, strict=True)],
        )
    return names, out


SCALING_STEPS = ("prepre", "prepost", "realpre", "realmix")


def scaling_lines(df: pd.DataFrame, threads: int) -> dict[tuple[str, str], list[tuple[int, float]]]:
    """CPU per slot [us] (node mean) of the main phases against the batch size, per (group, step)."""
    d = _steps(ours(df))
    d = d[d["threads"] == threads]
    out: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for g in groups(d):
        for step in SCALING_STEPS:
            pts = []
            for n in sorted(set(d["n"].dropna())):
                v = node_mean(d[d["n"] == n], g, step, "cpu_mean")
                if not math.isnan(v):
                    pts.append((int(n), v / int(n) * 1e6))
            if pts:
                out[(g, step)] = pts
    return out


def batch_sizes(df: pd.DataFrame, threads: int) -> list[int]:
    d = _steps(ours(df))
    return sorted(int(n) for n in set(d[d["threads"] == threads]["n"].dropna()))


def thesis_facts(df: pd.DataFrame) -> dict[str, float]:
    """The thesis's set-up: memory [GB], timer resolution [s], runs per mean."""
    s = _reference(df)

    def fact(metric: str) -> float:
        v = s[s["metric"] == metric]["value"]
        return float(v.iloc[0]) if len(v) else NAN

    return {k: fact(k) for k in ("memory_gb", "timer_resolution_s", "runs_per_mean")}


def payload_sizes(df: pd.DataFrame) -> dict[str, int]:
    """Each group's payload bytes per slot, as the runs report them."""
    d = ours(df)
    d = d[(d["section"] == "group") & (d["metric"] == "payload_bytes_per_slot")]
    sizes = {str(g): int(v) for g, v in zip(d["variant"], d["value"], strict=True)}
    return {g: sizes[g] for g in GROUPS if g in sizes}


def seeded_keys(df: pd.DataFrame) -> bool:
    """Whether any run's keys were derived from its public seed."""
    d = ours(df)
    return bool((d[d["metric"] == "seeded"]["value"] == 1).any())
