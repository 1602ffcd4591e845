"""cmix-bench's report.json and the thesis's published figures (cmix/data/reference-figures.csv).

The report is the suite's envelope (whether it passed, the machine, the load, the commit) around
cmix-bench's body. The body holds one run per group (ec, mg, mg-full), client count and thread
count. Each run
times every step of the protocol at each of the three nodes (0 first, 1 middle, 2 last) over its
batches: CPU user, system and wall time of the computation and of the network I/O (mean,
standard deviation, median, min, max), the bytes on the sockets, the counted operations and the
lower bound they imply, the overhead above it and the CPU per payload byte. The TLS handshakes,
the key set-up and the clients' registration are timed apart, once per run. The report holds
measurements only: the comparison with the thesis and the targets are in analysis.experiments.cmix.derive.

In the tidy table: `variant` is the group, `n` the number of clients (the batch's slots),
`section` the step, `party` the node (`node 0` ...), and `label` says what was timed
(`computation`, `network`).

The thesis (a C++ implementation on one PC) printed two timings, prepre per node at 500 clients
for ec and mg; they enter with source "reference", beside the facts of its set-up.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from analysis.errors import ReportError
from analysis.parse.common import (
    Parsed,
    RunInfo,
    base_row,
    json_line,
    load_enveloped,
    need,
    num,
    numbers,
    objects,
    published_rows,
    report_problems,
    report_run,
    row,
)

EXPERIMENT = "cmix"
TOOL = "cmix-bench"
REFERENCE_FILE = Path(__file__).resolve().parents[2] / "cmix" / "data" / "reference-figures.csv"
REFERENCE_SOURCE = "reference"
REFERENCE_RUN = "thesis (cMix in C++, 2048-bit group against ed25519)"
NODES = ("node 0", "node 1", "node 2")
NODE_ROLES = {"node 0": "first", "node 1": "middle", "node 2": "last"}
GROUPS = ("ec", "mg", "mg-full")
# The protocol's steps in the order they run: the six phases and the tagging countermeasure's two.
STEPS = ("prepre", "premix", "prepost", "prepost_tags", "realpre", "realmix", "realpost", "realpost_tags")
STATS = ("mean", "sd", "median", "min", "max")
TIMES = ("user", "sys", "cpu", "wall")
COMPUTATION = "computation"
NETWORK = "network (TLS and sockets)"
# The thesis's figures: quantity -> (section, metric) where they sit beside ours.
REFERENCE_TIMINGS = {"prepre_user_s_per_node": ("prepre", "user_mean")}
REFERENCE_UNITS = {"s", "count", "bytes", "GB"}
# Figures of the set-up, measured once: key in the report -> (metric, unit).
ONCE_TIMES = {"user_s": ("user", "s"), "sys_s": ("sys", "s"), "wall_s": ("wall", "s")}
ONCE_BYTES = {"bytes_sent": ("bytes_sent", "bytes"), "bytes_received": ("bytes_received", "bytes")}


def _summary(obj: Any, p: Path, where: str) -> dict[str, float]:
    """A `{n, mean, sd, median, min, max}` block of the report."""
    return numbers(obj, p, where, STATS, "mean, sd, median, min and max", "a number")


def _times_rows(base: dict[str, Any], obj: dict[str, Any], p: Path, where: str, prefix: str,
                label: str) -> list[dict[str, Any]]:  # fmt: skip
    """user/sys/cpu/wall, each with its mean, sd, median, min and max, as rows."""
    out = []
    for kind in TIMES:
        s = _summary(obj.get(f"{kind}_s"), p, f"{where}{kind}_s")
        for stat, v in s.items():
            out.append(row(base, label=label, metric=f"{prefix}{kind}_{stat}", value=v, unit="s"))
    return out


def _once_rows(base: dict[str, Any], obj: Any, keys: dict[str, tuple[str, str]]) -> list[dict[str, Any]]:
    """Figures measured once (set-up): key in the report -> (metric, unit); absent keys skipped."""
    out = []
    if not isinstance(obj, dict):
        return out
    for key, (metric, unit) in keys.items():
        v = num(obj.get(key))
        if v is not None:
            out.append(row(base, metric=metric, value=v, unit=unit))
    return out


def _step_rows(base: dict[str, Any], s: dict[str, Any], p: Path, where: str) -> list[dict[str, Any]]:
    step = need(s, "step", str, p, where)
    if step not in STEPS:
        raise ReportError(p, json_line(p, step), f"{where}step to be one of {', '.join(STEPS)}", step)
    node = need(s, "node", int, p, where)
    b = row(base, section=step, party=f"node {node}")
    out = _times_rows(b, s, p, where, "", COMPUTATION)
    out += _times_rows(b, need(s, "net", dict, p, where), p, where + "net.", "net_", NETWORK)
    for key in ("bytes_sent", "bytes_received"):
        sm = _summary(s.get(key), p, where + key)
        for stat in ("mean", "sd"):
            out.append(row(b, label=NETWORK, metric=f"{key}_{stat}", value=sm[stat], unit="bytes"))
    scalars = {
        "lower_bound_s": ("lower_bound", "s"),
        "wall_lower_bound_s": ("wall_lower_bound", "s"),
        "overhead": ("overhead", "x"),
        "overhead_with_net": ("overhead_with_net", "x"),
        "cpu_per_payload_byte_s": ("cpu_per_payload_byte", "s/byte"),
    }
    out += [dict(r, label=COMPUTATION) for r in _once_rows(b, s, scalars)]
    for op, count in sorted((s.get("ops") or {}).items()):
        if (v := num(count)) is not None:
            out.append(row(b, label=str(op), metric="ops", value=v, unit="count"))
    return out


def _setup_rows(base: dict[str, Any], setup: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for s in setup:
        if not isinstance(s, dict) or not isinstance(s.get("node"), int):
            continue
        b = row(base, party=f"node {s['node']}", label="set-up")
        tls = {"count": ("handshakes", "count"), **ONCE_TIMES, **ONCE_BYTES,
               "cpu_per_handshake_s": ("cpu_per_handshake", "s")}  # fmt: skip
        out += _once_rows(row(b, section="tls handshakes (clients)"), s.get("tls_handshakes"), tls)
        mesh = {"handshakes": ("handshakes", "count"), **ONCE_TIMES, **ONCE_BYTES}
        out += _once_rows(row(b, section="tls handshakes (nodes)"), s.get("mesh"), mesh)
        for key in ("registration", "keys"):
            o = s.get(key)
            if not isinstance(o, dict):
                continue
            sb = row(b, section=key)
            for part, prefix in (("compute", ""), ("net", "net_")):
                times = {f"{k}_s": (f"{prefix}{k}", "s") for k in ("user", "sys", "wall")}
                out += _once_rows(sb, o.get(part), times)
            out += _once_rows(sb, o, {**ONCE_BYTES, "lower_bound_s": ("lower_bound", "s")})
    return out


def _run_failures(r: dict[str, Any], what: str) -> list[str]:
    """Why one (group, clients, threads) run does not count as verified (empty if it does)."""
    status = r.get("status")
    checks = r.get("checks") or {}
    if r.get("tamper"):
        # A run with an injected fault passes when a check detected it.
        return [] if status == "DETECTED" else [f"{what}: {status} (fault {r['tamper']} not detected)"]
    why = []
    if status != "PASSED":
        why.append(str(status))
    if r.get("error"):
        why.append(str(r["error"]))
    why += [str(x) for x in checks.get("problems") or []]
    if status == "PASSED":
        if checks.get("delivered_exactly_once") is not True:
            why.append("not every message delivered exactly once")
        if checks.get("permuted") is not True:
            why.append("output order not permuted")
        if r.get("batches_done") != r.get("reps"):
            why.append(f"{r.get('batches_done')} of {r.get('reps')} batches done")
    return [f"{what}: {'; '.join(why)}"] if why else []


def _run_rows(
    base: dict[str, Any], r: dict[str, Any], p: Path, where: str
) -> tuple[list[dict[str, Any]], list[str]]:
    """One (group, clients, threads) run: its outcome, memory, every node's steps, the set-up and the
    clients' side; and what went wrong in it, if anything."""
    group = need(r, "group", str, p, where)
    clients, t = need(r, "clients", int, p, where), need(r, "threads", int, p, where)
    rb = row(base, variant=group, n=clients, threads=t)
    bad = _run_failures(r, f"{group} clients={clients} threads={t}")
    rows = [row(rb, section="run", label=str(r.get("status")), metric="passed", value=float(not bad),
                unit="bool")]  # fmt: skip
    rows += _once_rows(row(rb, section="run", label="the run"), r,
                       {"wall_s": ("wall", "s"), "batches_done": ("batches", "count"),
                        "payload_bytes_per_slot": ("payload_bytes_per_slot", "bytes"),
                        "elements_per_slot": ("elements_per_slot", "count")})  # fmt: skip
    rss = r.get("peak_rss_mib") or {}
    for k, v in enumerate(rss.get("nodes") or []):
        if (x := num(v)) is not None:
            rows.append(row(rb, section="run", party=f"node {k}", label="peak RSS", metric="peak_rss",
                            value=x, unit="MiB"))  # fmt: skip
    if (x := num(rss.get("driver"))) is not None:
        rows.append(row(rb, section="run", party="driver", label="peak RSS", metric="peak_rss", value=x,
                        unit="MiB"))  # fmt: skip
    for at, s in objects(r, "steps", p, where):
        rows += _step_rows(rb, s, p, at)
    rows += _setup_rows(rb, r.get("setup") or [])
    side = r.get("clients_side") or {}
    cb = row(rb, party="clients")
    rows += _once_rows(row(cb, section="registration", label="set-up"), side.get("registration"), ONCE_TIMES)
    if isinstance(side.get("blind"), dict):
        blind = row(cb, section="realpre")
        rows += _times_rows(
            blind, side["blind"], p, f"{where}clients_side.blind.", "", "the clients' blinding"
        )
    return rows, bad


def _group_rows(base: dict[str, Any], g: dict[str, Any], p: Path, where: str) -> list[dict[str, Any]]:
    """A group's sizes and the unit cost of each of its counted operations."""
    label = need(g, "label", str, p, where)
    gb = row(base, variant=label, section="group", label=str(g.get("description", label)))
    sizes = {"exponent_bits": ("exponent_bits", "bits"), "wire_bytes": ("wire_bytes", "bytes"),
             "payload_bytes_per_element": ("payload_bytes_per_element", "bytes"),
             "elements_per_slot": ("elements_per_slot", "count"),
             "payload_bytes_per_slot": ("payload_bytes_per_slot", "bytes")}  # fmt: skip
    rows = _once_rows(gb, g, sizes)
    for op, cost in sorted(need(g, "unit_costs_s", dict, p, where).items()):
        if (v := num(cost)) is not None:
            rows.append(row(gb, section="unit cost", label=str(op), metric="unit_cost", value=v, unit="s"))
    return rows


def report_rows(p: Path, run: str) -> tuple[list[dict[str, Any]], RunInfo]:
    env = load_enveloped(p, TOOL)
    d = env.body
    base = env.base_row(EXPERIMENT, run, party=None)
    rows = env.load_rows(base)
    protocol = d.get("protocol") or {}
    rows.append(row(base, section="run", label=str(protocol.get("keys", "")), metric="seeded",
                    value=float(env.seed is not None), unit="bool"))  # fmt: skip
    for i, g in enumerate(need(d, "groups", list, p, "body.")):
        rows += _group_rows(base, g, p, f"body.groups[{i}].")
    explained: list[str] = []
    threads: set[int] = set()
    for where, r in objects(d, "runs", p, "body.", at=""):
        threads.add(need(r, "threads", int, p, where))
        more, bad = _run_rows(base, r, p, where)
        rows += more
        explained += bad
    # The envelope's passed is the verdict; the runs' own outcomes only say what went wrong.
    failed = [] if env.passed else explained or ["the report did not pass"]
    return rows, env.settle(rows, EXPERIMENT, run, failed, threads, {})


def load_run(run_dir: Path, run_id: str, params: dict[str, Any]) -> Parsed:
    read = partial(report_rows, run=run_id)
    return report_run(EXPERIMENT, run_dir, run_id, read, variant=None, n=params.get("clients"), threads=None)


def load_reference(_paper_dir: Path) -> Parsed:
    """The thesis's published figures: its prepre timings and the facts of its set-up."""
    p = REFERENCE_FILE
    rows: list[dict[str, Any]] = []
    for no, r, value in published_rows(p, "the thesis's figures (shipped in cmix/data/)", REFERENCE_UNITS):
        unit = r.get("unit") or ""
        quantity = r.get("quantity") or ""
        if not quantity:
            raise ReportError(p, no, "a quantity", "")
        clients = (r.get("clients") or "").strip()
        section, metric = REFERENCE_TIMINGS.get(quantity, ("thesis set-up", quantity))
        rows.append(base_row(
            EXPERIMENT, REFERENCE_SOURCE, REFERENCE_RUN, p, machine=r.get("machine", ""),
            variant=r.get("group") or None, n=int(clients) if clients else None, section=section, party=None,
            label=r.get("source", ""), metric=metric, value=value, unit=unit,
        ))  # fmt: skip
    info = RunInfo(EXPERIMENT, REFERENCE_SOURCE, REFERENCE_RUN, str(p), True, None)
    return Parsed(rows, [info], [])


def problems(run_dir: Path) -> list[str]:
    return report_problems(run_dir, lambda js: report_rows(js, run_dir.name)[1].failed)
